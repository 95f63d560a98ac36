"""Abstractions of finite-signal games: signals grouped into buckets, strategies lifted back.

:func:`uniform_buckets` groups consecutive signals (weakest to strongest) into buckets of
equal size, as in Figure 2 of Ganzfried and Sandholm, "Computing equilibria by
incorporating qualitative models" (2010). The abstract game deals buckets with the summed
probabilities and settles a showdown between buckets by the original game's odds (two
cards of one bucket win, tie and lose as often as in the original game), so its
payoffs are expectations. A strategy of the abstract game is played in the original game
by giving every signal its bucket's strategy (:meth:`Abstraction.lift`).

GameShrink (Gilpin and Sandholm, "Lossless abstraction of imperfect information games",
J. ACM 2007) is the lossless counterpart for games with ordered signals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from .bayesian import FiniteSignalGame
from .efg import segment_ranges
from .errors import GameError

if TYPE_CHECKING:
    from .sequence import SequenceForm


@dataclass
class Abstraction:
    """An abstract game, its original, and each player's signal -> bucket map."""

    game: FiniteSignalGame
    original: FiniteSignalGame
    buckets: tuple[np.ndarray, np.ndarray]

    def lift(self, sigmas: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Plan strategies of the abstract game, played in the original game."""
        return [np.asarray(sigmas[p])[self.buckets[p]] for p in (0, 1)]

    def lift_matrix(self, p: int, original_sf: SequenceForm, abstract_sf: SequenceForm) -> sp.csr_matrix:
        """Matrix L with ``r_original = L r_abstract`` for player ``p``'s realization plans:
        each sequence of the original game (signal, betting node, action) copies the
        sequence (its signal's bucket, same node, same action) of the abstract game. The
        sequence forms must be of the games' ``to_extensive()``; the map goes through
        their integer lift maps. Returns a 0/1 sparse matrix (original x abstract sequences)."""
        full_ps, abs_ps = original_sf.players[p], abstract_sf.players[p]
        full = self.original.lift_map(original_sf.game)
        abstract = self.game.lift_map(abstract_sf.game)
        # abstract local information set of every (bucket, node)
        table = np.full((self.game.sizes[p], self.game.tree.num_nodes), -1, dtype=np.int64)
        ga = np.asarray(abs_ps.infoset_global, dtype=np.int64)
        table[abstract.signal[ga], abstract.node[ga]] = np.arange(ga.shape[0])
        gf = np.asarray(full_ps.infoset_global, dtype=np.int64)
        j = table[self.buckets[p][full.signal[gf]], full.node[gf]]
        if np.any(j < 0):
            bad = int(gf[np.flatnonzero(j < 0)[0]])
            raise GameError(f"{original_sf.game.infoset_label(bad)} has no information set in the abstract game")
        na = np.asarray(full_ps.infoset_num_actions, dtype=np.int64)
        rows = np.concatenate([[0], segment_ranges(full_ps.infoset_first_sequence, na)])
        cols = np.concatenate([[0], segment_ranges(abs_ps.infoset_first_sequence[j], na)])
        shape = (full_ps.num_sequences, abs_ps.num_sequences)
        return sp.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=shape)


def uniform_buckets(game: FiniteSignalGame, buckets: int, odds: str = "exact") -> Abstraction:
    """Group each player's signals, weakest first, into ``buckets`` consecutive buckets of
    (as nearly as possible) equal size.

    ``odds="exact"``: the abstract game deals buckets with their true joint probabilities
    and pays a showdown's expectation under the original odds. ``odds="ordered"``
    (ordered games only): the abstract game is the same game with one signal per bucket,
    buckets ranked like their signals and dealt like the original signals (for G_n: the
    abstraction of G_n into b buckets is G_b), which is the coarser model of a "bucketed"
    game where two players never hold the same bucket.
    """
    n1, n2 = game.sizes
    if not (1 <= buckets <= min(n1, n2)):
        raise GameError(f"buckets must be between 1 and {min(n1, n2)}, not {buckets}")
    maps, names = [], []
    for p, n in enumerate((n1, n2)):
        parts = np.array_split(np.arange(n), buckets)
        m = np.empty(n, dtype=np.int64)
        for b, part in enumerate(parts):
            m[part] = b
        maps.append(m)
        names.append(
            tuple(
                f"{game.names[p][part[0]]}-{game.names[p][part[-1]]}" if len(part) > 1 else game.names[p][part[0]]
                for part in parts
            )
        )
    if odds == "ordered":
        if not game.ordered:
            raise GameError("odds='ordered' needs a game whose showdown is decided by signal order")
        if game.deal == "joint":
            raise GameError("odds='ordered' keeps marginals only; a joint deal needs odds='exact'")
        pmf = tuple(np.bincount(maps[p], weights=game.pmf[p], minlength=buckets) for p in (0, 1))
        if game.deal == "without_replacement":
            pmf = (np.full(buckets, 1.0 / buckets),) * 2
        abstract = FiniteSignalGame(
            game.tree,
            pmf=pmf,
            winner=game.winner,
            deal=game.deal,
            names=tuple(names),
            title=f"{game.title} as {buckets} ordered buckets",
        )
        return Abstraction(abstract, game, (maps[0], maps[1]))
    if odds != "exact":
        raise GameError(f"odds must be 'exact' or 'ordered', not '{odds}'")
    onehot = [sp.csr_matrix((np.ones(n), (np.arange(n), maps[p])), shape=(n, buckets)) for p, n in enumerate((n1, n2))]
    masses = tuple(np.asarray(onehot[0].T @ m @ onehot[1]) for m in game.dense_masses())
    abstract = FiniteSignalGame(
        game.tree, masses=masses, names=tuple(names), title=f"{game.title} in {buckets} buckets"
    )
    return Abstraction(abstract, game, (maps[0], maps[1]))


__all__ = ["Abstraction", "uniform_buckets"]
