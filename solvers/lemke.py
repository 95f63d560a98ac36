"""Lemke's complementary pivoting for a linear complementarity problem, on a sparse basis.

The problem: given ``M`` (n x n, sparse) and ``q``, find ``z >= 0`` with
``w = q + M z >= 0`` and ``z'w = 0``. Lemke's method (Lemke, "Bimatrix equilibrium points and
mathematical programming", 1965) adds an artificial variable ``z0`` along a covering vector
``d > 0``, ``w = q + M z + d z0``, starts where ``z = 0`` and ``z0`` is just large enough to
make ``w`` nonnegative, and pivots along the path of almost complementary basic solutions:
the variable entering is always the complement of the one that left, until ``z0`` leaves
(a solution) or no variable bounds the entering one (a secondary ray: the method fails).

The basis is kept as a sparse LU factorisation (SuperLU) of the basis columns, updated per
pivot in product form (one eta vector per pivot) and factorised afresh every
:data:`REFACTOR_EVERY` pivots, so a pivot costs sparse solves rather than a pass over a
dense tableau. Ties in the ratio test, the rule in the degenerate problems that game trees
give, are broken lexicographically on the rows of the basis inverse (computed for the tied
rows only), which rules out cycling.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

#: Pivots between two fresh factorisations of the basis (the eta file grows in between).
REFACTOR_EVERY = 64

#: A pivot element or a ratio's denominator below this (relative to the column's largest
#: entry) counts as zero.
PIVOT_TOLERANCE = 1e-7

#: Ratios within this relative distance of the least count as tied.
TIE_TOLERANCE = 1e-9


class RayTermination(Exception):
    """Lemke's method left the feasible region along a ray: no solution found from this
    covering vector."""


class NumericalFailure(Exception):
    """The basis became singular in floating point: a pivot on an entry that rounding made
    nonzero."""


class StartNotCovered(ValueError):
    """The first basis is infeasible where the covering vector cannot mend it (the
    artificial variable's column is zero on a row that needs it)."""


class PivotLimit(Exception):
    """The pivot limit or the deadline came before a solution."""

    def __init__(self, message: str, pivots: int) -> None:
        super().__init__(message)
        self.pivots = pivots


@dataclass
class LemkeResult:
    """A solution ``z`` of the LCP, its ``w``, the basis it ended on (variable indices:
    ``w_i`` is ``i``, ``z_j`` is ``n + j``) and the pivots it took."""

    z: np.ndarray
    w: np.ndarray
    basis: list[int]
    pivots: int
    seconds: float
    refactorisations: int = 0
    notes: list[str] = field(default_factory=list)


class _Basis:
    """The basis matrix's columns, its LU factorisation and the eta file since then."""

    def __init__(self, columns: sp.csc_matrix, n: int, basic: list[int]) -> None:
        #: every variable's column, numbered as the variables are
        self.columns = columns
        self.n = n
        self.basic = basic
        self.row_of = {var: k for k, var in enumerate(basic)}
        self.etas: list[tuple[int, np.ndarray | None, np.ndarray, float]] = []
        self.factorisations = 0
        #: the first basis matrix where it is not the identity (the lexicographic rule
        #: compares rows of ``B^-1`` times it)
        self.lexicon: sp.csc_matrix | None = None
        self.refactor()

    def matrix(self) -> sp.csc_matrix:
        """The basis matrix: the basic variables' columns."""
        return sp.csc_matrix(self.columns[:, self.basic])

    def refactor(self) -> None:
        """Factorise the basis afresh and empty the eta file; NumericalFailure when the
        basis the pivots reached is singular in floating point."""
        try:
            self.lu = splu(self.matrix(), permc_spec="COLAMD", options={"SymmetricMode": False})
        except RuntimeError as singular:  # SuperLU: "Factor is exactly singular"
            raise NumericalFailure(str(singular)) from None
        self.etas = []
        self.factorisations += 1

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``B^-1 b`` (``b`` a vector, or a matrix of right-hand sides)."""
        x = self.lu.solve(b)
        for r, idx, vals, pivot in self.etas:
            xr = x[r] / pivot
            change = vals * xr if x.ndim == 1 else np.outer(vals, xr)
            if idx is None:  # a dense eta: vals is alpha, zero at r
                x -= change
            else:
                x[idx] -= change
            x[r] = xr
        return x

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """Rows ``rows`` of ``B^-1`` (``B^-T`` times unit vectors), one per row of the result,
        in one sparse solve with as many right-hand sides."""
        c = np.zeros((self.n, rows.shape[0]))
        c[rows, np.arange(rows.shape[0])] = 1.0
        for r, idx, vals, pivot in reversed(self.etas):
            # only the r-th entry changes: c_r - (alpha . c - c_r) / alpha_r, where
            # alpha_r = pivot and alpha's other entries are (idx, vals)
            c[r] = (c[r] - (vals @ c if idx is None else vals @ c[idx])) / pivot
        return np.asarray(self.lu.solve(c, trans="T")).T

    def replace(self, r: int, var: int, alpha: np.ndarray) -> None:
        """The basic variable of row ``r`` becomes ``var``, whose column is ``alpha`` in the
        current basis."""
        self.row_of.pop(self.basic[r], None)
        self.basic[r] = var
        self.row_of[var] = r
        if len(self.etas) + 1 >= REFACTOR_EVERY:
            self.refactor()
            return
        pivot = float(alpha[r])
        idx = np.flatnonzero(alpha)
        if idx.shape[0] > self.n // 4:  # dense: whole-vector arithmetic beats gathering
            dense = alpha.copy()
            dense[r] = 0.0
            self.etas.append((r, None, dense, pivot))
            return
        idx = idx[idx != r]
        self.etas.append((r, idx, alpha[idx].copy(), pivot))


def _least(values: np.ndarray) -> np.ndarray:
    """Where ``values`` is within :data:`TIE_TOLERANCE` of its least entry."""
    low = values.min()
    return values <= low + TIE_TOLERANCE * max(1.0, abs(low))


def _leaving_row(
    candidates: np.ndarray, ratios: np.ndarray, alpha: np.ndarray, gamma: np.ndarray, basis: _Basis
) -> int:
    """The row that leaves: the least ratio, ties broken lexicographically on the rows of
    ``[gamma, B^-1 B_0]`` divided by their ``alpha`` (the least such row).

    ``gamma`` is ``B^-1 B_0 g`` for a fixed random ``g > 0``, carried along like the basic
    solution: a column in front of the lexicographic order that keeps every row
    lexicographically positive (it is ``g`` at the start) and separates almost every tie
    at the cost of one division per tied row. Rows it leaves tied come from one sparse
    solve with a right-hand side each; the comparison then jumps from one column where
    they differ to the next, each jump a whole-array step."""
    alive = candidates[_least(ratios)]
    if alive.shape[0] > 1:
        alive = alive[_least(gamma[alive] / alpha[alive])]
    if alive.shape[0] == 1:
        return int(alive[0])
    table = basis.rows(alive)
    if basis.lexicon is not None:
        table = np.asarray((basis.lexicon.T @ table.T).T)
    table /= alpha[alive][:, None]
    j = 0
    while alive.shape[0] > 1:
        rest = table[:, j:]
        low = rest.min(axis=0)
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(low))
        differ = np.flatnonzero(rest.max(axis=0) - low > tol)
        if differ.shape[0] == 0:  # identical rows: B is singular in floating point
            break
        first = int(differ[0])
        keep = rest[:, first] <= low[first] + tol[first]
        alive, table = alive[keep], table[keep]
        j += first + 1
    return int(alive[0])


def lemke(
    M: sp.spmatrix,
    q: np.ndarray,
    d: np.ndarray | None = None,
    *,
    free: np.ndarray | None = None,
    basis: list[int] | None = None,
    max_pivots: int | None = None,
    deadline: float | None = None,
    on_pivot: Callable[[int], None] | None = None,
) -> LemkeResult:
    """Solve the LCP ``(M, q)`` by Lemke's method with covering vector ``d`` (all ones by
    default). ``max_pivots`` and ``deadline`` (a ``time.perf_counter()`` instant) bound the
    run (PivotLimit); ``on_pivot`` is called with the pivot count every 100 pivots. Raises
    RayTermination when the path ends in a ray.

    Variables are numbered ``w_0..w_{n-1}`` (0..n-1), ``z_0..z_{n-1}`` (n..2n-1) and ``z0``
    (2n); the system is ``I w - M z - d z0 = q``.

    A mixed LCP: ``z_j`` with ``free[j]`` is free and its row an equation (``w_j = 0``).
    Such a problem needs a first ``basis``: ``n`` variables, one of ``w_i`` and ``z_i`` for
    each ``i``, every free ``z_j`` among them, whose basic solution fails to be
    nonnegative only where ``z0`` along ``d`` mends it. Free variables never leave, so
    their equations stay met. Without ``basis`` the start is every ``w`` (then ``d`` must be
    positive wherever ``q`` is negative). The ties of the ratio test are broken
    lexicographically on the rows of ``B^-1 B_0`` (``B_0`` the first basis), which are
    lexicographically positive at the start whatever it is, and so keep the path from
    cycling.
    """
    start = time.perf_counter()
    n = q.shape[0]
    q = np.asarray(q, dtype=float)
    d = np.ones(n) if d is None else np.asarray(d, dtype=float)
    free = np.zeros(n, dtype=bool) if free is None else np.asarray(free, dtype=bool)
    if np.any(d < 0):
        raise ValueError("the covering vector must be nonnegative")
    if basis is None:
        if free.any():
            raise ValueError("a mixed LCP needs a first basis holding its free variables")
        basis = list(range(n))
    if len(basis) != n or not set((n + np.flatnonzero(free)).tolist()) <= set(basis):
        raise ValueError("the first basis must have one variable per row and hold every free variable")
    artificial = 2 * n
    # the system's columns: I for w, -M for z, -d for z0 (sparse with a sparse d)
    system = sp.hstack([sp.identity(n, format="csc"), -sp.csc_matrix(M, dtype=float), sp.csc_matrix(-d[:, None])])
    system = sp.csc_matrix(system)

    def dense(var: int) -> np.ndarray:
        lo, hi = system.indptr[var], system.indptr[var + 1]
        out = np.zeros(n)
        out[system.indices[lo:hi]] = system.data[lo:hi]
        return out

    state = _Basis(system, n, list(basis))
    state.lexicon = None if basis == list(range(n)) else state.matrix()
    # the lexicographic order's leading column (see _leaving_row): B_0 g for a fixed g > 0
    g = np.asarray(np.random.default_rng(0).uniform(1.0, 2.0, size=n))
    lead: np.ndarray = g if state.lexicon is None else np.asarray(state.lexicon @ g)
    gamma = g.copy()
    # rows whose basic variable may leave: free variables stay
    bounded = ~np.isin(np.array(state.basic), n + np.flatnonzero(free))
    beta = state.solve(q.copy())
    if np.all(beta[bounded] >= -PIVOT_TOLERANCE):
        state.refactor()
        return _result(state, q, 0, start)
    # z0 enters where the basis needs most of it; ties go to the lexicographically
    # greatest row of [beta, gamma, I] / alpha: the most gamma / alpha, then the last row
    alpha = state.solve(dense(artificial))
    short = bounded & (beta < -PIVOT_TOLERANCE)
    if np.any(alpha[short] > -PIVOT_TOLERANCE):
        raise StartNotCovered("the covering vector does not mend the first basis")
    rows = np.flatnonzero(short)
    rows = rows[_least(-beta[rows] / alpha[rows])]
    rows = rows[_least(-gamma[rows] / alpha[rows])]
    r = int(rows[-1])
    leaving = state.basic[r]
    beta = _pivot(beta, alpha, r)
    gamma = _pivot(gamma, alpha, r)
    state.replace(r, artificial, alpha)
    pivots = 1
    while True:
        entering = leaving + n if leaving < n else leaving - n  # the complement
        alpha = state.solve(dense(entering))
        scale = max(np.abs(alpha).max(), 1.0)
        candidates = np.flatnonzero(bounded & (alpha > PIVOT_TOLERANCE * scale))
        if candidates.shape[0] == 0:
            raise RayTermination(f"secondary ray after {pivots} pivots")
        ratios = np.maximum(beta[candidates], 0.0) / alpha[candidates]
        # z0 leaves whenever it may: the solution is then reached
        z0_row = state.row_of[artificial]
        least = ratios.min()
        at_z0 = ratios[candidates == z0_row]
        if at_z0.shape[0] and at_z0[0] <= least + TIE_TOLERANCE * max(1.0, abs(least)):
            r = z0_row
        else:
            r = _leaving_row(candidates, ratios, alpha, gamma, state)
        leaving = state.basic[r]
        beta = _pivot(beta, alpha, r)
        gamma = _pivot(gamma, alpha, r)
        state.replace(r, entering, alpha)
        pivots += 1
        if not state.etas:  # just factorised afresh: recompute both from it
            beta = state.solve(q.copy())
            gamma = state.solve(lead.copy())
        if leaving == artificial:
            break
        if on_pivot is not None and pivots % 100 == 0:
            on_pivot(pivots)
        if max_pivots is not None and pivots >= max_pivots:
            raise PivotLimit(f"no solution within {max_pivots} pivots", pivots)
        if deadline is not None and time.perf_counter() >= deadline:
            raise PivotLimit(f"no solution within the time limit ({pivots} pivots)", pivots)
    # the solution, solved once more from a fresh factorisation of the final basis
    state.refactor()
    return _result(state, q, pivots, start)


def _pivot(beta: np.ndarray, alpha: np.ndarray, r: int) -> np.ndarray:
    """The basic solution after the variable with column ``alpha`` enters at row ``r``."""
    beta_r = beta[r] / alpha[r]
    beta = beta - alpha * beta_r
    beta[r] = beta_r
    return beta


def _result(state: _Basis, q: np.ndarray, pivots: int, start: float) -> LemkeResult:
    """The solution of the final basis (freshly factorised)."""
    n = state.n
    beta = state.solve(q.copy())
    values = np.zeros(2 * n + 1)
    values[state.basic] = beta
    return LemkeResult(
        z=values[n : 2 * n],
        w=values[:n],
        basis=list(state.basic),
        pivots=pivots,
        seconds=time.perf_counter() - start,
        refactorisations=state.factorisations,
    )


def exact_solution(
    columns: list[dict[int, Fraction]], q: list[Fraction], basis: list[int]
) -> tuple[list[Fraction], list[Fraction]]:
    """``(z, w)`` solved in rational arithmetic from the basic variables ``basis`` of a
    Lemke solution (numbered as in :func:`lemke`, ``z0`` absent), with ``M`` given exactly
    by its ``columns`` (row -> entry) and ``q`` exact. Raises ArithmeticError when the
    basis is singular."""
    n = len(q)
    # the basic columns of  I w - M z = q  as sparse rows (row -> {position: entry})
    rows: list[dict[int, Fraction]] = [{} for _ in range(n)]
    for k, var in enumerate(basis):
        if var < n:
            rows[var][k] = Fraction(1)
        else:
            for i, v in columns[var - n].items():
                if v != 0:
                    rows[i][k] = -v
    x = _solve_sparse_rational(rows, list(q), n)
    values = [Fraction(0)] * (2 * n)
    for k, var in enumerate(basis):
        values[var] = x[k]
    return values[n:], values[:n]


def _solve_sparse_rational(rows: list[dict[int, Fraction]], rhs: list[Fraction], n: int) -> list[Fraction]:
    """Gaussian elimination in rationals on sparse rows (Markowitz-like: the pivot row is
    the sparsest holding the column)."""
    by_col: dict[int, set[int]] = {}
    for i, row in enumerate(rows):
        for j in row:
            by_col.setdefault(j, set()).add(i)
    done_rows: set[int] = set()
    order: list[tuple[int, int]] = []
    for j in sorted(by_col, key=lambda c: len(by_col[c])):
        live = [i for i in by_col.get(j, ()) if i not in done_rows and rows[i].get(j, 0) != 0]
        if not live:
            raise ArithmeticError("singular basis")
        p = min(live, key=lambda i: len(rows[i]))
        done_rows.add(p)
        order.append((p, j))
        pivot_row, pv = rows[p], rows[p][j]
        for i in live:
            if i == p:
                continue
            factor = rows[i][j] / pv
            for c, v in pivot_row.items():
                new = rows[i].get(c, Fraction(0)) - factor * v
                if new == 0:
                    rows[i].pop(c, None)
                    if c in by_col:
                        by_col[c].discard(i)
                else:
                    if c not in rows[i]:
                        by_col.setdefault(c, set()).add(i)
                    rows[i][c] = new
            rhs[i] -= factor * rhs[p]
    if len(order) != n:
        raise ArithmeticError("singular basis")
    x = [Fraction(0)] * n
    for p, j in reversed(order):
        total = rhs[p] - sum((v * x[c] for c, v in rows[p].items() if c != j), Fraction(0))
        x[j] = total / rows[p][j]
    return x


__all__ = [
    "LemkeResult",
    "NumericalFailure",
    "PivotLimit",
    "RayTermination",
    "StartNotCovered",
    "exact_solution",
    "lemke",
]
