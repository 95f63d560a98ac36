"""A model of a continuous signal game with three or more players, repaired by solving its
indifference equations exactly.

A model read from an equilibrium of a discretisation (:mod:`.discovery`) is close to one
of the continuous game, but rarely right: cells that mix are read as regions whose
thresholds are approximate, and a player's small region may be missing or one too many.
Each step here solves the model's indifference equations (at every threshold the owner is
indifferent between the plans of the regions it separates;
:func:`~equilibria.models.threshold_best_response.indifference_residuals`, exact) by
least squares from the thresholds at hand, drops the regions the solution leaves empty,
and certifies the profile by exact best responses. When it is exploitable, the player
who gains most plays its best response on the interval where it gains (the plan inserted
as a region there), and the next step solves the new model from there. The steps stop at
the target NashConv, at the deadline, after :data:`STEPS`, or when a model and its
thresholds repeat (the insertion was undone by the solve); the best profile certified is
kept. No solver is involved: the equations have as many unknowns as thresholds and are
polynomials of degree ``players - 1``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import least_squares

from ...models.bayesian import BayesianGame, exploitability_summary
from ...models.threshold_best_response import best_response, indifference_residuals

#: Most models solved in one repair.
STEPS = 6
#: Most evaluations of the equations per solve (each Jacobian by differences costs one
#: evaluation per threshold more).
EVALUATIONS = 30
#: Regions narrower than this (signal units) are dropped after a solve.
NARROWEST = 1e-7
#: Smallest gain (joint expected payoff) an insertion acts on.
GAIN = 1e-10
#: Largest residual of a solved model: the best profile is taken among the solved ones
#: (a program in a box around them admits them).
RESIDUAL = 1e-9

Plans = list[list[int]]
Thresholds = list[list[float]]


@dataclass
class Repaired:
    """The best profile the steps certified whose equations hold (region plans per
    player, lowest signals first, and thresholds in signal units), its exact NashConv
    (infinite when no step solved its equations), and every step's record."""

    plans: Plans
    thresholds: Thresholds
    nash_conv: float
    steps: list[dict] = field(default_factory=list)


def _normalised(plans: Sequence[int], cuts: Sequence[float], low: float, high: float) -> tuple[list[int], list[float]]:
    """One player's regions without those narrower than :data:`NARROWEST`, neighbours of
    one plan merged."""
    bounds = [low, *cuts, high]
    kept = [(bounds[j], bounds[j + 1], q) for j, q in enumerate(plans) if bounds[j + 1] - bounds[j] > NARROWEST]
    if not kept:  # every region empty: the widest one covers the line
        widest = int(np.argmax(np.diff(bounds)))
        kept = [(low, high, plans[widest])]
    out = [list(kept[0])]
    for start, stop, q in kept[1:]:
        if q == out[-1][2]:
            out[-1][1] = stop
        else:
            out.append([start, stop, q])
    return [int(s[2]) for s in out], [float(s[0]) for s in out[1:]]


def _inserted(
    plans: Sequence[int], cuts: Sequence[float], start: float, stop: float, plan: int, low: float, high: float
) -> tuple[list[int], list[float]]:
    """One player's regions with ``plan`` played on ``[start, stop]``."""
    bounds = [low, *cuts, high]
    pieces: list[tuple[float, float, int]] = []
    for j, q in enumerate(plans):
        a, b = bounds[j], bounds[j + 1]
        if b <= start or a >= stop:
            pieces.append((a, b, q))
            continue
        if a < start:
            pieces.append((a, start, q))
        pieces.append((max(a, start), min(b, stop), plan))
        if b > stop:
            pieces.append((stop, b, q))
    return _normalised([p[2] for p in pieces], [p[0] for p in pieces[1:]], low, high)


