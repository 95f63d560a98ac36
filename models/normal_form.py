"""Games in normal (strategic) form: n players, each with a finite set of pure strategies,
and a payoff tensor.

``payoffs`` has shape ``(n, m_1, ..., m_n)``: ``payoffs[p, s_1, ..., s_n]`` is player
``p``'s payoff when each player ``q`` plays pure strategy ``s_q``. A mixed profile is a
list of probability vectors, one per player. Everything here is numpy over the tensor:
a player's pure-strategy values against the others' mixes are the tensor contracted with
every other player's vector.

:meth:`NormalFormGame.to_extensive` is the same game as an extensive form in which the
players move in turn without seeing each other's moves (one information set each), so
the sequence-form best response (:func:`equilibria.models.best_response.certify`)
certifies normal-form answers too, and ``.efg`` export and every extensive-form tool
apply.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .efg import TERMINAL, ExtensiveGame
from .errors import GameError


class NormalFormGame:
    """A finite game in normal form (see the module docstring).

    ``strategy_names[p]`` names player ``p``'s pure strategies (default ``"1"``,
    ``"2"``, ...). Construction checks the shape and that every payoff is finite, and
    raises :class:`~equilibria.models.errors.GameError` naming what is wrong.
    """

    def __init__(
        self,
        payoffs: npt.ArrayLike,
        *,
        player_names: Sequence[str] | None = None,
        strategy_names: Sequence[Sequence[str]] | None = None,
        title: str = "",
    ) -> None:
        table = np.asarray(payoffs, dtype=float)
        if table.ndim < 3 or table.shape[0] != table.ndim - 1:
            raise GameError(
                f"a normal-form payoff table has shape (players, strategies of player 1, ...), "
                f"one axis per player; got shape {table.shape}"
            )
        n = table.shape[0]
        for p, m in enumerate(table.shape[1:]):
            if m < 1:
                raise GameError(f"player {p + 1} has no pure strategies")
        bad = np.argwhere(~np.isfinite(table))
        if bad.size:
            p, *cell = bad[0]
            raise GameError(
                f"payoff of player {p + 1} at strategies ({', '.join(str(int(s) + 1) for s in cell)}) is "
                f"{table[tuple(bad[0])]}, not a finite number"
            )
        self.payoffs = table
        self.title = title
        self.player_names = list(player_names) if player_names is not None else [f"Player {p + 1}" for p in range(n)]
        if len(self.player_names) != n:
            raise GameError(f"{len(self.player_names)} player names for {n} players")
        if strategy_names is None:
            strategy_names = [[str(s + 1) for s in range(m)] for m in table.shape[1:]]
        self.strategy_names = [list(names) for names in strategy_names]
        for p, (names, m) in enumerate(zip(self.strategy_names, table.shape[1:])):
            if len(names) != m:
                raise GameError(f"player {p + 1} has {m} strategies but {len(names)} strategy names")

    # ------------------------------------------------------------------ sizes
    @property
    def num_players(self) -> int:
        """Number of players."""
        return int(self.payoffs.shape[0])

    @property
    def num_strategies(self) -> tuple[int, ...]:
        """Pure strategies per player."""
        return tuple(int(m) for m in self.payoffs.shape[1:])

    @property
    def zero_sum(self) -> bool:
        """True when the players' payoffs add up to zero in every cell."""
        from .constant_sum import is_zero_sum

        return is_zero_sum(self.payoffs, axis=0)

    # ------------------------------------------------------------------ profiles
    def strategy_values(self, p: int, profile: Sequence[np.ndarray]) -> np.ndarray:
        """Player ``p``'s expected payoff of each pure strategy against the others' mixes
        in ``profile`` (``profile[p]`` is ignored)."""
        u = self.payoffs[p]
        # contract the last axes first so that the remaining axis numbers stay valid
        for q in range(self.num_players - 1, -1, -1):
            if q != p:
                u = np.tensordot(u, np.asarray(profile[q], dtype=float), axes=([q], [0]))
        return np.asarray(u, dtype=float)

    def expected_payoffs(self, profile: Sequence[np.ndarray]) -> np.ndarray:
        """Every player's expected payoff under the mixed profile."""
        return np.array(
            [float(self.strategy_values(p, profile) @ profile[p]) for p in range(self.num_players)], dtype=float
        )

    def regrets(self, profile: Sequence[np.ndarray]) -> np.ndarray:
        """Each player's regret: the best pure strategy's payoff against the others'
        mixes less the player's payoff (exact; zero for every player at an equilibrium)."""
        return np.array(
            [
                float(self.strategy_values(p, profile).max() - self.strategy_values(p, profile) @ profile[p])
                for p in range(self.num_players)
            ]
        )

    # ------------------------------------------------------------------ extensive form
    def to_extensive(self) -> ExtensiveGame:
        """The game as an extensive form: player 1 moves, then player 2 without seeing
        it, and so on (one information set per player, actions named as strategies);
        a terminal per cell of the table. Nodes are built level by level with numpy."""
        n, ms = self.num_players, self.num_strategies
        level_sizes = [int(np.prod(ms[:p], dtype=np.int64)) for p in range(n + 1)]
        starts = np.concatenate([[0], np.cumsum(level_sizes)])
        total = int(starts[-1])
        parent = np.full(total, -1, dtype=np.int64)
        action = np.full(total, -1, dtype=np.int64)
        player = np.full(total, TERMINAL, dtype=np.int32)
        infoset = np.full(total, -1, dtype=np.int64)
        for p in range(n + 1):
            lo, hi = int(starts[p]), int(starts[p + 1])
            if p < n:
                player[lo:hi] = p
                infoset[lo:hi] = p
            if p > 0:
                index = np.arange(hi - lo)
                parent[lo:hi] = starts[p - 1] + index // ms[p - 1]
                action[lo:hi] = index % ms[p - 1]
        payoffs = np.zeros((total, n))
        # the last level lists the cells with player n's strategy fastest: C order
        payoffs[int(starts[n]) :] = self.payoffs.reshape(n, -1).T
        labels = np.array([name for names in self.strategy_names for name in names], dtype=object)
        return ExtensiveGame.from_arrays(
            parent=parent,
            player=player,
            infoset=infoset,
            action=action,
            chance_prob=np.ones(total),
            payoffs=payoffs,
            infoset_player=np.arange(n),
            infoset_num_actions=np.array(ms),
            player_names=self.player_names,
            infoset_labels=np.array([f"{name}'s choice" for name in self.player_names], dtype=object),
            action_labels=labels,
            title=self.title,
        )

    def behaviors(self, profile: Sequence[np.ndarray], sequence_form) -> list[np.ndarray]:  # noqa: ANN001
        """The mixed ``profile`` as behaviour strategies on ``sequence_form`` (built from
        :meth:`to_extensive`): the empty sequence, then one sequence per strategy."""
        out = []
        for p, ps in enumerate(sequence_form.players):
            b = np.zeros(ps.num_sequences)
            b[0] = 1.0
            first = int(ps.infoset_first_sequence[0])
            b[first : first + self.num_strategies[p]] = profile[p]
            out.append(b)
        return out

    def __repr__(self) -> str:
        shape = " x ".join(str(m) for m in self.num_strategies)
        return f"NormalFormGame({self.title or 'untitled'!r}, {self.num_players} players, {shape})"


__all__ = ["NormalFormGame"]
