"""Several qualitative models in one threshold program, joined through a common
US-refinement (Ganzfried and Sandholm, "Computing equilibria by incorporating qualitative
models", 2010, section 7.3), for two players.

The program's thresholds are those of the refinement ``P0`` (named ``"p.j"`` as in
:mod:`equilibria.models.parametric`). Each model ``P_i`` embeds uniquely into ``P0``
(Definition 13): its regions are some of ``P0``'s, and the ``P0`` regions it omits are
empty. So under ``P_i`` the ``P0`` thresholds around an omitted region coincide: every
threshold of ``P_i`` is a group of equal ``P0`` thresholds (its representative is the
lowest), and thresholds below ``P_i``'s first region or above its last sit at the ends of
the signal space.

Components:

``holds[i]``        a disjunct per model; its indicator is the paper's ``zeta_i`` and the
                    disjunction ``one_model`` makes exactly one true (``sum_i zeta_i = 1``).
                    Inside: ``same`` (the groups' equalities and the ends), ``order_t`` and
                    ``order_cdf`` (the model's own order), and for continuous signals
                    ``indifference`` (between the neighbouring plans the model keeps) and
                    ``prefers`` (those neighbours weakly prefer each omitted plan at their
                    shared threshold; at an end, the end's plan prefers the omitted ones).
``piece[k, j]``, ``boundary[k, b]``, ``locate[k]``   where each ``P0`` threshold lies, as in
                    the single-model program (:mod:`.threshold_milfp`). With finite signals
                    the indifference and preference rows of a model's threshold are written
                    per signal inside these disjuncts and relaxed by ``K (1 - zeta_i)``
                    (the paper's big-K form), because they depend on the model and on the
                    signal the threshold falls in at once.

Theorem 4 of the paper: when every pure best response of each player satisfies at least
one of the models, a feasible point is an equilibrium. Every answer is certified by exact
best responses all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.gdp import Disjunct, Disjunction

from ..models.bayesian import BayesianGame
from ..models.parametric import ModelError, ParametricModel, common_us_refinement
from .threshold_milfp import (
    ThresholdProgram,
    _valid_inequalities,
    add_location,
    add_signal_masses,
    at_boundary,
    in_piece,
)


@dataclass
class Group:
    """One threshold of a model inside the refinement: the equal ``P0`` thresholds
    ``members`` (``representative`` first), the refinement's regions ``lower`` and
    ``upper`` on either side, and the ``omitted`` regions between them. An end group
    (``end`` is ``"low"`` or ``"high"``) has the kept region on one side only."""

    player: int
    members: list[str]
    lower: int | None
    upper: int | None
    omitted: list[int]
    end: str | None = None
    name: str = ""

    @property
    def representative(self) -> str:
        """The ``P0`` threshold that stands for the group."""
        return self.members[-1] if self.end == "low" else self.members[0]


@dataclass
class JoinedThresholdProgram(ThresholdProgram):
    """The program of several models; ``parametric`` is the refinement ``P0`` and
    ``plan_indices`` its plans. ``models[i]``'s threshold ``"p.l"`` is the ``P0``
    threshold ``representatives[i]["p.l"]``; ``embeddings[i][p]`` lists the ``P0`` region
    of each of its regions."""

    models: list[ParametricModel] = field(default_factory=list)
    embeddings: list[tuple[tuple[int, ...], ...]] = field(default_factory=list)
    representatives: list[dict[str, str]] = field(default_factory=list)
    groups: list[list[Group]] = field(default_factory=list)

    def zeta(self) -> list[float]:
        """The models' indicators in the values loaded into the program."""
        return [float(self.model.holds[i].binary_indicator_var.value or 0.0) for i in range(len(self.models))]


