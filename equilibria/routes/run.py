"""What a solve of the sequence form returns, by the LP or by a first-order method."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..formulations.linear_program import LinearProgram
from ..models.best_response import Exploitability
from ..solvers import Solution, Status


@dataclass(frozen=True)
class Attempt:
    """One rung of the interior-point tolerance ladder of an anytime LP solve: the IPM
    tolerance, the solver's status, its seconds and, where the solve gave strategies, their
    certified exploitability (None: no strategies to certify)."""

    tolerance: float
    status: str
    seconds: float
    exploitability: float | None = None

    def row(self) -> dict[str, Any]:
        """The attempt as a plain dict (the answer's ``attempts`` entries): ``exploitability``
        only where the attempt was certified."""
        out: dict[str, Any] = {"tolerance": self.tolerance, "status": self.status, "seconds": self.seconds}
        if self.exploitability is not None:
            out["exploitability"] = self.exploitability
        return out


@dataclass(frozen=True)
class CurvePoint:
    """One certificate of a first-order solve: the iterations run, the seconds spent
    iterating, the certified exploitability of the average strategies and, for mirror-prox
    only, its proven bound on the exploitability (half its bound on the duality gap)."""

    iterations: int
    seconds: float
    exploitability: float
    proven_bound: float | None = None

    def row(self) -> dict[str, Any]:
        """The point as a plain dict (the answer's ``curve`` entries): ``proven_bound``
        only for mirror-prox."""
        out: dict[str, Any] = {
            "iterations": self.iterations,
            "seconds": self.seconds,
            "exploitability": self.exploitability,
        }
        if self.proven_bound is not None:
            out["proven_bound"] = self.proven_bound
        return out


@dataclass
class LPRun:
    """One solved sequence-form LP: the LP, both players' behaviour strategies on the
    solved sequence form, their certificate there, the value and the solver's reports."""

    lp: LinearProgram | None  # None when a first-order algorithm solved the saddle point
    behaviors: list[np.ndarray]
    certificate: Exploitability
    status: Status
    value: float
    backend: str | None  # None for a first-order algorithm: no solver behind it
    method: str | None
    solutions: list[Solution] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)
    problem_sizes: dict = field(default_factory=dict)
    dominance: dict = field(default_factory=dict)
    algorithm: str = "lp"
    plan: list[str] = field(default_factory=list)  # what backend="auto" chose, and why

    def answer_fields(self) -> dict[str, Any]:
        """What an answer takes from the run: status, backend or algorithm, the value, the
        program's size and the anytime or first-order record."""
        return {
            "status": self.status,
            "backend": self.backend,
            "algorithm": self.algorithm,
            "method": self.method,
            "value": self.value,
            "sizes": self.sizes,
            "attempts": self.attempts,
            "curve": self.curve,
            "dominance": self.dominance,
            "plan": self.plan,
        }

    @property
    def sizes(self) -> dict:
        """Rows, columns and nonzeros of player 1's LP (for a first-order algorithm: the
        players' sequences and the payoff matrix's nonzeros)."""
        if self.lp is None:
            return dict(self.problem_sizes)
        return {"rows": self.lp.num_rows, "columns": self.lp.num_cols, "nonzeros": self.lp.nnz}


__all__ = ["Attempt", "CurvePoint", "LPRun"]
