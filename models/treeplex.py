"""One player's strategy polytope (treeplex) as arrays, shared by every algorithm: the
first-order solvers, best responses, strategy conversions and certificates.

Information sets are grouped by own depth once (:attr:`Treeplex.levels`, cached); every
operation is one array step per level over all the information sets of that level.
:meth:`Treeplex.on` places the index arrays on another kind of array
(:mod:`~equilibria.models.array_ops`: torch tensors on a device), where the same sweeps run
as a :class:`PlacedTreeplex`; the treeplex's own methods are those sweeps on numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .array_ops import NUMPY, ArrayOps
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

    @cached_property
    def _numpy(self) -> PlacedTreeplex:
        return PlacedTreeplex(self, NUMPY)

    def on(self, ops: ArrayOps) -> PlacedTreeplex:
        """This treeplex with its index arrays moved to ``ops``'s kind of array (made once
        per solver: the sweeps then run there)."""
        return self._numpy if ops is NUMPY else PlacedTreeplex(self, ops)

    def realization(self, behavior: np.ndarray) -> np.ndarray:
        """The realization plan of a behaviour strategy (top-down, one step per level)."""
        return self._numpy.realization(behavior)

    def behavior(self, plan: np.ndarray) -> np.ndarray:
        """The behaviour strategy of a realization plan: each information set's action
        weights (negative ones, solver noise, as zero) divided by their sum, uniform where
        that sum is at most :data:`UNREACHED` (play never arrives there)."""
        return self._numpy.behavior(plan)

    def expected_values(self, behavior: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Counterfactual values under ``behavior``: ``values`` gives each sequence the
        value of the terminals it ends at; returns (per sequence: that plus the values of
        the information sets below it, per information set: the expectation over its
        actions). One bottom-up step per level."""
        return self._numpy.expected_values(behavior, values)

    def best_value(self, values: np.ndarray) -> float:
        """``max x'values`` over the realization plans (pure ones attain it)."""
        return self._numpy.best_value(values)

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


@dataclass(frozen=True)
class _PlacedLevel:
    """A level's index arrays on one kind of array (see :class:`_Level`)."""

    infosets: Any
    sequences: Any
    offsets: Any
    owner: Any
    parent_entry: Any  # parent sequence of each entry of ``sequences``
    parents: Any
    parent_of: Any
    size: int  # number of information sets
    parent_count: int


class PlacedTreeplex:
    """A :class:`Treeplex`'s sweeps on one kind of array (:class:`~.array_ops.ArrayOps`):
    numpy, or torch tensors on a device. Vectors in and out are of that kind."""

    def __init__(self, treeplex: Treeplex, ops: ArrayOps):
        self.treeplex, self.ops = treeplex, ops
        self.num_sequences, self.num_infosets = treeplex.num_sequences, treeplex.num_infosets
        put = ops.indices
        self.levels = [
            _PlacedLevel(
                infosets=put(lv.infosets),
                sequences=put(lv.sequences),
                offsets=put(lv.offsets),
                owner=put(lv.owner),
                parent_entry=put(lv.parent[lv.owner]),
                parents=put(lv.parents),
                parent_of=put(lv.parent_of),
                size=int(lv.infosets.shape[0]),
                parent_count=int(lv.parents.shape[0]),
            )
            for lv in treeplex.levels
            if lv.sequences.size
        ]
        self.first_offsets = put(treeplex.first_sequence - 1)
        self.sequence_infoset = put(treeplex.sequence_infoset)
        self._uniform = ops.vector(treeplex.uniform())
        # the empty sequence's 1, kept where the arrays are: a Python 1.0 stored into a
        # GPU array is a copy from the host, which a recorded CUDA graph cannot hold
        self._one = ops.vector([1.0])

    def uniform(self) -> Any:
        """The behaviour strategy playing every action with equal probability."""
        return self.ops.vector(self._uniform)

    def action_totals(self, values: Any) -> Any:
        """Per information set, the sum of ``values`` (one per non-empty sequence) over
        its actions."""
        return self.ops.segment_sum(values, self.first_offsets, self.sequence_infoset, self.num_infosets)

    def realization(self, behavior: Any) -> Any:
        """:meth:`Treeplex.realization`."""
        x = self.ops.vector(behavior)
        x[:1] = self._one
        for lv in self.levels:
            x[lv.sequences] *= x[lv.parent_entry]
        return x

    def behavior(self, plan: Any) -> Any:
        """:meth:`Treeplex.behavior`."""
        ops = self.ops
        r = ops.positive(ops.vector(plan))
        b = self.uniform()
        if self.num_infosets == 0:
            return b
        totals = self.action_totals(r[1:])[self.sequence_infoset]
        ops.divide(r[1:], totals, out=b[1:], where=totals > UNREACHED)
        return b

    def expected_values(self, behavior: Any, values: Any) -> tuple[Any, Any]:
        """:meth:`Treeplex.expected_values`."""
        ops = self.ops
        v = ops.vector(values)
        info = ops.zeros(self.num_infosets)
        for lv in reversed(self.levels):
            iv = ops.segment_sum(behavior[lv.sequences] * v[lv.sequences], lv.offsets, lv.owner, lv.size)
            info[lv.infosets] = iv
            v[lv.parents] += ops.grouped_sum(lv.parent_of, iv, lv.parent_count)
        return v, info

    def best_value(self, values: Any) -> float:
        """:meth:`Treeplex.best_value`."""
        ops = self.ops
        v = ops.vector(values)
        for lv in reversed(self.levels):
            best = ops.segment_max(v[lv.sequences], lv.offsets, lv.owner, lv.size)
            v[lv.parents] += ops.grouped_sum(lv.parent_of, best, lv.parent_count)
        return float(v[0])


__all__ = ["UNREACHED", "PlacedTreeplex", "Treeplex"]
