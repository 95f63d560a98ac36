"""equilibria: equilibria of games of imperfect information by mathematical programming.

>>> import equilibria
>>> sol = equilibria.solve("kuhn")
>>> round(sol.value, 6), sol.exploitability < 1e-9
(-0.055556, True)

``equilibria.solve(game)`` lets the planner choose the route, as ``equilibria solve GAME``
does; ``equilibria.solve(game, "lp")`` names one. The names below are imported on first
use, so that ``import equilibria`` (and the command line's start) costs almost nothing and
Pyomo is loaded only by the routes that need it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

#: public name -> module (relative to this package) that defines it
_EXPORTS = {
    "Answer": ".core.answer",
    "GameSolution": ".routes.lp",
    "solve_game": ".routes.lp",
    "describe": ".instances",
    "load": ".instances",
    "EquilibriaError": ".models.errors",
    "ExtensiveGame": ".models.efg",
    "GameBuilder": ".models.efg",
    "certify": ".models.best_response",
    "certify_files": ".core.certified",
    "read_efg": ".models.efg_io",
    "write_efg": ".models.efg_io",
    "SequenceForm": ".models.sequence",
    "ROUTES": ".core.registry",
    "register_route": ".core.registry",
    "RouteOptions": ".core.options",
    "Steps": ".core.steps",
    "Outcome": ".core.steps",
    "solve": ".core.skeleton",
    "solve_threshold": ".routes.threshold.route",
    "solve_pyomo": ".solvers:solve_model",  # one way to solve a Pyomo model, two names
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module, _, attribute = _EXPORTS[name].partition(":")
        value = getattr(import_module(module, __name__), attribute or name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'equilibria' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = sorted(_EXPORTS)