def solve_equations(
    game: BayesianGame, plans: Plans, thresholds: Thresholds, *, evaluations: int = EVALUATIONS
) -> tuple[Thresholds, float]:
    """The thresholds nearest ``thresholds`` at which ``plans``' indifference equations
    hold, by least squares within the signal interval (each player's sorted), and the
    largest residual left."""
    counts = [len(t) for t in thresholds]
    if not sum(counts):
        return [[] for _ in thresholds], 0.0
    low, high = float(game.breakpoints[0]), float(game.breakpoints[-1])

    def split(x: np.ndarray) -> Thresholds:
        out, i = [], 0
        for c in counts:
            out.append(sorted(float(v) for v in x[i : i + c]))
            i += c
        return out

    def residuals(x: np.ndarray) -> np.ndarray:
        return indifference_residuals(game, plans, split(x))

    x0 = np.clip(np.concatenate([np.asarray(t, dtype=float) for t in thresholds]), low, high)
    fit = least_squares(residuals, x0, bounds=(low, high), xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=evaluations)
    return split(fit.x), float(np.abs(fit.fun).max(initial=0.0))


Gain = tuple[float, int, float, float, int]


def certified(
    game: BayesianGame, plans: Sequence[Sequence[int]], thresholds: Sequence[Sequence[float]]
) -> tuple[float, Gain | None]:
    """The profile's exact NashConv and (gain, player, start, stop, plan) of the interval
    where a player gains most by deviating (None when no interval gains :data:`GAIN`),
    from one exact best response per player."""
    payoffs, values, best = [], [], None
    for p in range(game.num_players):
        u, b, intervals = best_response(game, p, plans, thresholds)
        payoffs.append(u)
        values.append(max(b, u))  # as threshold_exploitability: rounding aside
        for run in intervals:
            if run.plan != run.played and run.gain > GAIN and (best is None or run.gain > best[0]):
                best = (run.gain, p, run.start, run.stop, run.plan)
    return float(exploitability_summary(payoffs, values)["nash_conv"]), best


def largest_gain(
    game: BayesianGame, plans: Sequence[Sequence[int]], thresholds: Sequence[Sequence[float]]
) -> Gain | None:
    """(gain, player, start, stop, plan) of the interval where a player gains most by
    deviating, by exact best responses; None when no interval gains :data:`GAIN`."""
    return certified(game, plans, thresholds)[1]


def repair(
    game: BayesianGame,
    plans: Plans,
    thresholds: Thresholds,
    *,
    target: float,
    deadline: float | None = None,
    steps: int = STEPS,
) -> Repaired:
    """Solve, certify and repair the model ``plans`` from ``thresholds`` (module
    docstring) until its exact NashConv is at most ``target``; returns the best profile."""
    low, high = float(game.breakpoints[0]), float(game.breakpoints[-1])
    plans = [list(p) for p in plans]
    thresholds = [list(t) for t in thresholds]
    best: Repaired | None = None
    records: list[dict] = []
    seen: set[tuple] = set()
    change = "as read"
    last = 0.0  # seconds of the last step: a step that would not end by the deadline is not begun
    for step in range(steps):
        began = time.perf_counter()
        if deadline is not None and began + last >= deadline:
            break
        thresholds, residual = solve_equations(game, plans, thresholds)
        for p in range(game.num_players):
            plans[p], thresholds[p] = _normalised(plans[p], thresholds[p], low, high)
        nash_conv, gain = certified(game, plans, thresholds)
        records.append(
            {
                "step": step,
                "change": change,
                "regions": [len(r) for r in plans],
                "residual": residual,
                "nash_conv": nash_conv,
            }
        )
        solved = residual <= RESIDUAL  # a program near these thresholds admits them
        if solved and (best is None or nash_conv < best.nash_conv):
            best = Repaired([list(p) for p in plans], [list(t) for t in thresholds], nash_conv)
        key = (tuple(map(tuple, plans)), tuple(tuple(np.round(t, 6)) for t in thresholds))
        if (solved and nash_conv <= target) or key in seen:
            break
        seen.add(key)
        last = time.perf_counter() - began
        if gain is None:
            break
        _, p, start, stop, plan = gain
        plans[p], thresholds[p] = _inserted(plans[p], thresholds[p], start, stop, plan, low, high)
        change = f"player {p + 1} plays its best response on [{start:.4f}, {stop:.4f}]"
    if best is None:
        best = Repaired(plans, thresholds, float("inf"))
    best.steps = records
    return best


__all__ = ["Repaired", "certified", "largest_gain", "repair", "solve_equations"]
