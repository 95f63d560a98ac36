"""The sequence form of an extensive-form game, built in one vectorised pass.

For each player ``p``: sequences are numbered 0 (the empty sequence) and
``1 + action_offset[I] + a`` for action ``a`` at the player's ``I``-th information set.
The constraint matrix ``E_p`` has one row for the empty sequence (``r(empty) = 1``) and one
per information set (``sum_a r(I a) - r(parent sequence of I) = 0``).

Payoffs are kept as sparse tensor entries, one per terminal node: the tuple of the
players' sequences leading to it, its chance reach probability and its payoffs. For two
players :meth:`SequenceForm.payoff_matrix` sums them into the sparse matrix
``A_p[s_1, s_2]`` of chance-weighted payoffs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import cast

import numpy as np
import scipy.sparse as sp

from .array_ops import PayoffEntries
from .efg import ExtensiveGame
from .treeplex import Treeplex


@dataclass
class PlayerSequences:
    """One player's sequences and information sets (local numbering)."""

    player: int
    infoset_global: np.ndarray  # local information set -> global index in the game
    infoset_num_actions: np.ndarray
    infoset_first_sequence: np.ndarray  # sequence of action 0 at the information set
    infoset_parent_sequence: np.ndarray  # sequence leading to the information set
    infoset_depth: np.ndarray  # own actions taken before reaching it
    sequence_infoset: np.ndarray  # sequence -> local information set (-1 for empty)
    sequence_action: np.ndarray  # sequence -> action index (-1 for empty)

    @property
    def num_infosets(self) -> int:
        """Number of this player's information sets."""
        return int(self.infoset_global.shape[0])

    @property
    def num_sequences(self) -> int:
        """Number of sequences, the empty one included."""
        return int(self.sequence_infoset.shape[0])

    @cached_property
    def treeplex(self) -> Treeplex:
        """The player's strategy polytope, with its levels cached: what strategy
        conversions, best responses and the first-order solvers work on."""
        return Treeplex(
            self.infoset_num_actions, self.infoset_first_sequence, self.infoset_parent_sequence, self.infoset_depth
        )

    @cached_property
    def constraint_matrix(self) -> sp.csr_matrix:
        """``E`` of shape (1 + infosets, sequences): ``E r = e`` with ``e = (1, 0, ..., 0)``."""
        m, n = self.num_infosets, self.num_sequences
        seqs = np.arange(1, n, dtype=np.int64)
        rows = np.concatenate([[0], 1 + self.sequence_infoset[1:], 1 + np.arange(m)])
        cols = np.concatenate([[0], seqs, self.infoset_parent_sequence])
        vals = np.concatenate([[1.0], np.ones(n - 1), -np.ones(m)])
        return sp.csr_matrix((vals, (rows, cols)), shape=(1 + m, n))

    @property
    def constraint_rhs(self) -> np.ndarray:
        """``e``: 1 for the empty-sequence row, 0 for every information-set row."""
        e = np.zeros(1 + self.num_infosets)
        e[0] = 1.0
        return e


def build_player_sequences(
    p: int, infoset_global: np.ndarray, num_actions: np.ndarray, parent_sequence: np.ndarray
) -> PlayerSequences:
    """PlayerSequences from each information set's number of actions and parent sequence
    (information sets numbered so that sequences follow them in order)."""
    ks = np.asarray(infoset_global, dtype=np.int64)
    na = np.asarray(num_actions, dtype=np.int64)
    first = 1 + np.cumsum(na) - na
    parent_seq = np.asarray(parent_sequence, dtype=np.int64)
    n = 1 + int(na.sum())
    seq_infoset = np.full(n, -1, dtype=np.int64)
    seq_infoset[1:] = np.repeat(np.arange(ks.shape[0]), na)
    seq_action = np.full(n, -1, dtype=np.int64)
    seq_action[1:] = np.arange(n - 1) - np.repeat(first - 1, na)
    # own depth, one sweep per level of the player's information-set forest
    depth = np.zeros(ks.shape[0], dtype=np.int64)
    parent_infoset = seq_infoset[parent_seq]
    has_parent = parent_infoset >= 0
    for _ in range(ks.shape[0] + 1):
        new = np.where(has_parent, depth[np.maximum(parent_infoset, 0)] + 1, 0)
        if np.array_equal(new, depth):
            break
        depth = new
    return PlayerSequences(
        player=p,
        infoset_global=ks,
        infoset_num_actions=na,
        infoset_first_sequence=first,
        infoset_parent_sequence=parent_seq,
        infoset_depth=depth,
        sequence_infoset=seq_infoset,
        sequence_action=seq_action,
    )


