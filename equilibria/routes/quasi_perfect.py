"""The quasi-perfect equilibrium of a two-player zero-sum game: the limit of the perturbed
sequence-form LP of Miltersen and Sørensen ("Computing a quasi-perfect equilibrium of a
two-player game", 2010), taken exactly rather than at one small number.

Each player's realization weights are bounded below by ``eps**len(s)`` for every
non-empty sequence ``s`` of length ``len(s)`` (its own actions): the player trembles, and
so does the opponent, whose trembles enter the player's LP through its objective. The
bounds are polynomials in ``eps``, the LP's matrix does not depend on it, and so a basis
fixes the LP's solution as a polynomial in ``eps``. A basis that is optimal for every small
enough ``eps`` is found by solving the LP at one ``eps`` by the simplex method and is then
verified for all of them: every basic value's slack to its bounds and every reduced
cost's sign are polynomials whose first nonzero coefficient must have the right sign
(lexicographic feasibility and optimality). A basis that fails is discarded and ``eps``
made smaller.

The refined behaviour strategy is the limit of the perturbed one: at an information set
whose parent sequence's weight vanishes like ``eps**k``, each action's probability is the
ratio of the ``eps**k`` coefficients. So it is defined, and optimal against the
opponent's trembles, at information sets that equilibrium play never reaches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from ..formulations.linear_program import LinearProgram
from ..formulations.sequence_form_lp import sequence_form_lp
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..solvers import Status
from ..solvers.highs import simplex_basis

#: HiGHS's basis codes (:func:`~equilibria.solvers.highs.simplex_basis`).
LOWER, BASIC, UPPER, ZERO = 0, 1, 2, 3

#: The perturbation tried first makes the smallest bound ``FIRST_BOUND``; each failed
#: basis divides ``eps`` by ``SHRINK``, at most ``ATTEMPTS`` times.
FIRST_BOUND = 1e-8
SHRINK = 4.0
ATTEMPTS = 6

#: A polynomial coefficient counts as zero below this (relative to the LP's scale).
ZERO_COEFFICIENT = 1e-9
#: Pivots of the lexicographic simplex from the simplex's basis at one eps.
MAX_PIVOTS = 2000
#: Pivot elements smaller than this, relative to the largest, are not pivoted on.
PIVOT_TOLERANCE = 1e-9


def sequence_lengths(sf: SequenceForm, p: int) -> np.ndarray:
    """The number of own actions in each of player ``p``'s sequences (0: the empty one)."""
    tp = sf.players[p].treeplex
    lengths = np.zeros(tp.num_sequences, dtype=np.int64)
    lengths[1:] = tp.depth[tp.sequence_infoset] + 1
    return lengths


@dataclass(frozen=True)
class PerturbedLP:
    """Player ``player``'s sequence-form LP with both players' trembles as polynomials in
    ``eps``: column lower bounds ``sum_k lower[k] eps**k`` and objective
    ``sum_k objective[k] eps**k`` (the matrix and the rows do not move)."""

    lp: LinearProgram
    lower: np.ndarray  # (degree + 1, columns)
    objective: np.ndarray  # (degree + 1, columns)

    def lower_bounds(self) -> np.ndarray:
        """The column lower bounds as polynomials: the LP's own where no tremble moves them."""
        bounds = self.lower.copy()
        bounds[0] = np.where(self.lower[1:].any(axis=0), self.lower[0], self.lp.col_lower)
        return bounds

    def at(self, eps: float) -> LinearProgram:
        """The LP at one value of ``eps``."""
        powers = eps ** np.arange(self.lower.shape[0])
        lp = self.lp
        moving = self.lower[1:].any(axis=0)
        return LinearProgram(
            name=f"{lp.name}_perturbed",
            c=powers @ self.objective,
            A=lp.A,
            row_lower=lp.row_lower,
            row_upper=lp.row_upper,
            col_lower=np.where(moving, powers @ self.lower, lp.col_lower),
            col_upper=lp.col_upper,
            maximize=True,
            col_blocks=lp.col_blocks,
            row_blocks=lp.row_blocks,
            player=lp.player,
            opponent=lp.opponent,
        )


