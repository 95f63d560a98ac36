"""Rounds of the MIP Nash program with piecewise-linear products (three or more players)
until the exact certificate meets epsilon: an anytime route.

A program over the whole strategy space with products accurate to epsilon is large (three-
player Kuhn poker: 261 products; with HiGHS no profile in 300 s at the breakpoints epsilon
0.01 needs). The rounds instead solve small programs near an answer:

1. **Seed.** CFR+ for any number of players
   (:class:`~equilibria.solvers.first_order.MultiplayerCFR`) runs for a short share of the
   time and gives a profile, certified like every other one. It carries no guarantee with
   three or more players; it only says where to look.
2. **Zoom.** Each factor of every product (a realization weight) is boxed within ``h`` of
   the incumbent, and the products' breakpoints span the box, so the error of a product
   falls with ``h**2``. The regret rows allow each sequence the products' error measured
   where the solver lands (:func:`~equilibria.formulations.mip_nash.mip_nash` with
   ``measured``: zero on grid points), so the program admits every exact equilibrium in
   the box. A solved round's profile is certified; when it beats the centre (the best
   profile so far, the seed included) it becomes the centre and ``h`` shrinks four-fold
   (and to the box its NashConv suggests), otherwise the box holds an equilibrium that the
   grid is too coarse to pin down, and the grid doubles its segments. A box with no
   solution holds no equilibrium, and ``h`` grows four-fold. From ``h >= 1/2`` on the box
   is the whole space: a search of the program over all supports, whose grid doubles its
   segments each time it is needed again.

Every round's certified NashConv goes into the answer's ``curve``, beside the bound the
program proves at its solution. The limits (``time_limit``, ``rounds``) bound seed, builds,
solves and certificates together.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

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
from ...formulations.mip_nash import MipNashProgram, mip_nash, nash_model, read_profile
from ...formulations.products import model_size
from ...models.best_response import certify, plan_maximum
from ...models.errors import SolveFailed
from ...models.progress import stage
from ...models.sequence import SequenceForm
from ...models.strategy import behavior_from_realization
from ...solvers import Status, get_backend

#: Rounds allowed when none is given.
DEFAULT_ROUNDS = 40

#: Breakpoints per square in a zoomed round unless given: the box does the refining (three-
#: player Kuhn poker, first zoom with HiGHS: 0.5 s with 2, 13 s with 3).
ZOOM_BREAKPOINTS = 2

#: The finest grid a search over the whole space is given.
MAX_SEARCH_BREAKPOINTS = 33


@dataclass
class NashRounds:
    """The best round: its program, the Pyomo model solved, the column values, the
    certified realization plans and NashConv, the bound proven there, and every round."""

    lp: MipNashProgram
    model: Any
    solution: Any
    values: np.ndarray
    plans: list[np.ndarray]
    nash_conv: float
    bound: float
    rounds: list[Round] = field(default_factory=list)
    seed_iterations: int = 0
    #: True when the answer is the CFR+ seed: it met the target and no program's profile
    #: was as good (``plans`` and ``nash_conv`` are then the seed's, the rest the best
    #: round's)
    from_seed: bool = False
    #: why the rounds stopped: ``optimal`` (the target met), ``time_limit`` or
    #: ``iteration_limit`` (the most rounds) with the best certified profile above it
    status: Status = Status.OPTIMAL
    #: what was reached, in words, when the target was not
    reason: str = ""


def posterior_bound(lp: MipNashProgram, sf: SequenceForm, x: np.ndarray) -> float:
    """A proven NashConv bound at the solution ``x`` of a ``measured`` program: per player,
    twice the most any plan collects of each sequence's allowance plus the true error of
    its payoff products (both evaluated at ``x``; the module docstring of
    :mod:`equilibria.formulations.mip_nash` gives the argument with a-priori errors)."""
    layout = lp.layout
    off, sizes = layout.offset, layout.sizes
    weights = layout.allowance_weights
    if weights is None:
        raise ValueError(f"the program {lp.name!r} is not a measured one: it has no allowance weights")
    num_products = len(layout.products)
    w = x[off["w"] : off["w"] + num_products]
    true = np.array([np.prod(x[cols]) for cols in layout.products]) if num_products else np.zeros(0)
    error = np.abs(w - true)
    total = 0.0
    for p, n in enumerate(sizes):
        allowance = np.maximum(x[off[f"a{p}"] : off[f"a{p}"] + n], 0.0)
        total += 2.0 * plan_maximum(sf.players[p], allowance + weights[p] @ error)[0]
    return float(total)


@dataclass(frozen=True)
class _Program:
    """What every round's program and solve share: the game, the backend and its
    options, the products' representation, the sequences forbidden, and the deadline."""

    sf: SequenceForm
    backend: str
    representation: str
    forbidden: list[np.ndarray] | None
    linearize: bool
    method: str | None
    verbose: bool
    deadline: float | None

    def time_left(self) -> float | None:
        """Seconds until the deadline (negative once past), or None without one."""
        return None if self.deadline is None else self.deadline - time.perf_counter()


