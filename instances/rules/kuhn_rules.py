"""Simplified poker: Kuhn poker with a deck of `cards` cards.

Koller and Pfeffer ("Generating and solving imperfect information games", 1995) describe
it so: each player antes one dollar and is dealt one card; the gambler bets one dollar or
passes; the dealer, having heard, bets or passes; if the gambler passed and the dealer
bet, the gambler may still bet (call) or pass (fold). Both betting or both passing, the
higher card takes the pot; one betting and the other passing, the bettor wins it.
"""

PLAYERS = ("Gambler", "Dealer")
TITLE = "Simplified poker"


def rules(g, cards=3):
    deck = tuple(range(1, cards + 1))
    gambler = g.chance(deck, label="the gambler's card")
    g.reveal("Gambler", ("card", gambler))
    dealer = g.chance(deck[: gambler - 1] + deck[gambler:], label="the dealer's card")
    g.reveal("Dealer", ("card", dealer))
    stake = 1  # what each player has put in the pot

    def showdown():
        g.outcome([stake, -stake] if gambler > dealer else [-stake, stake])

    if g.choose("Gambler", ["check", "bet"]) == "bet":
        if g.choose("Dealer", ["fold", "call"]) == "fold":
            return g.outcome([1, -1])
        stake = 2
        return showdown()
    if g.choose("Dealer", ["check", "bet"]) == "check":
        return showdown()
    if g.choose("Gambler", ["fold", "call"]) == "fold":
        return g.outcome([-1, 1])
    stake = 2
    showdown()