def perturbed_lp(sf: SequenceForm, p: int) -> PerturbedLP:
    """Player ``p``'s LP perturbed as Miltersen and Sørensen perturb it (module docstring).

    With the opponent's plan ``y = m + y'`` (``m`` its trembles, ``y' >= 0``), the inner
    minimum's dual keeps the LP's rows and adds ``x' A m - v' E_o m`` to its objective."""
    lp = sequence_form_lp(sf, p)
    o = 1 - p
    r, v = lp.col_block("r"), lp.col_block("v")
    own, theirs = sequence_lengths(sf, p), sequence_lengths(sf, o)
    degree = int(max(own.max(initial=0), theirs.max(initial=0)))
    payoff = sf.payoff_matrix(p) if p == 0 else sf.payoff_matrix(p).T.tocsr()
    constraints = sf.players[o].constraint_matrix
    lower = np.zeros((degree + 1, lp.num_cols))
    objective = np.zeros((degree + 1, lp.num_cols))
    objective[0] = lp.c
    for k in range(1, degree + 1):
        lower[k, r.start : r.stop] = own == k
        trembles = (theirs == k).astype(np.float64)
        objective[k, r.start : r.stop] = payoff @ trembles
        objective[k, v.start : v.stop] = -(constraints @ trembles)
    return PerturbedLP(lp, lower, objective)


def lex_sign(coefficients: np.ndarray, tolerance: float) -> np.ndarray:
    """Per column of ``coefficients`` (rows: powers of eps), the sign of its first
    coefficient above ``tolerance`` in size (0 when none is): the sign of the polynomial
    for every small enough eps."""
    big = np.abs(coefficients) > tolerance
    first = np.argmax(big, axis=0)
    signs = np.sign(coefficients[first, np.arange(coefficients.shape[1])])
    return np.where(big.any(axis=0), signs, 0.0)


def _lex_argmin(
    polynomials: np.ndarray, candidates: np.ndarray, tolerance: float, pivots: np.ndarray | None = None
) -> int:
    """The candidate column whose polynomial is smallest for every small enough eps;
    among ties (within ``tolerance`` at every power) the one with the largest ``pivots``
    entry in size (the steadiest pivot), else the first."""
    for row in polynomials:
        values = row[candidates]
        candidates = candidates[values <= values.min() + tolerance]
        if candidates.size == 1:
            break
    if pivots is not None and candidates.size > 1:
        return int(candidates[np.argmax(np.abs(pivots[candidates]))])
    return int(candidates[0])


@dataclass(frozen=True)
class StableBasis:
    """A basis optimal for every small enough ``eps``, the ``eps`` its search started
    from, the pivots it took from the simplex's basis there, and the LP's columns at it
    as polynomials (rows: powers of ``eps``)."""

    eps: float
    pivots: int
    columns: np.ndarray


#: Pivots between two factorizations of the basis; in between, each pivot adds one eta.
#: On Leduc with 5 ranks a pivot took 22.9 ms refactoring every time, 15.3 with 8 etas,
#: 15.4 with 16 and 16.4 with 32 (the etas' products then cost what they save).
REFACTOR_EVERY = 16