@dataclass(frozen=True)
class _Seed:
    """The CFR+ seed: its realization plans, their certified NashConv, the iterations
    run, and its row (round 0) of the rounds' history."""

    plans: list[np.ndarray]
    nash_conv: float
    iterations: int
    record: Round


@dataclass
class _Zoom:
    """Where the next round looks: the centre (the best profile certified so far, the seed
    included), the half-width of the box around it (None: the whole space), and the
    breakpoints per square of a zoomed round and of a search over the whole space."""

    center: list[np.ndarray]
    center_nc: float
    half_width: float | None
    zoom_k: int
    search_k: int
    #: around the centre: the widest box shown to hold no equilibrium, and the narrowest
    #: whose program answered worse than the centre (too wide for its grid)
    no_equilibrium: float = 0.0
    too_coarse: float = math.inf

    def next_box(self) -> list[tuple[np.ndarray, np.ndarray]] | None:
        """The bounds of every realization weight in the next round, or None for the whole
        space, which a half-width of 1/2 or more becomes (and stays)."""
        if self.half_width is not None and self.half_width >= 0.5:
            self.half_width = None
        if self.half_width is None:
            return None
        h = self.half_width
        return [(np.maximum(0.0, c - h), np.minimum(1.0, c + h)) for c in self.center]

    def widen(self) -> None:
        """After a box without solution, which holds no equilibrium: look wider, below any
        box known to answer. Returns nothing; the half-width grows."""
        assert self.half_width is not None  # the whole space always holds an equilibrium
        self.no_equilibrium = self.half_width
        self.half_width = (
            4.0 * self.half_width if math.isinf(self.too_coarse) else math.sqrt(self.half_width * self.too_coarse)
        )

    def answered(self, plans: list[np.ndarray], nash_conv: float) -> None:
        """After a round's profile certified at ``nash_conv`` above the target: refine around
        it when it beats the centre, else narrow the box or refine its grid. Returns
        nothing; the box and grids change."""
        if self.half_width is None:  # the whole space gave this: search finer next time
            self.search_k = min(2 * self.search_k - 1, MAX_SEARCH_BREAKPOINTS)
        if nash_conv < self.center_nc:  # a better centre: refine around it
            self.center, self.center_nc = plans, nash_conv
            h = self.half_width
            self.half_width = first_box(nash_conv) if h is None else min(h / 4.0, first_box(nash_conv))
            self.no_equilibrium, self.too_coarse = 0.0, math.inf
        elif self.half_width is not None:
            # the box is too wide for its grid: narrow it (a narrower box costs no binaries),
            # and once it meets a box without equilibria, refine the grid instead
            h = self.half_width
            self.too_coarse = h
            narrower = h / 4.0 if h / 4.0 > 2.0 * self.no_equilibrium else math.sqrt(h * self.no_equilibrium)
            if narrower > 1.25 * self.no_equilibrium:
                self.half_width = narrower
            else:
                self.zoom_k = min(2 * self.zoom_k - 1, MAX_SEARCH_BREAKPOINTS)


