"""Every extreme equilibrium of a two-player game in normal form, by vertex enumeration of
the best-response polytopes, as Gambit's ``enummixed`` (von Stengel, "Computing equilibria
for two-person games", 2002, section 3; Avis, Rosenberg, Savani and von Stengel,
"Enumeration of Nash equilibria for two-player games", 2010).

With payoff matrices ``A`` (player 1, ``m x n``) and ``B`` (player 2), each shifted and
scaled to lie in [1, 2] (a positive affine change of a player's payoffs changes no
equilibrium, and positive payoffs make both polytopes bounded), the best-response
polytopes are

    P = {x in R^m : x >= 0, B'^T x <= 1}      Q = {y in R^n : A' y <= 1, y >= 0}.

Labels ``0..m-1`` are player 1's strategies, ``m..m+n-1`` player 2's. A point of ``P``
has label ``i`` when ``x_i = 0`` and label ``m + j`` when ``(B'^T x)_j = 1`` (strategy
``j`` of player 2 is a best response to ``x``); a point of ``Q`` has label ``i`` when
``(A' y)_i = 1`` and ``m + j`` when ``y_j = 0``. A pair of vertices ``(x, y) != (0, 0)``
that holds every label between them is, normalised, an equilibrium, and the extreme
equilibria (the vertices of the equilibrium set's convex pieces) are exactly these pairs.

Vertices are found by a breadth-first search over the polytope's feasible bases, each
basis solved afresh from the data (no tableau accumulates rounding): from a basis every
exchange that keeps the basis feasible (a ratio test's tied rows included, and in a
degenerate vertex the exchanges on its zero rows) leads to another, until no new basis
turns up; the feasible bases of a polytope are connected under such exchanges, so every
vertex is reached. A vertex is known by its labels, read with the tolerance
:data:`TOLERANCE` on payoffs scaled to [1, 2]; vertices of degenerate games have more
labels than dimensions and several bases, and are listed once. Floating point is used
throughout: the games this serves are small, and every equilibrium it lists is certified
afterwards by exact best responses.

The extreme equilibria of a degenerate game can share vertices: the maximal sets ``X x Y``
of vertices all of whose pairs are equilibria (the maximal Nash subsets of Avis et al.)
have every point of their convex hulls' product as an equilibrium.
:func:`maximal_nash_subsets` lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

#: Tolerance on payoffs scaled to [1, 2]: a slack or coordinate at most this is zero, and
#: ratios within it of the smallest tie.
TOLERANCE = 1e-9

#: The most bases solved in one batch (and between two calls of ``stop``).
LEVEL_BATCH = 512


@dataclass(frozen=True)
class Vertices:
    """The vertices of ``{z >= 0 : C z <= 1}`` found: their coordinates (one row each),
    which coordinates are zero (``zero``) and which rows of ``C`` are tight (``tight``), and
    whether the search ran to its end (``complete``; False when ``stop`` ended it)."""

    points: np.ndarray
    zero: np.ndarray
    tight: np.ndarray
    complete: bool


@dataclass(frozen=True)
class ExtremeEquilibrium:
    """An extreme equilibrium: the normalised mixed strategies, and the indices of its two
    vertices, each in the order its polytope's search found them (``P``'s for the row
    player, ``Q``'s for the column player)."""

    row: np.ndarray
    column: np.ndarray
    row_vertex: int
    column_vertex: int


def scaled(payoffs: np.ndarray) -> np.ndarray:
    """``payoffs`` mapped by a positive affine change onto [1, 2] (all ones when constant)."""
    low, high = float(payoffs.min()), float(payoffs.max())
    if high - low <= 0.0:
        return np.ones_like(payoffs, dtype=float)
    return 1.0 + (payoffs - low) / (high - low)


def polytope_vertices(constraints: np.ndarray, *, stop: Callable[[], bool] | None = None) -> Vertices:
    """Every vertex of ``{z >= 0 : C z <= 1}`` for a positive matrix ``C`` (``r x d``), by a
    breadth-first search over its feasible bases (module docstring), in the order found.
    ``stop`` is asked every :data:`LEVEL_BATCH` bases at most; when it answers True the
    search ends with what it found."""
    C = np.asarray(constraints, dtype=float)
    r, d = C.shape
    search = _BasisSearch(C)
    for _ in search.vertices(stop):
        pass
    found = list(search.found.values())  # in the order found
    points = np.array([value for _, value, _ in found]).reshape(len(found), d + r)
    zero = np.array([mask for _, _, mask in found], dtype=bool).reshape(len(found), d + r)
    return Vertices(points=points[:, :d], zero=zero[:, :d], tight=zero[:, d:], complete=search.complete)