class _Basis:
    """The basis matrix ``matrix[:, order]`` as an LU factorization and the etas of the
    pivots since (the product form of the inverse): after a pivot that puts column ``q``
    at position ``r``, ``B'^-1 = E B^-1`` with ``E = I - (w - e_r) e_r' / w_r`` and
    ``w = B^-1 a_q``. Refactored every :data:`REFACTOR_EVERY` pivots or where ``w_r`` is
    too small to divide by; RuntimeError for a singular basis (SuperLU's)."""

    def __init__(self, matrix: sp.csc_matrix, order: np.ndarray):
        self.matrix = matrix
        self.refactor(order)

    def refactor(self, order: np.ndarray) -> None:
        order = np.array(order)
        self.lu = splu(sp.csc_matrix(self.matrix[:, order]))  # RuntimeError first when singular
        self.order = order
        self.etas: list[tuple[int, np.ndarray]] = []

    def solve(self, b: np.ndarray, trans: str = "N") -> np.ndarray:
        """``B^-1 b`` (``trans="T"``: ``B^-T b``), ``b`` a vector or a matrix of columns."""
        if trans == "T":
            z = np.array(b, dtype=np.float64)
            for r, w in reversed(self.etas):
                z[r] -= (w @ z - z[r]) / w[r]
            return self.lu.solve(np.ascontiguousarray(z), trans="T")
        x = self.lu.solve(np.ascontiguousarray(b))
        for r, w in self.etas:
            pivot = x[r] / w[r]
            x -= np.multiply.outer(w, pivot)
            x[r] = pivot
        return x

    def replace(self, position: int, column: int) -> None:
        """The basis with ``column`` at ``position`` instead of what was there."""
        w = self.solve(self.matrix[:, [column]].toarray().ravel())
        order = self.order.copy()
        order[position] = column
        if len(self.etas) >= REFACTOR_EVERY or abs(w[position]) <= PIVOT_TOLERANCE * max(1.0, float(np.abs(w).max())):
            self.refactor(order)
            return
        self.etas.append((position, w))
        self.order = order


