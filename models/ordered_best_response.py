"""Exact best responses in the full game of an :class:`~equilibria.models.ordered.OrderedGame`
without its game tree, for strategies of any abstraction of it.

The full tree of Rhode Island hold'em has billions of nodes, but it is the betting
template (1,199 nodes) times the cards. A best response is computed on the template, one
array per template node: at a node of round ``r`` the array is indexed by the public
cards dealt so far (a base-``D`` code of the ``r`` board cards, ``D**r`` rows) and a
private card (``D`` columns). Going down, the opponent's reach is multiplied by its
strategy at the class of its view in the abstraction; going up, the responder's values
are maximised per (board, own card), which is the responder's information set, and
summed over the card a public deal adds. At a showdown the opponent's reach is summed
over weaker, tied and stronger hands per board by sorting the hands once per board, so
a terminal costs ``O(D**r * D)`` whatever the number of deals below it. This is the
public-tree best response of Johanson, Waugh, Bowling and Zinkevich, "Accelerating best
response calculation in large extensive games" (2011), with the card removal of one
private card per player.

:func:`ordered_certificate` returns the same :class:`~equilibria.models.best_response.Exploitability`
as :func:`~equilibria.models.best_response.certify` on the lifted strategies in the full
tree (checked to 1e-9 on every deck whose tree is built in the tests), for decks whose
tree is far too large to build.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from math import perm

import numpy as np

from .array_ops import usable_cores
from .best_response import Exploitability
from .efg import CHANCE, TERMINAL
from .errors import GameError
from .filtered import FilteredGame


def _digits(codes: np.ndarray, r: int, D: int) -> np.ndarray:
    """The ``r`` cards of each board code (first dealt first), shape (codes, r)."""
    if r == 0:
        return np.zeros((codes.shape[0], 0), dtype=np.int64)
    return np.stack([(codes // D ** (r - 1 - k)) % D for k in range(r)], axis=1)


class _Boards:
    """Per round ``r``: which (board code, card) cells are deals, and the class of each
    player's view there."""

    def __init__(self, fg: FilteredGame):
        game, filt = fg.game, fg.filter
        space = filt.space
        D, R = game.deck, game.rounds
        self.D = D
        self.valid: list[np.ndarray] = []
        self.classes: list[list[np.ndarray]] = [[], []]
        cards = np.arange(D)
        for r in range(R):
            codes = np.arange(D**r, dtype=np.int64)
            digits = _digits(codes, r, D)
            distinct = np.ones(codes.shape[0], dtype=bool)
            for a in range(r):
                for b in range(a + 1, r):
                    distinct &= digits[:, a] != digits[:, b]
            on_board = (digits[:, :, None] == cards[None, None, :]).any(axis=1)
            valid = distinct[:, None] & ~on_board
            self.valid.append(valid)
            view = cards[None, :] * D**r + codes[:, None]  # SignalSpace's code: own card, then the board
            for i in (0, 1):
                known = space.view_codes[i][r]
                pos = np.minimum(np.searchsorted(known, view), known.shape[0] - 1)
                ok = valid & (known[pos] == view)
                if not np.array_equal(ok, valid):
                    raise GameError(f"the signal space of '{game.name}' lacks views of round {r + 1}")
                self.classes[i].append(np.where(valid, filt.classes[i][r][pos], 0))
        # the last round's hands, ranked per board: strength of every (board, card) cell
        last = R - 1
        codes = np.arange(D**last, dtype=np.int64)
        board = _digits(codes, last, D)
        own = np.broadcast_to(cards[None, :], (codes.shape[0], D))
        valid = self.valid[last]
        strength = np.full((codes.shape[0], D), -1, dtype=np.int64)
        rows, cols = np.nonzero(valid)
        strength[rows, cols] = np.asarray(game.strength(own[rows, cols], board[rows]), dtype=np.int64)
        _, dense = np.unique(strength, return_inverse=True)
        dense = dense.reshape(strength.shape) + 1  # -1 (no deal) stays the weakest
        self.order = np.argsort(dense, axis=1, kind="stable")
        ranked = np.take_along_axis(dense, self.order, axis=1)
        span = int(dense.max()) + 2
        flat = (ranked + np.arange(codes.shape[0])[:, None] * span).ravel()
        query = (dense + np.arange(codes.shape[0])[:, None] * span).ravel()
        start = np.arange(codes.shape[0])[:, None] * D
        # per cell: how many of the board's cards rank below it, and at most equal to it
        self.below = np.searchsorted(flat, query, side="left").reshape(dense.shape) - start
        self.up_to = np.searchsorted(flat, query, side="right").reshape(dense.shape) - start


