"""Abstractions of finite-signal games: signals grouped into buckets, strategies lifted back.

:func:`uniform_buckets` groups consecutive signals (weakest to strongest) into buckets of
equal size, as in seed 001's Figure 2. The abstract game deals buckets with the summed
probabilities and settles a showdown between buckets by the original game's odds (two
cards of one bucket win, tie and lose as often as in the original game), so its
payoffs are expectations. A strategy of the abstract game is played in the original game
by giving every signal its bucket's strategy (:meth:`Abstraction.lift`).

GameShrink (seed 000) is the lossless counterpart for games with ordered signals.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .bayesian import FiniteSignalGame
from .errors import GameError


@dataclass
class Abstraction:
    """An abstract game, its original, and each player's signal -> bucket map."""

    game: FiniteSignalGame
    original: FiniteSignalGame
    buckets: tuple[np.ndarray, np.ndarray]

    def lift(self, sigmas) -> list[np.ndarray]:
        """Plan strategies of the abstract game, played in the original game."""
        return [np.asarray(sigmas[p])[self.buckets[p]] for p in (0, 1)]

    def lift_matrix(self, p: int, original_sf, abstract_sf) -> sp.csr_matrix:
        """Matrix L with ``r_original = L r_abstract`` for player ``p``'s realization plans
        (each original sequence "signal:history action" copies its bucket's sequence)."""
        full_ps, abs_ps = original_sf.players[p], abstract_sf.players[p]
        full_labels = original_sf.game.infoset_labels
        abs_index = {str(lbl): k for k, lbl in enumerate(abstract_sf.game.infoset_labels)}
        abs_local = {int(g): i for i, g in enumerate(abs_ps.infoset_global)}
        name_to_signal = {n: s for s, n in enumerate(self.original.names[p])}
        rows, cols = [0], [0]
        for i, g in enumerate(full_ps.infoset_global):
            signal, _, hist = str(full_labels[g]).partition(":")
            bucket = self.buckets[p][name_to_signal[signal]]
            k = abs_index[f"{self.game.names[p][bucket]}:{hist}"]
            j = abs_local[k]
            na = int(full_ps.infoset_num_actions[i])
            rows.extend(full_ps.infoset_first_sequence[i] + np.arange(na))
            cols.extend(abs_ps.infoset_first_sequence[j] + np.arange(na))
        shape = (full_ps.num_sequences, abs_ps.num_sequences)
        return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)


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
        names.append(tuple(
            f"{game.names[p][part[0]]}-{game.names[p][part[-1]]}" if len(part) > 1 else game.names[p][part[0]]
            for part in parts
        ))
    if odds == "ordered":
        if not game.ordered:
            raise GameError("odds='ordered' needs a game whose showdown is decided by signal order")
        pmf = tuple(np.bincount(maps[p], weights=game.pmf[p], minlength=buckets) for p in (0, 1))
        if game.deal == "without_replacement":
            pmf = (np.full(buckets, 1.0 / buckets),) * 2
        abstract = FiniteSignalGame(game.tree, pmf=pmf, winner=game.winner, deal=game.deal,
                                    names=tuple(names), title=f"{game.title} as {buckets} ordered buckets")
        return Abstraction(abstract, game, (maps[0], maps[1]))
    if odds != "exact":
        raise GameError(f"odds must be 'exact' or 'ordered', not '{odds}'")
    onehot = [sp.csr_matrix((np.ones(n), (np.arange(n), maps[p])), shape=(n, buckets))
              for p, n in enumerate((n1, n2))]
    masses = tuple(np.asarray(onehot[0].T @ m @ onehot[1]) for m in game.dense_masses())
    abstract = FiniteSignalGame(game.tree, masses=masses, names=tuple(names),
                                title=f"{game.title} in {buckets} buckets")
    return Abstraction(abstract, game, (maps[0], maps[1]))


__all__ = ["Abstraction", "uniform_buckets"]
