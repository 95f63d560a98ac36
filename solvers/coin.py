"""COIN-OR CLP through CyLP (``pip install equilibria[cylp]``): linear programs only.

The matrix is handed over as coordinate arrays in one ``CyCoinPackedMatrix``. CyLP exposes
no time limit for CLP, so the backend declares none and refuses one. CyLP's CBC model was
left out: on a threshold program whose LP relaxation is integral at the root it reported
"solution" with no counted solution and a point violating rows by 0.3.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np

from .base import Backend, Capabilities, register
from .results import Solution, Status

if TYPE_CHECKING:
    from ..formulations.linear_program import LinearProgram

#: CLP ``getStatusCode()`` -> Status
_CLP_STATUS = {
    0: Status.OPTIMAL,
    1: Status.INFEASIBLE,
    2: Status.UNBOUNDED,
    3: Status.ITERATION_LIMIT,
    4: Status.ERROR,
    5: Status.INTERRUPTED,
}


def _clp(problem: LinearProgram, verbose: bool) -> Any:
    from cylp.cy import CyClpSimplex
    from cylp.cy.CyCoinPackedMatrix import CyCoinPackedMatrix

    A = problem.A.tocoo()
    m, n = problem.num_rows, problem.num_cols
    rows, cols, vals = A.row.astype(np.int32), A.col.astype(np.int32), A.data.astype(np.float64)
    if m and n and not np.any((rows == m - 1) & (cols == n - 1)):
        # the packed matrix takes its shape from the largest indices: an explicit zero in the
        # last row and column keeps empty trailing rows and columns (only where no entry is,
        # since a repeated position would replace the coefficient)
        rows, cols, vals = np.append(rows, m - 1), np.append(cols, n - 1), np.append(vals, 0.0)
    rows, cols = rows.astype(np.int32), cols.astype(np.int32)
    sign = -1.0 if problem.maximize else 1.0  # CLP minimises
    s = CyClpSimplex()
    s.logLevel = 1 if verbose else 0
    s.loadProblem(
        CyCoinPackedMatrix(True, rows, cols, vals),
        np.asarray(problem.col_lower, np.float64),
        np.asarray(problem.col_upper, np.float64),
        sign * np.asarray(problem.c, np.float64),
        np.asarray(problem.row_lower, np.float64),
        np.asarray(problem.row_upper, np.float64),
    )
    return s, sign


def solve_cylp(problem: LinearProgram, verbose: bool = False, options: dict[str, Any] | None = None) -> Solution:
    """Solve an LP with CLP; returns the Solution (with row duals at an optimum)."""
    t0 = time.perf_counter()
    s, sign = _clp(problem, verbose)
    for key, value in (options or {}).items():
        setattr(s, key, value)
    t1 = time.perf_counter()
    s.initialSolve()
    code = s.getStatusCode()
    status = _CLP_STATUS.get(code, Status.UNKNOWN)
    x = duals = objective = None
    if status == Status.OPTIMAL:
        x = np.asarray(s.primalVariableSolution, dtype=float).copy()
        objective = sign * float(s.objectiveValue)
        duals = sign * np.asarray(s.dualConstraintSolution, dtype=float)
    t2 = time.perf_counter()
    return Solution(
        status=status,
        objective=objective,
        x=x,
        row_duals=duals,
        backend="cylp",
        method="clp",
        seconds={"build": t1 - t0, "transfer": 0.0, "solve": t2 - t1},
        message=f"CLP status {code}: {s.getStatusString()}",
    )


@register
class CylpBackend(Backend):
    """COIN-OR CLP through CyLP: LPs with duals; no integers, no time limit."""

    name = "cylp"
    module = "cylp"
    install = "equilibria[cylp]"
    capabilities = Capabilities(lp=True, duals=True)

    def _solve_lp(
        self,
        problem: LinearProgram,
        *,
        method: str | None,
        time_limit: float | None,
        verbose: bool,
        options: dict[str, Any],
        warm_start: np.ndarray | None,
    ) -> Solution:
        return solve_cylp(problem, verbose=verbose, options=options)
