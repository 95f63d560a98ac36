"""Limit poker with one private card each and optional board cards: Kuhn, G_n, Leduc.

The betting is a small public tree (a template independent of the deck), built once in
Python; the game tree is the template expanded over every deal by :func:`grow`, with
arrays only. Players see card identities (rank and suit), so suits are part of the
information sets; GameShrink (Gilpin and Sandholm, "Lossless abstraction of imperfect
information games", J. ACM 2007) is what merges them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..models.betting import PokerViews, decode_view_keys, encode_view_keys
from ..models.efg import CHANCE, TERMINAL, ExtensiveGame
from ..models.errors import GameError
from ._grow import Expansion, State, grow
from .betting import limit_betting
from .hands import Strength, pair_or_high_card, three_card


def rank_names(ranks: int) -> list[str]:
    """Names of ``ranks`` card ranks, lowest first: ``2..A`` for up to 13, else ``1..n``."""
    if ranks <= 12:
        return list("23456789TJQK"[12 - ranks :])
    if ranks == 13:
        return list("23456789TJQKA")
    return [str(i + 1) for i in range(ranks)]


def default_card_names(ranks: int, suits: int) -> list[str]:
    """Names of the cards ``0 .. ranks*suits - 1`` (rank ``card // suits``): the rank,
    then the suit (``s h d c``) when there is more than one suit."""
    ranks_ = rank_names(ranks)
    suit_names = list("shdc") if suits <= 4 else [str(s + 1) for s in range(suits)]
    return [ranks_[c // suits] + (suit_names[c % suits] if suits > 1 else "") for c in range(ranks * suits)]


def poker_game(
    ranks: int,
    suits: int = 1,
    ante: float = 1.0,
    raise_sizes: Sequence[float] = (1.0,),
    max_raises: Sequence[int] = (1,),
    title: str = "",
    card_names: list[str] | None = None,
    strength: Strength | None = None,
) -> ExtensiveGame:
    """Two-player limit poker: one private card each, one board card per extra round.

    Cards ``0 .. ranks*suits - 1`` have rank ``card // suits``. At showdown the higher
    ``strength(private, board)`` wins (default: a private card pairing the board, then the
    higher rank; see :mod:`equilibria.instances.hands`); equal strength splits the pot.
    """
    rounds = len(raise_sizes)
    deck = ranks * suits
    if ranks < 1 or suits < 1 or deck < 2 + (rounds - 1):
        raise GameError(f"a deck of {ranks} ranks x {suits} suits is too small for this game")
    t = limit_betting(ante, raise_sizes, max_raises)
    kind = t.kind.astype(np.int32)
    slot = np.asarray(t.deal_slot)
    width = max(deck, max(len(c) for c in t.children))
    child_tpl = np.full((t.num_nodes, width), -1, dtype=np.int64)
    for i, ch in enumerate(t.children):
        if t.player[i] == CHANCE:
            child_tpl[i, :] = ch[0]
        else:
            child_tpl[i, : len(ch)] = ch
    num_actions = t.num_actions
    max_actions = int(num_actions.max())
    contrib = np.array(t.contrib, dtype=float)
    folder = np.array(t.folder)
    n_slots = 2 + rounds - 1
    if card_names is None:
        card_names = default_card_names(ranks, suits)
    card_names_arr = np.array(card_names, dtype=object)

    if strength is None:
        strength = pair_or_high_card(ranks, suits)

    def expand(state: State) -> Expansion:
        tpl = state["tpl"]
        cards = state["cards"]
        k = tpl.shape[0]
        kd = kind[tpl]
        ch = kd == CHANCE
        # a level without deals needs columns for betting actions only
        level_width = width if np.any(ch) else max_actions
        moves = np.zeros((k, level_width), dtype=bool)
        dec = kd >= 0
        moves[dec] = np.arange(level_width)[None, :] < num_actions[tpl[dec], None]
        if np.any(ch):
            used = np.zeros((int(ch.sum()), deck + 1), dtype=bool)
            rows_ch = np.flatnonzero(ch)
            sub = cards[rows_ch]
            np.put_along_axis(used, np.where(sub < 0, deck, sub), True, axis=1)
            moves[rows_ch, :deck] = ~used[:, :deck]
        avail = moves.sum(axis=1)
        # information set: what the mover sees (betting node, own card, board cards),
        # as the integer key that lifting decodes (models.betting.decode_view_keys)
        me = np.maximum(kd, 0)
        key = encode_view_keys(tpl, cards[np.arange(k), me], cards[:, 2:], deck)
        term = kd == TERMINAL
        pay = np.zeros((k, 2))
        if np.any(term):
            c = contrib[tpl]
            f = folder[tpl]
            board = cards[:, 2:]
            diff = np.sign(strength(cards[:, 0], board) - strength(cards[:, 1], board))
            p1 = np.where(f == 0, -c[:, 0], np.where(f == 1, c[:, 1], diff * c[:, 1]))
            pay[:, 0] = p1
            pay[:, 1] = -p1
        pay[~term] = 0

        def children(rows: np.ndarray, cols: np.ndarray) -> tuple[State, np.ndarray]:
            new_cards = cards[rows].copy()
            is_deal = kd[rows] == CHANCE
            dr = np.flatnonzero(is_deal)
            new_cards[dr, slot[tpl[rows[dr]]]] = cols[dr]
            new_tpl = child_tpl[tpl[rows], cols]
            prob = 1.0 / avail[rows]
            return {"tpl": new_tpl, "cards": new_cards}, prob

        def infoset_labels(rows: np.ndarray) -> list[str]:
            out = []
            for r in rows:
                p = kd[r]
                board = "".join(card_names_arr[c] for c in cards[r, 2:] if c >= 0)
                out.append(f"{card_names_arr[cards[r, p]]}{'|' + board if board else ''}:{t.history[tpl[r]]}")
            return out

        def action_labels(rows: np.ndarray, cols: np.ndarray) -> list[str]:
            return [t.label[t.children[tpl[r]][c]] for r, c in zip(rows, cols)]

        def chance_labels(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
            return card_names_arr[np.minimum(cols, deck - 1)]  # a deal's column is the card dealt

        return Expansion(kd, moves, children, key, infoset_labels, action_labels, pay, chance_labels)

    root = {"tpl": np.zeros(1, dtype=np.int64), "cards": np.full((1, n_slots), -1, dtype=np.int64)}
    return grow(root, expand, title=title)


def infoset_views(game: ExtensiveGame, deck: int, rounds: int) -> PokerViews:
    """What the mover sees at each information set of a game made by :func:`poker_game`
    with a deck of ``deck`` cards and ``rounds`` betting rounds: integer arrays of the
    betting node, player, own card and board cards (-1 where not dealt), decoded from the
    game's ``infoset_key``."""
    if game.infoset_key is None:
        raise GameError(f"'{game.title}' carries no information-set keys (it was not made by poker_game)")
    return decode_view_keys(game.infoset_key, deck, rounds - 1)


def poker_nodes(ranks: int, suits: int, ante: float, raise_sizes: Sequence[float], max_raises: Sequence[int]) -> int:
    """Nodes of :func:`poker_game`'s tree, counted from the betting tree (nothing is built)."""
    return limit_betting(ante, raise_sizes, max_raises).expanded_nodes(ranks * suits)


def kuhn(players: int = 2) -> ExtensiveGame:
    """Kuhn poker: cards J < Q < K, ante 1, one bet of 1. With ``players`` > 2, OpenSpiel's
    ``kuhn_poker(players=k)`` (cards 1..k + 1): the extensive form of the signal game
    (one chance node deals every card)."""
    from .bayesian_games import check_players, kuhn_signals

    if check_players("kuhn", players) != 2:
        return kuhn_signals(players).finite_game().to_extensive()
    return poker_game(3, 1, 1.0, (1.0,), (1,), title="Kuhn poker")


def generalized_kuhn(cards: int = 3, players: int = 2, suits: int = 1) -> ExtensiveGame:
    """G_n (Ganzfried and Sandholm, "Computing equilibria by incorporating qualitative
    models", 2010, section 8.1): Kuhn poker with cards 1..n. With ``players`` > 2 the
    extensive form of the signal game (one chance node deals every card). ``suits``:
    ranks 1..n, ``suits`` cards of each, dealt from one deck (two players: every card
    dealt separately, as in Leduc hold'em's deck)."""
    from .bayesian_games import check_players, generalized_kuhn_signals

    if check_players("generalized_kuhn", players) != 2:
        return generalized_kuhn_signals(cards, players, suits).finite_game().to_extensive()
    if cards < 2 or suits < 1:
        raise GameError("generalized_kuhn needs at least 2 cards and 1 suit")
    return poker_game(
        cards,
        suits,
        1.0,
        (1.0,),
        (1,),
        title=f"Generalized Kuhn poker G_{cards}" + (f" ({suits} suits)" if suits != 1 else ""),
        card_names=[str(i + 1) for i in range(cards)] if suits == 1 else None,
    )


def rhode_island(ranks: int = 13, suits: int = 4) -> ExtensiveGame:
    """Rhode Island hold'em: ante 5; one private card each; three betting rounds (bets 10,
    20, 20; a bet and at most two raises per round) with a board card before the second
    and the third; the best 3-card hand wins. ``ranks``/``suits`` shrink the deck (the
    full game's tree has about 3 billion nodes: use the ordered-game form instead)."""
    return poker_game(
        ranks,
        suits,
        5.0,
        (10.0, 20.0, 20.0),
        (3, 3, 3),
        title=f"Rhode Island hold'em ({ranks} ranks, {suits} suits)",
        strength=three_card(ranks, suits),
    )


def leduc(ranks: int = 3, suits: int = 2) -> ExtensiveGame:
    """Leduc hold'em: ante 1, raises 2 then 4, at most 2 raises per round, one board card."""
    return poker_game(ranks, suits, 1.0, (2.0, 4.0), (2, 2), title=f"Leduc hold'em ({ranks} ranks, {suits} suits)")
