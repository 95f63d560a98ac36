"""Interchangeable solver backends behind one call.

``solve(problem, backend="highs")`` takes a :class:`~equilibria.formulations.LinearProgram`
and returns a :class:`Solution`. Backends:

``highs``        highspy, fed the sparse matrix directly (the default)
``scip``         PySCIPOpt (SCIP), loaded from an MPS file written by HiGHS
``pyomo:NAME``   any solver Pyomo's ``SolverFactory(NAME)`` reaches on this machine,
                 given the model made by ``problem.to_pyomo()``

This layer knows matrices, not games.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

import numpy as np

from ..models.errors import SolverError

#: Pyomo solver names probed when listing what is available.
PYOMO_CANDIDATES = (
    "highs", "appsi_highs", "scip_direct", "scip_persistent", "glpk", "cbc", "clp",
    "cplex", "cplex_direct", "gurobi", "gurobi_direct", "xpress", "xpress_direct", "scip",
)


@dataclass
class Solution:
    """What a backend returns.

    ``status`` is one of ``optimal``, ``infeasible``, ``unbounded``, ``time_limit``,
    ``iteration_limit``, ``interrupted`` or ``unknown``. ``x`` and ``row_duals`` are in
    the problem's column and row order (``row_duals`` is None when the backend gives
    none). ``seconds`` splits wall time into ``build`` (the backend's own data),
    ``transfer`` (into the solver) and ``solve``.
    """

    status: str
    objective: float | None
    x: np.ndarray | None
    row_duals: np.ndarray | None
    backend: str
    method: str | None = None
    seconds: dict = field(default_factory=dict)
    dual_objective: float | None = None
    message: str = ""

    @property
    def optimal(self) -> bool:
        """True when the backend proved optimality."""
        return self.status == "optimal"

    @property
    def gap(self) -> float | None:
        """|primal - dual objective| when both are known."""
        if self.objective is None or self.dual_objective is None:
            return None
        return abs(self.objective - self.dual_objective)


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def available_pyomo_solvers() -> list[str]:
    """Names from :data:`PYOMO_CANDIDATES` that Pyomo reports available here."""
    if not _has("pyomo"):
        return []
    import logging

    import pyomo.environ as pyo

    found = []
    logging.getLogger("pyomo").setLevel(logging.ERROR)
    for name in PYOMO_CANDIDATES:
        try:
            if pyo.SolverFactory(name).available(exception_flag=False):
                found.append(name)
        except Exception:  # a plugin that cannot even be created is simply absent
            pass
    return found


def available_backends() -> list[str]:
    """Every backend name :func:`solve` accepts on this machine."""
    out = []
    if _has("highspy"):
        out.append("highs")
    if _has("pyscipopt"):
        out.append("scip")
    out.extend(f"pyomo:{name}" for name in available_pyomo_solvers())
    return out


def solve(
    problem,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> Solution:
    """Solve ``problem`` with ``backend``; see the module docstring for the names.

    ``method`` picks the algorithm where the backend has a choice (HiGHS: ``simplex``,
    ``ipm``, ``pdlp``); ``options`` are passed to the solver by name. Raises SolverError
    listing the available backends when ``backend`` is not one of them.
    """
    if backend == "highs" and _has("highspy"):
        from .highs import solve_highs

        return solve_highs(problem, method=method, time_limit=time_limit, verbose=verbose, options=options)
    if backend == "scip" and _has("pyscipopt"):
        from .scip import solve_scip

        return solve_scip(problem, time_limit=time_limit, verbose=verbose, options=options)
    if backend.startswith("pyomo:"):
        name = backend.split(":", 1)[1]
        if name in available_pyomo_solvers():
            from .pyomo_backend import solve_pyomo

            return solve_pyomo(problem, name, time_limit=time_limit, verbose=verbose, options=options)
    raise SolverError(
        f"backend '{backend}' is not available; available here: {', '.join(available_backends()) or 'none'}"
    )


def write_problem(problem, path, file_format: str | None = None) -> None:
    """Write ``problem`` as an MPS or LP file (format from ``file_format`` or the suffix)."""
    from .highs import write_with_highs

    write_with_highs(problem, path, file_format)


__all__ = ["Solution", "available_backends", "available_pyomo_solvers", "solve", "write_problem"]
