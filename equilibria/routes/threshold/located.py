"""Rounds of the located threshold program (finite signals, three or more players) until
the exact certificate meets epsilon: an anytime route.

Round 0 is a seed: CFR+ on the finite game (:func:`~equilibria.core.anytime.seed_profile`, a
short share of the time) gives a profile, and
:func:`~equilibria.models.parametric.fit_thresholds` reads where the model's thresholds lie
in it. CFR+ may converge to another equilibrium than the model describes, so the guess only
narrows the search: round 1 searches the locations of the thresholds
(:func:`~equilibria.formulations.threshold_located.located_program`) within one signal of
the guess, and a window holding no equilibrium of the model doubles until it covers every
location. Each answer is certified by exact best responses. While the certified NashConv
exceeds epsilon, the next rounds keep the thresholds where they are (inside which signal,
or at which end) and shrink a box around each fraction's incumbent value by four: the
products' breakpoints span the box, so they concentrate where the answer lies and each
product's error falls about sixteen-fold a round. A box that holds no solution is widened
to the whole fraction range. When even that fails, no equilibrium that follows the model
has those locations (the program admits every exact equilibrium whatever its grid), so
they are cut off and the search starts again on a grid with twice the segments (the one
that admitted them was too coarse). Every round's certified value goes into the answer's
``curve``.

Measured on three-player Kuhn poker (HiGHS, log products, nine breakpoints): the search
over every location takes about 25 s, the search near the seed 5-8 s. With SOS2 products
SCIP finds no location in a minute, while the same program with log binaries takes
seconds; so searches write sos2 products with log binaries, and the zoomed rounds, whose
program gives the answer, use the SOS2 sets asked for.

With ``breakpoints`` alone (no epsilon) the route solves one program on that grid over
every location, without a seed, as a sweep over breakpoints wants. The limits
(``time_limit``, ``rounds``) bound seed, builds, solves and certificates together.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyomo.environ as pyo

from ...core.anytime import (
    SEED_SECONDS,
    SEED_SHARE,
    SEED_TARGET,
    Anytime,
    Round,
    TimeLimitReached,
    first_box,
    seed_profile,
)
from ...formulations.products import model_size
from ...formulations.threshold_located import (
    FIRST_ROUND_BREAKPOINTS,
    LocatedProducts,
    Location,
    located_program,
    read_locations,
)
from ...formulations.threshold_milfp import DEFAULT_EPSILON, ThresholdProgram
from ...models.bayesian import BayesianGame, FiniteSignalGame
from ...models.best_response import certify
from ...models.efg import ExtensiveGame
from ...models.errors import SolveFailed
from ...models.parametric import ModelInfeasible, ParametricModel, fit_thresholds, project
from ...models.progress import stage
from ...models.sequence import SequenceForm
from ...solvers import Solution, Status, get_backend

#: Rounds allowed when none is given.
DEFAULT_ROUNDS = 40

#: The finest grid a search round is given after locations holding no equilibrium were
#: cut off (each cut doubles the segments: a grid coarse enough to admit them is too coarse).
MAX_SEARCH_BREAKPOINTS = 33

#: Half-width of the first zoomed box around each fraction.
FIRST_BOX = 0.25

#: How far (in signals) the first search looks from where the seed puts each threshold; it
#: doubles while nothing is found there, then the search covers every location.
SEED_WINDOW = 1.0

#: Share of epsilon left to the rows' fixed allowance; the rest is the products' error.
TAU_SHARE = 0.25

#: Allowance of every row of an exact (bilinear) program: a global solver's tolerance.
EXACT_TAU = 1e-7

#: Why the rounds stopped above epsilon, in words, and what to try.
_STOPPED = {
    Status.TIME_LIMIT: (" within the time limit", "give more time or a larger --epsilon"),
    Status.ITERATION_LIMIT: (" (the most --rounds allows)", "allow more --rounds or a larger --epsilon"),
    Status.STALLED: (
        ", every other location of the thresholds holding no equilibrium of the model",
        "give a larger --epsilon or another model",
    ),
}


@dataclass
class LocatedOutcome:
    """The best answer of the rounds: thresholds per player, the program that gave them,
    and every round."""

    thresholds: tuple[list[float], ...]
    program: ThresholdProgram
    rounds: list[Round] = field(default_factory=list)
    bound: float | None = None
    #: why the rounds stopped: ``optimal`` (epsilon met), or ``time_limit``,
    #: ``iteration_limit`` (the most rounds), ``stalled`` (no other location to try) with
    #: the best certified answer above epsilon
    status: Status = Status.OPTIMAL
    #: what was reached, in words, when epsilon was not
    reason: str = ""


def locations_at(positions: dict[str, float], snap: float = 1e-6) -> tuple[dict[str, Location], dict[str, float]]:
    """Where thresholds at ``positions`` (signal units from the lowest signal's start, as
    :func:`~equilibria.models.parametric.fit_thresholds` gives them) lie, and the fraction
    of the signal each one splits: within ``snap`` of a signal's end, at that end."""
    locations: dict[str, Location] = {}
    fractions: dict[str, float] = {}
    for key, position in positions.items():
        end = round(position)
        if abs(position - end) <= snap:
            locations[key], fractions[key] = ("end", int(end)), 0.0
        else:
            whole = math.floor(position)
            locations[key], fractions[key] = ("inside", whole + 1), position - whole
    return locations, fractions


