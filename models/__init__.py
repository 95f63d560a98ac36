"""The game side: extensive-form games, the sequence form, strategies and best responses.

This layer never imports Pyomo or a solver.
"""

from .efg import CHANCE, TERMINAL, ExtensiveGame, GameBuilder
from .errors import (
    EquilibriaError,
    FileFormatError,
    GameError,
    SolverError,
    UnknownInstanceError,
)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "EquilibriaError",
    "ExtensiveGame",
    "FileFormatError",
    "GameBuilder",
    "GameError",
    "SolverError",
    "UnknownInstanceError",
]
