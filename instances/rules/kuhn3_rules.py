"""Three-player Kuhn poker, as OpenSpiel's kuhn_poker with players=3.

A deck of four cards 1 < 2 < 3 < 4; one is dealt to each player and one stays hidden.
Each player antes one chip. In turn, each player checks or bets one chip while nobody has
bet; after a bet, each later player in turn (around the table, up to the bettor) calls
or folds. The highest card among the players still in takes the pot.
"""

from itertools import permutations

PLAYERS = ("Player 1", "Player 2", "Player 3")
TITLE = "Three-player Kuhn poker"


def rules(g):
    n = len(PLAYERS)
    deals = list(permutations(range(1, n + 2), n))
    cards = g.chance(deals, label="the deal", names=lambda deal: ", ".join(map(str, deal)))
    for p in range(n):
        g.reveal(p, ("card", cards[p]))
    stake = [1] * n
    bettor = None
    for p in range(n):
        if g.choose(p, ["check", "bet"]) == "bet":
            bettor = p
            stake[p] += 1
            break
    if bettor is not None:
        folded = set()
        for k in range(1, n):
            p = (bettor + k) % n
            if g.choose(p, ["fold", "call"]) == "fold":
                folded.add(p)
            else:
                stake[p] += 1
    else:
        folded = set()
    showdown = [p for p in range(n) if p not in folded]
    winner = max(showdown, key=lambda p: cards[p])
    pot = sum(stake)
    g.outcome([pot - stake[p] if p == winner else -stake[p] for p in range(n)])