def model_groups(
    model: ParametricModel, refinement: ParametricModel, embedding: tuple[tuple[int, ...], ...]
) -> list[Group]:
    """The groups of ``model`` in ``refinement`` (see :class:`Group`), per player from
    the lowest signals up: the low end (if the model omits the refinement's first
    regions), one per model threshold (named as the model names it), the high end."""
    out = []
    for p, kept in enumerate(embedding):
        last = len(refinement.regions[p]) - 1

        def members(first: int, final: int, p: int = p) -> list[str]:
            """Refinement thresholds ``first..final``; threshold j lies between regions j-1 and j."""
            return [f"{p + 1}.{j}" for j in range(first, final + 1)]

        if kept[0] > 0:
            out.append(Group(p, members(1, kept[0]), None, kept[0], list(range(kept[0])), "low", "low end"))
        for n, (lo, hi) in enumerate(zip(kept[:-1], kept[1:]), start=1):
            out.append(Group(p, members(lo + 1, hi), lo, hi, list(range(lo + 1, hi)), None, f"{p + 1}.{n}"))
        if kept[-1] < last:
            out.append(
                Group(
                    p,
                    members(kept[-1] + 1, last),
                    kept[-1],
                    None,
                    list(range(kept[-1] + 1, last + 1)),
                    "high",
                    "high end",
                )
            )
    return out


