"""Solving a Pyomo model through Pyomo's ``SolverFactory``, its termination condition read
into the package's :class:`~equilibria.solvers.results.Status` (used by the ``pyomo:NAME``
backends and by any backend for models its own interface cannot take)."""

from __future__ import annotations

import time
from typing import Any

from ..models.errors import EquilibriaError, SolveFailed, SolverError
from .results import Solution, Status

#: Pyomo TerminationCondition (as text) -> Status
_STATUS = {
    "optimal": Status.OPTIMAL,
    "globallyOptimal": Status.OPTIMAL,
    "locallyOptimal": Status.OPTIMAL,
    "infeasible": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "infeasibleOrUnbounded": Status.INFEASIBLE_OR_UNBOUNDED,
    "maxTimeLimit": Status.TIME_LIMIT,
    "maxIterations": Status.ITERATION_LIMIT,
    "maxEvaluations": Status.ITERATION_LIMIT,
    "userInterrupt": Status.INTERRUPTED,
    "error": Status.ERROR,
    "solverFailure": Status.ERROR,
    "internalSolverError": Status.ERROR,
}

#: Name of the time-limit option of the Pyomo interfaces whose spelling is known.
TIME_LIMIT_OPTION = {
    "highs": "time_limit",
    "appsi_highs": "time_limit",
    "scip_direct": "limits/time",
    "scip_persistent": "limits/time",
    "scip": "limits/time",
    "gurobi": "TimeLimit",
    "gurobi_direct": "TimeLimit",
    "gurobi_persistent": "TimeLimit",
    "cplex": "timelimit",
    "cplex_direct": "timelimit",
    "glpk": "tmlim",
    "cbc": "sec",
}

#: Words with which solver libraries say that a model exceeds their license's size
#: (gurobipy: "Model too large for size-limited license"; xpress: "... maximum is 5000").
LICENSE_WORDS = ("size-limited", "too large", "maximum is", "license")


def solve_with_solver_factory(
    model: Any,
    name: str,
    *,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
    duals: bool = False,
) -> Solution:
    """Solve the Pyomo ``model`` with ``SolverFactory(name)`` and load the values into it.

    Returns a Solution without ``x`` (the values live in the model); with ``duals`` a
    ``dual`` import suffix is put on the model and filled when the interface supports it.
    """
    import pyomo.environ as pyo
    from pyomo.common.modeling import unique_component_name

    opt = pyo.SolverFactory(name)
    if time_limit is not None:
        if name not in TIME_LIMIT_OPTION:
            raise SolverError(
                f"backend 'pyomo:{name}' cannot stop at a time limit: "
                "it lacks the capability 'time_limit' (its option name is not known)"
            )
        opt.options[TIME_LIMIT_OPTION[name]] = time_limit
    for key, value in (options or {}).items():
        opt.options[key] = value
    if duals and getattr(model, "dual", None) is None:
        model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
    # scip_direct returns no solution for a model without an objective (a feasibility
    # program such as a threshold MILFP), so such a model gets a constant one while solving
    placeholder = None
    if next(model.component_data_objects(pyo.Objective, active=True), None) is None:
        placeholder = pyo.Objective(expr=0.0)
        model.add_component(unique_component_name(model, "_feasibility_objective"), placeholder)
    t0 = time.perf_counter()
    try:
        try:
            results = opt.solve(model, tee=verbose, load_solutions=False)
        except NotImplementedError:
            # interfaces without duals (scip_direct) refuse an import suffix for them
            if not duals:
                raise
            model.del_component(model.dual)
            results = opt.solve(model, tee=verbose, load_solutions=False)
    except (EquilibriaError, KeyboardInterrupt):
        raise
    except Exception as exc:  # the solver library's own error (a license's size, a bad option): one line
        text = " ".join(str(exc).split()) or type(exc).__name__
        beyond = any(word in text.lower() for word in LICENSE_WORDS)
        what = "the model is beyond its license's size" if beyond else "it failed"
        # beyond a license's size is the input's fault (exit 2); any other failure is the run's
        raise (SolverError if beyond else SolveFailed)(f"solver '{name}': {what}: {text}") from exc
    finally:
        if placeholder is not None:
            model.del_component(placeholder)
    t1 = time.perf_counter()
    term = str(results.solver.termination_condition)
    status = _STATUS.get(term, Status.UNKNOWN)
    objective = None
    # some interfaces (gurobi_direct, xpress) attach an empty "solution" to an infeasible or
    # unbounded result; loading it only logs errors, so only a solved or stopped run is loaded
    no_point = (Status.INFEASIBLE, Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED, Status.ERROR)
    if status == Status.OPTIMAL or (status not in no_point and len(getattr(results, "solution", [])) > 0):
        try:
            model.solutions.load_from(results)
            objs = list(model.component_data_objects(pyo.Objective, active=True))
            objective = float(pyo.value(objs[0])) if objs else 0.0
        except (ValueError, TypeError, AttributeError):
            objective = None
    return Solution(
        status=status,
        objective=objective,
        x=None,
        row_duals=None,
        backend=f"pyomo:{name}",
        seconds={"build": 0.0, "transfer": 0.0, "solve": t1 - t0},
        message=term,
    )
