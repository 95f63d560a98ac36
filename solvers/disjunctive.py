"""Solve linear programs with disjunctions (Pyomo GDP): big-M, hull or native indicators.

``solve_disjunctive(model, backend, indicators)``:

``indicators="bigm"``   Pyomo's ``gdp.bigm`` (M from the variable bounds), then the backend
``indicators="hull"``   Pyomo's ``gdp.hull`` (convex hull reformulation), then the backend
``indicators="native"`` SCIP only: every disjunct becomes a binary with SCIP indicator
                        constraints (``z = 1 => row``), added through PySCIPOpt because
                        Pyomo has no indicator constraints.

An untransformed disjunction is silently ignored by Pyomo's solver interfaces, which then
report a wrong "optimal"; the transformed model is checked for leftovers before solving.
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field

import pyomo.environ as pyo
from pyomo.gdp import Disjunct, Disjunction
from pyomo.core.expr.visitor import identify_variables
from pyomo.repn import generate_standard_repn

from ..models.errors import SolverError

INDICATOR_MODES = ("native", "bigm", "hull")

#: Pyomo solver name per backend for transformed (plain MILP) models.
_PYOMO_NAMES = {"highs": "appsi_highs", "scip": "scip_direct"}


@dataclass
class DisjunctiveSolution:
    """Status, variable values by component name (``"x['1.1']"``), which disjuncts hold,
    and timings (``transform``, ``build``, ``solve``)."""

    status: str
    values: dict
    active_disjuncts: list
    backend: str
    indicators: str
    seconds: dict = field(default_factory=dict)
    message: str = ""


def default_indicators(backend: str) -> str:
    """SCIP gets native indicator constraints; everything else big-M."""
    return "native" if backend == "scip" else "bigm"


def transformed(model: pyo.ConcreteModel, indicators: str) -> pyo.ConcreteModel:
    """A clone with every disjunction reformulated (``bigm`` or ``hull``); raises
    SolverError if a disjunction survives."""
    if indicators not in ("bigm", "hull"):
        raise SolverError(f"indicators must be one of {', '.join(INDICATOR_MODES)}, not '{indicators}'")
    clone = model.clone()
    pyo.TransformationFactory(f"gdp.{indicators}").apply_to(clone)
    left = [d.name for d in clone.component_data_objects(Disjunction, active=True)]
    if left:
        raise SolverError(f"gdp.{indicators} left disjunction {left[0]} untransformed")
    return clone


def _var_values(model) -> dict:
    return {v.name: v.value for v in model.component_data_objects(pyo.Var)}


def solve_disjunctive(model: pyo.ConcreteModel, backend: str = "highs", indicators: str | None = None,
                      time_limit: float | None = None, verbose: bool = False) -> DisjunctiveSolution:
    """Solve ``model`` (a Pyomo model with disjunctions); see the module docstring."""
    indicators = indicators or default_indicators(backend)
    if indicators not in INDICATOR_MODES:
        raise SolverError(f"indicators must be one of {', '.join(INDICATOR_MODES)}, not '{indicators}'")
    if indicators == "native":
        if backend != "scip":
            raise SolverError("native indicator constraints need the scip backend; use --indicators bigm or hull")
        return _solve_native_scip(model, time_limit, verbose)
    t0 = time.perf_counter()
    milp = transformed(model, indicators)
    t1 = time.perf_counter()
    name = _PYOMO_NAMES.get(backend, backend.removeprefix("pyomo:"))
    opt = pyo.SolverFactory(name)
    if not opt.available(exception_flag=False):
        raise SolverError(f"solver '{name}' is not available on this machine")
    if time_limit is not None:
        opt.options["time_limit" if "highs" in name else "limits/time"] = time_limit
    results = opt.solve(milp, tee=verbose, load_solutions=False)
    t2 = time.perf_counter()
    term = str(results.solver.termination_condition)
    status = {"optimal": "optimal", "infeasible": "infeasible", "infeasibleOrUnbounded": "infeasible",
              "maxTimeLimit": "time_limit"}.get(term, term)
    values, active = {}, []
    if status == "optimal":
        milp.solutions.load_from(results)
        values = _var_values(milp)
        active = [d.name for d in milp.component_data_objects(Disjunct)
                  if d.binary_indicator_var.value is not None and d.binary_indicator_var.value > 0.5]
    return DisjunctiveSolution(status, values, active, backend, indicators,
                               {"transform": t1 - t0, "solve": t2 - t1}, term)


def _solve_native_scip(model: pyo.ConcreteModel, time_limit, verbose) -> DisjunctiveSolution:
    """Pass the model to PySCIPOpt with one binary per disjunct and indicator constraints."""
    t0 = time.perf_counter()
    scip, svar, binary = build_native_scip(model, verbose)
    if time_limit is not None:
        scip.setParam("limits/time", float(time_limit))
    t1 = time.perf_counter()
    scip.optimize()
    t2 = time.perf_counter()
    st = scip.getStatus()
    status = {"optimal": "optimal", "infeasible": "infeasible", "timelimit": "time_limit"}.get(st, st)
    values, active = {}, []
    if status == "optimal":
        sol = scip.getBestSol()
        for v in model.component_data_objects(pyo.Var, descend_into=(pyo.Block, Disjunct)):
            if id(v) in svar:
                values[v.name] = scip.getSolVal(sol, svar[id(v)])
        active = [name for name, z in binary.items() if scip.getSolVal(sol, z) > 0.5]
    return DisjunctiveSolution(status, values, active, "scip", "native", {"build": t1 - t0, "solve": t2 - t1}, st)


def _plain(name: str) -> str:
    """A name SCIP's LP/MPS readers accept: ``piece['1.1',3]`` -> ``piece_1_1_3``."""
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", name)).strip("_")


