"""Exact best responses against threshold strategies of a continuous signal game.

In a game of :mod:`equilibria.models.bayesian` with continuous signals and piecewise-linear
CDFs, a threshold strategy plays one plan on each interval of signals. Against such
strategies, the value of a plan at signal ``x`` is a polynomial in ``x`` on every piece of
signal space cut at the CDFs' breakpoints and at every threshold: an opponent's mass below
``x`` inside one of its regions is linear in ``x`` there, and a player wins a showdown when
it beats every opponent still in, a product of such masses (degree ``players - 1``). So a
best response is found exactly, without cells: on every piece, the roots of the differences
between the plans' polynomials split it into intervals where one plan is best, and the
integral of that plan's polynomial against the (piecewise constant) density is exact.

Ties have probability zero with continuous signals and are ignored.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .bayesian import BayesianGame, exploitability_summary
from .betting import P1_WINS, P2_WINS
from .errors import GameError


@dataclass(frozen=True)
class ResponseInterval:
    """A maximal interval of signals ``[start, stop]`` on which one plan is a best response
    and one plan is played, with the player's expected gain there (joint, not conditional)
    by the best plan over the plan played."""

    start: float
    stop: float
    plan: int
    played: int
    gain: float


def _pieces(game: BayesianGame, thresholds: Sequence[Sequence[float]]) -> np.ndarray:
    """Edges of the pieces on which every CDF is linear and no threshold falls inside."""
    lo, hi = float(game.breakpoints[0]), float(game.breakpoints[-1])
    cuts = np.concatenate([game.breakpoints, *[np.asarray(t, dtype=float) for t in thresholds]])
    return np.unique(np.clip(cuts, lo, hi))


def _region_bounds(game: BayesianGame, thresholds: Sequence[float]) -> np.ndarray:
    lo, hi = float(game.breakpoints[0]), float(game.breakpoints[-1])
    return np.concatenate([[lo], np.clip(np.asarray(thresholds, dtype=float), lo, hi), [hi]])


def _beaten(game: BayesianGame, q: int, bounds: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per region of player ``q`` and piece: the linear polynomial (in the offset from the
    piece's start) of the mass of that region a signal at that offset beats; and the
    regions' masses. Shapes (regions, pieces, 2) and (regions,)."""
    F = game.signals[q]
    Fu, Fv = F(edges[:-1]), F(edges[1:])
    width = np.diff(edges)
    slope = np.divide(Fv - Fu, width, out=np.zeros_like(width), where=width > 0)
    Fb = F(bounds)
    mass = np.diff(Fb)
    regions = bounds.shape[0] - 1
    out = np.zeros((regions, edges.shape[0] - 1, 2))
    u, v = edges[:-1], edges[1:]
    for j in range(regions):
        a, b = bounds[j], bounds[j + 1]
        below = v <= a + 1e-15  # the whole piece lies below the region
        above = u >= b - 1e-15
        inside = ~below & ~above
        if game.winner == "higher":  # a signal beats the lower signals
            out[j, above, 0] = mass[j]
            out[j, inside, 0] = Fu[inside] - Fb[j]
            out[j, inside, 1] = slope[inside]
        else:
            out[j, below, 0] = mass[j]
            out[j, inside, 0] = Fb[j + 1] - Fu[inside]
            out[j, inside, 1] = -slope[inside]
    return out, mass


