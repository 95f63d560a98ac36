"""Random two-player zero-sum games with perfect recall, for property tests.

Information sets are formed by an observation bucket plus the player's own history, so
recall is perfect by construction while several nodes share an information set.
"""

from __future__ import annotations

import numpy as np

import equilibria


def random_game(
    seed: int, max_depth: int = 4, buckets: int = 2, general_sum: bool = False, players: int = 2
) -> equilibria.ExtensiveGame:
    """A random tree: chance at the root, depth >= 3, integer payoffs, zero-sum unless
    ``general_sum`` (then every other player's payoff is drawn on its own; more than two
    ``players`` are always general-sum)."""
    rng = np.random.default_rng(seed)
    general_sum = general_sum or players > 2
    b = equilibria.GameBuilder([f"P{i + 1}" for i in range(players)], title=f"random {seed}")
    actions_of: dict[tuple, int] = {}

    def grow(node, depth, own_history, chance_left):
        must_continue = depth < 3
        if not must_continue and (depth >= max_depth or rng.random() < 0.25):
            u = int(rng.integers(-5, 6))
            others = [int(v) for v in rng.integers(-5, 6, size=players - 1)] if general_sum else [-u]
            b.terminal(node, [u, *others])
            return
        if chance_left and rng.random() < 0.3 and depth > 0:
            k = int(rng.integers(2, 4))
            weights = rng.integers(1, 5, size=k)
            probs = [f"{int(w)}/{int(weights.sum())}" for w in weights]
            kids = b.chance(node, [(f"c{i}", p) for i, p in enumerate(probs)])
            for kid in kids:
                grow(kid, depth + 1, own_history, False)
            return
        player = int(rng.integers(0, players))
        key = (player, own_history[player], int(rng.integers(0, buckets)))
        n_actions = actions_of.setdefault(key, int(rng.integers(2, 4)))
        name = f"{key[0]}|{'.'.join(map(str, key[1]))}|{key[2]}"
        kids = b.decision(node, player, name, [f"a{i}" for i in range(n_actions)])
        for a, kid in enumerate(kids):
            hist = list(own_history)
            hist[player] = own_history[player] + (name, a)
            grow(kid, depth + 1, tuple(hist), chance_left)

    kids = b.chance(b.root, [("x", "1/3"), ("y", "2/3")])
    for kid in kids:
        grow(kid, 1, ((),) * players, True)
    return b.build()
