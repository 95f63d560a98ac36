"""Liar's dice with one die each, by OpenSpiel's rules.

Each player rolls one die of `sides` faces and sees only their own. Players take turns
bidding a quantity and a face ("at least q dice show f"), each bid higher than the last
(quantity first, then face); instead of bidding, a player may call the last bid a lie.
The highest face is wild. If the bid holds, the caller loses one; otherwise the bidder
does.
"""

PLAYERS = ("Player 1", "Player 2")
TITLE = "Liar's dice"


def rules(g, sides=6):
    dice = []
    for p in (0, 1):
        die = g.chance(range(1, sides + 1), label=f"the die of {PLAYERS[p]}")
        g.reveal(p, ("die", die))
        dice.append(die)
    bids = [(q, f) for q in (1, 2) for f in range(1, sides + 1)]  # in increasing order
    names = [f"{q}-{f}" for q, f in bids]
    last, bidder = -1, 1
    while True:
        player = 1 - bidder
        options = names[last + 1 :] + ["Liar"] if last >= 0 else names
        choice = g.choose(player, options)
        if choice == "Liar":
            quantity, face = bids[last]
            shown = sum(1 for d in dice if d == face or d == sides)
            loser = player if shown >= quantity else bidder
            return g.outcome([-1, 1] if loser == 0 else [1, -1])
        last += options.index(choice) + 1
        bidder = player
