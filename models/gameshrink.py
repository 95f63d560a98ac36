"""GameShrink: the ordered game isomorphisms of a game with ordered signals.

Gilpin and Sandholm, "Lossless abstraction of imperfect information games" (J. ACM
2007). :func:`game_shrink` finds the isomorphisms bottom-up on the signal tree and returns
an :class:`InformationFilter`: per player and round, the class of every view. Two views
of a player are merged when they have the same parent class (siblings, so perfect recall
holds) and the subtrees below them are isomorphic: there is a bijection between the
opponent's possible cards under each that preserves the opponent's view class, the
showdown outcome and, recursively, the isomorphism class of the continuation.
Isomorphism is an equivalence, so the paper's bipartite graph has a perfect matching
exactly when the two multisets of child classes are equal; classes are therefore computed
by sorting and hashing child-class rows, level by level, until the view classes stop
changing (a fixpoint: view classes and subtree classes refer to each other).
:func:`ordered_game_isomorphic` is the literal matching test, kept as a reference for
small trees. :func:`lossy_last_round_classes` is the lossy variant (a matching-cost
threshold at the last round).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass
from math import comb

import numpy as np
import numpy.typing as npt

from .ordered import OrderedGame, SignalSpace, colex_index, outcome_histograms

logger = logging.getLogger(__name__)


class UnionFind:
    """Disjoint sets over 0..n-1 (union by size, path halving), vectorised where it can."""

    def __init__(self, n: int):
        self.parent = np.arange(n, dtype=np.int64)
        self.size = np.ones(n, dtype=np.int64)

    def find(self, x: npt.ArrayLike) -> np.ndarray:
        """Representatives of the elements ``x`` (array)."""
        x = np.asarray(x, dtype=np.int64)
        root = x.copy()
        while True:
            up = self.parent[root]
            if np.array_equal(up, root):
                break
            self.parent[root] = self.parent[up]  # path halving
            root = up
        return root

    def union_groups(self, labels: np.ndarray) -> None:
        """Union every element with the others sharing its label."""
        labels = np.asarray(labels)
        order = np.argsort(labels, kind="stable")
        first = np.r_[True, labels[order][1:] != labels[order][:-1]]
        leader = order[first][np.cumsum(first) - 1]
        a, b = self.find(order), self.find(leader)
        keep = a != b
        self.parent[a[keep]] = b[keep]

    def classes(self) -> np.ndarray:
        """Class number per element, 0.. in order of first appearance."""
        roots = self.find(np.arange(self.parent.shape[0]))
        _, first, inv = np.unique(roots, return_index=True, return_inverse=True)
        rank = np.argsort(np.argsort(first))
        return rank[inv.reshape(-1)]


@dataclass
class InformationFilter:
    """Per player and round, the class of every view (a union-find over the views of
    that level of the signal tree); the identity filter has one class per view."""

    game: OrderedGame
    space: SignalSpace
    classes: list  # [player][round] -> array over views
    seconds: float = 0.0
    iterations: int = 0

    def num_classes(self, i: int, r: int) -> int:
        """Classes of player ``i``'s round-``r`` views."""
        return int(self.classes[i][r].max()) + 1

    def parent_class(self, i: int, r: int) -> np.ndarray:
        """For each round-r class of player i, its round-(r-1) class (well defined: only
        siblings merge)."""
        pv = self.space.parent_view(i, r)
        out = np.zeros(self.num_classes(i, r), dtype=np.int64)
        out[self.classes[i][r]] = self.classes[i][r - 1][pv]
        return out

    def summary(self) -> dict:
        """Views and classes per player and round."""
        return {
            f"player{i + 1}": [
                {"round": r + 1, "views": int(self.classes[i][r].shape[0]), "classes": self.num_classes(i, r)}
                for r in range(self.game.rounds)
            ]
            for i in (0, 1)
        }


def identity_filter(game: OrderedGame, space: SignalSpace | None = None) -> InformationFilter:
    """No abstraction: every view is its own class."""
    space = space or SignalSpace(game)
    classes = [[np.arange(space.view_codes[i][r].shape[0]) for r in range(game.rounds)] for i in (0, 1)]
    return InformationFilter(game, space, classes)


#: Packed keys stay below this (int64 with room to spare).
_KEY_LIMIT = 1 << 62


def _row_keys(*columns) -> np.ndarray:
    """Int64 keys equal exactly for equal rows (the packed mixed-radix key when the columns
    fit in one, else dense ids as :func:`_row_ids`): for labels that are only compared,
    this skips the sort that numbering them would take."""
    return _row_ids(*columns, dense=False)


