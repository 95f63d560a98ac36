"""The threshold MILFP of Ganzfried and Sandholm, "Computing equilibria by incorporating
qualitative models" (2010), sections 6.1, 7.1 and 7.2, built from a game and a model, for
two or more players.

Variables per threshold ``k`` (named ``"p.j"``, see :mod:`equilibria.models.parametric`):

``t[k]``       the threshold's position in the signal space,
``F[o, k]``    player ``o``'s CDF at it, ``F_o(t_k)``, for every player ``o``,
``piece[k, j]``  a disjunct per CDF piece ``j`` (for finite signals: per signal); its
               binary indicator is the paper's ``z_{k,j}``; the disjunction ``locate[k]``
               makes exactly one true (``sum_j z_{k,j} = 1``).

Constraints:

``order_t``, ``order_cdf``  the model's partial order and each player's own region order,
                   on t and on every player's CDF;
``piece[k,j].consistency[o]``  inside piece j, ``F[o, k]`` is player o's CDF at t (the
                   piecewise-linear consistency of section 7.1; finite signals are the
                   case of unit pieces);
``indifference``   at every threshold the owner is indifferent between the plans of the
                   two regions it separates, against the others' threshold strategies.

The indifference of player ``p`` at threshold ``k`` is a sum over the other players'
regions (and, for finite signals, their signals) of a payoff difference times the product
of the others' masses there: a polynomial of degree ``n - 1`` (section 7.2). With two
players it is linear. With more, every product of two or more masses is a variable of
:mod:`equilibria.formulations.products` (``products=`` chooses its representation:
piecewise-linear squares with ``breakpoints`` points, or ``exact`` bilinear terms), and
the equation is relaxed to ``|f| <= tolerance`` (the paper's ``epsilon/2``).

Finite signals: the masses are ``w[o, j, r]``, the probability that player ``o`` holds
signal ``j`` and plays region ``r``, linear in ``C[k, s] = min(F(t_k), F(s))``, the
owner's mass below every signal end. The threshold sits inside one signal's piece and the
equation is written for that signal (``piece[k, s].indifference``), summing over the
others' signals with the exact law of the deal: independent (ties split the pot),
distinct cards from one deck (tuples that repeat a card are left out; the others are
equally likely) or any joint law (dependent signals, such as ranks dealt from a deck with
several suits: each tuple weighed by its joint probability over the product of the
marginals, the law the masses carry). Products are shared by every threshold of a player. A threshold may also
sit exactly between two signals (``boundary[k, b]``): then no signal mixes, and the signal
below must weakly prefer the lower plan, the one above the upper plan; without this case a
pure equilibrium would make the program infeasible.

Continuous signals: the model's order says which of the others' regions lie below the
threshold; a region the threshold cuts contributes its mass below and above, linear in the
CDF variables. Products are per threshold.

The guarantee
-------------
Let ``f`` be an equation's exact value and ``f~`` the program's (products approximated).
The program holds ``|f~| <= tau`` and the products' proven bounds give
``|f - f~| <= a = sum_t |c_t| E_t`` (coefficient times the chain's error bound,
:func:`~equilibria.formulations.products.chain_error_bound`). For finite signals ``f`` is
a joint (not conditional) payoff difference, so a signal that mixes at threshold ``k``
gains at most ``|f| <= tau + a`` by deviating to either plan, and a threshold on a
boundary lets each neighbour gain at most ``tau + a``. When every player's pure best
responses follow the model (the hypothesis of the paper's Theorem 3), the profile's
NashConv is therefore at most the sum over thresholds of the worst case of its
disjuncts, :attr:`ThresholdProgram.promised_epsilon`. Given ``epsilon``, each threshold
gets ``epsilon / thresholds``: ``tau`` a quarter of it and the approximation a quarter
(two neighbours at a boundary), and ``breakpoints`` is the smallest count whose bound
fits. For continuous signals the same numbers bound the residual of every indifference
equation (in payoff per unit of the owner's probability); the certificate is measured.

:func:`equilibria.routes.threshold.route.solve_threshold` uses this program for two players and for
continuous signals; finite signals with three or more players go to
:mod:`equilibria.formulations.threshold_located`, which interpolates only the products of
the split cards' fractions and bounds the error where the solver lands.

The program has no objective (a feasibility problem). ``to_pyomo`` returns the model with
disjunctions; ``solvers.solve_model`` turns them into big-M or hull constraints, or
SCIP's native indicator constraints (with SOS2 sets and bilinear rows passed as SCIP's own).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.gdp import Disjunct, Disjunction

from ..models import checks
from ..models.bayesian import BayesianGame
from ..models.checks import OptionError
from ..models.parametric import ModelError, ParametricModel
from .products import REPRESENTATIONS, add_product_chain, chain_error_bound

#: Products' representation when none is given (binaries grow like log k).
DEFAULT_PRODUCTS = "log"

#: The NashConv bound aimed at when a game needs products and neither ``epsilon`` nor
#: ``breakpoints`` is given.
DEFAULT_EPSILON = 0.05

#: Residual allowed in the equations of the exact (bilinear) products without ``epsilon``:
#: room for a global solver's feasibility tolerance.
EXACT_TOLERANCE = 1e-7

# A factor of a product: ("w", player, signal, region) or ("m", threshold, player, region, side)
Factor = tuple
Term = tuple[float, tuple[Factor, ...]]


@dataclass
class ThresholdProgram:
    """A threshold MILFP with the data to read its answer and its guarantee.

    ``products`` is the representation of the products (``"none"`` for two players),
    ``breakpoints`` the points per square (None when no square is approximated),
    ``tolerance[(k, s)]`` the residual the program allows in equation ``(threshold,
    signal)`` (signal None for continuous games) and ``approximation[(k, s)]`` the proven
    bound on that equation's error from the products. ``promised_epsilon`` is the bound on
    NashConv (finite signals) or on the sum of the indifference residuals (continuous) that
    follows (module docstring).
    """

    model: pyo.ConcreteModel
    game: BayesianGame
    parametric: ParametricModel
    thresholds: list[str]
    plan_indices: tuple[list[int], ...]
    products: str = "none"
    breakpoints: int | None = None
    epsilon: float | None = None
    tolerance: dict = field(default_factory=dict)
    approximation: dict = field(default_factory=dict)
    promised_epsilon: float = 0.0
    num_products: int = 0
    every_signal: bool = False  # a best-response row per signal (then a feasible answer is an equilibrium)

    @property
    def finite(self) -> bool:
        """True when the game's signals are finite."""
        return self.game.finite


