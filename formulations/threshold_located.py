"""Threshold programs of finite-signal games with three or more players, with products
only where they are needed.

Ganzfried and Sandholm, "Computing equilibria by incorporating qualitative models" (2010),
write the indifference equations of an n-player game as polynomials in the players' masses
and approximate every product of masses. With finite signals almost all of that is exact:
a threshold ``k`` lies either between two signals or inside one signal ``j``, splitting it
at a fraction ``lam[k]``. So the fraction of signal ``j`` that lies below ``k`` is

    ``a[k, j] = B[k, j] + lam[k] * z[k, j]``

with ``z[k, j]`` the binary "k lies inside signal j" and ``B[k, j]`` the sum of binaries
"k lies at or above the end of signal j" (block ``location``). A player's mass of a region
at a signal is a difference of two such fractions, and a product of the others' masses
expands into terms

    ``(product of lam over a set T of thresholds) * (product of binaries)``

The binary part and a continuous factor times binaries are linearised exactly
(block ``terms``); only ``LAM[T] = product of lam[k] for k in T`` is interpolated, once per
set of thresholds of distinct players (block ``products``), whatever the signals: for three
players one product per pair of thresholds.

Every signal of every player is checked against every plan through the player's best
response in the betting tree (block ``best_response``): ``payoff[p, s, z]`` is player p's
joint-probability-weighted payoff at terminal z with signal s against the others' threshold
strategies, ``value[p, s, v]`` is at least the value of each action at p's nodes and the
sum over the children elsewhere, and a signal that a region covers values the region's plan
within the row's allowance of the best plan (big-M on the location binaries).

The allowance and the guarantee
-------------------------------
A product's interpolation error at the point the solver picks is at most
:func:`~equilibria.formulations.products.local_error`, a linear expression in the squares'
convex-combination weights that is small where the grid is fine. Each row of player p and
signal s allows ``tau[p, s] + 2 * A[p, s]``, with ``A[p, s] = sum_T c[p, s, T] *
local_error(T)`` and ``c[p, s, T]`` the largest total coefficient with which ``LAM[T]``
enters the payoffs of (p, s). Then:

* an exact equilibrium that follows the model satisfies every row, whatever the grid (its
  rows' errors are at most ``2 * A``), so the program is feasible whenever the model holds;
* any solution's profile has NashConv at most ``sum_{p,s} (tau[p, s] + 4 * A[p, s])``
  evaluated at the solution (``posterior_bound``), and at most the same sum with each
  product's error bound over its whole grid (``promised_epsilon``, a priori).

Refining a grid where the answer lies (:func:`refined_grids`) shrinks ``A`` there, so a
non-equilibrium that the coarse grid admitted is cut off; :mod:`equilibria.routes.threshold.route`
iterates that until the exact certificate meets epsilon.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyomo.environ as pyo

from ..models.bayesian import BayesianGame
from ..models.parametric import ModelError, ParametricModel
from .products import REPRESENTATIONS, add_product_chain, chain_allowance
from .threshold_milfp import add_threshold_order, region_covers

#: Breakpoints per square of the first round unless given. Measured on three-player Kuhn
#: poker with HiGHS: 5 finds a location holding no equilibrium first (NashConv 0.02, then
#: a second search), 9 an exact equilibrium in about 25 s; the later rounds shrink the grid
#: around the answer instead of adding points.
FIRST_ROUND_BREAKPOINTS = 9

# a key of one fraction a[k, j]: (threshold name, signal 1..J)
Site = tuple[str, int]
# where a threshold lies: ("inside", signal j) or ("end", end b of signal b, 0..J)
Location = tuple[str, int]


# a product of fractions at one location: (its thresholds, the sites they split)
Charge = tuple[tuple[str, ...], tuple[Site, ...]]


@dataclass
class LocatedProducts:
    """What the rounds need to measure a located program's answer.

    ``sets`` lists the threshold sets whose fraction products are interpolated and
    ``variables`` the interpolated product of each; ``allowance[(T, sites)]`` the error
    the rows allow product ``T`` when its thresholds split ``sites`` (zero elsewhere);
    ``coefficient[(p, s)][(T, sites)]`` the total coefficient with which that product
    enters the payoffs of player p with signal s; ``tau[(p, s)]`` each row's fixed
    allowance.
    """

    sets: list[tuple[str, ...]]
    variables: dict[tuple[str, ...], Any]
    allowance: dict[Charge, Any]
    tau: dict[tuple[int, int], float]
    coefficient: dict[tuple[int, int], dict[Charge, float]] = field(default_factory=dict)

    def fractions(self, m: pyo.ConcreteModel) -> dict[str, float]:
        """Each threshold's fraction ``lam`` in the solution loaded into ``m``."""
        return {k: float(pyo.value(m.location.lam[k])) for k in m.THRESHOLDS}

    def errors(self, m: pyo.ConcreteModel) -> dict[tuple[str, ...], float]:
        """Each product's true error at the solution: interpolated minus exact product."""
        lam = self.fractions(m)
        return {T: float(pyo.value(self.variables[T])) - math.prod(lam[k] for k in T) for T in self.sets}

    def posterior_bound(self, m: pyo.ConcreteModel) -> float:
        """A proven NashConv bound for the solution loaded into ``m``: per player and
        signal, the row's allowance (``tau`` plus twice the allowed errors, as solved)
        plus twice the products' true errors where their thresholds split those sites (a
        signal's payoff of every plan is off by at most that, either way)."""
        error = self.errors(m)
        inside = m.location.inside
        active = {
            charge: all(float(pyo.value(inside[site])) > 0.5 for site in charge[1])
            for row in self.coefficient.values()
            for charge in row
        }
        return sum(
            self.tau[key]
            + 2.0
            * sum(
                c * (float(pyo.value(self.allowance[charge])) + (abs(error[charge[0]]) if active[charge] else 0.0))
                for charge, c in row.items()
            )
            for key, row in self.coefficient.items()
        )


