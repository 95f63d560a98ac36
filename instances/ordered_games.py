"""Poker games as games with ordered signals (Gilpin and Sandholm, "Lossless abstraction
of imperfect information games", J. ACM 2007), for GameShrink.

``load_ordered("leduc:ranks=4")`` etc. The same names as the extensive-form instances;
``to_extensive()`` gives exactly the game that ``equilibria.load`` builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ..models.errors import GameError
from ..models.ordered import OrderedGame
from .betting import limit_betting
from .hands import Strength, high_card, pair_or_high_card, three_card
from .poker import default_card_names, poker_game


def ordered_poker(
    name: str,
    ranks: int,
    suits: int,
    ante: float,
    raise_sizes: Sequence[float],
    max_raises: Sequence[int],
    strength: Strength,
    names: Sequence[str] | None = None,
) -> OrderedGame:
    """Limit poker with one private card each and a board card before every round after
    the first, as an ordered game; ``strength(private, board)`` ranks hands and ``names``
    names the cards (default: rank then suit). ``to_extensive()`` builds the same game with
    :func:`equilibria.instances.poker.poker_game`. Returns the game (nothing is expanded)."""
    if ranks < 1 or suits < 1 or ranks * suits < 2 + len(raise_sizes) - 1:
        raise GameError(f"a deck of {ranks} ranks x {suits} suits is too small for {name}")
    cards = list(names) if names is not None else default_card_names(ranks, suits)
    if len(cards) != ranks * suits:
        raise GameError(f"{name}: {len(cards)} card names for a deck of {ranks * suits} cards")
    factory = partial(
        poker_game,
        ranks,
        suits,
        ante,
        tuple(raise_sizes),
        tuple(max_raises),
        title=name,
        card_names=cards,
        strength=strength,
    )
    return OrderedGame(
        name=name,
        ranks=ranks,
        suits=suits,
        ante=ante,
        raise_sizes=tuple(raise_sizes),
        max_raises=tuple(max_raises),
        strength=strength,
        card_names=cards,
        betting=limit_betting(ante, raise_sizes, max_raises),
        extensive_factory=factory,
    )


def kuhn() -> OrderedGame:
    """Kuhn poker as an ordered game."""
    return ordered_poker("Kuhn poker", 3, 1, 1.0, (1.0,), (1,), high_card(1))


def generalized_kuhn(cards: int = 3) -> OrderedGame:
    """G_n as an ordered game (every card distinct: nothing to merge)."""
    if cards < 2:
        raise GameError("generalized_kuhn needs at least 2 cards")
    return ordered_poker(
        f"Generalized Kuhn poker G_{cards}",
        cards,
        1,
        1.0,
        (1.0,),
        (1,),
        high_card(1),
        names=[str(i + 1) for i in range(cards)],
    )


def leduc(ranks: int = 3, suits: int = 2) -> OrderedGame:
    """Leduc hold'em as an ordered game."""
    return ordered_poker(
        f"Leduc hold'em ({ranks} ranks, {suits} suits)",
        ranks,
        suits,
        1.0,
        (2.0, 4.0),
        (2, 2),
        pair_or_high_card(ranks, suits),
    )


def rhode_island(ranks: int = 13, suits: int = 4) -> OrderedGame:
    """Rhode Island hold'em as an ordered game (see instances.poker.rhode_island)."""
    return ordered_poker(
        f"Rhode Island hold'em ({ranks} ranks, {suits} suits)",
        ranks,
        suits,
        5.0,
        (10.0, 20.0, 20.0),
        (3, 3, 3),
        three_card(ranks, suits),
    )


__all__ = ["ordered_poker", "kuhn", "generalized_kuhn", "leduc", "rhode_island"]
