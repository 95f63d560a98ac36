"""SCIP through PySCIPOpt. A LinearProgram reaches SCIP as an MPS file written by HiGHS (one
C-level write and read instead of a Python call per row); Pyomo models with SOS constraints
or products of variables go through Pyomo's ``scip_direct``, and disjunctions can become
SCIP's own indicator constraints."""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np

from .base import Backend, Capabilities, is_mip, register
from .highs import write_with_highs
from .results import Solution, Status, progress_text

if TYPE_CHECKING:
    import pyomo.environ as pyo

    from ..formulations.linear_program import LinearProgram

_STATUS = {
    "optimal": Status.OPTIMAL,
    "infeasible": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "inforunbd": Status.INFEASIBLE_OR_UNBOUNDED,
    "timelimit": Status.TIME_LIMIT,
    "nodelimit": Status.NODE_LIMIT,
    "totalnodelimit": Status.NODE_LIMIT,
    "stallnodelimit": Status.NODE_LIMIT,
    "sollimit": Status.SOLUTION_LIMIT,
    "bestsollimit": Status.SOLUTION_LIMIT,
    "userinterrupt": Status.INTERRUPTED,
    "terminate": Status.INTERRUPTED,
}


#: SCIP's default value of infinity (``numerics/infinity``).
SCIP_INFINITY = 1e20

#: Seconds between progress reports of a running SCIP solve (logger ``equilibria.solvers``).
PROGRESS_EVERY = 5.0

_log = logging.getLogger("equilibria.solvers")


def run_scip(m: Any, report: Callable[[str], None] | None = None) -> None:
    """``m.optimize()`` that Ctrl-C can stop and that reports progress.

    SCIP runs in a thread of its own without the interpreter lock (``optimizeNogil``), so
    the calling thread waits in short steps: a KeyboardInterrupt reaches it at once, asks
    SCIP to stop at its next node (from SCIP's own thread, through an event handler) and
    propagates once SCIP has returned. Every :data:`PROGRESS_EVERY` seconds the nodes,
    incumbent, bound and gap that the handler last recorded are passed to ``report``
    (default: logged at INFO on ``equilibria.solvers``)."""
    import pyscipopt

    state: dict[str, Any] = {"stop": False, "nodes": 0, "primal": None, "dual": None}

    class Watch(pyscipopt.Eventhdlr):
        # caught for the solve only: SCIP drops them itself when the solve ends, so no
        # Python code of ours runs while the model is freed (an interrupt there printed
        # SCIP's error trail)
        def eventinitsol(self) -> None:
            for kind in (pyscipopt.SCIP_EVENTTYPE.NODESOLVED, pyscipopt.SCIP_EVENTTYPE.BESTSOLFOUND):
                self.model.catchEvent(kind, self)

        def eventexec(self, event: Any) -> dict:
            state["nodes"] = self.model.getNNodes()
            state["primal"] = self.model.getPrimalbound()
            state["dual"] = self.model.getDualbound()
            if state["stop"]:
                self.model.interruptSolve()
            return {}

    m.includeEventhdlr(Watch(), "equilibria_watch", "progress and interrupts")
    report = report or (lambda text: _log.info("SCIP: %s", text))
    done = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            m.optimizeNogil()
        except BaseException as exc:  # re-raised in the calling thread
            failure.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=run, name="scip", daemon=True)
    start = time.perf_counter()
    next_report = start + PROGRESS_EVERY
    try:
        thread.start()
        while not done.wait(0.1):
            now = time.perf_counter()
            if now >= next_report:
                next_report = now + PROGRESS_EVERY
                report(progress_text(now - start, state["nodes"], state["primal"], state["dual"]))
    except BaseException:
        # SCIP stops at its next node; the interrupt does not wait for it (the thread
        # holds the model, and a command that was interrupted leaves at once)
        state["stop"] = True
        thread.join(0.2)
        raise
    if failure:
        raise failure[0]


