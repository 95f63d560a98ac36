"""A restricted game of a two-player zero-sum sequence form, as the double-oracle algorithm
of Bošanský, Kiekintveld, Lisý and Pěchouček ("An exact double-oracle algorithm for
zero-sum extensive-form games with imperfect information", 2014) grows it.

Each player keeps a set of its sequences, closed under prefixes. An information set with
at least one kept action is in the restricted game with those actions; one with none is
played by a default action (its first), so every kept sequence stands for itself followed
by the default play below it. :class:`Restriction` maps each of the player's sequences to
the kept sequence it belongs to (its *owner*), one numpy step per level of the treeplex:
a kept sequence owns itself, and the default action of an information set outside the
restricted game belongs to the owner of the set's parent sequence. A restricted
realization plan ``r`` is then the full plan ``r[owner]`` (zero where no owner), which
satisfies the full game's constraints; the restricted payoff matrix sums the full one over
owners, terminal by terminal.

The restricted LP is player 1's sequence-form LP of the restricted game
(:func:`~equilibria.formulations.sequence_form_lp.saddle_point_lp`): its size is that of
the kept sequences and restricted information sets, whatever the full game's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..models.sequence import SequenceForm
from ..models.treeplex import Treeplex
from .linear_program import LinearProgram
from .sequence_form_lp import saddle_point_lp


@dataclass
class Restriction:
    """One player's kept sequences (``kept``, a boolean per sequence) and what follows from
    them: the owner of each sequence (index into the kept ones, -1 for none) and the
    information sets in the restricted game (``restricted``, a boolean per set)."""

    treeplex: Treeplex
    kept: np.ndarray

    def __post_init__(self) -> None:
        self.kept = np.asarray(self.kept, dtype=bool).copy()
        self.kept[0] = True  # the empty sequence
        self._derive()

    def _derive(self) -> None:
        """The kept sequences' indices, each sequence's owner and the restricted sets."""
        tp = self.treeplex
        self.index = np.flatnonzero(self.kept)
        owner = np.full(tp.num_sequences, -1, dtype=np.int64)
        owner[self.index] = np.arange(self.index.shape[0])
        restricted = np.zeros(tp.num_infosets, dtype=bool)
        for lv in tp.levels:
            if not lv.sequences.size:
                continue
            here = np.add.reduceat(self.kept[lv.sequences].astype(np.int64), lv.offsets) > 0
            restricted[lv.infosets] = here
            outside = lv.infosets[~here]
            # the default (first) action of a set outside the restricted game continues its parent
            owner[tp.first_sequence[outside]] = owner[tp.parent_sequence[outside]]
        self.owner = owner
        self.restricted = restricted

    @classmethod
    def empty(cls, treeplex: Treeplex) -> Restriction:
        """The empty sequence alone: every information set played by its default action."""
        kept = np.zeros(treeplex.num_sequences, dtype=bool)
        kept[0] = True
        return cls(treeplex, kept)

    @property
    def size(self) -> int:
        """Kept sequences, the empty one included."""
        return int(self.index.shape[0])

    def grow(self, plan: np.ndarray) -> int:
        """Keep every sequence ``plan`` (a full realization plan) reaches; returns how many
        were new. A plan's support is closed under prefixes, so the kept set stays so."""
        new = (np.asarray(plan) > 0) & ~self.kept
        count = int(new.sum())
        if count:
            self.kept |= new
            self._derive()
        return count

    def full_plan(self, restricted_plan: np.ndarray) -> np.ndarray:
        """The full realization plan of a restricted one: each sequence weighs what its
        owner weighs (the default play below kept sequences), zero without an owner."""
        r = np.asarray(restricted_plan, dtype=np.float64)
        return np.where(self.owner >= 0, r[np.maximum(self.owner, 0)], 0.0)

    def constraints(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """``E r = e`` of the restricted treeplex: the empty sequence weighs 1, and each
        restricted information set's kept actions add up to its parent sequence."""
        tp = self.treeplex
        sets = np.flatnonzero(self.restricted)
        row_of = np.full(tp.num_infosets, -1, dtype=np.int64)
        row_of[sets] = 1 + np.arange(sets.shape[0])
        kept = self.index[1:]  # non-empty kept sequences
        infoset = tp.sequence_infoset[kept - 1]
        rows = np.concatenate([[0], row_of[infoset], row_of[sets]])
        cols = np.concatenate([[0], self.owner[kept], self.owner[tp.parent_sequence[sets]]])
        vals = np.concatenate([[1.0], np.ones(kept.shape[0]), -np.ones(sets.shape[0])])
        shape = (1 + sets.shape[0], self.size)
        rhs = np.zeros(shape[0])
        rhs[0] = 1.0
        return sp.csr_matrix((vals, (rows, cols)), shape=shape), rhs


def restricted_payoff(sf: SequenceForm, restrictions: tuple[Restriction, Restriction]) -> sp.csr_matrix:
    """Player 1's payoff matrix of the restricted game: every terminal whose two sequences
    have owners adds its chance-weighted payoff at the pair of owners."""
    s = sf.terminal_sequences
    rows = restrictions[0].owner[s[:, 0]]
    cols = restrictions[1].owner[s[:, 1]]
    keep = (rows >= 0) & (cols >= 0)
    vals = (sf.terminal_chance * sf.terminal_payoffs[:, 0])[keep]
    shape = (restrictions[0].size, restrictions[1].size)
    return sp.csr_matrix((vals, (rows[keep], cols[keep])), shape=shape)


def restricted_lp(sf: SequenceForm, restrictions: tuple[Restriction, Restriction]) -> LinearProgram:
    """Player 1's sequence-form LP of the restricted game: maximise the value player 2's
    best response within the restricted game leaves; the duals of its ``best_response``
    rows are player 2's restricted plan."""
    E1, e1 = restrictions[0].constraints()
    E2, _ = restrictions[1].constraints()
    A = restricted_payoff(sf, restrictions)
    mat = sp.bmat([[E1, None], [A.T, -E2.T]], format="csc")
    return saddle_point_lp(mat, e1, E1.shape[1], E2.shape[0], E2.shape[1], 0, name="restricted_sequence_form_lp")


__all__ = ["Restriction", "restricted_lp", "restricted_payoff"]
