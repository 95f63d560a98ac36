"""The game side: extensive-form games, the sequence form, strategies and best responses.

This layer imports no other layer of the package, Pyomo or a solver. The names below are
imported on first use, so that importing one light module of the layer (errors, checks,
progress) does not load numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: public name -> module (relative to this package) that defines it
_EXPORTS = {
    "CHANCE": ".efg",
    "TERMINAL": ".efg",
    "ExtensiveGame": ".efg",
    "GameBuilder": ".efg",
    "EquilibriaError": ".errors",
    "FileFormatError": ".errors",
    "GameError": ".errors",
    "SolverError": ".errors",
    "UnknownInstanceError": ".errors",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'equilibria.models' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = sorted(_EXPORTS)