def check_product_options(epsilon: float | None, breakpoints: int | None, products: str | None) -> None:
    """OptionError naming the option when ``epsilon``, ``breakpoints`` or ``products`` is bad."""
    checks.number("epsilon", epsilon, strict=True)
    if breakpoints is not None:
        checks.count("breakpoints", breakpoints, minimum=2, maximum=checks.MAX_BREAKPOINTS)
    if products is not None and products not in REPRESENTATIONS:
        raise OptionError(f"products must be one of {', '.join(REPRESENTATIONS)}, not {products!r}")


def threshold_milfp(
    game: BayesianGame,
    model: ParametricModel,
    select: str = "any",
    min_width: float = 0.0,
    *,
    epsilon: float | None = None,
    breakpoints: int | None = None,
    products: str | None = None,
    mccormick: bool = False,
    every_signal: bool | None = None,
    box: Mapping[str, tuple[float, float]] | None = None,
) -> ThresholdProgram:
    """Build the MILFP of ``model`` for ``game`` (see the module docstring).

    ``select`` picks among conforming equilibria when there are several (G_n's player 1
    has a family): ``any`` (the paper's feasibility program: whatever the solver finds
    first), ``lowest`` or ``highest`` (minimise / maximise the sum of the thresholds, so
    every solver returns the same one). ``min_width`` > 0 makes every region at least that
    wide in signal units (``region_width`` rows), which rules out answers that satisfy the
    indifferences only through empty regions.

    ``epsilon``, ``breakpoints``, ``products`` and ``mccormick`` shape the equations:
    ``epsilon`` is the promised bound (module docstring); ``breakpoints`` the points per
    square (default: the fewest that keep ``epsilon``); ``products`` one of
    :data:`~equilibria.formulations.products.REPRESENTATIONS` (default ``log``; games of
    two players have no products); ``mccormick`` adds envelope cuts to every product.
    Without ``epsilon`` a two-player program keeps exact equations, and a program with
    products given ``breakpoints`` allows each equation the error of its products.

    ``every_signal`` (finite signals; default: on with three or more players) adds a
    best-response row per player, region, other plan and signal (``best_response``): a
    signal the region covers must value the region's plan at least as much as the other
    plan, less the tolerance (big-M on the thresholds' indicators). The paper's program
    checks only the signals at thresholds, against the neighbouring plans, which admits
    profiles in which some signal gains by a plan the model does not name; with these rows
    every feasible answer is an epsilon-equilibrium whatever the model, and a model that
    admits none is infeasible.

    ``box`` (continuous signals) confines thresholds to intervals, by name: the program
    then looks only there, and its products' breakpoints span the masses the box allows,
    so that a few of them approximate the products as closely as many would over the
    whole range (the program of a model whose thresholds are known to lie near an
    equilibrium, :mod:`equilibria.routes.threshold.equations`).

    Raises ModelError when a region's plan is not a plan of the game, or (continuous
    signals) when the order leaves a threshold unplaced against another player's
    threshold; OptionError for a bad option.
    """
    check_product_options(epsilon, breakpoints, products)
    if select not in ("any", "lowest", "highest"):
        raise ModelError(f"select must be any, lowest or highest, not '{select}'")
    n = game.num_players
    plans = model.plan_indices(game)  # refuses a model for another number of players
    names = model.threshold_names
    owner = {k: model.threshold_owner(k) for k in names}
    own_list = {p: [k for k in names if owner[k][0] == p] for p in range(n)}
    closure = model.order_closure()
    c = game.breakpoints
    J = c.shape[0] - 1
    Fc = [np.asarray(game.signals[p](c)) for p in range(n)]
    slope = [np.diff(Fc[p]) / np.diff(c) for p in range(n)]
    finite = game.finite
    uses_products = n > 2
    representation = (products or DEFAULT_PRODUCTS) if uses_products else "none"

    m = pyo.ConcreteModel(name=f"threshold MILFP: {game.name}, model '{model.name}'")
    m.PLAYERS = pyo.RangeSet(0, n - 1)
    m.THRESHOLDS = pyo.Set(initialize=names, ordered=True)
    m.PIECES = pyo.RangeSet(1, J)
    m.t = pyo.Var(m.THRESHOLDS, bounds=(float(c[0]), float(c[-1])), doc="threshold position in signal space")
    m.F = pyo.Var(m.PLAYERS, m.THRESHOLDS, bounds=(0.0, 1.0), doc="each player's CDF at each threshold")
    if box:
        _confine(m, game, names, box)

    # ---------------------------------------------------------------- order
    pairs = add_threshold_order(m, model, own_list, c, min_width)
    m.order_cdf = pyo.Constraint(m.ORDER, m.PLAYERS, rule=lambda m, a, b, o: m.F[o, a] <= m.F[o, b])

    # region r of player o lies between bounds[o][r] and bounds[o][r + 1] (None: the ends)
    bounds: dict[int, list[str | None]] = {o: [None, *own_list[o], None] for o in range(n)}
    num_regions = [len(plans[o]) for o in range(n)]

    # ---------------------------------------------------------------- payoff differences
    tree = game.tree
    leaf_of = np.full(tree.num_nodes, -1, dtype=np.int64)
    leaf_of[tree.terminals] = np.arange(len(tree.terminals))
    walked: dict[tuple[int, ...], int] = {}

    def leaf(profile: tuple[int, ...]) -> int:
        if profile not in walked:
            walked[profile] = int(leaf_of[tree.profile_terminal(profile)])
        return walked[profile]

    def leaf_pair(p: int, q_a: int, q_b: int, regions: dict[int, int]) -> tuple[int, int]:
        """Terminals reached by player p's plans q_a and q_b against the others' ``regions``."""
        a = tuple(plans[o][regions[o]] if o != p else q_a for o in range(n))
        b = tuple(plans[o][regions[o]] if o != p else q_b for o in range(n))
        return leaf(a), leaf(b)

    def region_tuples(p: int) -> list[dict[int, int]]:
        others = [o for o in range(n) if o != p]
        return [dict(zip(others, rs)) for rs in itertools.product(*(range(num_regions[o]) for o in others))]

    # equations: (threshold, signal or None) -> list of (coefficient, factors)
    equations: dict[tuple[str, int | None], list[Term]] = {}
    # best-response rows (finite signals, every_signal): (player, region, plan, signal) -> terms
    rows: dict[tuple[int, int, int, int], list[Term]] = {}
    weight: dict[tuple, float] = {}  # joint probability units per unit of an equation or row
    if every_signal and not finite:
        raise OptionError("every_signal applies to finite signals (its best-response rows are per signal)")

    if finite:
        grid = np.indices((J,) * n).reshape(n, -1).T  # every tuple of signals, player 1 slowest
        strength = grid if game.winner == "higher" else -grid
        pay = tree.showdown_payoffs(strength)  # (J**n, terminals, n)
        if game.deal == "without_replacement":
            srt = np.sort(grid, axis=1)
            valid = np.all(srt[:, 1:] != srt[:, :-1], axis=1).reshape((J,) * n).astype(float)
            # a tuple of distinct signals has probability 1 / (J (J-1) ... (J-n+1)); the
            # equation weighs it by the others' pmfs, J**-(n-1)
            deal_weight = float(J) ** (n - 1) / math.prod(range(J - n + 1, J + 1))
        elif game.deal == "joint":
            # dependent signals: a deal's weight is its joint probability over the product
            # of the marginals the masses w carry, so that the equation of (p, s) is the
            # payoff difference conditional on s (weight: the marginal of s)
            marginals = [np.asarray(game.signals[o].pmf, dtype=float) for o in range(n)]
            product = marginals[0]
            for f in marginals[1:]:
                product = np.multiply.outer(product, f)
            joint = game.joint_table()
            valid = np.divide(joint, product, out=np.zeros_like(joint), where=product > 0)
        else:
            valid = np.ones((J,) * n)

        def signal_weight(p: int, s: int) -> float:
            return deal_weight if game.deal == "without_replacement" else float(game.signals[p].pmf[s - 1])

        def finite_terms(p: int, q_a: int, q_b: int) -> dict[int, list[Term]]:
            """Per own signal s, the terms of player p's payoff of plan q_a minus plan q_b."""
            others = [o for o in range(n) if o != p]
            out: dict[int, list[Term]] = {s: [] for s in range(1, J + 1)}
            for regions in region_tuples(p):
                a_leaf, b_leaf = leaf_pair(p, q_a, q_b, regions)
                if a_leaf == b_leaf:
                    continue
                diff = (pay[:, a_leaf, p] - pay[:, b_leaf, p]).reshape((J,) * n) * valid
                for s in range(1, J + 1):
                    sub = np.take(diff, s - 1, axis=p)  # over the others' signals, in player order
                    for idx in zip(*np.nonzero(sub)):
                        factors = tuple(("w", o, int(j) + 1, regions[o]) for o, j in zip(others, idx))
                        out[s].append((float(sub[idx]), factors))
            return out

        for k in names:
            p, j = owner[k]
            for s, terms in finite_terms(p, plans[p][j - 1], plans[p][j]).items():
                equations[k, s] = terms
                weight[k, s] = signal_weight(p, s)
        if every_signal is None:
            every_signal = n > 2
        if every_signal:
            # player p's region r against every other plan q, at every signal s
            for p in range(n):
                for r, q_r in enumerate(plans[p]):
                    for q in range(len(tree.plans[p])):
                        if q == q_r:
                            continue
                        for s, terms in finite_terms(p, q_r, q).items():
                            if terms:
                                rows[p, r, q, s] = terms
                                weight[p, r, q, s] = signal_weight(p, s)
    else:
        for k in names:
            p, _ = owner[k]
            others = [o for o in range(n) if o != p]
            # a showdown against each other player's side: below (0) or above (2) the owner (1)
            sides = np.array(list(itertools.product((0, 2), repeat=len(others))), dtype=float)
            positions = np.ones((sides.shape[0], n))
            positions[:, others] = sides
            pay = tree.showdown_payoffs(positions if game.winner == "higher" else -positions)
            equations[k, None] = []
            weight[k, None] = 1.0
            for regions in region_tuples(p):
                lo_leaf, hi_leaf = leaf_pair(p, plans[p][owner[k][1] - 1], plans[p][owner[k][1]], regions)
                if lo_leaf == hi_leaf:
                    continue
                diff = pay[:, lo_leaf, p] - pay[:, hi_leaf, p]
                for row in np.flatnonzero(diff):
                    factors = tuple(
                        ("m", k, o, regions[o], "below" if side == 0 else "above")
                        for o, side in zip(others, sides[row])
                    )
                    equations[k, None].append((float(diff[row]), factors))

    # ---------------------------------------------------------------- masses
    if finite:
        pmf = [np.diff(Fc[p]) for p in range(n)]
        signal_mass = add_signal_masses(m, owner, pmf, Fc, bounds)

        def factor_expr(f: Factor) -> Any:
            _, o, j, r = f
            return signal_mass(o, j, r)

        def factor_bounds(f: Factor) -> tuple[float, float]:
            return 0.0, float(pmf[f[1]][f[2] - 1])

    else:

        def cdf_at(o: int, b: str | None, default: float) -> Any:
            return default if b is None else m.F[o, b]

        def le(a: str | None, b: str | None) -> bool:
            return a is None or b is None or closure[a, b]

        def factor_expr(f: Factor) -> Any:
            _, k, o, r, side = f
            lo, hi = bounds[o][r], bounds[o][r + 1]
            whole = cdf_at(o, hi, 1.0) - cdf_at(o, lo, 0.0)
            if hi is not None and closure[hi, k]:  # the whole region lies below
                return whole if side == "below" else 0.0
            if lo is not None and closure[k, lo]:  # the whole region lies above
                return 0.0 if side == "below" else whole
            if le(lo, k) and le(k, hi):  # the threshold cuts the region
                here = m.F[o, k]
                return here - cdf_at(o, lo, 0.0) if side == "below" else cdf_at(o, hi, 1.0) - here
            unplaced = lo if lo is not None and not le(lo, k) else hi
            raise ModelError(
                f"model '{model.name}': the order does not place threshold {k} against "
                f"{unplaced}; continuous signals need every threshold ordered against the "
                "other players' (add e.g. '" + f"{k} <= {unplaced}" + "' to 'order')"
            )

        def cdf_range(o: int, b: str | None, default: float) -> tuple[float, float]:
            if b is None:
                return default, default
            return float(m.F[o, b].lb), float(m.F[o, b].ub)

        def factor_bounds(f: Factor) -> tuple[float, float]:
            """The range of a region's mass below or above a threshold wherever the
            thresholds may lie (the cases of ``factor_expr``; [0, 1] without a box)."""
            _, k, o, r, side = f
            lo, hi = bounds[o][r], bounds[o][r + 1]
            start, stop = cdf_range(o, lo, 0.0), cdf_range(o, hi, 1.0)
            whole = (stop[0] - start[1], stop[1] - start[0])
            if hi is not None and closure[hi, k]:
                low, high = whole if side == "below" else (0.0, 0.0)
            elif lo is not None and closure[k, lo]:
                low, high = (0.0, 0.0) if side == "below" else whole
            else:
                here = cdf_range(o, k, 0.0)
                low, high = (
                    (here[0] - start[1], here[1] - start[0])
                    if side == "below"
                    else (stop[0] - here[1], stop[1] - here[0])
                )
            return max(0.0, low), min(1.0, max(0.0, high))

    # a factor that is identically zero (a region entirely on the other side) drops its terms
    zero_factors = {f for terms in equations.values() for _, fs in terms for f in fs if _is_zero(factor_expr(f))}
    for key, terms in equations.items():
        equations[key] = [(coef, fs) for coef, fs in terms if not any(f in zero_factors for f in fs)]

    # ---------------------------------------------------------------- products
    all_terms: dict[tuple, list[Term]] = {**equations, **rows}
    product_keys = sorted({fs for terms in all_terms.values() for _, fs in terms if len(fs) >= 2})
    exact = representation == "exact"

    def approximation_at(kbp: int) -> dict[tuple, float]:
        memo: dict[tuple, float] = {}
        out = {}
        for key, terms in all_terms.items():
            total = 0.0
            for coef, fs in terms:
                if len(fs) < 2 or exact:
                    continue
                widths = tuple(factor_bounds(f) for f in fs)
                if widths not in memo:
                    memo[widths] = chain_error_bound(kbp, widths)
                total += abs(coef) * memo[widths]
            out[key] = total
        return out

    # each key's share of epsilon, for its residual and again for its products' error: with
    # best-response rows every signal of every player may gain its share; otherwise every
    # threshold (twice: the two neighbours of a boundary)
    if every_signal:
        shares = 2.0 * n * J
    else:
        shares = 4.0 * max(1, len(names))
    if product_keys and not exact and breakpoints is None:
        target = epsilon if epsilon is not None else DEFAULT_EPSILON
        breakpoints = _fewest_breakpoints(approximation_at, {key: target / (shares * weight[key]) for key in all_terms})
    approximation = (
        approximation_at(breakpoints)
        if (product_keys and not exact and breakpoints is not None)
        else dict.fromkeys(all_terms, 0.0)
    )
    if epsilon is not None:
        tolerance = {key: epsilon / (shares * weight[key]) for key in all_terms}
        if product_keys and not exact and any(approximation[key] > tolerance[key] for key in all_terms):
            # both given, and the grid alone may cost more than epsilon: the program would
            # then neither keep the promise nor admit every equilibrium
            budget = {key: epsilon / (shares * weight[key]) for key in all_terms}
            raise OptionError(
                f"--breakpoints {breakpoints} is too coarse for --epsilon {epsilon:g}: its products may cost more "
                f"than epsilon; give at least {_fewest_breakpoints(approximation_at, budget)} breakpoints, "
                "or only one of the two"
            )
    elif product_keys and exact:
        tolerance = dict.fromkeys(all_terms, EXACT_TOLERANCE)
    elif product_keys:
        tolerance = dict(approximation)
    else:
        tolerance = dict.fromkeys(all_terms, 0.0)

    product_var: dict[tuple[Factor, ...], Any] = {}
    if product_keys:
        used = sorted({f for fs in product_keys for f in fs})
        m.FACTORS = pyo.Set(initialize=range(len(used)))
        m.factor = pyo.Var(
            m.FACTORS,
            bounds=lambda m, i: factor_bounds(used[i]),
            doc="a player's mass in one region (and signal) that enters a product",
        )
        m.factor_definition = pyo.Constraint(m.FACTORS, rule=lambda m, i: m.factor[i] == factor_expr(used[i]))
        factor_var = {f: m.factor[i] for i, f in enumerate(used)}
        m.products = pyo.Block()
        for i, fs in enumerate(product_keys):
            product_var[fs] = add_product_chain(
                m.products,
                [factor_var[f] for f in fs],
                name=f"product{i}",
                breakpoints=breakpoints or 2,
                representation=representation,
                mccormick=mccormick,
            )

    def D(key: tuple) -> Any:
        """The owner's payoff of the lower minus the upper plan (equation ``key``), or of a
        region's plan minus another plan (best-response row ``key``)."""
        expr: Any = 0.0
        for coef, fs in all_terms[key]:
            expr += coef * (product_var[fs] if len(fs) >= 2 else factor_expr(fs[0]))
        return expr

    def indifferent(key: tuple[str, int | None]) -> Any:
        tau = tolerance[key]
        return D(key) == 0 if tau == 0 else pyo.inequality(-tau, D(key), tau)

    # ---------------------------------------------------------------- pieces
    def piece_rule(d: Any, k: str, j: int) -> None:
        in_piece(m, d, k, j, c, Fc, slope, owner[k][0] if finite else None)
        if finite:
            if equations[k, j]:  # an equation without terms holds whatever the masses
                d.indifference = pyo.Constraint(expr=indifferent((k, j)))

    if not finite:
        m.indifference = pyo.Constraint(
            m.THRESHOLDS, rule=lambda m, k: indifferent((k, None)) if equations[k, None] else pyo.Constraint.Skip
        )

    if finite:

        def boundary_rule(d: Any, k: str, b: int) -> None:
            at_boundary(m, d, k, b, c, Fc, owner[k][0])
            if b >= 1 and equations[k, b]:
                d.lower_signal_prefers_lower_plan = pyo.Constraint(expr=D((k, b)) >= -tolerance[k, b])
            if b < J and equations[k, b + 1]:
                d.upper_signal_prefers_upper_plan = pyo.Constraint(expr=D((k, b + 1)) <= tolerance[k, b + 1])

        add_location(m, piece_rule, boundary_rule)
    else:
        add_location(m, piece_rule, None)

    _valid_inequalities(m, names, pairs, c, finite, owner, Fc)
    if rows:

        def reach(key: tuple) -> float:
            """A bound on |D(key)| wherever the masses are."""
            total = sum(abs(coef) * math.prod(factor_bounds(f)[1] for f in fs) for coef, fs in all_terms[key])
            return total + approximation[key] + tolerance[key] + 1e-9

        def z(k: str, j: int) -> Any:
            return m.piece[k, j].binary_indicator_var

        def e(k: str, b: int) -> Any:
            return m.boundary[k, b].binary_indicator_var

        def below(k: str, s: int) -> Any:  # threshold k at or above the end of signal s
            return sum(z(k, j) for j in range(s + 1, J + 1)) + sum(e(k, b) for b in range(s, J + 1))

        def above(k: str, s: int) -> Any:  # threshold k at or below the start of signal s
            return sum(z(k, j) for j in range(1, s)) + sum(e(k, b) for b in range(0, s))

        def plays(p: int, r: int, s: int) -> Any:
            return region_covers(own_list[p], r, s, above, below)

        m.BEST_RESPONSE = pyo.Set(initialize=sorted(rows), dimen=4, ordered=True)
        m.best_response = pyo.Constraint(
            m.BEST_RESPONSE,
            rule=lambda m, p, r, q, s: (
                D((p, r, q, s)) >= -tolerance[p, r, q, s] - reach((p, r, q, s)) * (1 - plays(p, r, s))
            ),
        )

    if select == "any":
        m.feasibility = pyo.Objective(expr=0.0)
    else:
        m.selection = pyo.Objective(
            expr=sum(m.t[k] for k in names), sense=pyo.minimize if select == "lowest" else pyo.maximize
        )

    # the guarantee: per threshold, the worst of its disjuncts (module docstring)
    def gain(key: tuple) -> float:
        return weight[key] * (tolerance[key] + approximation[key])

    promised = 0.0
    if rows:  # every signal of every player gains at most its worst row or equation
        worst: dict[tuple[int, int | None], float] = {}
        for key in all_terms:
            p, s_ = (key[0], key[3]) if len(key) == 4 else (owner[key[0]][0], key[1])
            worst[p, s_] = max(worst.get((p, s_), 0.0), gain(key))
        promised = sum(worst.values())
    else:
        for k in names:
            if finite:
                worst_k = max(gain((k, j)) for j in range(1, J + 1))
                for b in range(J + 1):
                    worst_k = max(worst_k, (gain((k, b)) if b >= 1 else 0.0) + (gain((k, b + 1)) if b < J else 0.0))
                promised += worst_k
            else:
                promised += gain((k, None))
    return ThresholdProgram(
        model=m,
        game=game,
        parametric=model,
        thresholds=names,
        plan_indices=plans,
        products=representation,
        breakpoints=breakpoints if (product_keys and not exact) else None,
        epsilon=epsilon,
        tolerance=tolerance,
        approximation=approximation,
        promised_epsilon=promised,
        num_products=len(product_keys),
        every_signal=bool(every_signal),
    )


