"""One player's strategy polytope (treeplex) as arrays, shared by every algorithm: the
first-order solvers, best responses, strategy conversions and certificates.

Information sets are grouped by own depth once (:attr:`Treeplex.levels`, cached); every
operation is one numpy step per level over all the information sets of that level.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .efg import segment_ranges

#: An information set whose actions' realization weights add up to at most this is
#: treated as not reached (its behaviour strategy is then uniform).
UNREACHED = 1e-12


@dataclass(frozen=True)
class _Level:
    """The information sets at one own depth, with the indices the sweeps need."""

    infosets: np.ndarray
    sequences: np.ndarray  # their sequences, information set by information set
    offsets: np.ndarray  # where each information set's sequences start in ``sequences``
    owner: np.ndarray  # position in ``infosets`` of each entry of ``sequences``
    parent: np.ndarray  # parent sequence of each information set
    parents: np.ndarray  # distinct parent sequences
    parent_of: np.ndarray  # index into ``parents`` of each information set


@dataclass(frozen=True)
class Treeplex:
    """One player's strategy polytope as arrays: per information set, its number of
    actions, first sequence (sequences of one information set are consecutive), parent
    sequence and own depth. Sequence 0 is the empty sequence."""

    num_actions: np.ndarray
    first_sequence: np.ndarray
    parent_sequence: np.ndarray
    depth: np.ndarray

    @property
    def num_infosets(self) -> int:
        """Number of information sets."""
        return int(self.num_actions.shape[0])

    @property
    def num_sequences(self) -> int:
        """Number of sequences, the empty one included."""
        return 1 + int(self.num_actions.sum())

    @cached_property
    def levels(self) -> list[_Level]:
        """The information sets grouped by own depth, shallowest first."""
        out = []
        for d in range(int(self.depth.max(initial=-1)) + 1):
            ks = np.flatnonzero(self.depth == d)
            na = self.num_actions[ks]
            parent = self.parent_sequence[ks]
            parents, parent_of = np.unique(parent, return_inverse=True)
            out.append(
                _Level(
                    infosets=ks,
                    sequences=segment_ranges(self.first_sequence[ks], na),
                    offsets=np.cumsum(na) - na,
                    owner=np.repeat(np.arange(ks.shape[0]), na),
                    parent=parent,
                    parents=parents,
                    parent_of=parent_of,
                )
            )
        return out

    @cached_property
    def sequence_infoset(self) -> np.ndarray:
        """Information set of each non-empty sequence (index ``s - 1``)."""
        return np.repeat(np.arange(self.num_infosets), self.num_actions)

    def uniform(self) -> np.ndarray:
        """The behaviour strategy playing every action with equal probability."""
        b = np.ones(self.num_sequences)
        b[1:] = 1.0 / self.num_actions[self.sequence_infoset]
        return b

    def realization(self, behavior: np.ndarray) -> np.ndarray:
        """The realization plan of a behaviour strategy (top-down, one step per level)."""
        x = np.array(behavior, dtype=np.float64)
        x[0] = 1.0
        for lv in self.levels:
            x[lv.sequences] *= x[lv.parent][lv.owner]
        return x

    def behavior(self, plan: np.ndarray) -> np.ndarray:
        """The behaviour strategy of a realization plan: each information set's action
        weights (negative ones, solver noise, as zero) divided by their sum, uniform where
        that sum is at most :data:`UNREACHED` (play never arrives there)."""
        r = np.maximum(np.asarray(plan, dtype=np.float64), 0.0)
        b = self.uniform()
        if self.num_infosets == 0:
            return b
        totals = np.add.reduceat(r[1:], self.first_sequence - 1)[self.sequence_infoset]
        reached = totals > UNREACHED
        b[1:][reached] = r[1:][reached] / totals[reached]
        return b

    def expected_values(self, behavior: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Counterfactual values under ``behavior``: ``values`` gives each sequence the
        value of the terminals it ends at; returns (per sequence: that plus the values of
        the information sets below it, per information set: the expectation over its
        actions). One bottom-up step per level."""
        v = np.array(values, dtype=np.float64)
        info = np.zeros(self.num_infosets)
        for lv in reversed(self.levels):
            iv = np.add.reduceat(behavior[lv.sequences] * v[lv.sequences], lv.offsets) if lv.sequences.size else v[:0]
            info[lv.infosets] = iv
            v[lv.parents] += np.bincount(lv.parent_of, weights=iv, minlength=lv.parents.shape[0])
        return v, info

    def best_value(self, values: np.ndarray) -> float:
        """``max x'values`` over the realization plans (pure ones attain it)."""
        v = np.array(values, dtype=np.float64)
        for lv in reversed(self.levels):
            if lv.sequences.size:
                best = np.maximum.reduceat(v[lv.sequences], lv.offsets)
                v[lv.parents] += np.bincount(lv.parent_of, weights=best, minlength=lv.parents.shape[0])
        return float(v[0])

    def best_response(self, values: np.ndarray) -> tuple[float, np.ndarray]:
        """:meth:`best_value` and a pure behaviour strategy attaining it (the first best
        action at ties)."""
        v = np.array(values, dtype=np.float64)
        behavior = np.zeros(self.num_sequences)
        behavior[0] = 1.0
        for lv in reversed(self.levels):
            if not lv.sequences.size:
                continue
            vals = v[lv.sequences]
            best = np.maximum.reduceat(vals, lv.offsets)
            hits = np.flatnonzero(vals == best[lv.owner])
            owners = lv.owner[hits]
            first = hits[np.r_[True, owners[1:] != owners[:-1]]]
            behavior[lv.sequences[first]] = 1.0
            v[lv.parents] += np.bincount(lv.parent_of, weights=best, minlength=lv.parents.shape[0])
        return float(v[0]), behavior


__all__ = ["UNREACHED", "Treeplex"]