def _signals(reach: float | None) -> str:
    return f"{reach:g} signal{'' if reach == 1 else 's'}"


def _thresholds(m: pyo.ConcreteModel, model: ParametricModel, n: int) -> tuple[list[float], ...]:
    names = model.threshold_names
    return tuple([float(pyo.value(m.t[k])) for k in names if model.threshold_owner(k)[0] == p] for p in range(n))


@dataclass(frozen=True)
class _Call:
    """What every round of one call shares: the game and model, what each program is made
    of, the limits, and the finite game its answers are certified in."""

    game: BayesianGame
    model: ParametricModel
    backend: str
    representation: str
    epsilon: float | None
    #: the certified NashConv to reach; None: one round on the grid given
    target: float | None
    select: str
    min_width: float
    mccormick: bool
    deadline: float | None
    verbose: bool
    method: str | None
    finite: FiniteSignalGame
    extensive: ExtensiveGame
    sequence_form: SequenceForm

    @property
    def exact(self) -> bool:
        """True when the products are exact (bilinear): a global solver's answer ends the rounds."""
        return self.representation == "exact"

    @property
    def signals(self) -> int:
        """The number of signals each player may get."""
        return len(self.game.breakpoints) - 1

    @property
    def tau_total(self) -> float:
        """The NashConv the rows' fixed allowance takes in all: a share of epsilon, or a
        global solver's tolerance per row with exact products or without epsilon."""
        if self.exact or self.target is None:
            return EXACT_TAU * self.game.num_players * self.signals
        return TAU_SHARE * self.target

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def certified(self, thresholds: tuple[list[float], ...]) -> float:
        """The exact NashConv of the model's profile at ``thresholds`` in the finite game."""
        strategies = project(self.game, self.model, thresholds, self.finite)
        behaviors = self.finite.behavior_from_plans(strategies, self.extensive, self.sequence_form)
        return float(certify(self.sequence_form, behaviors).nash_conv)


@dataclass(frozen=True)
class _Seed:
    """Round 0: where CFR+'s profile puts each threshold (signal units; empty when the model
    has none), that profile's NashConv and the NashConv of the thresholds fitted to it."""

    guess: dict[str, float]
    nash_conv: float
    fitted: float


@dataclass(frozen=True)
class _Best:
    """The best certified answer of a program written as asked."""

    nash_conv: float
    thresholds: tuple[list[float], ...]
    program: ThresholdProgram
    bound: float


