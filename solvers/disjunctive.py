"""Solve linear programs with disjunctions (Pyomo GDP): big-M, hull or native indicators.

``solve_disjunctive(model, backend, indicators)``:

``indicators="bigm"``   Pyomo's ``gdp.bigm`` (M from the variable bounds), then the backend
``indicators="hull"``   Pyomo's ``gdp.hull`` (convex hull reformulation), then the backend
``indicators="native"`` backends with the ``indicators`` capability (SCIP): every disjunct
                        becomes a binary with SCIP indicator constraints (``z = 1 => row``),
                        added through PySCIPOpt because Pyomo has no indicator constraints.

Variable values are loaded into the model's own variables; the returned
:class:`~equilibria.solvers.Solution` lists the active disjuncts.

An untransformed disjunction is silently ignored by Pyomo's solver interfaces, which then
report a wrong "optimal"; the transformed model is checked for leftovers before solving.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pyomo.environ as pyo
from pyomo.core.expr.visitor import identify_variables
from pyomo.gdp import Disjunct, Disjunction
from pyomo.repn import generate_standard_repn

from ..models.errors import SolverError
from ..models.output import atomic_output
from .base import Solution, Status, quiet_logger

INDICATOR_MODES = ("native", "bigm", "hull")


def has_disjunctions(model: Any) -> bool:
    """True when ``model`` holds an active GDP ``Disjunction``."""
    return next(model.component_data_objects(Disjunction, active=True, descend_into=True), None) is not None


def default_indicators(backend: str, model: pyo.ConcreteModel | None = None) -> str:
    """How ``model``'s disjunctions reach backend ``backend`` unless told: ``native`` when
    the backend has indicator constraints (SCIP) and prefers them for this model, else
    ``bigm``."""
    from .base import registered

    known = registered().get(backend)
    return known.default_indicators(model) if known is not None else "bigm"


def transformed(model: pyo.ConcreteModel, indicators: str, memo: dict | None = None) -> pyo.ConcreteModel:
    """A clone with every disjunction reformulated (``bigm`` or ``hull``); raises
    SolverError if a disjunction survives. ``memo`` receives Pyomo's clone map
    (``id(original component) -> copy``), which :func:`copy_values` reads."""
    if indicators not in ("bigm", "hull"):
        raise SolverError(f"indicators must be one of {', '.join(INDICATOR_MODES)}, not '{indicators}'")
    clone = model.clone(memo)
    pyo.TransformationFactory(f"gdp.{indicators}").apply_to(clone)
    left = [d.name for d in clone.component_data_objects(Disjunction, active=True)]
    if left:
        raise SolverError(f"gdp.{indicators} left disjunction {left[0]} untransformed")
    return clone


def _variables(model: Any) -> Iterator[Any]:
    return model.component_data_objects(pyo.Var, descend_into=(pyo.Block, Disjunct))


def copy_values(model: Any, memo: dict) -> None:
    """Load the values of the clone made by :func:`transformed` into ``model``'s variables."""
    for v in _variables(model):
        twin = memo.get(id(v))
        if twin is not None and twin is not v:
            v.set_value(twin.value, skip_validation=True)


def active_disjuncts(model: Any) -> list[str]:
    """Names of the disjuncts whose indicator is 1 in the values loaded into ``model``."""
    out = []
    for d in model.component_data_objects(Disjunct, descend_into=(pyo.Block, Disjunct)):
        z = d.binary_indicator_var.value
        if z is not None and z > 0.5:
            out.append(d.name)
    return out


def solve_disjunctive(
    model: pyo.ConcreteModel,
    backend: str = "highs",
    indicators: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    method: str | None = None,
) -> Solution:
    """Solve ``model`` (a Pyomo model with disjunctions) with backend ``backend`` (and its
    ``method``, for a backend with several MIP solvers such as OR-Tools' scip and cp_sat).

    Returns the backend's :class:`~equilibria.solvers.Solution`; the variable values are
    loaded into ``model`` itself and ``Solution.active_disjuncts`` lists the disjuncts that
    hold. See :meth:`~equilibria.solvers.Backend.solve_model`.
    """
    from .base import get_backend

    return get_backend(backend).solve_model(
        model, indicators=indicators, method=method, time_limit=time_limit, verbose=verbose
    )


_SCIP_STATUS = {
    "optimal": Status.OPTIMAL,
    "infeasible": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "inforunbd": Status.INFEASIBLE_OR_UNBOUNDED,
    "timelimit": Status.TIME_LIMIT,
    "nodelimit": Status.NODE_LIMIT,
    "totalnodelimit": Status.NODE_LIMIT,
    "sollimit": Status.SOLUTION_LIMIT,
    "bestsollimit": Status.SOLUTION_LIMIT,
    "userinterrupt": Status.INTERRUPTED,
}


def solve_native_scip(
    model: pyo.ConcreteModel,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict[str, Any] | None = None,
) -> Solution:
    """Solve with one SCIP binary per disjunct and indicator constraints (see
    :func:`build_native_scip`); returns the Solution and loads the values into ``model``."""
    t0 = time.perf_counter()
    scip, svar, binary = build_native_scip(model, verbose)
    if time_limit is not None:
        scip.setParam("limits/time", float(time_limit))
    for key, value in (options or {}).items():
        scip.setParam(key, value)
    t1 = time.perf_counter()
    from .scip import run_scip

    run_scip(scip)
    t2 = time.perf_counter()
    st = scip.getStatus()
    status = _SCIP_STATUS.get(st, Status.UNKNOWN)
    active, objective = None, None
    if scip.getNSols() > 0:
        sol = scip.getBestSol()
        for v in _variables(model):
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


def write_disjunctive(model: pyo.ConcreteModel, path: str, indicators: str = "bigm") -> str:
    """Write the program to ``.mps`` or ``.lp``: big-M or hull through Pyomo's writers, or
    (``native``) SCIP's writer, which keeps indicator constraints."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".mps", ".lp"):
        raise SolverError(f"cannot write '{path}': name it .mps or .lp")
    if indicators == "native":
        scip, _, _ = build_native_scip(model)
        with atomic_output(path, suffix=suffix) as tmp:
            scip.writeProblem(str(tmp), verbose=False)
        return str(path)
    milp = transformed(model, indicators)
    # feasibility programs have a constant objective, which Pyomo's writers warn about
    with quiet_logger("pyomo"), atomic_output(path, suffix=suffix) as tmp:
        milp.write(str(tmp), io_options={"symbolic_solver_labels": True})
    return str(path)


__all__ = [
    "INDICATOR_MODES",
    "active_disjuncts",
    "build_native_scip",
    "copy_values",
    "default_indicators",
    "has_disjunctions",
    "solve_disjunctive",
    "solve_native_scip",
    "transformed",
    "write_disjunctive",
]