def solve_scip(
    problem: LinearProgram,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
    warm_start: np.ndarray | None = None,
) -> Solution:
    """Solve with SCIP and return the Solution. For LPs presolve is switched off so that
    row duals can be read."""
    import pyscipopt

    t0 = time.perf_counter()
    largest = max(float(np.abs(problem.A.data).max(initial=0.0)), float(np.abs(problem.c).max(initial=0.0)))
    if largest >= SCIP_INFINITY:
        # SCIP takes such a coefficient for infinity and refuses the file (with a trail of
        # error lines of its own on standard error): refuse it here, quietly
        return _refused(problem, f"SCIP: a coefficient of {largest:.3g} is at or above its infinity (1e20)", {})
    fd, path = tempfile.mkstemp(suffix=".mps")
    os.close(fd)
    try:
        write_with_highs(problem, path, hold=False)  # SCIP reads it next
        t1 = time.perf_counter()
        m = pyscipopt.Model()
        if not verbose:
            m.hideOutput()
        try:
            m.readProblem(path)
        except Exception as exc:  # PySCIPOpt raises a bare Exception("SCIP: error in input data!")
            if not str(exc).startswith("SCIP"):
                raise
            return _refused(problem, str(exc), {"build": t1 - t0})
    finally:
        os.unlink(path)
    is_lp = not is_mip(problem)
    if is_lp:
        m.setPresolve(pyscipopt.SCIP_PARAMSETTING.OFF)
        m.setHeuristics(pyscipopt.SCIP_PARAMSETTING.OFF)
        m.disablePropagation()
        # SoPlex's default 1e-6 tolerances leave strategies read from duals ~1e-6 exploitable
        m.setParam("numerics/feastol", 1e-9)
        m.setParam("numerics/dualfeastol", 1e-9)
    if time_limit is not None:
        m.setParam("limits/time", float(time_limit))
    for key, value in (options or {}).items():
        m.setParam(key, value)
    cols = {v.name: v for v in m.getVars()}
    names = problem.col_names()
    if warm_start is not None:
        start = m.createPartialSol()
        for n, value in zip(names, np.asarray(warm_start, dtype=float).tolist()):
            if n in cols:
                m.setSolVal(start, cols[n], value)
        m.addSol(start)
    t2 = time.perf_counter()
    try:
        run_scip(m)
    except Exception as exc:  # PySCIPOpt raises a bare Exception("SCIP: error in input data!")
        if not str(exc).startswith("SCIP"):
            raise
        return _refused(problem, str(exc), {"build": t1 - t0, "transfer": t2 - t1})
    t3 = time.perf_counter()
    status = _STATUS.get(m.getStatus(), Status.UNKNOWN)
    x = duals = objective = None
    if m.getNSols() > 0:
        best = cast(Any, m.getBestSol())  # not None: getNSols() > 0
        x = np.array([best[cols[n]] if n in cols else 0.0 for n in names])
        objective = float(m.getObjVal())
        if is_lp and status == Status.OPTIMAL:
            by_name = {c.name: c for c in m.getConss()}
            duals = np.array([m.getDualsolLinear(by_name[n]) if n in by_name else 0.0 for n in problem.row_names()])
            if problem.maximize:  # SCIP reports the duals of the minimisation it solves
                duals = -duals
            _singleton_row_duals(problem, x, duals)
    dual_bound = float(m.getDualbound()) if status in (Status.OPTIMAL, Status.TIME_LIMIT) else None
    return Solution(
        status=status,
        objective=objective,
        x=x,
        row_duals=duals,
        backend="scip",
        method="lp" if is_lp else "branch-and-bound",
        seconds={"build": t1 - t0, "transfer": t2 - t1, "solve": t3 - t2},
        dual_objective=dual_bound,
        message=m.getStatus(),
    )


def _refused(problem: LinearProgram, message: str, seconds: dict[str, float]) -> Solution:
    """No solution: SCIP refused the numbers (payoffs of 1e16 and more); the caller, which
    knows the game, says why."""
    return Solution(
        status=Status.ERROR,
        objective=None,
        x=None,
        row_duals=None,
        backend="scip",
        method="branch-and-bound" if is_mip(problem) else "lp",
        seconds=seconds,
        message=message,
    )


def _singleton_row_duals(problem: LinearProgram, x: np.ndarray, duals: np.ndarray) -> None:
    """Fill in the duals of rows with one nonzero, in place (duals in the common sign
    convention: ``c - A'y`` are the reduced costs).

    SCIP keeps a linear constraint on one variable as a bound of that variable, not as a
    row of its LP, and reports no dual for it (0). Where such a row holds with equality
    and its variable lies strictly inside its own bounds, the variable's reduced cost is
    zero, which fixes the row's dual from the other rows' duals. Without this, strategies
    read from duals were exploitable on random games whose sequence-form LP has such a row.
    """
    A = problem.A.tocsc()
    rows = problem.A.tocsr()
    counts = np.diff(rows.indptr)
    tolerance = 1e-9

    def at(value: float, bounds: tuple[float, float]) -> bool:
        return any(np.isfinite(b) and abs(value - b) <= tolerance * (1.0 + abs(b)) for b in bounds)

    for i in np.flatnonzero(counts == 1):
        j = int(rows.indices[rows.indptr[i]])
        a = float(rows.data[rows.indptr[i]])
        if a == 0.0 or not at(a * x[j], (problem.row_lower[i], problem.row_upper[i])):
            continue
        if at(x[j], (problem.col_lower[j], problem.col_upper[j])):
            continue  # a bound of its own may carry the multiplier
        column = slice(A.indptr[j], A.indptr[j + 1])
        others = float(A.data[column] @ duals[A.indices[column]]) - a * duals[i]
        duals[i] = (problem.c[j] - others) / a