@dataclass
class _State:
    """Where the rounds stand: the seed's guess and how far around it a search looks (None:
    everywhere), each phase's breakpoints per square, the locations being refined (None:
    search them) with their fractions and the box around them (None: the whole range),
    whether those are the seed's own, the locations cut off, and the run (which holds the
    best answer)."""

    guess: dict[str, float]
    reach: float | None
    search_k: int
    zoom_k: int
    locations: dict[str, Location] | None = None
    fractions: dict[str, float] = field(default_factory=dict)
    half_width: float | None = None
    seeded: bool = False
    excluded: list[dict[str, Location]] = field(default_factory=list)
    run: Anytime[_Best] = field(default_factory=Anytime)

    @classmethod
    def start(cls, seed: _Seed | None, breakpoints: int, run: Anytime[_Best]) -> _State:
        """The state before round 1: with a seed, its window, and its own locations to refine."""
        state = cls(guess={}, reach=None, search_k=breakpoints, zoom_k=breakpoints, run=run)
        if seed is None:
            return state
        state.guess, state.reach = seed.guess, SEED_WINDOW
        # the first program refines the seed's own locations; only when they hold no
        # equilibrium does a search start
        if seed.guess:
            state.seeded = True
            state.locations, state.fractions = locations_at(seed.guess)
            state.half_width = min(FIRST_BOX, first_box(seed.fitted))
        return state


@dataclass(frozen=True)
class _Plan:
    """What one round writes: its phase (search or zoom), breakpoints per square and
    products, and the window around the seed or the box around each fraction it looks in."""

    phase: str
    breakpoints: int
    written: str
    window: dict[str, tuple[float, float]] | None
    box: dict[str, tuple[float, float]] | None


@dataclass(frozen=True)
class _Solved:
    """One round's program and its solution: the Pyomo model, its products, the program's
    facts (:func:`located_program`) and the solver's answer."""

    m: pyo.ConcreteModel
    layer: LocatedProducts
    info: dict[str, Any]
    sol: Solution


def solve_located(
    game: BayesianGame,
    model: ParametricModel,
    *,
    backend: str,
    representation: str,
    epsilon: float | None,
    breakpoints: int | None,
    select: str = "any",
    min_width: float = 0.0,
    mccormick: bool = False,
    rounds: int | None = None,
    deadline: float | None = None,
    verbose: bool = False,
    method: str | None = None,
    start: tuple[dict[str, float], str] | None = None,
) -> LocatedOutcome:
    """Run the rounds (module docstring) and return the best certified answer.

    ``start`` replaces CFR+'s seed by thresholds known to lie near an equilibrium (signal
    index units by name, as :func:`~equilibria.models.parametric.fit_thresholds` gives
    them) and the words that say where they come from: a model read from a profile starts
    where that profile is, and the first round refines those locations in a box as wide as
    their certified NashConv warrants.

    ``epsilon`` is the NashConv to reach (default 0.05 unless ``breakpoints`` is given
    without it: then one round on that grid, as a sweep over breakpoints wants);
    ``breakpoints`` the points per square of round 1 (default 9); ``rounds`` the most
    rounds; ``deadline`` a ``time.perf_counter()`` instant after which no round starts and
    every solve stops. Raises :class:`TimeLimitReached` when the deadline passes before any
    answer (an answer held is returned with its ``status`` and ``reason``),
    :class:`ModelInfeasible` when no equilibrium follows the model.
    """
    target = epsilon if epsilon is not None else (DEFAULT_EPSILON if breakpoints is None else None)
    max_rounds = rounds if rounds is not None else (DEFAULT_ROUNDS if target is not None else 1)
    finite = game.finite_game()
    extensive = finite.to_extensive()
    call = _Call(
        game=game,
        model=model,
        backend=backend,
        representation=representation,
        epsilon=epsilon,
        target=target,
        select=select,
        min_width=min_width,
        mccormick=mccormick,
        deadline=deadline,
        verbose=verbose,
        method=method,
        finite=finite,
        extensive=extensive,
        sequence_form=SequenceForm(extensive),
    )
    history: list[Round] = []
    seed = None
    if target is not None:
        # the seed: where CFR+'s profile puts the thresholds, a guess that narrows the search
        # (one program on a given grid searches everywhere, as a sweep over breakpoints wants)
        seed, record = _seed(call, target) if start is None else _given_seed(call, *start)
        history.append(record)
    run: Anytime[_Best] = Anytime(deadline=deadline, max_rounds=max_rounds, target=target)
    state = _State.start(seed, breakpoints if breakpoints is not None else FIRST_ROUND_BREAKPOINTS, run)
    for index in run.rounds():
        with run.guard():
            _round(call, state, history, index)
    return _outcome(call, run, history, seed)


