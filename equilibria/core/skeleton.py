"""Routes: the ways of turning a game into a program, solving it and answering.

Every route runs through one skeleton, :func:`solve`: check the options (names, types,
ranges) and the backend, resolve the game to the view the route needs, build, solve, read
the strategies back, certify them by exact best responses and answer, each stage timed and
announced as progress (:func:`equilibria.models.progress.stage`). A route supplies only its
own steps, as a :class:`Steps` subclass::

    @dataclass(kw_only=True)
    class Options(RouteOptions):
        tolerance: float = field(default=1e-9, metadata={"help": "..."})

    class SupportEnumeration(Steps):
        Options = Options
        def build(self, view, options): ...          # the problem
        def solve(self, problem, options, deadline): ...   # an Outcome

    register_route("support", "normal", "mypackage.support:SupportEnumeration", "...")

and gets from the skeleton the Python call ``equilibria.solve(game, "support", ...)``, an
``equilibria support GAME`` command whose flags come from its options (with ``--json``,
``--time-limit``, ``--strategy-out``, progress), the certificate and ``sweep --route``.
A route may instead be one function (``module:function``, taking the view and keywords)
that does its own steps; the skeleton still checks its options and backend, resolves its
view, times it and certifies what it did not. Routes in other packages register through
the ``equilibria.routes`` entry-point group (:func:`load_plugins`).

Routes are imported only when used, so parsing a command line pays for no numerical code.
"""

from __future__ import annotations

import importlib
import inspect
import numbers
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from ..models import checks
from ..models.errors import EquilibriaError, NoAnswerError
from ..models.progress import stage
from .deadline import DeadlineExpired, OutOfTime, enforced

if TYPE_CHECKING:
    from ..models.best_response import Exploitability
    from ..models.sequence import SequenceForm
    from .answer import Answer


class RouteError(EquilibriaError):
    """An unknown route, an option the route does not take, or a value it cannot take."""


# --------------------------------------------------------------------------- steps


@dataclass(kw_only=True)
class RouteOptions:
    """The options every route made of :class:`Steps` takes; a route extends this
    dataclass with its own (each field's ``metadata["help"]`` is its command-line help)."""

    backend: str = field(default="highs", metadata={"help": "the solver backend (see 'equilibria backends')"})
    time_limit: float | None = field(
        default=None, metadata={"help": "seconds for the whole run (build, solve, certificate)"}
    )


@dataclass
class Outcome:
    """What a route's solve step found: how the run ended and the strategies it holds.

    Strategies come either as ``behaviors`` on ``sequence_form`` or, for a normal-form
    view, as one mixed strategy per player in ``profile`` (the skeleton turns those into
    behaviour strategies of the game's extensive form). A route that certified already
    (an anytime solve keeps its best certified strategies) sets ``certificate``.
    """

    status: str
    backend: str | None  # None when no solver ran (a first-order method)
    method: str | None = None
    behaviors: list | None = None
    sequence_form: SequenceForm | None = None
    profile: list | None = None
    value: float | None = None
    certificate: Exploitability | None = None
    sizes: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    #: the solve step's own stages (an LP's build, transfer, solve, certificate), reported
    #: in its place when given
    seconds: dict = field(default_factory=dict)


class Steps:
    """A route's own steps. Subclasses set :attr:`Options` and override :meth:`build` and
    :meth:`solve`; :meth:`answer` builds the :class:`~equilibria.core.answer.Answer` (override
    it for an Answer subclass of the route's own)."""

    Options: type[RouteOptions] = RouteOptions
    #: What the backend must solve: ``"lp"``, ``"milp"``, or None when the route uses none.
    needs: str | None = "lp"
    #: True for a route of two-player zero-sum games only: a game known to be another
    #: kind before it is built (an OpenSpiel game's type says) is refused at once.
    two_player_zero_sum = False
    #: The build step's name in the answer's seconds, and its progress message.
    build_key = "build"
    build_message = ""

    def build(self, view: Any, options: Any) -> Any:
        """The problem to solve (by default the view itself)."""
        return view

    def solve(self, problem: Any, options: Any, deadline: float | None) -> Outcome:
        """Solve ``problem``, stopping by ``deadline`` (a ``time.perf_counter()`` value)."""
        raise NotImplementedError

    def answer(self, name: str, outcome: Outcome, options: Any) -> Answer:
        """The route's answer from its certified outcome."""
        from .answer import Answer

        return Answer(**_answer_fields(name, outcome))


