"""SCIP through PySCIPOpt. The problem reaches SCIP as an MPS file written by HiGHS
(one C-level write and read instead of a Python call per row)."""
from __future__ import annotations

import os
import tempfile
import time

import numpy as np
import pyscipopt

from . import Solution
from .highs import write_with_highs

_STATUS = {
    "optimal": "optimal",
    "infeasible": "infeasible",
    "unbounded": "unbounded",
    "inforunbd": "infeasible",
    "timelimit": "time_limit",
    "nodelimit": "iteration_limit",
    "userinterrupt": "interrupted",
}


def solve_scip(problem, time_limit=None, verbose=False, options=None) -> Solution:
    """Solve with SCIP. For LPs presolve is switched off so that row duals can be read."""
    t0 = time.perf_counter()
    fd, path = tempfile.mkstemp(suffix=".mps")
    os.close(fd)
    try:
        write_with_highs(problem, path)
        t1 = time.perf_counter()
        m = pyscipopt.Model()
        if not verbose:
            m.hideOutput()
        m.readProblem(path)
    finally:
        os.unlink(path)
    is_lp = problem.integrality is None or not np.any(problem.integrality)
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
    t2 = time.perf_counter()
    m.optimize()
    t3 = time.perf_counter()
    status = _STATUS.get(m.getStatus(), "unknown")
    x = duals = objective = None
    if m.getNSols() > 0:
        best = m.getBestSol()
        cols = {v.name: v for v in m.getVars()}
        names = problem.col_names()
        x = np.array([best[cols[n]] if n in cols else 0.0 for n in names])
        objective = float(m.getObjVal())
        if is_lp and status == "optimal":
            conss = m.getConss()
            by_name = {c.name: c for c in conss}
            duals = np.array([m.getDualsolLinear(by_name[n]) if n in by_name else 0.0 for n in problem.row_names()])
    dual_bound = float(m.getDualbound()) if status in ("optimal", "time_limit") else None
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
