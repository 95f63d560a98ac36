"""Programs with disjunctions (Pyomo GDP): how ``solve_model(model, backend, indicators=...)``
passes them to a backend.

``indicators="bigm"``   Pyomo's ``gdp.bigm`` (M from the variable bounds), then the backend
``indicators="hull"``   Pyomo's ``gdp.hull`` (convex hull reformulation), then the backend
``indicators="native"`` backends with the ``indicators`` capability (SCIP): every disjunct
                        becomes a binary with SCIP indicator constraints (``z = 1 => row``),
                        added through PySCIPOpt because Pyomo has no indicator constraints
                        (:func:`equilibria.solvers.scip.build_native_scip`).

Variable values are loaded into the model's own variables; the returned
:class:`~equilibria.solvers.Solution` lists the active disjuncts.

An untransformed disjunction is silently ignored by Pyomo's solver interfaces, which then
report a wrong "optimal"; the transformed model is checked for leftovers before solving.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyomo.environ as pyo
from pyomo.gdp import Disjunct, Disjunction

from ..models.errors import SolverError
from ..models.vocabulary import INDICATORS

INDICATOR_MODES = INDICATORS


def has_disjunctions(model: Any) -> bool:
    """True when ``model`` holds an active GDP ``Disjunction``."""
    return next(model.component_data_objects(Disjunction, active=True, descend_into=True), None) is not None


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


def variables(model: Any) -> Iterator[Any]:
    return model.component_data_objects(pyo.Var, descend_into=(pyo.Block, Disjunct))


def copy_values(model: Any, memo: dict) -> None:
    """Load the values of the clone made by :func:`transformed` into ``model``'s variables."""
    for v in variables(model):
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


__all__ = ["INDICATOR_MODES", "active_disjuncts", "copy_values", "has_disjunctions", "transformed", "variables"]
