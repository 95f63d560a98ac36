"""The extensive-form perfect equilibrium of a two-player zero-sum game: the limit of the
LP perturbed in the extensive form as Farina and Gatti perturb it ("Extensive-form
perturbations in extensive-form games", 2017), taken exactly rather than at one small
number.

Every action is played with probability at least ``eps`` at its information set, by both
players. That puts ``eps`` into the LP's matrix, which is ``M0 + eps * M1``
(:func:`~equilibria.formulations.extensive_form_perturbation.extensive_form_pencil`).
For a basis ``B(eps) = B0 + eps * B1`` whose ``B0`` is nonsingular, the basic values
and the reduced costs are rational functions of ``eps`` analytic at zero: their Taylor
coefficients come from one factorization of ``B0``, one triangular solve per power
(``B0 u_k = r_k - B1 u_(k-1)``). Where ``B0`` is singular (or so nearly that its LU
factors have a pivot :data:`SINGULAR` times the largest), column operations through its
null space make it nonsingular first, and the series gain powers below zero
(:class:`_Pencil`). As Farina, Gatti and Sandholm do ("Practical exact algorithm for
trembling-hand equilibrium refinements in games", 2018), the simplex's basis at one
``eps`` is kept if it is optimal for every small enough ``eps``: every basic value's
slack to its bounds and every reduced cost's sign is read from its first nonzero
coefficient; otherwise ``eps`` is made smaller. The deepest sequence's length plus
:data:`TERMS` powers are computed; a function whose coefficients all vanish there is
taken as zero.

The limit behaviour strategy is read from the plans' coefficients as for the
quasi-perfect equilibrium (:func:`~equilibria.routes.quasi_perfect.limit_behavior`), and
checked: in the perturbed games, at every information set, an action played with more
than its tremble must have the largest value against the opponent's perturbed strategy,
the player's own perturbed strategy playing below (:func:`perturbed_best_response_violations`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import SuperLU, splu

from ..formulations.extensive_form_perturbation import extensive_form_pencil, most_actions
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..solvers import Status
from ..solvers.highs import simplex_basis
from .quasi_perfect import BASIC, LOWER, UPPER, ZERO, ZERO_COEFFICIENT, lex_sign, limit_behavior, sequence_lengths

#: The Taylor coefficients computed beyond the deepest sequence's length: the limit reads
#: coefficients up to that length, the checks some more.
TERMS = 8
#: The first eps tried makes the deepest sequence's smallest weight about ``FIRST_BOUND``;
#: each basis that fails divides eps by ``SHRINK``, ``ATTEMPTS`` values in all.
FIRST_BOUND = 1e-6
SHRINK = 4.0
ATTEMPTS = 6
#: After those, eps is made ``SHRINK`` times larger than the first, up to this many times
#: (kept below half of one over the most actions at an information set).
LARGER = 2
#: HiGHS's basis code for a nonbasic variable that is at none of its bounds.
NONBASIC = 4
#: Two actions' values differ at power ``k`` where they differ by more than
#: ``VALUE_TOLERANCE * LOST**k`` relative to that power's largest value: each power of the
#: series is solved from the one before and divided by another series, and on Leduc
#: hold'em values tied in exact arithmetic differ by 1e-7 at power 4, 2e-5 at power 5 and
#: 3e-3 at power 6. Powers up to one more than the player's depth are compared.
VALUE_TOLERANCE = 1e-9
LOST = 10.0
#: The basis's series summed at the eps it was found at must give the simplex's answer
#: to this (relative): a guard on the reductions and the truncation.
AGREEMENT = 1e-6


def _significant(series: np.ndarray) -> np.ndarray:
    """``series`` (rows: powers of eps) with each power's coefficients below
    :data:`ZERO_COEFFICIENT` relative to that power's largest set to zero: the rounding
    of one power's solve is relative to its own size."""
    scale = np.maximum(1.0, np.abs(series).max(axis=1, keepdims=True))
    return np.where(np.abs(series) > ZERO_COEFFICIENT * scale, series, 0.0)


