"""The Sheriff game, by OpenSpiel's rules.

A simplified Sheriff of Nottingham (Farina, Ling, Fang and Gordon, "Correlation in
extensive-form games: saddle-point formulation and benchmarks", NeurIPS 2019), a
two-player general-sum bargaining game. The smuggler secretly loads 0 to ``max_items``
illegal items; then, for ``rounds`` rounds, the smuggler offers a bribe of 0 to
``max_bribe`` and the sheriff answers whether it will inspect (cheap talk: only the last
round's bribe and answer count). At the end: not inspected, the smuggler gains
``item_value`` per item and pays the bribe to the sheriff; inspected, a smuggler with
items pays ``item_penalty`` per item to the sheriff, and a sheriff who inspected an empty
cargo pays ``sheriff_penalty`` to the smuggler. The sheriff never sees the items.
"""

from __future__ import annotations

import numpy as np

from ..models.efg import TERMINAL, ExtensiveGame
from ..models.errors import GameError
from ._grow import Expansion, State, grow

SMUGGLER, SHERIFF = 0, 1


def sheriff(
    max_items: int = 3,
    max_bribe: int = 3,
    rounds: int = 4,
    item_value: float = 1.0,
    item_penalty: float = 2.0,
    sheriff_penalty: float = 3.0,
) -> ExtensiveGame:
    """Sheriff with OpenSpiel's parameters and defaults (``rounds`` is its ``num_rounds``).

    The smallest published size, ``max_items=3, max_bribe=3, rounds=1``, has 21 smuggler
    and 9 sheriff sequences and 32 terminals."""
    for name, value, low in (("max_items", max_items, 1), ("max_bribe", max_bribe, 0), ("rounds", rounds, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise GameError(f"'sheriff': parameter {name} must be a whole number of at least {low}, not {value!r}")
    for name, amount in (
        ("item_value", item_value),
        ("item_penalty", item_penalty),
        ("sheriff_penalty", sheriff_penalty),
    ):
        if not np.isfinite(amount) or amount < 0:
            raise GameError(f"'sheriff': parameter {name} must be a finite number of at least 0, not {amount!r}")
    # a history is a number in base radix: each move adds one digit (its option + 1), never 0
    radix = max(max_bribe, 1) + 2
    if (2 * rounds + 1) * np.log2(radix) + np.log2(max_items + 2) > 62:
        raise GameError(f"'sheriff': {rounds} rounds with bribes up to {max_bribe} is too large a game")
    depth_end = 1 + 2 * rounds
    width = max(max_items + 1, max_bribe + 1)

    def expand(state: State) -> Expansion:
        depth, items, history = state["depth"], state["items"], state["history"]
        bribe, inspect = state["bribe"], state["inspect"]
        k = depth.shape[0]
        kind = np.where(depth % 2 == 1, SMUGGLER, SHERIFF).astype(np.int32)
        kind[depth == 0] = SMUGGLER
        kind[depth == depth_end] = TERMINAL
        cols = np.arange(width)[None, :]
        options = np.where(depth == 0, max_items + 1, np.where(kind == SMUGGLER, max_bribe + 1, 2))
        moves = cols < options[:, None]
        # the smuggler knows the items; the sheriff knows only the bribes and its answers
        key = np.where(kind == SMUGGLER, (items + 1) * radix ** (depth_end + 1) + history, history)
        key[depth == 0] = 0
        pay = np.zeros((k, 2))
        caught = inspect & (items > 0)
        # huge parameters overflow to inf: the game's validation names the terminal, no warning
        with np.errstate(over="ignore", invalid="ignore"):
            pay[:, 0] = np.where(
                inspect, np.where(caught, -items * item_penalty, sheriff_penalty), items * item_value - bribe
            )
            pay[:, 1] = np.where(inspect, np.where(caught, items * item_penalty, -sheriff_penalty), bribe)

        def children(rows: np.ndarray, cols_: np.ndarray) -> tuple[State, np.ndarray]:
            d = depth[rows]
            first = d == 0
            offers = (d % 2 == 1) & ~first
            answers = (d % 2 == 0) & ~first
            child = {
                "depth": d + 1,
                "items": np.where(first, cols_, items[rows]),
                "history": np.where(first, 0, history[rows] * radix + cols_ + 1),
                "bribe": np.where(offers, cols_, bribe[rows]),
                "inspect": np.where(answers, cols_ == 1, inspect[rows]),
            }
            return child, np.ones(rows.shape[0])

        def describe(r: int) -> str:
            moves_made, h = [], int(history[r])
            while h:
                moves_made.append(h % radix - 1)
                h //= radix
            moves_made.reverse()
            words = [
                f"bribe {m}" if i % 2 == 0 else ("will inspect" if m else "will not inspect")
                for i, m in enumerate(moves_made)
            ]
            seen = [f"{items[r]} items"] if kind[r] == SMUGGLER and depth[r] > 0 else []
            return ", ".join(seen + words) or "start"

        def infoset_labels(rows: np.ndarray) -> list[str]:
            return [describe(int(r)) for r in rows]

        def action_labels(rows: np.ndarray, cols_: np.ndarray) -> list[str]:
            labels = []
            for r, c in zip(rows.tolist(), cols_.tolist()):
                if depth[r] == 0:
                    labels.append(f"load {c}")
                elif kind[r] == SMUGGLER:
                    labels.append(f"bribe {c}")
                else:
                    labels.append("inspect" if c else "pass")
            return labels

        return Expansion(kind, moves, children, key, infoset_labels, action_labels, pay)

    root = {
        "depth": np.zeros(1, dtype=np.int64),
        "items": np.zeros(1, dtype=np.int64),
        "history": np.zeros(1, dtype=np.int64),
        "bribe": np.zeros(1, dtype=np.int64),
        "inspect": np.zeros(1, dtype=bool),
    }
    title = f"Sheriff ({max_items} items, bribes to {max_bribe}, {rounds} rounds)"
    return grow(root, expand, player_names=("Smuggler", "Sheriff"), title=title)


__all__ = ["sheriff"]
