"""Gurobi through gurobipy (``pip install equilibria[gurobi]``).

The matrix goes in as one ``addMVar`` and one ``addMConstr`` per sense (scipy sparse rows),
so no Python object is made per nonzero. The license bundled with the pip package solves
models of up to 2000 variables and 2000 constraints; a full license lifts that.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..models.errors import SolveFailed, SolverError
from .base import Backend, Capabilities, is_mip, register
from .results import Solution, Status

if TYPE_CHECKING:
    from ..formulations.linear_program import LinearProgram

#: gurobipy GRB.Status codes -> Status
_STATUS = {
    2: Status.OPTIMAL,
    3: Status.INFEASIBLE,
    4: Status.INFEASIBLE_OR_UNBOUNDED,
    5: Status.UNBOUNDED,
    7: Status.ITERATION_LIMIT,
    8: Status.NODE_LIMIT,
    9: Status.TIME_LIMIT,
    10: Status.SOLUTION_LIMIT,
    11: Status.INTERRUPTED,
    12: Status.ERROR,
    15: Status.OBJECTIVE_TARGET,
    16: Status.TIME_LIMIT,
}

#: Size the pip-bundled restricted license admits (variables, constraints).
RESTRICTED = (2000, 2000)

#: LP algorithms by name -> Gurobi's ``Method`` parameter.
METHODS = {"auto": -1, "primal": 0, "dual": 1, "barrier": 2, "concurrent": 3, "pdlp": 6}


def _rows(problem: LinearProgram) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows split by kind: (A, rhs) for ``=``, ``<=`` and ``>=`` (a ranged row is both)."""
    A = problem.A.tocsr()
    lo, hi = np.asarray(problem.row_lower, float), np.asarray(problem.row_upper, float)
    eq = np.flatnonzero(lo == hi)
    le = np.flatnonzero((lo != hi) & np.isfinite(hi))
    ge = np.flatnonzero((lo != hi) & np.isfinite(lo))
    return A, lo, hi, eq, le, ge


def solve_gurobi(
    problem: LinearProgram,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
    warm_start: np.ndarray | None = None,
) -> Solution:
    """Solve with Gurobi; returns the Solution (row duals for LPs: for a ranged row, the sum of
    its two sides' multipliers)."""
    import gurobipy as gp

    t0 = time.perf_counter()
    A, lo, hi, eq, le, ge = _rows(problem)
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 1 if verbose else 0)
    env.start()
    try:
        m = gp.Model(problem.name or "lp", env=env)
        t1 = time.perf_counter()
        lb = np.where(np.isinf(problem.col_lower), -gp.GRB.INFINITY, problem.col_lower)
        ub = np.where(np.isinf(problem.col_upper), gp.GRB.INFINITY, problem.col_upper)
        integer = cast(np.ndarray, problem.integrality)  # set whenever is_mip
        vtype = np.where(integer, gp.GRB.INTEGER, gp.GRB.CONTINUOUS) if is_mip(problem) else gp.GRB.CONTINUOUS
        x = m.addMVar(problem.num_cols, lb=lb, ub=ub, obj=np.asarray(problem.c, float), vtype=vtype)
        m.ModelSense = gp.GRB.MAXIMIZE if problem.maximize else gp.GRB.MINIMIZE
        parts = {}
        for key, rows, sense, rhs in (("eq", eq, "=", hi), ("le", le, "<", hi), ("ge", ge, ">", lo)):
            if rows.size:
                parts[key] = (rows, m.addMConstr(A[rows], x, sense, rhs[rows]))
        if method is not None:
            m.Params.Method = METHODS[method]
        if time_limit is not None:
            m.Params.TimeLimit = float(time_limit)
        for key, value in (options or {}).items():
            m.setParam(key, value)
        if warm_start is not None:
            # gurobipy's stub types Start as a float, as on one Var; an MVar takes an array
            start: Any = x
            start.Start = np.asarray(warm_start, float)
        t2 = time.perf_counter()
        try:
            m.optimize()
        except gp.GurobiError as exc:
            if "size-limited" in str(exc):
                raise SolverError(
                    f"backend 'gurobi': {exc} (this problem has {problem.num_rows} rows and "
                    f"{problem.num_cols} columns; the pip license admits "
                    f"{RESTRICTED[0]} of each)"
                ) from exc
            raise SolveFailed(f"backend 'gurobi': {exc}") from exc
        t3 = time.perf_counter()
        status = _STATUS.get(m.Status, Status.UNKNOWN)
        values = duals = objective = dual_objective = None
        if m.SolCount > 0:
            values = np.asarray(x.X)
            objective = float(m.ObjVal)
            if is_mip(problem):
                dual_objective = float(m.ObjBound)
            elif status == Status.OPTIMAL:
                duals = np.zeros(problem.num_rows)
                for rows, constrs in parts.values():
                    duals[rows] += np.asarray(constrs.Pi)
        return Solution(
            status=status,
            objective=objective,
            x=values,
            row_duals=duals,
            backend="gurobi",
            method=method or ("branch-and-cut" if is_mip(problem) else "auto"),
            seconds={"build": t1 - t0, "transfer": t2 - t1, "solve": t3 - t2},
            dual_objective=dual_objective,
            message=f"status {m.Status}",
        )
    finally:
        env.dispose()


@register
class GurobiBackend(Backend):
    """Gurobi: LP (simplex, barrier, PDLP) with duals, MILP, SOS and bilinear terms (through
    Pyomo's ``gurobi_direct``); the pip license is size-limited (:data:`RESTRICTED`)."""

    name = "gurobi"
    module = "gurobipy"
    install = "equilibria[gurobi]"
    capabilities = Capabilities(
        lp=True, milp=True, sos1=True, sos2=True, bilinear=True, duals=True, time_limit=True, warm_start=True
    )
    methods = tuple(METHODS)
    pyomo_solver = "gurobi_direct"
    license_limit = "2000 variables and 2000 constraints (pip license)"

    def fits(self, rows: int, cols: int) -> bool:
        return cols <= RESTRICTED[0] and rows <= RESTRICTED[1]

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
        return solve_gurobi(
            problem, method=method, time_limit=time_limit, verbose=verbose, options=options, warm_start=warm_start
        )