@dataclass(frozen=True)
class StableSeries:
    """A basis optimal for every small enough eps: the eps it was found at and the LP's
    columns at it as Taylor series (rows: powers of eps)."""

    eps: float
    columns: np.ndarray


@dataclass(frozen=True)
class _Pencil:
    """A basis matrix ``B(eps) = lead + eps * slope`` made nonsingular at ``eps = 0`` by
    column operations: the basis's own matrix times ``E(eps) = E_1 ... E_s``, each
    ``E_i`` the identity but for its columns ``J_i``, which are ``Z_i / eps`` (``Z_i``
    spans the null space of the leading matrix before step ``i``, one at ``J_i``). Each
    step lowers the order of ``det B`` at zero, so there are at most that many."""

    lead: sp.csc_matrix
    slope: sp.csc_matrix
    steps: list[tuple[np.ndarray, np.ndarray]]
    lu: SuperLU

    def expand(self, series: np.ndarray) -> np.ndarray:
        """``E(eps) series`` (rows: powers of eps, one more power below zero per step)."""
        for columns, null in reversed(self.steps):
            moved = series[1:, columns] @ null.T
            series = series.copy()
            series[:, columns] = 0.0
            series[:-1] += moved
        return series

    def expand_transposed(self, series: np.ndarray) -> np.ndarray:
        """``E(eps)' series``, as :meth:`expand`."""
        for columns, null in self.steps:
            moved = series[1:] @ null
            series = series.copy()
            series[:, columns] = 0.0
            series[:-1, columns] += moved
        return series


#: A leading matrix that SuperLU finds singular is reduced (:class:`_Pencil`) through
#: dense null spaces, for bases of at most this many rows, at most this many times.
DENSE_ROWS = 3000
MAX_REDUCTIONS = 12
#: A leading matrix whose LU factors have a pivot this much smaller than the largest is
#: taken as singular: its series would grow by about the inverse of that ratio per power.
SINGULAR = 1e-10


def _pencil(lead: sp.csc_matrix, slope: sp.csc_matrix) -> _Pencil | None:
    """:class:`_Pencil` of the basis matrix ``lead + eps * slope``; None when it is
    singular for every eps or too large to reduce."""
    steps: list[tuple[np.ndarray, np.ndarray]] = []
    for _ in range(MAX_REDUCTIONS + 1):
        try:
            lu = splu(lead)
            pivots = np.abs(lu.U.diagonal())
            if pivots.min(initial=1.0) > SINGULAR * pivots.max(initial=1.0):
                return _Pencil(lead, slope, steps, lu)
        except RuntimeError:  # singular at eps = 0
            pass
        if lead.shape[0] > DENSE_ROWS:
            return None
        try:  # numpy's SVD, not scipy's: it lets the interrupt watcher run meanwhile
            _, values, right = np.linalg.svd(lead.toarray())
        except np.linalg.LinAlgError:  # the SVD did not converge
            return None
        null = right[int((values > SINGULAR * values[0]).sum()) :].T
        if null.shape[1] == 0:
            return None
        columns = scipy.linalg.qr(null.T, pivoting=True, mode="r")[1][: null.shape[1]]
        null = null @ np.linalg.inv(null[columns])
        null[np.abs(null) < ZERO_COEFFICIENT] = 0.0
        lead, slope = lead.tolil(), slope.tolil()
        lead[:, columns] = slope @ null
        slope[:, columns] = 0.0
        lead, slope = sp.csc_matrix(lead), sp.csc_matrix(slope)
        steps.append((columns, null))
    return None


