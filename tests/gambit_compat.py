"""pygambit 16.7 and 17.0 differ in how results are read; these helpers read both."""


def equilibrium(result):
    """The first equilibrium of a pygambit solver result."""
    return result.equilibria[0] if hasattr(result, "equilibria") else result.equilibrium


def first_payoff(eq, game) -> float:
    """Player 1's expected payoff under the profile."""
    if hasattr(eq, "payoff"):
        return float(eq.payoff(list(game.players)[0]))
    return float(list(eq.payoffs)[0][1])  # (player label, payoff) pairs in player order


def is_behavior_profile(eq, game) -> bool:
    """Every personal information set's action probabilities sum to one."""
    if hasattr(game, "infosets"):
        for infoset in game.infosets:
            if infoset.player.is_chance:
                continue
            if abs(sum(float(eq[infoset][a]) for a in infoset.actions) - 1.0) > 1e-9:
                return False
        return True
    for player_behavior in eq:
        for _infoset, mixed_action in (list(item) for item in player_behavior):
            if abs(sum(float(p) for p in dict(mixed_action).values()) - 1.0) > 1e-9:
                return False
    return True