def _row_ids(*columns, dense: bool = True) -> np.ndarray:
    """Dense ids of equal rows over the given integer columns/2-D blocks (the numbering
    itself carries no meaning: callers compare ids, and filters renumber classes).

    Narrow rows are folded left to right into one int64 key (each column shifted to start
    at 0 and weighted by the span of the columns after it, a mixed-radix number); when the
    next column would not fit, the key so far is replaced by its dense ids, which need only
    as many values as there are rows. Wide rows (the multisets of child classes) are
    grouped by a 64-bit hash and the grouping verified row by row against each group's
    first row (exact; a hash collision falls back to the fold). Every step is a
    one-dimensional ``np.unique``, many times faster than ``np.unique(axis=0)``.
    """
    parts = [np.asarray(c).reshape(np.asarray(c).shape[0], -1) for c in columns]
    n = parts[0].shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if sum(p.shape[1] for p in parts) > _WIDE:
        ids = _hashed_row_ids(np.concatenate(parts, axis=1).astype(np.int64, copy=False))
        if ids is not None:
            return ids
    key = np.zeros(n, dtype=np.int64)
    size = 1  # the key's values lie in [0, size)
    for part in parts:
        for j in range(part.shape[1]):
            col = part[:, j]
            low, high = int(col.min()), int(col.max())
            span = high - low + 1
            if span == 1:
                continue
            if size * span >= _KEY_LIMIT:
                _, key = np.unique(key, return_inverse=True)
                key = key.reshape(-1).astype(np.int64)
                size = int(key.max()) + 1
            if size * span >= _KEY_LIMIT:
                # the column's values lie too far apart to pack (lossy GameShrink's costs
                # as integers): number them, which keeps equality and needs only n values
                _, col = np.unique(col, return_inverse=True)
                col = col.reshape(-1).astype(np.int64)
                low, span = 0, int(col.max()) + 1
            key *= span
            key += col
            if low:
                key -= low
            size *= span
    if not dense:
        return key
    _, inv = np.unique(key, return_inverse=True)
    return inv.reshape(-1).astype(np.int64)


#: Rows wider than this are grouped by hashing.
_WIDE = 8
_HASH_WEIGHTS = np.random.default_rng(20071001).integers(1, 2**63, size=4096, dtype=np.uint64) | np.uint64(1)


def _hashed_row_ids(mat: np.ndarray) -> np.ndarray | None:
    """Dense ids of equal rows of ``mat`` through a 64-bit hash, verified exactly; None
    when two different rows share a hash (or the rows are too wide for the weights)."""
    k = mat.shape[1]
    if k > _HASH_WEIGHTS.shape[0]:
        return None
    with np.errstate(over="ignore"):
        h = (mat.view(np.uint64) * _HASH_WEIGHTS[:k]).sum(axis=1, dtype=np.uint64)
        h ^= h >> np.uint64(31)
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    if not np.array_equal(mat, mat[first[inv]]):
        return None
    return inv.astype(np.int64)


def _last_round_histograms(game: OrderedGame, space: SignalSpace, i: int, hist: np.ndarray | None = None) -> np.ndarray:
    """Win/tie/lose counts (rows of the histogram database) of player i's last-round views
    (``hist``: the database, when the caller already has it)."""
    if hist is None:
        hist, _ = outcome_histograms(game)
    R = game.rounds
    m = R - 1
    nb = comb(game.deck, m) if m else 1
    codes = space.view_codes[i][R - 1]
    cards = np.zeros((codes.shape[0], m + 1), dtype=np.int64)
    c = codes.copy()
    for b in range(m, -1, -1):
        cards[:, b] = c % game.deck
        c //= game.deck
    key = cards[:, 0] * nb + (colex_index(cards[:, 1:]) if m else 0)
    return hist[key]


