"""Liar's dice with one die per player, by OpenSpiel's rules.

Each player rolls one die with ``sides`` faces. Players alternate bids (quantity, face),
each strictly higher than the last in the order quantity-major, face-minor; instead of
bidding, a player may call "Liar" on the last bid. The highest face is wild. If the bid
holds (at least ``quantity`` dice show ``face`` or the wild face), the caller loses 1 and
the bidder wins 1; otherwise the bidder loses.
"""

from __future__ import annotations

import numpy as np

from ..models.efg import CHANCE, TERMINAL, ExtensiveGame
from ..models.errors import GameError
from ._grow import Expansion, State, grow


def liars_dice(dice: int = 1, sides: int = 6) -> ExtensiveGame:
    """Two-player Liar's dice with ``dice`` dice each (only 1 is supported) and ``sides`` faces."""
    if dice != 1:
        raise GameError("liars_dice supports dice=1 (one die per player)")
    if not 2 <= sides <= 12:
        raise GameError(f"liars_dice needs 2 to 12 sides, got {sides}")
    total = 2 * dice
    num_bids = total * sides
    liar = num_bids  # column of the "Liar" call
    width = num_bids + 1

    def bid_name(b: int) -> str:
        return f"{b // sides + 1}-{b % sides + 1}"

    def expand(state: State) -> Expansion:
        depth, dice_, last, mask = state["depth"], state["dice"], state["last"], state["mask"]
        k = last.shape[0]
        kind = np.full(k, TERMINAL, dtype=np.int32)
        rolling = depth < 2
        kind[rolling] = CHANCE
        called = state["called"]
        bidding = ~rolling & ~called
        nbids = depth - 2
        kind[bidding] = (nbids[bidding] % 2).astype(np.int32)
        cols = np.arange(width)[None, :]
        moves = np.zeros((k, width), dtype=bool)
        moves[rolling] = cols[:, :width] < sides
        moves[bidding] = (cols > last[bidding, None]) & (cols < num_bids)
        moves[bidding, liar] = last[bidding] >= 0
        # information set: own die and the bids so far (a bit mask)
        me = np.maximum(kind, 0)
        own = dice_[np.arange(k), np.minimum(me, 1)]
        key = own * (1 << num_bids) + mask
        pay = np.zeros((k, 2))
        term = kind == TERMINAL
        if np.any(term):
            q = last // sides + 1
            face = last % sides + 1
            count = np.sum((dice_ == face[:, None]) | (dice_ == sides), axis=1)
            holds = count >= q
            caller = state["caller"]
            loser = np.where(holds, caller, 1 - caller)
            pay[:, 0] = np.where(loser == 0, -1.0, 1.0)
            pay[:, 1] = -pay[:, 0]
            pay[~term] = 0

        def children(rows: np.ndarray, cols: np.ndarray) -> tuple[State, np.ndarray]:
            d = dice_[rows].copy()
            roll = rolling[rows]
            rr = np.flatnonzero(roll)
            d[rr, depth[rows[rr]]] = cols[rr] + 1
            is_call = (cols == liar) & ~roll
            is_bid = ~roll & ~is_call
            new_last = np.where(is_bid, cols, last[rows])
            new_mask = np.where(is_bid, mask[rows] | (np.int64(1) << np.minimum(cols, 62)), mask[rows])
            child = {
                "depth": depth[rows] + 1,
                "dice": d,
                "last": new_last,
                "mask": new_mask,
                "called": is_call,
                "caller": np.where(is_call, kind[rows], -1),
            }
            return child, np.full(rows.shape[0], 1.0 / sides)

        def infoset_labels(rows: np.ndarray) -> list[str]:
            out = []
            for r in rows:
                bids = [bid_name(b) for b in range(num_bids) if mask[r] >> b & 1]
                out.append(f"{own[r]}:{' '.join(bids)}")
            return out

        def action_labels(rows: np.ndarray, cols: np.ndarray) -> list[str]:
            return ["Liar" if c == liar else bid_name(c) for c in cols]

        return Expansion(kind, moves, children, key, infoset_labels, action_labels, pay)

    root = {
        "depth": np.zeros(1, dtype=np.int64),
        "dice": np.zeros((1, 2), dtype=np.int64),
        "last": np.full(1, -1, dtype=np.int64),
        "mask": np.zeros(1, dtype=np.int64),
        "called": np.zeros(1, dtype=bool),
        "caller": np.full(1, -1, dtype=np.int64),
    }
    return grow(root, expand, title=f"Liar's dice (1 die, {sides} sides)")
