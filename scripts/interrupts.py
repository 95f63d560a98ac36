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

#: The signals that end a command cleanly (partial files removed, one line), with the
#: word said and the exit status (128 + the signal's number, as a shell reports it).
ENDING_SIGNALS = {"SIGINT": ("interrupted", 130), "SIGTERM": ("terminated", 143), "SIGHUP": ("hung up", 129)}

#: The name of the ending signal seen (SIGINT until another is seen).
_seen = ["SIGINT"]


def seen(name: str) -> None:
    """Note that the ending signal ``name`` arrived."""
    _seen[0] = name
    SIGNALLED.set()


def exit_status() -> int:
    """The exit status for the ending signal seen (130 for Ctrl-C)."""
    return ENDING_SIGNALS[_seen[0]][1]


def interrupted(note: str | None = None) -> None:
    """Remove partial output files and print ``equilibria: interrupted`` (``terminated``,
    ``hung up``, by the signal seen) once, with ``note`` beside it on the same line (what
    the command kept: a sweep's records)."""
    global _done
    with _said:
        models_output = sys.modules.get("equilibria.models.output")
        if models_output is not None:
            models_output.remove_partial_outputs()
        if not _done:
            _done = True
            try:
                said = ENDING_SIGNALS[_seen[0]][0] + (f"; {note}" if note else "")
                print(f"equilibria: {said}", file=sys.stderr, flush=True)
            except OSError:
                pass


__all__ = ["ENDING_SIGNALS", "SIGNALLED", "WATCHING", "exit_status", "interrupted", "seen"]
