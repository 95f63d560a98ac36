"""Google OR-Tools through its ``model_builder`` API (``pip install equilibria[ortools]``).

The problem reaches OR-Tools as an MPS file written by HiGHS (C-level write and read, no
Python object per nonzero), read by a child process (see :func:`solve_ortools` for why).
``method`` picks the solver OR-Tools wraps: ``glop`` (its
simplex; the LP default), ``pdlp`` (first-order primal-dual, Applegate et al., "Practical
large-scale linear programming using primal-dual hybrid gradient", 2021), ``scip`` (the
MILP default) or ``cp_sat`` (integer programs with integer data).
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models.errors import SolveFailed, SolverError
from .base import Backend, Capabilities, is_mip, register
from .highs import write_with_highs
from .results import Solution, Status

if TYPE_CHECKING:
    from ..formulations.linear_program import LinearProgram

METHODS = ("glop", "pdlp", "scip", "cp_sat")
LP_ONLY = ("glop", "pdlp")


def _worker(path: str, method: str, time_limit: float | None, verbose: bool, parameters: str, out: str) -> None:
    """Read the MPS file at ``path``, solve it with OR-Tools' ``method`` and save the
    outcome to ``out`` (npz). Runs in a child process, see :func:`solve_ortools`."""
    from ortools.linear_solver.python import model_builder as mb

    model = mb.ModelBuilder()
    if not model.import_from_mps_file(path):
        np.savez(out, result=-1, message="could not read the MPS file")
        return
    solver = mb.ModelSolver(method)
    if not solver.solver_is_supported():
        np.savez(out, result=-2, message=f"this OR-Tools build has no solver '{method}'")
        return
    solver.enable_output(verbose)
    if time_limit is not None:
        solver.set_time_limit_in_seconds(time_limit)
    if parameters:
        solver.set_solver_specific_parameters(parameters)
    t0 = time.perf_counter()
    result = solver.solve(model)
    S = mb.SolveStatus
    if method == "glop" and result == S.INFEASIBLE and "use_preprocessing" not in parameters:
        # GLOP's presolve reports an unbounded LP as infeasible; without presolve it tells them apart
        solver.set_solver_specific_parameters("\n".join(filter(None, [parameters, "use_preprocessing: false"])))
        result = solver.solve(model)
    seconds = time.perf_counter() - t0
    data: dict[str, Any] = {
        "result": int(result.value),
        "name": result.name,
        "message": solver.status_string or result.name,
        "seconds": seconds,
    }
    if result in (S.OPTIMAL, S.FEASIBLE):
        data["x"] = solver.values(model.get_variables()).to_numpy(dtype=float)
        data["objective"] = float(solver.objective_value)
        data["bound"] = float(solver.best_objective_bound)
        if result == S.OPTIMAL and method in LP_ONLY:
            data["duals"] = solver.dual_values(model.get_linear_constraints()).to_numpy(dtype=float)
    np.savez(out, **data)


#: OR-Tools SolveStatus name -> Status
_STATUS = {
    "OPTIMAL": Status.OPTIMAL,
    "INFEASIBLE": Status.INFEASIBLE,
    "UNBOUNDED": Status.UNBOUNDED,
    "CANCELLED_BY_USER": Status.INTERRUPTED,
    "ABNORMAL": Status.ERROR,
    "MODEL_INVALID": Status.ERROR,
    "INVALID_SOLVER_PARAMETERS": Status.ERROR,
}


def solve_ortools(
    problem: LinearProgram,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
) -> Solution:
    """Solve with OR-Tools; returns the Solution (row duals from GLOP and PDLP).

    OR-Tools runs in a child process: its shared library carries its own build of HiGHS,
    whose symbols clash with highspy's when both are loaded into one process (either
    import then fails with an undefined symbol). The MPS file is the hand-over.
    """
    import json
    import subprocess
    import sys

    mip = is_mip(problem)
    method = method or ("scip" if mip else "glop")
    if mip and method in LP_ONLY:
        raise SolverError(
            f"backend 'ortools' method '{method}' solves LPs only: it lacks the capability "
            "'milp'; use method 'scip' or 'cp_sat'"
        )
    if method == "cp_sat":
        # CP-SAT scales a program with continuous columns to an integer one and may then
        # call a feasible program infeasible: refuse rather than answer wrongly
        integer = problem.integrality if problem.integrality is not None else np.zeros(problem.num_cols, dtype=bool)
        continuous = int(np.count_nonzero(~np.asarray(integer, dtype=bool)))
        data = np.concatenate([problem.A.data, problem.c])
        if continuous or not np.allclose(data, np.round(data)):
            what = f"{continuous} continuous columns" if continuous else "coefficients that are not integers"
            raise SolverError(
                f"backend 'ortools' method 'cp_sat' solves integer programs with integer data; this program has "
                f"{what}: use method 'scip'"
            )
    parameters = "\n".join(f"{k}: {v}" for k, v in (options or {}).items())
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path, out = os.path.join(tmp, "problem.mps"), os.path.join(tmp, "solution.npz")
        write_with_highs(problem, path, hold=False)  # OR-Tools reads it next
        t1 = time.perf_counter()
        args = json.dumps([path, method, time_limit, bool(verbose), parameters, out])
        code = f"import json; from equilibria.solvers.ortools import _worker; _worker(*json.loads({args!r}))"
        run = subprocess.run([sys.executable, "-c", code], capture_output=not verbose, text=True)
        if run.returncode != 0 or not os.path.exists(out):
            raise SolveFailed(f"backend 'ortools' failed: {(run.stderr or '').strip().splitlines()[-1:]}")
        with np.load(out) as data:
            got = {k: data[k] for k in data.files}
    t2 = time.perf_counter()
    if int(got["result"]) < 0:
        raise SolveFailed(f"backend 'ortools': {got['message']}")
    name = str(got["name"])
    status = _STATUS.get(name, Status.UNKNOWN)
    if name == "FEASIBLE":  # a point without proof of optimality: stopped by the time limit if one was set
        status = Status.TIME_LIMIT if time_limit is not None else Status.UNKNOWN
    x = got.get("x")
    objective = float(got["objective"]) if "objective" in got else None
    solve_seconds = float(got["seconds"])
    return Solution(
        status=status,
        objective=objective,
        x=x,
        row_duals=got.get("duals"),
        backend="ortools",
        method=method,
        seconds={"build": t1 - t0, "transfer": t2 - t1 - solve_seconds, "solve": solve_seconds},
        dual_objective=float(got["bound"]) if mip and "bound" in got else None,
        message=str(got["message"]),
    )


@register
class OrtoolsBackend(Backend):
    """Google OR-Tools: GLOP and PDLP for LPs (with duals), its bundled SCIP or CP-SAT for MILPs."""

    name = "ortools"
    module = "ortools"
    install = "equilibria[ortools]"
    capabilities = Capabilities(lp=True, milp=True, duals=True, time_limit=True)
    methods = METHODS

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
        return solve_ortools(problem, method=method, time_limit=time_limit, verbose=verbose, options=options)