@register
class ScipBackend(Backend):
    """SCIP (Bolusani et al., "The SCIP Optimization Suite 9.0", 2024) through PySCIPOpt:
    LP (SoPlex) with duals, MILP, SOS1/SOS2 and bilinear terms (spatial branch and bound),
    and native indicator constraints for disjunctions. Models that do not compile to a
    matrix (SOS sets, products) are built by :func:`~.disjunctive.build_native_scip`."""

    name = "scip"
    module = "pyscipopt"
    install = "pyscipopt"
    capabilities = Capabilities(
        lp=True,
        milp=True,
        sos1=True,
        sos2=True,
        indicators=True,
        bilinear=True,
        duals=True,
        time_limit=True,
        warm_start=True,
    )
    pyomo_solver = "scip_direct"

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
        return solve_scip(problem, time_limit=time_limit, verbose=verbose, options=options, warm_start=warm_start)

    def default_indicators(self, model: Any = None) -> str:
        # SCIP's indicator constraints beside SOS2 sets stall its search: the three-player,
        # two-card Kuhn threshold program (k = 3) is solved in seconds with big-M rows and
        # not in 120 s with indicator constraints
        from ..formulations.products import count_sos

        return "bigm" if model is not None and count_sos(model, 2) else "native"

    def _solve_with_pyomo_interface(
        self, model: Any, *, time_limit: float | None, verbose: bool, options: dict[str, Any]
    ) -> Solution:
        # SOS and bilinear models go to SCIP through the project's own builder rather than
        # Pyomo's scip_direct, which was seen running far past its time limit on them
        import pyomo.environ as pyo
        from pyomo.core.expr.visitor import polynomial_degree

        def solve() -> Solution:
            return solve_native_scip(model, time_limit=time_limit, verbose=verbose, options=options)

        bilinear = any(
            (polynomial_degree(c.body) or 0) > 1
            for c in model.component_data_objects(pyo.Constraint, active=True, descend_into=True)
        )
        if bilinear:
            # SCIP 10 corrupts its heap on some bilinear programs (solvers.isolated)
            from .isolated import solve_in_child

            sol = solve_in_child(solve, model, time_limit, "scip")
        else:
            sol = solve()
        sol.indicators = None
        return sol

    def _solve_native_indicators(
        self, model: Any, *, time_limit: float | None, verbose: bool, options: dict[str, Any]
    ) -> Solution:
        return solve_native_scip(model, time_limit=time_limit, verbose=verbose, options=options)


# ---- Pyomo models with disjunctions, SOS sets and products, compiled for SCIP itself


def solve_native_scip(
    model: pyo.ConcreteModel,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
) -> Solution:
    """Solve with one SCIP binary per disjunct and indicator constraints (see
    :func:`build_native_scip`); returns the Solution and loads the values into ``model``."""
    from .disjunctive import variables

    t0 = time.perf_counter()
    scip, svar, binary = build_native_scip(model, verbose)
    if time_limit is not None:
        scip.setParam("limits/time", float(time_limit))
    for key, value in (options or {}).items():
        scip.setParam(key, value)
    t1 = time.perf_counter()
    run_scip(scip)
    t2 = time.perf_counter()
    st = scip.getStatus()
    status = _STATUS.get(st, Status.UNKNOWN)
    active, objective = None, None
    if scip.getNSols() > 0:
        sol = scip.getBestSol()
        for v in variables(model):
            if id(v) in svar:
                v.set_value(scip.getSolVal(sol, svar[id(v)]), skip_validation=True)
        active = [name for name, z in binary.items() if scip.getSolVal(sol, z) > 0.5]
        objective = float(scip.getSolObjVal(sol))
    return Solution(
        status=status,
        objective=objective,
        x=None,
        row_duals=None,
        backend="scip",
        method="branch-and-bound",
        seconds={"build": t1 - t0, "solve": t2 - t1},
        message=st,
        active_disjuncts=active,
        indicators="native",
        # SCIP's proven bound on the objective (also when stopped by a limit)
        dual_objective=float(scip.getDualbound()) if status in (Status.OPTIMAL, Status.TIME_LIMIT) else None,
    )


def _plain(name: str) -> str:
    """A name SCIP's LP/MPS readers accept: ``piece['1.1',3]`` -> ``piece_1_1_3``."""
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", name)).strip("_")