def _laurent_basis(
    zero: sp.csc_matrix,
    slope: sp.csc_matrix,
    lower: np.ndarray,
    upper: np.ndarray,
    costs: np.ndarray,
    status: np.ndarray,
    terms: int,
) -> tuple[np.ndarray, np.ndarray, int] | str:
    """For ``max costs'u`` over ``(zero + eps slope) u = 0``, ``lower <= u <= upper`` at
    the basis ``status``: the values ``u`` and the reduced costs as Laurent series (rows:
    powers of eps from ``-shift`` to ``terms - 1``) and ``shift``; or why there are
    none (a basis singular for every eps, or too large to reduce where it is singular
    at zero)."""
    basic = np.flatnonzero(status == BASIC)
    if basic.size != zero.shape[0]:
        return f"{basic.size} basic variables for {zero.shape[0]} rows"
    if (status == NONBASIC).any():  # off its bounds: its value and reduced cost mean nothing here
        return "a nonbasic variable off its bounds"
    pencil = _pencil(sp.csc_matrix(zero[:, basic]), sp.csc_matrix(slope[:, basic]))
    if pencil is None:
        return "singular at eps 0, and not reduced (singular for every eps, or too large)"
    shift = len(pencil.steps)
    rows = shift + terms
    finite_lower = np.where(np.isfinite(lower), lower, np.where(np.isfinite(upper), upper, 0.0))
    nonbasic = np.where(status == UPPER, upper, np.where(status == ZERO, 0.0, finite_lower))
    nonbasic[basic] = 0.0
    # B(eps) x' = -(zero + eps slope) nonbasic, then u_B = E(eps) x'
    sides = [-(zero @ nonbasic), -(slope @ nonbasic)]
    # x' to ``shift`` powers beyond: each step of E moves a power of x' one down
    solved = np.zeros((rows + shift, basic.size))
    for k in range(shift, rows + shift):
        rhs = sides[k - shift] if k - shift < 2 else np.zeros(zero.shape[0])
        if k > shift:
            rhs = rhs - pencil.slope @ solved[k - 1]
        solved[k] = pencil.lu.solve(rhs)
    u = np.zeros((rows, zero.shape[1]))
    u[shift] = nonbasic
    u[:, basic] = pencil.expand(solved)[:rows]
    # B(eps)' pi = E(eps)' costs_B, from the lowest power up
    given = np.zeros((rows, basic.size))
    given[shift] = costs[basic]
    given = pencil.expand_transposed(given)
    pi = np.zeros((rows, zero.shape[0]))
    for k in range(rows):
        rhs = given[k] - (pencil.slope.T @ pi[k - 1] if k else 0.0)
        pi[k] = pencil.lu.solve(np.ascontiguousarray(rhs), trans="T")
    d = -(zero.T @ pi.T).T
    d[shift] += costs
    d[1:] -= (slope.T @ pi[:-1].T).T
    if not (np.isfinite(u).all() and np.isfinite(d).all()):
        return "its series overflow"
    return _significant(u), _significant(d), shift


def _optimal_for_small_eps(
    u: np.ndarray, d: np.ndarray, shift: int, lower: np.ndarray, upper: np.ndarray, status: np.ndarray
) -> bool:
    """Whether the basis ``status`` with values ``u`` and reduced costs ``d`` (Laurent
    series, row ``shift`` the power zero) is primal feasible and optimal (maximizing)
    for every small enough eps."""
    basic = status == BASIC
    tolerance = 0.0  # the series are rounded to their significant coefficients
    slack = u.copy()
    has_lower = basic & np.isfinite(lower)
    slack[shift, has_lower] -= lower[has_lower]
    if (lex_sign(_significant(slack[:, has_lower]), tolerance) < 0).any():
        return False
    has_upper = basic & np.isfinite(upper)
    room = -u[:, has_upper]
    room[shift] += upper[has_upper]
    if (lex_sign(_significant(room), tolerance) < 0).any():
        return False
    sign = lex_sign(d, tolerance)
    movable = ~basic & (lower < upper)
    up = movable & (sign > 0) & ((status == LOWER) | (status == ZERO))
    down = movable & (sign < 0) & ((status == UPPER) | (status == ZERO))
    return not (up.any() or down.any())


