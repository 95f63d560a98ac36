"""equilibria: equilibria of games of imperfect information by mathematical programming.

>>> import equilibria
>>> sol = equilibria.solve_game(equilibria.load("kuhn"))
>>> round(sol.value, 6), sol.exploitability < 1e-9
(-0.055556, True)
"""

__version__ = "0.1.0"

from typing import Any

from .answer import Answer
from .api import GameSolution, solve_game
from .instances import describe, load
from .models import EquilibriaError, ExtensiveGame, GameBuilder
from .models.best_response import certify
from .models.efg_io import read_efg, write_efg
from .models.sequence import SequenceForm
from .routes import ROUTES, register_route, solve


def __getattr__(name: str) -> Any:
    # the threshold programs and solve_pyomo import Pyomo, which the sequence-form path does not need
    if name == "solve_threshold":
        from .qualitative import solve_threshold

        return solve_threshold
    if name == "solve_pyomo":
        from .pyomo_models import solve_pyomo

        return solve_pyomo
    raise AttributeError(f"module 'equilibria' has no attribute '{name}'")


__all__ = [
    "Answer",
    "ROUTES",
    "certify",
    "describe",
    "register_route",
    "solve",
    "EquilibriaError",
    "ExtensiveGame",
    "GameBuilder",
    "GameSolution",
    "SequenceForm",
    "load",
    "read_efg",
    "solve_game",
    "solve_pyomo",
    "solve_threshold",
    "write_efg",
]