def _seed(call: _Call, target: float) -> tuple[_Seed, Round]:
    """CFR+ on the finite game for a short share of the time left, and the model's
    thresholds fitted to its profile; returns them with round 0's record."""
    t_seed = time.perf_counter()
    left = call.remaining()
    budget = SEED_SECONDS if left is None else min(SEED_SECONDS, SEED_SHARE * max(left, 0.0))
    game, model = call.game, call.model
    with stage("seeding with CFR+"):
        seed = seed_profile(call.sequence_form, target=SEED_TARGET * target, seconds=budget)
        guess = fit_thresholds(game, model, call.finite, call.extensive, call.sequence_form, seed.plans)
    fitted = call.certified(_in_signal_units(call, guess))
    record = Round.seed(
        f"seed ({seed.how}, NashConv {seed.nash_conv:.1e}; thresholds fitted)",
        time.perf_counter() - t_seed,
        fitted,
    )
    return _Seed(guess, seed.nash_conv, fitted), record


def _given_seed(call: _Call, guess: dict[str, float], source: str) -> tuple[_Seed, Round]:
    """Round 0 from thresholds given (``solve_located``'s ``start``): certified as they are."""
    t_seed = time.perf_counter()
    fitted = call.certified(_in_signal_units(call, guess))
    record = Round.seed(f"seed ({source}; thresholds as read)", time.perf_counter() - t_seed, fitted)
    return _Seed(dict(guess), fitted, fitted), record


def _in_signal_units(call: _Call, guess: dict[str, float]) -> tuple[list[float], ...]:
    """Thresholds by name in signal index units as each player's list in signal values."""
    c = np.asarray(call.game.breakpoints, dtype=float)
    model = call.model
    return tuple(
        [
            float(np.interp(guess[k], np.arange(call.signals + 1.0), c))
            for k in model.threshold_names
            if model.threshold_owner(k)[0] == p
        ]
        for p in range(call.game.num_players)
    )


def _round(call: _Call, state: _State, history: list[Round], index: int) -> None:
    """Round ``index``: its program written, solved and its answer certified, ``state``
    moved on for the next, recorded in ``history``; a round that ends the rounds stops
    ``state.run`` (``optimal``, ``time_limit`` or ``stalled``)."""
    plan = _plan(call, state)
    t0 = time.perf_counter()
    solved = _solve_round(call, state, plan, index)
    record = Round(
        round=index,
        phase=(
            "zoom at the seed's locations"
            if state.seeded
            else plan.phase
            if plan.window is None
            else f"search within {_signals(state.reach)} of the seed"
        )
        + ("" if plan.written == call.representation else f", {plan.written} products"),
        breakpoints=plan.breakpoints,
        box=None if plan.box is None else state.half_width,
        status=str(solved.sol.status),
        seconds=time.perf_counter() - t0,
        promised=float(solved.info["promised_epsilon"]),
        binaries=model_size(solved.m)["binaries"],
    )
    history.append(record)
    if solved.sol.status == "infeasible":
        _after_infeasible(call, state, plan.phase)
    elif solved.sol.status == "optimal":
        _after_answer(call, state, plan, solved, record)
    elif solved.sol.status == "time_limit":
        state.run.stop(Status.TIME_LIMIT)
    else:
        raise SolveFailed(f"threshold program not solved: {solved.sol.status} ({solved.sol.message})")