class _Pass:
    """One walk of the betting template for ``responder``: best response (``best``) or
    the responder's own strategy, against the other player's."""

    def __init__(self, fg: FilteredGame, boards: _Boards, behaviors: Sequence[np.ndarray], responder: int, best: bool):
        self.fg, self.b, self.i, self.best = fg, boards, responder, best
        self.t = fg.game.betting
        self.behaviors = [np.asarray(x, dtype=np.float64) for x in behaviors]
        self.payoff = self.t.payoff
        D = fg.game.deck
        self.weight = [1.0 / perm(D, r + 2) for r in range(fg.game.rounds)]

    def _strategy(self, p: int, v: int, r: int) -> np.ndarray:
        """Player ``p``'s action probabilities at template node ``v`` per (board, card)."""
        ps = self.fg.sequence_form.players[p]
        infoset = self.fg.infoset_index[p][v] + self.b.classes[p][r]
        first = np.asarray(ps.infoset_first_sequence)[infoset]
        na = len(self.t.children[v])
        return self.behaviors[p][first[..., None] + np.arange(na)]

    def value(self, v: int, reach: np.ndarray, r: int) -> np.ndarray:
        """The responder's value per (board, own card) below node ``v``, the opponent's
        reach to it being ``reach`` (chance included at the terminals)."""
        kind = int(self.t.kind[v])
        if not reach.any():
            return np.zeros_like(reach)
        if kind == TERMINAL:
            return self._terminal(v, reach, r)
        kids = self.t.children[v]
        if kind == CHANCE:
            if not self.t.public[v]:  # the private cards: dealt in every column already
                return self.value(kids[0], reach, r)
            D, valid = self.b.D, self.b.valid[r + 1]
            below = self.value(kids[0], np.repeat(reach, D, axis=0) * valid, r + 1) * valid
            return below.reshape(reach.shape[0], D, D).sum(axis=1)
        if kind != self.i:
            probs = self._strategy(kind, v, r)
            total = np.zeros_like(reach)
            for a, kid in enumerate(kids):
                total += self.value(kid, reach * probs[..., a], r)
            return total
        values = [self.value(kid, reach, r) for kid in kids]
        if self.best:
            return np.maximum.reduce(values)
        probs = self._strategy(self.i, v, r)
        return sum((probs[..., a] * val for a, val in enumerate(values)), np.zeros_like(reach))

    def _terminal(self, v: int, reach: np.ndarray, r: int) -> np.ndarray:
        pay = self.payoff[v, :, self.i] * self.weight[r]  # (responder's hand wins, tie, loses)
        if self.i == 1:
            pay = pay[::-1]  # outcomes are named from player 1's side
        total = reach.sum(axis=1, keepdims=True)
        if self.t.folder[v] >= 0:  # a fold: the same payoff against every opponent card but the own
            return pay[0] * (total - reach)
        if r != self.fg.game.rounds - 1:
            raise GameError(f"betting history '{self.t.history[v]}' reaches a showdown before the last round")
        ranked = np.take_along_axis(reach, self.b.order, axis=1)
        cumulative = np.concatenate([np.zeros((reach.shape[0], 1)), np.cumsum(ranked, axis=1)], axis=1)
        weaker = np.take_along_axis(cumulative, self.b.below, axis=1)
        up_to = np.take_along_axis(cumulative, self.b.up_to, axis=1)
        tied = up_to - weaker - reach  # the own card is no opponent card
        return pay[0] * weaker + pay[1] * tied + pay[2] * (total - up_to)

    def run(self) -> float:
        D = self.b.D
        return float(self.value(0, np.ones((1, D)) * self.b.valid[0], 0).sum())


def ordered_certificate(fg: FilteredGame, behaviors: Sequence[np.ndarray]) -> Exploitability:
    """The certificate of the abstract strategies ``behaviors`` (one array per player over
    ``fg.sequence_form``'s sequences) played in the full game of ``fg.game``: both
    players' exact best-response values there, their payoffs, NashConv and
    exploitability, as :func:`~equilibria.models.best_response.certify` computes them on
    the lifted strategies, without building the game tree."""
    sf = fg.sequence_form
    if len(behaviors) != 2:
        raise GameError(f"a profile for 2 players has {len(behaviors)} strategies")
    for p, b in enumerate(behaviors):
        b = np.asarray(b)
        if b.shape != (sf.players[p].num_sequences,):
            raise GameError(
                f"player {p + 1}'s strategy has shape {b.shape}; the game has {sf.players[p].num_sequences} sequences"
            )
        if not np.all(np.isfinite(b)) or np.any(b < -1e-9):
            raise GameError(f"player {p + 1}'s strategy has negative or non-finite probabilities")
    boards = _Boards(fg)
    # four independent walks; their numpy work releases the GIL, so they share the cores
    passes = [_Pass(fg, boards, behaviors, i, best) for best in (False, True) for i in (0, 1)]
    with ThreadPoolExecutor(min(len(passes), usable_cores())) as pool:
        walked = list(pool.map(_Pass.run, passes))
    pay, br = np.array(walked[:2]), np.array(walked[2:])
    gaps = np.maximum(br - pay, 0.0)  # a negative gap is rounding
    nash_conv = float(gaps.sum())
    return Exploitability(exploitability=nash_conv / 2, nash_conv=nash_conv, payoffs=pay, best_response_values=br)


__all__ = ["ordered_certificate"]
