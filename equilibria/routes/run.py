"""What a solve of the sequence form returns, by the LP or by a first-order method."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..formulations.linear_program import LinearProgram
from ..models.best_response import Exploitability
from ..solvers import Solution, Status


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
    attempts: list[dict] = field(default_factory=list)
    curve: list[dict] = field(default_factory=list)
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


__all__ = ["LPRun"]
