"""Interchangeable solver backends behind one call.

``solve(problem, backend="highs")`` takes a :class:`~equilibria.formulations.LinearProgram`
and returns a :class:`Solution`; ``solve_model(model, backend=...)`` does the same for a
Pyomo model (linear, mixed-integer, or with GDP disjunctions) and loads the values into the
model. Backends (each a :class:`Backend` with :class:`Capabilities`, see "Solver backends" in ``docs/architecture.md``):

``highs``        highspy, fed the sparse matrix directly (the default)
``scip``         PySCIPOpt (SCIP), loaded from an MPS file written by HiGHS
``gurobi``       gurobipy, matrix by ``addMConstr`` (extra ``gurobi``)
``xpress``       FICO Xpress, matrix by ``loadLP`` (extra ``xpress``)
``ortools``      OR-Tools GLOP / PDLP / SCIP / CP-SAT (extra ``ortools``)
``cylp``         COIN-OR CLP and CBC through CyLP (extra ``cylp``)
``clarabel``     Clarabel's conic interior point, LPs only (the default for mid-sized LPs)
``pdlp-torch``   restarted primal-dual hybrid gradient (PDLP) on torch, CPU or GPU (extra ``gpu``)
``pyomo:NAME``   any solver Pyomo's ``SolverFactory(NAME)`` reaches on this machine

Every backend reports a :class:`Status`; a request a backend cannot honour is refused with
SolverError naming the backend and the capability. This layer knows matrices, not games.
"""

from __future__ import annotations

# importing a backend module registers it (none imports its solver package here); the
# order is the order they are listed in: the embedded default, SCIP, then the optional ones
from . import highs  # noqa: F401  isort: skip
from . import scip  # noqa: F401  isort: skip
from . import gurobi, xpress, ortools, coin, clarabel  # noqa: F401  isort: skip
from . import pdlp_torch  # noqa: F401  isort: skip
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..models.errors import SolverError
from ..models.output import atomic_output, content_suffix
from .base import (
    CAPABILITIES,
    Backend,
    Capabilities,
    get_backend,
    register,
    register_family,
    registered,
)
from .pyomo_backend import PYOMO_CANDIDATES, available_pyomo_solvers  # noqa: E402
from .results import Solution, SolutionStatus, Status, quiet_logger

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from ..formulations.linear_program import LinearProgram


def available_backends() -> list[str]:
    """Every backend name :func:`solve` accepts on this machine (``pyomo:NAME`` included)."""
    out = [name for name, backend in registered().items() if backend.is_available()]
    out.extend(f"pyomo:{name}" for name in available_pyomo_solvers())
    return out


def solve(
    problem: LinearProgram,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
) -> Solution:
    """Solve the LinearProgram ``problem`` with ``backend``; returns the :class:`Solution`.

    ``method`` picks the algorithm where the backend has a choice (HiGHS: ``concurrent``,
    ``simplex``, ``ipm``, ``ipx``, ``pdlp``); ``options`` are passed to the solver by name.
    Raises SolverError listing the available backends when ``backend`` is not one of them,
    or naming the capability the backend lacks for this request.
    """
    return get_backend(backend).solve_lp(
        problem, method=method, time_limit=time_limit, verbose=verbose, options=options
    )


def solve_model(
    model: Any,
    backend: str = "highs",
    *,
    indicators: str | None = None,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
    pinned_start: list[tuple[Any, float]] | None = None,
) -> Solution:
    """Solve the Pyomo ``model`` (linear, mixed-integer, with SOS sets, GDP disjunctions or
    products of variables) with ``backend``; returns the Solution and loads the values into
    the model's variables (``Solution.active_disjuncts`` lists the disjuncts that hold).
    ``indicators`` says how disjunctions reach the solver (``native``, ``bigm``, ``hull``);
    ``method`` picks one of the backend's solvers where it has several. Matrix-row families
    of a model made by ``LinearProgram.to_pyomo()`` are passed as arrays. Also exported as
    ``equilibria.solve_pyomo``. ``pinned_start`` pairs variables with values to start a
    MIP from. See :meth:`Backend.solve_model`."""
    return get_backend(backend).solve_model(
        model,
        indicators=indicators,
        method=method,
        time_limit=time_limit,
        verbose=verbose,
        options=options,
        pinned_start=pinned_start,
    )


