"""The threshold MILFP of Ganzfried and Sandholm, "Computing equilibria by incorporating
qualitative models" (2010), sections 6.1 and 7.1, built from a game and a model.

Variables per threshold ``k`` (named ``"p.j"``, see :mod:`equilibria.models.parametric`):

``t[k]``   the threshold's position in the signal space,
``x[k]``   player 1's CDF at it, ``F1(t_k)``; ``y[k]`` player 2's, ``F2(t_k)``,
``piece[k, j]``  a disjunct per CDF piece ``j`` (for finite signals: per signal); its
           binary indicator is the paper's ``z_{k,j}``; the disjunction ``locate[k]`` makes
           exactly one true (``sum_j z_{k,j} = 1``).

Constraints:

``order``          the model's partial order and each player's own region order, on t, x, y;
``piece[k,j].consistency_x/_y``  inside piece j, x and y are the CDFs at t (the piecewise
                   linear consistency of section 7.1; finite signals are the case of unit
                   pieces);
``indifference``   at every threshold the owner is indifferent between the plans of the
                   two regions it separates, against the opponent's threshold strategy.

For continuous signals the indifference is one linear equation per threshold (the model's
order says which opponent regions lie below the threshold). For finite signals the
threshold sits inside one signal's piece, and the equation is written for that signal,
with the exact conditional law of the opponent's signal (ties, or distinct cards): the
variables ``C[k, s] = min(F(t_k), F(s))`` give the mass of each opponent region below every
signal, and ``piece[k, s].indifference`` holds when the threshold is in signal ``s``.
A threshold may also sit exactly between two signals (``boundary[k, b]``): then no signal
mixes, and the signal below must weakly prefer the lower plan, the one above the upper
plan; without this case a pure equilibrium would make the program infeasible.

The program has no objective (a feasibility problem). ``to_pyomo`` returns the model with
disjunctions; ``solvers.solve_disjunctive`` turns them into big-M or hull constraints, or
SCIP's native indicator constraints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.gdp import Disjunct, Disjunction

from ..models.bayesian import BayesianGame
from ..models.betting import TIE
from ..models.parametric import ModelError, ParametricModel


@dataclass
class ThresholdProgram:
    """A threshold MILFP with the data to read its answer."""

    model: pyo.ConcreteModel
    game: BayesianGame
    parametric: ParametricModel
    thresholds: list[str]
    plan_indices: tuple[list[int], ...]

    @property
    def finite(self) -> bool:
        """True when the game's signals are finite."""
        return self.game.finite


def _payoff_difference(game: BayesianGame, p: int, q_lo: int, q_hi: int, q_opp: int, outcome: int) -> float:
    pay = game.tree.plan_payoff  # (plans1, plans2, 3, 2)
    if p == 0:
        return float(pay[q_lo, q_opp, outcome, 0] - pay[q_hi, q_opp, outcome, 0])
    return float(pay[q_opp, q_lo, outcome, 1] - pay[q_opp, q_hi, outcome, 1])


