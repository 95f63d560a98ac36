"""Vectorised breadth-first generation of game trees from rules written over arrays.

A game's rules are a function ``expand(state)`` that receives the state of every node of
one depth level at once (a dict of equal-length numpy arrays) and returns a
:class:`Expansion`: each node's kind, which children it has (a boolean matrix, one column
per possible move), the children's states, chance probabilities, information-set keys and
terminal payoffs. :func:`grow` applies it level after level and hands the arrays to
:meth:`ExtensiveGame.from_arrays`. No Python object is created per node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..models.efg import CHANCE, TERMINAL, ExtensiveGame, group_ranks

State = dict[str, np.ndarray]


@dataclass
class Expansion:
    """What the rules say about one level of nodes.

    ``player``: kind of each node (``TERMINAL``, ``CHANCE`` or a player index).
    ``moves``: bool matrix (nodes x columns), True where the node has a child for that column;
    children are numbered in column order.
    ``children``: function ``(rows, cols) -> (child state, chance probability)`` for the chosen
    (node, column) pairs; the probability is ignored below decision nodes.
    ``infoset_key``: int64 per node identifying its information set among the player's
    (read at decision nodes only).
    ``infoset_labels``: function ``(rows) -> list[str]`` naming the information sets of the
    given decision nodes.
    ``action_labels``: function ``(rows, cols) -> list[str]`` naming moves.
    ``payoffs``: (nodes x players) payoffs, read at terminals.
    ``chance_labels``: optional function ``(rows, cols) -> str array`` naming chance's
    moves (the cards dealt), read for the children of chance nodes.
    """

    player: np.ndarray
    moves: np.ndarray
    children: Callable[[np.ndarray, np.ndarray], tuple[State, np.ndarray]]
    infoset_key: np.ndarray
    infoset_labels: Callable[[np.ndarray], list[str]]
    action_labels: Callable[[np.ndarray, np.ndarray], list[str]]
    payoffs: np.ndarray
    chance_labels: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None


def grow(
    root: State,
    expand: Callable[[State], Expansion],
    num_players: int = 2,
    player_names: Sequence[str] = ("Player 1", "Player 2"),
    title: str = "",
) -> ExtensiveGame:
    """Generate the whole tree breadth-first and return the validated game.

    The game's ``infoset_key`` holds, per information set, the rules' key times
    ``num_players`` plus the acting player (the integers that tell information sets
    apart), so that callers can map information sets without reading their labels."""
    parents, players, actions, probs, keys, payoff_blocks = [], [], [], [], [], []
    label_keys, label_texts, label_actions = [], [], []
    chance_texts: list[np.ndarray] = [np.zeros(1, dtype=str)]
    named_chance = False
    state = root
    level_parent = np.full(1, -1, dtype=np.int64)
    level_action = np.full(1, -1, dtype=np.int64)
    level_prob = np.ones(1)
    offset = 0
    while True:
        k = level_parent.shape[0]
        ex = expand(state)
        kind = np.asarray(ex.player, dtype=np.int32)
        parents.append(level_parent)
        players.append(kind)
        actions.append(level_action)
        probs.append(level_prob)
        decision = kind >= 0
        key = np.where(decision, np.asarray(ex.infoset_key, dtype=np.int64), -1)
        # information sets are told apart by player as well as key
        keys.append(np.where(decision, key * num_players + np.maximum(kind, 0), -1))
        payoff = np.zeros((k, num_players))
        term = kind == TERMINAL
        payoff[term] = np.asarray(ex.payoffs)[term]
        payoff_blocks.append(payoff)
        # name each information set that first appears on this level
        drows = np.flatnonzero(decision)
        if drows.shape[0]:
            _, first = np.unique(keys[-1][drows], return_index=True)
            reps = drows[np.sort(first)]
            label_keys.append(keys[-1][reps])
            label_texts.extend(ex.infoset_labels(reps))
            moves = np.asarray(ex.moves)[reps]
            rr, cc = np.nonzero(moves)
            label_actions.append((keys[-1][reps[rr]], np.asarray(ex.action_labels(reps[rr], cc), dtype=object)))
        moves = np.asarray(ex.moves) & ~term[:, None]
        rows, cols = np.nonzero(moves)
        if rows.shape[0] == 0:
            break
        state, child_prob = ex.children(rows, cols)
        below_chance = kind[rows] == CHANCE
        texts = np.zeros(rows.shape[0], dtype=str)
        if ex.chance_labels is not None and np.any(below_chance):
            named_chance = True
            texts = np.where(below_chance, np.asarray(ex.chance_labels(rows, cols), dtype=str), "")
        chance_texts.append(texts)
        level_parent = offset + rows
        level_action = group_ranks(rows)
        level_prob = np.where(kind[rows] == CHANCE, child_prob, 1.0)
        offset += k
    parent = np.concatenate(parents)
    player = np.concatenate(players)
    key = np.concatenate(keys)
    dnodes = np.flatnonzero(player >= 0)
    uniq, first, inverse = np.unique(key[dnodes], return_index=True, return_inverse=True)
    # number information sets in order of first appearance in the tree
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    infoset = np.full(parent.shape[0], -1, dtype=np.int64)
    infoset[dnodes] = rank[inverse]
    rep_nodes = dnodes[first[order]]
    counts = np.bincount(parent[1:], minlength=parent.shape[0])
    infoset_player = player[rep_nodes]
    infoset_num_actions = counts[rep_nodes]
    all_label_keys = np.concatenate(label_keys) if label_keys else np.zeros(0, np.int64)
    lk_sorted = np.argsort(all_label_keys, kind="stable")
    pos = lk_sorted[np.searchsorted(all_label_keys[lk_sorted], uniq[order])]
    infoset_labels = np.asarray(label_texts, dtype=str)[pos] if label_texts else None
    if label_actions:
        akeys = np.concatenate([a for a, _ in label_actions])
        atexts = np.concatenate([t for _, t in label_actions])
        # action labels of the first representative of each key, in infoset order
        srt = np.argsort(akeys, kind="stable")
        akeys_s, atexts_s = akeys[srt], atexts[srt]
        starts = np.searchsorted(akeys_s, uniq[order])
        idx = np.repeat(starts, infoset_num_actions) + group_ranks(
            np.repeat(np.arange(order.shape[0]), infoset_num_actions)
        )
        action_labels = np.asarray(atexts_s[idx].tolist(), dtype=str)
    else:
        action_labels = None
    payoffs = np.concatenate(payoff_blocks)
    chance_prob = np.concatenate(probs)
    return ExtensiveGame.from_arrays(
        parent=parent,
        player=player,
        infoset=infoset,
        action=np.concatenate(actions),
        chance_prob=chance_prob,
        payoffs=payoffs,
        infoset_player=infoset_player,
        infoset_num_actions=infoset_num_actions,
        player_names=player_names,
        infoset_labels=infoset_labels,
        action_labels=action_labels,
        infoset_key=uniq[order],
        chance_labels=np.concatenate(chance_texts) if named_chance else None,
        title=title,
    )