def _answer_fields(name: str, outcome: Outcome) -> dict[str, Any]:
    """The fields every :class:`~equilibria.core.answer.Answer` takes, from an outcome."""
    cert = outcome.certificate
    zero_sum = True
    value = outcome.value
    if cert is not None and len(cert.payoffs) != 2:
        zero_sum = False
    elif outcome.sequence_form is not None:
        from ..models.constant_sum import is_zero_sum

        zero_sum = is_zero_sum(outcome.sequence_form.terminal_payoffs)
    if value is None and cert is not None:
        value = float(cert.payoffs[0])
    return dict(
        route=name,
        game_name="",
        status=outcome.status,
        backend=outcome.backend,
        method=outcome.method,
        value=value,
        certificate=cert,
        sequence_form=outcome.sequence_form,
        behaviors=outcome.behaviors,
        sizes=dict(outcome.sizes),
        zero_sum=zero_sum,
    )


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Route:
    """A registered route: the game view it needs (alternatives joined by ``|``, the
    first the game offers is used), its implementation (``module:name``: a :class:`Steps`
    subclass or a function taking the view and keyword options), a one-line summary, and
    the command line's own command for it where it has one (else ``equilibria NAME``).
    ``auto_backend`` routes solve an LP and take ``backend="auto"``: the backend is then
    chosen by the LP's size (:func:`equilibria.solvers.choose_backend`)."""

    name: str
    view: str
    target: str
    summary: str
    command: str | None = None
    auto_backend: bool = False

    def implementation(self) -> Any:
        """The Steps subclass or function, imported on first use."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    def _steps_class(self) -> type[Steps] | None:
        impl = self.implementation()
        return impl if isinstance(impl, type) and issubclass(impl, Steps) else None

    def steps(self) -> Steps | None:
        """An instance of the route's steps, or None for a function route."""
        cls = self._steps_class()
        return None if cls is None else cls()

    def function(self) -> Callable[..., Answer]:
        """A function route's function."""
        return self.implementation()

    def signature(self) -> dict[str, inspect.Parameter]:
        """The route's options (besides the game) as inspect.Parameter objects, by name:
        the fields of a Steps route's Options, a function route's keyword parameters."""
        cls = self._steps_class()
        if cls is not None:
            return dict(inspect.signature(cls.Options).parameters)
        return dict(list(inspect.signature(self.implementation()).parameters.items())[1:])

    def options(self) -> list[str]:
        """The names of the route's options."""
        return list(self.signature())

    def help(self) -> dict[str, str]:
        """Each option's help text (Steps routes: the Options field's ``metadata``)."""
        cls = self._steps_class()
        return {} if cls is None else {f.name: f.metadata.get("help", "") for f in fields(cls.Options)}


ROUTES: dict[str, Route] = {}


