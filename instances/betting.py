"""Betting trees of named games: limit poker rounds, Kuhn poker, one street, a river endgame.

All are :class:`equilibria.models.betting.BettingTree` objects. :func:`limit_betting` is
the template the poker generators expand over every deal and that games with ordered
signals abstract; the others are the public trees of the signal games of
:mod:`equilibria.instances.bayesian_games` (Ganzfried and Sandholm, "Computing
equilibria by incorporating qualitative models", 2010).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models.betting import BettingTree


def limit_betting(ante: float, raise_sizes: Sequence[float], max_raises: Sequence[int]) -> BettingTree:
    """Limit poker: deal both private cards, then one betting round per raise size, a
    board card before every round after the first; player 1 acts first in every round.

    Round ``r`` allows a bet and raises of ``raise_sizes[r]`` up to ``max_raises[r]`` in
    all. Histories use ``c`` (check or call), ``r`` (bet or raise), ``f`` (fold) and ``/``
    between rounds, e.g. ``"rc/cr"``. Nodes are numbered in preorder.
    """
    raise_sizes, max_raises = list(raise_sizes), list(max_raises)
    t = BettingTree(separator="")

    def act(node: int, r: int, player: int, contrib: tuple[float, ...], raises: int, facing: bool, checks: int) -> None:
        t.decision(node, player)
        other = 1 - player
        if facing:
            options = [("fold", "f"), ("call", "c")]
            if raises < max_raises[r]:
                options.append(("raise", "r"))
        else:
            options = [("check", "c")]
            if raises < max_raises[r]:
                options.append(("bet" if raises == 0 else "raise", "r"))
        for label, token in options:
            child = t.action(node, label, token)
            if token == "f":
                t.poker_terminal(child, contrib, folder=player)
            elif token == "c" and (facing or checks == 1):
                c = list(contrib)
                c[player] = c[other]
                after_round(child, r, tuple(c))
            elif token == "c":
                act(child, r, other, contrib, raises, False, checks + 1)
            else:
                c = list(contrib)
                c[player] = c[other] + raise_sizes[r]
                act(child, r, other, tuple(c), raises + 1, True, checks)

    def after_round(node: int, r: int, contrib: tuple[float, ...]) -> None:
        if r + 1 == len(raise_sizes):
            t.poker_terminal(node, contrib)  # showdown
            return
        board = t.deal(node, 2 + r, public=True, mark="/")
        act(board, r + 1, 0, contrib, 0, False, 0)

    start = (float(ante), float(ante))
    second = t.deal(0, 0)
    first_bet = t.deal(second, 1)
    act(first_bet, 0, 0, start, 0, False, 0)
    return t.finish()


def kuhn_betting(ante: float = 1.0, bet: float = 1.0, players: int = 2, rake: float = 0.0) -> BettingTree:
    """Kuhn poker's betting for ``players`` players (as in OpenSpiel's ``kuhn_poker``):
    each player in turn checks or bets while nobody has bet; after a bet every later
    player, in turn around the table up to the bettor, calls or folds. Nobody betting is
    a showdown among all; otherwise among the bettor and the callers.

    With two players: check or bet; after a check, check or bet; a bet is called or
    folded. Nodes are numbered the same way for every number of players (all children
    of a decision, then its subtrees in order). ``rake``: the fraction of every pot the
    house keeps (:class:`~equilibria.models.betting.BettingTree`)."""
    t = BettingTree(num_players=players, rake=rake)

    def opening(node: int, p: int) -> None:
        check, bet_ = t.decision(node, p, ["check", "bet"])
        if p + 1 == players:
            t.poker_terminal(check, [ante] * players)
        else:
            opening(check, p + 1)
        contrib = [ante] * players
        contrib[p] += bet
        respond(bet_, (p + 1) % players, p, contrib, frozenset())

    def respond(node: int, p: int, bettor: int, contrib: list[float], folded: frozenset[int]) -> None:
        fold, call = t.decision(node, p, ["fold", "call"])
        called = list(contrib)
        called[p] += bet
        after = (p + 1) % players
        for child, chips, out in ((fold, contrib, folded | {p}), (call, called, folded)):
            if after == bettor:
                t.poker_terminal(child, chips, folder=out)
            else:
                respond(child, after, bettor, chips, out)

    opening(0, 0)
    return t.finish()


def one_street_betting(pot: float, rake: float = 0.0) -> BettingTree:
    """One street (Ganzfried and Sandholm 2010, section 3): player 1 checks (showdown) or
    bets 1; player 2 calls or folds. ``rake``: the fraction of the pot the house keeps."""
    half = pot / 2.0
    t = BettingTree(rake=rake)
    check, bet = t.decision(0, 0, ["check", "bet"])
    t.poker_terminal(check, (half, half))
    fold, call = t.decision(bet, 1, ["fold", "call"])
    t.poker_terminal(fold, (half + 1, half), folder=1)
    t.poker_terminal(call, (half + 1, half + 1))
    return t.finish()


def river_betting(pot: float, rake: float = 0.0) -> BettingTree:
    """A river endgame (Ganzfried and Sandholm 2010, section 8.2): check/bet 1; after a
    check, check or bet; a bet is folded, called or raised by 1 (after a check only folded
    or called); a raise is called or folded. ``rake``: the fraction of the pot the house
    keeps."""
    half = pot / 2.0
    t = BettingTree(rake=rake)
    check, bet = t.decision(0, 0, ["check", "bet"])
    check2, bet2 = t.decision(check, 1, ["check", "bet"])
    t.poker_terminal(check2, (half, half))
    fold, call = t.decision(bet2, 0, ["fold", "call"])
    t.poker_terminal(fold, (half, half + 1), folder=0)
    t.poker_terminal(call, (half + 1, half + 1))
    fold, call, raise_ = t.decision(bet, 1, ["fold", "call", "raise"])
    t.poker_terminal(fold, (half + 1, half), folder=1)
    t.poker_terminal(call, (half + 1, half + 1))
    fold, call = t.decision(raise_, 0, ["fold", "call"])
    t.poker_terminal(fold, (half + 1, half + 2), folder=0)
    t.poker_terminal(call, (half + 2, half + 2))
    return t.finish()


__all__ = ["limit_betting", "kuhn_betting", "one_street_betting", "river_betting"]
