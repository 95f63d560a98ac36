"""Routes: the ways of turning a game into a program, solving it and answering.

Every route takes a game description (:mod:`equilibria.instances.registry`), uses the
view it needs, builds its problem, solves it through a backend (:mod:`equilibria.solvers`)
and returns an :class:`~equilibria.answer.Answer` carrying a certificate. A new route is
one function plus one :func:`register_route` call::

    register_route("shrink", "ordered", "equilibria.shrink:solve_shrunk",
                   "GameShrink, the shrunk sequence-form LP, lifted and certified")

Routes are imported only when used, so the sequence-form path does not pay for Pyomo.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .answer import Answer
from .models.errors import EquilibriaError
from .models.progress import stage


class RouteError(EquilibriaError):
    """An unknown route, or an option the route does not take."""


@dataclass(frozen=True)
class Route:
    """A registered route: the game view it needs (alternatives joined by ``|``, the
    first the game offers is used), the function (``module:name``) that runs it on that
    view, and a one-line summary."""

    name: str
    view: str
    target: str
    summary: str

    def function(self) -> Callable[..., Answer]:
        """The route's function, imported on first use."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def options(self) -> list[str]:
        """The keyword options the route takes (besides the game)."""
        params = list(inspect.signature(self.function()).parameters)
        return params[1:]


ROUTES: dict[str, Route] = {}


def register_route(name: str, view: str, target: str, summary: str) -> Route:
    """Register a route; returns it. ``target`` is ``"module:function"``; the function
    takes the game's ``view`` as its first argument and options as keywords."""
    route = Route(name, view, target, summary)
    ROUTES[name] = route
    return route


register_route(
    "lp", "extensive", "equilibria.api:solve_game", "the sequence-form LP of the full game (two players, zero-sum)"
)
register_route(
    "shrink",
    "ordered",
    "equilibria.shrink:solve_shrunk",
    "GameShrink, then the shrunk game's LP; strategies lifted to the full game and certified there",
)
register_route(
    "nash",
    "normal|extensive",
    "equilibria.nash:solve_nash",
    "MIP Nash: an equilibrium of a two-player general-sum game by mixed-integer programming",
)
register_route(
    "threshold",
    "signal",
    "equilibria.qualitative:solve_threshold",
    "a threshold program from a qualitative model (signal games)",
)


def solve(game: Any, route: str = "lp", **options: Any) -> Answer:
    """Solve ``game`` by ``route`` and return its certified answer.

    ``game`` is anything :func:`equilibria.instances.registry.describe` resolves (a name
    with parameters, a ``.efg`` path, ``openspiel:GAME``, a game object). ``options`` are the
    route's keywords (``Route.options()``); an option the route does not take, or a view
    the game does not offer, raises an EquilibriaError naming it.
    """
    from .instances.registry import describe

    if route not in ROUTES:
        raise RouteError(f"unknown route '{route}'; routes: {', '.join(ROUTES)}")
    r = ROUTES[route]
    accepted = r.options()
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise RouteError(f"route '{route}' takes no option '{unknown[0]}'; it takes: {', '.join(accepted)}")
    if options.get("backend") is not None:
        from .solvers import get_backend

        get_backend(options["backend"])  # bad input is reported before the game is built
    t0 = time.perf_counter()
    description = describe(game)
    with stage(f"building {description.spec} ({r.view.replace('|', ' or ')} form)"):
        view = description.first_view(r.view, f"the {route} route")
    seconds = time.perf_counter() - t0
    answer = r.function()(view, **options)
    answer.seconds = {"game": seconds, **answer.seconds}
    return answer


__all__ = ["ROUTES", "Route", "RouteError", "register_route", "solve"]
