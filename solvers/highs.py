"""HiGHS through highspy: the sparse matrix is handed over as column-wise arrays.

highspy is imported when a function here first needs it, so that registering the backend
(and listing backends) costs nothing.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..models.errors import SolverError
from .base import Backend, Capabilities, Solution, Status, is_mip, register

#: HighsModelStatus member name -> Status
_STATUS = {
    "kOptimal": Status.OPTIMAL,
    "kInfeasible": Status.INFEASIBLE,
    "kUnbounded": Status.UNBOUNDED,
    "kUnboundedOrInfeasible": Status.INFEASIBLE_OR_UNBOUNDED,
    "kTimeLimit": Status.TIME_LIMIT,
    "kIterationLimit": Status.ITERATION_LIMIT,
    "kSolutionLimit": Status.SOLUTION_LIMIT,
    "kInterrupt": Status.INTERRUPTED,
    "kObjectiveTarget": Status.OBJECTIVE_TARGET,
    "kObjectiveBound": Status.OBJECTIVE_TARGET,
    "kSolveError": Status.ERROR,
    "kModelError": Status.ERROR,
    "kLoadError": Status.ERROR,
    "kPresolveError": Status.ERROR,
    "kPostsolveError": Status.ERROR,
    "kMemoryLimit": Status.ERROR,
}

#: "concurrent" (the default) races simplex and IPX on two threads and keeps the first
#: to finish: IPX wins on Leduc-like LPs, simplex on Liar's dice and G_n (benchmarks/).
if TYPE_CHECKING:
    import highspy

METHODS = ("concurrent", "choose", "simplex", "ipm", "ipx", "hipo", "pdlp")
CONCURRENT = ("simplex", "ipx")


def to_highs_lp(problem, names: bool = False) -> highspy.HighsLp:
    """The problem as a HighsLp (column-wise matrix); row/column names when asked."""
    import highspy

    A = problem.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_ = problem.num_cols
    lp.num_row_ = problem.num_rows
    lp.col_cost_ = np.asarray(problem.c, dtype=np.float64)
    lp.col_lower_ = np.asarray(problem.col_lower, dtype=np.float64)
    lp.col_upper_ = np.asarray(problem.col_upper, dtype=np.float64)
    lp.row_lower_ = np.asarray(problem.row_lower, dtype=np.float64)
    lp.row_upper_ = np.asarray(problem.row_upper, dtype=np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = problem.num_cols
    lp.a_matrix_.num_row_ = problem.num_rows
    lp.a_matrix_.start_ = A.indptr.astype(np.int32, copy=False)
    lp.a_matrix_.index_ = A.indices.astype(np.int32, copy=False)
    lp.a_matrix_.value_ = A.data.astype(np.float64, copy=False)
    lp.sense_ = highspy.ObjSense.kMaximize if problem.maximize else highspy.ObjSense.kMinimize
    if problem.integrality is not None and np.any(problem.integrality):
        kinds = np.where(problem.integrality, highspy.HighsVarType.kInteger, highspy.HighsVarType.kContinuous)
        lp.integrality_ = kinds.tolist()
    if names:
        lp.col_names_ = problem.col_names()
        lp.row_names_ = problem.row_names()
        lp.model_name_ = problem.name
    return lp


def _arrays(problem) -> tuple:
    """The arguments of highspy's array ``passModel``: no element-wise copying in Python."""
    A = problem.A.tocsc()
    if problem.integrality is not None and np.any(problem.integrality):
        integrality = np.where(problem.integrality, 1, 0).astype(np.int32)  # 1: integer
    else:
        integrality = np.zeros(problem.num_cols, dtype=np.int32)
    f64 = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    i32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)  # noqa: E731
    return (
        problem.num_cols,
        problem.num_rows,
        int(A.nnz),
        1,  # 1: column-wise
        -1 if problem.maximize else 1,
        0.0,
        f64(problem.c),
        f64(problem.col_lower),
        f64(problem.col_upper),
        f64(problem.row_lower),
        f64(problem.row_upper),
        i32(A.indptr),
        i32(A.indices),
        f64(A.data),
        integrality,
    )


def _new_highs(verbose: bool) -> highspy.Highs:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    return h


def _configured(verbose, method, time_limit, options) -> highspy.Highs:
    import highspy

    h = _new_highs(verbose)
    if method not in (None, "concurrent"):
        h.setOptionValue("solver", method)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    for key, value in (options or {}).items():
        if h.setOptionValue(key, value) != highspy.HighsStatus.kOk:
            raise SolverError(f"HiGHS rejected option {key}={value!r}")
    return h