def _confine(
    m: pyo.ConcreteModel, game: BayesianGame, names: list[str], box: Mapping[str, tuple[float, float]]
) -> None:
    """Bound each boxed threshold and every player's CDF at it (continuous signals)."""
    if game.finite:
        raise OptionError(
            "a box confines the thresholds of continuous signals; finite signals have the located program"
        )
    lo_end, hi_end = float(game.breakpoints[0]), float(game.breakpoints[-1])
    for k, (low, high) in box.items():
        if k not in names:
            raise ModelError(f"the box names threshold '{k}'; the model's are {', '.join(names) or '(none)'}")
        low, high = max(lo_end, float(low)), min(hi_end, float(high))
        if not low <= high:
            raise OptionError(f"the box of threshold {k} is empty: [{low}, {high}]")
        m.t[k].setlb(low)
        m.t[k].setub(high)
        for o in range(game.num_players):
            m.F[o, k].setlb(float(game.signals[o](low)))
            m.F[o, k].setub(float(game.signals[o](high)))


def add_signal_masses(
    m: Any, owner: dict, pmf: list[np.ndarray], Fc: list[np.ndarray], bounds: dict[int, list[str | None]]
) -> Callable[[int, int, int], Any]:
    """Finite signals: variables ``C[k, s]``, the mass of threshold k's owner below the
    lesser of the threshold and the end of signal s, with the rows that tie them to the
    owner's CDF (``m.F``) signal by signal; returns ``signal_mass(o, j, r)``, the mass of
    player o's signal j in o's refinement region r (bounded by ``bounds[o][r]`` and
    ``bounds[o][r + 1]``, None past an end), an expression linear in ``C``."""
    J = len(pmf[0])
    m.SIGNALS0 = pyo.RangeSet(0, J)
    m.C = pyo.Var(
        m.THRESHOLDS, m.SIGNALS0, bounds=(0.0, 1.0), doc="owner's CDF mass below min(threshold, end of signal s)"
    )
    m.mass_start = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: m.C[k, 0] == 0)
    m.mass_end = pyo.Constraint(m.THRESHOLDS, rule=lambda m, k: m.C[k, J] == m.F[owner[k][0], k])
    m.mass_step = pyo.Constraint(
        m.THRESHOLDS,
        m.PIECES,
        rule=lambda m, k, s: pyo.inequality(0.0, m.C[k, s] - m.C[k, s - 1], float(pmf[owner[k][0]][s - 1])),
    )

    def cumulative(o: int, b: str | None, j: int, top: bool) -> Any:
        if b is None:
            return float(Fc[o][j]) if top else 0.0
        return m.C[b, j]

    def signal_mass(o: int, j: int, r: int) -> Any:
        lo, hi = bounds[o][r], bounds[o][r + 1]
        return (cumulative(o, hi, j, True) - cumulative(o, hi, j - 1, True)) - (
            cumulative(o, lo, j, False) - cumulative(o, lo, j - 1, False)
        )

    return signal_mass


