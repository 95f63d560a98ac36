"""HiGHS through highspy: the sparse matrix is handed over as column-wise arrays.

highspy is imported when a function here first needs it, so that registering the backend
(and listing backends) costs nothing.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models.errors import OutputError, SolverError
from ..models.output import atomic_output, content_suffix
from ..models.progress import stage
from .base import Backend, Capabilities, is_mip, register
from .results import Solution, Status, progress_text

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

if TYPE_CHECKING:
    import highspy

_log = logging.getLogger(__name__)

#: With no method, an LP gets simplex or IPX by its shape (:func:`choose_lp_method`);
#: "concurrent" races the two on two threads and keeps the first to finish.
METHODS = ("concurrent", "choose", "simplex", "ipm", "ipx", "hipo", "pdlp")
CONCURRENT = ("simplex", "ipx")


def to_highs_lp(problem: Any, names: bool = False) -> highspy.HighsLp:
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
        integer, continuous = highspy.HighsVarType.kInteger, highspy.HighsVarType.kContinuous
        lp.integrality_ = [integer if flag else continuous for flag in np.asarray(problem.integrality, dtype=bool)]
    if names:
        lp.col_names_ = problem.col_names()
        lp.row_names_ = problem.row_names()
        lp.model_name_ = problem.name
    return lp


def _arrays(problem: Any) -> tuple:
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


def _configured(verbose: bool, method: str | None, time_limit: float | None, options: dict | None) -> highspy.Highs:
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


#: Seconds between progress reports of a running solve (logger ``equilibria.solvers``).
PROGRESS_EVERY = 5.0


#: An iteration line of IPX's log: iteration, primal and dual objective, then residuals.
_IPX_LINE = re.compile(r"^\s*\d+\*?\s+(-?\d\.\d+e[-+]\d+)\s+(-?\d\.\d+e[-+]\d+)\s+\d\.\d+e[-+]\d+\s")


def _watch(h: highspy.Highs, counts: dict) -> None:
    """Record the iteration counts HiGHS reports at its interrupt checks, and the primal
    and dual objectives of IPX's log lines (their gap says how far the solve is from
    optimal), and let ``cancelSolve`` stop it there. The log reaches the console only
    where it did before (``verbose``)."""
    h.HandleUserInterrupt = True
    flag: Any = h.getOptionValue("output_flag")  # (status, value); the value alone in older releases
    shown = bool(flag[1] if isinstance(flag, tuple) else flag)
    h.setOptionValue("output_flag", True)
    h.setOptionValue("log_to_console", shown)

    def read_log(event: Any) -> None:
        match = _IPX_LINE.match(getattr(event, "message", "") or "")
        if match:
            counts["objectives"] = (float(match[1]), float(match[2]))

    def record(event: Any) -> None:
        out = event.data_out
        counts["simplex"] = out.simplex_iteration_count
        counts["ipm"] = out.ipm_iteration_count

    def record_mip(event: Any) -> None:
        out = event.data_out
        counts["nodes"] = int(out.mip_node_count)
        counts["primal"] = float(out.mip_primal_bound)
        counts["dual"] = float(out.mip_dual_bound)

    h.cbSimplexInterrupt += record
    h.cbIpmInterrupt += record
    h.cbMipInterrupt += record_mip
    if hasattr(h, "cbLogging"):  # the logging callback of newer highspy releases
        h.cbLogging += read_log


def run_interruptibly(solvers: dict[str, highspy.Highs]) -> str:
    """Run each Highs object in its own thread and return the name of the first to finish
    (the others are cancelled). The calling thread waits in short steps, so a
    KeyboardInterrupt reaches it at once: every solve is then cancelled and joined before the
    interrupt propagates, leaving no solver thread behind. Logs progress every
    :data:`PROGRESS_EVERY` seconds."""
    finished: list[str] = []
    done = threading.Event()
    counts: dict[str, dict] = {name: {} for name in solvers}
    for name, h in solvers.items():
        _watch(h, counts[name])

    def run(name: str) -> None:
        try:
            solvers[name].run()
        finally:
            finished.append(name)
            done.set()

    threads = [threading.Thread(target=run, args=(name,), name=f"highs-{name}", daemon=True) for name in solvers]
    start = time.perf_counter()
    next_report = start + PROGRESS_EVERY
    try:
        for t in threads:
            t.start()
        while not done.wait(0.1):
            now = time.perf_counter()
            if now >= next_report:
                next_report = now + PROGRESS_EVERY
                parts = []
                for name, c in counts.items():
                    if "nodes" in c:  # a MIP: nodes, incumbent, bound and gap
                        parts.append(progress_text(now - start, c["nodes"], c["primal"], c["dual"]))
                        continue
                    its = c.get("ipm") if name in ("ipx", "ipm", "hipo") else c.get("simplex")
                    what = "method of its choice" if name == "choose" else name
                    gap = ""
                    if "objectives" in c:
                        # IPX's primal and dual objectives (of the problem as HiGHS
                        # minimises it): how far apart they are bounds the distance to optimal
                        primal, dual = c["objectives"]
                        gap = f", primal-dual gap {abs(primal - dual):.2e}"
                    parts.append(
                        f"{what}, {now - start:.0f} s" + (f", iteration {its:,}" if its and its > 0 else "") + gap
                    )
                _log.info("HiGHS: %s", "; ".join(parts))
    except BaseException:
        for h in solvers.values():
            h.cancelSolve()
        for t in threads:
            t.join(2.0)
        raise
    winner = finished[0]
    for name, h in solvers.items():
        if name != winner:
            h.cancelSolve()
    for t in threads:
        t.join()
    return winner


#: LPs with fewer nonzeros go to simplex: either method solves them in well under a second.
SIMPLEX_BELOW = 20_000

#: Nonzeros per column between these two go to IPX (Leduc-like LPs); below and above to
#: simplex (Liar's dice, and G_n's dense payoff block). Measured in benchmarks/methods.py.
IPX_DENSITY = (8.0, 100.0)


def choose_lp_method(problem: Any) -> str:
    """The method HiGHS runs on an LP when none is asked for: a fixed rule on the LP's
    shape, so the same LP gets the same method, and so the same strategies, whatever the
    machine's load (on a game with many equilibria, simplex and IPX may return different
    ones).

    IPX with crossover was 2x to 3x faster than simplex on Leduc-like LPs (8 to 25 nonzeros
    per column), simplex 2x to 3x faster on Liar's dice (5 to 6) and G_n (over 100). The
    simplex/IPX race (``method="concurrent"``) runs only when asked: which of the two
    finishes first depends on the load.
    """
    density = problem.nnz / max(1, problem.num_cols)
    low, high = IPX_DENSITY
    if problem.nnz >= SIMPLEX_BELOW and low <= density <= high:
        return "ipx"
    return "simplex"


@functools.cache
def hipo_missing() -> str | None:
    """None when this highspy's HiGHS has the HiPO interior point, else what it lacks as
    HiGHS reports it. Some wheels are built without it, and HiGHS then runs simplex when
    HiPO is asked for, saying so only in its log: a tiny LP tells."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", True)
    h.setOptionValue("log_to_console", False)
    said: list[str] = []
    h.cbLogging += lambda event: said.append(str(getattr(event, "message", "") or ""))
    h.addVars(2, np.zeros(2), np.ones(2))
    h.changeColsCost(2, np.array([0, 1]), np.array([1.0, 2.0]))
    h.addRow(1.0, highspy.kHighsInf, 2, np.array([0, 1]), np.array([1.0, 1.0]))
    h.setOptionValue("solver", "hipo")
    h.setOptionValue("presolve", "off")
    h.run()
    if h.getInfo().ipm_iteration_count > 0:
        return None
    reason = next((line for line in said if "HiPO" in line), "")
    return reason.split("unavailable:")[-1].strip() if "unavailable:" in reason else "its interior point"