def build_native_scip(model: pyo.ConcreteModel, verbose: bool = False):
    """A PySCIPOpt model of ``model``: plain constraints as rows, one binary per disjunct
    (exactly one per disjunction) and an indicator constraint per disjunct row. Returns
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
    def linear(expr):
        repn = generate_standard_repn(expr, compute_values=True, quadratic=False)
        if not repn.is_linear():
            raise SolverError(f"native indicators need linear constraints; got {expr}")
        terms = pyscipopt.quicksum(float(c) * svar[id(v)] for c, v in zip(repn.linear_coefs, repn.linear_vars))
        return terms, float(repn.constant)

    def rows(con):
        body, const = linear(con.body)
        lo = None if con.lower is None else float(pyo.value(con.lower)) - const
        hi = None if con.upper is None else float(pyo.value(con.upper)) - const
        return body, lo, hi

    def in_disjunct(obj):
        parent = obj.parent_block()
        while parent is not None:
            if parent.ctype is Disjunct:
                return True
            parent = parent.parent_block()
        return False

    for con in model.component_data_objects(pyo.Constraint, active=True, descend_into=blocks):
        if in_disjunct(con):
            continue
        body, lo, hi = rows(con)
        if lo is not None and hi is not None and abs(lo - hi) < 1e-15:
            scip.addCons(body == hi, name=_plain(con.name))
        else:
            if lo is not None:
                scip.addCons(body >= lo, name=_plain(con.name) + "_lo")
            if hi is not None:
                scip.addCons(body <= hi, name=_plain(con.name) + "_hi")
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
        sense = "minimize" if obj.sense == pyo.minimize else "maximize"
        scip.setObjective(body + const, sense=sense)
    return scip, svar, binary


def write_disjunctive(model: pyo.ConcreteModel, path: str, indicators: str = "bigm") -> str:
    """Write the program to ``.mps`` or ``.lp``: big-M or hull through Pyomo's writers, or
    (``native``) SCIP's writer, which keeps indicator constraints."""
    if indicators == "native":
        scip, _, _ = build_native_scip(model)
        scip.writeProblem(str(path), verbose=False)
        return str(path)
    milp = transformed(model, indicators)
    # feasibility programs have a constant objective, which Pyomo's writers warn about
    log = logging.getLogger("pyomo")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        milp.write(str(path), io_options={"symbolic_solver_labels": True})
    finally:
        log.setLevel(level)
    return str(path)


__all__ = ["DisjunctiveSolution", "INDICATOR_MODES", "default_indicators", "solve_disjunctive",
           "transformed", "write_disjunctive", "build_native_scip"]
