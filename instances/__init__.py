"""Named games. ``load("name:key=value,...")``, ``load("path/to/game.efg")`` or
``describe(spec)`` for every view a game offers (see :mod:`.registry`).

Registered names: :func:`catalog` (``equilibria games`` on the command line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models.bayesian import BayesianGame
    from ..models.ordered import OrderedGame

from .liars_dice import liars_dice
from .poker import generalized_kuhn, kuhn, leduc, rhode_island
from .registry import (
    GameDescription,
    ViewUnavailable,
    bundled_files,
    catalog,
    describe,
    known_names,
    load,
)


def load_bayesian(spec: str) -> BayesianGame:
    """A registered signal game by ``"name:key=value,..."`` (the game registry's signal view)."""
    return describe(spec).view("signal")


def load_ordered(spec: str) -> OrderedGame:
    """An ordered game by ``"name:key=value,..."`` (the game registry's ordered view)."""
    return describe(spec).view("ordered")


__all__ = [
    "GameDescription",
    "ViewUnavailable",
    "bundled_files",
    "catalog",
    "describe",
    "known_names",
    "load",
    "load_bayesian",
    "load_ordered",
    "kuhn",
    "generalized_kuhn",
    "leduc",
    "liars_dice",
    "rhode_island",
]
