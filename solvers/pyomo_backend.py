"""Any solver Pyomo's ``SolverFactory`` reaches, as the backend family ``pyomo:NAME``.

A LinearProgram is given to the solver as the model made by ``problem.to_pyomo(expanded=True)``;
a Pyomo model is handed over as it is, and the solver interface loads the values into it.
"""

from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models.errors import SolverError
from .base import Backend, Capabilities, is_mip, register_family
from .pyomo_interface import TIME_LIMIT_OPTION, solve_with_solver_factory
from .results import Solution, quiet_logger

if TYPE_CHECKING:
    from ..formulations.linear_program import LinearProgram

_LP_MILP = dict(lp=True, milp=True)
#: Capabilities of the interfaces measured or documented; others are taken to solve LP/MILP only.
KNOWN = {
    "highs": Capabilities(**_LP_MILP, duals=True, time_limit=True),
    "appsi_highs": Capabilities(**_LP_MILP, duals=True, time_limit=True),
    # the direct SCIP interfaces return no duals (NotImplementedError from Pyomo)
    "scip_direct": Capabilities(**_LP_MILP, sos1=True, sos2=True, bilinear=True, time_limit=True),
    "scip_persistent": Capabilities(**_LP_MILP, sos1=True, sos2=True, bilinear=True, time_limit=True),
    "gurobi_direct": Capabilities(**_LP_MILP, sos1=True, sos2=True, bilinear=True, duals=True, time_limit=True),
    "gurobi_persistent": Capabilities(**_LP_MILP, sos1=True, sos2=True, bilinear=True, duals=True, time_limit=True),
    "glpk": Capabilities(**_LP_MILP, duals=True, time_limit=True),
    "cbc": Capabilities(**_LP_MILP, sos1=True, sos2=True, time_limit=True),
    "clp": Capabilities(lp=True, duals=True),
}


class PyomoBackend(Backend):
    """``pyomo:NAME``: the solver behind ``SolverFactory(NAME)``. Capabilities come from
    :data:`KNOWN` (LP and MILP only for names not listed)."""

    module = "pyomo"
    install = "pyomo"

    def install_hint(self) -> str:
        what = SOLVER_INSTALL.get(self.solver, f"a solver that Pyomo's SolverFactory('{self.solver}') finds")
        return f"Pyomo finds no solver '{self.solver}' here: install {what}"

    def __init__(self, solver: str):
        self.solver = solver
        self.name = f"pyomo:{solver}"
        self.pyomo_solver = solver
        self.capabilities = KNOWN.get(solver, Capabilities(**_LP_MILP, time_limit=solver in TIME_LIMIT_OPTION))

    def is_available(self) -> bool:
        """True when Pyomo is installed and reports solver NAME available (this imports Pyomo)."""
        return super().is_available() and self.solver in available_pyomo_solvers()

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
        import pyomo.environ as pyo

        t0 = time.perf_counter()
        # Solved at once, so every row's expression is needed anyway: building them up front is
        # about 30% cheaper through appsi_highs than deriving them from matrix rows on demand.
        model = problem.to_pyomo(expanded=True)
        t1 = time.perf_counter()
        want_duals = self.capabilities.duals and not is_mip(problem)
        sol = solve_with_solver_factory(
            model, self.solver, time_limit=time_limit, verbose=verbose, options=options, duals=want_duals
        )
        if sol.objective is not None:
            x = problem.pyomo_values(model)
            if np.any(np.isnan(x)):
                sol.objective = None
            else:
                sol.x = x
                sol.objective = float(pyo.value(model.objective))
                try:
                    sol.row_duals = problem.pyomo_duals(model)
                except Exception:  # an interface that filled the suffix only partly: no duals
                    sol.row_duals = None
        sol.seconds["build"] = t1 - t0
        return sol

    def _solve_plain_model(
        self,
        model: Any,
        *,
        method: str | None,
        time_limit: float | None,
        verbose: bool,
        options: dict[str, Any],
        pinned: list[tuple[Any, float]] | None = None,
    ) -> Solution:
        # Pyomo itself is this backend: the model goes to the interface unchanged (a pinned
        # start never reaches it: it has no warm_start capability)
        if method is not None:
            raise SolverError(f"backend '{self.name}' offers no choice of method (got '{method}')")
        import pyomo.environ as pyo

        for con in model.component_data_objects(pyo.SOSConstraint, active=True):
            if not getattr(self.capabilities, f"sos{con.level}"):
                self.refuse(f"sos{con.level}", f"solve a model with SOS{con.level} constraints")
        if not self.capabilities.bilinear and not _linear(model):
            self.refuse("bilinear", "solve a model with products of variables")
        return solve_with_solver_factory(model, self.solver, time_limit=time_limit, verbose=verbose, options=options)


