"""Math-program builders, one module per program; each returns a LinearProgram whose
``to_pyomo()`` gives a Pyomo model with components named after the mathematics."""

from .linear_program import Block, LinearProgram
from .sequence_form_lp import (
    best_abstract_equilibrium_lp,
    equilibrium_behaviors,
    opponent_realization_plan,
    realization_plan,
    sequence_form_lp,
)
from .worst_abstract_equilibrium import worst_abstract_equilibrium_milp

__all__ = [
    "Block",
    "LinearProgram",
    "sequence_form_lp",
    "best_abstract_equilibrium_lp",
    "equilibrium_behaviors",
    "realization_plan",
    "opponent_realization_plan",
    "worst_abstract_equilibrium_milp",
]
