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

from ...core.anytime import SEED_SECONDS, SEED_SHARE, SEED_TARGET, Round, TimeLimitReached, first_box, seed_profile
from ...core.deadline import DeadlineExpired
from ...formulations.linear_program import LinearProgram
from ...formulations.mip_nash import mip_nash, nash_model, read_profile
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

    lp: LinearProgram
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


def posterior_bound(lp: LinearProgram, sf: SequenceForm, x: np.ndarray) -> float:
    """A proven NashConv bound at the solution ``x`` of a ``measured`` program: per player,
    twice the most any plan collects of each sequence's allowance plus the true error of
    its payoff products (both evaluated at ``x``; the module docstring of
    :mod:`equilibria.formulations.mip_nash` gives the argument with a-priori errors)."""
    off, sizes = lp.meta["offset"], lp.meta["sizes"]
    weights = lp.meta["allowance_weights"]
    num_products = len(lp.meta["products"])
    w = x[off["w"] : off["w"] + num_products]
    true = np.array([np.prod(x[cols]) for cols in lp.meta["products"]]) if num_products else np.zeros(0)
    error = np.abs(w - true)
    total = 0.0
    for p, n in enumerate(sizes):
        allowance = np.maximum(x[off[f"a{p}"] : off[f"a{p}"] + n], 0.0)
        total += 2.0 * plan_maximum(sf.players[p], allowance + weights[p] @ error)[0]
    return float(total)


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
    n = sf.num_players
    max_rounds = DEFAULT_ROUNDS if rounds is None else rounds
    zoom_k = breakpoints if breakpoints is not None else ZOOM_BREAKPOINTS
    search_k = max(zoom_k, 3)
    history: list[Round] = []

    def remaining() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    t0 = time.perf_counter()
    left = remaining()
    budget = SEED_SECONDS if left is None else min(SEED_SECONDS, SEED_SHARE * max(left, 0.0))
    with stage("seeding with CFR+"):
        center, seed_nc, iterations = seed_profile(sf, target=SEED_TARGET * target, seconds=budget)
    history.append(Round.seed(f"seed (CFR+, {iterations} iterations)", time.perf_counter() - t0, seed_nc))
    half_width: float | None = first_box(seed_nc)
    center_nc = seed_nc  # the centre is the best profile certified so far, the seed included
    # around the centre: the widest box shown to hold no equilibrium, and the narrowest
    # whose program answered worse than the centre (too wide for its grid)
    no_equilibrium, too_coarse = 0.0, math.inf
    best: NashRounds | None = None
    stopped = "rounds"
    for index in range(1, max_rounds + 1):
        try:
            left = remaining()
            if left is not None and left <= 0:
                stopped = "time"
                break
            if half_width is not None and half_width >= 0.5:
                half_width = None
            box = (
                None
                if half_width is None
                else [(np.maximum(0.0, c - half_width), np.minimum(1.0, c + half_width)) for c in center]
            )
            k = zoom_k if box is not None else search_k
            t1 = time.perf_counter()
            what = "searching every support" if box is None else f"refining within {half_width:.2g} of the incumbent"
            with stage(f"round {index}: {what}"):
                lp = mip_nash(
                    sf, 1, "any", breakpoints=k, forbidden=forbidden, linearize=linearize, measured=True, box=box
                )
                model = nash_model(lp, representation=representation)
                left = remaining()
                sol = get_backend(backend).solve_model(
                    model, method=method, time_limit=None if left is None else max(left, 0.01), verbose=verbose
                )
            record = Round(
                round=index,
                phase="search" if box is None else "zoom",
                breakpoints=k,
                box=half_width,
                status=str(sol.status),
                seconds=time.perf_counter() - t1,
                promised=float(lp.meta["promised"]),
                binaries=model_size(model)["binaries"],
            )
            history.append(record)
            if sol.status == "infeasible":
                if box is None:
                    raise SolveFailed(
                        "MIP Nash: the program over every support is infeasible, which no game allows "
                        f"(every finite game has an equilibrium); {backend} reported: {sol.message}"
                    )
                assert half_width is not None  # a box was given
                no_equilibrium = half_width  # look wider, below any box known to answer
                half_width = 4.0 * half_width if math.isinf(too_coarse) else math.sqrt(half_width * too_coarse)
                continue
            if sol.status != "optimal":
                if sol.status == "time_limit":
                    stopped = "time"
                    break
                raise SolveFailed(f"MIP Nash: round {index} not solved: {sol.status} ({sol.message})")
            x = lp.pyomo_values(model)
            plans, _ = read_profile(lp, x)
            behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(n)]
            nash_conv = float(certify(sf, behaviors).nash_conv)
            record.nash_conv = nash_conv
            record.posterior = posterior_bound(lp, sf, x)
            if best is None or nash_conv < best.nash_conv:
                best = NashRounds(
                    lp=lp, model=model, solution=sol, values=x, plans=plans, nash_conv=nash_conv, bound=record.posterior
                )
            if nash_conv <= target:
                break
            if box is None:  # the whole space gave this: search finer next time
                search_k = min(2 * search_k - 1, MAX_SEARCH_BREAKPOINTS)
            if nash_conv < center_nc:  # a better centre: refine around it
                center, center_nc = plans, nash_conv
                half_width = first_box(nash_conv) if half_width is None else min(half_width / 4.0, first_box(nash_conv))
                no_equilibrium, too_coarse = 0.0, math.inf
            elif half_width is not None:
                # the box is too wide for its grid: narrow it (a narrower box costs no binaries),
                # and once it meets a box without equilibria, refine the grid instead
                too_coarse = half_width
                narrower = (
                    half_width / 4.0
                    if half_width / 4.0 > 2.0 * no_equilibrium
                    else math.sqrt(half_width * no_equilibrium)
                )
                if narrower > 1.25 * no_equilibrium:
                    half_width = narrower
                else:
                    zoom_k = min(2 * zoom_k - 1, MAX_SEARCH_BREAKPOINTS)
        except DeadlineExpired:
            # a round's build or solve ran on past the time limit: end as at the limit,
            # with the best certified profile held
            stopped = "time"
            break

    if best is not None and seed_nc <= target and seed_nc < best.nash_conv and center_nc == seed_nc:
        # a program's answer within epsilon is no reason to give back a better profile
        # already held: the seed is the answer, certified as every round's
        best = replace(best, plans=list(center), nash_conv=seed_nc, bound=math.nan, from_seed=True)
    if best is None or best.nash_conv > target:
        done = f"after {len(history) - 1} round{'s' if len(history) != 2 else ''}"
        why = {
            "time": (" within the time limit", "give more time or a larger --epsilon"),
            "rounds": (" (the most --rounds allows)", "allow more --rounds or a larger --epsilon"),
        }[stopped]
        if best is None:
            raise TimeLimitReached(
                f"no profile from the program {done}{why[0]} (the CFR+ seed: NashConv {seed_nc:.3e}); {why[1]}",
                history,
            )
        # the best certified profile is the answer, with why it falls short of the target
        best.status = Status.TIME_LIMIT if stopped == "time" else Status.ITERATION_LIMIT
        best.reason = (
            f"the best certified NashConv {best.nash_conv:.3e} {done}{why[0]} is above epsilon {target:g}; {why[1]}"
        )
    best.rounds = history
    best.seed_iterations = iterations
    return best


__all__ = ["DEFAULT_ROUNDS", "NashRounds", "ZOOM_BREAKPOINTS", "posterior_bound", "solve_rounds"]