class SequenceForm:
    """Sequences, constraint matrices and chance-weighted payoff entries of a game."""

    def __init__(self, game: ExtensiveGame):
        self.game = game
        paths = game.path_summary()
        self._terminal_nodes: np.ndarray | None = paths.terminal_nodes
        self.terminal_sequences = paths.terminal_sequences
        self.terminal_chance = paths.terminal_chance
        self.terminal_payoffs = game.terminal_payoffs()
        self.players = [self._player_sequences(game, p, paths.infoset_parent_sequence) for p in range(game.num_players)]

    @staticmethod
    def _player_sequences(game: ExtensiveGame, p: int, infoset_parent_sequence: np.ndarray) -> PlayerSequences:
        ks = np.flatnonzero(game.infoset_player == p)
        return build_player_sequences(p, ks, game.infoset_num_actions[ks], infoset_parent_sequence[ks])

    @classmethod
    def from_parts(
        cls,
        players: list[PlayerSequences],
        terminal_sequences: np.ndarray,
        terminal_chance: np.ndarray,
        terminal_payoffs: np.ndarray,
        game: ExtensiveGame | None = None,
    ) -> SequenceForm:
        """A sequence form given directly: per player its sequences, and the payoff entries
        (each with the players' sequences, a chance weight and payoffs). Used for games
        never expanded into a tree, such as abstractions built from their signal classes.
        ``terminal_nodes`` are the entries' indices."""
        sf = cls.__new__(cls)
        # None for a sequence form given by parts; only the helpers that name or lift
        # through the tree read it
        sf.game = cast(ExtensiveGame, game)
        sf.players = list(players)
        sf.terminal_sequences = np.asarray(terminal_sequences)
        sf.terminal_chance = np.asarray(terminal_chance, dtype=np.float64)
        sf.terminal_payoffs = np.asarray(terminal_payoffs)  # float32 where payoffs fit exactly
        sf._terminal_nodes = None  # the entries' indices, made when asked for
        return sf

    @property
    def terminal_nodes(self) -> np.ndarray:
        """The tree node of each payoff entry (for a sequence form given by parts, the
        entry's index: only messages naming an entry read it, so it is not kept for the
        hundred million entries of a shrunk Rhode Island hold'em)."""
        if self._terminal_nodes is None:
            return np.arange(self.terminal_sequences.shape[0])
        return self._terminal_nodes

    @property
    def num_players(self) -> int:
        """Number of players."""
        return len(self.players)

    def lp_size(self) -> dict:
        """Rows and columns of player 1's sequence-form LP, counted without building it:
        ``1 + I_1 + S_2`` rows and ``1 + I_2 + S_1`` columns (two players)."""
        p1, p2 = self.players
        return {"rows": 1 + p1.num_infosets + p2.num_sequences, "columns": 1 + p2.num_infosets + p1.num_sequences}

    def payoff_entries(self, p: int) -> PayoffEntries:
        """Player ``p``'s chance-weighted payoff matrix as its entries, one per terminal,
        duplicates not yet summed (two players): what :meth:`payoff_matrix` converts, and
        what a GPU converts itself (:meth:`~.array_ops.ArrayOps.payoff_products`)."""
        if self.num_players != 2:
            raise ValueError("payoff_matrix is defined for two-player games")
        s = self.terminal_sequences
        shape = (self.players[0].num_sequences, self.players[1].num_sequences)
        # contiguous indices of the narrowest type, so that nothing converts them again
        # (memory decides here: a shrunk Rhode Island has 1.2e8 entries)
        index = np.int32 if max(shape) < 2**31 else np.int64
        return PayoffEntries(
            rows=np.ascontiguousarray(s[:, 0], dtype=index),
            columns=np.ascontiguousarray(s[:, 1], dtype=index),
            values=self.terminal_chance * self.terminal_payoffs[:, p],
            shape=shape,
        )

    def payoff_matrix(self, p: int) -> sp.csr_matrix:
        """Player ``p``'s chance-weighted payoff matrix ``A_p[s_1, s_2]`` (two players)."""
        return self.payoff_entries(p).csr()

    def sequence_labels(self, p: int) -> list[str]:
        """Readable names ``infoset:action`` of player ``p``'s sequences (index 0 is 'empty')."""
        ps = self.players[p]
        g = self.game
        labels = ["(empty)"]
        for i in range(ps.num_infosets):
            k = int(ps.infoset_global[i])
            name = g.infoset_labels[k] if g.infoset_labels is not None else f"I{i + 1}"
            for a in range(int(ps.infoset_num_actions[i])):
                labels.append(f"{name}:{g.action_label(k, a)}")
        return labels