def threshold_milfp(
    game: BayesianGame, model: ParametricModel, select: str = "any", min_width: float = 0.0
) -> ThresholdProgram:
    """Build the MILFP of ``model`` for ``game`` (see the module docstring).

    ``select`` picks among conforming equilibria when there are several (G_n's player 1
    has a family): ``any`` (the paper's feasibility program: whatever the solver finds
    first), ``lowest`` or ``highest`` (minimise / maximise the sum of the thresholds, so
    every solver returns the same one). ``min_width`` > 0 makes every region at least that
    wide in signal units (``region_width`` rows), which rules out answers that satisfy the
    indifferences only through empty regions.

    Raises ModelError when a region's plan is not a plan of the game, or (continuous
    signals) when the order leaves a threshold unplaced against an opponent threshold,
    or when the game has more than two players (the n-player program, whose indifference
    conditions are products of the others' threshold masses, is not built yet).
    """
    if game.num_players != 2:
        raise ModelError(
            f"'{game.name}' has {game.num_players} players; threshold programs are built for two players "
            "so far (its extensive form is there: 'equilibria info' and exact best responses work for it)"
        )
    plans = model.plan_indices(game)
    names = model.threshold_names
    owner = {k: model.threshold_owner(k) for k in names}
    own_list = {p: [k for k in names if owner[k][0] == p] for p in (0, 1)}
    closure = model.order_closure()
    F = game.signals
    c = game.breakpoints
    J = c.shape[0] - 1
    Fc = [np.asarray(F[p](c)) for p in (0, 1)]
    slope = [np.diff(Fc[p]) / np.diff(c) for p in (0, 1)]
    finite = game.finite

    m = pyo.ConcreteModel(name=f"threshold MILFP: {game.name}, model '{model.name}'")
    m.THRESHOLDS = pyo.Set(initialize=names, ordered=True)
    m.PIECES = pyo.RangeSet(1, J)
    m.t = pyo.Var(m.THRESHOLDS, bounds=(float(c[0]), float(c[-1])), doc="threshold position in signal space")
    m.x = pyo.Var(m.THRESHOLDS, bounds=(0.0, 1.0), doc="player 1's CDF at the threshold")
    m.y = pyo.Var(m.THRESHOLDS, bounds=(0.0, 1.0), doc="player 2's CDF at the threshold")
    cdf_var = (m.x, m.y)

    # ---------------------------------------------------------------- order
    pairs = []
    for p in (0, 1):
        pairs += list(zip(own_list[p][:-1], own_list[p][1:]))
    pairs += [pair for pair in model.order if pair not in pairs]
    m.ORDER = pyo.Set(initialize=[(a, b, v) for a, b in pairs for v in ("t", "x", "y")], dimen=3, ordered=True)
    m.order = pyo.Constraint(m.ORDER, rule=lambda m, a, b, v: getattr(m, v)[a] <= getattr(m, v)[b])

    if min_width > 0:
        lo_end, hi_end = float(c[0]), float(c[-1])

        def width_rule(m: Any, k: str) -> Any:
            p, j = owner[k]
            below = m.t[own_list[p][j - 2]] if j > 1 else lo_end
            return m.t[k] - below >= min_width

        m.region_width = pyo.Constraint(m.THRESHOLDS, rule=width_rule)
        m.last_region_width = pyo.Constraint(
            [k for p in (0, 1) for k in own_list[p][-1:]], rule=lambda m, k: hi_end - m.t[k] >= min_width
        )

    # opponent regions as (lower threshold or None, upper threshold or None, plan)
    def opp_regions(p: int) -> list[tuple[str | None, str | None, int]]:
        o = 1 - p
        ks = own_list[o]
        bounds = [None] + ks + [None]
        return [(bounds[r], bounds[r + 1], plans[o][r]) for r in range(len(plans[o]))]

    def adjacent_plans(k: str) -> tuple[int, int]:
        p, j = owner[k]
        return plans[p][j - 1], plans[p][j]

    below_outcome = [game.outcome_below(p) for p in (0, 1)]
    above_outcome = [2 - below_outcome[p] for p in (0, 1)]

    if finite:
        m.SIGNALS0 = pyo.RangeSet(0, J)
        m.C = pyo.Var(
            m.THRESHOLDS, m.SIGNALS0, bounds=(0.0, 1.0), doc="owner's CDF mass below min(threshold, end of signal s)"
        )
        pmf = [np.diff(Fc[p]) for p in (0, 1)]
        m.mass_start = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: m.C[k, 0] == 0)
        m.mass_end = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: m.C[k, J] == cdf_var[owner[k][0]][k])
        m.mass_step = pyo.Constraint(
            m.THRESHOLDS,
            m.PIECES,
            rule=lambda m, k, s: pyo.inequality(0.0, m.C[k, s] - m.C[k, s - 1], float(pmf[owner[k][0]][s - 1])),
        )
        tie_weight = 0.0 if game.deal == "without_replacement" else 1.0

        def D(k: str, s: int) -> Any:
            """Owner's payoff of the lower minus the upper plan, holding signal s (1-based)."""
            p, _ = owner[k]
            o = 1 - p
            q_lo, q_hi = adjacent_plans(k)
            total = Fc[o]

            def C(b: str | None, idx: int) -> Any:
                if b is None:
                    return 0.0
                if b == "end":
                    return float(total[idx])
                return m.C[b, idx]

            def X(b: str | None) -> Any:
                if b is None:
                    return 0.0
                if b == "end":
                    return 1.0
                return cdf_var[o][b]

            expr = 0.0
            for lo, hi, q_opp in opp_regions(p):
                hi = "end" if hi is None else hi
                low_mass = C(hi, s - 1) - C(lo, s - 1)
                at_mass = (C(hi, s) - C(hi, s - 1)) - (C(lo, s) - C(lo, s - 1))
                high_mass = (X(hi) - C(hi, s)) - (X(lo) - C(lo, s))
                expr += _payoff_difference(game, p, q_lo, q_hi, q_opp, below_outcome[p]) * low_mass
                if tie_weight:
                    expr += tie_weight * _payoff_difference(game, p, q_lo, q_hi, q_opp, TIE) * at_mass
                expr += _payoff_difference(game, p, q_lo, q_hi, q_opp, above_outcome[p]) * high_mass
            return expr

    else:

        def D_continuous(k: str) -> Any:
            p, _ = owner[k]
            o = 1 - p
            q_lo, q_hi = adjacent_plans(k)
            g_here = cdf_var[o][k]  # the opponent's CDF at this threshold

            def X(b: str | None, default: float) -> Any:
                return default if b is None else cdf_var[o][b]

            def le(a: str | None, b: str | None) -> bool:
                if a is None or b is None:
                    return True
                return closure[a, b]

            expr = 0.0
            for lo, hi, q_opp in opp_regions(p):
                if hi is not None and closure[hi, k]:  # the whole region lies below
                    low_mass, high_mass = X(hi, 1.0) - X(lo, 0.0), 0.0
                elif lo is not None and closure[k, lo]:  # the whole region lies above
                    low_mass, high_mass = 0.0, X(hi, 1.0) - X(lo, 0.0)
                elif le(lo, k) and le(k, hi):  # the region straddles the threshold
                    low_mass, high_mass = g_here - X(lo, 0.0), X(hi, 1.0) - g_here
                else:
                    unplaced = lo if lo is not None and not le(lo, k) else hi
                    raise ModelError(
                        f"model '{model.name}': the order does not place threshold {k} against "
                        f"{unplaced}; continuous signals need every threshold ordered against the "
                        "opponent's (add e.g. '" + f"{k} <= {unplaced}" + "' to 'order')"
                    )
                expr += _payoff_difference(game, p, q_lo, q_hi, q_opp, below_outcome[p]) * low_mass
                expr += _payoff_difference(game, p, q_lo, q_hi, q_opp, above_outcome[p]) * high_mass
            return expr

        m.indifference = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: D_continuous(k) == 0)

    # ---------------------------------------------------------------- pieces
    def piece_rule(d: Any, k: str, j: int) -> None:
        lo, hi = float(c[j - 1]), float(c[j])
        d.in_piece = pyo.Constraint(expr=pyo.inequality(lo, m.t[k], hi))
        d.consistency_x = pyo.Constraint(expr=m.x[k] == float(Fc[0][j - 1]) + float(slope[0][j - 1]) * (m.t[k] - lo))
        d.consistency_y = pyo.Constraint(expr=m.y[k] == float(Fc[1][j - 1]) + float(slope[1][j - 1]) * (m.t[k] - lo))
        if finite:
            p = owner[k][0]
            d.mass_below = pyo.Constraint(expr=m.C[k, j - 1] == float(Fc[p][j - 1]))
            d.mass_at = pyo.Constraint(expr=m.C[k, j] == cdf_var[p][k])
            d.indifference = pyo.Constraint(expr=D(k, j) == 0)

    m.piece = Disjunct(m.THRESHOLDS, m.PIECES, rule=piece_rule)

    if finite:

        def boundary_rule(d: Any, k: str, b: int) -> None:
            p = owner[k][0]
            d.at_boundary = pyo.Constraint(expr=m.t[k] == float(c[b]))
            d.consistency_x = pyo.Constraint(expr=m.x[k] == float(Fc[0][b]))
            d.consistency_y = pyo.Constraint(expr=m.y[k] == float(Fc[1][b]))
            d.mass_at = pyo.Constraint(expr=m.C[k, b] == float(Fc[p][b]))
            if b >= 1:
                d.lower_signal_prefers_lower_plan = pyo.Constraint(expr=D(k, b) >= 0)
            if b < J:
                d.upper_signal_prefers_upper_plan = pyo.Constraint(expr=D(k, b + 1) <= 0)

        m.boundary = Disjunct(m.THRESHOLDS, m.SIGNALS0, rule=boundary_rule)
        m.locate = Disjunction(
            m.THRESHOLDS,
            rule=lambda m, k: [m.piece[k, j] for j in m.PIECES] + [m.boundary[k, b] for b in m.SIGNALS0],
        )
    else:
        m.locate = Disjunction(m.THRESHOLDS, rule=lambda m, k: [m.piece[k, j] for j in m.PIECES])

    # Valid inequalities on the indicators (implied by the disjunctions; they only tighten
    # the relaxation): where the threshold is, how much mass lies below each signal end,
    # and the order of the thresholds as an order of their pieces.
    def z(k: str, j: int) -> Any:
        return m.piece[k, j].binary_indicator_var

    def e(k: str, b: int) -> Any:
        return m.boundary[k, b].binary_indicator_var

    def beyond(k: str, s: int) -> Any:
        """1 when threshold k lies at or above the end of piece s."""
        expr = sum(z(k, j) for j in range(s + 1, J + 1))
        if finite:
            expr += sum(e(k, b) for b in range(s, J + 1))
        return expr

    def position(k: str) -> Any:
        expr = sum(j * z(k, j) for j in range(1, J + 1))
        if finite:
            expr += sum((b + 0.5) * e(k, b) for b in range(0, J + 1))
        return expr

    def t_bounds(k: str, side: str) -> Any:
        expr = sum(float(c[j - 1] if side == "lo" else c[j]) * z(k, j) for j in range(1, J + 1))
        if finite:
            expr += sum(float(c[b]) * e(k, b) for b in range(0, J + 1))
        return expr

    m.locate_lower = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: t_bounds(k, "lo") <= m.t[k])
    m.locate_upper = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: m.t[k] <= t_bounds(k, "hi"))
    m.piece_order = pyo.Constraint(
        pyo.Set(initialize=pairs, dimen=2, ordered=True),
        rule=lambda m, a, b: position(a) - 1.0 <= position(b),
    )
    if finite:
        m.mass_full = pyo.Constraint(
            m.THRESHOLDS,
            m.PIECES,
            rule=lambda m, k, s: m.C[k, s] >= float(Fc[owner[k][0]][s]) * beyond(k, s),
        )
        m.mass_empty = pyo.Constraint(
            m.THRESHOLDS,
            m.PIECES,
            rule=lambda m, k, s: (
                m.C[k, s] - m.C[k, s - 1]
                <= float(pmf[owner[k][0]][s - 1]) * (beyond(k, s - 1) - (e(k, s - 1) if finite else 0))
            ),
        )

    if select == "any":
        m.feasibility = pyo.Objective(expr=0.0)
    elif select in ("lowest", "highest"):
        m.selection = pyo.Objective(
            expr=sum(m.t[k] for k in names), sense=pyo.minimize if select == "lowest" else pyo.maximize
        )
    else:
        raise ModelError(f"select must be any, lowest or highest, not '{select}'")
    return ThresholdProgram(model=m, game=game, parametric=model, thresholds=names, plan_indices=plans)


__all__ = ["ThresholdProgram", "threshold_milfp"]
