"""Games with ordered signals: two-player limit poker in the terms of Gilpin and Sandholm,
"Lossless abstraction of imperfect information games" (J. ACM 2007), Definition 1.

An :class:`OrderedGame` has rounds ``j = 1..r``, each a stage game of limit betting
(player 1 first; a bet and up to ``max_raises - 1`` raises); signals are the cards of a
deck of ``ranks x suits`` drawn without replacement, one private card per player in round
1 (gamma = (1, 0, ...)) and one public card before each later round (kappa = (0, 1, ...));
a fold ends the game (over), a call or two checks continue it; at the end the higher hand
strength (a ranking of signal sets, :mod:`equilibria.instances.hands`) wins the pot.

The **signal tree** deals player 1's card, player 2's card, then the public cards. A
*view* of player ``i`` in round ``j`` is what the player has seen: the own card and the
public cards so far. :class:`SignalSpace` holds the joint deals and the views of every
round as integer arrays; :mod:`equilibria.models.gameshrink` finds the isomorphic views
and :mod:`equilibria.models.filtered` builds and lifts the abstract game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from math import comb, perm
from typing import Any

import numpy as np
import numpy.typing as npt

from .betting import BettingTree
from .efg import ExtensiveGame
from .errors import GameError


# ----------------------------------------------------------------------------- the game
@dataclass
class OrderedGame:
    """Two-player limit poker as a game with ordered signals (see the module docstring).

    ``strength(private, board) -> int array`` ranks hands; ``betting`` is the public
    :class:`~equilibria.models.betting.BettingTree` (deals, limit betting, terminals with
    chips and folder; built by :func:`equilibria.instances.betting.limit_betting`).
    ``extensive_factory()`` returns the full game tree; its ``infoset_key`` must follow
    :func:`~equilibria.models.betting.encode_view_keys` over the nodes of ``betting`` (as
    :func:`equilibria.instances.poker.poker_game` does), which is how strategies are lifted.
    """

    name: str
    ranks: int
    suits: int
    ante: float
    raise_sizes: tuple[float, ...]
    max_raises: tuple[int, ...]
    strength: Callable[[np.ndarray, np.ndarray], npt.ArrayLike]
    card_names: list[str]
    betting: BettingTree = field(repr=False)
    extensive_factory: Callable[[], ExtensiveGame] | None = field(repr=False, default=None)

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

    def unabstracted_lp_size(self, player: int = 0) -> dict[str, Any]:
        """Rows, columns of ``player``'s sequence-form LP with no abstraction, counted from
        the betting tree and the number of views (nothing is built)."""
        t = self.betting
        infosets = [0, 0]
        sequences = [1, 1]
        for v in t.decisions:
            p, r, na = t.player[v], int(t.round[v]), len(t.children[v])
            infosets[p] += self.num_views(r)
            sequences[p] += self.num_views(r) * na
        o = 1 - player
        rows = (1 + infosets[player]) + sequences[o]
        cols = sequences[player] + (1 + infosets[o])
        return {"rows": rows, "columns": cols, "infosets": infosets, "sequences": sequences}

    def to_extensive(self) -> ExtensiveGame:
        """The full game tree (small decks only), from the instance's tree generator."""
        if self.extensive_factory is None:
            raise GameError(f"'{self.name}' has no extensive-form generator")
        return self.extensive_factory()


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
        # card codes fit the smallest integer type the deck allows (Rhode Island: one byte)
        card_type: type[np.signedinteger] = np.int8 if D < 128 else np.int16 if D < 2**15 else np.int32
        cur = np.array([[a, b] for a in range(D) for b in range(D) if a != b], dtype=card_type)
        states.append(cur)
        for _ in range(1, R):
            k = cur.shape[1]
            cand = np.broadcast_to(np.arange(D, dtype=card_type), (cur.shape[0], D))
            used = np.zeros((cur.shape[0], D), dtype=bool)
            np.put_along_axis(used, cur.astype(np.int64), True, axis=1)
            rows = np.repeat(np.arange(cur.shape[0]), D - k)
            cols = cand[~used].reshape(-1)
            cur = np.concatenate([cur[rows], cols[:, None]], axis=1)
            states.append(cur)
        self.states = states
        self.children_per_state = [D - (2 + r) for r in range(R)]
        # views: codes in base D of (own card, board...) -> index
        # filled for every player and round below
        self.view_index: list[list[np.ndarray]] = [[np.empty(0, dtype=np.int64)] * R for _ in range(2)]
        self.view_codes: list[list[np.ndarray]] = [[np.empty(0, dtype=np.int64)] * R for _ in range(2)]
        for i in (0, 1):
            for r in range(R):
                st = states[r]
                code = st[:, i].astype(np.int64)
                for b in range(r):
                    code = code * D + st[:, 2 + b].astype(np.int64)
                self.view_codes[i][r], self.view_index[i][r] = _codes_and_index(code, D ** (r + 1))
        final = states[-1]
        self.outcome = _showdown_outcomes(game.strength, final, D)  # +1: player 1 wins
        self.seconds = time.perf_counter() - t0

    def parent_view(self, i: int, r: int) -> np.ndarray:
        """Index of each round-r view's round-(r-1) view (drop the last public card)."""
        return np.searchsorted(self.view_codes[i][r - 1], self.view_codes[i][r] // self.D)


#: Largest code range (or hand table) built densely; beyond it, sorting takes over.
DENSE_LIMIT = 1 << 24


def _codes_and_index(code: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(code, return_inverse=True)`` for codes in ``[0, size)``: by marking a
    dense table when it is small, which takes linear time where a sort of Rhode Island's
    6.5 million final deals takes seconds."""
    if size > DENSE_LIMIT:
        uniq, inv = np.unique(code, return_inverse=True)
        return uniq, inv.reshape(-1)
    seen = np.zeros(size, dtype=bool)
    seen[code] = True
    rank = np.cumsum(seen, dtype=np.int64) - 1
    return np.flatnonzero(seen), rank[code]


def _showdown_outcomes(strength: Callable, final: np.ndarray, D: int) -> np.ndarray:
    """Sign of player 1's strength minus player 2's for every final deal
    ``(c1, c2, board...)``. The evaluator is applied once to every (private card, board in
    the order dealt) when that table is small, and the deals look their hands up in it,
    instead of evaluating two hands per deal."""
    m = final.shape[1] - 2
    board = final[:, 2:].astype(np.int64)
    if D ** (m + 1) > DENSE_LIMIT:
        s1 = np.asarray(strength(final[:, 0].astype(np.int64), board))
        s2 = np.asarray(strength(final[:, 1].astype(np.int64), board))
        return np.sign(s1 - s2).astype(np.int8)
    # every (own card, board) in base D, own card first: rows with a repeated card are
    # never looked up
    digits = np.indices((D,) * (m + 1)).reshape(m + 1, -1).T
    table = np.asarray(strength(digits[:, 0], digits[:, 1:]), dtype=np.int64)
    board_code = np.zeros(final.shape[0], dtype=np.int64)
    for b in range(m):
        board_code = board_code * D + board[:, b]
    own_weight = D**m
    s1 = table[final[:, 0].astype(np.int64) * own_weight + board_code]
    s2 = table[final[:, 1].astype(np.int64) * own_weight + board_code]
    return np.sign(s1 - s2).astype(np.int8)


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
    """The paper's histogram database: for every (private card, public card set) with the
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


__all__ = ["OrderedGame", "SignalSpace", "colex_index", "outcome_histograms"]