class _LexicographicSimplex:
    """The perturbed LP ``max c(eps)'u`` over ``[A, -I] u = 0``, ``lower(eps) <= u <=
    upper`` (``u``: the columns, then the rows' activities) at one basis, every value a
    polynomial in eps; pivots move the basis until it is optimal for all small eps."""

    def __init__(self, perturbed: PerturbedLP, cols: np.ndarray, rows: np.ndarray):
        lp = perturbed.lp
        A = sp.csc_matrix(lp.A)
        self.m, n = A.shape
        self.matrix = sp.hstack([A, -sp.identity(self.m, format="csc")], format="csc")
        degree = perturbed.lower.shape[0] - 1
        self.lower = np.zeros((degree + 1, n + self.m))
        self.lower[:, :n] = perturbed.lower_bounds()
        self.lower[0, n:] = lp.row_lower
        self.upper = np.concatenate([lp.col_upper, lp.row_upper])
        self.costs = np.zeros((degree + 1, n + self.m))
        self.costs[:, :n] = perturbed.objective
        self.status = np.concatenate([cols, rows]).astype(np.int8)
        self.fixed = np.isfinite(self.lower[0]) & (self.lower[1:] == 0).all(axis=0) & (self.lower[0] == self.upper)
        self.tolerance = ZERO_COEFFICIENT * max(1.0, float(np.abs(self.costs).max()))
        self.pivots = 0
        self._basis: _Basis | None = None

    def solve(self) -> None:
        """The basic values ``u`` and the reduced costs ``d``, as polynomials."""
        basic = np.flatnonzero(self.status == BASIC)
        if basic.size != self.m:
            raise SolveFailed(f"the simplex's basis has {basic.size} basic variables for {self.m} rows")
        if self._basis is None:
            self._basis = _Basis(self.matrix, basic)
        else:  # one column in and one out after a pivot (none after a bound flip)
            left = np.setdiff1d(self._basis.order, basic, assume_unique=True)
            entered = np.setdiff1d(basic, self._basis.order, assume_unique=True)
            if left.size == 1 and entered.size == 1:
                self._basis.replace(int(np.flatnonzero(self._basis.order == left[0])[0]), int(entered[0]))
            elif left.size:
                self._basis.refactor(basic)
        self.factor = self._basis
        basic = self.basic = self.factor.order
        u = np.where(self.status == UPPER, self.upper, 0.0) * np.eye(self.lower.shape[0], 1)
        at_lower = (self.status == LOWER) | ((self.status != BASIC) & self.fixed)
        u[:, at_lower] = self.lower[:, at_lower]
        u[:, basic] = 0.0
        u[:, basic] = -self.factor.solve(np.ascontiguousarray(self.matrix @ u.T)).T
        self.u = u
        pi = self.factor.solve(np.ascontiguousarray(self.costs[:, basic].T), trans="T")
        self.d = self.costs - (self.matrix.T @ pi).T

    def infeasible(self) -> tuple[np.ndarray, np.ndarray]:
        """Basic variables below their lower bound and above their upper one, for every
        small eps."""
        below = np.zeros(self.u.shape[1], dtype=bool)
        above = np.zeros_like(below)
        b = self.basic
        finite = np.isfinite(self.lower[0, b])
        below[b[finite]] = lex_sign(self.u[:, b[finite]] - self.lower[:, b[finite]], self.tolerance) < 0
        finite = np.isfinite(self.upper[b])
        top = np.zeros((self.u.shape[0], int(finite.sum())))
        top[0] = self.upper[b[finite]]
        above[b[finite]] = lex_sign(top - self.u[:, b[finite]], self.tolerance) < 0
        return below, above

    def improvable(self) -> np.ndarray:
        """Per variable, +1 or -1 where moving it up or down from its bound raises the
        objective for every small eps (0: no), for nonbasic variables that may move so."""
        sign = lex_sign(self.d, self.tolerance)
        movable = (self.status != BASIC) & ~self.fixed
        up = movable & (sign > 0) & ((self.status == LOWER) | (self.status == ZERO))
        down = movable & (sign < 0) & ((self.status == UPPER) | (self.status == ZERO))
        return np.where(up, 1, np.where(down, -1, 0))

    def dual_pivot(self, below: np.ndarray, above: np.ndarray) -> None:
        """One dual simplex pivot: the most violated basic variable leaves at its bound;
        the entering one keeps every reduced cost's sign (the least ratio |d| / |alpha|)."""
        violation = np.where(below, self.lower - self.u, 0.0) + np.where(above, self.u - self.upper, 0.0)
        violated = np.flatnonzero(below | above)
        leaving = _lex_argmin(-violation, violated, self.tolerance)
        row = np.zeros(self.m)
        row[int(np.flatnonzero(self.basic == leaving)[0])] = 1.0
        alpha = self.matrix.T @ self.factor.solve(row, trans="T")
        nonbasic = (self.status != BASIC) & ~self.fixed
        raise_it = below[leaving]
        big = np.abs(alpha) > PIVOT_TOLERANCE * max(1.0, float(np.abs(alpha).max()))
        grows = (self.status == LOWER) | (self.status == ZERO)
        shrinks = (self.status == UPPER) | (self.status == ZERO)
        if raise_it:  # the leaving variable must rise: du_r = -alpha_j du_j > 0
            eligible = nonbasic & big & (((alpha < 0) & grows) | ((alpha > 0) & shrinks))
        else:
            eligible = nonbasic & big & (((alpha > 0) & grows) | ((alpha < 0) & shrinks))
        candidates = np.flatnonzero(eligible)
        if candidates.size == 0:
            raise SolveFailed("the perturbed LP is infeasible for small eps")
        ratios = np.abs(self.d) / np.where(big, np.abs(alpha), 1.0)
        entering = _lex_argmin(ratios, candidates, self.tolerance, alpha)
        self.status[entering] = BASIC
        self.status[leaving] = LOWER if raise_it else UPPER
        self.pivots += 1

    def primal_pivot(self, direction: np.ndarray) -> None:
        """One primal simplex pivot: the improvable variable whose reduced cost is largest
        (at the lowest power of eps where one is nonzero) moves until a basic variable
        meets a bound (it leaves there) or it meets its own other bound."""
        candidates = np.flatnonzero(direction)
        gains = np.abs(self.d[:, candidates])
        power = int(np.argmax((gains > self.tolerance).any(axis=1)))
        entering = int(candidates[np.argmax(gains[power])])
        s = float(direction[entering])
        column = self.matrix[:, [entering]].toarray().ravel()
        change = -self.factor.solve(column) * s  # basic values per unit of the move
        change[np.abs(change) <= PIVOT_TOLERANCE * max(1.0, float(np.abs(change).max()))] = 0.0
        b = self.basic
        rises = (change > 0) & np.isfinite(self.upper[b])
        falls = (change < 0) & np.isfinite(self.lower[0, b])
        # per blocking basic variable, the move that brings it to its bound
        to_upper = -self.u[:, b[rises]]
        to_upper[0] += self.upper[b[rises]]
        to_lower = self.u[:, b[falls]] - self.lower[:, b[falls]]
        steps = [to_upper / change[rises], to_lower / -change[falls]]
        rates = [np.abs(change[rises]), np.abs(change[falls])]
        who = np.concatenate([np.flatnonzero(rises), np.flatnonzero(falls), [-1]])
        to = np.concatenate([np.full(int(rises.sum()), UPPER), np.full(int(falls.sum()), LOWER), [0]])
        if np.isfinite(self.lower[0, entering]) and np.isfinite(self.upper[entering]):
            flip = -self.lower[:, [entering]]
            flip[0] += self.upper[entering]
            steps.append(flip)
            rates.append(np.ones(1))
            to[-1] = UPPER if s > 0 else LOWER
        else:
            who, to = who[:-1], to[:-1]
        if not who.size:
            raise SolveFailed("the perturbed LP is unbounded for small eps")
        step = np.hstack(steps)
        # a basic variable already past its bound (the simplex's tolerance at one eps)
        # stops the move at once: a step of zero, the variable leaving at that bound
        step[:, lex_sign(step, self.tolerance) < 0] = 0.0
        pick = _lex_argmin(step, np.arange(step.shape[1]), self.tolerance, np.concatenate(rates))
        if who[pick] < 0:  # a bound flip: the basis stays
            self.status[entering] = to[pick]
        else:
            self.status[b[who[pick]]] = to[pick]
            self.status[entering] = BASIC
        self.pivots += 1