def _race(arrays, verbose, time_limit, options) -> tuple[highspy.Highs, str, float]:
    """Run simplex and IPX side by side; return the first to finish and cancel the other."""
    solvers = {}
    for method in CONCURRENT:
        h = _configured(verbose, method, time_limit, options)
        h.setOptionValue("threads", 1)
        h.HandleUserInterrupt = True
        h.passModel(*arrays)
        solvers[method] = h
    transfer_done = time.perf_counter()
    finished = []
    done = threading.Event()

    def run(method):
        solvers[method].run()
        finished.append(method)
        done.set()

    threads = [threading.Thread(target=run, args=(m,), daemon=True) for m in CONCURRENT]
    for t in threads:
        t.start()
    done.wait()
    winner = finished[0]
    for method, h in solvers.items():
        if method != winner:
            h.cancelSolve()
    for t in threads:
        t.join()
    return solvers[winner], winner, transfer_done


def solve_highs(problem, method=None, time_limit=None, verbose=False, options=None, warm_start=None) -> Solution:
    """Solve with HiGHS; ``method`` is one of :data:`METHODS` (None: ``concurrent`` for
    LPs). Returns the Solution; ``warm_start`` (column values) seeds the MIP search or
    the simplex."""
    if method is not None and method not in METHODS:
        raise SolverError(f"unknown HiGHS method '{method}'; choose from {', '.join(METHODS)}")
    t0 = time.perf_counter()
    arrays = _arrays(problem)
    t1 = time.perf_counter()
    if method in (None, "concurrent") and not is_mip(problem) and warm_start is None:
        h, winner, t2 = _race(arrays, verbose, time_limit, options)
        used = f"concurrent:{winner}"
    else:
        h = _configured(verbose, None if method == "concurrent" else method, time_limit, options)
        h.passModel(*arrays)
        if warm_start is not None:
            import highspy

            start = highspy.HighsSolution()
            start.col_value = np.asarray(warm_start, dtype=np.float64).tolist()
            start.value_valid = True
            h.setSolution(start)
        used = method if method not in (None, "concurrent") else "choose"
        t2 = time.perf_counter()
        h.run()
    t3 = time.perf_counter()
    model_status = h.getModelStatus()
    status = _STATUS.get(model_status.name, Status.UNKNOWN)
    info = h.getInfo()
    sol = h.getSolution()
    has_primal = sol.value_valid
    x = np.asarray(sol.col_value) if has_primal else None
    duals = np.asarray(sol.row_dual) if sol.dual_valid and not is_mip(problem) else None
    objective = float(info.objective_function_value) if has_primal else None
    dual_objective = None
    if is_mip(problem) and has_primal:
        dual_objective = float(info.mip_dual_bound)
    return Solution(
        status=status,
        objective=objective,
        x=x,
        row_duals=duals,
        backend="highs",
        method=used,
        seconds={"build": t1 - t0, "transfer": t2 - t1, "solve": t3 - t2},
        dual_objective=dual_objective,
        message=h.modelStatusToString(model_status),
    )


@register
class HighsBackend(Backend):
    """HiGHS (Huangfu and Hall, "Parallelizing the dual revised simplex method", 2018) through
    highspy: LPs by simplex, interior point (IPX) or PDLP, MILPs by branch and cut. No SOS,
    no indicator constraints, no products of variables."""

    name = "highs"
    module = "highspy"
    install = "highspy"
    capabilities = Capabilities(lp=True, milp=True, duals=True, time_limit=True, warm_start=True)
    methods = METHODS

    def _solve_lp(self, problem, *, method, time_limit, verbose, options, warm_start) -> Solution:
        return solve_highs(
            problem, method=method, time_limit=time_limit, verbose=verbose, options=options, warm_start=warm_start
        )


def write_with_highs(problem, path, file_format: str | None = None) -> None:
    """Write ``problem`` to ``path`` as MPS or LP (from ``file_format`` or the suffix)."""
    path = Path(path)
    fmt = (file_format or path.suffix.lstrip(".")).lower()
    if fmt not in ("mps", "lp"):
        raise SolverError(f"cannot write format '{fmt}': use mps or lp")
    h = _new_highs(False)
    h.passModel(to_highs_lp(problem, names=True))
    target = path if path.suffix.lower() == f".{fmt}" else None
    if target is None:
        # HiGHS picks the format from the suffix: write beside, then move
        fd, tmp = tempfile.mkstemp(suffix=f".{fmt}", dir=path.parent if str(path.parent) else ".")
        os.close(fd)
        target = Path(tmp)
    status = h.writeModel(str(target))
    if status.name == "kError":
        raise SolverError(f"HiGHS could not write {path}")
    if target != path:
        os.replace(target, path)
