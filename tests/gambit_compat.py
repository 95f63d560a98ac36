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


def max_regret(game, sequence_form, behaviors) -> float:
    """pygambit's own largest regret of our behaviour profile on ``game`` (an
    ExtensiveGame with ``sequence_form``), the game rebuilt in pygambit and every
    information set reached by its path of child indices (pygambit 17's history API)."""
    import numpy as np
    from pygambit import H

    from equilibria.interop.gambit import to_pygambit

    gg = to_pygambit(game)
    profile = gg.mixed_behavior_profile(rational=False)
    first_node: dict[int, int] = {}
    for v in range(game.num_nodes):
        k = int(game.infoset[v])
        if k >= 0 and k not in first_node:
            first_node[k] = v

    def labels_to(v: int) -> list[str]:
        steps = []
        while v:
            parent = int(game.parent[v])
            steps.append(v - int(game.first_child[parent]))
            v = parent
        labels: list[str] = []
        for i in reversed(steps):
            labels.append(gg.get_actions(H.path(*labels))[i])
        return labels

    for p, ps in enumerate(sequence_form.players):
        for i in range(ps.num_infosets):
            path = labels_to(first_node[int(ps.infoset_global[i])])
            actions = gg.get_actions(H.path(*path))
            seqs = int(ps.infoset_first_sequence[i]) + np.arange(int(ps.infoset_num_actions[i]))
            weights = {a: float(behaviors[p][s]) for a, s in zip(actions, seqs)}
            if sum(weights.values()) <= 0:  # unreached: any mix (regret there is weighted zero)
                weights = dict.fromkeys(actions, 1.0)
            profile[H.path(*path)] = weights
    return float(profile.max_regret())


def payoffs(eq) -> list[float]:
    """Every player's payoff under a pygambit profile, in player order."""
    if hasattr(eq, "payoff"):  # pygambit 16
        return [float(eq.payoff(p)) for p in eq.game.players]
    return [float(v) for _label, v in eq.payoffs]


def mixed(eq) -> list[list[float]]:
    """Per player, the probabilities of a pygambit mixed-strategy profile."""
    out = []
    for p in eq.game.players:
        values = list(eq[p])
        out.append([float(v[1]) if isinstance(v, tuple) else float(v) for v in values])
    return out