def stable_series(sf: SequenceForm, p: int, time_limit: float | None = None) -> StableSeries:
    """A basis of player ``p``'s extensive-form perturbed LP optimal for every small
    enough eps, with its columns as series (module docstring). SolveFailed when none of
    the bases the simplex finds at the values of eps tried is."""
    zero_lp, moving = extensive_form_pencil(sf, p)
    m = zero_lp.num_rows
    zero = sp.hstack([zero_lp.A, -sp.identity(m, format="csc")], format="csc")
    slope = sp.hstack([moving, sp.csc_matrix((m, m))], format="csc")
    lower = np.concatenate([zero_lp.col_lower, zero_lp.row_lower])
    upper = np.concatenate([zero_lp.col_upper, zero_lp.row_upper])
    costs = np.concatenate([zero_lp.c, np.zeros(m)])
    depth = int(max(sequence_lengths(sf, 0).max(initial=0), sequence_lengths(sf, 1).max(initial=0)))
    terms = depth + 1 + TERMS
    first = FIRST_BOUND ** (1.0 / max(depth, 1))
    widest = most_actions(sf)
    # smaller eps first; then larger ones, where the simplex's tolerance hides fewer powers
    ladder = [first / SHRINK**k for k in range(ATTEMPTS)] + [first * SHRINK**k for k in range(1, LARGER + 1)]
    tight = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    tried = []
    for eps in (e for e in ladder if e * widest < 0.5):
        at_eps = dataclasses.replace(zero_lp, A=sp.csc_matrix(zero_lp.A + eps * moving))
        found, x, cols, rows = simplex_basis(at_eps, time_limit=time_limit, options=tight)
        why = str(found)
        if found == Status.OPTIMAL and cols.size and x is not None:
            status = np.concatenate([cols, rows]).astype(np.int8)
            series = _laurent_basis(zero, slope, lower, upper, costs, status, terms)
            why = series if isinstance(series, str) else "not optimal for every smaller eps"
            if not isinstance(series, str) and _optimal_for_small_eps(*series, lower, upper, status):
                u, _, shift = series
                columns = u[:, : zero_lp.num_cols]
                at = (eps ** np.arange(-shift, u.shape[0] - shift)) @ columns
                why = "its plan has powers below zero"
                if not columns[:shift].any():
                    why = "its series disagrees with the simplex"
                    if np.abs(at - x).max() <= AGREEMENT * max(1.0, np.abs(x).max()):
                        return StableSeries(eps, columns[shift:])
        tried.append(f"{eps:.3g} ({why})")
    raise SolveFailed(
        f"player {p + 1}: no basis of the extensive-form perturbed LP was found optimal for every small eps "
        f"(from eps {', '.join(tried)}); solve's --perturbation EPS answers with the perturbed game's "
        "equilibrium at one eps"
    )


def _divide(numerator: np.ndarray, denominator: np.ndarray, terms: int) -> np.ndarray:
    """Per column, the first ``terms`` Taylor coefficients of ``numerator / denominator``
    (series, rows: powers of eps), each shifted down by the order of its denominator,
    whose leading coefficient must be nonzero within the series and whose numerator
    vanishes below that order."""
    order = np.argmax(denominator != 0.0, axis=0)
    rows = order[None, :] + np.arange(terms)[:, None]
    columns = np.arange(denominator.shape[1])[None, :]
    pad = np.zeros((terms, denominator.shape[1]))
    top, bottom = np.vstack([numerator, pad])[rows, columns], np.vstack([denominator, pad])[rows, columns]
    quotient = np.zeros_like(top)
    for j in range(terms):
        quotient[j] = (top[j] - np.einsum("ic,ic->c", bottom[1 : j + 1], quotient[j - 1 :: -1][:j])) / bottom[0]
    return quotient


