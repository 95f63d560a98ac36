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

    def __init__(self, columns: Callable[[int], tuple[np.ndarray, np.ndarray]], n: int, basic: list[int]) -> None:
        self.columns = columns
        self.n = n
        self.basic = basic
        self.row_of = {var: k for k, var in enumerate(basic)}
        self.etas: list[tuple[int, np.ndarray | None, np.ndarray, float]] = []
        self.factorisations = 0
        self.refactor()

    def matrix(self) -> sp.csc_matrix:
        """The basis matrix, column by column."""
        rows, vals, ptr = [], [], [0]
        for var in self.basic:
            r, v = self.columns(var)
            rows.append(r)
            vals.append(v)
            ptr.append(ptr[-1] + r.shape[0])
        return sp.csc_matrix((np.concatenate(vals), np.concatenate(rows), np.array(ptr)), shape=(self.n, self.n))

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


def _leaving_row(candidates: np.ndarray, ratios: np.ndarray, alpha: np.ndarray, basis: _Basis) -> int:
    """The row that leaves: the least ratio, ties broken lexicographically on the rows of
    ``B^-1`` divided by their ``alpha`` (the least such row).

    The rows are compared column by column, and only as far as it takes. A column ``j``
    whose slack ``w_j`` is basic, at row ``k``, is the unit vector ``e_k`` (``B e_k = e_j``):
    it rules out row ``k`` alone, with no solve. At the first other column the rows still
    tied are solved for (one solve with a right-hand side each)."""
    least = ratios.min()
    alive = candidates[ratios <= least + TIE_TOLERANCE * max(1.0, abs(least))]
    n = basis.n
    j = 0
    rows: dict[int, np.ndarray] | None = None
    while alive.shape[0] > 1 and j < n:
        k = basis.row_of.get(j)
        if k is not None:
            # the column is e_k: row k has 1/alpha_k > 0 where the others have 0
            alive = alive[alive != k]
        else:
            if rows is None:
                solved = basis.rows(alive)
                rows = {int(i): solved[pos] / alpha[i] for pos, i in enumerate(alive)}
            values = np.array([rows[int(i)][j] for i in alive])
            low = values.min()
            alive = alive[values <= low + TIE_TOLERANCE * max(1.0, abs(low))]
        j += 1
    return int(alive[0])


def lemke(
    M: sp.spmatrix,
    q: np.ndarray,
    d: np.ndarray | None = None,
    *,
    max_pivots: int | None = None,
    deadline: float | None = None,
    on_pivot: Callable[[int], None] | None = None,
) -> LemkeResult:
    """Solve the LCP ``(M, q)`` by Lemke's method with covering vector ``d`` (all ones by
    default; nonnegative, and positive wherever ``q`` is negative). ``max_pivots`` and ``deadline`` (a
    ``time.perf_counter()`` instant) bound the run (PivotLimit); ``on_pivot`` is called with
    the pivot count every 100 pivots. Raises RayTermination when the path ends in a ray.

    Variables are numbered ``w_0..w_{n-1}`` (0..n-1), ``z_0..z_{n-1}`` (n..2n-1) and ``z0``
    (2n); the system is ``I w - M z - d z0 = q``.
    """
    start = time.perf_counter()
    n = q.shape[0]
    q = np.asarray(q, dtype=float)
    d = np.ones(n) if d is None else np.asarray(d, dtype=float)
    if np.any(d < 0) or np.any(d[q < 0] <= 0):
        raise ValueError("the covering vector must be nonnegative, and positive where q is negative")
    Mc = sp.csc_matrix(M, dtype=float)
    artificial = 2 * n
    covered = np.flatnonzero(d)  # the artificial column's rows: sparse with a sparse d

    def column(var: int) -> tuple[np.ndarray, np.ndarray]:
        if var < n:
            return np.array([var]), np.array([1.0])
        if var == artificial:
            return covered, -d[covered]
        j = var - n
        lo, hi = Mc.indptr[j], Mc.indptr[j + 1]
        return Mc.indices[lo:hi], -Mc.data[lo:hi]

    def dense(var: int) -> np.ndarray:
        rows, vals = column(var)
        out = np.zeros(n)
        out[rows] = vals
        return out

    if np.all(q >= 0):
        return LemkeResult(np.zeros(n), q.copy(), list(range(n)), 0, time.perf_counter() - start)
    # the first pivot: z0 enters at the row that needs the most of it (the last such row on
    # ties, the lexicographic choice on the identity basis)
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(d > 0, -q / np.where(d > 0, d, 1.0), -np.inf)
    top = need.max()
    r = int(np.flatnonzero(need >= top - TIE_TOLERANCE * max(1.0, abs(top)))[-1])
    basis = _Basis(column, n, list(range(n)))
    alpha = basis.solve(dense(artificial))
    beta = q.copy()
    leaving = basis.basic[r]
    beta_r = beta[r] / alpha[r]
    beta -= alpha * beta_r
    beta[r] = beta_r
    basis.replace(r, artificial, alpha)
    pivots = 1
    while True:
        entering = leaving + n if leaving < n else leaving - n  # the complement
        alpha = basis.solve(dense(entering))
        scale = max(np.abs(alpha).max(), 1.0)
        candidates = np.flatnonzero(alpha > PIVOT_TOLERANCE * scale)
        if candidates.shape[0] == 0:
            raise RayTermination(f"secondary ray after {pivots} pivots")
        ratios = np.maximum(beta[candidates], 0.0) / alpha[candidates]
        # z0 leaves whenever it may: the solution is then reached
        z0_row = basis.row_of[artificial]
        least = ratios.min()
        at_z0 = ratios[candidates == z0_row]
        if at_z0.shape[0] and at_z0[0] <= least + TIE_TOLERANCE * max(1.0, abs(least)):
            r = z0_row
        else:
            r = _leaving_row(candidates, ratios, alpha, basis)
        leaving = basis.basic[r]
        beta_r = beta[r] / alpha[r]
        beta -= alpha * beta_r
        beta[r] = beta_r
        basis.replace(r, entering, alpha)
        pivots += 1
        if not basis.etas:  # just factorised afresh: recompute the solution from it
            beta = basis.solve(q.copy())
        if leaving == artificial:
            break
        if on_pivot is not None and pivots % 100 == 0:
            on_pivot(pivots)
        if max_pivots is not None and pivots >= max_pivots:
            raise PivotLimit(f"no solution within {max_pivots} pivots", pivots)
        if deadline is not None and time.perf_counter() >= deadline:
            raise PivotLimit(f"no solution within the time limit ({pivots} pivots)", pivots)
    # the solution, solved once more from a fresh factorisation of the final basis
    basis.refactor()
    beta = basis.solve(q.copy())
    values = np.zeros(2 * n + 1)
    values[basis.basic] = beta
    return LemkeResult(
        z=values[n : 2 * n],
        w=values[:n],
        basis=list(basis.basic),
        pivots=pivots,
        seconds=time.perf_counter() - start,
        refactorisations=basis.factorisations,
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


__all__ = ["LemkeResult", "NumericalFailure", "PivotLimit", "RayTermination", "exact_solution", "lemke"]