def _plan(call: _Call, state: _State) -> _Plan:
    """The next round's program: a search of the locations (within the seed's window while
    there is one) when none are being refined, else a zoom on their box."""
    phase = "search" if state.locations is None else "zoom"
    k = state.search_k if phase == "search" else state.zoom_k
    reach, half_width = state.reach, state.half_width
    window = (
        None if phase == "zoom" or reach is None else {key: (g - reach, g + reach) for key, g in state.guess.items()}
    )
    box = None
    if phase == "zoom" and half_width is not None:
        box = {
            key: (max(0.0, v - half_width), min(1.0, v + half_width))
            for key, v in state.fractions.items()
            if state.locations is not None and state.locations[key][0] == "inside"
        }
    # SCIP's branching on SOS2 sets finds no locations of three-player Kuhn poker in a
    # minute where binaries take seconds: the search writes sos2 products with log
    # binaries, and the zoomed rounds that give the answer use SOS2 sets as asked
    representation = call.representation
    written = "log" if phase == "search" and representation == "sos2" and call.target is not None else representation
    return _Plan(phase, k, written, window, box)


def _solve_round(call: _Call, state: _State, plan: _Plan, index: int) -> _Solved:
    """Round ``index``'s located program written as ``plan`` says and solved within the
    time left; returns the program and the solution."""
    what = "refining" if plan.phase == "zoom" else "searching the locations"
    if plan.window is not None:
        what += f" within {_signals(state.reach)} of the seed"
    with stage(f"round {index}: {what}"):
        m, layer, info = located_program(
            call.game,
            call.model,
            select=call.select,
            min_width=call.min_width,
            representation=plan.written,
            breakpoints=plan.breakpoints,
            tau_total=call.tau_total,
            mccormick=call.mccormick,
            locations=state.locations,
            box=plan.box,
            excluded=state.excluded,
            window=plan.window,
        )
        left = call.remaining()
        limit = None if left is None else max(left, 0.01)
        backend = get_backend(call.backend)
        sol = backend.solve_model(
            m,
            indicators="bigm",
            method=call.method,
            time_limit=limit,
            verbose=call.verbose,
            pinned_start=_pinned_start(m, state, plan, backend),
        )
    return _Solved(m, layer, info, sol)


def _pinned_start(m: pyo.ConcreteModel, state: _State, plan: _Plan, backend: Any) -> list[tuple[Any, float]] | None:
    """For a zoom with binaries (more than two breakpoints) on a backend that takes a
    start: each fraction held where the last answer or the seed put it (the box's centre,
    unless the box is clipped at 0 or 1).
    Nine breakpoints gave HiGHS no incumbent of three-player G_6 in two minutes, even in a
    box of 0.001 around an exact equilibrium; with the fractions held, the binaries follow
    from them, and the full solve starts from that solution."""
    if plan.box is None or plan.breakpoints <= 2 or plan.written == "sos2" or not backend.capabilities.warm_start:
        return None
    return [(m.location.lam[key], state.fractions[key]) for key in plan.box]


def _after_infeasible(call: _Call, state: _State, phase: str) -> None:
    """Move ``state`` on from a round whose program is infeasible: a search looks further
    from the seed, a zoom widens its box, then gives its locations up; the run stops
    ``stalled`` when no other location is left to try after an answer.
    Raises :class:`ModelInfeasible` when no location holds an equilibrium of the model."""
    game, model = call.game, call.model
    if phase == "search" and state.reach is not None:
        # no equilibrium of the model near the seed: look twice as far, then everywhere
        state.reach = None if 2 * state.reach >= call.signals else 2 * state.reach
        return
    if phase == "search":
        if not state.excluded:
            raise ModelInfeasible(
                f"no equilibrium of {game.name} conforms to model '{model.name}' (the threshold "
                "program is infeasible); check the order of the thresholds and the plan of each "
                "region (which actions each player takes where), or try another model"
            )
        if state.run.best is not None:
            state.run.stop(Status.STALLED)  # no other location holds an equilibrium
            return
        raise ModelInfeasible(
            f"no equilibrium of {game.name} conforms to model '{model.name}': every location of "
            f"its thresholds was tried ({len(state.excluded)} excluded as holding no equilibrium)"
        )
    if state.half_width is None:  # the whole box failed: these locations hold no equilibrium
        assert state.locations is not None
        state.excluded.append(state.locations)
        if not state.seeded:  # the search's grid admitted them: search again on a finer one
            state.search_k = min(2 * state.search_k - 1, MAX_SEARCH_BREAKPOINTS)
        state.locations, state.half_width, state.zoom_k, state.seeded = None, None, state.search_k, False
    else:  # widen to the whole range, on a finer grid, before giving the locations up
        state.half_width = None
        state.zoom_k = 2 * state.zoom_k - 1