def _linear(model: Any) -> bool:
    """True when every active constraint and objective of ``model`` is linear (matrix-row
    families are linear by construction and are not expanded)."""
    import pyomo.environ as pyo

    from ..formulations.pyomo_matrix import MatrixRows

    for comp in model.component_objects((pyo.Constraint, pyo.Objective), active=True, descend_into=True):
        if isinstance(comp, MatrixRows):
            continue
        for data in comp.values():
            expr = data.body if comp.ctype is pyo.Constraint else data.expr
            degree = expr.polynomial_degree() if hasattr(expr, "polynomial_degree") else 0
            if degree is None or degree > 1:
                return False
    return True


#: Pyomo solver names probed when listing what is available.
PYOMO_CANDIDATES = (
    "highs",
    "appsi_highs",
    "scip_direct",
    "scip_persistent",
    "glpk",
    "cbc",
    "clp",
    "cplex",
    "cplex_direct",
    "gurobi",
    "gurobi_direct",
    "xpress",
    "xpress_direct",
    "scip",
)

#: What to install for each Pyomo solver name (executables come from the system's packages).
SOLVER_INSTALL = {
    "highs": "highspy (pip install highspy)",
    "appsi_highs": "highspy (pip install highspy)",
    "scip_direct": "PySCIPOpt (pip install pyscipopt)",
    "scip_persistent": "PySCIPOpt (pip install pyscipopt)",
    "glpk": "the glpsol executable (Debian: apt install glpk-utils)",
    "cbc": "the cbc executable (Debian: apt install coinor-cbc)",
    "clp": "the clp executable (Debian: apt install coinor-clp)",
    "cplex": "IBM CPLEX's cplex executable",
    "cplex_direct": "IBM CPLEX's Python package (pip install cplex)",
    "gurobi": "Gurobi (pip install 'equilibria[gurobi]')",
    "gurobi_direct": "Gurobi (pip install 'equilibria[gurobi]')",
    "xpress": "FICO Xpress (pip install 'equilibria[xpress]')",
    "xpress_direct": "FICO Xpress (pip install 'equilibria[xpress]')",
    "scip": "the scip executable (SCIP's own packages; Debian has none)",
}

_found: list[str] | None = None


def available_pyomo_solvers() -> list[str]:
    """Names from :data:`PYOMO_CANDIDATES` that Pyomo reports available here (probed once)."""
    global _found
    if _found is not None:
        return list(_found)
    import importlib.util

    if importlib.util.find_spec("pyomo") is None:
        return []
    import pyomo.environ as pyo

    found = []
    # probing an interface can load its solver package, which may announce itself (license
    # notices, deprecations): silenced here only, the filters are restored on exit
    with quiet_logger("pyomo"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in PYOMO_CANDIDATES:
            try:
                if pyo.SolverFactory(name).available(exception_flag=False):
                    found.append(name)
            except Exception:  # a plugin that cannot even be created is simply absent
                pass
    _found = found
    return list(found)


register_family("pyomo", PyomoBackend)
