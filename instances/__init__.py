"""Named games. ``load("name:key=value,...")``, ``load("path/to/game.efg")`` or
``describe(spec)`` for every view a game offers (see :mod:`.registry`).

Registered names: :func:`catalog` (``equilibria games`` on the command line).
"""

from __future__ import annotations

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

__all__ = [
    "GameDescription",
    "ViewUnavailable",
    "bundled_files",
    "catalog",
    "describe",
    "known_names",
    "load",
    "kuhn",
    "generalized_kuhn",
    "leduc",
    "liars_dice",
    "rhode_island",
]
