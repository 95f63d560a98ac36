"""COIN-OR CLP (LPs) and CBC (MILPs) through CyLP (``pip install equilibria[cylp]``).

The matrix is handed over as coordinate arrays in one ``CyCoinPackedMatrix``. CyLP exposes
no time limit for CLP, so the backend declares none and refuses one.
"""
from __future__ import annotations

import time

import numpy as np

from .base import Backend, Capabilities, Solution, Status, is_mip, register

#: CLP ``getStatusCode()`` -> Status
_CLP_STATUS = {0: Status.OPTIMAL, 1: Status.INFEASIBLE, 2: Status.UNBOUNDED, 3: Status.ITERATION_LIMIT,
               4: Status.ERROR, 5: Status.INTERRUPTED}
#: CyCbcModel ``status`` text -> Status
_CBC_STATUS = {"solution": Status.OPTIMAL, "relaxation infeasible": Status.INFEASIBLE,
               "linear relaxation unbounded": Status.UNBOUNDED, "stopped on gap": Status.SOLUTION_LIMIT,
               "stopped on nodes": Status.NODE_LIMIT, "stopped on time": Status.TIME_LIMIT,
               "stopped on user event": Status.INTERRUPTED, "stopped on solutions": Status.SOLUTION_LIMIT}


def _clp(problem, verbose):
    from cylp.cy import CyClpSimplex
    from cylp.cy.CyCoinPackedMatrix import CyCoinPackedMatrix

    A = problem.A.tocoo()
    m, n = problem.num_rows, problem.num_cols
    # the packed matrix takes its shape from the largest indices: an explicit zero in the
    # last row and column keeps empty trailing rows and columns
    rows = np.append(A.row, m - 1).astype(np.int32)
    cols = np.append(A.col, n - 1).astype(np.int32)
    vals = np.append(A.data, 0.0).astype(np.float64)
    sign = -1.0 if problem.maximize else 1.0  # CLP minimises
    s = CyClpSimplex()
    s.logLevel = 1 if verbose else 0
    s.loadProblem(CyCoinPackedMatrix(True, rows, cols, vals),
                  np.asarray(problem.col_lower, np.float64), np.asarray(problem.col_upper, np.float64),
                  sign * np.asarray(problem.c, np.float64),
                  np.asarray(problem.row_lower, np.float64), np.asarray(problem.row_upper, np.float64))
    return s, sign


def solve_cylp(problem, verbose=False, options=None) -> Solution:
    """Solve an LP with CLP (with row duals) or a MILP with CBC; returns the Solution."""
    t0 = time.perf_counter()
    s, sign = _clp(problem, verbose)
    for key, value in (options or {}).items():
        setattr(s, key, value)
    t1 = time.perf_counter()
    x = duals = objective = dual_objective = None
    if not is_mip(problem):
        s.initialSolve()
        code = s.getStatusCode()
        status = _CLP_STATUS.get(code, Status.UNKNOWN)
        message = f"CLP status {code}: {s.getStatusString()}"
        if status == Status.OPTIMAL:
            x = np.asarray(s.primalVariableSolution, dtype=float).copy()
            objective = sign * float(s.objectiveValue)
            duals = sign * np.asarray(s.dualConstraintSolution, dtype=float)
        method = "clp"
    else:
        s.copyInIntegerInformation(np.asarray(problem.integrality, dtype=np.uint8))
        cbc = s.getCbcModel()
        cbc.logLevel = 1 if verbose else 0
        cbc.solve()
        status = _CBC_STATUS.get(cbc.status, Status.UNKNOWN)
        if status == Status.OPTIMAL and cbc.isRelaxationInfeasible():
            status = Status.INFEASIBLE
        message = f"CBC: {cbc.status}"
        if cbc.solutionCount > 0:
            x = np.asarray(cbc.primalVariableSolution, dtype=float).copy()
            objective = sign * float(cbc.objectiveValue)
            dual_objective = sign * float(cbc.bestPossibleObjValue)
        method = "cbc"
    t2 = time.perf_counter()
    return Solution(status=status, objective=objective, x=x, row_duals=duals, backend="cylp", method=method,
                    seconds={"build": t1 - t0, "transfer": 0.0, "solve": t2 - t1},
                    dual_objective=dual_objective, message=message)


@register
class CylpBackend(Backend):
    """COIN-OR CLP for LPs with duals and CBC for MILPs, through CyLP; no time limit."""

    name = "cylp"
    module = "cylp"
    install = "equilibria[cylp]"
    capabilities = Capabilities(lp=True, milp=True, duals=True)

    def _solve_lp(self, problem, *, method, time_limit, verbose, options, warm_start) -> Solution:
        return solve_cylp(problem, verbose=verbose, options=options)
