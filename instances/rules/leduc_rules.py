"""Leduc hold'em: one private card each, one board card, two betting rounds.

As in Southey et al., "Bayes' bluff: opponent modelling in poker", 2005.

A deck of `ranks` ranks in `suits` suits (six cards by default). Each player antes one
chip and is dealt one private card. Two betting rounds follow, the first with bets and
raises of 2, the second of 4, at most a bet and one raise per round; player 1 acts first
in both. Between them one card is turned face up on the board. At the showdown a player
whose card pairs the board wins; otherwise the higher rank wins; equal ranks split.
"""

from functools import cache

PLAYERS = ("Player 1", "Player 2")
TITLE = "Leduc hold'em"


@cache
def cards(ranks, suits):
    """The deck as (rank, suit) pairs, lowest rank first, and each card's name."""
    deck = tuple((r, s) for r in range(ranks) for s in range(suits))
    names = {(r, s): "23456789TJQKA"[13 - ranks + r] + ("shdc"[s] if suits > 1 else "") for r, s in deck}
    return deck, names


def rules(g, ranks=3, suits=2):
    deck, name = cards(ranks, suits)
    hands = []
    for p in (0, 1):
        card = g.chance([c for c in deck if c not in hands], label=f"the card of {PLAYERS[p]}", names=name)
        g.reveal(p, ("card", name[card]))
        hands.append(card)
    pot = [1, 1]
    if not betting(g, pot, 2):
        return
    board = g.chance([c for c in deck if c not in hands], label="the board card", names=name)
    g.reveal(g.everyone, ("board", name[board]))
    if not betting(g, pot, 4):
        return
    strength = [rank + (ranks if rank == board[0] else 0) for rank, _ in hands]
    if strength[0] == strength[1]:
        g.outcome([0, 0])
    else:
        winner = 0 if strength[0] > strength[1] else 1
        g.outcome([pot[1], -pot[1]] if winner == 0 else [-pot[0], pot[0]])


def betting(g, pot, size, max_raises=2):
    """One betting round; False when a player folded (the play is over)."""
    player, raises, checks = 0, 0, 0
    while True:
        facing = pot[player] < pot[1 - player]
        if facing:
            options = ["fold", "call", "raise"] if raises < max_raises else ["fold", "call"]
        else:
            options = ["check", "bet"] if raises < max_raises else ["check"]
        action = g.choose(player, options)
        if action == "fold":
            g.outcome([-pot[0], pot[0]] if player == 0 else [pot[1], -pot[1]])
            return False
        if action == "call":
            pot[player] = pot[1 - player]
            return True
        if action == "check":
            checks += 1
            if checks == 2:
                return True
        else:
            pot[player] = pot[1 - player] + size
            raises += 1
        player = 1 - player