def register_route(
    name: str, view: str, target: str, summary: str, command: str | None = None, auto_backend: bool = False
) -> Route:
    """Register a route; returns it. ``target`` is ``"module:name"``: a :class:`Steps`
    subclass, or a function that takes the game's ``view`` as its first argument and
    options as keywords. ``command`` names the command line's own command for the route;
    without one, ``equilibria NAME`` is made from the route's options."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise RouteError(f"a route's name is lower-case letters, digits, - and _, not {name!r}")
    route = Route(name, view, target, summary, command, auto_backend)
    ROUTES[name] = route
    return route


def load_plugins() -> None:
    """Register the routes other installed packages declare in the ``equilibria.core.skeleton``
    entry-point group (each entry point is a function that calls :func:`register_route`)."""
    from importlib.metadata import entry_points

    for entry in entry_points(group="equilibria.routes"):
        try:
            entry.load()()
        except Exception as exc:  # a broken plugin is named, not a traceback
            raise RouteError(f"the route plugin '{entry.name}' ({entry.value}) failed to load: {exc}") from None


register_route(
    "lp",
    "extensive",
    "equilibria.routes.lp:SequenceFormLP",
    "the sequence-form LP of the full game (two players, zero-sum)",
    command="solve",
    auto_backend=True,
)
register_route(
    "shrink",
    "ordered",
    "equilibria.routes.shrink:solve_shrunk",
    "GameShrink, then the shrunk game's LP; strategies lifted to the full game and certified there",
    command="solve --shrink",
    auto_backend=True,
)
register_route(
    "nash",
    "normal|extensive",
    "equilibria.routes.nash.route:solve_nash",
    "MIP Nash: an equilibrium of a two-player general-sum game by mixed-integer programming",
    command="nash",
)
register_route(
    "threshold",
    "signal",
    "equilibria.routes.threshold.route:solve_threshold",
    "a threshold program from a qualitative model (signal games)",
    command="threshold",
)


# --------------------------------------------------------------------------- option values


#: Options whose values have a range, checked before any work (for every route, from
#: Python, the command line and a sweep's grid alike).
OPTION_RANGES = {
    "time_limit": ("positive", 0.0),
    "epsilon": ("positive", 0.0),
    "target_exploitability": ("positive", 0.0),
    "threshold": ("nonnegative", 0.0),
    "min_width": ("nonnegative", 0.0),
    "breakpoints": ("count", 2),
    "cells": ("count", 1),
    "rounds": ("count", 1),
    "iterations": ("count", 1),
}


def _kinds(parameter: inspect.Parameter) -> set[str]:
    annotation = parameter.annotation
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    return set(re.findall(r"[A-Za-z_]+", text))


def option_kind(parameter: inspect.Parameter) -> str:
    """``bool``, ``int``, ``float`` or ``str``: what an option's text is read as, by its
    annotation or default."""
    kinds, default = _kinds(parameter), parameter.default
    if "bool" in kinds or isinstance(default, bool):
        return "bool"
    if "str" in kinds:
        return "str"
    if "float" in kinds or isinstance(default, float):
        return "float"
    if "int" in kinds or isinstance(default, int):
        return "int"
    return "str"


def option_choices(parameter: inspect.Parameter) -> tuple[str, ...] | None:
    """The values a ``Literal["a", "b"]`` annotation allows, or None."""
    annotation = parameter.annotation if isinstance(parameter.annotation, str) else str(parameter.annotation)
    found = re.search(r"Literal\[([^\]]*)\]", annotation)
    return tuple(re.findall(r"['\"]([^'\"]*)['\"]", found.group(1))) if found else None


def option_from_text(route: str, name: str, parameter: inspect.Parameter, text: str) -> Any:
    """Text (a command-line flag, a sweep grid) read as the option's kind."""
    value = text.strip()
    if "None" in _kinds(parameter) and value.lower() == "none":
        return None
    kind = option_kind(parameter)
    if kind == "bool":
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise RouteError(f"option {name} of route '{route}' is true or false, not '{text}'")
    if kind == "int":
        if not re.fullmatch(r"[+-]?\d+", value):
            raise RouteError(f"option {name} of route '{route}' is a whole number, not '{text}'")
        return int(value)
    if kind == "float":
        number = checks.finite_from_text(value)
        if number is None:
            raise RouteError(f"option {name} of route '{route}' is a finite number, not '{text}'")
        return number
    return value


