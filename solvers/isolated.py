"""Run a solve in a forked child process, so that a solver library that takes the process
down takes only the child.

SCIP 10 corrupts its heap on some programs with bilinear rows (glibc then aborts with
``free(): invalid size`` or ``munmap_chunk(): invalid pointer``, or hangs after ``corrupted
size vs. prev_size``): the located threshold programs of generalized Kuhn with three players
and six or eight cards and of four-player Kuhn, reproduced from a written ``.cip`` file in a
fresh PySCIPOpt. In a child, such a fault is one :class:`SolverError` in the parent. The
child's values are loaded into the parent's model; what the child's C libraries print on
standard error is kept for the error message instead of reaching the terminal.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

from ..models.errors import SolveFailed
from .results import Solution

#: Seconds past its time limit that a child has to hand back its values before it is
#: taken for hung and killed (a command's time limit holds within 10% and 5 s, start-up,
#: build and certificate included: five seconds here overran it on four-player Kuhn).
CHILD_GRACE = 2.0

#: Seconds between checks on the child (and for an interrupt to be seen).
POLL_SECONDS = 0.05


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (a parent killed outright
    leaves no solver running on); elsewhere nothing."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def call_in_child(work: Callable[[], None], what: str) -> None:
    """``work()`` in a forked child, the parent waiting in short steps: a C call that holds
    Python's lock for seconds (HiGHS writing a model file) would otherwise keep Ctrl-C,
    SIGTERM and the interrupt watcher waiting until it returns. An interrupt kills the
    child; an exception in it is raised here as SolverError naming ``what``."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def run() -> None:
        _die_with_parent()
        try:
            work()
            send.send(None)
        except Exception as exc:  # reported in the parent
            send.send(str(exc) or type(exc).__name__)
        finally:
            send.close()
            os._exit(0)

    child = context.Process(target=run, daemon=True)
    outcome: list[str | None] = []
    try:
        # started inside the try: an interrupt at any moment from here kills the child
        # before the caller removes the file it may be writing
        child.start()
        send.close()
        while not receive.poll(POLL_SECONDS):
            if not child.is_alive() and not receive.poll(0):
                break
        try:
            outcome.append(receive.recv())
        except EOFError:  # the child died before it could answer
            pass
        child.join()
    finally:
        if child.pid is not None and child.is_alive():
            child.kill()
            child.join()
        receive.close()
    if not outcome:
        raise SolveFailed(f"{what} failed: its process ended with exit {child.exitcode}")
    if outcome[0] is not None:
        raise SolveFailed(f"{what} failed: {outcome[0]}")


def solve_in_child(solve: Callable[[], Solution], model: Any, time_limit: float | None, name: str) -> Solution:
    """``solve()`` (which loads its values into ``model``) in a forked child; returns its
    Solution with the values loaded into ``model`` here. Raises SolverError naming backend
    ``name`` when the child dies or outlives ``time_limit`` plus :data:`CHILD_GRACE`, and
    re-raises a SolverError the solve raised."""
    import pyomo.environ as pyo

    variables = list(model.component_data_objects(pyo.Var, descend_into=True))
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    said = tempfile.TemporaryFile()

    def run() -> None:
        _die_with_parent()
        os.dup2(said.fileno(), 2)
        try:
            sol = solve()
            send.send(("solved", sol, [v.value for v in variables]))
        except Exception as exc:  # reported in the parent as a SolverError
            send.send(("error", str(exc), None))
        finally:
            send.close()
            os._exit(0)

    child = context.Process(target=run, daemon=True)
    child.start()
    send.close()
    outcome, hung = None, False
    deadline = None if time_limit is None else time.monotonic() + time_limit + CHILD_GRACE
    try:
        # short waits, so that an interrupt reaches this thread (and the finally below
        # kills the child) instead of waiting inside one long poll
        while not receive.poll(POLL_SECONDS):
            if not child.is_alive() and not receive.poll(0):
                break
            if deadline is not None and time.monotonic() > deadline:
                hung = True
                break
        if not hung:
            try:
                outcome = receive.recv()
            except EOFError:  # the child died before it could answer
                pass
        child.join(CHILD_GRACE)
    finally:
        if child.is_alive():
            child.kill()
            child.join()
        receive.close()
        said.seek(0)
        last = [line.strip() for line in said.read().decode(errors="replace").splitlines() if line.strip()]
        said.close()
    if hung:
        why = f" ({last[-1]})" if last else ""
        raise SolveFailed(f"backend {name} did not return within the time limit on this program{why}")
    if outcome is None:
        why = f": {last[-1]}" if last else ""
        raise SolveFailed(
            f"backend {name} aborted on this program (exit {child.exitcode}{why}), a fault inside the solver"
        )
    kind, result, values = outcome
    if kind == "error":
        raise SolveFailed(result)
    for var, value in zip(variables, values):
        if not var.fixed:
            var.set_value(value, skip_validation=True)
    return result


__all__ = ["CHILD_GRACE", "POLL_SECONDS", "call_in_child", "solve_in_child"]