def solve_highs(
    problem: Any,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
    warm_start: np.ndarray | None = None,
) -> Solution:
    """Solve with HiGHS; ``method`` is one of :data:`METHODS` (None: simplex or IPX
    by the LP's shape, see :func:`choose_lp_method`). Returns the Solution; ``warm_start`` (column values)
    seeds the MIP search or the simplex. Interruptible: a KeyboardInterrupt cancels the
    solve and propagates."""
    if method is not None and method not in METHODS:
        raise SolverError(f"unknown HiGHS method '{method}'; choose from {', '.join(METHODS)}")
    if method == "hipo":
        missing = hipo_missing()
        if missing is not None:
            raise SolverError(
                f"this build of HiGHS has no HiPO (it lacks {missing}) and would run another method "
                "in its place; use --method ipx or ipm for an interior point"
            )
    t0 = time.perf_counter()
    arrays = _arrays(problem)
    t1 = time.perf_counter()
    solvers: dict[str, highspy.Highs] = {}
    if method == "concurrent" and not is_mip(problem) and warm_start is None:
        for name in CONCURRENT:
            h = _configured(verbose, name, time_limit, options)
            h.setOptionValue("threads", 1)
            h.passModel(*arrays)
            solvers[name] = h
        prefix = "concurrent:"
    else:
        if method is None and not is_mip(problem) and warm_start is None:
            method = choose_lp_method(problem)
        name = method if method not in (None, "concurrent") else "choose"
        h = _configured(verbose, None if method == "concurrent" else method, time_limit, options)
        h.passModel(*arrays)
        if warm_start is not None:
            import highspy

            start = highspy.HighsSolution()
            start.col_value = np.asarray(warm_start, dtype=np.float64).tolist()
            start.value_valid = True
            h.setSolution(start)
        solvers[name] = h
        prefix = ""
    t2 = time.perf_counter()
    winner = run_interruptibly(solvers)
    h = solvers[winner]
    used = prefix + winner
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