def build_native_scip(model: pyo.ConcreteModel, verbose: bool = False) -> tuple[Any, dict[int, Any], dict[str, Any]]:
    """A PySCIPOpt model of ``model``: plain constraints as rows (bilinear ones as SCIP's
    nonlinear constraints), SOS1/SOS2 sets as SCIP's own, one binary per disjunct (exactly
    one per disjunction) and an indicator constraint per disjunct row. Returns
    (scip model, {id(pyomo var): scip var}, {disjunct name: binary})."""
    import pyomo.environ as pyo
    from pyomo.core.expr.visitor import identify_variables
    from pyomo.gdp import Disjunct, Disjunction
    from pyomo.repn import generate_standard_repn

    from ..models.errors import SolverError

    try:
        import pyscipopt
    except ImportError:
        raise SolverError("backend 'scip' needs pyscipopt (pip install pyscipopt)") from None
    scip = pyscipopt.Model(model.name or "model")
    if not verbose:
        scip.hideOutput()
    svar = {}
    blocks = (pyo.Block, Disjunct)
    for v in model.component_data_objects(pyo.Var, descend_into=blocks):
        if v.fixed:
            continue
        # a disjunct's indicator is the paper's binary z: binary whatever its domain says
        vtype = "B" if (v.is_binary() or v.parent_block().ctype is Disjunct) else ("I" if v.is_integer() else "C")
        svar[id(v)] = scip.addVar(name=_plain(v.name), vtype=vtype, lb=v.lb, ub=v.ub)

    def linear(expr: Any, quadratic: bool = False) -> tuple[Any, float]:
        repn = generate_standard_repn(expr, compute_values=True, quadratic=quadratic)
        if not (repn.is_linear() or (quadratic and repn.is_quadratic())):
            what = "linear or quadratic" if quadratic else "linear"
            raise SolverError(f"native indicators need {what} constraints; got {expr}")
        terms = pyscipopt.quicksum(float(c) * svar[id(v)] for c, v in zip(repn.linear_coefs, repn.linear_vars))
        if repn.quadratic_vars:
            terms += pyscipopt.quicksum(
                float(c) * svar[id(a)] * svar[id(b)] for c, (a, b) in zip(repn.quadratic_coefs, repn.quadratic_vars)
            )
        return terms, float(repn.constant)

    def rows(con: Any, quadratic: bool = False) -> tuple[Any, float | None, float | None]:
        body, const = linear(con.body, quadratic)
        lo = None if con.lower is None else float(pyo.value(con.lower)) - const
        hi = None if con.upper is None else float(pyo.value(con.upper)) - const
        return body, lo, hi

    def in_disjunct(obj: Any) -> bool:
        parent = obj.parent_block()
        while parent is not None:
            if parent.ctype is Disjunct:
                return True
            parent = parent.parent_block()
        return False

    for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=blocks):
        if in_disjunct(con):
            continue
        body, lo, hi = rows(con, quadratic=True)  # bilinear rows (exact products) go to SCIP as they are
        if lo is not None and hi is not None and abs(lo - hi) < 1e-15:
            scip.addCons(body == hi, name=_plain(con.name))
        else:
            if lo is not None:
                scip.addCons(body >= lo, name=_plain(con.name) + "_lo")
            if hi is not None:
                scip.addCons(body <= hi, name=_plain(con.name) + "_hi")
    for sos in model.component_data_objects(pyo.SOSConstraint, active=True, descend_into=blocks):
        items = list(sos.get_items())
        members = [svar[id(v)] for v, _ in items]
        weights = [float(w) for _, w in items]
        add = scip.addConsSOS2 if sos.level == 2 else scip.addConsSOS1
        add(members, weights=weights, name=_plain(sos.name))
    binary = {}
    for disj in model.component_data_objects(Disjunction, active=True, descend_into=True):
        zs = []
        for d in disj.disjuncts:
            z = svar[id(d.binary_indicator_var)]
            binary[d.name] = z
            zs.append(z)
            for con in d.component_data_objects(pyo.Constraint, active=True, descend_into=True):
                body, lo, hi = rows(con)
                if hi is not None:
                    scip.addConsIndicator(body <= hi, binvar=z, name=_plain(con.name) + "_hi")
                if lo is not None:
                    scip.addConsIndicator(-body <= -lo, binvar=z, name=_plain(con.name) + "_lo")
        scip.addCons(pyscipopt.quicksum(zs) == 1, name=_plain(disj.name) + "_exactly_one")
    for obj in model.component_data_objects(pyo.Objective, active=True, descend_into=blocks):
        if obj.expr.__class__ in (int, float) or not list(identify_variables(obj.expr)):
            continue  # a feasibility program
        body, const = linear(obj.expr)
        sense: Literal["minimize", "maximize"] = "minimize" if obj.sense == pyo.minimize else "maximize"
        scip.setObjective(body + const, sense=sense)
    return scip, svar, binary
