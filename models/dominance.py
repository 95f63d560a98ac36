"""Actions that no equilibrium needs: iterated elimination of actions dominated at every
node of their information set.

Action ``a`` at an information set ``I`` of player ``p`` is dominated by ``a'`` when, at
every node of ``I``, the best payoff ``p`` can get anywhere below ``a`` is strictly less
than the worst payoff anywhere below ``a'`` (over every continuation of every player and
chance). A pure strategy that plays ``a`` at ``I`` is then weakly dominated by the one
that plays ``a'`` there instead, so every Nash equilibrium of the game with ``a`` removed
is an equilibrium of the full game (a deviation to a removed strategy earns no more than
the deviation to its dominator, against any profile). Removing actions and recomputing
the payoff ranges below each node repeats this for the reduced game (iterated weak
dominance keeps that property, and the reduced game has an equilibrium by Nash's theorem).

The test is conservative (ranges over all terminals, not expectations), cheap (one
vectorised pass over the tree per round, a Python loop only over pairs of action
indices), and usually removes the actions a person would call obviously bad: folding
the best hand, calling with the worst. The MIP Nash programs forbid the removed actions,
which removes their binaries from the search.
"""

from __future__ import annotations

import numpy as np

from .efg import TERMINAL, ExtensiveGame
from .sequence import SequenceForm


def dominated_actions(game: ExtensiveGame, *, max_rounds: int = 50) -> np.ndarray:
    """Boolean array over the game's actions (``infoset_action_start[k] + a``): True for
    the actions removed by iterated elimination of nodewise-dominated actions."""
    n = game.num_nodes
    players = game.num_players
    removed = np.zeros(int(game.infoset_num_actions.sum()), dtype=bool)
    child = np.arange(1, n)
    parent = game.parent[1:]
    from_decision = game.player[parent] >= 0
    edge_action = np.full(n - 1, -1, dtype=np.int64)
    edge_action[from_decision] = (
        game.infoset_action_start[game.infoset[parent[from_decision]]] + game.action[child[from_decision]]
    )
    terminals = np.flatnonzero(game.player == TERMINAL)
    payoffs = game.terminal_payoffs()

    # the children of each decision node by action index, for the pairwise tests
    decision = np.flatnonzero(game.player >= 0)
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[decision] = np.arange(decision.shape[0])
    max_actions = int(game.infoset_num_actions.max(initial=0))
    table = np.full((decision.shape[0], max(max_actions, 1)), -1, dtype=np.int64)
    table[row_of[parent[from_decision]], game.action[child[from_decision]]] = child[from_decision]
    owner = game.player[decision].astype(np.int64)
    node_infoset = game.infoset[decision].astype(np.int64)
    start = game.infoset_action_start[node_infoset]
    count = game.infoset_num_actions[node_infoset]
    num_infosets = game.num_infosets

    for _ in range(max_rounds):
        low = np.full((n, players), np.inf)
        high = np.full((n, players), -np.inf)
        low[terminals] = payoffs
        high[terminals] = payoffs
        live = edge_action < 0
        live[~live] = ~removed[edge_action[~live]]
        for level_start, level_stop in reversed(list(game.levels())):
            if level_start == 0:
                break
            kids = np.arange(level_start, level_stop)
            kids = kids[live[kids - 1]]
            np.minimum.at(low, game.parent[kids], low[kids])
            np.maximum.at(high, game.parent[kids], high[kids])
        found = np.zeros_like(removed)
        for a in range(max_actions):
            for better in range(max_actions):
                if a == better:
                    continue
                usable = (a < count) & (better < count)
                usable &= ~removed[np.where(usable, start + a, 0)] & ~removed[np.where(usable, start + better, 0)]
                worse_kid = table[:, a]
                better_kid = table[:, better]
                strictly = np.zeros(decision.shape[0], dtype=bool)
                ok = np.flatnonzero(usable)
                strictly[ok] = high[worse_kid[ok], owner[ok]] < low[better_kid[ok], owner[ok]]
                failures = np.bincount(node_infoset, weights=(~strictly).astype(np.float64), minlength=num_infosets)
                tested = np.bincount(node_infoset, weights=usable.astype(np.float64), minlength=num_infosets)
                hit = np.flatnonzero((failures == 0) & (tested > 0))
                found[game.infoset_action_start[hit] + a] = True
        found &= ~removed
        if not found.any():
            break
        removed |= found
    return removed


def dominated_sequences(game: ExtensiveGame, sequence_form: SequenceForm) -> list[np.ndarray]:
    """Per player, a boolean mask over the sequences that contain an action removed by
    :func:`dominated_actions` (such a sequence has weight 0 in the reduced game)."""
    removed = dominated_actions(game)
    out = []
    for ps in sequence_form.players:
        mask = np.zeros(ps.num_sequences, dtype=bool)
        if ps.num_infosets:
            ks = ps.infoset_global[ps.sequence_infoset[1:]]
            mask[1:] = removed[game.infoset_action_start[ks] + ps.sequence_action[1:]]
            # a sequence through a removed action is removed too, shallowest first
            parent = ps.infoset_parent_sequence[ps.sequence_infoset[1:]]
            depth = ps.infoset_depth[ps.sequence_infoset[1:]]
            for level in np.unique(depth):
                at = 1 + np.flatnonzero(depth == level)
                mask[at] |= mask[parent[at - 1]]
        out.append(mask)
    return out


__all__ = ["dominated_actions", "dominated_sequences"]
