"""The linear complementarity problem of a two-player game's sequence form (Koller, Megiddo
and von Stengel, "Efficient computation of equilibria for extensive two-person games", 1996),
whose solutions are the game's Nash equilibria, general-sum or not.

With realization plans ``x`` (player 1) and ``y`` (player 2), constraints ``E x = e`` and
``F y = f``, and chance-weighted payoff matrices ``A`` and ``B``, a pair is an equilibrium
exactly when there are ``u`` and ``v`` (one value per information set and one for the root)
with

    E'u - A y >= 0  complementary to  x >= 0     (no sequence of player 1 beats its plan)
    F'v - B'x >= 0  complementary to  y >= 0
    E x = e,  F y = f.

This is a mixed LCP, ``w = q + M z`` with ``z = (x, y, u, v)`` and

        [  0   -A   E'   0  ]          [ 0 ]
    M = [ -B'   0   0    F' ]      q = [ 0 ]
        [ -E    0   0    0  ]          [ e ]
        [  0   -F   0    0  ]          [ f ]

where ``w`` and ``z`` are complementary and nonnegative on the first two blocks, while
``u`` and ``v`` are free and their rows are equations (``w = 0`` there). Lemke's method
keeps the free variables basic from the start and never lets them leave
(:func:`equilibria.solvers.lemke.lemke`), so the equations cost no pivots and, unlike
splitting each free variable and each equation in two, add no rows that sit at zero in
every basis (the degenerate ties that made each pivot expensive).

The start is von Stengel, van den Elzen and Talman's ("Computing normal form perfect
equilibria for extensive two-person games", 2002): a prior pair of plans ``(x0, y0)``
gives the covering vector ``d = (-A y0, -B'x0, 0, 0)``, and the first basis holds each
player's pure best response to the other's prior; Lemke's path then follows the tracing
procedure from that prior to an equilibrium.

Each player's payoffs are first shifted down so that every leaf pays less than zero: a
constant added to every leaf adds the same constant to every profile's expected payoff (the
leaves' probabilities add up to one), so the equilibria are unchanged, ``d`` is nonnegative,
and Lemke's method cannot end in a secondary ray.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ..models.errors import GameError
from ..models.sequence import SequenceForm


@dataclass(frozen=True)
class SequenceFormLCP:
    """The LCP ``(M, q)`` of a sequence form, with where each block of ``z`` starts, and
    the shift taken off each player's payoffs (payoffs in the LCP are the game's minus it)."""

    M: sp.csr_matrix
    q: np.ndarray
    #: the first index of x, y, u, v in z (and the end)
    offsets: tuple[int, ...]
    shifts: tuple[float, float]
    #: the payoff blocks as they stand in ``M`` (shifted, negative at every leaf)
    A: sp.csr_matrix
    B: sp.csr_matrix

    @property
    def free(self) -> np.ndarray:
        """Which entries of ``z`` are free (``u`` and ``v``; their rows are equations)."""
        out = np.zeros(self.size, dtype=bool)
        out[self.offsets[2] :] = True
        return out

    @property
    def size(self) -> int:
        """The number of complementary pairs."""
        return int(self.q.shape[0])

    def plans(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two realization plans in a solution ``z``."""
        o = self.offsets
        return z[o[0] : o[1]], z[o[1] : o[2]]

    def exact_q(self) -> list[Fraction]:
        """``q`` in rationals (its entries are 0 and 1)."""
        return [Fraction(int(v)) for v in self.q]

    def exact_columns(self, sf: SequenceForm) -> list[dict[int, Fraction]]:
        """The columns of ``M`` in rationals (row -> entry): the payoff blocks summed again
        from the leaves with each chance probability and payoff read as the fraction it
        stands for (:func:`rational`), the constraint blocks' +-1 as they are."""
        m, n = self.offsets[1], self.offsets[2] - self.offsets[1]
        payoffs = [[rational(v) for v in sf.terminal_payoffs[:, p]] for p in range(2)]
        shifts = [rational(v) for v in self.shifts]
        chance = [rational(v) for v in sf.terminal_chance]
        blocks: list[dict[tuple[int, int], Fraction]] = [{}, {}]
        for t, (s1, s2) in enumerate(sf.terminal_sequences.tolist()):
            for p in range(2):
                key = (s1, s2)
                blocks[p][key] = blocks[p].get(key, Fraction(0)) + chance[t] * (payoffs[p][t] - shifts[p])
        A, B = blocks
        Mc = self.M.tocsc()
        columns: list[dict[int, Fraction]] = []
        for j in range(self.size):
            lo, hi = Mc.indptr[j], Mc.indptr[j + 1]
            col: dict[int, Fraction] = {}
            for i, v in zip(Mc.indices[lo:hi].tolist(), Mc.data[lo:hi].tolist(), strict=True):
                if i < m and m <= j < m + n:
                    col[i] = -A[(i, j - m)]
                elif m <= i < m + n and j < m:
                    col[i] = -B[(j, i - m)]
                else:
                    col[i] = Fraction(v)
            columns.append(col)
        return columns


