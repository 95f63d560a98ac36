"""Any solver Pyomo's SolverFactory reaches, given the model from ``problem.to_pyomo(expanded=True)``."""
from __future__ import annotations

import time

import numpy as np
import pyomo.environ as pyo

from . import Solution

_STATUS = {
    "optimal": "optimal",
    "infeasible": "infeasible",
    "unbounded": "unbounded",
    "infeasibleOrUnbounded": "infeasible",
    "maxTimeLimit": "time_limit",
    "maxIterations": "iteration_limit",
    "userInterrupt": "interrupted",
}


def solve_pyomo(problem, name: str, time_limit=None, verbose=False, options=None) -> Solution:
    """Build the Pyomo model and solve it with ``SolverFactory(name)``; duals when given."""
    t0 = time.perf_counter()
    # Solved at once, so every row's expression is needed anyway: building them up front is
    # about 30% cheaper through appsi_highs than deriving them from matrix rows on demand.
    model = problem.to_pyomo(expanded=True)
    model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    t1 = time.perf_counter()
    opt = pyo.SolverFactory(name)
    if time_limit is not None:
        for key in ("time_limit", "timelimit", "TimeLimit", "limits/time"):
            try:
                opt.options[key] = time_limit
                break
            except Exception:
                continue
    for key, value in (options or {}).items():
        opt.options[key] = value
    try:
        results = opt.solve(model, tee=verbose, load_solutions=False)
    except NotImplementedError:
        # interfaces without duals (scip_direct) refuse an import suffix for them
        model.del_component(model.dual)
        results = opt.solve(model, tee=verbose, load_solutions=False)
    t2 = time.perf_counter()
    term = str(results.solver.termination_condition)
    status = _STATUS.get(term, "unknown")
    x = duals = objective = None
    if status == "optimal" or len(getattr(results, "solution", [])) > 0:
        try:
            model.solutions.load_from(results)
        except Exception:
            pass
        try:
            x = problem.pyomo_values(model)
            objective = float(pyo.value(model.objective))
        except (ValueError, TypeError):
            x = None
        try:
            duals = problem.pyomo_duals(model)
        except Exception:
            duals = None
    if x is not None and np.any(np.isnan(x)):
        x = None
        objective = None
    return Solution(
        status=status,
        objective=objective,
        x=x,
        row_duals=duals,
        backend=f"pyomo:{name}",
        seconds={"build": t1 - t0, "transfer": 0.0, "solve": t2 - t1},
        message=term,
    )
