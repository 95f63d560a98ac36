"""Solve a Pyomo model through equilibria's backends, fast for models made by ``to_pyomo()``.

A model from ``LinearProgram.to_pyomo()`` keeps its large constraint families as matrix
rows; :func:`solve_pyomo` hands those to the solver as arrays and compiles only what the
user added with Pyomo, then writes the solution back into the model's variables.
"""
from __future__ import annotations

import time

from .formulations.pyomo_matrix import standard_form
from .solvers import Solution, solve


def solve_pyomo(
    model,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> Solution:
    """Solve a linear or mixed-integer Pyomo ``model`` with an equilibria backend.

    The model is compiled by :func:`~equilibria.formulations.pyomo_matrix.standard_form`
    (matrix-row families as arrays, everything else through Pyomo's own compiler) and
    solved by :func:`equilibria.solvers.solve`; variable values are loaded back into the
    model when the backend returns a solution. ``Solution.objective`` includes the
    objective's constant; ``seconds["compile"]`` is the time spent compiling.
    """
    t0 = time.perf_counter()
    lp, columns = standard_form(model)
    compile_seconds = time.perf_counter() - t0
    sol = solve(lp, backend, method=method, time_limit=time_limit, verbose=verbose, options=options)
    sol.seconds["compile"] = compile_seconds
    if sol.objective is not None:
        sol.objective += lp.meta["objective_offset"]
    if sol.x is not None:
        for var, x in zip(columns, sol.x.tolist()):
            if not var.fixed:
                var.set_value(x, skip_validation=True)
    return sol