def perturbed_best_response_violations(
    sf: SequenceForm, p: int, own_plan: np.ndarray, opponent_plan: np.ndarray
) -> list[str]:
    """The information sets of player ``p``, reached or not, where the perturbed games'
    equilibria fail for small eps: an action whose weight exceeds its tremble
    (``x[s] - eps x[parent(s)]`` not zero) without having the largest value against the
    opponent's perturbed plan, ``p``'s own perturbed plan playing below. Both plans are
    Taylor series (rows: powers of eps); each action's value is one (the plan's payoff
    below the sequence divided by its weight), compared power by power. Labelled as the
    game labels them."""
    tp = sf.players[p].treeplex
    if tp.num_infosets == 0:
        return []
    own_plan, opponent_plan = _significant(own_plan), _significant(opponent_plan)
    terms = own_plan.shape[0]
    payoff = sf.payoff_matrix(p) if p == 0 else sf.payoff_matrix(p).T.tocsr()
    against = (payoff @ opponent_plan.T).T
    earned = np.array([sum(own_plan[i] * against[k - i] for i in range(k + 1)) for k in range(terms)])
    ones = np.ones(tp.num_sequences)
    below = np.array([tp.expected_values(ones, row)[0] for row in earned])
    depth = int(sequence_lengths(sf, p).max(initial=0))
    values = _significant(_divide(below[:, 1:], own_plan[:, 1:], min(terms - depth - 1, depth + 2)))
    parents = tp.parent_sequence[tp.sequence_infoset]
    excess = own_plan[:, 1:].copy()
    excess[1:] -= own_plan[:-1, parents]
    played = (_significant(excess) != 0).any(axis=0)
    tied = np.ones(tp.num_sequences - 1, dtype=bool)
    worse = np.zeros_like(tied)
    for power, row in enumerate(values):
        best = np.maximum.reduceat(np.where(tied, row, -np.inf), tp.first_sequence - 1)[tp.sequence_infoset]
        lower = tied & (row < best - VALUE_TOLERANCE * LOST**power * max(1.0, float(np.abs(row).max())))
        worse |= lower
        tied &= ~lower
    bad = np.unique(tp.sequence_infoset[worse & played])
    return [sf.game.infoset_label(int(g)) for g in sf.players[p].infoset_global[bad]]


@dataclass(frozen=True)
class ExtensiveFormPerfect:
    """Both players' extensive-form perfect equilibrium strategies (behaviour, on the
    sequence form), their perturbed plans as Taylor series in eps, the eps each player's
    basis was found at, and the information sets (per player, by label) where the
    perturbed best-response check failed (none when the answer is what it says)."""

    behaviors: list[np.ndarray]
    plans: list[np.ndarray]
    eps: list[float]
    violations: list[list[str]]


def extensive_form_perfect(sf: SequenceForm, time_limit: float | None = None) -> ExtensiveFormPerfect:
    """The extensive-form perfect equilibrium of a two-player zero-sum sequence form
    (module docstring), checked by :func:`perturbed_best_response_violations`."""
    behaviors, plans, found_at = [], [], []
    for p in (0, 1):
        found = stable_series(sf, p, time_limit=time_limit)
        plan = found.columns[:, : sf.players[p].treeplex.num_sequences]  # the LP's first columns: the plan
        plans.append(plan)
        behaviors.append(limit_behavior(sf, p, plan))
        found_at.append(found.eps)
    violations = [perturbed_best_response_violations(sf, p, plans[p], plans[1 - p]) for p in (0, 1)]
    return ExtensiveFormPerfect(behaviors, plans, found_at, violations)


__all__ = [
    "ExtensiveFormPerfect",
    "StableSeries",
    "extensive_form_perfect",
    "perturbed_best_response_violations",
    "stable_series",
]
