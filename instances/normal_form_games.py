"""Named games in normal form.

``mipnash_test:k=K`` is the family G_k of Sandholm, Gilpin and Conitzer ("Mixed-integer
programming methods for finding Nash equilibria", 2005): a two-player game whose unique
equilibrium mixes 2k - 1 strategies of each player uniformly, hard for support
enumeration. ``random_normal`` draws games of a few families in the manner of GAMUT
(Nudelman, Wortman, Shoham and Leyton-Brown, "Run the GAMUT", 2004): independent uniform
payoffs, covariant payoffs whose players' entries have correlation ``rho`` (``rho = -1``
for zero-sum-like conflict, ``1`` for common interest), or graphical games (Kearns,
Littman and Singh, "Graphical models for game theory", 2001) in which each player's payoff
depends only on its own strategy and its neighbours' in a random graph.
"""

from __future__ import annotations

import numpy as np

from ..models.errors import GameError
from ..models.normal_form import NormalFormGame


def mipnash_test(k: int = 2) -> NormalFormGame:
    """G_k: player 1 has a_1..a_{2k-1} and b_1..b_{2k}, player 2 has c_1..c_{2k-1} and
    d_1..d_{2k}. Against each other the a's and c's play a cyclic game (3 each, except
    (2, 4) one step ahead and (4, 2) one step behind); an a against a d gives (2, 0); a b
    against a c gives (0, 2); b_i against d_i gives (3, 0) and against its partner d_{i+1}
    (odd i) or d_{i-1} (even i) gives (0, 3); everything else (0, 0)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise GameError(f"'mipnash_test': parameter k must be a whole number of at least 2, not {k!r}")
    cyc, pairs = 2 * k - 1, 2 * k
    rows, cols = cyc + pairs, cyc + pairs
    u = np.zeros((2, rows, cols))
    a = np.arange(cyc)
    u[:, :cyc, :cyc] = 3.0
    u[0, a, (a + 1) % cyc], u[1, a, (a + 1) % cyc] = 2.0, 4.0
    u[0, a, (a - 1) % cyc], u[1, a, (a - 1) % cyc] = 4.0, 2.0
    u[0, :cyc, cyc:] = 2.0  # a against d: (2, 0)
    u[1, cyc:, :cyc] = 2.0  # b against c: (0, 2)
    b = np.arange(pairs)
    u[0, cyc + b, cyc + b] = 3.0
    partner = np.where(b % 2 == 0, b + 1, b - 1)  # 1-based odd i pairs with i + 1
    u[1, cyc + b, cyc + partner] = 3.0
    names = (
        [f"a{i + 1}" for i in range(cyc)] + [f"b{i + 1}" for i in range(pairs)],
        [f"c{i + 1}" for i in range(cyc)] + [f"d{i + 1}" for i in range(pairs)],
    )
    return NormalFormGame(u, strategy_names=names, title=f"G_{k} (MIP Nash test game)")


FAMILIES = ("uniform", "covariant", "graphical")


def random_normal(
    rows: int = 3, cols: int = 3, family: str = "uniform", rho: float = 0.0, seed: int = 0, players: int = 2
) -> NormalFormGame:
    """A random game with ``rows`` strategies for player 1 and ``cols`` for each other
    player. ``uniform``: payoffs independent and uniform on [0, 1]. ``covariant``: in
    every cell the players' payoffs are standard normal with pairwise correlation ``rho``
    (from -1/(players - 1) to 1). ``graphical``: each pair of players is linked with
    probability 1/2 (at least one link per player), and a player's payoff is uniform on
    [0, 1] over its own and its neighbours' strategies and constant in everyone else's.
    Reproducible from ``seed``."""
    if family not in FAMILIES:
        raise GameError(f"'random_normal': parameter family must be one of {', '.join(FAMILIES)}, not {family!r}")
    if rows < 1 or cols < 1 or not 2 <= players <= 6:
        raise GameError("'random_normal' needs rows, cols >= 1 and 2 to 6 players")
    shape = (rows,) + (cols,) * (players - 1)
    rng = np.random.default_rng(seed)
    if family == "uniform":
        u = rng.uniform(0.0, 1.0, size=(players, *shape))
    elif family == "graphical":
        u = np.empty((players, *shape))
        for i, neighbours in enumerate(random_graph(players, rng)):
            relevant = sorted(neighbours | {i})
            local = rng.uniform(0.0, 1.0, size=tuple(shape[j] for j in relevant))
            # broadcast over the strategies of the players i does not see
            u[i] = np.expand_dims(local, [j for j in range(players) if j not in relevant])
    else:
        if not -1.0 / (players - 1) - 1e-12 <= rho <= 1.0:
            raise GameError(f"'random_normal': rho must lie in [{-1 / (players - 1):g}, 1], not {rho:g}")
        cov = np.full((players, players), rho) + (1.0 - rho) * np.eye(players)
        draws = rng.multivariate_normal(np.zeros(players), cov, size=int(np.prod(shape)), method="eigh")
        u = draws.T.reshape(players, *shape)
    name = f"random {family} {' x '.join(map(str, shape))} (seed {seed})"
    return NormalFormGame(u, title=name)


def random_graph(players: int, rng: np.random.Generator) -> list[set[int]]:
    """Each player's neighbours: every pair linked with probability 1/2, and a player left
    alone linked to one other at random (so that nobody's payoff is a constant game)."""
    linked = np.triu(rng.random((players, players)) < 0.5, 1)
    linked |= linked.T
    for i in range(players):
        if not linked[i].any():
            j = int(rng.choice([k for k in range(players) if k != i]))
            linked[i, j] = linked[j, i] = True
    return [set(np.flatnonzero(row).tolist()) for row in linked]


__all__ = ["FAMILIES", "mipnash_test", "random_graph", "random_normal"]
