"""Worker processes that behave on the command line: pools whose workers stay silent on
Ctrl-C, and multiprocessing's resource tracker started without its warnings on the
command's standard error. Used by the threshold route's separate programs and by sweeps."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

#: The tracker's warning about semaphores an interrupted run left (it releases them
#: itself, as it should; the warning reads like a fault).
_TRACKER_WARNING = "ignore::UserWarning:multiprocessing.resource_tracker"


def quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (if it is not running) with its standard
    error on the null device and its leak warning off. A worker stopped early cannot
    release the locks Pyomo makes, nor an interrupted sweep its queues' semaphores; the
    tracker releases them and would otherwise print a warning each to the command's
    stderr. Starting it unblocks SIGINT in this thread, and the command line keeps SIGINT
    blocked outside one watching thread, so the signal mask is put back as it was."""
    from multiprocessing import resource_tracker

    if _TRACKER_WARNING not in sys.warnoptions:
        sys.warnoptions.append(_TRACKER_WARNING)  # the tracker reads -W options as it starts
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, "pthread_sigmask") else None
    with _stderr_to_null():
        resource_tracker.ensure_running()
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def pool_deaf_to_ctrl_c(context: Any, workers: int) -> Any:
    """A pool of ``workers`` processes that stay silent on Ctrl-C: it reaches the whole
    process group, and a worker it caught while starting printed a traceback or "Fatal
    Python error". The workers ignore SIGINT once started, and inherit a standard error
    that leads nowhere (their outcomes come back as results, errors included); the parent
    handles the interrupt and terminates the pool."""
    try:
        sys.stderr.flush()
    except OSError:
        pass
    with _stderr_to_null():  # only while the workers are created: they keep it, this process not
        return context.Pool(workers, initializer=worker_signals)


class _stderr_to_null:
    """File descriptor 2 on the null device for the block, and back after."""

    def __enter__(self) -> None:
        self.saved = os.dup(2)
        self.null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(self.null, 2)

    def __exit__(self, *exc: object) -> None:
        os.dup2(self.saved, 2)
        os.close(self.saved)
        os.close(self.null)


def worker_signals() -> None:
    """In a worker process, as it starts: Ctrl-C is ignored (it is the parent's to
    handle), and the signals that end a process are unblocked. A spawned process inherits
    its parent's signal mask, and the command line blocks SIGINT, SIGTERM and SIGHUP
    outside its watching thread: a worker left with SIGTERM blocked outlived the parent's
    ``terminate()``, and the parent waited for it forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        ending = {signal.SIGINT, signal.SIGTERM} | ({signal.SIGHUP} if hasattr(signal, "SIGHUP") else set())
        signal.pthread_sigmask(signal.SIG_UNBLOCK, ending)


__all__ = ["pool_deaf_to_ctrl_c", "quiet_resource_tracker", "worker_signals"]
