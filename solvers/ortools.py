"""Google OR-Tools through its ``model_builder`` API (``pip install equilibria[ortools]``).

The problem reaches OR-Tools as an MPS file written by HiGHS (C-level write and read, no
Python object per nonzero). ``method`` picks the solver OR-Tools wraps: ``glop`` (its
simplex; the LP default), ``pdlp`` (first-order primal-dual, Applegate et al., "Practical
large-scale linear programming using primal-dual hybrid gradient", 2021), ``scip`` (the
MILP default) or ``cp_sat`` (integer programs with integer data).
"""
from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from ..models.errors import SolverError
from .base import Backend, Capabilities, Solution, Status, is_mip, register
from .highs import write_with_highs

METHODS = ("glop", "pdlp", "scip", "cp_sat")
LP_ONLY = ("glop", "pdlp")


def solve_ortools(problem, method=None, time_limit=None, verbose=False, options=None) -> Solution:
    """Solve with OR-Tools; returns the Solution (row duals from GLOP and PDLP)."""
    from ortools.linear_solver.python import model_builder as mb

    mip = is_mip(problem)
    method = method or ("scip" if mip else "glop")
    if mip and method in LP_ONLY:
        raise SolverError(f"backend 'ortools' method '{method}' solves LPs only: it lacks the capability "
                          "'milp'; use method 'scip' or 'cp_sat'")
    t0 = time.perf_counter()
    fd, path = tempfile.mkstemp(suffix=".mps")
    os.close(fd)
    try:
        write_with_highs(problem, path)
        t1 = time.perf_counter()
        model = mb.ModelBuilder()
        if not model.import_from_mps_file(path):
            raise SolverError("backend 'ortools' could not read the MPS file written for it")
    finally:
        os.unlink(path)
    solver = mb.ModelSolver(method)
    if not solver.solver_is_supported():
        raise SolverError(f"backend 'ortools': this OR-Tools build has no solver '{method}'")
    solver.enable_output(bool(verbose))
    if time_limit is not None:
        solver.set_time_limit_in_seconds(float(time_limit))
    if options:
        solver.set_solver_specific_parameters("\n".join(f"{k}: {v}" for k, v in options.items()))
    t2 = time.perf_counter()
    result = solver.solve(model)
    t3 = time.perf_counter()
    S = mb.SolveStatus
    status = {
        S.OPTIMAL: Status.OPTIMAL,
        S.INFEASIBLE: Status.INFEASIBLE,
        S.UNBOUNDED: Status.UNBOUNDED,
        S.CANCELLED_BY_USER: Status.INTERRUPTED,
        S.ABNORMAL: Status.ERROR,
        S.MODEL_INVALID: Status.ERROR,
        S.INVALID_SOLVER_PARAMETERS: Status.ERROR,
        # a feasible point without proof of optimality: a stop at the time limit when one is set
        S.FEASIBLE: Status.TIME_LIMIT if time_limit is not None else Status.UNKNOWN,
    }.get(result, Status.UNKNOWN)
    x = duals = objective = None
    if result in (S.OPTIMAL, S.FEASIBLE):
        x = solver.values(model.get_variables()).to_numpy(dtype=float)
        objective = float(solver.objective_value)
        if not mip and result == S.OPTIMAL:
            duals = solver.dual_values(model.get_linear_constraints()).to_numpy(dtype=float)
    return Solution(status=status, objective=objective, x=x, row_duals=duals, backend="ortools", method=method,
                    seconds={"build": t1 - t0, "transfer": t2 - t1, "solve": t3 - t2},
                    dual_objective=float(solver.best_objective_bound) if mip and x is not None else None,
                    message=solver.status_string or str(result))


@register
class OrtoolsBackend(Backend):
    """Google OR-Tools: GLOP and PDLP for LPs (with duals), its bundled SCIP or CP-SAT for MILPs."""

    name = "ortools"
    module = "ortools"
    install = "equilibria[ortools]"
    capabilities = Capabilities(lp=True, milp=True, duals=True, time_limit=True)
    methods = METHODS

    def _solve_lp(self, problem, *, method, time_limit, verbose, options, warm_start) -> Solution:
        return solve_ortools(problem, method=method, time_limit=time_limit, verbose=verbose, options=options)
