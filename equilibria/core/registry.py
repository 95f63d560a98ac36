"""The registry of routes: what each route needs and where its code and options live.

A registration is data: the route's name, the game view it needs, its steps
(``"module:Class"``), its options (``"module:Class"``, by default the steps class's
``Options``), a summary, and the command line's own command for it where it has one. The
command line lists routes and builds a route's flags from it without importing the route's
code; the route's module is imported when the route runs.

Routes of other packages register through the ``equilibria.routes`` entry-point group
(each entry point a function that calls :func:`register_route`); they are loaded wherever a
route is looked up (:func:`get_route`, :func:`routes`): from Python, the command line, and
a sweep's worker processes, whose cells also carry their route's registration.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import asdict, dataclass
from typing import Any

from .options import RouteError, RouteOptions
from .steps import Steps


@dataclass(frozen=True)
class Route:
    """A registered route.

    ``view``: the game view it needs (alternatives joined by ``|``; the first the game
    offers is used). ``target``: its :class:`~equilibria.core.skeleton.Steps` subclass as
    ``module:Class``. ``options``: its :class:`~equilibria.core.options.RouteOptions`
    subclass as ``module:Class`` (None: the steps class's ``Options``; name a light module
    so that the command line builds its flags without importing the route). ``command``:
    the command line's own command for it (None: ``equilibria NAME``, made from its
    options). ``needs``: what its backend must solve (``lp``, ``milp``, ``minlp`` or None
    when it uses none), checked before any work. ``auto_backend``: it takes
    ``backend="auto"`` (an LP route whose backend is chosen by the LP's size).
    """

    name: str
    view: str
    target: str
    summary: str
    command: str | None = None
    options: str | None = None
    needs: str | None = "lp"
    auto_backend: bool = False
    two_player_zero_sum: bool = False
    columns: tuple[str, ...] = ()

    def steps_class(self) -> type[Steps]:
        """The route's steps class, imported on first use."""
        found = _imported(self.target, f"route '{self.name}'")
        if not (isinstance(found, type) and issubclass(found, Steps)):
            raise RouteError(f"route '{self.name}': {self.target} is no Steps subclass")
        return found

    def steps(self) -> Steps:
        """An instance of the route's steps."""
        return self.steps_class()()

    def options_class(self) -> type[RouteOptions]:
        """The route's options dataclass: from ``options`` when it is given (the route's
        code is not imported), else the steps class's ``Options``."""
        if self.options is None:
            return self.steps_class().Options
        found = _imported(self.options, f"route '{self.name}'")
        if not (isinstance(found, type) and issubclass(found, RouteOptions)):
            raise RouteError(f"route '{self.name}': {self.options} is no RouteOptions subclass")
        return found

    def option_names(self) -> list[str]:
        """The names of the route's options."""
        from .options import option_specs

        return list(option_specs(self.options_class()))

    def registration(self) -> dict[str, Any]:
        """The registration as plain data (what a sweep cell carries to its worker)."""
        return asdict(self)


def _imported(target: str, what: str) -> Any:
    module, _, name = target.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise RouteError(f"{what}: cannot import {target} ({exc})") from None


ROUTES: dict[str, Route] = {}

_plugins_loaded = False


def register_route(
    name: str,
    view: str,
    target: str,
    summary: str,
    command: str | None = None,
    *,
    options: str | None = None,
    needs: str | None = "lp",
    auto_backend: bool = False,
    two_player_zero_sum: bool = False,
    columns: tuple[str, ...] = (),
) -> Route:
    """Register a route (see :class:`Route` for the fields); returns it."""
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise RouteError(f"a route's name is lower-case letters, digits, - and _, not {name!r}")
    if ":" not in target:
        raise RouteError(f"route '{name}': its target is 'module:Class', not {target!r}")
    route = Route(
        name, view, target, summary, command, options, needs, auto_backend, two_player_zero_sum, tuple(columns)
    )
    ROUTES[name] = route
    return route


def load_plugins() -> None:
    """Register the routes installed packages declare in the ``equilibria.routes``
    entry-point group, once per process."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for entry in entry_points(group="equilibria.routes"):
        try:
            entry.load()()
        except Exception as exc:  # a broken plugin is named, not a traceback
            raise RouteError(f"the route plugin '{entry.name}' ({entry.value}) failed to load: {exc}") from None


def routes() -> dict[str, Route]:
    """Every registered route, plugins included."""
    load_plugins()
    return ROUTES


def get_route(name: Any, registration: dict[str, Any] | None = None) -> Route:
    """The route named ``name`` (plugins loaded first; a ``registration`` carried from
    another process registers it where this one has not)."""
    if isinstance(name, str) and name not in ROUTES:
        load_plugins()
        if name not in ROUTES and registration is not None:
            register_route(**registration)  # a sweep cell's registration, carried to its worker
    if not isinstance(name, str) or name not in ROUTES:
        raise RouteError(f"unknown route '{name}'; routes: {', '.join(ROUTES)}")
    return ROUTES[name]


#: What an answer with approximate products of three or more players adds: the promised
#: NashConv bound (a priori) and the bound proven at the answer beside the certified one,
#: the breakpoints and products used, and the rounds run.
APPROXIMATE_PRODUCTS = (
    "promised_epsilon",
    "bound_at_answer",
    "certified_epsilon",
    "breakpoints",
    "num_products",
    "rounds_run",
)

register_route(
    "lp",
    "extensive",
    "equilibria.routes.lp:SequenceFormLP",
    "the sequence-form LP of the full game (two players, zero-sum)",
    command="solve --no-shrink",
    options="equilibria.routes.options:LPOptions",
    auto_backend=True,
    two_player_zero_sum=True,
)
register_route(
    "shrink",
    "ordered",
    "equilibria.routes.shrink:GameShrinkLP",
    "GameShrink, then the shrunk game's LP; strategies certified in the full game",
    command="solve --shrink",
    options="equilibria.routes.options:ShrinkOptions",
    auto_backend=True,
)
register_route(
    "nash",
    "normal|extensive",
    "equilibria.routes.nash.route:MipNash",
    "MIP Nash: an equilibrium of a general-sum or n-player game by mixed-integer programming",
    command="nash",
    options="equilibria.routes.options:NashOptions",
    needs="milp",
    columns=APPROXIMATE_PRODUCTS,
)
register_route(
    "lcp",
    "extensive",
    "equilibria.routes.lcp:LemkeLCP",
    "Lemke's method on the sequence form's LCP: an equilibrium of a two-player game, general-sum or not",
    options="equilibria.routes.options:LCPOptions",
    needs=None,
)
register_route(
    "double-oracle",
    "extensive",
    "equilibria.routes.double_oracle:DoubleOracle",
    "restricted sequence-form LPs grown by exact best responses until their bounds meet (two players, zero-sum)",
    options="equilibria.routes.options:DoubleOracleOptions",
    two_player_zero_sum=True,
)
register_route(
    "threshold",
    "signal",
    "equilibria.routes.threshold.route:ThresholdPrograms",
    "a threshold program from a qualitative model (signal games)",
    command="threshold",
    options="equilibria.routes.options:ThresholdOptions",
    needs="milp",
    columns=APPROXIMATE_PRODUCTS,
)

__all__ = ["ROUTES", "Route", "get_route", "load_plugins", "register_route", "routes"]
