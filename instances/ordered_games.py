"""Poker games as games with ordered signals (seed 000), for GameShrink.

``load_ordered("leduc:ranks=4")`` etc. The same names as the extensive-form instances;
``to_extensive()`` gives exactly the game that ``equilibria.load`` builds.
"""
from __future__ import annotations

from functools import partial

from ..models.errors import GameError
from ..models.ordered import OrderedGame
from .hands import high_card, pair_or_high_card, three_card
from .poker import _betting_template, _rank_names, poker_game


def _card_names(ranks: int, suits: int, names=None) -> list[str]:
    if names is not None:
        return list(names)
    rank_names = _rank_names(ranks)
    suit_names = list("shdc") if suits <= 4 else [str(s + 1) for s in range(suits)]
    return [rank_names[c // suits] + (suit_names[c % suits] if suits > 1 else "") for c in range(ranks * suits)]


def _ordered(name, ranks, suits, ante, raise_sizes, max_raises, strength, names=None) -> OrderedGame:
    if ranks < 1 or suits < 1 or ranks * suits < 2 + len(raise_sizes) - 1:
        raise GameError(f"a deck of {ranks} ranks x {suits} suits is too small for {name}")
    cards = _card_names(ranks, suits, names)
    factory = partial(poker_game, ranks, suits, ante, tuple(raise_sizes), tuple(max_raises),
                      title=name, card_names=cards, strength=strength)
    return OrderedGame(
        name=name, ranks=ranks, suits=suits, ante=ante, raise_sizes=tuple(raise_sizes),
        max_raises=tuple(max_raises), strength=strength, card_names=cards,
        betting=_betting_template(ante, list(raise_sizes), list(max_raises)), extensive_factory=factory,
    )


def kuhn() -> OrderedGame:
    """Kuhn poker as an ordered game."""
    return _ordered("Kuhn poker", 3, 1, 1.0, (1.0,), (1,), high_card(1))


def generalized_kuhn(cards: int = 3) -> OrderedGame:
    """G_n as an ordered game (every card distinct: nothing to merge)."""
    if cards < 2:
        raise GameError("generalized_kuhn needs at least 2 cards")
    return _ordered(f"Generalized Kuhn poker G_{cards}", cards, 1, 1.0, (1.0,), (1,), high_card(1),
                    names=[str(i + 1) for i in range(cards)])


def leduc(ranks: int = 3, suits: int = 2) -> OrderedGame:
    """Leduc hold'em as an ordered game."""
    return _ordered(f"Leduc hold'em ({ranks} ranks, {suits} suits)", ranks, suits, 1.0, (2.0, 4.0), (2, 2),
                    pair_or_high_card(ranks, suits))


def rhode_island(ranks: int = 13, suits: int = 4) -> OrderedGame:
    """Rhode Island hold'em as an ordered game (see instances.poker.rhode_island)."""
    return _ordered(f"Rhode Island hold'em ({ranks} ranks, {suits} suits)", ranks, suits, 5.0,
                    (10.0, 20.0, 20.0), (3, 3, 3), three_card(ranks, suits))




def load_ordered(spec: str):
    """An ordered game by ``"name:key=value,..."`` (the game registry's ordered view)."""
    from .registry import describe

    return describe(spec).view("ordered")


__all__ = ["load_ordered", "kuhn", "generalized_kuhn", "leduc", "rhode_island"]