def check_option(route: str, name: str, parameter: inspect.Parameter, value: Any) -> Any:
    """``value`` when the option takes it (kind, choices, :data:`OPTION_RANGES`), else
    RouteError naming the route and option."""
    if value is None:
        return None
    choices = option_choices(parameter)
    if choices and isinstance(value, str) and value in choices:
        return value  # a word the annotation names beside its type (bool | Literal["auto"])
    kind = option_kind(parameter)
    wrong = {
        "bool": not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1),
        "int": isinstance(value, bool) or not isinstance(value, numbers.Integral),
        "float": isinstance(value, bool) or not isinstance(value, numbers.Real),
        "str": False,  # str-annotated options may take objects too (a model, a game)
    }[kind]
    if wrong:
        raise checks.OptionError(f"option {name} of route '{route}' takes a {_KIND_WORDS[kind]}, not {value!r}")
    if choices and kind == "str" and value not in choices:
        raise RouteError(f"option {name} of route '{route}' is one of {', '.join(choices)}, not {value!r}")
    if name in OPTION_RANGES:
        bound_kind, bound = OPTION_RANGES[name]
        try:
            if bound_kind == "count":
                checks.count(name, value, minimum=int(bound))
            else:
                checks.number(name, value, minimum=float(bound), strict=bound_kind == "positive", optional=False)
        except checks.OptionError as exc:
            raise checks.OptionError(f"route '{route}': {exc}") from None
    return value


_KIND_WORDS = {"bool": "true or false", "int": "whole number", "float": "number", "str": "text"}


def _route(name: str) -> Route:
    if not isinstance(name, str) or name not in ROUTES:
        raise RouteError(f"unknown route '{name}'; routes: {', '.join(ROUTES)}")
    return ROUTES[name]


def _checked_options(r: Route, options: dict[str, Any]) -> dict[str, Any]:
    """The options, each checked against the route's signature (unknown names first)."""
    signature = r.signature()
    unknown = [k for k in options if k not in signature]
    if unknown:
        raise RouteError(f"route '{r.name}' takes no option '{unknown[0]}'; it takes: {', '.join(signature)}")
    return {k: check_option(r.name, k, signature[k], v) for k, v in options.items()}


def _check_backend(name: Any, needs: str | None, route: Route) -> None:
    """Bad input about the backend is reported before the game is built."""
    from ..solvers import AUTO, get_backend

    if name == AUTO:
        if not route.auto_backend:
            takers = ", ".join(r.name for r in ROUTES.values() if r.auto_backend)
            raise RouteError(f"backend auto (chosen by the LP's size) applies to the routes {takers}, not {route.name}")
        return
    backend = get_backend(name)
    if needs == "milp" and not backend.capabilities.milp:
        raise RouteError(f"backend {name} solves no integer programs; this route needs one")


# --------------------------------------------------------------------------- the skeleton


class Timings(dict):
    """Seconds per stage, recorded by the stages themselves."""

    @contextmanager
    def stage(self, key: str, message: str) -> Iterator[None]:
        """Announce ``message`` as progress while the block runs; add its seconds to ``key``."""
        t0 = time.perf_counter()
        try:
            with stage(message):
                yield
        finally:
            self[key] = self.get(key, 0.0) + time.perf_counter() - t0


def _backend_words(backend: str) -> str:
    return "the backend the LP's size chooses" if backend == "auto" else backend


def _past(deadline: float | None, time_limit: float | None, where: str) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise NoAnswerError(f"the time limit of {time_limit:g} s was reached {where}")


def certified(view: Any, outcome: Outcome) -> Outcome:
    """``outcome`` with a certificate by exact best responses (its normal-form
    ``profile``, if any, turned into behaviour strategies on the game's sequence form)."""
    from ..models.best_response import certify
    from ..models.sequence import SequenceForm

    if outcome.profile is not None and outcome.behaviors is None:
        sf = SequenceForm(view.to_extensive())
        outcome.sequence_form = sf
        outcome.behaviors = view.behaviors([_as_array(p) for p in outcome.profile], sf)
    if outcome.certificate is None:
        if outcome.sequence_form is None or outcome.behaviors is None:
            raise RouteError(f"the route stopped ({outcome.status}) before it had strategies to certify")
        outcome.certificate = certify(outcome.sequence_form, outcome.behaviors)
    return outcome


def _as_array(values: Any) -> Any:
    import numpy as np

    return np.asarray(values, dtype=np.float64)