def _lexicographic_optimum(perturbed: PerturbedLP, cols: np.ndarray, rows: np.ndarray) -> StableBasis | None:
    """From the simplex's basis at one eps, a basis primal and dual feasible for every
    small eps, in two phases: dual pivots with the costs of the columns whose reduced
    costs have the wrong sign shifted until they are zero (so the basis is dual feasible
    and stays near optimal) until no basic value is past a bound, then primal pivots with
    the true costs until no reduced cost has the wrong sign, each ratio test
    lexicographic. Its columns as polynomials, or None when the basis turns singular or
    :data:`MAX_PIVOTS` pass."""
    simplex = _LexicographicSimplex(perturbed, cols, rows)
    costs = simplex.costs
    for _ in range(MAX_PIVOTS):
        try:
            simplex.solve()
        except RuntimeError:  # a singular basis: start again from another eps
            return None
        below, above = simplex.infeasible()
        if (below | above).any():
            if simplex.costs is costs:  # phase 1: feasibility, the costs shifted
                wrong = simplex.improvable() != 0
                simplex.costs = costs.copy()
                simplex.costs[:, wrong] -= simplex.d[:, wrong]
                continue
            simplex.dual_pivot(below, above)
            continue
        if simplex.costs is not costs:  # phase 2: the true costs
            simplex.costs = costs
            continue
        direction = simplex.improvable()
        if not direction.any():
            n = perturbed.lp.num_cols
            return StableBasis(0.0, simplex.pivots, simplex.u[:, :n])
        simplex.primal_pivot(direction)
    return None


def stable_basis(perturbed: PerturbedLP, time_limit: float | None = None) -> StableBasis:
    """A basis of ``perturbed`` optimal for every small enough eps (module docstring).
    SolveFailed when none is found from :data:`ATTEMPTS` values of eps."""
    degree = perturbed.lower.shape[0] - 1
    eps = FIRST_BOUND ** (1.0 / max(degree, 1))
    tight = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    tried = []
    for _ in range(ATTEMPTS):
        status, _, cols, rows = simplex_basis(perturbed.at(eps), time_limit=time_limit, options=tight)
        found = _lexicographic_optimum(perturbed, cols, rows) if status == Status.OPTIMAL else None
        if found is not None:
            return StableBasis(eps, found.pivots, found.columns)
        tried.append(f"{eps:.3g}" + ("" if status == Status.OPTIMAL else f" ({status})"))
        eps /= SHRINK
    raise SolveFailed(
        f"no basis of the perturbed LP was found optimal for every small eps (from eps {', '.join(tried)})"
    )


