"""The ``equilibria`` console command's process: interrupts handled from the first moment.

This module imports only what handling an interrupt needs; the command line itself
(:mod:`equilibria.scripts.cli`, numpy and the rest) is imported after SIGINT is taken over,
so Ctrl-C during start-up exits as cleanly as Ctrl-C during a solve.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import NoReturn

from .interrupts import ENDING_SIGNALS, SIGNALLED, WATCHING, exit_status, interrupted, seen

#: Seconds an interrupted command has to unwind before the process leaves regardless.
EXIT_GRACE = 0.8


#: SIGINT, SIGTERM and SIGHUP: each ends a command as Ctrl-C does.
_ENDING = [getattr(signal, name) for name in ENDING_SIGNALS if hasattr(signal, name)]


def _on_sigint(signum: int, frame: object) -> None:
    """Python's handler of SIGINT in the main thread (reached directly, or through the
    watcher below): note that a signal came, then unwind as Python's default does."""
    SIGNALLED.set()
    raise KeyboardInterrupt


def _watch_interrupts() -> None:
    """Wait for SIGINT, SIGTERM or SIGHUP in a thread of its own (they are blocked
    everywhere else), so that the signal is seen even while the main thread is inside a
    long C call: the main thread is asked to unwind (KeyboardInterrupt: solvers are
    cancelled, partial files removed); if it has not finished within :data:`EXIT_GRACE`
    seconds the process leaves anyway, with 128 plus the signal's number."""
    number = signal.sigwait(set(_ENDING))
    seen(signal.Signals(number).name)
    import _thread

    _thread.interrupt_main()
    time.sleep(EXIT_GRACE)
    interrupted()
    os._exit(exit_status())


def entry() -> NoReturn:
    """Run the command line in a process of its own: exit status as :func:`cli.main`
    returns it; within a second of Ctrl-C, SIGTERM or SIGHUP, whatever the process is
    doing, 130, 143 or 129, partial files removed."""
    if hasattr(signal, "pthread_sigmask"):
        # a shell starts background commands with SIGINT ignored, and the interrupt below
        # reaches the main thread only through a Python handler: install one
        signal.signal(signal.SIGINT, _on_sigint)
        # block the ending signals before any other thread exists, so every thread
        # inherits the mask and only the watcher receives them
        signal.pthread_sigmask(signal.SIG_BLOCK, set(_ENDING))
        threading.Thread(target=_watch_interrupts, name="interrupts", daemon=True).start()
        WATCHING.set()
    try:
        from .cli import main

        code = main()
    except KeyboardInterrupt:  # during the imports
        interrupted()
        code = exit_status()
    try:
        if sys.stdout is not None:  # None when started with standard output closed
            sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass
    # leave without the interpreter's shutdown: solver threads cancelled on an interrupt may
    # still be unwinding in C++ and must not be torn down under it
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


__all__ = ["EXIT_GRACE", "SIGNALLED", "WATCHING", "entry", "interrupted"]