def solve(game: Any, route: str = "lp", **options: Any) -> Answer:
    """Solve ``game`` by ``route`` and return its certified answer.

    ``game`` is anything :func:`equilibria.instances.registry.describe` resolves (a name
    with parameters, a ``.efg`` path, ``openspiel:GAME``, a game object). ``options`` are the
    route's keywords (``ROUTES[route].options()``); an option the route does not take, a
    value of the wrong kind or range, an unknown backend, or a view the game does not offer
    raises an EquilibriaError naming it, before any work.

    ``route="auto"`` takes the ``lp`` route's options and lets :func:`equilibria.core.plan.choose`
    choose the route (lossless GameShrink for games with ordered signals) and the backend;
    the answer's ``plan`` says what was chosen and why.

    ``time_limit`` bounds the whole call: a step still working a grace after it (a quarter
    of the limit, at most a second) is stopped (:mod:`equilibria.core.deadline`), and the run
    ends with its best certified answer where its route holds one, else with
    :class:`~equilibria.core.deadline.OutOfTime`.
    """
    if route == "auto":
        from .plan import choose, finished

        route, options, reasons = choose(game, options)
        answer = solve(game, route, **options)
        answer.plan = finished(reasons, answer) + list(answer.plan)
        return answer
    r = _route(route)
    options = _checked_options(r, options)
    steps = r.steps()
    if steps is not None:
        options = {**vars(steps.Options()), **options}
    if options.get("backend") is not None and (steps is None or steps.needs is not None):
        _check_backend(options["backend"], None if steps is None else steps.needs, r)
    time_limit = options.get("time_limit")
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    # the routes stop at their own time limit between steps; a step that runs on past it
    # (a large model being built) is stopped a grace later
    grace = None if time_limit is None else min(1.0, 0.25 * time_limit)
    try:
        with enforced(deadline, grace or 0.0):
            return _run_route(r, steps, _description(game), route, options, deadline, time_limit)
    except DeadlineExpired:
        raise OutOfTime(f"the time limit of {time_limit:g} s was reached before the {route} route ended") from None


def _description(game: Any) -> Any:
    """The game's description (:func:`equilibria.instances.registry.describe`)."""
    from ..instances.registry import describe

    return describe(game)


def _run_route(
    r: Route,
    steps: Steps | None,
    description: Any,
    route: str,
    options: dict[str, Any],
    deadline: float | None,
    time_limit: float | None,
) -> Answer:
    """The skeleton's steps for one route: build the view, then the route's build, solve,
    certificate and answer, each timed and checked against the deadline."""
    timings = Timings()
    if steps is not None and steps.two_player_zero_sum:
        description.check_two_player_zero_sum(f"the {route} route")
    with timings.stage("game", f"building {description.spec} ({r.view.replace('|', ' or ')} form)"):
        view = description.first_view(r.view, f"the {route} route")
    if steps is None:
        answer = r.function()(view, **options)
        answer.seconds = {"game": timings["game"], **answer.seconds}
        return answer
    opts = steps.Options(**options)
    _past(deadline, time_limit, "while the game was built")
    with timings.stage(steps.build_key, steps.build_message or f"building the {route} route's problem"):
        problem = steps.build(view, opts)
    _past(deadline, time_limit, "while the problem was built")
    with timings.stage("solve", f"solving by the {route} route with {_backend_words(opts.backend)}"):
        outcome = steps.solve(problem, opts, deadline)
    if outcome.seconds:  # the solve step timed its own stages
        del timings["solve"]
        timings.update(outcome.seconds)
    if outcome.certificate is None or outcome.behaviors is None:
        with timings.stage("certify", "certifying by exact best responses"):
            outcome = certified(view, outcome)
    answer = steps.answer(r.name, outcome, opts)
    answer.game_name = answer.game_name or getattr(view, "title", "") or description.spec
    answer.seconds = dict(timings)
    return answer


__all__ = [
    "OPTION_RANGES",
    "ROUTES",
    "Outcome",
    "Route",
    "RouteError",
    "RouteOptions",
    "Steps",
    "Timings",
    "certified",
    "check_option",
    "load_plugins",
    "option_choices",
    "option_from_text",
    "option_kind",
    "register_route",
    "solve",
]
