"""Strategies in sequence-form coordinates: realization plans and behaviour strategies.

A behaviour strategy of player ``p`` is a float array indexed like the player's
sequences: entry ``s >= 1`` is the probability of the action of sequence ``s`` at its
information set, and entry 0 (the empty sequence) is 1. A realization plan uses the same
indexing: entry ``s`` is the probability that the player's own moves follow ``s``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .errors import GameError
from .sequence import PlayerSequences, SequenceForm

if TYPE_CHECKING:
    import pandas as pd

    from .efg import ExtensiveGame


def behavior_from_realization(ps: PlayerSequences, r: np.ndarray) -> np.ndarray:
    """Behaviour strategy from a realization plan; uniform where the plan never arrives
    (:meth:`~equilibria.models.treeplex.Treeplex.behavior`)."""
    return ps.treeplex.behavior(r)


def realization_from_behavior(ps: PlayerSequences, b: np.ndarray) -> np.ndarray:
    """Realization plan of a behaviour strategy (one sweep per own depth level)."""
    return ps.treeplex.realization(b)


def counterfactual_reach(sf: SequenceForm, p: int, plans: Sequence[np.ndarray]) -> np.ndarray:
    """Per information set of player ``p``, the probability that chance and the other
    players (playing the realization plans ``plans``) bring play to it: the sum over its
    histories of chance times the others' realization weights. Computed from the terminals
    below each information set, each weighted by ``p``'s uniform continuation from there."""
    ps = sf.players[p]
    uniform = realization_from_behavior(ps, uniform_behavior(ps))
    mass = np.asarray(sf.terminal_chance, dtype=float) * uniform[sf.terminal_sequences[:, p]]
    for q in range(sf.num_players):
        if q != p:
            mass = mass * np.asarray(plans[q], dtype=float)[sf.terminal_sequences[:, q]]
    below = np.bincount(sf.terminal_sequences[:, p], weights=mass, minlength=ps.num_sequences)
    reach = np.zeros(ps.num_infosets)
    for lv in reversed(ps.treeplex.levels):  # deepest first: children feed parents
        totals = np.add.reduceat(below[lv.sequences], lv.offsets) if lv.sequences.size else below[:0]
        np.add.at(below, lv.parent, totals)
        reach[lv.infosets] = totals / uniform[lv.parent]
    return reach


def uniform_behavior(ps: PlayerSequences) -> np.ndarray:
    """The strategy that plays every action of every information set equally often."""
    return ps.treeplex.uniform()


def expected_payoffs(sf: SequenceForm, plans: list[np.ndarray]) -> np.ndarray:
    """Expected payoff of every player when each plays its realization plan."""
    reach = sf.terminal_chance.copy()
    for p, r in enumerate(plans):
        reach *= np.asarray(r)[sf.terminal_sequences[:, p]]
    return reach @ sf.terminal_payoffs


def strategy_table(
    sf: SequenceForm,
    p: int,
    behavior: np.ndarray,
    realization: np.ndarray | None = None,
    labels: tuple[np.ndarray, np.ndarray] | None = None,
) -> pd.DataFrame:
    """A pandas DataFrame with one row per information set and action of player ``p``.

    Columns: ``player`` (1-based), ``infoset``, ``action``, ``probability`` and, when a
    realization plan is given, ``reach`` (the probability that ``p``'s own moves get there).
    Names come from the game's labels, or from ``labels`` (one name per information set of
    ``p``, one per sequence but the empty one) for a sequence form without a game tree.
    """
    import pandas as pd

    ps = sf.players[p]
    g = sf.game
    na = ps.infoset_num_actions
    if labels is not None:
        infoset_names = np.repeat(np.asarray(labels[0]), na)
        action_names = np.asarray(labels[1])
    elif g is None:
        raise GameError("this sequence form has no game tree: give the labels of its information sets and actions")
    else:
        infoset_names, action_names = tree_names(g, ps)
    data = {
        "player": np.full(ps.num_sequences - 1, p + 1),
        "infoset": infoset_names,
        "action": action_names,
        "probability": np.asarray(behavior)[1:],
    }
    if realization is not None:
        data["reach"] = np.asarray(realization)[np.repeat(ps.infoset_parent_sequence, na)]
    return pd.DataFrame(data)


def tree_names(g: ExtensiveGame, ps: PlayerSequences) -> tuple[np.ndarray, np.ndarray]:
    """Information-set and action names of a player's sequences (all but the empty one),
    from the game tree's labels, or numbered where it has none: the ``infoset`` and
    ``action`` columns of :func:`strategy_table`."""
    na = ps.infoset_num_actions
    ks = np.repeat(ps.infoset_global, na)
    if g.infoset_labels is not None:
        infoset_names = np.asarray(g.infoset_labels)[ks]
    else:
        infoset_names = np.char.add("I", (np.repeat(np.arange(ps.num_infosets), na) + 1).astype(str))
    if g.action_labels is not None:
        action_names = np.asarray(g.action_labels)[g.infoset_action_start[ks] + ps.sequence_action[1:]]
    else:
        action_names = (ps.sequence_action[1:] + 1).astype(str)
    return infoset_names, action_names
