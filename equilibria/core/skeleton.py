"""The skeleton every route runs on: :func:`solve`.

A route supplies its own steps as a :class:`Steps` subclass with a typed options
dataclass (:mod:`equilibria.core.options`)::

    @dataclass(kw_only=True)
    class SupportOptions(RouteOptions):
        tolerance: float = field(default=1e-9, metadata={"help": "...", "range": "positive"})

    class SupportEnumeration(Steps):
        Options = SupportOptions
        needs = None                                   # no backend
        def build(self, view, options): ...            # the problem
        def solve(self, problem, options, deadline): ...   # an Outcome, or an Answer

    register_route("support", "normal", "mypackage.support:SupportEnumeration", "...")

The skeleton owns everything else, for every route alike: the options checked (names,
types, ranges, then the rules across them), the backend's capability checked before any
work, the game resolved to the view the route needs, one deadline for the whole run
(:mod:`equilibria.core.deadline`), each stage timed and announced as progress, the
strategies certified by exact best responses where the route did not certify them, and
the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..models.errors import NoAnswerError
from ..models.progress import stage
from .deadline import DeadlineExpired, OutOfTime, deadline_for, enforced, grace_for
from .options import RouteError, RouteOptions, checked_options
from .registry import ROUTES, Route, get_route, load_plugins, register_route
from .steps import Outcome, Steps

if TYPE_CHECKING:
    from ..models.best_response import Exploitability
    from .answer import Answer


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
        raise OutOfTime(f"the time limit of {time_limit:g} s was reached {where}")


def check_backend(route: Route, name: Any) -> None:
    """Bad input about the backend, reported before the game is built: an unknown one, or
    one that cannot solve what the route needs (:attr:`Route.needs`)."""
    from ..solvers import AUTO, get_backend

    if route.needs is None:
        return
    if name == AUTO:
        if not route.auto_backend:
            takers = ", ".join(r.name for r in ROUTES.values() if r.auto_backend)
            raise RouteError(f"backend auto (chosen by the LP's size) applies to the routes {takers}, not {route.name}")
        return
    backend = get_backend(name)
    if route.needs == "milp" and not backend.capabilities.milp:
        raise RouteError(f"backend {name} solves no integer programs; the {route.name} route needs one")


def certified(view: Any, outcome: Outcome) -> Outcome:
    """``outcome`` with a certificate by exact best responses (its normal-form
    ``profile``, if any, turned into behaviour strategies on the game's sequence form)."""
    from ..models.sequence import SequenceForm

    if outcome.profile is not None and outcome.behaviors is None:
        sf = SequenceForm(view.to_extensive())
        outcome.sequence_form = sf
        outcome.behaviors = view.behaviors([_as_array(p) for p in outcome.profile], sf)
    if outcome.certificate is None:
        outcome.certificate = _certificate(
            outcome.sequence_form, outcome.behaviors, f"the route stopped ({outcome.status})"
        )
    return outcome


def _certificate(sequence_form: Any, behaviors: Any, stopped: str) -> Exploitability:
    """The exact best responses' certificate of ``behaviors``, or no answer when the route
    ``stopped`` before it had strategies."""
    if sequence_form is None or behaviors is None:
        raise NoAnswerError(f"{stopped} before it had strategies to certify")
    from ..models.best_response import certify

    return certify(sequence_form, behaviors)


def _as_array(values: Any) -> Any:
    import numpy as np

    return np.asarray(values, dtype=np.float64)


def solve(game: Any, route: str = "auto", **options: Any) -> Answer:
    """Solve ``game`` by ``route`` and return its certified answer.

    ``game`` is anything :func:`equilibria.instances.registry.describe` resolves (a name
    with parameters, a ``.efg`` path, ``openspiel:GAME``, a game object). ``options`` are the
    route's keywords (its options dataclass, :meth:`Route.options_class`); an option the
    route does not take, a value of the wrong type or range, an unknown backend or one that
    cannot solve the route's program, or a view the game does not offer raises an
    EquilibriaError naming it, before any work.

    ``route="auto"`` (the default, what ``equilibria solve GAME`` runs) lets
    :func:`equilibria.core.plan.choose` choose the route and the backend from the game; the
    answer's ``plan`` says what was chosen and why.

    ``time_limit`` bounds the whole call (from the command line, the whole command): a step
    still working a grace after it (a fifth of the limit, at most a second) is stopped
    (:mod:`equilibria.core.deadline`), and the run ends with its best certified answer
    where its route holds one, else with :class:`~equilibria.core.deadline.OutOfTime`.
    """
    if route == "auto":
        from .plan import choose, finished

        route, options, reasons = choose(game, options)
        answer = solve(game, route, **options)
        answer.plan = finished(reasons, answer) + list(answer.plan)
        return answer
    r = get_route(route)
    options_class = r.options_class()
    opts = checked_options(route, options_class, options)
    check_backend(r, opts.backend)  # from the registration: before the route's code is imported
    steps = r.steps()
    time_limit = opts.time_limit
    deadline = deadline_for(time_limit)
    description = _description(game)
    if getattr(opts, "lift", False):  # refused before any work when the tree would not fit
        from .plan import LIFT_TOO_LARGE

        description.check_size("extensive", LIFT_TOO_LARGE)
    try:
        # the routes stop at their own time limit between steps; a step that runs on past
        # it (a large model being built) is stopped a grace later
        with enforced(deadline, grace_for(time_limit)):
            return _run_route(r, steps, description, opts, deadline)
    except DeadlineExpired:
        raise OutOfTime(f"the time limit of {time_limit:g} s was reached before the {route} route ended") from None


def _description(game: Any) -> Any:
    """The game's description (:func:`equilibria.instances.registry.describe`)."""
    from ..instances.registry import describe

    return describe(game)


def _run_route(r: Route, steps: Steps, description: Any, opts: RouteOptions, deadline: float | None) -> Answer:
    """The skeleton's steps for one route: build the view, then the route's build, solve,
    certificate and answer, each timed and checked against the deadline."""
    from .answer import Answer

    timings = Timings()
    route, time_limit = r.name, opts.time_limit
    if r.two_player_zero_sum:
        description.check_two_player_zero_sum(f"the {route} route")
    with timings.stage("game", f"building {description.spec} ({r.view.replace('|', ' or ')} form)"):
        view = description.first_view(r.view, f"the {route} route")
    _past(deadline, time_limit, "while the game was built")
    with timings.stage(steps.build_key, steps.build_message or f"building the {route} route's problem"):
        problem = steps.build(view, opts)
    _past(deadline, time_limit, "while the problem was built")
    backend = f" with {_backend_words(opts.backend)}" if r.needs else ""
    with timings.stage("solve", f"solving by the {route} route{backend}"):
        found = steps.solve(problem, opts, deadline)
    if isinstance(found, Answer):
        answer = _certified_answer(found)
        seconds = dict(found.seconds)
    else:
        if found.certificate is None or found.behaviors is None:
            with timings.stage("certify", "certifying by exact best responses"):
                found = certified(view, found)
        answer = steps.answer(route, found, opts)
        seconds = dict(found.seconds)
    if seconds:  # the solve step timed its own stages
        del timings["solve"]
        timings.update(seconds)
    answer.route = route
    answer.game_name = answer.game_name or getattr(view, "title", "") or description.spec
    answer.seconds = dict(timings)
    return answer


def _certified_answer(answer: Answer) -> Answer:
    """A route's own answer, certified by exact best responses where it was not."""
    if answer.certificate is None:
        with stage("certifying by exact best responses"):
            stopped = f"the {answer.route} route stopped ({answer.status})"
            answer.certificate = _certificate(answer.sequence_form, answer.behaviors, stopped)
    return answer


__all__ = [
    "ROUTES",
    "Outcome",
    "Route",
    "RouteError",
    "RouteOptions",
    "Steps",
    "Timings",
    "certified",
    "check_backend",
    "get_route",
    "load_plugins",
    "register_route",
    "solve",
]
