"""What an interrupted command shares between the process's entry point
(:mod:`equilibria.scripts.console`) and the command line (:mod:`equilibria.scripts.cli`):
whether SIGINT is watched and was seen, and the one clean-up that removes partial files and
says so."""

from __future__ import annotations

import sys
import threading

_said = threading.Lock()
_done = False

#: Set once the console's thread watches for SIGINT, and once it has seen one: with the
#: first and not the second, a KeyboardInterrupt came from code (a rules file raising it),
#: not from Ctrl-C.
WATCHING = threading.Event()
SIGNALLED = threading.Event()


def interrupted() -> None:
    """Remove partial output files and print ``equilibria: interrupted`` once."""
    global _done
    with _said:
        models_output = sys.modules.get("equilibria.models.output")
        if models_output is not None:
            models_output.remove_partial_outputs()
        if not _done:
            _done = True
            try:
                print("equilibria: interrupted", file=sys.stderr, flush=True)
            except OSError:
                pass


__all__ = ["SIGNALLED", "WATCHING", "interrupted"]
