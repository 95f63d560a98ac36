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

import numpy as np
import pyomo.environ as pyo

from ...core.anytime import SEED_SECONDS, SEED_SHARE, SEED_TARGET, Round, TimeLimitReached, first_box, seed_profile
from ...formulations.products import model_size
from ...formulations.threshold_located import (
    FIRST_ROUND_BREAKPOINTS,
    Location,
    located_program,
    read_locations,
)
from ...formulations.threshold_milfp import DEFAULT_EPSILON, ThresholdProgram
from ...models.bayesian import BayesianGame
from ...models.best_response import certify
from ...models.errors import SolveFailed
from ...models.parametric import ModelInfeasible, ParametricModel, fit_thresholds, project
from ...models.progress import stage
from ...models.sequence import SequenceForm
from ...solvers import Status, get_backend

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
) -> LocatedOutcome:
    """Run the rounds (module docstring) and return the best certified answer.

        ``epsilon`` is the NashConv to reach (default 0.05 unless ``breakpoints`` is given
        without it: then one round on that grid, as a sweep over breakpoints wants);
        ``breakpoints`` the points per square of round 1 (default 9); ``rounds`` the most
        rounds; ``deadline`` a ``time.perf_counter()`` instant after which no round starts and
        every solve stops. Raises :class:`TimeLimitReached` when the deadline passes before any
    answer (an answer held is returned with its ``status`` and ``reason``),
        :class:`ModelInfeasible` when no equilibrium follows the model.
    """
    n = game.num_players
    target = epsilon if epsilon is not None else (DEFAULT_EPSILON if breakpoints is None else None)
    max_rounds = rounds if rounds is not None else (DEFAULT_ROUNDS if target is not None else 1)
    exact = representation == "exact"
    J = len(game.breakpoints) - 1
    if exact:
        tau_total = EXACT_TAU * n * J
    elif target is not None:
        tau_total = TAU_SHARE * target
    else:
        tau_total = EXACT_TAU * n * J
    first_k = breakpoints if breakpoints is not None else FIRST_ROUND_BREAKPOINTS

    finite = game.finite_game()
    extensive = finite.to_extensive()
    sequence_form = SequenceForm(extensive)
    c = np.asarray(game.breakpoints, dtype=float)

    def certified(thresholds: tuple[list[float], ...]) -> float:
        strategies = project(game, model, thresholds, finite)
        behaviors = finite.behavior_from_plans(strategies, extensive, sequence_form)
        return float(certify(sequence_form, behaviors).nash_conv)

    def remaining() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    history: list[Round] = []
    guess: dict[str, float] = {}
    reach: float | None = None
    seed_nc = fitted = 0.0
    if target is not None:
        # the seed: where CFR+'s profile puts the thresholds, a guess that narrows the search
        # (one program on a given grid searches everywhere, as a sweep over breakpoints wants)
        t_seed = time.perf_counter()
        left = remaining()
        budget = SEED_SECONDS if left is None else min(SEED_SECONDS, SEED_SHARE * max(left, 0.0))
        with stage("seeding with CFR+"):
            plans, seed_nc, iterations = seed_profile(sequence_form, target=SEED_TARGET * target, seconds=budget)
            guess = fit_thresholds(game, model, finite, extensive, sequence_form, plans)
        guessed = tuple(
            [
                float(np.interp(guess[k], np.arange(J + 1.0), c))
                for k in model.threshold_names
                if model.threshold_owner(k)[0] == p
            ]
            for p in range(n)
        )
        fitted = certified(guessed)
        history.append(
            Round.seed(
                f"seed (CFR+, {iterations} iterations, NashConv {seed_nc:.1e}; thresholds fitted)",
                time.perf_counter() - t_seed,
                fitted,
            )
        )
        reach = SEED_WINDOW

    excluded: list[dict[str, Location]] = []
    locations: dict[str, Location] | None = None
    fractions: dict[str, float] = {}
    half_width: float | None = None
    search_k = zoom_k = first_k
    # the first program refines the seed's own locations; only when they hold no
    # equilibrium does a search start
    seeded = bool(guess)
    if seeded:
        locations, fractions = locations_at(guess)
        half_width = min(FIRST_BOX, first_box(fitted))
    best: tuple[float, tuple[list[float], ...], ThresholdProgram, float] | None = None

    stopped = "rounds"  # why the loop ends without meeting epsilon: rounds, time, exhausted
    for index in range(1, max_rounds + 1):
        left = remaining()
        if left is not None and left <= 0:
            stopped = "time"
            break
        phase = "search" if locations is None else "zoom"
        k = search_k if phase == "search" else zoom_k
        window = None if phase == "zoom" or reach is None else {key: (g - reach, g + reach) for key, g in guess.items()}
        box = None
        if phase == "zoom" and half_width is not None:
            box = {
                key: (max(0.0, v - half_width), min(1.0, v + half_width))
                for key, v in fractions.items()
                if locations is not None and locations[key][0] == "inside"
            }
        # SCIP's branching on SOS2 sets finds no locations of three-player Kuhn poker in a
        # minute where binaries take seconds: the search writes sos2 products with log
        # binaries, and the zoomed rounds that give the answer use SOS2 sets as asked
        written = "log" if phase == "search" and representation == "sos2" and target is not None else representation
        t0 = time.perf_counter()
        what = "refining" if phase == "zoom" else "searching the locations"
        if window is not None:
            what += f" within {_signals(reach)} of the seed"
        with stage(f"round {index}: {what}"):
            m, layer, info = located_program(
                game,
                model,
                select=select,
                min_width=min_width,
                representation=written,
                breakpoints=k,
                tau_total=tau_total,
                mccormick=mccormick,
                locations=locations,
                box=box,
                excluded=excluded,
                window=window,
            )
            left = remaining()
            limit = None if left is None else max(left, 0.01)
            sol = get_backend(backend).solve_model(
                m, indicators="bigm", method=method, time_limit=limit, verbose=verbose
            )
        record = Round(
            round=index,
            phase=(
                "zoom at the seed's locations"
                if seeded
                else phase
                if window is None
                else f"search within {_signals(reach)} of the seed"
            )
            + ("" if written == representation else f", {written} products"),
            breakpoints=k,
            box=None if box is None else half_width,
            status=str(sol.status),
            seconds=time.perf_counter() - t0,
            promised=float(info["promised_epsilon"]),
            binaries=model_size(m)["binaries"],
        )
        history.append(record)
        if sol.status == "infeasible":
            if phase == "search" and reach is not None:
                # no equilibrium of the model near the seed: look twice as far, then everywhere
                reach = None if 2 * reach >= J else 2 * reach
                continue
            if phase == "search":
                if not excluded:
                    raise ModelInfeasible(
                        f"no equilibrium of {game.name} conforms to model '{model.name}' (the threshold "
                        "program is infeasible); check the order of the thresholds and the plan of each "
                        "region (which actions each player takes where), or try another model"
                    )
                if best is not None:
                    stopped = "exhausted"  # no other location holds an equilibrium
                    break
                raise ModelInfeasible(
                    f"no equilibrium of {game.name} conforms to model '{model.name}': every location of "
                    f"its thresholds was tried ({len(excluded)} excluded as holding no equilibrium)"
                )
            if half_width is None:  # the whole box failed: these locations hold no equilibrium
                assert locations is not None
                excluded.append(locations)
                if not seeded:  # the search's grid admitted them: search again on a finer one
                    search_k = min(2 * search_k - 1, MAX_SEARCH_BREAKPOINTS)
                locations, half_width, zoom_k, seeded = None, None, search_k, False
            else:  # widen to the whole range, on a finer grid, before giving the locations up
                half_width = None
                zoom_k = 2 * zoom_k - 1
            continue
        if sol.status != "optimal":
            if sol.status == "time_limit":
                stopped = "time"
                break
            raise SolveFailed(f"threshold program not solved: {sol.status} ({sol.message})")
        thresholds = _thresholds(m, model, n)
        nash_conv = certified(thresholds)
        record.nash_conv = nash_conv
        record.posterior = float(layer.posterior_bound(m))
        program = ThresholdProgram(
            model=m,
            game=game,
            parametric=model,
            thresholds=list(model.threshold_names),
            plan_indices=model.plan_indices(game),
            products=written,
            breakpoints=None if exact else k,
            epsilon=epsilon,
            promised_epsilon=float(info["promised_epsilon"]),
            num_products=int(info["num_products"]),
        )
        # an answer comes from a program written as asked
        if written == representation and (best is None or nash_conv < best[0]):
            best = (nash_conv, thresholds, program, record.posterior)
        if written == representation and (target is None or nash_conv <= target or exact):
            break
        locations = read_locations(m)
        fractions = {key: float(v) for key, v in layer.fractions(m).items()}
        seeded = False
        half_width = FIRST_BOX if half_width is None else half_width / 4.0
    if best is None or (target is not None and best[0] > target and not exact):
        done = f"after {len(history)} round{'s' if len(history) != 1 else ''}"
        why = {
            "time": (" within the time limit", "give more time or a larger --epsilon"),
            "rounds": (" (the most --rounds allows)", "allow more --rounds or a larger --epsilon"),
            "exhausted": (
                ", every other location of the thresholds holding no equilibrium of the model",
                "give a larger --epsilon or another model",
            ),
        }[stopped]
        if best is None:
            hint = ""
            if guess and fitted > 10.0 * max(seed_nc, target or 0.0):
                # CFR+ found an equilibrium, and no profile following the model comes close
                # to it: that one is not of the model's form, which may hold another
                hint = (
                    f" (the equilibrium CFR+ found, NashConv {seed_nc:.1e}, is not of the model's form: its "
                    f"closest thresholds reach only {fitted:.1e}; should the model hold none, `equilibria nash` "
                    "needs no model)"
                )
            raise TimeLimitReached(f"no answer {done}{why[0]}; {why[1]}{hint}", history)
        nash_conv, thresholds, program, bound = best
        status = {"time": Status.TIME_LIMIT, "rounds": Status.ITERATION_LIMIT}.get(stopped, Status.STALLED)
        reason = f"the best certified NashConv {nash_conv:.3e} {done}{why[0]} is above epsilon {target:g}; {why[1]}"
        return LocatedOutcome(thresholds, program, history, bound, status, reason)
    nash_conv, thresholds, program, bound = best
    return LocatedOutcome(thresholds=thresholds, program=program, rounds=history, bound=bound)


__all__ = [
    "DEFAULT_ROUNDS",
    "LocatedOutcome",
    "solve_located",
]
