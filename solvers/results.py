"""What a solve returns: why it stopped (:class:`Status`), what solution it holds
(:class:`SolutionStatus`) and the values (:class:`Solution`), shared by every backend and
every route. A leaf module: it imports no solver and nothing else of the package.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np


class Status(StrEnum):
    """Why a run stopped, in one vocabulary shared by every backend and every route (a
    solver's termination condition; what solution it holds is :class:`SolutionStatus`).

    A ``StrEnum``: ``Status.OPTIMAL == "optimal"`` and ``str()`` / f-strings / JSON give the
    plain word, so code comparing with strings keeps working.
    """

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    #: the solver proved that no optimum exists but not which of the two cases holds
    INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"
    NODE_LIMIT = "node_limit"
    SOLUTION_LIMIT = "solution_limit"
    OBJECTIVE_TARGET = "objective_target"
    #: an anytime run's certified exploitability reached the target asked for
    TARGET_REACHED = "target_reached"
    #: a first-order run whose exploitability falls too slowly to reach its target
    STALLED = "stalled"
    INTERRUPTED = "interrupted"
    ERROR = "error"
    UNKNOWN = "unknown"


class SolutionStatus(StrEnum):
    """What a run holds when it stops, whatever stopped it: a proven optimum, a feasible
    point (an incumbent, an anytime solve's best strategies), a proof that there is none,
    or nothing."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    NONE = "none"


def solution_status(status: Status | str, has_solution: bool) -> SolutionStatus:
    """The solution status of a run that stopped with ``status``."""
    if status == Status.OPTIMAL and has_solution:
        return SolutionStatus.OPTIMAL
    if has_solution:
        return SolutionStatus.FEASIBLE
    if status == Status.INFEASIBLE:
        return SolutionStatus.INFEASIBLE
    return SolutionStatus.NONE


@dataclass
class Solution:
    """What every backend returns, for a LinearProgram and for a Pyomo model alike.

    ``status`` is a :class:`Status`. ``x`` and ``row_duals`` are in the problem's column and
    row order (None when the backend gives none; for a Pyomo model ``x`` follows the
    compiled columns and the values are also loaded into the model's variables).
    ``seconds`` splits wall time into ``build`` (the backend's own data), ``transfer``
    (into the solver) and ``solve`` (plus ``transform`` / ``compile`` for Pyomo models).
    ``active_disjuncts`` names the disjuncts selected in a model with disjunctions and
    ``indicators`` how they reached the solver (``native``, ``bigm`` or ``hull``).
    """

    status: Status
    objective: float | None
    x: np.ndarray | None
    row_duals: np.ndarray | None
    backend: str
    method: str | None = None
    seconds: dict = field(default_factory=dict)
    dual_objective: float | None = None
    message: str = ""
    active_disjuncts: list[str] | None = None
    indicators: str | None = None

    def __post_init__(self):
        self.status = Status(self.status)

    @property
    def optimal(self) -> bool:
        """True when the backend proved optimality."""
        return self.status == Status.OPTIMAL

    @property
    def solution_status(self) -> SolutionStatus:
        """What the solve holds, apart from why it stopped."""
        return solution_status(self.status, self.x is not None)

    @property
    def gap(self) -> float | None:
        """|primal - dual objective| when both are known."""
        if self.objective is None or self.dual_objective is None:
            return None
        return abs(self.objective - self.dual_objective)


@contextlib.contextmanager
def quiet_logger(name: str = "pyomo", level: int = logging.ERROR) -> Iterator[logging.Logger]:
    """Raise logger ``name`` to ``level`` inside the block and restore its level after."""
    log = logging.getLogger(name)
    before = log.level
    log.setLevel(max(level, before))
    try:
        yield log
    finally:
        log.setLevel(before)


def progress_text(seconds: float, nodes: int, primal: float | None, dual: float | None) -> str:
    """One progress line of a branch-and-bound solve: nodes, incumbent, bound and gap."""
    parts = [f"{seconds:.0f} s", f"{nodes:,} nodes"]
    finite = [v is not None and abs(v) < 1e19 for v in (primal, dual)]
    parts.append(f"incumbent {primal:.6g}" if finite[0] else "no incumbent yet")
    if finite[1]:
        parts.append(f"bound {dual:.6g}")
    if all(finite):
        assert primal is not None and dual is not None
        gap = abs(primal - dual) / max(abs(primal), 1e-9)
        parts.append(f"gap {100 * gap:.2f}%")
    return ", ".join(parts)


__all__ = ["Solution", "SolutionStatus", "Status", "progress_text", "quiet_logger", "solution_status"]