def solve_rounds(
    sf: SequenceForm,
    *,
    backend: str,
    representation: str,
    target: float,
    breakpoints: int | None = None,
    forbidden: list[np.ndarray] | None = None,
    linearize: bool = True,
    rounds: int | None = None,
    deadline: float | None = None,
    verbose: bool = False,
    method: str | None = None,
) -> NashRounds:
    """Run the rounds (module docstring) and return the best certified one (the seed's
    profile where it meets ``target`` and no program's answer is as good).

    ``target`` is the NashConv to reach; ``breakpoints`` the points per square of a zoomed
    round (default :data:`ZOOM_BREAKPOINTS`); ``forbidden`` the sequences no equilibrium
    needs; ``rounds`` the most program rounds; ``deadline`` a ``time.perf_counter()``
    instant after which no round starts and every solve stops. Raises
    :class:`~equilibria.core.anytime.TimeLimitReached` when the limits come before any
    profile; a profile held then is returned with its ``status`` (``time_limit`` or
    ``iteration_limit``) and the ``reason``.
    """
    program = _Program(
        sf=sf,
        backend=backend,
        representation=representation,
        forbidden=forbidden,
        linearize=linearize,
        method=method,
        verbose=verbose,
        deadline=deadline,
    )
    seed = _seed(program, target)
    history = [seed.record]
    zoom_k = breakpoints if breakpoints is not None else ZOOM_BREAKPOINTS
    zoom = _Zoom(seed.plans, seed.nash_conv, first_box(seed.nash_conv), zoom_k=zoom_k, search_k=max(zoom_k, 3))
    run: Anytime[NashRounds] = Anytime(
        deadline=deadline, max_rounds=DEFAULT_ROUNDS if rounds is None else rounds, target=target
    )
    _run_rounds(program, zoom, run, history)
    best = _prefer_seed(run.best, seed, zoom, target)
    if best is None or best.nash_conv > target:
        best = _short_of_target(run, history, seed.nash_conv)
    best.rounds = history
    best.seed_iterations = seed.iterations
    return best


def _seed(program: _Program, target: float) -> _Seed:
    """The CFR+ seed, run for a short share of the time left or until its certified
    NashConv is a fraction of ``target``."""
    t0 = time.perf_counter()
    left = program.time_left()
    budget = SEED_SECONDS if left is None else min(SEED_SECONDS, SEED_SHARE * max(left, 0.0))
    with stage("seeding with CFR+"):
        seed = seed_profile(program.sf, target=SEED_TARGET * target, seconds=budget)
    record = Round.seed(f"seed ({seed.how})", time.perf_counter() - t0, seed.nash_conv)
    return _Seed(seed.plans, seed.nash_conv, seed.iterations, record)


def _run_rounds(program: _Program, zoom: _Zoom, run: Anytime[NashRounds], history: list[Round]) -> None:
    """Run the rounds until ``run`` stops: each round's certified profile is offered to
    it, and its row goes onto ``history``. A round's build or solve running on past the
    time limit ends the run as at the limit. Raises SolveFailed when a program fails
    otherwise than by the time limit."""
    for index in run.rounds():
        with run.guard():
            lp, model, sol, record = _solve_round(program, index, zoom)
            history.append(record)
            if sol.status == "infeasible":
                if zoom.half_width is None:
                    raise SolveFailed(
                        "MIP Nash: the program over every support is infeasible, which no game allows "
                        f"(every finite game has an equilibrium); {program.backend} reported: {sol.message}"
                    )
                zoom.widen()
                continue
            if sol.status != "optimal":
                if sol.status == "time_limit":
                    run.stop(Status.TIME_LIMIT)
                    continue
                raise SolveFailed(f"MIP Nash: round {index} not solved: {sol.status} ({sol.message})")
            answer = _certified_round(program.sf, lp, model, sol, record)
            run.keep(answer, answer.nash_conv)
            if run.meets(answer.nash_conv):
                run.stop(Status.OPTIMAL)
                continue
            zoom.answered(answer.plans, answer.nash_conv)