def in_piece(m: Any, d: Any, k: str, j: int, c: Any, Fc: Any, slope: Any, owner: int | None) -> None:
    """Disjunct ``d``: threshold k lies in piece j (between breakpoints ``c[j - 1]`` and
    ``c[j]``), where every player's CDF value at it is linear in its location; for finite
    signals (``owner``, the threshold's player, given) the owner's mass below it fills the
    signals before piece j and part of signal j."""
    lo = float(c[j - 1])
    d.in_piece = pyo.Constraint(expr=pyo.inequality(lo, m.t[k], float(c[j])))
    d.consistency = pyo.Constraint(
        m.PLAYERS, rule=lambda d, o: m.F[o, k] == float(Fc[o][j - 1]) + float(slope[o][j - 1]) * (m.t[k] - lo)
    )
    if owner is not None:
        d.mass_below = pyo.Constraint(expr=m.C[k, j - 1] == float(Fc[owner][j - 1]))
        d.mass_at = pyo.Constraint(expr=m.C[k, j] == m.F[owner, k])


def at_boundary(m: Any, d: Any, k: str, b: int, c: Any, Fc: Any, owner: int) -> None:
    """Disjunct ``d``: threshold k lies exactly on signal boundary b (finite signals), every
    CDF value and the owner's mass below it fixed there."""
    d.at_boundary = pyo.Constraint(expr=m.t[k] == float(c[b]))
    d.consistency = pyo.Constraint(m.PLAYERS, rule=lambda d, o: m.F[o, k] == float(Fc[o][b]))
    d.mass_at = pyo.Constraint(expr=m.C[k, b] == float(Fc[owner][b]))