class _BasisSearch:
    """The breadth-first search of :func:`polytope_vertices` over the feasible bases of
    ``C z + s = 1`` with ``z, s >= 0`` (``s``: the slacks), a level of bases at a time:
    each level's bases are solved in one batched call and their exchanges found in one
    pass over the stacked tableaux. A basis is known by the bit mask of its columns."""

    def __init__(self, C: np.ndarray) -> None:
        self.rows, self.dimension = C.shape
        self.M = np.hstack([C, np.eye(self.rows)])
        self.columns = self.M.shape[1]
        self.rhs = np.hstack([self.M, np.ones((self.rows, 1))])
        #: vertex key (its zero variables, packed) -> (index, value of every variable, zero mask)
        self.found: dict[bytes, tuple[int, np.ndarray, np.ndarray]] = {}
        self.complete = False
        self._wide = self.columns >= 63  # masks beyond int64: Python integers

    def vertices(self, stop: Callable[[], bool] | None) -> Iterator[list[bytes]]:
        """Search from the basis of the slacks (the origin), yielding after each batch of
        bases the keys of the vertices new in it; :attr:`complete` is True once every
        feasible basis was visited."""
        bases = np.arange(self.dimension, self.columns)[None, :]
        masks = [_mask(bases[0])]
        seen = set(masks)
        while len(masks):
            grown_masks: list[int] = []
            grown_bases: list[np.ndarray] = []
            for start in range(0, len(masks), LEVEL_BATCH):
                if stop is not None and stop():
                    return
                chunk = slice(start, start + LEVEL_BATCH)
                new, exchanges = self._visit(masks[chunk], bases[chunk])
                yield new
                for mask, basis in exchanges:
                    if mask not in seen:
                        seen.add(mask)
                        grown_masks.append(mask)
                        grown_bases.append(basis)
            masks = grown_masks
            bases = np.array(grown_bases, dtype=np.int64).reshape(len(grown_masks), self.rows)
        self.complete = True

    def _visit(self, masks: list[int], bases: np.ndarray) -> tuple[list[bytes], list[tuple[int, np.ndarray]]]:
        """Record the vertices of a batch of bases: the keys of those new, and every
        feasible exchange as (the new basis's mask, its columns)."""
        try:
            tableau = np.linalg.solve(np.moveaxis(self.M[:, bases], 1, 0), self.rhs)
        except np.linalg.LinAlgError:  # a singular basis in the batch: solve them one by one
            if len(masks) == 1:
                return [], []
            new: list[bytes] = []
            exchanges: list[tuple[int, np.ndarray]] = []
            for k, mask in enumerate(masks):
                keys, moves = self._visit([mask], bases[k : k + 1])
                new += keys
                exchanges += moves
            return new, exchanges
        T, rhs = tableau[:, :, :-1], tableau[:, :, -1]
        # a basis reached through a near-tie that does not hold is not feasible
        feasible = rhs.min(axis=1) >= -TOLERANCE
        T, rhs, bases = T[feasible], rhs[feasible], bases[feasible]
        masks = [m for m, ok in zip(masks, feasible.tolist(), strict=True) if ok]
        value = np.zeros((len(masks), self.columns))
        np.put_along_axis(value, bases, np.maximum(rhs, 0.0), axis=1)
        zero = value <= TOLERANCE
        new = []
        for k, key in enumerate(np.packbits(zero, axis=1)):
            packed = key.tobytes()
            if packed not in self.found:
                self.found[packed] = (len(self.found), value[k], zero[k])
                new.append(packed)
        return new, self._exchanges(masks, bases, T, rhs)

    def _exchanges(
        self, masks: list[int], bases: np.ndarray, T: np.ndarray, rhs: np.ndarray
    ) -> list[tuple[int, np.ndarray]]:
        """Exchanges that keep a basis feasible, as (the new basis's mask, its columns):
        entering column ``e``, leaving row ``i`` with ``T[i, e] > 0`` at the smallest ratio
        ``rhs[i] / T[i, e]`` (ties included), or any ``T[i, e] != 0`` on a row with
        ``rhs[i] = 0`` (a degenerate exchange: the vertex stays)."""
        positive = T > TOLERANCE
        ratio = np.full(T.shape, np.inf)
        np.divide(np.broadcast_to(rhs[:, :, None], T.shape), T, out=ratio, where=positive)
        theta = ratio.min(axis=1, keepdims=True)
        allowed = positive & (ratio <= theta + TOLERANCE * (1.0 + theta))
        allowed |= (rhs <= TOLERANCE)[:, :, None] & (np.abs(T) > TOLERANCE)
        basic = np.zeros((len(masks), self.columns), dtype=bool)
        np.put_along_axis(basic, bases, True, axis=1)
        allowed &= ~basic[:, None, :]
        which, rows, entering = np.nonzero(allowed)
        leaving = bases[which, rows]
        if self._wide:
            grown = [masks[k] - (1 << int(a)) + (1 << int(b)) for k, a, b in zip(which, leaving, entering, strict=True)]
        else:  # masks fit in int64: one vectorised step
            base = np.array(masks, dtype=np.int64)[which]
            grown = (base - (np.int64(1) << leaving) + (np.int64(1) << entering)).tolist()
        columns = bases[which].copy()
        columns[np.arange(len(which)), rows] = entering
        return list(zip(grown, columns, strict=True))


