"""The backend protocol: capability flags, one status vocabulary, one result type, a registry.

A backend is a subclass of :class:`Backend` registered with :func:`register`. It declares
what it can do in :class:`Capabilities`; :meth:`Backend.solve_lp` and
:meth:`Backend.solve_model` refuse, with a :class:`~equilibria.models.errors.SolverError`
naming the backend and the missing capability, any request it cannot honour, before the
solver is touched. Nothing here imports a solver package: :meth:`Backend.is_available`
only asks the import system whether the package could be imported.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import numpy as np

from ..models.errors import SolverError
from .results import Solution, Status, quiet_logger

if TYPE_CHECKING:
    from ..formulations.linear_program import LinearProgram


#: The capability flags, in the order tables print them.
CAPABILITIES = ("lp", "milp", "sos1", "sos2", "indicators", "bilinear", "duals", "time_limit", "warm_start")


@dataclass(frozen=True)
class Capabilities:
    """What a backend can be asked for.

    ``lp``/``milp``: continuous / integer columns. ``sos1``/``sos2``: Pyomo
    ``SOSConstraint`` passed to the solver as real SOS constraints. ``indicators``: a
    disjunction's rows reach the solver as native indicator constraints (no big-M).
    ``bilinear``: products of variables in Pyomo models, solved to global optimality.
    ``duals``: row duals of an LP. ``time_limit``: a wall-clock limit. ``warm_start``: a
    starting point (``warm_start=x``) for :meth:`Backend.solve_lp`.
    """

    lp: bool = True
    milp: bool = False
    sos1: bool = False
    sos2: bool = False
    indicators: bool = False
    bilinear: bool = False
    duals: bool = False
    time_limit: bool = False
    warm_start: bool = False

    def supported(self) -> list[str]:
        """The names of the flags that are set."""
        return [f.name for f in fields(self) if getattr(self, f.name)]


def is_mip(problem: LinearProgram) -> bool:
    """True when ``problem`` (a LinearProgram) has integer columns."""
    return problem.integrality is not None and bool(np.any(problem.integrality))


class Backend:
    """One solver behind the common interface.

    Subclasses set :attr:`name`, :attr:`module` (the import name whose presence makes the
    backend available), :attr:`capabilities` and implement :meth:`_solve_lp`. Pyomo models
    are compiled to a LinearProgram and solved by :meth:`_solve_lp`, unless the backend
    names a Pyomo interface in :attr:`pyomo_solver` (used for SOS and bilinear models) or
    implements :meth:`_solve_native_indicators`.
    """

    name: str = ""
    #: import name checked by :meth:`is_available`
    module: str = ""
    #: the pip extra or package that provides it, for messages
    install: str = ""
    capabilities: Capabilities = Capabilities()
    #: algorithms accepted as ``method`` (empty: the backend has no choice to offer)
    methods: tuple[str, ...] = ()
    #: Pyomo SolverFactory name reaching the same solver, for models the matrix path cannot carry
    pyomo_solver: str | None = None
    #: size a free (pip-bundled) license admits, as text for messages; see :meth:`fits`
    license_limit: str | None = None

    def install_hint(self) -> str:
        """How to make this backend available, in words."""
        return f"install it with: pip install '{self.install}'"

    # ---- discovery -------------------------------------------------------------------

    def is_available(self) -> bool:
        """True when the solver package can be imported here (nothing is imported)."""
        return importlib.util.find_spec(self.module) is not None

    def fits(self, rows: int, cols: int) -> bool:
        """True when a problem of this size is within the free license's limit (always
        True for solvers without one). A full license lifts the limit; this is advice."""
        return True

    # ---- refusals --------------------------------------------------------------------

    def refuse(self, capability: str, request: str) -> NoReturn:
        """Raise SolverError: backend ``name`` lacks ``capability`` needed for ``request``."""
        raise SolverError(
            f"backend '{self.name}' cannot {request}: it lacks the capability '{capability}' "
            f"(has: {', '.join(self.capabilities.supported())})"
        )

    def check(
        self,
        problem: LinearProgram,
        *,
        method: str | None = None,
        time_limit: float | None = None,
        duals: bool = False,
        warm_start: np.ndarray | None = None,
    ) -> None:
        """Refuse (SolverError) what this backend cannot do for ``problem``; else return."""
        caps = self.capabilities
        mip = is_mip(problem)
        if mip and not caps.milp:
            self.refuse("milp", "solve a program with integer variables")
        if not mip and not caps.lp:
            self.refuse("lp", "solve a linear program")
        if duals and not caps.duals:
            self.refuse("duals", "return row duals")
        if duals and mip:
            raise SolverError(
                f"backend '{self.name}' cannot return duals of a program with integer "
                "variables: the capability 'duals' covers linear programs only"
            )
        if time_limit is not None and not caps.time_limit:
            self.refuse("time_limit", "stop at a time limit")
        if warm_start is not None and not caps.warm_start:
            self.refuse("warm_start", "start from a given point")
        if method is not None and method not in self.methods:
            if not self.methods:
                raise SolverError(f"backend '{self.name}' offers no choice of method (got '{method}')")
            raise SolverError(f"unknown {self.name} method '{method}'; choose from {', '.join(self.methods)}")

    # ---- linear programs -------------------------------------------------------------

    def solve_lp(
        self,
        problem: LinearProgram,
        *,
        method: str | None = None,
        time_limit: float | None = None,
        verbose: bool = False,
        options: dict | None = None,
        duals: bool = False,
        warm_start: np.ndarray | None = None,
    ) -> Solution:
        """Solve a LinearProgram; returns a :class:`Solution`.

        ``duals=True`` demands row duals (refused for integer programs and for backends
        without them; otherwise duals are returned whenever the solver has them).
        ``warm_start`` is a starting point in column order. ``options`` go to the solver
        by its own parameter names.
        """
        self.check(problem, method=method, time_limit=time_limit, duals=duals, warm_start=warm_start)
        return self._solve_lp(
            problem, method=method, time_limit=time_limit, verbose=verbose, options=options or {}, warm_start=warm_start
        )

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
        raise NotImplementedError

    # ---- Pyomo models ----------------------------------------------------------------

    def default_indicators(self, model: Any = None) -> str:
        """How disjunctions reach this solver unless told: ``native`` when it has indicator
        constraints, else ``bigm``. ``model``, when given, is the model about to be solved
        (a backend may choose by its content)."""
        return "native" if self.capabilities.indicators else "bigm"

    def solve_model(
        self,
        model: Any,
        *,
        indicators: str | None = None,
        method: str | None = None,
        time_limit: float | None = None,
        verbose: bool = False,
        options: dict | None = None,
        pinned_start: list[tuple[Any, float]] | None = None,
    ) -> Solution:
        """Solve a linear or mixed-integer Pyomo ``model``, with or without GDP disjunctions.

        Variable values are loaded into the model's own variables (read them with
        ``pyo.value``); returns the :class:`Solution`, whose ``active_disjuncts`` lists the
        selected disjuncts. ``indicators`` (``native``, ``bigm`` or ``hull``) says how
        disjunctions reach the solver; ``native`` needs the ``indicators`` capability.

        ``pinned_start`` (a model without disjunctions or SOS sets, on a backend with the
        ``warm_start`` capability) pairs some variables with values near which a solution is
        expected: the backend first solves with those variables held there, and the full
        solve starts from that solution. A MIP solver that finds no incumbent of its own
        (many piecewise-linear binaries) then has one; when the held problem is infeasible,
        the full solve starts cold. Both solves share ``time_limit``.
        """
        from . import disjunctive

        options = options or {}
        if time_limit is not None and not self.capabilities.time_limit:
            self.refuse("time_limit", "stop at a time limit")
        if pinned_start and not self.capabilities.warm_start:
            self.refuse("warm_start", "start from a given point")
        if not disjunctive.has_disjunctions(model):
            return self._solve_plain_model(
                model, method=method, time_limit=time_limit, verbose=verbose, options=options, pinned=pinned_start
            )
        if pinned_start:
            raise SolverError("a pinned start needs a model without disjunctions")
        indicators = indicators or self.default_indicators(model)
        if indicators not in disjunctive.INDICATOR_MODES:
            raise SolverError(f"indicators must be one of {', '.join(disjunctive.INDICATOR_MODES)}, not '{indicators}'")
        if indicators == "native":
            if not self.capabilities.indicators:
                self.refuse(
                    "indicators", "pass disjunctions as native indicator constraints (use indicators='bigm' or 'hull')"
                )
            sol = self._solve_native_indicators(model, time_limit=time_limit, verbose=verbose, options=options)
            sol.indicators = "native"
            return sol
        t0 = time.perf_counter()
        memo: dict = {}
        milp = disjunctive.transformed(model, indicators, memo)
        t1 = time.perf_counter()
        sol = self._solve_plain_model(milp, method=method, time_limit=time_limit, verbose=verbose, options=options)
        disjunctive.copy_values(model, memo)
        sol.active_disjuncts = disjunctive.active_disjuncts(model)
        sol.indicators = indicators
        sol.seconds["transform"] = t1 - t0
        return sol

    def _pinned_solution(
        self,
        lp: Any,
        columns: list,
        pinned: list[tuple[Any, float]],
        *,
        time_limit: float | None,
        options: dict[str, Any],
    ) -> tuple[np.ndarray | None, float | None]:
        """The solution of ``lp`` with the columns of ``pinned``'s variables held at their
        values (None when there is none within the time), and the time left after it."""
        import dataclasses

        t0 = time.perf_counter()
        where = {id(var): k for k, var in enumerate(columns)}
        held = [(where[id(var)], value) for var, value in pinned if id(var) in where]
        if not held:
            return None, time_limit
        index = np.array([k for k, _ in held], dtype=np.int64)
        value = np.array([v for _, v in held], dtype=np.float64)
        lower, upper = lp.col_lower.copy(), lp.col_upper.copy()
        # held inside the column's own bounds: a value just outside them is rounding
        lower[index] = upper[index] = np.clip(value, lp.col_lower[index], lp.col_upper[index])
        held_lp = dataclasses.replace(lp, col_lower=lower, col_upper=upper)
        # at most half the time: the full solve is the one that answers
        sol = self.solve_lp(held_lp, time_limit=None if time_limit is None else time_limit / 2, options=options)
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - t0), 0.01)
        # any solution of the held problem is one of the full problem: a start
        feasible = sol.status in (Status.OPTIMAL, Status.TIME_LIMIT) and sol.x is not None
        return (sol.x if feasible else None), left

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
        """A model without disjunctions: SOS and nonlinear models go to :attr:`pyomo_solver`,
        everything else is compiled to a LinearProgram and solved by :meth:`solve_lp`."""
        import pyomo.environ as pyo

        from ..formulations.linear_program import standard_form

        sos = {c.level for c in model.component_data_objects(pyo.SOSConstraint, active=True)}
        for level in sorted(sos):
            if not getattr(self.capabilities, f"sos{level}"):
                self.refuse(f"sos{level}", f"solve a model with SOS{level} constraints")
        if sos:
            if pinned:
                raise SolverError("a pinned start needs a model without SOS sets")
            return self._solve_with_pyomo_interface(model, time_limit=time_limit, verbose=verbose, options=options)
        t0 = time.perf_counter()
        try:
            lp, columns = standard_form(model)
        except ValueError as exc:
            from pyomo.common.errors import InfeasibleConstraintException

            if isinstance(exc.__cause__, InfeasibleConstraintException):
                # a row with no variable left that cannot hold: the model is infeasible
                return Solution(
                    Status.INFEASIBLE, None, None, None, self.name, method=method, message=str(exc.__cause__)
                )
            if "nonlinear" not in str(exc).lower() and "quadratic" not in str(exc).lower():
                raise SolverError(str(exc)) from exc
            if not self.capabilities.bilinear:
                self.refuse("bilinear", f"solve a model with products of variables ({exc})")
            return self._solve_with_pyomo_interface(model, time_limit=time_limit, verbose=verbose, options=options)
        compile_seconds = time.perf_counter() - t0
        start = None
        if pinned:
            start, time_limit = self._pinned_solution(lp, columns, pinned, time_limit=time_limit, options=options)
        sol = self.solve_lp(
            lp, method=method, time_limit=time_limit, verbose=verbose, options=options, warm_start=start
        )
        sol.seconds["compile"] = compile_seconds
        if sol.objective is not None:
            sol.objective += lp.objective_offset
        if sol.x is not None:
            for var, value in zip(columns, sol.x.tolist()):
                if not var.fixed:
                    var.set_value(value, skip_validation=True)
        return sol

    def _solve_with_pyomo_interface(
        self, model: Any, *, time_limit: float | None, verbose: bool, options: dict[str, Any]
    ) -> Solution:
        if self.pyomo_solver is None:
            raise SolverError(f"backend '{self.name}' has no Pyomo interface for this model")
        from .pyomo_interface import solve_with_solver_factory

        sol = solve_with_solver_factory(
            model, self.pyomo_solver, time_limit=time_limit, verbose=verbose, options=options
        )
        sol.backend = self.name
        return sol

    def _solve_native_indicators(
        self, model: Any, *, time_limit: float | None, verbose: bool, options: dict[str, Any]
    ) -> Solution:
        self.refuse("indicators", "pass disjunctions as native indicator constraints")

    def __repr__(self) -> str:
        return f"<backend {self.name}: {', '.join(self.capabilities.supported())}>"


# ---- registry ---------------------------------------------------------------------------

_REGISTRY: dict[str, Backend] = {}

B = TypeVar("B", Backend, type[Backend])
_FAMILIES: dict[str, Callable[[str], Backend]] = {}


def register(backend: B) -> B:
    """Register a backend instance, or (as a class decorator) an instance of the class.

    Returns its argument, so ``@register`` can decorate a Backend subclass with a
    no-argument constructor. A later registration under the same name replaces the former.
    """
    instance = backend() if isinstance(backend, type) else backend
    if not isinstance(instance, Backend) or not instance.name:
        raise TypeError("register() takes a Backend with a name")
    _REGISTRY[instance.name] = instance
    return backend


def register_family(prefix: str, factory: Callable[[str], Backend]) -> None:
    """Register ``factory(suffix)`` for the names ``prefix:suffix`` (``pyomo:glpk``)."""
    _FAMILIES[prefix] = factory


def registered() -> dict[str, Backend]:
    """Registered fixed-name backends by name, whether or not their package is installed."""
    return dict(_REGISTRY)


def get_backend(name: str) -> Backend:
    """The backend called ``name`` (``prefix:suffix`` for families); raises SolverError
    naming the backends available here when it is unknown or not installed."""
    if not isinstance(name, str):
        raise SolverError(f"a backend is named by a string such as 'highs', not {name!r}")
    backend = _REGISTRY.get(name)
    if backend is None and ":" in name:
        prefix, suffix = name.split(":", 1)
        if prefix in _FAMILIES:
            backend = _FAMILIES[prefix](suffix)
    if backend is None or not backend.is_available():
        from . import available_backends

        hint = ""
        if backend is not None and backend.install:
            hint = f" ({backend.install_hint()})"
        raise SolverError(
            f"backend '{name}' is not available{hint}; available here: {', '.join(available_backends()) or 'none'}"
        )
    return backend


__all__ = [
    "Backend",
    "CAPABILITIES",
    "Capabilities",
    "Solution",
    "Status",
    "get_backend",
    "is_mip",
    "quiet_logger",
    "register",
    "register_family",
    "registered",
]
