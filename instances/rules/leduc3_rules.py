"""Three-player Leduc hold'em, as OpenSpiel's leduc_poker with players=3.

A deck of `ranks` ranks in `suits` suits (OpenSpiel: four ranks, two suits; smaller decks
need ranks * suits >= 4). Each player antes one chip and is dealt one private card. Two
betting rounds, bets and raises of 2 then 4, at most two raises per round; in each round
the players act in seat order, skipping those who folded; a player may fold only when
facing a bet. A round ends when every player still in has acted since the last raise
and matched it. Between the rounds one card is turned face up. The last player left
takes the pot; otherwise a private card pairing the board wins, else the highest rank;
equal hands split the pot.
"""

PLAYERS = ("Player 1", "Player 2", "Player 3")
TITLE = "Three-player Leduc hold'em"


def rules(g, ranks=4, suits=2):
    n = len(PLAYERS)
    deck = [(r, s) for r in range(ranks) for s in range(suits)]
    # a card's name: its rank counted from 1, then its suit's letter (or number)
    name = {(r, s): f"{r + 1}{'shdc'[s] if suits <= 4 else s + 1}" for r, s in deck}
    hands = []
    for p in range(n):
        card = g.chance([c for c in deck if c not in hands], label=f"the card of {PLAYERS[p]}", names=name)
        g.reveal(p, ("card", card[0], card[1]))
        hands.append(card)
    stake = [1] * n
    live = list(range(n))
    for size in (2, 4):
        if len(live) > 1 and size == 4:
            board = g.chance([c for c in deck if c not in hands], label="the board card", names=name)
            g.reveal(g.everyone, ("board", board[0], board[1]))
        live = betting(g, stake, live, size)
        if len(live) == 1:
            return g.outcome(share(stake, live))
    strength = {p: hands[p][0] + (ranks if hands[p][0] == board[0] else 0) for p in live}
    best = max(strength.values())
    g.outcome(share(stake, [p for p in live if strength[p] == best]))


def betting(g, stake, live, size, max_raises=2):
    """One betting round; returns the players still in."""
    live = list(live)
    raises, acted, i = 0, 0, 0  # acted: players who acted since the last raise
    while acted < len(live):
        p = live[i]
        facing = stake[p] < max(stake)
        options = (["fold"] if facing else []) + ["call" if facing else "check"]
        if raises < max_raises:
            options.append("raise" if raises else "bet")
        action = g.choose(p, options)
        if action == "fold":
            live.pop(i)
            if len(live) == 1:
                return live
            i %= len(live)
            continue
        if action in ("bet", "raise"):
            stake[p] = max(stake) + size
            raises += 1
            acted = 1
        else:
            stake[p] = max(stake)
            acted += 1
        i = (i + 1) % len(live)
    return live


def share(stake, winners):
    """Payoffs: the winners split the pot; everyone loses what they put in."""
    pot = sum(stake)
    return [pot / len(winners) * (p in winners) - stake[p] for p in range(len(stake))]
