"""Hand evaluators for games with ordered signals: a higher strength wins a showdown.

Each evaluator takes the private cards (shape (k,)) and the board cards (shape (k, m);
-1 where a card is not dealt yet) and returns an int64 strength per row. Cards are
numbered ``rank * suits + suit`` with rank 0 the lowest. Rows with undealt cards get an
arbitrary strength (they are never compared).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: A hand evaluator: (private cards, board cards) -> strength per row
Strength = Callable[[np.ndarray, np.ndarray], np.ndarray]


def high_card(suits: int) -> Strength:
    """Kuhn and G_n: the rank of the private card."""

    def strength(private: np.ndarray, board: np.ndarray) -> np.ndarray:
        return np.asarray(private) // suits

    return strength


def pair_or_high_card(ranks: int, suits: int) -> Strength:
    """Leduc: a private card pairing a board card beats any unpaired card; else the rank."""

    def strength(private: np.ndarray, board: np.ndarray) -> np.ndarray:
        r = np.asarray(private) // suits
        board = np.asarray(board)
        if board.shape[1] == 0:
            return r
        paired = np.any((board // suits) == r[:, None], axis=1)
        return r + np.where(paired, ranks, 0)

    return strength


#: 3-card categories, weakest first
HIGH, PAIR, FLUSH, STRAIGHT, TRIPS, STRAIGHT_FLUSH = range(6)


def three_card(ranks: int, suits: int) -> Strength:
    """Rhode Island hold'em: the best 3-card hand of the private card and two board cards.

    Categories from the top: straight flush, three of a kind, straight, flush, pair, high
    card; within a category the ranks making the hand, then the kicker. With 13 ranks the
    ace also plays low in A-2-3 (the lowest straight).
    """
    wheel = ranks == 13

    def strength(private: np.ndarray, board: np.ndarray) -> np.ndarray:
        cards = np.concatenate([np.asarray(private)[:, None], np.asarray(board)], axis=1)
        if cards.shape[1] < 3:
            return np.zeros(cards.shape[0], dtype=np.int64)
        cards = np.where(cards < 0, 0, cards)
        r = np.sort(cards // suits, axis=1)[:, ::-1]  # descending ranks
        s = cards % suits
        flush = (s[:, 0] == s[:, 1]) & (s[:, 1] == s[:, 2])
        trips = r[:, 0] == r[:, 2]
        pair = ~trips & ((r[:, 0] == r[:, 1]) | (r[:, 1] == r[:, 2]))
        run = (r[:, 0] - r[:, 1] == 1) & (r[:, 1] - r[:, 2] == 1)
        low_ace = wheel & (r[:, 0] == 12) & (r[:, 1] == 1) & (r[:, 2] == 0)
        straight = run | low_ace
        top = np.where(low_ace, 1, r[:, 0])  # A-2-3 ranks by its 3
        category = np.select(
            [straight & flush, trips, straight, flush, pair],
            [STRAIGHT_FLUSH, TRIPS, STRAIGHT, FLUSH, PAIR],
            HIGH,
        )
        pair_rank = np.where(r[:, 0] == r[:, 1], r[:, 0], r[:, 1])
        kicker = np.where(r[:, 0] == r[:, 1], r[:, 2], r[:, 0])
        base = 16
        high_key = (r[:, 0] * base + r[:, 1]) * base + r[:, 2]
        key = np.select(
            [category == STRAIGHT_FLUSH, category == TRIPS, category == STRAIGHT, category == PAIR],
            [top * base * base, r[:, 0] * base * base, top * base * base, (pair_rank * base + kicker) * base],
            high_key,
        )
        return category.astype(np.int64) * base**3 + key

    return strength


__all__ = ["high_card", "pair_or_high_card", "three_card"]
