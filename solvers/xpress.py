"""FICO Xpress through the ``xpress`` package (``pip install equilibria[xpress]``).

The matrix is loaded column-wise in one ``loadLP`` call. Without a license file the package
runs under its Community license, which admits problems of at most 5000 rows and columns
together; a full license (``XPAUTH_PATH``) lifts that.
"""

from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..models.errors import SolverError
from .base import Backend, Capabilities, is_mip, register
from .results import Solution, Status

if TYPE_CHECKING:
    from ..formulations.linear_program import LinearProgram

#: Rows plus columns the Community license admits.
COMMUNITY_LIMIT = 5000

#: LP algorithms by name -> Xpress ``defaultalg`` control.
METHODS = {"auto": 1, "dual": 2, "primal": 3, "barrier": 4, "pdhg": 6}


def _problem() -> Any:
    import xpress as xp

    with warnings.catch_warnings():
        # without a license file the package announces its Community license on every start
        warnings.simplefilter("ignore", getattr(xp, "LicenseWarning", UserWarning))
        return xp.problem()


def _row_types(lo: np.ndarray, hi: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Xpress row types (E, L, G, R, N) with right-hand sides and ranges."""
    kind = np.full(lo.size, "N")
    rhs = np.zeros(lo.size)
    rng = np.zeros(lo.size)
    eq = lo == hi
    both = ~eq & np.isfinite(lo) & np.isfinite(hi)
    only_hi = ~eq & ~np.isfinite(lo) & np.isfinite(hi)
    only_lo = ~eq & np.isfinite(lo) & ~np.isfinite(hi)
    kind[eq], rhs[eq] = "E", lo[eq]
    kind[both], rhs[both], rng[both] = "R", hi[both], (hi - lo)[both]
    kind[only_hi], rhs[only_hi] = "L", hi[only_hi]
    kind[only_lo], rhs[only_lo] = "G", lo[only_lo]
    return kind.tolist(), rhs, rng


def solve_xpress(
    problem: LinearProgram,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
) -> Solution:
    """Solve with Xpress; returns the Solution."""
    import xpress as xp

    t0 = time.perf_counter()
    A = problem.A.tocsc()
    lo, hi = np.asarray(problem.row_lower, float), np.asarray(problem.row_upper, float)
    kind, rhs, rng = _row_types(lo, hi)
    inf = xp.infinity
    col_lo = np.clip(np.asarray(problem.col_lower, float), -inf, inf)
    col_hi = np.clip(np.asarray(problem.col_upper, float), -inf, inf)
    p = _problem()
    p.setControl("outputlog", 1 if verbose else 0)
    t1 = time.perf_counter()
    try:
        p.loadLP(
            problem.name or "lp",
            kind,
            rhs,
            rng,
            np.asarray(problem.c, float),
            A.indptr.astype(np.int64),
            None,
            A.indices.astype(np.int64),
            A.data,
            col_lo,
            col_hi,
        )
    except xp.SolverError as exc:
        raise SolverError(
            f"backend 'xpress': {exc} (this problem has {problem.num_rows} rows and {problem.num_cols} columns)"
        ) from exc
    if is_mip(problem):
        cols = np.flatnonzero(cast(np.ndarray, problem.integrality))  # set: is_mip
        p.chgColType(cols.tolist(), ["I"] * cols.size)
    p.chgObjSense(xp.ObjSense.MAXIMIZE if problem.maximize else xp.ObjSense.MINIMIZE)
    if method is not None:
        p.setControl("defaultalg", METHODS[method])
    if time_limit is not None:
        p.setControl("timelimit", float(time_limit))
    for key, value in (options or {}).items():
        p.setControl(key, value)
    t2 = time.perf_counter()
    try:
        p.optimize()
    except xp.SolverError as exc:
        text = " ".join(str(exc).split())
        beyond = "maximum is" in text or "too many" in text
        raise SolverError(
            f"backend 'xpress': {text}"
            + (
                f" (this problem has {problem.num_rows} rows and {problem.num_cols} columns; "
                f"the Community license admits {COMMUNITY_LIMIT} together)"
                if beyond
                else ""
            )
        ) from exc
    t3 = time.perf_counter()
    sol_status = int(p.attributes.solstatus)
    stop = int(p.attributes.stopstatus)
    status = {1: Status.OPTIMAL, 3: Status.INFEASIBLE, 4: Status.UNBOUNDED}.get(sol_status, Status.UNKNOWN)
    if status == Status.UNKNOWN or (status == Status.OPTIMAL and is_mip(problem) and stop not in (0, 10)):
        status = {
            1: Status.TIME_LIMIT,
            2: Status.INTERRUPTED,
            3: Status.NODE_LIMIT,
            4: Status.ITERATION_LIMIT,
            6: Status.SOLUTION_LIMIT,
            7: Status.ERROR,
            8: Status.ERROR,
            9: Status.INTERRUPTED,
            13: Status.ERROR,
            14: Status.TIME_LIMIT,
        }.get(stop, status)
    x = duals = objective = None
    if sol_status in (1, 2):
        x = np.asarray(p.getSolution(), dtype=float)
        objective = float(p.attributes.objval) if not is_mip(problem) else float(p.attributes.mipobjval)
        if not is_mip(problem) and sol_status == 1:
            duals = np.asarray(p.getDuals(), dtype=float)
    dual_objective = float(p.attributes.bestbound) if is_mip(problem) and x is not None else None
    return Solution(
        status=status,
        objective=objective,
        x=x,
        row_duals=duals,
        backend="xpress",
        method=method or ("branch-and-bound" if is_mip(problem) else "auto"),
        seconds={"build": t1 - t0, "transfer": t2 - t1, "solve": t3 - t2},
        dual_objective=dual_objective,
        message=f"solstatus {sol_status}, stopstatus {stop}",
    )


@register
class XpressBackend(Backend):
    """FICO Xpress: LP (simplex, barrier, PDHG) with duals and MILP; the Community license is
    size-limited (:data:`COMMUNITY_LIMIT` rows and columns together)."""

    name = "xpress"
    module = "xpress"
    install = "equilibria[xpress]"
    capabilities = Capabilities(lp=True, milp=True, duals=True, time_limit=True)
    methods = tuple(METHODS)
    license_limit = f"{COMMUNITY_LIMIT} rows and columns together (Community license)"

    def fits(self, rows: int, cols: int) -> bool:
        return rows + cols <= COMMUNITY_LIMIT

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
        return solve_xpress(problem, method=method, time_limit=time_limit, verbose=verbose, options=options)