def add_location(m: Any, piece_rule: Callable[..., None], boundary_rule: Callable[..., None] | None) -> None:
    """Where each threshold lies: a disjunction per threshold over the pieces (``piece_rule``
    fills disjunct ``piece[k, j]``) and, for finite signals, the signal boundaries
    (``boundary_rule`` fills ``boundary[k, b]``)."""
    m.piece = Disjunct(m.THRESHOLDS, m.PIECES, rule=piece_rule)
    if boundary_rule is None:
        m.locate = Disjunction(m.THRESHOLDS, rule=lambda m, k: [m.piece[k, j] for j in m.PIECES])
        return
    m.boundary = Disjunct(m.THRESHOLDS, m.SIGNALS0, rule=boundary_rule)
    m.locate = Disjunction(
        m.THRESHOLDS,
        rule=lambda m, k: [m.piece[k, j] for j in m.PIECES] + [m.boundary[k, b] for b in m.SIGNALS0],
    )


def add_threshold_order(
    m: pyo.ConcreteModel,
    model: ParametricModel,
    own_list: dict[int, list[str]],
    ends: np.ndarray,
    min_width: float,
) -> list[tuple[str, str]]:
    """Add the order of the thresholds on ``m.t`` to a threshold program: each player's own
    thresholds ascending and the model's ``order`` (set ``ORDER``, rows ``order_t``), and with
    ``min_width`` > 0 every region at least that wide (``region_width``,
    ``last_region_width``). ``ends`` are the signal space's breakpoints. Returns the pairs."""
    pairs: list[tuple[str, str]] = []
    for own in own_list.values():
        pairs += list(zip(own[:-1], own[1:]))
    pairs += [pair for pair in model.order if pair not in pairs]
    m.ORDER = pyo.Set(initialize=pairs, dimen=2, ordered=True)
    m.order_t = pyo.Constraint(m.ORDER, rule=lambda m, a, b: m.t[a] <= m.t[b])
    if min_width > 0:
        lo_end, hi_end = float(ends[0]), float(ends[-1])
        owner = {k: (p, j) for p, own in own_list.items() for j, k in enumerate(own, start=1)}

        def width_rule(m: Any, k: str) -> Any:
            p, j = owner[k]
            below = m.t[own_list[p][j - 2]] if j > 1 else lo_end
            return m.t[k] - below >= min_width

        m.region_width = pyo.Constraint(m.THRESHOLDS, rule=width_rule)
        m.last_region_width = pyo.Constraint(
            [own[-1] for own in own_list.values() if own], rule=lambda m, k: hi_end - m.t[k] >= min_width
        )
    return pairs


