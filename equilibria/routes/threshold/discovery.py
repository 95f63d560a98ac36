"""Qualitative models found from the game instead of written by hand.

A threshold program needs a parametric model: per player the sequence of plans from the
lowest signals up, and the order of all players' thresholds. Ganzfried and Sandholm
("Computing equilibria by incorporating qualitative models", 2010) note that finding it is
the hard part. :func:`search` finds one for two-player signal games, :func:`search_many`
for continuous games of three or more players (read from CFR+ on cells, repaired by the
model's indifference equations, its program solved near their solution; see there);
:func:`equilibria.routes.threshold.route.discover_model` and ``threshold --model auto``
call them. Two players:

1. **Read a discretisation.** The game on ``cells`` equal cells (or its own finite signals)
   is solved by the sequence-form LP. Per signal, the plans that are best responses to the
   other player's strategy form a set; signals with the same set form a *band*, and inside a
   band the plans the LP uses become regions, ordered so that the plan the band below ends
   with comes first and the plans the band above starts with come last (the others by their
   order in the betting tree, passive before aggressive). A band's regions split its width
   by the LP's mass on each plan, which places the thresholds; sorting all thresholds gives
   the order.
2. **Solve and certify.** The continuous (or finite) threshold program is solved with the
   model and the answer certified by exact best responses.
3. **Repair.** The models near the one read are searched best first. When an answer is
   exploitable, its neighbours are: the model without the regions the answer leaves
   empty; the model in which the player who gains most plays its best response on the
   interval where it gains (that plan inserted as a new region, found by exact best
   responses for continuous signals); and every model with one region fewer (a region
   given to the one below or above it, neighbours of one plan merged). An infeasible
   model's neighbours are those with one region fewer, tried after every exploitable
   model's. When :data:`REPAIRS` programs do not answer, a finer discretisation is
   read. Every attempt, and the change that led to it, is recorded in
   :attr:`Discovery.attempts`.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...instances.bayesian_games import standard_models
from ...models.bayesian import BayesianGame, FiniteSignalGame, plans_from_behavior
from ...models.errors import GameError, SolveFailed
from ...models.parametric import ModelError, ModelInfeasible, ParametricModel, project
from .equations import largest_gain, repair

#: Discretisations read in turn, coarse first (a coarse LP is quick and its bands clean).
DISCRETISATIONS = (100, 200, 400)
#: Most programs solved while repairing one discretisation's model.
REPAIRS = 30
#: Relative tolerance of "a best response" when reading the LP's plans.
INDIFFERENCE = 1e-7
#: Cells of the certificate's cross-check (two players), or of a certificate asked on cells.
CHECK_CELLS = 2000


@dataclass
class Discovery:
    """What :func:`discover_model` found: the model, the certified answer with it (None when
    no attempt answered), and every attempt (discretisation, model in words, outcome)."""

    model: ParametricModel | None
    answer: Any
    attempts: list[dict] = field(default_factory=list)
    relation: dict[str, str] = field(default_factory=dict)
    #: three or more players: the certified answer of least NashConv, within epsilon or not
    best: Any = None


def _plan_spec(game: BayesianGame, p: int, q: int) -> dict[str, str]:
    tree = game.tree
    return {tree.history[v]: tree.action_labels(v)[a] for v, a in tree.plans[p][q].items()}


def _order_by_position(where: dict[str, float]) -> list[tuple[str, str]]:
    """The thresholds (name: position) as a chain ``a <= b``, lowest first."""
    named = sorted((c, k) for k, c in where.items())
    return [(named[i][1], named[i + 1][1]) for i in range(len(named) - 1)]


def _bands(best: np.ndarray) -> list[list]:
    """Maximal runs of signals with the same set of best-response plans: [plans, first, last]."""
    bands: list[list] = []
    for s in range(best.shape[0]):
        key = tuple(int(q) for q in np.flatnonzero(best[s]))
        if bands and bands[-1][0] == key:
            bands[-1][2] = s
        else:
            bands.append([key, s, s])
    return bands


def read_model(game: BayesianGame, finite: FiniteSignalGame, plans: list[np.ndarray], name: str) -> ParametricModel:
    """The model a discretised profile ``plans`` (per player, signals x plans) follows, read
    band by band as the module docstring describes; its thresholds are placed in signal
    units of ``finite`` and ordered by position."""
    regions: list[list[int]] = []
    cuts: list[list[float]] = []
    for p in range(2):
        mix = np.asarray(plans[p], dtype=float)
        values = finite.plan_values(p, plans[1 - p])
        scale = max(1.0, float(np.abs(values).max(initial=0.0)))
        best = values >= values.max(axis=1, keepdims=True) - INDIFFERENCE * scale
        bands = _bands(best)
        used = []
        for _, a, b in bands:
            mass = mix[a : b + 1].sum(axis=0)
            used.append([q for q in range(mix.shape[1]) if mass[q] > 1e-6 * (b - a + 1)])
        seq: list[int] = []
        at: list[float] = []
        for i, (_, a, b) in enumerate(bands):
            here = set(used[i])
            first = [seq[-1]] if seq and seq[-1] in here else []
            above = set(used[i + 1]) if i + 1 < len(bands) else set()
            last = sorted((here & above) - set(first))
            middle = sorted(here - set(first) - set(last))
            mass = mix[a : b + 1].sum(axis=0)
            position = float(a)
            for q in first + middle + last:
                if seq and seq[-1] != q:
                    at.append(position)
                if not seq or seq[-1] != q:
                    seq.append(q)
                position += float(mass[q])
        regions.append(seq)
        cuts.append(at)
    order = _order_by_position({f"{p + 1}.{j + 1}": c for p in range(2) for j, c in enumerate(cuts[p])})
    return ParametricModel(
        name,
        tuple([_plan_spec(game, p, q) for q in regions[p]] for p in range(2)),
        order=order,
        game=game.name,
        description=f"found from the game's equilibrium on {finite.sizes[0]} signals",
    )


#: The LP method that reads a discretisation: one fixed method, so that the model found does
#: not depend on which of HiGHS's concurrent methods finishes first.
READ_METHOD = "simplex"


def _discretised_profile(game: BayesianGame, cells: int) -> tuple[FiniteSignalGame, list[np.ndarray]]:
    from ...models.sequence import SequenceForm
    from ..lp import solve_sequence_form

    finite = game.finite_game() if game.finite else game.discretize(cells)
    efg = finite.to_extensive()
    sf = SequenceForm(efg)
    run = solve_sequence_form(sf, method=READ_METHOD)
    return finite, plans_from_behavior(finite, efg, sf, run.behaviors)


def _positions(answer: Any) -> dict[str, float]:
    """The answer's thresholds by name, in signal space."""
    out = {}
    for p, values in enumerate(answer.thresholds):
        for j, t in enumerate(values):
            out[f"{p + 1}.{j + 1}"] = float(t)
    return out