def located_program(
    game: BayesianGame,
    model: ParametricModel,
    *,
    select: str = "any",
    min_width: float = 0.0,
    representation: str = "log",
    breakpoints: int = FIRST_ROUND_BREAKPOINTS,
    tau_total: float = 0.0,
    mccormick: bool = False,
    locations: dict[str, Location] | None = None,
    box: dict[str, tuple[float, float]] | None = None,
    excluded: Sequence[dict[str, Location]] = (),
    window: dict[str, tuple[float, float]] | None = None,
) -> tuple[pyo.ConcreteModel, LocatedProducts, dict[str, Any]]:
    """Build the located threshold program (module docstring) of ``model`` for the
    finite-signal ``game`` with three or more players.

    ``representation`` is one of
    :data:`~equilibria.formulations.products.REPRESENTATIONS`; each square gets
    ``breakpoints`` equally spaced points over its factors' bounds. ``tau_total`` is the NashConv allowed beyond the
    products' error, shared equally by the rows of every player and signal.

    ``locations`` fixes where thresholds lie (``("inside", j)``: splitting signal j,
    ``("end", b)``: at the end of signal b; :func:`read_locations`), ``box`` bounds the
    fractions (the products' grids span the box, so a small box means a fine grid), and
    each assignment in ``excluded`` is cut off (a no-good cut on its location binaries).
    Returns (the model, the products' data, sizes and bounds: ``promised_epsilon``,
    ``num_products``).
    """
    if representation not in REPRESENTATIONS:
        raise ModelError(f"products must be one of {', '.join(REPRESENTATIONS)}, not {representation!r}")
    n = game.num_players
    plans = model.plan_indices(game)
    names = model.threshold_names
    owner = {k: model.threshold_owner(k) for k in names}
    own_list = {p: [k for k in names if owner[k][0] == p] for p in range(n)}
    c = np.asarray(game.breakpoints, dtype=float)
    J = c.shape[0] - 1
    tree = game.tree
    terminals = list(tree.terminals)
    T_index = {v: i for i, v in enumerate(terminals)}

    m = pyo.ConcreteModel(name=f"located threshold program: {game.name}, model '{model.name}'")
    m.PLAYERS = pyo.RangeSet(0, n - 1)
    m.THRESHOLDS = pyo.Set(initialize=names, ordered=True)
    m.SIGNALS = pyo.RangeSet(1, J)
    m.ENDS = pyo.RangeSet(0, J)

    # ---------------------------------------------------------------- location
    loc = m.location = pyo.Block()
    loc.inside = pyo.Var(m.THRESHOLDS, m.SIGNALS, domain=pyo.Binary, doc="threshold k splits signal j")
    loc.at_end = pyo.Var(m.THRESHOLDS, m.ENDS, domain=pyo.Binary, doc="threshold k lies at the end of signal b")
    loc.lam = pyo.Var(m.THRESHOLDS, bounds=(0.0, 1.0), doc="fraction of the split signal below threshold k")
    loc.split = pyo.Var(m.THRESHOLDS, m.SIGNALS, bounds=(0.0, 1.0), doc="lam[k] * inside[k, j]")
    loc.exactly_one = pyo.Constraint(
        m.THRESHOLDS,
        rule=lambda b, k: sum(b.inside[k, j] for j in m.SIGNALS) + sum(b.at_end[k, e] for e in m.ENDS) == 1,
    )
    loc.no_fraction_at_an_end = pyo.Constraint(
        m.THRESHOLDS, rule=lambda b, k: b.lam[k] <= sum(b.inside[k, j] for j in m.SIGNALS)
    )
    loc.split_le_inside = pyo.Constraint(m.THRESHOLDS, m.SIGNALS, rule=lambda b, k, j: b.split[k, j] <= b.inside[k, j])
    loc.split_le_lam = pyo.Constraint(m.THRESHOLDS, m.SIGNALS, rule=lambda b, k, j: b.split[k, j] <= b.lam[k])
    loc.split_ge = pyo.Constraint(
        m.THRESHOLDS, m.SIGNALS, rule=lambda b, k, j: b.split[k, j] >= b.lam[k] - (1 - b.inside[k, j])
    )
    for k, (kind, j) in (locations or {}).items():
        for i in range(1, J + 1):
            loc.inside[k, i].fix(1 if (kind, j) == ("inside", i) else 0)
        for e in range(0, J + 1):
            loc.at_end[k, e].fix(1 if (kind, j) == ("end", e) else 0)
        if kind == "end":
            loc.lam[k].fix(0.0)
    for k, (lo, hi) in (box or {}).items():
        if not loc.lam[k].fixed:
            loc.lam[k].setlb(lo)
            loc.lam[k].setub(hi)
    for k, (lo, hi) in (window or {}).items():
        # a threshold near a guess: inside a signal that meets [lo, hi], or at an end within it
        if k in (locations or {}):
            continue
        for j in range(1, J + 1):
            if j < lo or j - 1 > hi:
                loc.inside[k, j].fix(0)
        for e in range(0, J + 1):
            if e < lo or e > hi:
                loc.at_end[k, e].fix(0)
    loc.excluded = pyo.ConstraintList(doc="location assignments shown to hold no equilibrium of the model")
    for assignment in excluded:
        chosen = [loc.inside[k, j] if kind == "inside" else loc.at_end[k, j] for k, (kind, j) in assignment.items()]
        loc.excluded.add(sum(chosen) <= len(chosen) - 1)
    m.t = pyo.Var(m.THRESHOLDS, bounds=(float(c[0]), float(c[-1])), doc="threshold position in signal space")
    m.position = pyo.Constraint(
        m.THRESHOLDS,
        rule=lambda m, k: (
            m.t[k]
            == sum(float(c[j - 1]) * loc.inside[k, j] + float(c[j] - c[j - 1]) * loc.split[k, j] for j in m.SIGNALS)
            + sum(float(c[e]) * loc.at_end[k, e] for e in m.ENDS)
        ),
    )

    def full(k: str, j: int) -> Any:
        """1 when threshold k lies at or above the end of signal j (all of j below k)."""
        return sum(loc.inside[k, i] for i in range(j + 1, J + 1)) + sum(loc.at_end[k, e] for e in range(j, J + 1))

    def none_below(k: str, s: int) -> Any:
        """1 when threshold k lies at or below the start of signal s (none of s below k)."""
        return sum(loc.inside[k, i] for i in range(1, s)) + sum(loc.at_end[k, e] for e in range(0, s))

    # ---------------------------------------------------------------- order
    add_threshold_order(m, model, own_list, c, min_width)

    # the same order on the locations (slots end 0 < inside 1 < end 1 < ... < end J; two
    # thresholds may split one signal): b's location is at or above a's, which the rows on
    # t imply only once the binaries are integral
    def slot(k: str, i: int) -> Any:
        return loc.at_end[k, i // 2] if i % 2 == 0 else loc.inside[k, (i + 1) // 2]

    def up_to(k: str, last: int) -> Any:
        return sum(slot(k, i) for i in range(last + 1))

    m.order_location = pyo.Constraint(
        m.ORDER,
        range(2 * J),
        rule=lambda m, a, b, last: up_to(b, last) <= up_to(a, last + (1 if last % 2 == 1 else 0)),
    )

    # ---------------------------------------------------------------- payoffs as monomials
    # region consistency: regions[o][r, z] is True when region r's plan takes o's actions
    # on the path to terminal z
    path_actions: list[list[tuple[int, int]]] = []
    for v in terminals:
        steps, u = [], v
        while tree.parent[u] >= 0:
            steps.append((tree.parent[u], int(tree.action_index[u])))
            u = tree.parent[u]
        path_actions.append(steps)
    consistent = []
    for o in range(n):
        acts = tree.plan_actions(o)
        table = np.ones((acts.shape[0], len(terminals)), dtype=bool)
        for zi, steps in enumerate(path_actions):
            for node, a in steps:
                if tree.player[node] == o:
                    table[:, zi] &= acts[:, node] == a
        consistent.append(table)
    # X_o(z, j) = const[o][z] + sum_i d[o][i, z] * a[own_list[o][i], j]
    const, d = [], []
    for o in range(n):
        R = consistent[o][plans[o], :].astype(float)  # (regions, terminals)
        const.append(R[-1])
        d.append(R[:-1] - R[1:])
    joint = np.asarray(game.joint_table(), dtype=float)
    grid = np.indices((J,) * n).reshape(n, -1).T
    strength = grid if game.winner == "higher" else -grid
    pay = tree.showdown_payoffs(strength).reshape((J,) * n + (len(terminals), n))

    # payoff[(p, s, z)] = {monomial: coefficient}; a monomial is a tuple of sites by player
    payoff: dict[tuple[int, int, int], dict[tuple[Site, ...], float]] = {}
    for p in range(n):
        others = [o for o in range(n) if o != p]
        choices = [[None, *range(len(own_list[o]))] for o in others]
        for s in range(1, J + 1):
            law = np.take(joint, s - 1, axis=p)
            for zi in range(len(terminals)):
                W = law * np.take(pay[..., zi, p], s - 1, axis=p)
                terms: dict[tuple[Site, ...], float] = defaultdict(float)
                if np.any(W):
                    for choice in itertools.product(*choices):
                        scalar = 1.0
                        for o, ch in zip(others, choice):
                            scalar *= const[o][zi] if ch is None else d[o][ch, zi]
                        if scalar == 0.0:
                            continue
                        free = tuple(i for i, ch in enumerate(choice) if ch is None)
                        tensor = W.sum(axis=free) * scalar if free else W * scalar
                        kept = [(o, ch) for o, ch in zip(others, choice) if ch is not None]
                        if not kept:
                            terms[()] += float(tensor)
                            continue
                        for idx in zip(*np.nonzero(tensor)):
                            key = tuple((own_list[o][ch], int(j) + 1) for (o, ch), j in zip(kept, idx))
                            terms[key] += float(tensor[idx])
                payoff[p, s, zi] = {key: v for key, v in terms.items() if v != 0.0}

    # ---------------------------------------------------------------- products of fractions
    sets = sorted(
        {tuple(k for k, _ in frac) for terms in payoff.values() for mono in terms for frac, _ in _parts(mono)}
    )
    sets = [T for T in sets if len(T) >= 2]
    chains: dict[tuple[str, ...], Any] = {}
    variables: dict[tuple[str, ...], Any] = {}
    m.products = pyo.Block()
    for i, T in enumerate(sets):
        variables[T] = add_product_chain(
            m.products,
            [loc.lam[k] for k in T],
            name=f"product{i}",
            breakpoints=breakpoints,
            representation=representation,
            mccormick=mccormick,
        )
        chains[T] = m.products.component(f"product{i}")

    # terms: value of each part (fractions in T times binaries) as an expression
    m.terms = pyo.Block()
    part_value: dict[tuple, Any] = {}
    m.terms.y = pyo.VarList(doc="a product of fractions times location binaries, linearised exactly")
    m.terms.rows = pyo.ConstraintList()

    def part(frac: tuple[Site, ...], whole: tuple[Site, ...]) -> Any:
        key = (frac, whole)
        if key in part_value:
            return part_value[key]
        if not frac and not whole:
            value: Any = 1.0
        elif not frac and len(whole) == 1:
            value = full(*whole[0])
        elif len(frac) == 1 and not whole:
            value = loc.split[frac[0]]
        else:
            if len(frac) >= 2:
                base = variables[tuple(k for k, _ in frac)]
                lo, hi = base.lb, base.ub
                binaries = [loc.inside[site] for site in frac] + [full(*site) for site in whole]
            elif len(frac) == 1:
                base, lo, hi = loc.split[frac[0]], 0.0, 1.0
                binaries = [full(*site) for site in whole]
            else:
                base, lo, hi = 1.0, 1.0, 1.0
                binaries = [full(*site) for site in whole]
            y = m.terms.y.add()
            y.setlb(min(0.0, lo))
            y.setub(max(0.0, hi))
            # y = base * AND(binaries): any binary 0 pins y to 0, all 1 make it base
            missing = sum(1 - b for b in binaries)
            for b in binaries:
                m.terms.rows.add(y <= max(hi, 0.0) * b)
                m.terms.rows.add(y >= min(lo, 0.0) * b)
            m.terms.rows.add(y <= base - min(lo, 0.0) * missing)
            m.terms.rows.add(y >= base - max(hi, 0.0) * missing)
            value = y
        part_value[key] = value
        return value

    # ---------------------------------------------------------------- best responses
    nodes = [v for v in range(tree.num_nodes) if tree.children[v]]
    m.payoff = pyo.Var(
        [(p, s, zi) for p in range(n) for s in range(1, J + 1) for zi in range(len(terminals))],
        doc="player p's joint-probability-weighted payoff at terminal z with signal s",
    )
    m.payoff_definition = pyo.ConstraintList()
    coefficient: dict[tuple[int, int], dict[Charge, float]] = {}
    # a monomial lies in [0, 1] (its parts exclude each other), widened by the products'
    # error: bounds on every payoff and value variable, and the rows' big-M, follow
    widen = 1.0 + max((float(pyo.value(chains[T].error_bound)) for T in sets), default=0.0)
    low: dict[tuple[int, int, int], float] = {}
    high: dict[tuple[int, int, int], float] = {}
    for p in range(n):
        for s in range(1, J + 1):
            per_charge: dict[Charge, float] = defaultdict(float)
            for zi in range(len(terminals)):
                expr: Any = 0.0
                lo_z = hi_z = 0.0
                for mono, coef in payoff[p, s, zi].items():
                    if mono:
                        lo_z += min(coef, 0.0) * widen
                        hi_z += max(coef, 0.0) * widen
                    else:
                        lo_z += coef
                        hi_z += coef
                    for frac, whole in _parts(mono):
                        expr += coef * part(frac, whole)
                        if len(frac) >= 2:
                            per_charge[tuple(k for k, _ in frac), frac] += abs(coef)
                var = m.payoff[p, s, zi]
                low[p, s, zi], high[p, s, zi] = lo_z - 1e-9, hi_z + 1e-9
                var.setlb(low[p, s, zi])
                var.setub(high[p, s, zi])
                m.payoff_definition.add(var == expr)
            coefficient[p, s] = dict(per_charge)
    m.value = pyo.Var(
        [(p, s, v) for p in range(n) for s in range(1, J + 1) for v in nodes],
        doc="player p's best-response value below node v with signal s",
    )
    m.value_recursion = pyo.ConstraintList()

    def below(p: int, s: int, u: int) -> Any:
        return m.payoff[p, s, T_index[u]] if not tree.children[u] else m.value[p, s, u]

    value_bounds: dict[tuple[int, int, int], tuple[float, float]] = {}

    def bounds_below(p: int, s: int, u: int) -> tuple[float, float]:
        return (low[p, s, T_index[u]], high[p, s, T_index[u]]) if not tree.children[u] else value_bounds[p, s, u]

    for p in range(n):
        for s in range(1, J + 1):
            for v in reversed(nodes):  # children before parents (nodes are numbered down the tree)
                kids = [bounds_below(p, s, u) for u in tree.children[v]]
                if tree.player[v] == p:
                    value_bounds[p, s, v] = (max(a for a, _ in kids), max(b for _, b in kids))
                else:
                    value_bounds[p, s, v] = (sum(a for a, _ in kids), sum(b for _, b in kids))
            for v in nodes:
                m.value[p, s, v].setlb(value_bounds[p, s, v][0])
                m.value[p, s, v].setub(value_bounds[p, s, v][1])
                if tree.player[v] == p:
                    for u in tree.children[v]:
                        m.value_recursion.add(m.value[p, s, v] >= below(p, s, u))
                else:
                    m.value_recursion.add(m.value[p, s, v] == sum(below(p, s, u) for u in tree.children[v]))

    rows_tau = {(p, s): tau_total / (n * J) for p in range(n) for s in range(1, J + 1)}
    # a product's allowed error at each location of its thresholds: at most its bound where
    # the solver lands, and nothing unless every threshold of it splits the named signal
    # (elsewhere the terms it enters are pinned to 0, exactly)
    bound_at: dict[tuple[str, ...], tuple[Any, float]] = {T: chain_allowance(chains[T]) for T in sets}
    charges = sorted({charge for row in coefficient.values() for charge in row})
    m.allowed_error = pyo.Var(range(len(charges)), bounds=(0.0, None), doc="a product's error the rows allow")
    m.allowed_error_rows = pyo.ConstraintList()
    allowance: dict[Charge, Any] = {}
    for i, (ths, frac) in enumerate(charges):
        a = m.allowed_error[i]
        bound_expr, ceiling = bound_at[ths]
        m.allowed_error_rows.add(a <= bound_expr)
        for site in frac:
            m.allowed_error_rows.add(a <= ceiling * loc.inside[site])
        allowance[ths, frac] = a
    global_error = {T: float(pyo.value(chains[T].error_bound)) for T in sets}
    m.BEST_RESPONSE = pyo.Set(
        initialize=[(p, r, s) for p in range(n) for r in range(len(plans[p])) for s in range(1, J + 1)],
        dimen=3,
        ordered=True,
    )

    def best_response_rule(m: Any, p: int, r: int, s: int) -> Any:
        q = plans[p][r]
        plan_value = sum(m.payoff[p, s, zi] for zi in range(len(terminals)) if consistent[p][q, zi])
        allowed = rows_tau[p, s] + 2.0 * sum(cf * allowance[charge] for charge, cf in coefficient[p, s].items())
        plan_low = sum(low[p, s, zi] for zi in range(len(terminals)) if consistent[p][q, zi])
        big = max(0.0, value_bounds[p, s, 0][1] - plan_low)
        return m.value[p, s, 0] - plan_value <= allowed + big * (1 - region_covers(own_list[p], r, s, none_below, full))

    m.best_response = pyo.Constraint(m.BEST_RESPONSE, rule=best_response_rule)

    if select == "any":
        m.feasibility = pyo.Objective(expr=0.0)
    else:
        m.selection = pyo.Objective(
            expr=sum(m.t[k] for k in names), sense=pyo.minimize if select == "lowest" else pyo.maximize
        )

    # a priori: per row, each product at its worst location, allowed its ceiling and
    # off by its global bound
    promised = 0.0
    for row_key, row in coefficient.items():
        worst: dict[tuple[str, ...], float] = defaultdict(float)
        for (ths, _), cf in row.items():
            worst[ths] = max(worst[ths], cf)
        promised += rows_tau[row_key] + 2.0 * sum(
            cf * (bound_at[ths][1] + global_error[ths]) for ths, cf in worst.items()
        )
    layer = LocatedProducts(sets=sets, variables=variables, allowance=allowance, tau=rows_tau, coefficient=coefficient)
    return m, layer, {"promised_epsilon": promised, "num_products": len(sets)}


def read_locations(m: pyo.ConcreteModel) -> dict[str, Location]:
    """Where each threshold lies in the solution loaded into ``m``."""
    loc = m.location
    out: dict[str, Location] = {}
    for k in m.THRESHOLDS:
        best = max(
            [(float(pyo.value(loc.inside[k, j])), ("inside", j)) for j in m.SIGNALS]
            + [(float(pyo.value(loc.at_end[k, e])), ("end", e)) for e in m.ENDS]
        )
        out[k] = best[1]
    return out


def _parts(mono: tuple[Site, ...]) -> list[tuple[tuple[Site, ...], tuple[Site, ...]]]:
    """The expansion of a product of fractions ``prod (B + lam * z)`` over the sites of
    ``mono``: (sites taken fractionally, sites taken whole) for every subset."""
    out = []
    for mask in itertools.product((False, True), repeat=len(mono)):
        frac = tuple(site for site, f in zip(mono, mask) if f)
        whole = tuple(site for site, f in zip(mono, mask) if not f)
        out.append((frac, whole))
    return out


__all__ = [
    "FIRST_ROUND_BREAKPOINTS",
    "Location",
    "LocatedProducts",
    "located_program",
    "read_locations",
]