def _win_lose(game: BayesianGame, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Player ``p``'s payoff at every node of the betting tree when it beats every opponent
    still in, and when it does not (equal where the showdown does not matter to it)."""
    tree = game.tree
    win = np.zeros(tree.num_nodes)
    lose = np.zeros(tree.num_nodes)
    leaves = np.asarray(tree.terminals, dtype=np.int64)
    if game.num_players == 2:
        own, other = (P1_WINS, P2_WINS) if p == 0 else (P2_WINS, P1_WINS)
        win[leaves] = tree.payoff[leaves, own, p]
        lose[leaves] = tree.payoff[leaves, other, p]
        return win, lose
    strength = np.zeros((2, game.num_players))
    strength[0, p] = 1.0  # p the strongest
    strength[1] = 1.0
    strength[1, p] = 0.0  # p the weakest
    pay = tree.showdown_payoffs(strength)[:, :, p]
    win[leaves], lose[leaves] = pay[0], pay[1]
    return win, lose


def _polymul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Products of polynomials held as coefficient arrays on the last axis (lowest first)."""
    out = np.zeros(a.shape[:-1] + (a.shape[-1] + b.shape[-1] - 1,))
    for i in range(a.shape[-1]):
        out[..., i : i + b.shape[-1]] += a[..., i : i + 1] * b
    return out


def plan_value_polynomials(
    game: BayesianGame,
    p: int,
    region_plans: Sequence[Sequence[int]],
    thresholds: Sequence[Sequence[float]],
    edges: np.ndarray,
) -> np.ndarray:
    """Array (plans of ``p``, pieces, players): on every piece ``[edges[k], edges[k+1]]``,
    the coefficients (lowest first, in the offset from ``edges[k]``) of the polynomial
    giving player ``p``'s expected payoff of each own plan at that signal, conditional on
    the signal, against the other players' threshold strategies."""
    n = game.num_players
    tree = game.tree
    others = [q for q in range(n) if q != p]
    beaten, mass = {}, {}
    for q in others:
        beaten[q], mass[q] = _beaten(game, q, _region_bounds(game, thresholds[q]), edges)
    win, lose = _win_lose(game, p)
    folded = tree.folded_mask if n > 2 else None
    pieces = edges.shape[0] - 1
    plans = len(tree.plans[p])
    out = np.zeros((plans, pieces, n))
    terminals = tree.plan_terminals if n > 2 else tree.plan_terminal
    for profile in itertools.product(*[range(len(region_plans[q])) for q in others]):
        weight = float(np.prod([mass[q][j] for q, j in zip(others, profile)]))
        if weight <= 0.0:
            continue
        index: list = [0] * n
        for q, j in zip(others, profile):
            index[q] = region_plans[q][j]
        index[p] = slice(None)
        reached = np.asarray(terminals[tuple(index)], dtype=np.int64)  # per own plan
        out[:, :, 0] += weight * lose[reached][:, None]
        stake = win[reached] - lose[reached]
        # the product of the others' masses depends on the terminal only through who
        # folded there: one product per such set, shared by the plans that reach it
        if folded is None:
            code = np.zeros(plans, dtype=np.int64)
        else:
            code = folded[reached][:, others].astype(np.int64) @ (1 << np.arange(len(others)))
        live = stake != 0
        for pattern in set(code[live].tolist()):
            poly = np.ones((pieces, 1))
            for i, (q, j) in enumerate(zip(others, profile)):
                poly = poly * mass[q][j] if pattern >> i & 1 else _polymul(poly, beaten[q][j])
            rows = np.flatnonzero(live & (code == pattern))
            out[rows, :, : poly.shape[1]] += stake[rows, None, None] * poly[None]
    return out


def _roots_inside(c: np.ndarray, width: float) -> list[float]:
    """Real roots in (0, width) of the polynomial with coefficients ``c`` (lowest first)."""
    c = np.trim_zeros(np.where(np.abs(c) <= 1e-15 * max(1.0, float(np.abs(c).max())), 0.0, c), "b")
    if c.shape[0] <= 1:
        return []
    if c.shape[0] == 2:
        roots = np.array([-c[0] / c[1]])
    else:
        roots = np.roots(c[::-1])
        roots = roots.real[np.abs(roots.imag) <= 1e-12 * max(1.0, width)]
    return [float(x) for x in roots if 0.0 < x < width]


def _integral(c: np.ndarray, s0: float, s1: float) -> float:
    k = np.arange(1, c.shape[-1] + 1)
    return float(np.sum(c * (s1**k - s0**k) / k))


def _evaluate(c: np.ndarray, x: float) -> np.ndarray:
    return np.polynomial.polynomial.polyval(x, c.T)


def _own_plan_per_piece(
    game: BayesianGame, plans: Sequence[int], thresholds: Sequence[float], edges: np.ndarray
) -> np.ndarray:
    """The plan a player plays on each piece (a piece lies inside one of its regions)."""
    bounds = _region_bounds(game, thresholds)
    middle = (edges[:-1] + edges[1:]) / 2
    region = np.clip(np.searchsorted(bounds, middle, side="right") - 1, 0, len(plans) - 1)
    return np.asarray(plans, dtype=np.int64)[region]


def best_response(
    game: BayesianGame, p: int, region_plans: Sequence[Sequence[int]], thresholds: Sequence[Sequence[float]]
) -> tuple[float, float, list[ResponseInterval]]:
    """Player ``p``'s exact best response against threshold strategies: (the profile's
    expected payoff to ``p``, the best-response value, the intervals on which one plan is
    best, adjacent intervals of one plan merged). ``region_plans[q]`` are player q's plans
    (indices into ``game.tree.plans[q]``) from the lowest signals up and ``thresholds[q]``
    its thresholds in signal units, ascending."""
    if game.finite:
        raise GameError(f"'{game.name}' has finite signals; its best responses are exact in its extensive form")
    if game.deal != "independent":
        raise GameError("exact best responses against threshold strategies need independent signals")
    for q in range(game.num_players):
        if len(region_plans[q]) != len(thresholds[q]) + 1:
            regions = len(region_plans[q])
            raise GameError(f"player {q + 1}: {regions} regions need {regions - 1} thresholds")
        if np.any(np.diff(np.asarray(thresholds[q], dtype=float)) < -1e-6):
            raise GameError(f"player {q + 1}'s thresholds must ascend: {list(thresholds[q])}")
    # a solver's thresholds may cross within its feasibility tolerance: an empty region
    thresholds = [[float(v) for v in np.maximum.accumulate(np.asarray(t, dtype=float))] for t in thresholds]
    edges = _pieces(game, thresholds)
    poly = plan_value_polynomials(game, p, region_plans, thresholds, edges)
    own = _own_plan_per_piece(game, region_plans[p], thresholds[p], edges)
    F = game.signals[p]
    width = np.diff(edges)
    density = np.divide(np.diff(F(edges)), width, out=np.zeros_like(width), where=width > 0)
    payoff = best = 0.0
    intervals: list[ResponseInterval] = []
    plans = poly.shape[0]
    for k in range(width.shape[0]):
        h = float(width[k])
        if h <= 0 or density[k] <= 0:
            continue
        c = poly[:, k, :]
        payoff += density[k] * _integral(c[own[k]], 0.0, h)
        cuts = {0.0, h}
        for r1 in range(plans):
            for r2 in range(r1 + 1, plans):
                cuts.update(_roots_inside(c[r1] - c[r2], h))
        points = sorted(cuts)
        for s0, s1 in zip(points[:-1], points[1:]):
            if s1 - s0 <= 0:
                continue
            top = int(np.argmax(_evaluate(c, (s0 + s1) / 2)))
            value = density[k] * _integral(c[top], s0, s1)
            played = density[k] * _integral(c[own[k]], s0, s1)
            best += value
            start, stop = float(edges[k] + s0), float(edges[k] + s1)
            last = intervals[-1] if intervals else None
            if last and (last.plan, last.played) == (top, own[k]) and abs(last.stop - start) <= 1e-12:
                intervals[-1] = ResponseInterval(last.start, stop, top, own[k], last.gain + value - played)
            else:
                intervals.append(ResponseInterval(start, stop, top, int(own[k]), value - played))
    return payoff, best, intervals


def indifference_residuals(
    game: BayesianGame, region_plans: Sequence[Sequence[int]], thresholds: Sequence[Sequence[float]]
) -> np.ndarray:
    """At every threshold, its owner's expected payoff (conditional on the signal) of the
    plan below it minus that of the plan above, against the others' threshold strategies:
    the indifference equations of a threshold equilibrium, exact (the values are the
    polynomials of :func:`plan_value_polynomials`, continuous in the signal). Player 1's
    thresholds first, each player's ascending, as ``thresholds`` lists them."""
    thresholds = [[float(v) for v in t] for t in thresholds]
    edges = _pieces(game, thresholds)
    out: list[float] = []
    for p in range(game.num_players):
        if not thresholds[p]:
            continue
        poly = plan_value_polynomials(game, p, region_plans, thresholds, edges)
        at = np.asarray(thresholds[p], dtype=float)
        piece = np.clip(np.searchsorted(edges, at, side="right") - 1, 0, edges.shape[0] - 2)
        for j, (x, k) in enumerate(zip(at, piece)):
            values = _evaluate(poly[:, k, :], float(x - edges[k]))
            out.append(float(values[region_plans[p][j]] - values[region_plans[p][j + 1]]))
    return np.asarray(out)


def threshold_exploitability(
    game: BayesianGame, region_plans: Sequence[Sequence[int]], thresholds: Sequence[Sequence[float]]
) -> dict:
    """Exploitability (NashConv / players), NashConv, payoffs and best-response values of a
    profile of threshold strategies, computed exactly (see the module docstring); the keys
    of :meth:`equilibria.models.bayesian.FiniteSignalGame.exploitability`."""
    payoffs, values = [], []
    for p in range(game.num_players):
        u, b, _ = best_response(game, p, region_plans, thresholds)
        payoffs.append(u)
        values.append(max(b, u))  # a best response is never worse than the play; rounding aside
    return exploitability_summary(payoffs, values)


__all__ = [
    "ResponseInterval",
    "best_response",
    "indifference_residuals",
    "plan_value_polynomials",
    "threshold_exploitability",
]