def region_covers(
    own: list[str],
    r: int,
    s: int,
    at_or_below_start: Callable[[str, int], Any],
    at_or_above_end: Callable[[str, int], Any],
) -> Any:
    """1 when region ``r`` of a player whose thresholds are ``own`` (ascending) covers part
    of signal ``s``, else 0, from the location indicators of its two thresholds: the upper
    one does not lie at or below the signal's start, nor the lower one at or above its end."""
    expr: Any = 1
    if r < len(own):
        expr -= at_or_below_start(own[r], s)
    if r > 0:
        expr -= at_or_above_end(own[r - 1], s)
    return expr


def _is_zero(expr: Any) -> bool:
    return isinstance(expr, (int, float)) and expr == 0


def _fewest_breakpoints(approximation_at: Callable[[int], dict[tuple, float]], budget: dict[tuple, float]) -> int:
    """Smallest breakpoint count whose approximation bound fits every equation's budget
    (the bound decreases as breakpoints grow)."""

    def fits(kbp: int) -> bool:
        bound = approximation_at(kbp)
        return all(bound[key] <= budget[key] for key in budget)

    high = 2
    while not fits(high):
        high *= 2
        if high > 2**20:
            raise OptionError("epsilon is too small for any number of breakpoints up to 2**20; give a larger epsilon")
    low = max(2, high // 2)
    while low < high:
        mid = (low + high) // 2
        if fits(mid):
            high = mid
        else:
            low = mid + 1
    return low


def _valid_inequalities(
    m: pyo.ConcreteModel,
    names: list[str],
    pairs: list[tuple[str, str]],
    c: np.ndarray,
    finite: bool,
    owner: dict[str, tuple[int, int]],
    Fc: list[np.ndarray],
) -> None:
    """Inequalities on the indicators implied by the disjunctions; they only tighten the
    relaxation: where a threshold is, how much mass lies below each signal end, and the
    order of the thresholds as an order of their pieces."""
    J = c.shape[0] - 1

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
        pmf = [np.diff(f) for f in Fc]
        m.mass_full = pyo.Constraint(
            m.THRESHOLDS,
            m.PIECES,
            rule=lambda m, k, s: m.C[k, s] >= float(Fc[owner[k][0]][s]) * beyond(k, s),
        )
        m.mass_empty = pyo.Constraint(
            m.THRESHOLDS,
            m.PIECES,
            rule=lambda m, k, s: (
                m.C[k, s] - m.C[k, s - 1] <= float(pmf[owner[k][0]][s - 1]) * (beyond(k, s - 1) - e(k, s - 1))
            ),
        )


__all__ = [
    "DEFAULT_EPSILON",
    "DEFAULT_PRODUCTS",
    "ThresholdProgram",
    "add_location",
    "add_signal_masses",
    "at_boundary",
    "in_piece",
    "add_threshold_order",
    "region_covers",
    "threshold_milfp",
]
