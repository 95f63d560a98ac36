"""The game side: extensive-form games, the sequence form, strategies and best responses.

This layer never imports Pyomo or a solver.
"""
from .errors import (
    EquilibriaError,
    FileFormatError,
    GameError,
    SolverError,
    UnknownInstanceError,
)
from .efg import CHANCE, TERMINAL, ExtensiveGame, GameBuilder

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
