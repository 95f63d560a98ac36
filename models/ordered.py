"""Games with ordered signals (seed 000, Definition 1) and GameShrink's lossless abstraction.

An :class:`OrderedGame` here is a two-player limit poker game in Definition 1's terms:
rounds ``j = 1..r``, each a stage game of limit betting (player 1 first; a bet and up to
``max_raises - 1`` raises); signals are the cards of a deck of ``ranks x suits`` drawn
without replacement, one private card per player in round 1 (gamma = (1, 0, ...)) and one
public card before each later round (kappa = (0, 1, ...)); a fold ends the game (over),
a call or two checks continue it; at the end the higher hand strength (a ranking of
signal sets, :mod:`equilibria.instances.hands`) wins the pot.

The **signal tree** deals player 1's card, player 2's card, then the public cards. A
*view* of player ``i`` in round ``j`` is what the player has seen: the own card and the
public cards so far. :func:`game_shrink` finds the ordered game isomorphisms bottom-up
on the signal tree and returns an :class:`InformationFilter`: per player and round, the
class of every view. Two views of a player are merged when they have the same parent
class (siblings, so perfect recall holds) and the subtrees below them are isomorphic:
there is a bijection between the opponent's possible cards under each that preserves the
opponent's view class, the showdown outcome and, recursively, the isomorphism class of
the continuation. Isomorphism is an equivalence, so the bipartite graph of seed 000's
test has a perfect matching exactly when the two multisets of child classes are equal;
classes are therefore computed by sorting and hashing child-class rows, level by level,
until the view classes stop changing (a fixpoint: view classes and subtree classes refer
to each other). :func:`ordered_game_isomorphic` is the literal matching test, kept as a
reference for small trees.

:func:`filtered_sequence_form` then builds the abstract game's sequence form directly
from the betting template and the classes, without expanding any game tree; its entries
are aggregated per pair of classes, so the work is proportional to the abstract LP.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from math import comb, perm

import numpy as np

from .efg import CHANCE, TERMINAL
from .errors import GameError
from .sequence import SequenceForm, build_player_sequences


# ----------------------------------------------------------------------------- the game
@dataclass
class OrderedGame:
    """Two-player limit poker as a game with ordered signals (see the module docstring).

    ``strength(private, board) -> int array`` ranks hands; ``betting`` is the public
    template (built by :mod:`equilibria.instances.poker`): node kinds, children, action
    labels, chips in per player, folder, history strings (``"rc/cr"``), deal slots.
    """

    name: str
    ranks: int
    suits: int
    ante: float
    raise_sizes: tuple
    max_raises: tuple
    strength: object
    card_names: list
    betting: object = field(repr=False, default=None)
    extensive_factory: object = field(repr=False, default=None)

    @property
    def deck(self) -> int:
        """Number of cards."""
        return self.ranks * self.suits

    @property
    def rounds(self) -> int:
        """Number of betting rounds."""
        return len(self.raise_sizes)

    def signal_tree_levels(self) -> list[int]:
        """Nodes per level of the signal tree: root, player 1's card, player 2's card, then
        one level per public card."""
        D = self.deck
        levels = [1]
        for k in range(2 + self.rounds - 1):
            levels.append(levels[-1] * (D - k))
        return levels

    def signal_tree_nodes(self) -> int:
        """Size of the signal tree (for Rhode Island hold'em 6,632,705)."""
        return int(sum(self.signal_tree_levels()))

    def num_views(self, r: int) -> int:
        """Views of one player in round ``r`` (0-based): own card and ``r`` public cards."""
        return perm(self.deck, r + 1)

    # ------------------------------------------------------------------ betting template
    @cached_property
    def template(self) -> "BettingTemplate":
        """The public betting tree with rounds and terminals resolved."""
        return BettingTemplate(self.betting)

    def unabstracted_lp_size(self, player: int = 0) -> dict:
        """Rows, columns of ``player``'s sequence-form LP with no abstraction, counted from
        the betting template and the number of views (nothing is built)."""
        t = self.template
        infosets = [0, 0]
        sequences = [1, 1]
        for v in t.decisions:
            p, r, na = t.player[v], t.round[v], len(t.children[v])
            infosets[p] += self.num_views(r)
            sequences[p] += self.num_views(r) * na
        o = 1 - player
        rows = (1 + infosets[player]) + sequences[o]
        cols = sequences[player] + (1 + infosets[o])
        return {"rows": rows, "columns": cols, "infosets": infosets, "sequences": sequences}

    def to_extensive(self):
        """The full game tree (small decks only), from the instance's tree generator."""
        if self.extensive_factory is None:
            raise GameError(f"'{self.name}' has no extensive-form generator")
        return self.extensive_factory()


class BettingTemplate:
    """The public betting tree of an ordered game: decision nodes with their round,
    terminals with chips, folder and round; deal nodes are skipped."""

    def __init__(self, raw):
        kind, children = raw.kind, raw.children
        n = len(kind)
        self.raw = raw
        self.player = {}
        self.round = {}
        self.children = {}
        self.labels = {}
        self.history = {}
        self.parent_decision = {}  # node -> (nearest decision ancestor, action index) per player
        self.decisions, self.terminals = [], []
        self.contrib, self.folder = {}, {}
        # walk: skip chance nodes (one child each); the round is the number of board deals
        stack = [(0, 0, {0: None, 1: None})]
        while stack:
            v, rnd, last = stack.pop()
            k = kind[v]
            if k == CHANCE:
                slot = raw.deal_slot[v]
                stack.append((children[v][0], rnd + (1 if slot >= 2 else 0), last))
                continue
            self.history[v] = raw.history[v]
            self.round[v] = rnd
            self.parent_decision[v] = dict(last)
            if k == TERMINAL:
                self.terminals.append(v)
                self.contrib[v] = raw.contrib[v]
                self.folder[v] = raw.folder[v]
                continue
            self.player[v] = int(k)
            self.children[v] = list(children[v])
            self.labels[v] = list(raw.labels[v])
            self.decisions.append(v)
            for a, c in enumerate(children[v]):
                nxt = dict(last)
                nxt[int(k)] = (v, a)
                stack.append((c, rnd, nxt))
        self.decisions.sort()
        self.terminals.sort()
        self.by_history = {h: v for v, h in self.history.items() if v in self.player}
        self.num_nodes = n


# ----------------------------------------------------------------------------- signals
class SignalSpace:
    """Joint deals and views, per round, as arrays (rows in lexicographic order of the
    cards: player 1's, player 2's, then the public cards in order)."""

    def __init__(self, game: OrderedGame, progress: bool = False):
        D = game.deck
        self.game = game
        self.D = D
        R = game.rounds
        t0 = time.perf_counter()
        # joint states of round r: (c1, c2, b1..br)
        states = []
        cur = np.array([[a, b] for a in range(D) for b in range(D) if a != b], dtype=np.int8)
        states.append(cur)
        for _ in range(1, R):
            k = cur.shape[1]
            cand = np.broadcast_to(np.arange(D, dtype=np.int8), (cur.shape[0], D))
            used = np.zeros((cur.shape[0], D), dtype=bool)
            np.put_along_axis(used, cur.astype(np.int64), True, axis=1)
            rows = np.repeat(np.arange(cur.shape[0]), D - k)
            cols = cand[~used].reshape(-1)
            cur = np.concatenate([cur[rows], cols[:, None]], axis=1)
            states.append(cur)
        self.states = states
        self.children_per_state = [D - (2 + r) for r in range(R)]
        # views: codes in base D of (own card, board...) -> index
        self.view_index = [[None] * R for _ in range(2)]
        self.view_codes = [[None] * R for _ in range(2)]
        for i in (0, 1):
            for r in range(R):
                st = states[r]
                code = st[:, i].astype(np.int64)
                for b in range(r):
                    code = code * D + st[:, 2 + b]
                uniq, inv = np.unique(code, return_inverse=True)
                self.view_codes[i][r] = uniq
                self.view_index[i][r] = inv.reshape(-1)
        final = states[-1]
        board = final[:, 2:].astype(np.int64)
        s1 = np.asarray(game.strength(final[:, 0].astype(np.int64), board))
        s2 = np.asarray(game.strength(final[:, 1].astype(np.int64), board))
        self.outcome = np.sign(s1 - s2).astype(np.int8)  # +1: player 1 wins
        self.seconds = time.perf_counter() - t0

    def parent_view(self, i: int, r: int) -> np.ndarray:
        """Index of each round-r view's round-(r-1) view (drop the last public card)."""
        return np.searchsorted(self.view_codes[i][r - 1], self.view_codes[i][r] // self.D)


def colex_index(cards: np.ndarray) -> np.ndarray:
    """Colexicographic rank of each row's card *set* (rows sorted ascending inside):
    sum_i C(c_i, i + 1). A bijection from k-subsets of {0..n-1} to 0..C(n, k) - 1."""
    cards = np.sort(np.asarray(cards, dtype=np.int64), axis=1)
    out = np.zeros(cards.shape[0], dtype=np.int64)
    for i in range(cards.shape[1]):
        c = cards[:, i]
        out += np.array([comb(int(x), i + 1) for x in range(int(c.max(initial=0)) + 1)], dtype=np.int64)[c]
    return out


def outcome_histograms(game: OrderedGame) -> tuple[np.ndarray, np.ndarray]:
    """Seed 000's histogram database: for every (private card, public card set) with the
    full board, how many opponent cards it beats, ties and loses to. Indexed by
    ``private * C(D, m) + colex(board)``, so boards dealt in any order share an entry.
    Returns (index -> row, histograms (rows, 3))."""
    D = game.deck
    m = game.rounds - 1
    if m == 0:
        boards = np.zeros((1, 0), dtype=np.int64)
    else:
        from itertools import combinations

        boards = np.array(list(combinations(range(D), m)), dtype=np.int64)
    nb = boards.shape[0]
    hist = np.zeros((D * max(nb, 1), 3), dtype=np.int64)
    for b_idx in range(nb):
        board = boards[b_idx]
        free = np.setdiff1d(np.arange(D), board)
        strength = np.asarray(game.strength(free, np.broadcast_to(board, (free.shape[0], m))))
        diff = np.sign(strength[:, None] - strength[None, :])
        np.fill_diagonal(diff, 2)  # the same card is not an opponent
        key = colex_index(board[None, :])[0] if m else 0
        rows = free * max(nb, 1) + key
        hist[rows, 0] = (diff == 1).sum(axis=1)
        hist[rows, 1] = (diff == 0).sum(axis=1)
        hist[rows, 2] = (diff == -1).sum(axis=1)
    return hist, boards


# ----------------------------------------------------------------------------- filters
class UnionFind:
    """Disjoint sets over 0..n-1 (union by size, path halving), vectorised where it can."""

    def __init__(self, n: int):
        self.parent = np.arange(n, dtype=np.int64)
        self.size = np.ones(n, dtype=np.int64)

    def find(self, x):
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


def _row_ids(*columns) -> np.ndarray:
    """Dense ids of equal rows over the given integer columns/2-D blocks."""
    parts = [np.asarray(c).reshape(np.asarray(c).shape[0], -1) for c in columns]
    mat = np.ascontiguousarray(np.concatenate(parts, axis=1).astype(np.int64))
    _, inv = np.unique(mat, axis=0, return_inverse=True)
    return inv.reshape(-1)


def _last_round_histograms(game: OrderedGame, space: SignalSpace, i: int) -> np.ndarray:
    """Win/tie/lose counts (rows of the histogram database) of player i's last-round views."""
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


def lossy_last_round_classes(game: OrderedGame, space: SignalSpace, i: int, threshold: float,
                             lossless: InformationFilter) -> np.ndarray:
    """Seed 000's lossy merge at the last round: sibling views (same parent view) merge
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


def game_shrink(game: OrderedGame, space: SignalSpace | None = None, use_histograms: bool = True,
                progress: bool = False, threshold: float = 0.0) -> InformationFilter:
    """All ordered game isomorphisms of ``game`` as an information filter (lossless).

    ``use_histograms`` seeds the last round's views with seed 000's win/tie/lose histogram
    database (a necessary condition for two views to merge), which saves fixpoint rounds.
    ``threshold`` > 0 gives the lossy variant: after the lossless shrink, last-round
    sibling views merge when their matching cost per opponent card is at most
    ``threshold`` (:func:`lossy_last_round_classes`; 0 < threshold < 1); the rounds above
    are then shrunk exactly on top of those merges.
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
        for i in (0, 1):
            cls[i][R - 1] = _row_ids(_last_round_histograms(game, space, i))
    # grouping of joint states by each player's view (each view has the same number of rows)
    order = [[np.argsort(space.view_index[i][r], kind="stable") for r in range(R)] for i in (0, 1)]
    parents = [[None] + [space.parent_view(i, r) for r in range(1, R)] for i in (0, 1)]
    iterations = 0
    while True:
        iterations += 1
        # subtree classes of joint states, bottom-up
        jc = [None] * R
        jc[R - 1] = _row_ids(cls[0][R - 1][space.view_index[0][R - 1]],
                             cls[1][R - 1][space.view_index[1][R - 1]], space.outcome)
        for r in range(R - 2, -1, -1):
            kids = np.sort(jc[r + 1].reshape(S[r].shape[0], space.children_per_state[r]), axis=1)
            jc[r] = _row_ids(cls[0][r][space.view_index[0][r]], cls[1][r][space.view_index[1][r]], kids)
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
        if progress:
            counts = [[int(c.max()) + 1 for c in cls[i]] for i in (0, 1)]
            print(f"  GameShrink pass {iterations}: classes {counts}", flush=True)
        if not changed:
            break
    # the filter as union-find over each level's views
    classes = []
    for i in (0, 1):
        per_round = []
        for r in range(R):
            uf = UnionFind(cls[i][r].shape[0])
            uf.union_groups(cls[i][r])
            per_round.append(uf.classes())
        classes.append(per_round)
    return InformationFilter(game, space, classes, seconds=time.perf_counter() - t0, iterations=iterations)


def ordered_game_isomorphic(children: dict, leaf_value: dict, x, y) -> bool:
    """Seed 000's recursive test on an explicit tree: ``children[node]`` lists
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


# ----------------------------------------------------------------------------- the LP
@dataclass
class FilteredGame:
    """The abstract game of a filter as a sequence form, with the maps to lift it back."""

    game: OrderedGame
    filter: InformationFilter
    sequence_form: SequenceForm
    infoset_index: list  # [player] dict (template node) -> first infoset id, classes consecutive
    seconds: float = 0.0


def filtered_sequence_form(filt: InformationFilter) -> FilteredGame:
    """The filtered game's sequence form, built from the betting template and the classes.

    Information sets of player i: (class of the round's view, decision node of the
    template). Payoff entries: per terminal of the template, one per pair of classes that
    occurs in its round, weighted by the chance of that pair (and at a showdown, summed
    over outcomes).
    """
    t0 = time.perf_counter()
    game, space = filt.game, filt.space
    t = game.template
    R = game.rounds
    ncls = [[filt.num_classes(i, r) for r in range(R)] for i in (0, 1)]
    anc = [[None] * R for _ in (0, 1)]  # anc[i][r][s] : class map from round r to round s<=r
    for i in (0, 1):
        for r in range(R):
            maps = {r: np.arange(ncls[i][r])}
            cur = np.arange(ncls[i][r])
            for s in range(r, 0, -1):
                cur = filt.parent_class(i, s)[cur]
                maps[s - 1] = cur
            anc[i][r] = maps
    players, first_infoset, first_seq_of = [], [], []
    for i in (0, 1):
        nodes = [v for v in t.decisions if t.player[v] == i]
        start, infoset_first, parent_list = 0, {}, []
        seq_first = {}
        for v in nodes:
            infoset_first[v] = start
            start += ncls[i][t.round[v]]
        # sequences numbered by information set: first sequence of infoset (v, k)
        na_all = np.concatenate([np.full(ncls[i][t.round[v]], len(t.children[v])) for v in nodes]) if nodes else np.zeros(0, dtype=np.int64)
        first = 1 + np.cumsum(na_all) - na_all
        for v in nodes:
            seq_first[v] = first[infoset_first[v]: infoset_first[v] + ncls[i][t.round[v]]]
        for v in nodes:
            r = t.round[v]
            last = t.parent_decision[v][i]
            if last is None:
                parent_list.append(np.zeros(ncls[i][r], dtype=np.int64))
            else:
                u, a = last
                parent_list.append(seq_first[u][anc[i][r][t.round[u]]] + a)
        parent = np.concatenate(parent_list) if parent_list else np.zeros(0, dtype=np.int64)
        players.append(build_player_sequences(i, np.arange(na_all.shape[0]), na_all, parent))
        first_infoset.append(infoset_first)
        first_seq_of.append(seq_first)
    # class pairs per round with their chance mass (and outcome masses at the end)
    pair_mass = []
    for r in range(R):
        k1 = filt.classes[0][r][space.view_index[0][r]]
        k2 = filt.classes[1][r][space.view_index[1][r]]
        w = 1.0 / space.states[r].shape[0]
        if r == R - 1:
            key = (k1 * ncls[1][r] + k2) * 3 + (space.outcome.astype(np.int64) + 1)
            u, cnt = np.unique(key, return_counts=True)
            pair, out = u // 3, u % 3 - 1
        else:
            key = k1 * ncls[1][r] + k2
            u, cnt = np.unique(key, return_counts=True)
            pair, out = u, np.zeros_like(u)
        pair_mass.append((pair // ncls[1][r], pair % ncls[1][r], out, cnt * w))
    # one payoff entry per (terminal, class pair of its round): preallocated, int32
    # sequences, so the biggest games (Rhode Island: 1.2e8 entries) stay in memory
    total = sum(pair_mass[t.round[v]][0].shape[0] for v in t.terminals)
    max_seq = max(p.num_sequences for p in players)
    seqs = np.zeros((total, 2), dtype=np.int32 if max_seq < 2**31 else np.int64)
    chance = np.empty(total)
    # chips are small whole numbers: float32 holds them exactly and halves the payoff table
    chips = np.array([c for v in t.terminals for c in t.contrib[v]], dtype=np.float64)
    exact32 = np.array_equal(chips.astype(np.float32).astype(np.float64), chips)
    pays = np.empty((total, 2), dtype=np.float32 if exact32 else np.float64)
    at = 0
    for v in t.terminals:
        r = t.round[v]
        c1, c2 = t.contrib[v]
        k1, k2, out, mass = pair_mass[r]
        n = mass.shape[0]
        folder = t.folder[v]
        if folder == 0:
            p1 = -c1
        elif folder == 1:
            p1 = c2
        else:
            if r != R - 1:
                raise GameError(f"betting history '{t.history[v]}' reaches a showdown before the last round")
            p1 = out * c2
        for i, k in ((0, k1), (1, k2)):
            last = t.parent_decision[v][i]
            if last is not None:
                u, a = last
                seqs[at:at + n, i] = first_seq_of[i][u][anc[i][r][t.round[u]][k]] + a
        chance[at:at + n] = mass
        pays[at:at + n, 0] = p1
        pays[at:at + n, 1] = -pays[at:at + n, 0]
        at += n
    sf = SequenceForm.from_parts(players, seqs, chance, pays)
    return FilteredGame(game, filt, sf, first_infoset, seconds=time.perf_counter() - t0)


def filtered_extensive(fg: FilteredGame):
    """The filtered game as an :class:`ExtensiveGame` (small games; a cross-check of
    :func:`filtered_sequence_form`): chance deals pairs of classes, round by round, with
    the conditional probabilities of the original deal; players see their own class;
    showdowns pay the expected outcome of the final pair of classes."""
    from .efg import GameBuilder

    game, filt = fg.game, fg.filter
    space = filt.space
    raw = game.betting
    R = game.rounds
    ncls2 = [filt.num_classes(1, r) for r in range(R)]
    pair_of_state = []
    for r in range(R):
        k1 = filt.classes[0][r][space.view_index[0][r]]
        k2 = filt.classes[1][r][space.view_index[1][r]]
        pair_of_state.append(k1 * ncls2[r] + k2)
    first = {}
    u, cnt = np.unique(pair_of_state[0], return_counts=True)
    first = dict(zip(u.tolist(), (cnt / cnt.sum()).tolist()))
    trans = []
    for r in range(1, R):
        parent_state = np.arange(space.states[r].shape[0]) // space.children_per_state[r - 1]
        key = np.stack([pair_of_state[r - 1][parent_state], pair_of_state[r]], axis=1)
        uk, cnt = np.unique(key, axis=0, return_counts=True)
        table = {}
        for (a, b), c in zip(uk.tolist(), cnt.tolist()):
            table.setdefault(a, []).append((b, c))
        trans.append({a: [(b, c / sum(x for _, x in lst)) for b, c in lst] for a, lst in table.items()})
    out = space.outcome.astype(np.float64)
    expected = {}
    uf, inv = np.unique(pair_of_state[R - 1], return_inverse=True)
    means = np.bincount(inv.reshape(-1), weights=out) / np.bincount(inv.reshape(-1))
    expected = dict(zip(uf.tolist(), means.tolist()))
    b = GameBuilder(title=f"{game.name}, filtered")

    def walk(node, v, r, pair):
        kind = raw.kind[v]
        if kind == CHANCE:
            if raw.deal_slot[v] < 2:  # private cards: dealt as the first pair of classes
                return walk(node, raw.children[v][0], r, pair)
            nxt = trans[r][pair]
            kids = b.chance(node, [(f"pair {q}", pr) for q, pr in nxt])
            for kid, (q, _) in zip(kids, nxt):
                walk(kid, raw.children[v][0], r + 1, q)
            return
        if kind == TERMINAL:
            c1, c2 = raw.contrib[v]
            f = raw.folder[v]
            p1 = -c1 if f == 0 else (c2 if f == 1 else expected[pair] * c2)
            b.terminal(node, [p1, -p1])
            return
        k = pair // ncls2[r] if kind == 0 else pair % ncls2[r]
        kids = b.decision(node, int(kind), f"{k}:{raw.history[v]}", list(raw.labels[v]))
        for kid, c in zip(kids, raw.children[v]):
            walk(kid, c, r, pair)

    roots = b.chance(b.root, [(f"pair {q}", pr) for q, pr in first.items()])
    for node, q in zip(roots, first):
        walk(node, 0, 0, q)
    return b.build()


def lift_behavior(fg: FilteredGame, behaviors, original_game, original_sf) -> list[np.ndarray]:
    """Behaviour strategies of the full game (``game.to_extensive()``) that play, at every
    information set, the strategy of its class in the filtered game (seed 000's lifting)."""
    game, filt = fg.game, fg.filter
    space = filt.space
    t = game.template
    name_to_card = {n: c for c, n in enumerate(game.card_names)}
    names_sorted = sorted(game.card_names, key=len, reverse=True)
    out = []
    for i in (0, 1):
        ps_full, ps_abs = original_sf.players[i], fg.sequence_form.players[i]
        b_abs = np.asarray(behaviors[i])
        b = np.ones(ps_full.num_sequences)
        for loc, g in enumerate(ps_full.infoset_global):
            label = str(original_game.infoset_labels[g])
            cards_text, _, hist = label.partition(":")
            cards = _parse_cards(cards_text.replace("|", ""), names_sorted, name_to_card)
            v = t.by_history[hist]
            r = t.round[v]
            code = 0
            for c in cards:
                code = code * game.deck + c
            view = np.searchsorted(space.view_codes[i][r], code)
            k = filt.classes[i][r][view]
            abs_infoset = fg.infoset_index[i][v] + k
            na = int(ps_full.infoset_num_actions[loc])
            b[ps_full.infoset_first_sequence[loc] + np.arange(na)] = b_abs[ps_abs.infoset_first_sequence[abs_infoset] + np.arange(na)]
        out.append(b)
    return out


def _parse_cards(text: str, names_sorted, name_to_card) -> list[int]:
    cards = []
    while text:
        for n in names_sorted:
            if text.startswith(n):
                cards.append(name_to_card[n])
                text = text[len(n):]
                break
        else:
            raise GameError(f"cannot read cards from '{text}'")
    return cards


__all__ = [
    "OrderedGame", "BettingTemplate", "SignalSpace", "UnionFind", "InformationFilter", "FilteredGame",
    "identity_filter", "game_shrink", "filtered_extensive", "ordered_game_isomorphic", "filtered_sequence_form", "lift_behavior",
    "colex_index", "outcome_histograms", "lossy_last_round_classes",
]