def tracing_start(
    lcp: SequenceFormLCP, sf: SequenceForm, priors: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, list[int]]:
    """The covering vector and the first basis for the priors ``(x0, y0)`` (realization
    plans; module docstring). The basis, as variable numbers of
    :func:`equilibria.solvers.lemke.lemke` (``w_i`` is ``i``, ``z_j`` is ``size + j``),
    holds ``x_j`` for each sequence of player 1's pure best response to ``y0`` (one per
    information set, reached or not, and the empty one), ``w_j`` for the other sequences,
    the same for player 2 against ``x0``, and every ``u`` and ``v``."""
    x0, y0 = priors
    # chance-weighted payoffs a sequence meets against the prior, as the best response reads them
    against = (lcp.A @ y0, lcp.B.T @ x0)
    d = np.concatenate([-against[0], -against[1], np.zeros(lcp.size - lcp.offsets[2])])
    d = np.maximum(d, 0.0)  # -0.0 and rounding: the blocks are nonpositive
    n = lcp.size
    basis = []
    for p in range(2):
        _, pure = sf.players[p].treeplex.best_response(against[p])
        lo = lcp.offsets[p]
        basis.extend(np.where(pure > 0, n + lo + np.arange(pure.shape[0]), lo + np.arange(pure.shape[0])).tolist())
    basis.extend(range(n + lcp.offsets[2], 2 * n))
    return d, basis


def rational(value: float) -> Fraction:
    """The fraction a float stands for: the simplest one within a relative 1e-15 (a chance
    probability of 1/3 stored as 0.333...), else the float's own exact value."""
    exact = Fraction(float(value))
    simple = exact.limit_denominator(10**9)
    return simple if abs(simple - exact) <= Fraction(1, 10**15) * max(Fraction(1), abs(exact)) else exact


def sequence_form_lcp(sf: SequenceForm) -> SequenceFormLCP:
    """The LCP of the two-player sequence form ``sf`` (module docstring), built sparse."""
    if sf.num_players != 2:
        raise GameError(f"the sequence-form LCP is for two-player games; this one has {sf.num_players} players")
    E = sf.players[0].constraint_matrix
    F = sf.players[1].constraint_matrix
    m, n = E.shape[1], F.shape[1]
    k1, k2 = E.shape[0], F.shape[0]
    payoffs = sf.terminal_payoffs
    shifts = (float(payoffs[:, 0].max()) + 1.0, float(payoffs[:, 1].max()) + 1.0)
    s = sf.terminal_sequences
    pairs = (s[:, 0], s[:, 1])
    # negative at every leaf: a pair of sequences reaching leaves pays their chance-weighted sum
    A = sp.coo_matrix((sf.terminal_chance * (payoffs[:, 0] - shifts[0]), pairs), shape=(m, n)).tocsr()
    B = sp.coo_matrix((sf.terminal_chance * (payoffs[:, 1] - shifts[1]), pairs), shape=(m, n)).tocsr()
    A.sum_duplicates()
    B.sum_duplicates()
    Z = None
    M = sp.bmat([[Z, -A, E.T, Z], [-B.T, Z, Z, F.T], [-E, Z, Z, Z], [Z, -F, Z, Z]], format="csr")
    q = np.concatenate([np.zeros(m + n), sf.players[0].constraint_rhs, sf.players[1].constraint_rhs])
    offsets = tuple(int(v) for v in np.cumsum([0, m, n, k1, k2]))
    return SequenceFormLCP(M=M, q=q, offsets=offsets, shifts=shifts, A=A, B=B)


__all__ = ["SequenceFormLCP", "rational", "sequence_form_lcp", "tracing_start"]