def _mask(columns: np.ndarray) -> int:
    """The bit mask of a basis's columns."""
    return sum(1 << int(c) for c in columns)


class ExtremeEquilibria:
    """Every extreme equilibrium of the bimatrix game ``(A, B)``, iterated as found
    (module docstring): the vertices of ``P`` first, then those of ``Q`` a batch of bases
    at a time, each new one matched against all of ``P``'s, so that a search ended early
    (``stop``, asked between batches, answering True; an interrupt) has yielded what it
    found; nothing is yielded when it ends before ``P``'s vertices are all known.
    :attr:`complete` is True once both searches ran to their end; :attr:`row_vertices`
    and :attr:`column_vertices` count the vertices found (the origins included)."""

    def __init__(self, A: np.ndarray, B: np.ndarray, *, stop: Callable[[], bool] | None = None) -> None:
        self.A = scaled(np.asarray(A, dtype=float))
        self.B = scaled(np.asarray(B, dtype=float))
        if self.A.shape != self.B.shape or self.A.ndim != 2:
            raise ValueError(f"payoff matrices of shapes {self.A.shape} and {self.B.shape}: one shape, two axes")
        self.stop = stop
        self.complete = False
        self.row_vertices = 0
        self.column_vertices = 0

    def __iter__(self) -> Iterator[ExtremeEquilibrium]:
        m, n = self.A.shape
        rows = polytope_vertices(self.B.T, stop=self.stop)
        self.row_vertices = len(rows.points)
        if not rows.complete:
            return
        # labels of P's vertices: x_i = 0, then the tight rows of B'^T x <= 1
        row_labels = np.hstack([rows.zero, rows.tight])
        nonzero = np.count_nonzero(~rows.zero, axis=1) > 0  # the origin pairs only with the origin
        search = _BasisSearch(self.A)
        for keys in search.vertices(self.stop):
            self.column_vertices = len(search.found)
            if not keys:
                continue
            found = [search.found[key] for key in keys]
            zero = np.array([mask for _, _, mask in found])
            # labels of Q's vertices: the tight rows of A' y <= 1, then y_j = 0 (the origin
            # pairs only with the origin, and is left out)
            labels = np.hstack([zero[:, n:], zero[:, :n]])
            # a pair is completely labelled when no label is missing from both
            missing = (~labels[:, None, :] & ~row_labels[None, :, :]).any(axis=2)
            origin = np.count_nonzero(~zero[:, :n], axis=1) == 0
            complete = ~missing & nonzero[None, :] & ~origin[:, None]
            for a, k in zip(*np.nonzero(complete), strict=True):
                index, value, _ = found[a]
                x, y = rows.points[k], value[:n]
                yield ExtremeEquilibrium(row=x / x.sum(), column=y / y.sum(), row_vertex=int(k), column_vertex=index)
        self.complete = search.complete


def extreme_equilibria(A: np.ndarray, B: np.ndarray) -> list[ExtremeEquilibrium]:
    """Every extreme equilibrium of the bimatrix game ``(A, B)`` (:class:`ExtremeEquilibria`
    run to its end)."""
    return list(ExtremeEquilibria(A, B))


def maximal_nash_subsets(pairs: list[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """The maximal Nash subsets among extreme equilibria given as (row vertex, column
    vertex) pairs: the maximal ``X x Y`` whose every pair is among them (maximal bicliques,
    found as the intersections of the row vertices' partner sets, closed under
    intersection). Each is (sorted row vertices, sorted column vertices)."""
    partners: dict[int, frozenset[int]] = {}
    for x, y in pairs:
        partners[x] = partners.get(x, frozenset()) | {y}
    closed = set(partners.values())
    frontier = set(closed)
    while frontier:
        grown = {a & b for a in frontier for b in closed} - closed - {frozenset()}
        closed |= grown
        frontier = grown
    # each intersection, with every row vertex whose partners hold it, is a maximal biclique
    subsets = [(sorted(x for x, mine in partners.items() if ys <= mine), sorted(ys)) for ys in closed]
    return sorted(subsets)


__all__ = [
    "TOLERANCE",
    "ExtremeEquilibria",
    "ExtremeEquilibrium",
    "Vertices",
    "extreme_equilibria",
    "maximal_nash_subsets",
    "polytope_vertices",
    "scaled",
]