def threshold_join(
    game: BayesianGame,
    models: list[ParametricModel],
    refinement: ParametricModel | None = None,
    select: str = "any",
) -> JoinedThresholdProgram:
    """Build the program that joins ``models`` (module docstring) for a two-player
    signal game. ``refinement`` is their common US-refinement ``P0``; found with
    :func:`~equilibria.models.parametric.common_us_refinement` when not given. ``select``
    as in :func:`~equilibria.formulations.threshold_milfp.threshold_milfp`.

    Raises ModelError when the game has more than two players, a model does not fit the
    game, ``refinement`` is not a US-refinement of every model (naming the model and
    player), or a model's order leaves a threshold unplaced (continuous signals).
    """
    if game.num_players != 2:
        raise ModelError(
            f"joining models is written for two players (Theorem 4 of Ganzfried and Sandholm 2010); "
            f"'{game.name}' has {game.num_players}"
        )
    if not models:
        raise ModelError("a join needs at least one model")
    names_seen = [m.name for m in models]
    if len(set(names_seen)) != len(names_seen):
        raise ModelError(f"models named twice: {', '.join(sorted({n for n in names_seen if names_seen.count(n) > 1}))}")
    if select not in ("any", "lowest", "highest"):
        raise ModelError(f"select must be any, lowest or highest, not '{select}'")
    refinement = refinement if refinement is not None else common_us_refinement(models)
    embeddings = []
    for mod in models:
        mod.plan_indices(game)  # a model that does not fit the game is refused by name
        emb = []
        for p in range(2):
            e = ParametricModel.embedding(mod.regions[p], refinement.regions[p])
            if e is None:
                raise ModelError(
                    f"'{refinement.name}' is no US-refinement of model '{mod.name}': player {p + 1}'s regions "
                    "of the model are not a unique subsequence of the refinement's (Definition 13)"
                )
            emb.append(e)
        embeddings.append(tuple(emb))
    plans = refinement.plan_indices(game)
    names = refinement.threshold_names
    owner = {k: refinement.threshold_owner(k) for k in names}
    own_list = {p: [k for k in names if owner[k][0] == p] for p in range(2)}
    bounds: dict[int, list[str | None]] = {p: [None, *own_list[p], None] for p in range(2)}
    c = game.breakpoints
    J = c.shape[0] - 1
    Fc = [np.asarray(game.signals[p](c)) for p in range(2)]
    slope = [np.diff(Fc[p]) / np.diff(c) for p in range(2)]
    finite = game.finite
    groups = [model_groups(mod, refinement, emb) for mod, emb in zip(models, embeddings)]

    m = pyo.ConcreteModel(name=f"threshold join: {game.name}, models {', '.join(names_seen)}")
    m.PLAYERS = pyo.RangeSet(0, 1)
    m.THRESHOLDS = pyo.Set(initialize=names, ordered=True)
    m.PIECES = pyo.RangeSet(1, J)
    m.MODELS = pyo.RangeSet(0, len(models) - 1)
    m.t = pyo.Var(m.THRESHOLDS, bounds=(float(c[0]), float(c[-1])), doc="threshold position in signal space")
    m.F = pyo.Var(m.PLAYERS, m.THRESHOLDS, bounds=(0.0, 1.0), doc="each player's CDF at each threshold")
    own_pairs = [pair for p in range(2) for pair in zip(own_list[p][:-1], own_list[p][1:])]
    m.OWN_ORDER = pyo.Set(initialize=own_pairs, dimen=2, ordered=True)
    m.own_order_t = pyo.Constraint(m.OWN_ORDER, rule=lambda m, a, b: m.t[a] <= m.t[b])

    # ------------------------------------------------------------ payoff differences
    tree = game.tree
    leaf_of = np.full(tree.num_nodes, -1, dtype=np.int64)
    leaf_of[tree.terminals] = np.arange(len(tree.terminals))

    def leaf(p: int, q: int, q_other: int) -> int:
        return int(leaf_of[tree.profile_terminal((q, q_other) if p == 0 else (q_other, q))])

    if finite:
        grid = np.indices((J, J)).reshape(2, -1).T
        pay = tree.showdown_payoffs(grid if game.winner == "higher" else -grid)  # (J*J, terminals, 2)
        valid = np.ones((J, J))
        pmf = [np.diff(Fc[p]) for p in range(2)]
        if game.deal == "without_replacement":
            np.fill_diagonal(valid, 0.0)
        elif game.deal == "joint":  # dependent signals: joint over product of marginals
            product = np.outer(pmf[0], pmf[1])
            valid = np.divide(game.joint_table(), product, out=np.zeros((J, J)), where=product > 0)

        def finite_difference(p: int, qa: int, qb: int) -> list[tuple[int, np.ndarray]]:
            """Per other region r with a difference: (r, diff[s, j]) of player p's plan qa
            minus qb, own signal s, the other's signal j."""
            out = []
            for r, q_other in enumerate(plans[1 - p]):
                la, lb = leaf(p, qa, q_other), leaf(p, qb, q_other)
                if la == lb:
                    continue
                diff = (pay[:, la, p] - pay[:, lb, p]).reshape(J, J) * valid
                out.append((r, diff if p == 0 else diff.T))
            return out

    else:
        # a showdown against the other player's signal below (0) or above (2) the owner's (1)
        sides = {0: np.array([[1.0, 0.0], [1.0, 2.0]]), 1: np.array([[0.0, 1.0], [2.0, 1.0]])}
        side_pay = {p: tree.showdown_payoffs(s if game.winner == "higher" else -s) for p, s in sides.items()}

    # ------------------------------------------------------------ where thresholds lie
    if finite:
        signal_mass = add_signal_masses(m, owner, pmf, Fc, bounds)
    else:
        m.SIGNALS0 = pyo.RangeSet(0, J)

    zeta = {i: None for i in range(len(models))}  # filled once the model disjuncts exist

    def finite_rows(d: Any, k: str, mixing: int | None, below: int | None, above: int | None) -> None:
        """Rows of every model's group that threshold k represents: signal ``mixing`` is
        cut by the threshold, or the threshold lies between signals ``below`` and
        ``above`` (None past an end). Each row is relaxed by K (1 - zeta_i)."""
        rows: list[tuple[Any, float, float | None, float | None, int]] = []

        def add(p: int, qa: int, qb: int, s: int | None, lower: float | None, upper: float | None, i: int) -> None:
            """Player p's plan qa minus plan qb at own signal s, between lower and upper."""
            if s is None:
                return
            expr: Any = 0.0
            reach = 0.0
            for r, diff in finite_difference(p, qa, qb):
                for j in np.flatnonzero(diff[s - 1]):
                    expr += float(diff[s - 1, j]) * signal_mass(1 - p, int(j) + 1, r)
                    reach += abs(float(diff[s - 1, j])) * float(pmf[1 - p][j])
            if reach > 0:
                rows.append((expr, reach + 1e-9, lower, upper, i))

        for i, gs in enumerate(groups):
            for g in gs:
                if g.representative != k:
                    continue
                q = plans[g.player]
                if g.end is None:
                    lo_plan, hi_plan = q[g.lower], q[g.upper]  # type: ignore[index]
                    add(g.player, lo_plan, hi_plan, mixing, 0.0, 0.0, i)
                    add(g.player, lo_plan, hi_plan, below, 0.0, None, i)
                    add(g.player, lo_plan, hi_plan, above, None, 0.0, i)
                for x in g.omitted:
                    # the kept neighbours weakly prefer the omitted plan x where they meet
                    if g.lower is not None:
                        add(g.player, q[g.lower], q[x], mixing or below, 0.0, None, i)
                    if g.upper is not None:
                        add(g.player, q[g.upper], q[x], mixing or above, 0.0, None, i)
        if rows:
            d.ROWS = pyo.RangeSet(0, len(rows) - 1)
            d.row_lower = pyo.Constraint(d.ROWS, rule=lambda d, r: _relaxed(rows[r], zeta[rows[r][4]], 0))
            d.row_upper = pyo.Constraint(d.ROWS, rule=lambda d, r: _relaxed(rows[r], zeta[rows[r][4]], 1))

    def piece_rule(d: Any, k: str, j: int) -> None:
        in_piece(m, d, k, j, c, Fc, slope, owner[k][0] if finite else None)
        if finite:
            finite_rows(d, k, j, None, None)

    def boundary_rule(d: Any, k: str, b: int) -> None:
        at_boundary(m, d, k, b, c, Fc, owner[k][0])
        finite_rows(d, k, None, b if b >= 1 else None, b + 1 if b < J else None)

    # the model disjuncts come first so that the location rows can refer to their indicators
    m.holds = Disjunct(m.MODELS)
    for i in range(len(models)):
        zeta[i] = m.holds[i].binary_indicator_var
    m.one_model = Disjunction(expr=[m.holds[i] for i in range(len(models))])

    add_location(m, piece_rule, boundary_rule if finite else None)
    _valid_inequalities(m, names, own_pairs, c, finite, owner, Fc)

    # ------------------------------------------------------------ each model
    representatives = []
    for i, (mod, gs) in enumerate(zip(models, groups)):
        d = m.holds[i]
        rep = {g.name: g.representative for g in gs if g.end is None}
        representatives.append(rep)
        same = []
        for g in gs:
            for k in g.members:
                if g.end == "low":
                    same.append(m.t[k] == float(c[0]))
                elif g.end == "high":
                    same.append(m.t[k] == float(c[-1]))
                elif k != g.representative:
                    same.append(m.t[k] == m.t[g.representative])
        if same:
            d.same = pyo.Constraint(pyo.RangeSet(0, len(same) - 1), rule=lambda d, r, same=same: same[r])
        order = [(rep[a], rep[b]) for a, b in mod.order]
        if order:
            d.ORDER = pyo.Set(initialize=order, dimen=2, ordered=True)
            d.order_t = pyo.Constraint(d.ORDER, rule=lambda d, a, b: m.t[a] <= m.t[b])
            d.order_cdf = pyo.Constraint(d.ORDER, m.PLAYERS, rule=lambda d, a, b, o: m.F[o, a] <= m.F[o, b])
        if not finite:
            _continuous_rows(m, d, mod, gs, names, own_list, bounds, plans, side_pay, leaf, order)

    if select == "any":
        m.feasibility = pyo.Objective(expr=0.0)
    else:
        m.selection = pyo.Objective(
            expr=sum(m.t[k] for k in names), sense=pyo.minimize if select == "lowest" else pyo.maximize
        )
    return JoinedThresholdProgram(
        model=m,
        game=game,
        parametric=refinement,
        thresholds=names,
        plan_indices=plans,
        models=list(models),
        embeddings=embeddings,
        representatives=representatives,
        groups=groups,
    )


