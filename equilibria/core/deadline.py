"""One deadline for a whole run, enforced where the work itself does not check it.

Routes check their time limit between steps (rounds, tolerances, certificates), but a
single step can run long past it: building a MIP Nash round's Pyomo model for four-player
Kuhn poker took 18 s under a 2 s limit. :func:`enforced` raises :class:`DeadlineExpired`
in the running thread once the deadline (plus a grace for the route's own ending) has
passed, wherever that thread is in Python code; a solver running in another thread is
cancelled by the waiting thread's handler, as for Ctrl-C. A loop that holds a certified
answer catches the exception and ends as at its own time limit.

The exception is delivered with ``PyThreadState_SetAsyncExc``, not as a signal: Ctrl-C
keeps its own meaning, and the thread need not be the main one.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..models.errors import NoAnswerError

#: When the command that runs this process began (``time.perf_counter()``), set by the
#: command line: a time limit then bounds the whole command, its imports and the game's
#: reading included, not only the solve. None from Python: a limit counts from the call.
command_started: float | None = None


def deadline_for(time_limit: float | None) -> float | None:
    """The ``time.perf_counter()`` value at which a run given ``time_limit`` must end."""
    if time_limit is None:
        return None
    return (command_started if command_started is not None else time.perf_counter()) + time_limit


def grace_for(time_limit: float | None) -> float:
    """How long a step may run past the deadline before it is stopped: a fifth of the
    limit, at most a second (time for a route to end with what it holds)."""
    return 0.0 if time_limit is None else min(1.0, 0.2 * time_limit)


class DeadlineExpired(BaseException):
    """The time limit passed while a step of the run was still working. A BaseException,
    as KeyboardInterrupt is, so that code catching Exception (a model compiler turning
    any failure into its own error) does not take it for a failure of its own;
    :func:`equilibria.core.skeleton.solve` turns it into :class:`OutOfTime`."""


class OutOfTime(NoAnswerError):
    """The run ended at its time limit without a certified answer (exit 1)."""


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Ask the interpreter to raise ``exception`` in thread ``thread_id`` at its next
    bytecode (None: withdraw a request not yet delivered)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception is not None else ctypes.c_void_p(0)
    )


@contextmanager
def enforced(deadline: float | None, grace: float = 0.0) -> Iterator[None]:
    """Run the block; if it is still running ``grace`` seconds after ``deadline`` (a
    ``time.perf_counter()`` value), raise :class:`DeadlineExpired` in it. Nothing is done
    without a deadline."""
    if deadline is None:
        yield
        return
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                _raise_in(target, DeadlineExpired)

    timer = threading.Timer(max(0.0, deadline + grace - time.perf_counter()), fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["done"] = True
            timer.cancel()
            if state["fired"]:
                _raise_in(target, None)  # the block ended first: the request must not outlive it


__all__ = ["DeadlineExpired", "OutOfTime", "command_started", "deadline_for", "enforced", "grace_for"]