def simplex_basis(
    problem: Any, time_limit: float | None = None, options: dict | None = None
) -> tuple[Status, np.ndarray | None, np.ndarray, np.ndarray]:
    """Solve an LP by HiGHS's simplex and return its status, the column values and the
    final basis: per column and per row, HiGHS's basis status code (0 at the lower bound,
    1 basic, 2 at the upper bound, 3 free and nonbasic at zero, 4 nonbasic), rows by their
    activity. For methods that work from a basis (a refinement's perturbed LP)."""
    h = _configured(False, "simplex", time_limit, options)
    h.passModel(*_arrays(problem))
    run_interruptibly({"simplex": h})
    status = _STATUS.get(h.getModelStatus().name, Status.UNKNOWN)
    solution, basis = h.getSolution(), h.getBasis()
    x = np.asarray(solution.col_value) if solution.value_valid else None
    if not basis.valid:
        return status, x, np.empty(0, dtype=np.int8), np.empty(0, dtype=np.int8)
    return status, x, np.asarray(basis.col_status, dtype=np.int8), np.asarray(basis.row_status, dtype=np.int8)


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

    def _solve_lp(
        self,
        problem: Any,
        *,
        method: str | None,
        time_limit: float | None,
        verbose: bool,
        options: dict | None,
        warm_start: np.ndarray | None,
    ) -> Solution:
        return solve_highs(
            problem, method=method, time_limit=time_limit, verbose=verbose, options=options, warm_start=warm_start
        )


#: Models with this many nonzeros are written by HiGHS in a child process: its writer
#: holds Python's lock for seconds (Rhode Island with 8 ranks: 6.7 s before Ctrl-C acted).
CHILD_WRITE_NONZEROS = 1_000_000


def write_with_highs(
    problem: Any, path: str | os.PathLike, file_format: str | None = None, *, hold: bool = True
) -> None:
    """Write ``problem`` to ``path`` as MPS or LP (from ``file_format`` or the suffix;
    ``x.mps.gz`` is MPS, compressed).

    HiGHS writes into a temporary file in the target's folder, which is renamed onto the
    target only when complete (:func:`equilibria.models.output.atomic_output`): HiGHS is
    never handed a path it could fail on, and a failure leaves nothing behind. ``hold``
    False puts the file in place at once even within
    :func:`~equilibria.models.output.outputs_held` (a model a solver reads next)."""
    fmt = (file_format or content_suffix(path).lstrip(".")).lower()
    if fmt not in ("mps", "lp"):
        raise SolverError(f"cannot write format '{fmt}': use mps or lp")
    h = _new_highs(False)
    h.passModel(to_highs_lp(problem, names=True))
    # HiGHS picks the format from the file's ending; a large model takes a while to write
    # (Rhode Island's shrunk LP: 3.7 GB, over 30 s), which the progress line says
    with stage(f"writing {path} ({problem.nnz:,} nonzeros)"), atomic_output(path, f".{fmt}", hold=hold) as tmp:
        if problem.nnz < CHILD_WRITE_NONZEROS:
            status = h.writeModel(str(tmp))
            if status.name == "kError":
                raise OutputError(f"cannot write {path}: HiGHS could not write the model")
        else:
            from .isolated import call_in_child

            def write() -> None:
                if h.writeModel(str(tmp)).name == "kError":
                    raise OSError("HiGHS could not write the model")

            try:
                call_in_child(write, "writing the model")
            except SolverError as exc:
                raise OutputError(f"cannot write {path}: {exc}") from None