def lossy_last_round_classes(
    game: OrderedGame, space: SignalSpace, i: int, threshold: float, lossless: InformationFilter
) -> np.ndarray:
    """The paper's lossy merge at the last round: sibling views (same parent view) merge
    when a min-cost perfect matching of their opponent cards costs at most ``threshold``
    per card. Pairing two opponent cards costs half the difference of the showdown
    outcomes (lose 0, tie 1, win 2, so a win against a loss costs 1) plus
    ``class_cost`` = 1/2 when the opponent's (lossless) classes differ. The matching pairs
    identical (class, outcome) cards first and the rest by outcome (an earth mover's
    distance), which is optimal for these costs. Views are taken in order of showdown
    equity within each sibling group and join the current cluster while their cost to its
    first view is within the threshold (clusters of bounded diameter)."""
    class_cost = 0.5
    R = game.rounds
    r = R - 1
    o = 1 - i
    vi = space.view_index[i][r]
    opp_class = lossless.classes[o][r][space.view_index[o][r]]
    result = space.outcome.astype(np.int64) * (1 if i == 0 else -1)  # +1: this player wins
    key = opp_class * 3 + (result + 1)
    order_rows = np.argsort(vi, kind="stable")
    n_views = space.view_codes[i][r].shape[0]
    block = np.sort(key[order_rows].reshape(n_views, -1), axis=1)
    m = block.shape[1]
    equity = ((result[order_rows] + 1) / 2.0).reshape(n_views, -1).mean(axis=1)
    parent = space.parent_view(i, r) if R > 1 else np.zeros(n_views, dtype=np.int64)
    base = lossless.classes[i][r]
    order = np.lexsort((base, equity, parent))
    cluster = np.empty(n_views, dtype=np.int64)
    current, anchor = -1, -1
    for v in order:
        if anchor >= 0 and parent[v] == parent[anchor]:
            if base[v] == base[anchor]:
                cluster[v] = current
                continue
            common = np.intersect1d(block[v], block[anchor])
            left_a = np.bincount(block[anchor] % 3, minlength=3).astype(float)
            left_v = np.bincount(block[v] % 3, minlength=3).astype(float)
            shared = 0
            if common.size:
                ca = np.searchsorted(block[anchor], common, side="right") - np.searchsorted(block[anchor], common)
                cv = np.searchsorted(block[v], common, side="right") - np.searchsorted(block[v], common)
                both = np.minimum(ca, cv)
                shared = int(both.sum())
                taken = np.bincount(common % 3, weights=both, minlength=3)
                left_a -= taken
                left_v -= taken
            d = np.cumsum(left_a - left_v)
            emd = 0.5 * (abs(d[0]) + abs(d[1]))
            cost = (class_cost * (m - shared) + emd) / m
            if cost <= threshold + 1e-12:
                cluster[v] = current
                continue
        current += 1
        anchor = v
        cluster[v] = current
    # label clusters by the multiset of their members' lossless classes, so that
    # isomorphic clusters under different parents get the same label
    rng = np.random.default_rng(20070101)
    token = rng.integers(1, 2**62, size=int(base.max()) + 1, dtype=np.int64).astype(np.uint64)
    signature = np.zeros(current + 1, dtype=np.uint64)
    np.add.at(signature, cluster, token[base])
    size = np.bincount(cluster, minlength=current + 1)
    labels = _row_ids(signature.view(np.int64), size)
    return labels[cluster]


def game_shrink(
    game: OrderedGame,
    space: SignalSpace | None = None,
    use_histograms: bool = True,
    progress: bool = False,
    threshold: float = 0.0,
) -> InformationFilter:
    """All ordered game isomorphisms of ``game`` as an information filter (lossless).

    ``use_histograms`` seeds the last round's views with the paper's win/tie/lose histogram
    database (a necessary condition for two views to merge), which saves fixpoint rounds.
    ``threshold`` > 0 gives the lossy variant: after the lossless shrink, last-round
    sibling views merge when their matching cost per opponent card is at most
    ``threshold`` (:func:`lossy_last_round_classes`; 0 < threshold < 1); the rounds above
    are then shrunk exactly on top of those merges. Each fixpoint pass is logged (logger
    ``equilibria.models.gameshrink``) at INFO with ``progress``, at DEBUG otherwise.
    Returns the filter, with its seconds and number of passes.
    """
    t0 = time.perf_counter()
    space = space or SignalSpace(game)
    R = game.rounds
    S = space.states
    cls = [[np.zeros(space.view_codes[i][r].shape[0], dtype=np.int64) for r in range(R)] for i in (0, 1)]
    lossy = threshold > 0
    if lossy:
        exact = game_shrink(game, space, use_histograms, progress=False)
        for i in (0, 1):
            cls[i][R - 1] = lossy_last_round_classes(game, space, i, threshold, exact)
    elif use_histograms:
        hist, _ = outcome_histograms(game)
        for i in (0, 1):
            cls[i][R - 1] = _row_ids(_last_round_histograms(game, space, i, hist))
    # grouping of joint states by each player's view (each view has the same number of rows)
    order = [[np.argsort(space.view_index[i][r], kind="stable") for r in range(R)] for i in (0, 1)]
    # round 0 has no parent view: its entry is an empty placeholder, never read
    no_parent = np.empty(0, dtype=np.int64)
    parents = [[no_parent] + [space.parent_view(i, r) for r in range(1, R)] for i in (0, 1)]
    iterations = 0
    while True:
        iterations += 1
        # subtree classes of joint states, bottom-up
        jc: list[np.ndarray] = [no_parent] * R  # every round is set below, the last first
        # (only compared for equality: keys, not numbered ids)
        jc[R - 1] = _row_keys(
            cls[0][R - 1][space.view_index[0][R - 1]], cls[1][R - 1][space.view_index[1][R - 1]], space.outcome
        )
        for r in range(R - 2, -1, -1):
            kids = np.sort(jc[r + 1].reshape(S[r].shape[0], space.children_per_state[r]), axis=1)
            jc[r] = _row_keys(cls[0][r][space.view_index[0][r]], cls[1][r][space.view_index[1][r]], kids)
        # view classes: parent class, old class, multiset of the subtree classes under the view
        changed = False
        for r in range(R):
            for i in (0, 1):
                n_views = cls[i][r].shape[0]
                parent = cls[i][r - 1][parents[i][r]] if r else np.zeros(n_views, dtype=np.int64)
                if lossy and r == R - 1:
                    new = _row_ids(parent, cls[i][r])  # the lossy merges stand
                else:
                    block = np.sort(jc[r][order[i][r]].reshape(n_views, -1), axis=1)
                    new = _row_ids(parent, cls[i][r], block)
                if new.max() != cls[i][r].max():
                    changed = True
                cls[i][r] = new
        if logger.isEnabledFor(logging.INFO if progress else logging.DEBUG):
            counts = [[int(c.max()) + 1 for c in cls[i]] for i in (0, 1)]
            logger.log(
                logging.INFO if progress else logging.DEBUG, "GameShrink pass %d: classes %s", iterations, counts
            )
        if not changed:
            break
    # the filter as union-find over each level's views
    return _filter_from_labels(game, space, cls, t0, iterations)