#: The backend an LP gets when none is named (``backend="auto"``): Clarabel for LPs of at
#: least :data:`CLARABEL_MIN_NONZEROS` nonzeros that are sparse, HiGHS otherwise (its method
#: by :func:`~equilibria.solvers.highs.choose_lp_method`). Measured in
#: ``benchmarks/default_rule.py``: below that size both take well under 0.1 s and HiGHS
#: returns a vertex, exact to rounding. Clarabel's interior point (no crossover) was 3x to
#: 16x faster on the Leduc and Rhode Island LPs with at most 20 nonzeros per column up to
#: 150,000 nonzeros (Leduc with 8 ranks: 0.15 s against 0.43 s), and on those with at most
#: 8 per column at any size (Rhode Island with 4 ranks and 2 suits, 753,634 nonzeros: 32 s
#: against over 180 s); it was slower on denser large LPs (Leduc with 8 ranks, the tree's
#: LP: 7.1 s against 4.3 s), stopped short of optimal on Leduc with 13 ranks and on G_n
#: (84 and more per column), and lost 2.4 s to 1.4 s on Liar's dice with 6 sides (6 per
#: column, 221,138 nonzeros), the one measured LP the rule sends to the slower backend.
CLARABEL_MIN_NONZEROS = 10_000
#: (nonzeros at most, nonzeros per column at most) of the LPs Clarabel gets; None: any size
CLARABEL_SHAPES: tuple[tuple[int | None, float], ...] = ((150_000, 20.0), (None, 8.0))

#: The backend name that asks for :func:`choose_backend`'s rule (routes that solve an LP).
AUTO = "auto"


def choose_backend(problem: LinearProgram) -> tuple[str, str]:
    """The backend for ``problem`` when none is named, and why, as one phrase."""
    density = problem.nnz / max(1, problem.num_cols)
    shape = f"{problem.nnz:,} nonzeros, {density:.0f} per column"
    where = f"Clarabel's range (from {CLARABEL_MIN_NONZEROS:,} nonzeros, at most 20 per column to 150,000, 8 beyond)"
    fits = any((size is None or problem.nnz <= size) and density <= most for size, most in CLARABEL_SHAPES)
    if problem.nnz >= CLARABEL_MIN_NONZEROS and fits and registered()["clarabel"].is_available():
        return "clarabel", f"{shape}: in {where}"
    return "highs", f"{shape}: outside {where}"


def write_problem(problem: LinearProgram, path: str | Path, file_format: str | None = None) -> None:
    """Write ``problem`` as an MPS or LP file (format from ``file_format`` or the suffix)."""
    from .highs import write_with_highs

    write_with_highs(problem, path, file_format)


def default_indicators(backend: str, model: pyo.ConcreteModel | None = None) -> str:
    """How ``model``'s disjunctions reach backend ``backend`` unless told: ``native`` when
    the backend has indicator constraints (SCIP) and prefers them for this model, else
    ``bigm``."""
    known = registered().get(backend)
    return known.default_indicators(model) if known is not None else "bigm"


def write_disjunctive(model: pyo.ConcreteModel, path: str, indicators: str = "bigm") -> str:
    """Write the program to ``.mps`` or ``.lp`` (gzip-compressed when named ``.gz``): big-M
    or hull through Pyomo's writers, or (``native``) SCIP's writer, which keeps indicator
    constraints."""
    suffix = content_suffix(path)
    if suffix not in (".mps", ".lp"):
        raise SolverError(f"cannot write '{path}': name it .mps or .lp (.mps.gz, .lp.gz compressed)")
    if indicators == "native":
        from .scip import build_native_scip

        scip, _, _ = build_native_scip(model)
        with atomic_output(path, suffix=suffix) as tmp:
            scip.writeProblem(str(tmp), verbose=False)
        return str(path)
    from . import disjunctive

    milp = disjunctive.transformed(model, indicators)
    # feasibility programs have a constant objective, which Pyomo's writers warn about
    with quiet_logger("pyomo"), atomic_output(path, suffix=suffix) as tmp:
        milp.write(str(tmp), io_options={"symbolic_solver_labels": True})
    return str(path)


__all__ = [
    "AUTO",
    "Backend",
    "CAPABILITIES",
    "CLARABEL_MIN_NONZEROS",
    "CLARABEL_SHAPES",
    "Capabilities",
    "PYOMO_CANDIDATES",
    "Solution",
    "SolutionStatus",
    "Status",
    "available_backends",
    "available_pyomo_solvers",
    "choose_backend",
    "default_indicators",
    "get_backend",
    "quiet_logger",
    "register",
    "register_family",
    "registered",
    "solve",
    "solve_model",
    "write_disjunctive",
    "write_problem",
]