def _solve_round(program: _Program, index: int, zoom: _Zoom) -> tuple[MipNashProgram, Any, Any, Round]:
    """Round ``index``'s program in the box ``zoom`` places next, its Pyomo model, the
    backend's solution, and the round's row (its certified NashConv still to come)."""
    bounds = zoom.next_box()
    k = zoom.zoom_k if bounds is not None else zoom.search_k
    t1 = time.perf_counter()
    what = "searching every support" if bounds is None else f"refining within {zoom.half_width:.2g} of the incumbent"
    with stage(f"round {index}: {what}"):
        lp = mip_nash(
            program.sf,
            1,
            "any",
            breakpoints=k,
            forbidden=program.forbidden,
            linearize=program.linearize,
            measured=True,
            box=bounds,
        )
        model = nash_model(lp, representation=program.representation)
        left = program.time_left()
        sol = get_backend(program.backend).solve_model(
            model, method=program.method, time_limit=None if left is None else max(left, 0.01), verbose=program.verbose
        )
    record = Round(
        round=index,
        phase="search" if bounds is None else "zoom",
        breakpoints=k,
        box=zoom.half_width,
        status=str(sol.status),
        seconds=time.perf_counter() - t1,
        promised=float(lp.layout.promised),
        binaries=model_size(model)["binaries"],
    )
    return lp, model, sol, record


def _certified_round(sf: SequenceForm, lp: MipNashProgram, model: Any, sol: Any, record: Round) -> NashRounds:
    """The solved round as a NashRounds: its profile certified by exact best responses and
    the NashConv bound its program proves there (both written onto ``record`` too)."""
    x = lp.pyomo_values(model)
    plans, _ = read_profile(lp, x)
    behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(sf.num_players)]
    nash_conv = float(certify(sf, behaviors).nash_conv)
    record.nash_conv = nash_conv
    record.posterior = posterior_bound(lp, sf, x)
    return NashRounds(
        lp=lp, model=model, solution=sol, values=x, plans=plans, nash_conv=nash_conv, bound=record.posterior
    )


def _prefer_seed(best: NashRounds | None, seed: _Seed, zoom: _Zoom, target: float) -> NashRounds | None:
    """``best``, or the seed in its place when the seed meets ``target``, beats ``best`` and
    is still the centre (no round's profile was better)."""
    seed_held = seed.nash_conv <= target and zoom.center_nc == seed.nash_conv  # no round beat it
    if best is None or not (seed_held and seed.nash_conv < best.nash_conv):
        return best
    # a program's answer within epsilon is no reason to give back a better profile
    # already held: the seed is the answer, certified as every round's
    return replace(best, plans=list(zoom.center), nash_conv=seed.nash_conv, bound=math.nan, from_seed=True)


#: Why rounds that fell short of the target stopped, and what to do about it.
_SHORT = {
    Status.TIME_LIMIT: (" within the time limit", "give more time or a larger --epsilon"),
    Status.ITERATION_LIMIT: (" (the most --rounds allows)", "allow more --rounds or a larger --epsilon"),
}


def _short_of_target(run: Anytime[NashRounds], history: list[Round], seed_nc: float) -> NashRounds:
    """The best certified profile, above the target, with the status and reason of why
    the rounds stopped short. Raises TimeLimitReached when no round gave a profile."""
    done = f"after {len(history) - 1} round{'s' if len(history) != 2 else ''}"

    def no_profile(status: Status) -> TimeLimitReached:
        reached, advice = _SHORT[status]
        return TimeLimitReached(
            f"no profile from the program {done}{reached} (the CFR+ seed: NashConv {seed_nc:.3e}); {advice}", history
        )

    best, status = run.result(no_profile)
    reached, advice = _SHORT[status]
    best.status = status
    best.reason = (
        f"the best certified NashConv {best.nash_conv:.3e} {done}{reached} is above epsilon {run.target:g}; {advice}"
    )
    return best


__all__ = ["DEFAULT_ROUNDS", "NashRounds", "ZOOM_BREAKPOINTS", "posterior_bound", "solve_rounds"]