def _filter_from_labels(
    game: OrderedGame, space: SignalSpace, labels: list, t0: float, iterations: int = 1
) -> InformationFilter:
    classes = []
    for i in (0, 1):
        per_round = []
        for r in range(game.rounds):
            uf = UnionFind(labels[i][r].shape[0])
            uf.union_groups(labels[i][r])
            per_round.append(uf.classes())
        classes.append(per_round)
    return InformationFilter(game, space, classes, seconds=time.perf_counter() - t0, iterations=iterations)


def published_shrink(game: OrderedGame, space: SignalSpace | None = None) -> InformationFilter:
    """GameShrink as the paper states it (Gilpin and Sandholm 2007, Definition 3.2 and
    Algorithm 1), applied per player to the player's own tree (own card, then the public
    cards, then the opponent's card; leaves compared by payoff only).

    Two sibling views merge when their subtrees are isomorphic: a perfect matching of
    their children with equal chance weights and isomorphic subtrees. At the last round a
    view's subtree is its opponent cards with win, tie or loss (the histogram database);
    above, the multiset of its children's isomorphism classes. A view's class is its
    parent's class and its own isomorphism class (only siblings merge). Unlike the lossless
    rule (:func:`game_shrink`) nothing asks that matched opponent cards lie in the same
    opponent class, and the result is not lossless: the abstract game's value and its
    lifted strategies' exploitability can differ from the full game's (docs/gameshrink_rules.md).
    """
    t0 = time.perf_counter()
    space = space or SignalSpace(game)
    R = game.rounds
    labels: list = [[None] * R for _ in (0, 1)]
    hist, _ = outcome_histograms(game)  # the same database serves both players
    for i in (0, 1):
        iso = [np.empty(0, dtype=np.int64)] * R
        iso[R - 1] = _row_ids(_last_round_histograms(game, space, i, hist))
        for r in range(R - 2, -1, -1):
            # views are sorted by code and a child's code extends its parent's: the children
            # of each view are one contiguous block of equal size
            n_views = space.view_codes[i][r].shape[0]
            iso[r] = _row_ids(np.sort(iso[r + 1].reshape(n_views, -1), axis=1))
        labels[i][0] = iso[0]
        for r in range(1, R):
            labels[i][r] = _row_ids(labels[i][r - 1][space.parent_view(i, r)], iso[r])
    return _filter_from_labels(game, space, labels, t0)


def ordered_game_isomorphic(children: dict, leaf_value: dict, x: Hashable, y: Hashable) -> bool:
    """The paper's recursive test on an explicit tree: ``children[node]`` lists
    ``(weight, child)``; leaves compare ``leaf_value``. True when a perfect matching pairs
    the children with equal weights and isomorphic subtrees. (Reference for small trees;
    :func:`game_shrink` computes the same relation by hashing.)"""
    from scipy.optimize import linear_sum_assignment

    cx, cy = children.get(x, []), children.get(y, [])
    if not cx and not cy:
        return leaf_value[x] == leaf_value[y]
    if len(cx) != len(cy):
        return False
    cost = np.ones((len(cx), len(cy)))
    for a, (wa, u) in enumerate(cx):
        for b, (wb, v) in enumerate(cy):
            if abs(wa - wb) < 1e-12 and ordered_game_isomorphic(children, leaf_value, u, v):
                cost[a, b] = 0.0
    rows, cols = linear_sum_assignment(cost)
    return bool(cost[rows, cols].sum() == 0)


__all__ = [
    "UnionFind",
    "InformationFilter",
    "identity_filter",
    "game_shrink",
    "lossy_last_round_classes",
    "ordered_game_isomorphic",
]