def _largest_gain(game: BayesianGame, model: ParametricModel, answer: Any) -> tuple[int, float, float, int] | None:
    """Where the answer's largest gain lies: (player, interval start, interval end in signal
    units, the plan that gains); None when no signal gains. Continuous games by exact best
    responses, finite ones signal by signal."""
    plan_index = model.plan_indices(game)
    if not game.finite:
        gain = largest_gain(game, plan_index, answer.thresholds)
        return None if gain is None else gain[1:]
    best: tuple[float, tuple[int, float, float, int]] | None = None
    finite = game.finite_game()
    edges = np.arange(finite.sizes[0] + 1.0)
    sigmas = project(game, model, answer.thresholds, finite, edges)
    for p in range(game.num_players):
        values = finite.profile_plan_values(p, sigmas)
        gain = values.max(axis=1) - (values * sigmas[p]).sum(axis=1)
        scale = max(1.0, float(np.abs(values).max(initial=0.0)))
        gaining = np.flatnonzero(np.diff(np.r_[0, (gain > 1e-9 * scale).astype(np.int8), 0]))
        for s, stop in zip(gaining[::2], gaining[1::2]):  # runs [s, stop) of gaining signals
            total = float(gain[s:stop].sum())
            if best is None or total > best[0]:
                e = int(stop) - 1
                best = (total, (p, float(edges[s]), float(edges[e + 1]), int(values[(s + e) // 2].argmax())))
    return None if best is None else best[1]


def insert_best_response(game: BayesianGame, model: ParametricModel, answer: Any) -> ParametricModel | None:
    """The model with one region more: where the answer's largest gain lies, the plan that
    gains, for the player who gains (see the module docstring); None when no signal gains."""
    found = _largest_gain(game, model, answer)
    if found is None:
        return None
    p, low, high, q = found
    plan_index = model.plan_indices(game)
    positions = _positions(answer)
    own = [positions[f"{p + 1}.{j + 1}"] for j in range(len(model.regions[p]) - 1)]
    middle = (low + high) / 2
    r = int(np.searchsorted(own, middle))  # the region the gaining signals lie in
    if plan_index[p][r] == q:
        return None
    spec = _plan_spec(game, p, q)
    lower_edge = own[r - 1] if r > 0 else -np.inf
    upper_edge = own[r] if r < len(own) else np.inf
    cell = 1.0 if game.finite else 1e-9  # the narrowest remainder kept beside the new region
    regions = list(model.regions[p])
    new_regions: list[dict] = regions[:r]
    new_cuts: list[float] = own[:r]
    if low - lower_edge > cell:
        new_regions.append(regions[r])
        new_cuts.append(low)
    new_regions.append(spec)
    if upper_edge - high > cell:
        new_cuts.append(high)
        new_regions.append(regions[r])
    if r < len(own):
        new_cuts.append(own[r])
    new_regions += regions[r + 1 :]
    new_cuts += own[r + 1 :]
    # adjacent regions with one plan merge (their threshold goes)
    merged_regions, merged_cuts = [new_regions[0]], []
    for k in range(1, len(new_regions)):
        if new_regions[k] == merged_regions[-1]:
            continue
        merged_regions.append(new_regions[k])
        merged_cuts.append(new_cuts[k - 1])
    all_regions = list(model.regions)
    all_regions[p] = merged_regions
    where = {
        f"{o + 1}.{j + 1}": positions[f"{o + 1}.{j + 1}"]
        for o in range(game.num_players)
        if o != p
        for j in range(len(model.regions[o]) - 1)
    }
    where.update({f"{p + 1}.{j + 1}": c for j, c in enumerate(merged_cuts)})
    order = _order_by_position(where)
    return ParametricModel(model.name, tuple(all_regions), order=order, game=model.game, description=model.description)


def without_empty_regions(model: ParametricModel, answer: Any) -> ParametricModel | None:
    """The model without the regions the answer leaves empty (width zero), neighbours with
    one plan merged and the order kept for the thresholds that remain; None when no region
    is empty."""
    positions = _positions(answer)
    regions, where = [], {}
    changed = False
    for p, plans in enumerate(model.regions):
        cuts = [positions[f"{p + 1}.{j + 1}"] for j in range(len(plans) - 1)]
        bounds = [-np.inf, *cuts, np.inf]
        kept: list[dict] = []
        kept_cuts: list[float] = []
        for r, plan in enumerate(plans):
            if bounds[r + 1] - bounds[r] <= 1e-9 and len(plans) > 1:
                changed = True
                continue
            if kept and kept[-1] == plan:
                changed = True
                continue
            if kept:
                kept_cuts.append(bounds[r])
            kept.append(plan)
        regions.append(kept)
        where.update({f"{p + 1}.{j + 1}": c for j, c in enumerate(kept_cuts)})
    if not changed:
        return None
    order = _order_by_position(where)
    return ParametricModel(model.name, tuple(regions), order=order, game=model.game, description=model.description)


def _chain(model: ParametricModel) -> list[str]:
    """The model's thresholds as one chain, lowest first (found models order them totally)."""
    closure = model.order_closure()
    names = model.threshold_names
    return sorted(names, key=lambda a: sum(closure.get((b, a), False) for b in names))


def without_region(model: ParametricModel, p: int, j: int, absorb: str) -> ParametricModel | None:
    """The model without player ``p``'s region ``j`` (from 0): the region below takes its
    signals (``absorb="below"``) or the region above (``"above"``); neighbours with one
    plan merge. The order of the thresholds that remain is kept. None when ``p`` has one
    region, or the removal leaves the model as it was."""
    regions = list(model.regions[p])
    count = len(regions)
    if count < 2 or (absorb == "below" and j == 0) or (absorb == "above" and j == count - 1):
        return None
    # threshold k (from 1) separates regions k - 1 and k
    gone = {j} if absorb == "below" else {j + 1}
    if 0 < j < count - 1 and regions[j - 1] == regions[j + 1]:
        gone = {j, j + 1}
    kept = [k for k in range(1, count) if k not in gone]
    rename = {f"{p + 1}.{k}": f"{p + 1}.{i + 1}" for i, k in enumerate(kept)}
    chain = [rename.get(t, t) for t in _chain(model) if t not in {f"{p + 1}.{k}" for k in gone}]
    new_regions = regions[:j] + regions[j + 1 :]
    if len(gone) == 2:
        del new_regions[j]  # the region above merges into the one below
    all_regions = list(model.regions)
    all_regions[p] = new_regions
    order = [(chain[i], chain[i + 1]) for i in range(len(chain) - 1)]
    return ParametricModel(model.name, tuple(all_regions), order=order, game=model.game, description=model.description)


def _removals(model: ParametricModel) -> list[tuple[ParametricModel, str]]:
    """Every model with one region fewer (:func:`without_region`), with what changed."""
    out = []
    for p in range(model.num_players):
        for j in range(len(model.regions[p])):
            for absorb in ("below", "above"):
                smaller = without_region(model, p, j, absorb)
                if smaller is not None:
                    out.append((smaller, f"removed player {p + 1}'s region {j + 1} (the region {absorb} took it)"))
    return out


def _key(model: ParametricModel) -> tuple:
    return (
        tuple(tuple(tuple(sorted(r.items())) for r in regions) for regions in model.regions),
        tuple(_chain(model)),
    )


def relation_to_shipped(game: BayesianGame, model: ParametricModel) -> dict[str, str]:
    """How ``model`` relates to each shipped model of the game: ``equal`` (regions and
    order), ``same regions, another order``, ``refines`` (its region sequences are a
    US-refinement of the shipped one's), ``coarser`` (the other way round) or ``neither``."""
    out = {}
    for name, shipped in standard_models(game).items():
        if shipped.num_players != model.num_players:
            continue
        same = all(
            [sorted(r.items()) for r in model.regions[p]] == [sorted(r.items()) for r in shipped.regions[p]]
            for p in range(model.num_players)
        )
        if same:
            ordered = model.order_closure() == shipped.order_closure()
            out[name] = "equal" if ordered else "same regions, another order"
        elif model.us_refines(shipped):
            out[name] = "refines"
        elif shipped.us_refines(model):
            out[name] = "coarser"
        else:
            out[name] = "neither"
    return out


def _answer_or_none(
    solve: Callable[..., Any], game: BayesianGame, model: ParametricModel | None, **options: Any
) -> Any:
    """The certified answer of ``model``'s program; None for no model, or one that does not
    answer (infeasible or not a model)."""
    if model is None:
        return None
    try:
        return solve(game, model, **options)
    except ModelError:  # ModelInfeasible too
        return None


#: Three or more players: the cells read in turn (CFR+ on each), finer until the exact
#: certificate of the thresholds read meets the target NashConv.
MANY_PLAYER_CELLS = (20, 40, 60, 80)
#: Most seconds of CFR+ on each of them; it stops sooner when its profile's NashConv on
#: the cells is a tenth of the target (so the reading does not depend on the machine's speed).
CFR_SECONDS = 60.0
#: The NashConv on the cells below which CFR+ stops: the reading's error is the cells'.
CFR_TARGET = 1e-4
#: Seconds the coarsest cells need at least (build, CFR+, reading); finer ones need more in
#: proportion to their deals.
CELL_SECONDS = 3.0
#: Target NashConv of a model found for three or more players, unless one is given.
MANY_PLAYER_EPSILON = 1e-3
#: A cell's plan probability below this is taken for CFR+'s noise.
MIX_FLOOR = 0.02
#: ... unless the profile is certified an equilibrium to rounding (Newton's method on the
#: support gives such profiles), where a small probability is part of the equilibrium.
EXACT_FLOOR = 1e-9


def noise_floor(nash_conv: float) -> float:
    """The plan probability below which a profile certified at ``nash_conv`` is read as
    not mixing: :data:`MIX_FLOOR` for CFR+'s noise, :data:`EXACT_FLOOR` for an exact
    equilibrium."""
    return EXACT_FLOOR if nash_conv <= EXACT_FLOOR else MIX_FLOOR


def _read(
    game: BayesianGame, regions: list[list[int]], cuts: list[list[float]], name: str, description: str
) -> tuple[ParametricModel, tuple[list[float], ...]]:
    """The model whose players play ``regions`` (plan indices, lowest signals first) cut at
    ``cuts``, its thresholds ordered by position, and the thresholds."""
    players = range(game.num_players)
    model = ParametricModel(
        name,
        tuple([_plan_spec(game, p, q) for q in regions[p]] for p in players),
        order=_order_by_position({f"{p + 1}.{j + 1}": c for p in players for j, c in enumerate(cuts[p])}),
        game=game.name,
        description=description,
    )
    return model, tuple(cuts)


def read_cell_model(
    game: BayesianGame, finite: FiniteSignalGame, plans: list[np.ndarray], name: str, floor: float = MIX_FLOOR
) -> tuple[ParametricModel, tuple[list[float], ...]]:
    """The model and thresholds a discretised profile ``plans`` (per player, cells x plans)
    follows cell by cell: each cell is split among the plans it mixes in proportion to
    their probabilities, the plan the cell below ends with first and the others by
    decreasing probability; neighbouring pieces of one plan form a region. Cell by cell
    and not band by band, because with three or more players a band in which one player
    mixes can hold another player's threshold, and moving the mixture's plans across the
    band moves what that player faces (:func:`read_band_model` bands each history
    alone, which that concern spares where it holds; both are tried)."""
    edges = finite.cell_edges if finite.cell_edges is not None else np.arange(finite.sizes[0] + 1.0)
    regions: list[list[int]] = []
    cuts: list[list[float]] = []
    for p in range(game.num_players):
        sequence: list[int] = []
        at: list[float] = []
        for s in range(finite.sizes[p]):
            mix = np.asarray(plans[p][s], dtype=float)
            mix = np.where(mix >= floor, mix, 0.0) if mix.max() >= floor else mix
            mix = mix / mix.sum()
            order = [int(q) for q in np.argsort(-mix, kind="stable") if mix[q] > 0]
            if sequence and sequence[-1] in order:
                order.remove(sequence[-1])
                order.insert(0, sequence[-1])
            position, width = float(edges[s]), float(edges[s + 1] - edges[s])
            for q in order:
                if not sequence or sequence[-1] != q:
                    if sequence:
                        at.append(position)
                    sequence.append(q)
                position += float(mix[q]) * width
        regions.append(sequence)
        cuts.append(at)
    return _read(game, regions, cuts, name, f"read from the game's CFR+ profile on {finite.sizes[0]} cells")


#: Own reach of a history below which a signal's action there is free (the signal does not
#: get there).
REACH_FLOOR = 0.02


def _history_steps(
    plan_probs: np.ndarray, acts: np.ndarray, edges: np.ndarray, floor: float = MIX_FLOOR
) -> list[tuple[float, int]]:
    """One history's action along the signal line, as (start, action) steps, from the
    plan probabilities ``plan_probs`` (cells x plans) and the action ``acts[q]`` each plan
    takes there (-1: the plan does not get there). A run of cells that mix (a band) keeps
    each action's total mass and plays it in one piece: the action the cell below ended
    with first, the one the cell above starts with last, the others by decreasing mass."""
    reach = plan_probs[:, acts >= 0].sum(axis=1)
    num_actions = int(acts.max()) + 1
    mix = np.stack([plan_probs[:, acts == a].sum(axis=1) for a in range(num_actions)], axis=1)
    mix = mix / np.maximum(reach, 1e-300)[:, None]
    mix = np.where(mix >= floor, mix, 0.0)
    mix = mix / np.maximum(mix.sum(axis=1), 1e-300)[:, None]
    reached = reach >= REACH_FLOOR
    pure = reached & (mix.max(axis=1) >= 1.0 - 1e-9)
    steps: list[tuple[float, int]] = []

    def play(start: float, action: int) -> None:
        if not steps:
            steps.append((float(edges[0]), action))
        elif steps[-1][1] != action:
            steps.append((start, action))

    s, cells = 0, plan_probs.shape[0]
    while s < cells:
        if not reached[s]:
            s += 1
            continue
        if pure[s]:
            play(float(edges[s]), int(np.argmax(mix[s])))
            s += 1
            continue
        first = s
        while s < cells and not pure[s]:
            s += 1
        inside = [c for c in range(first, s) if reached[c]]
        mass = sum(mix[c] * (edges[c + 1] - edges[c]) for c in inside)
        before = steps[-1][1] if steps else None
        after = int(np.argmax(mix[s])) if s < cells else None
        order = sorted((a for a in range(num_actions) if mass[a] > 0), key=lambda a: -mass[a])
        if after in order:
            order.remove(after)
            order.append(after)
        if before in order:
            order.remove(before)
            order.insert(0, before)
        start, width = float(edges[first]), float(edges[s] - edges[first])
        for a in order:
            play(start, a)
            start += width * float(mass[a] / mass.sum())
    if not steps:
        steps.append((float(edges[0]), 0))
    return steps


def read_band_model(
    game: BayesianGame, finite: FiniteSignalGame, plans: list[np.ndarray], name: str, floor: float = MIX_FLOOR
) -> tuple[ParametricModel, tuple[list[float], ...]]:
    """The model a discretised profile ``plans`` (per player, cells x plans) follows
    history by history: at each of a player's histories the cells that mix between actions
    form bands, and a band keeps each action's mass but plays it in one piece
    (:func:`_history_steps`). Where a player is indifferent across a band, as a caller is
    between the bettor's value bets and bluffs, CFR+ mixes in every cell of it and a
    reading cell by cell alternates the actions once per cell; the opponents that face the
    history have no signal inside the band, so only the mass matters to them. A region is
    a run of signals with one action at every history; its plan is the game's plan that
    takes those actions where it gets."""
    edges = finite.cell_edges if finite.cell_edges is not None else np.arange(finite.sizes[0] + 1.0)
    tree = game.tree
    regions: list[list[int]] = []
    cuts: list[list[float]] = []
    for p in range(game.num_players):
        acts = tree.plan_actions(p)  # (plans, nodes)
        nodes = tree.decision_nodes(p)
        steps = {v: _history_steps(np.asarray(plans[p], dtype=float), acts[:, v], edges, floor) for v in nodes}
        starts = sorted({x for st in steps.values() for x, _ in st})
        sequence: list[int] = []
        at: list[float] = []
        for x in starts:
            chosen = {v: next(a for y, a in reversed(st) if y <= x) for v, st in steps.items()}
            matches = (acts[:, nodes] == np.array([chosen[v] for v in nodes])) | (acts[:, nodes] < 0)
            q = int(np.flatnonzero(matches.all(axis=1))[0])
            if not sequence or sequence[-1] != q:
                if sequence:
                    at.append(x)
                sequence.append(q)
        regions.append(sequence)
        cuts.append(at)
    return _read(
        game, regions, cuts, name, f"read band by band from the game's CFR+ profile on {finite.sizes[0]} cells"
    )


def search_many(
    game: BayesianGame,
    certify: Callable[..., Any],
    *,
    solve_near: Callable[..., Any] | None = None,
    epsilon: float = MANY_PLAYER_EPSILON,
    time_limit: float | None = None,
    discretisations: tuple[int, ...] = MANY_PLAYER_CELLS,
    seconds: float = CFR_SECONDS,
) -> Discovery:
    """Find a model of a continuous signal game of three or more players, and its threshold
    program's answer: CFR+ on ever finer discretisations; each profile read band by band
    (:func:`read_band_model`), that model repaired by solving its indifference equations
    exactly (:func:`~equilibria.routes.threshold.equations.repair`), and
    ``solve_near(game, model, thresholds, epsilon)`` solving the model's threshold program
    in a box around the thresholds the equations give (where its products are
    approximated closely without binaries). ``certify(game, model, thresholds, epsilon)``
    certifies thresholds read without a program by exact best responses: the band and cell
    by cell readings (:func:`read_cell_model`) answer, program-less, when no program does.
    ``Discovery.answer`` is the first answer within ``epsilon`` (None when none is),
    ``Discovery.model`` the best model found."""
    from ...core.anytime import seed_profile
    from ...models.progress import stage
    from ...models.sequence import SequenceForm
    from ...models.strategy import behavior_from_realization

    if game.finite:
        raise GameError(
            f"models of three or more players are found for continuous signals; '{game.name}' has finite "
            "signals (solve it with nash, or threshold with a model)"
        )
    t0 = time.perf_counter()
    found = Discovery(None, None)
    reading: Any = None  # the first reading within epsilon, answered when no program is

    def left() -> float | None:
        return None if time_limit is None else time_limit - (time.perf_counter() - t0)

    def keep(model: ParametricModel, answer: Any, record: dict) -> bool:
        nash_conv = float(answer.nash_conv)
        record.update(
            outcome="equilibrium" if nash_conv <= epsilon else "exploitable",
            exploitability=float(answer.exploitability),
            nash_conv=nash_conv,
        )
        found.attempts.append(record)
        if found.best is None or nash_conv < found.best.nash_conv:
            found.model, found.best = model, answer
        return nash_conv <= epsilon

    for cells in discretisations:
        remaining = left()
        if remaining is not None and remaining < CELL_SECONDS * (cells / MANY_PLAYER_CELLS[0]) ** game.num_players:
            break  # too little time to build these cells' game, run CFR+ on it and read it
        # half of the time left at most: the readings, the equations and the program follow
        budget = seconds if remaining is None else min(seconds, 0.5 * remaining)
        finite = game.discretize(cells)
        efg = finite.to_extensive()
        sf = SequenceForm(efg)
        with stage(f"CFR+ on {cells} cells ({efg.num_nodes:,} nodes)"):
            # CFR+ alone: on a discretised continuous game it converges well (NashConv 8e-6
            # on 20 cells of three-player continuous Kuhn), and the reading's error is the
            # cells', which an exact equilibrium of the cells does not remove
            seed = seed_profile(sf, target=max(epsilon / 10, CFR_TARGET), seconds=budget, polish=False)
        behaviors = [behavior_from_realization(ps, r) for ps, r in zip(sf.players, seed.plans)]
        plans = plans_from_behavior(finite, efg, sf, behaviors)
        seeded = {"signals": cells, "cfr_iterations": seed.iterations, "cfr_nash_conv": float(seed.nash_conv)}
        band, band_cuts = read_band_model(game, finite, plans, "auto", noise_floor(seed.nash_conv))
        answer = certify(game, band, band_cuts, epsilon)
        record = {**seeded, "repair": 0, "change": "read band by band", "regions": [len(r) for r in band.regions]}
        if keep(band, answer, record) and reading is None:
            reading = answer
        if solve_near is not None:
            deadline = None if time_limit is None else t0 + time_limit
            answer = _repaired_program(game, band, band_cuts, solve_near, epsilon, deadline, found, seeded, keep)
            if answer is not None:
                found.answer = answer
                found.relation = relation_to_shipped(game, answer.model)
                return found
        if reading is None:
            cell, cell_cuts = read_cell_model(game, finite, plans, "auto", noise_floor(seed.nash_conv))
            answer = certify(game, cell, cell_cuts, epsilon)
            if keep(
                cell,
                answer,
                {**seeded, "repair": 0, "change": "read cell by cell", "regions": [len(r) for r in cell.regions]},
            ):
                reading = answer
        if reading is not None:
            found.answer = reading
            found.relation = relation_to_shipped(game, reading.model)
            return found
    return found


#: Seconds the equations of a model read from a discretisation may take to repair it.
EQUATION_SECONDS = 40.0
#: Fewest seconds worth writing the program near the equations' solution with (a few
#: programs are built while its box narrows).
PROGRAM_LEAST_SECONDS = 4.0
#: The share of the time left the equations may take (the program takes a few seconds).
EQUATION_TIME_SHARE = 0.6
#: Fewest seconds worth starting the equations with (a step takes seconds on three-player Kuhn).
EQUATION_LEAST_SECONDS = 3.0
#: The NashConv the repair aims at, as a share of epsilon: the program's answer lies in a
#: box around the repaired thresholds, and may certify a little above them.
EQUATION_SHARE = 0.5


def _repaired_program(
    game: BayesianGame,
    model: ParametricModel,
    cuts: tuple[list[float], ...],
    solve_near: Callable[..., Any],
    epsilon: float,
    deadline: float | None,
    found: Discovery,
    seeded: dict,
    keep: Callable[[ParametricModel, Any, dict], bool],
) -> Any:
    """``model``, read at ``cuts``, repaired by its indifference equations
    (:mod:`.equations`) and its threshold program solved near the repaired thresholds;
    the program's answer when it certifies within ``epsilon``, else None (a program solved
    above epsilon is kept as ``found.best``). The repair takes
    at most :data:`EQUATION_TIME_SHARE` of the time left before ``deadline`` (a ``time.perf_counter()`` instant, or
    None), the program the rest. Every step of the repair, and the program, go into
    ``found.attempts``."""
    from ...models.progress import stage

    def left() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    remaining = left()
    seconds = EQUATION_SECONDS if remaining is None else min(EQUATION_SECONDS, EQUATION_TIME_SHARE * remaining)
    if seconds < EQUATION_LEAST_SECONDS:
        return None
    with stage("solving the model's indifference equations"):
        repaired = repair(
            game,
            [list(q) for q in model.plan_indices(game)],
            [list(c) for c in cuts],
            target=EQUATION_SHARE * epsilon,
            deadline=time.perf_counter() + seconds,
        )
    for step in repaired.steps:
        found.attempts.append(
            {
                **seeded,
                "repair": step["step"] + 1,
                "change": f"equations: {step['change']}",
                "regions": step["regions"],
                "residual": step["residual"],
                "outcome": "equilibrium" if step["nash_conv"] <= epsilon else "exploitable",
                "nash_conv": step["nash_conv"],
            }
        )
    if not math.isfinite(repaired.nash_conv):
        return None  # no model's equations were solved
    # above epsilon too: the program's answer is the best held should the time run out
    near, thresholds = _read(
        game,
        repaired.plans,
        repaired.thresholds,
        "auto",
        f"read band by band from the game's CFR+ profile on {seeded['signals']} cells, repaired by its "
        "indifference equations",
    )
    remaining = left()
    if remaining is not None and remaining < PROGRAM_LEAST_SECONDS:
        return None
    record = {
        **seeded,
        "change": "threshold program near the equations' solution",
        "regions": [len(r) for r in near.regions],
    }
    try:
        answer = solve_near(game, near, thresholds, epsilon, time_limit=remaining)
    except (ModelError, SolveFailed) as exc:  # no solution in the box, or none in time
        found.attempts.append({**record, "outcome": f"not solved: {exc}"})
        return None
    return answer if keep(near, answer, record) else None


#: Finite signals, three or more players: most seconds of CFR+ before a model is read, and
#: the share of the time left it may take.
FINITE_CFR_SECONDS = 30.0
#: The NashConv the profile a finite game's model is read from aims at: exact, to rounding.
EXACT_SEED = 1e-12
FINITE_CFR_SHARE = 0.3
#: Breakpoints per square of a read model's rounds: its first program starts in a box
#: around thresholds read from a profile near an equilibrium, where a chord per square
#: (a program without binaries) is close enough, and the rounds' boxes shrink from there;
#: nine breakpoints gave HiGHS no incumbent in two minutes on three-player G_6.
FOUND_BREAKPOINTS = 2


@dataclass(frozen=True)
class FiniteStart:
    """Where the located rounds of a finite game of three or more players start with a
    model read from the game: the model, its thresholds in CFR+'s profile (signal index
    units, by name), the profile in words, and the reading's record."""

    model: ParametricModel
    guess: dict[str, float]
    source: str
    attempts: list[dict]


def read_finite_start(game: BayesianGame, *, time_limit: float | None) -> FiniteStart:
    """A model read from an equilibrium of a finite game with three or more players, and
    the thresholds to start its located rounds from. CFR+, then the Liapunov descent and
    Newton's method on the support (:func:`~equilibria.core.anytime.seed_profile`), aim at
    an equilibrium exact to rounding for at most :data:`FINITE_CFR_SECONDS` (or
    :data:`FINITE_CFR_SHARE` of ``time_limit``); the profile is read signal by signal
    (:func:`read_cell_model`), exactly when it is exact. The rounds' seed certifies the
    thresholds read."""
    from ...core.anytime import seed_profile
    from ...models.progress import stage
    from ...models.sequence import SequenceForm
    from ...models.strategy import behavior_from_realization

    finite = game.finite_game()
    efg = finite.to_extensive()
    sf = SequenceForm(efg)
    seconds = FINITE_CFR_SECONDS if time_limit is None else min(FINITE_CFR_SECONDS, FINITE_CFR_SHARE * time_limit)
    with stage(f"an equilibrium of the game ({efg.num_nodes:,} nodes)"):
        # an equilibrium exact to rounding is read exactly; CFR+'s noise is not
        seed = seed_profile(sf, target=EXACT_SEED, seconds=seconds)
    source = f"the profile of {seed.how}, NashConv {seed.nash_conv:.1e}"
    behaviors = [behavior_from_realization(ps, r) for ps, r in zip(sf.players, seed.plans)]
    plans = plans_from_behavior(finite, efg, sf, behaviors)
    model, cuts = read_cell_model(game, finite, plans, "found", noise_floor(seed.nash_conv))
    model = dataclasses.replace(model, description=f"read from {source}")
    guess = {f"{p + 1}.{j + 1}": c for p in range(game.num_players) for j, c in enumerate(cuts[p])}
    attempt = {
        "model": "found",
        "change": "read signal by signal",
        "regions": [len(r) for r in model.regions],
        "cfr_iterations": seed.iterations,
        "cfr_nash_conv": float(seed.nash_conv),
    }
    return FiniteStart(model, guess, source, [attempt])


def search(
    game: BayesianGame,
    solve: Callable[..., Any],
    *,
    discretisations: tuple[int, ...] = DISCRETISATIONS,
    repairs: int = REPAIRS,
    time_limit: float | None = None,
    backend: str = "highs",
    cells: int = CHECK_CELLS,
) -> Discovery:
    """Find a parametric model of a two-player signal game (see the module docstring);
    ``solve(game, model, backend=, cells=)`` solves and certifies the threshold program of a
    model (:func:`equilibria.routes.threshold.route.solve_threshold`). ``discretisations`` are the
    numbers of cells read in turn (continuous signals), ``repairs`` the most programs per
    discretisation, ``time_limit`` seconds for the whole search, ``cells`` those of the
    certificate. Use :func:`equilibria.routes.threshold.route.discover_model`."""
    t0 = time.perf_counter()
    if game.num_players != 2:
        raise GameError(f"search finds models of two-player games; '{game.name}' has {game.num_players} (search_many)")
    found = Discovery(None, None)
    closest: tuple[float, ParametricModel, Any] | None = None
    for n in discretisations if not game.finite else discretisations[:1]:
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            break
        finite, plans = _discretised_profile(game, n)
        read = read_model(game, finite, plans, "auto")
        # best first: a model's neighbours are tried in the order of its exploitability,
        # those of an infeasible model after every exploitable one's
        frontier: list[tuple[float, int, ParametricModel, str]] = [(0.0, 0, read, "read")]
        seen = {_key(read)}
        ticket = itertools.count(1)
        for attempt in range(repairs):
            if not frontier or (time_limit is not None and time.perf_counter() - t0 > time_limit):
                break
            rank, _, model, change = heapq.heappop(frontier)
            record: dict[str, Any] = {
                "signals": finite.sizes[0],
                "repair": attempt,
                "change": change,
                "regions": [len(r) for r in model.regions],
            }
            neighbours: list[tuple[float, ParametricModel | None, str]] = []
            try:
                answer = solve(game, model, backend=backend, cells=cells)
            except ModelInfeasible:
                record["outcome"] = "infeasible"
                found.attempts.append(record)
                neighbours = [(rank + 1.0, m, how) for m, how in _removals(model)]
            except ModelError as exc:
                record["outcome"] = f"not a model: {exc}"
                found.attempts.append(record)
            else:
                record["outcome"] = "equilibrium" if answer.is_equilibrium else "exploitable"
                exploitability = float(answer.exploitability or 0.0)
                record["exploitability"] = exploitability
                found.attempts.append(record)
                if answer.is_equilibrium:
                    lean = without_empty_regions(model, answer)
                    again = _answer_or_none(solve, game, lean, backend=backend, cells=cells)
                    if lean is not None and again is not None and again.is_equilibrium:
                        model, answer = lean, again
                        found.attempts.append(
                            dict(record, regions=[len(r) for r in lean.regions], change="dropped empty regions")
                        )
                    found.model, found.answer = model, answer
                    found.relation = relation_to_shipped(game, model)
                    return found
                if closest is None or exploitability < closest[0]:
                    closest = (exploitability, model, answer)
                inserted = insert_best_response(game, model, answer)
                neighbours = [
                    (exploitability / 2, without_empty_regions(model, answer), "dropped empty regions"),
                    (exploitability / 2, inserted, "inserted a best response"),
                    *[(exploitability, m, how) for m, how in _removals(model)],
                ]
            for priority, candidate, how in neighbours:
                if candidate is None:
                    continue
                key = _key(candidate)
                if key not in seen:
                    seen.add(key)
                    heapq.heappush(frontier, (priority, next(ticket), candidate, how))
    if closest is not None:
        found.model = closest[1]
    return found


__all__ = [
    "DISCRETISATIONS",
    "Discovery",
    "insert_best_response",
    "read_cell_model",
    "read_model",
    "relation_to_shipped",
    "search",
    "search_many",
]