def _after_answer(call: _Call, state: _State, plan: _Plan, solved: _Solved, record: Round) -> None:
    """Certify a round's answer (into ``record``), offer it to the run, and move ``state``
    on to zoom in on its locations; the run stops ``optimal`` when the answer ends the
    rounds."""
    model, m = call.model, solved.m
    thresholds = _thresholds(m, model, call.game.num_players)
    nash_conv = call.certified(thresholds)
    posterior = float(solved.layer.posterior_bound(m))
    record.nash_conv, record.posterior = nash_conv, posterior
    program = ThresholdProgram(
        model=m,
        game=call.game,
        parametric=model,
        thresholds=list(model.threshold_names),
        plan_indices=model.plan_indices(call.game),
        products=plan.written,
        breakpoints=None if call.exact else plan.breakpoints,
        epsilon=call.epsilon,
        promised_epsilon=float(solved.info["promised_epsilon"]),
        num_products=int(solved.info["num_products"]),
    )
    # an answer comes from a program written as asked
    as_asked = plan.written == call.representation
    if as_asked:
        state.run.keep(_Best(nash_conv, thresholds, program, posterior), nash_conv)
    if as_asked and (call.target is None or nash_conv <= call.target or call.exact):
        state.run.stop(Status.OPTIMAL)
        return
    state.locations = read_locations(m)
    state.fractions = {key: float(v) for key, v in solved.layer.fractions(m).items()}
    state.seeded = False
    state.half_width = FIRST_BOX if state.half_width is None else state.half_width / 4.0


def _outcome(call: _Call, run: Anytime[_Best], history: list[Round], seed: _Seed | None) -> LocatedOutcome:
    """The rounds' outcome: the best answer, with its status and the reason it is above
    epsilon when it is. Raises :class:`TimeLimitReached` when there is no answer."""
    target = call.target
    best = run.best
    if best is not None and (target is None or best.nash_conv <= target or call.exact):
        return LocatedOutcome(thresholds=best.thresholds, program=best.program, rounds=history, bound=best.bound)
    done = f"after {len(history)} round{'s' if len(history) != 1 else ''}"

    def no_answer(status: Status) -> TimeLimitReached:
        reached, advice = _STOPPED[status]
        hint = ""
        if seed is not None and seed.guess and seed.fitted > 10.0 * max(seed.nash_conv, target or 0.0):
            # CFR+ found an equilibrium, and no profile following the model comes close
            # to it: that one is not of the model's form, which may hold another
            hint = (
                f" (the equilibrium CFR+ found, NashConv {seed.nash_conv:.1e}, is not of the model's form: its "
                f"closest thresholds reach only {seed.fitted:.1e}; should the model hold none, `equilibria nash` "
                "needs no model)"
            )
        return TimeLimitReached(f"no answer {done}{reached}; {advice}{hint}", history)

    best, status = run.result(no_answer)
    reached, advice = _STOPPED[status]
    reason = f"the best certified NashConv {best.nash_conv:.3e} {done}{reached} is above epsilon {target:g}; {advice}"
    return LocatedOutcome(best.thresholds, best.program, history, best.bound, status, reason)


__all__ = [
    "DEFAULT_ROUNDS",
    "LocatedOutcome",
    "solve_located",
]