def limit_behavior(sf: SequenceForm, p: int, plan: np.ndarray) -> np.ndarray:
    """The limit behaviour strategy of a realization plan given as polynomials in eps
    (rows: powers): per information set, the actions' coefficients at the lowest power
    at which the parent sequence's weight is nonzero, divided by it."""
    tp = sf.players[p].treeplex
    parents = tp.parent_sequence[tp.sequence_infoset]  # per non-empty sequence
    big = np.abs(plan) > ZERO_COEFFICIENT
    order = np.where(big.any(axis=0), np.argmax(big, axis=0), plan.shape[0] - 1)
    power = order[parents]
    idx = np.arange(1, tp.num_sequences)
    parent_weight = plan[power, parents]
    behavior = np.ones(tp.num_sequences)
    behavior[1:] = np.clip(plan[power, idx] / parent_weight, 0.0, 1.0)
    # rounding: each information set's probabilities add up to one
    totals = np.add.reduceat(behavior[1:], tp.first_sequence - 1)[tp.sequence_infoset]
    behavior[1:] /= totals
    return behavior


@dataclass(frozen=True)
class QuasiPerfect:
    """Both players' quasi-perfect equilibrium strategies (behaviour, on the sequence
    form), their realization plans as polynomials in eps on the way to the limit, the eps
    each player's search started from and the pivots it took, and the information sets
    (per player, by label) where the sequential best-response check failed (none when
    the answer is quasi-perfect)."""

    behaviors: list[np.ndarray]
    plans: list[np.ndarray]
    eps: list[float]
    pivots: list[int]
    violations: list[list[str]]


def quasi_perfect(sf: SequenceForm, time_limit: float | None = None) -> QuasiPerfect:
    """The quasi-perfect equilibrium of a two-player zero-sum sequence form (module
    docstring), checked by :func:`sequential_violations`."""
    behaviors, plans, found_at, pivots = [], [], [], []
    for p in (0, 1):
        perturbed = perturbed_lp(sf, p)
        basis = stable_basis(perturbed, time_limit=time_limit)
        r = perturbed.lp.col_block("r")
        plans.append(basis.columns[:, r.start : r.stop])
        behaviors.append(limit_behavior(sf, p, plans[-1]))
        found_at.append(basis.eps)
        pivots.append(basis.pivots)
    violations = [sequential_violations(sf, p, behaviors[p], plans[1 - p]) for p in (0, 1)]
    return QuasiPerfect(behaviors, plans, found_at, pivots, violations)


def sequential_violations(sf: SequenceForm, p: int, behavior: np.ndarray, opponent_plan: np.ndarray) -> list[str]:
    """The information sets of player ``p``, reached or not, where ``behavior`` plays an
    action that is not a best response against the opponent's trembling plan
    ``opponent_plan`` (polynomials in eps, rows: powers), ``p`` playing ``behavior``
    below: each action's value is a polynomial, and every action played must have the
    largest for every small enough eps. Labelled as the game labels them."""
    payoff = sf.payoff_matrix(p) if p == 0 else sf.payoff_matrix(p).T.tocsr()
    tp = sf.players[p].treeplex
    values = np.array([tp.expected_values(behavior, payoff @ y)[0] for y in opponent_plan])
    tolerance = ZERO_COEFFICIENT * max(1.0, float(np.abs(values).max()))
    if tp.num_infosets == 0:
        return []
    # power by power, the actions still tied with their information set's best: one that
    # falls below the best at the first power where they differ is lexicographically worse
    played = behavior[1:] > 1e-9
    tied = np.ones(tp.num_sequences - 1, dtype=bool)
    worse = np.zeros_like(tied)
    for row in values[:, 1:]:
        best = np.maximum.reduceat(np.where(tied, row, -np.inf), tp.first_sequence - 1)[tp.sequence_infoset]
        below = tied & (row < best - tolerance)
        worse |= below
        tied &= ~below
    bad = np.unique(tp.sequence_infoset[worse & played])
    return [sf.game.infoset_label(int(g)) for g in sf.players[p].infoset_global[bad]]


__all__ = [
    "PerturbedLP",
    "QuasiPerfect",
    "StableBasis",
    "lex_sign",
    "limit_behavior",
    "perturbed_lp",
    "quasi_perfect",
    "sequential_violations",
    "stable_basis",
]
