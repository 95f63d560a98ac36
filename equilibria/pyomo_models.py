"""Solve a Pyomo model through equilibria's backends, fast for models made by ``to_pyomo()``.

A model from ``LinearProgram.to_pyomo()`` keeps its large constraint families as matrix
rows; the backends hand those to the solver as arrays and compile only what the user added
with Pyomo, then write the solution back into the model's variables
(:meth:`equilibria.solvers.base.Backend.solve_model`).
"""

from __future__ import annotations

from typing import Any

from .solvers import Solution, solve_model


def solve_pyomo(
    model: Any,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> Solution:
    """Solve a linear or mixed-integer Pyomo ``model`` with an equilibria backend.

    Matrix-row families are passed as arrays, everything else goes through Pyomo's own
    compiler; variable values are loaded back into the model when the backend returns a
    solution. ``Solution.objective`` includes the objective's constant;
    ``seconds["compile"]`` is the time spent compiling.
    """
    return solve_model(model, backend, method=method, time_limit=time_limit, verbose=verbose, options=options)