def _relaxed(row: tuple[Any, float, float | None, float | None, int], zeta: Any, side: int) -> Any:
    """``lower <= expr`` (side 0) or ``expr <= upper`` (side 1), each loosened by
    ``K (1 - zeta)`` with K the bound ``reach`` on ``|expr|``."""
    expr, reach, lower, upper, _ = row
    if side == 0:
        return pyo.Constraint.Skip if lower is None else expr >= lower - reach * (1 - zeta)
    return pyo.Constraint.Skip if upper is None else expr <= upper + reach * (1 - zeta)


def _continuous_rows(
    m: Any,
    d: Any,
    model: ParametricModel,
    groups: list[Group],
    names: list[str],
    own_list: dict[int, list[str]],
    bounds: dict[int, list[str | None]],
    plans: tuple[list[int], ...],
    side_pay: dict[int, np.ndarray],
    leaf: Any,
    order: list[tuple[str, str]],
) -> None:
    """A continuous model's indifference and preference rows inside its disjunct ``d``.

    The model's order, its groups' equalities and the ends decide which of the other
    player's refinement regions lie below a threshold (a closure over the refinement's
    thresholds); a region the threshold cuts contributes its mass below and above."""
    idx = {k: n for n, k in enumerate(names)}
    le = np.eye(len(names), dtype=bool)
    for p in range(2):
        for a, b in zip(own_list[p][:-1], own_list[p][1:]):
            le[idx[a], idx[b]] = True
    for a, b in order:
        le[idx[a], idx[b]] = True
    for g in groups:
        for k in g.members:
            if g.end == "low":
                le[idx[k], :] = True
            elif g.end == "high":
                le[:, idx[k]] = True
            else:
                le[idx[k], idx[g.representative]] = le[idx[g.representative], idx[k]] = True
    for n in range(len(names)):
        le |= le[:, [n]] & le[[n], :]

    def closure(a: str | None, b: str | None) -> bool:
        return a is None or b is None or bool(le[idx[a], idx[b]])

    def cdf_at(o: int, b: str | None, default: float) -> Any:
        return default if b is None else m.F[o, b]

    def mass(o: int, r: int, k: str, below: bool) -> Any:
        lo, hi = bounds[o][r], bounds[o][r + 1]
        whole = cdf_at(o, hi, 1.0) - cdf_at(o, lo, 0.0)
        if hi is not None and closure(hi, k):
            return whole if below else 0.0
        if lo is not None and closure(k, lo):
            return 0.0 if below else whole
        if closure(lo, k) and closure(k, hi):
            return m.F[o, k] - cdf_at(o, lo, 0.0) if below else cdf_at(o, hi, 1.0) - m.F[o, k]
        unplaced = lo if lo is not None and not closure(lo, k) else hi
        raise ModelError(
            f"model '{model.name}': the order does not place threshold {k} of the refinement against "
            f"{unplaced}; continuous signals need every threshold ordered against the other player's"
        )

    def difference(p: int, qa: int, qb: int, k: str) -> Any:
        """Player p's payoff of plan qa minus plan qb at threshold k's signal."""
        o = 1 - p
        expr: Any = 0.0
        for r, q_other in enumerate(plans[o]):
            la, lb = leaf(p, qa, q_other), leaf(p, qb, q_other)
            if la == lb:
                continue
            below, above = side_pay[p][:, la, p] - side_pay[p][:, lb, p]
            if below:
                expr += float(below) * mass(o, r, k, True)
            if above:
                expr += float(above) * mass(o, r, k, False)
        return expr

    equal, prefer = [], []
    for g in groups:
        k, p, q = g.representative, g.player, plans[g.player]
        if g.end is None:
            equal.append(difference(p, q[g.lower], q[g.upper], k))  # type: ignore[index]
        for x in g.omitted:
            for y in (g.lower, g.upper):
                if y is not None:
                    prefer.append(difference(p, q[y], q[x], k))
    equal = [e for e in equal if not isinstance(e, float)]
    prefer = [e for e in prefer if not isinstance(e, float)]
    if equal:
        d.indifference = pyo.Constraint(pyo.RangeSet(0, len(equal) - 1), rule=lambda d, r: equal[r] == 0)
    if prefer:
        d.prefers = pyo.Constraint(pyo.RangeSet(0, len(prefer) - 1), rule=lambda d, r: prefer[r] >= 0)


__all__ = ["Group", "JoinedThresholdProgram", "model_groups", "threshold_join"]
