"""Strategies shown so a person can read them: per information set the action
probabilities, the player's beliefs about the nodes it cannot tell apart, and the
expected value of each action, as Gala's presenter showed them (Koller and Pfeffer,
"Generating and solving imperfect information games", 1995).

Everything is computed from a behaviour profile (one array per player, indexed by the
player's sequences) with passes over the tree's depth levels: reach probabilities top
down, expected payoffs bottom up. A player's belief at a node of one of its information
sets is the probability that chance and the other players bring play there, normalised
over the information set (with perfect recall the player's own moves weigh every node
alike); at an information set nobody reaches it is the chance-weighted reach alone, and
uniform if even that is zero.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .models.efg import CHANCE, TERMINAL, ExtensiveGame
from .models.errors import EquilibriaError

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Presentation:
    """What a profile does at every node.

    ``edge_prob``: probability of the edge into each node (chance or the mover's behaviour);
    ``reach``: probability of reaching each node; ``values``: each player's expected payoff
    below each node (num_nodes x players); ``belief``: per decision node, its posterior
    within its information set; ``infoset_reach``: probability each information set is
    reached; ``action_values``: per information set and action (in ``action_labels``
    order), the mover's expected payoff of taking the action there.
    """

    game: ExtensiveGame
    edge_prob: np.ndarray
    reach: np.ndarray
    values: np.ndarray
    belief: np.ndarray
    infoset_reach: np.ndarray
    action_values: np.ndarray
    action_probs: np.ndarray


def edge_probabilities(game: ExtensiveGame, behaviors: list[np.ndarray]) -> np.ndarray:
    """Probability of the edge into every node under the behaviour profile (1 at the root)."""
    _, start = game.local_infoset_numbering()
    n = game.num_nodes
    prob = np.ones(n)
    if n == 1:
        return prob
    parent = game.parent[1:]
    mover = game.player[parent]
    prob[1:] = np.where(mover == CHANCE, game.chance_prob[1:], 1.0)
    for p, b in enumerate(behaviors):
        kids = np.flatnonzero(mover == p) + 1
        k = game.infoset[game.parent[kids]]
        prob[kids] = np.asarray(b)[1 + start[k] + game.action[kids]]
    return prob


def _top_down(game: ExtensiveGame, factor: np.ndarray) -> np.ndarray:
    reach = np.ones(game.num_nodes)
    for start, stop in game.levels():
        if start:
            reach[start:stop] = reach[game.parent[start:stop]] * factor[start:stop]
    return reach


def present(game: ExtensiveGame, behaviors: list[np.ndarray]) -> Presentation:
    """Reach, values, beliefs and action values of a behaviour profile (see Presentation)."""
    if len(behaviors) != game.num_players:
        raise EquilibriaError(f"a profile of {len(behaviors)} strategies for a game of {game.num_players} players")
    n, P = game.num_nodes, game.num_players
    edge = edge_probabilities(game, behaviors)
    reach = _top_down(game, edge)
    values = np.zeros((n, P))
    values[game.terminals] = game.terminal_payoffs()
    levels = list(game.levels())
    for start, stop in reversed(levels[1:]):
        contribution = values[start:stop] * edge[start:stop, None]
        np.add.at(values, game.parent[start:stop], contribution)
    decision = np.flatnonzero(game.player >= 0)
    k = game.infoset[decision]
    # counterfactual reach: every edge but the mover's own
    belief = np.zeros(n)
    parent_player = np.r_[TERMINAL, game.player[game.parent[1:]]]
    weight = np.zeros(decision.shape[0])
    for p in range(P):
        others = _top_down(game, np.where(parent_player == p, 1.0, edge))
        mine = game.player[decision] == p
        weight[mine] = others[decision[mine]]
    totals = np.bincount(k, weights=weight, minlength=game.num_infosets)
    sizes = np.bincount(k, minlength=game.num_infosets)
    post = np.where(totals[k] > 0, weight / np.where(totals[k] > 0, totals[k], 1.0), 1.0 / sizes[k])
    belief[decision] = post
    infoset_reach = np.bincount(k, weights=reach[decision], minlength=game.num_infosets)
    # action values: belief-weighted values of the children, for the mover
    kids = np.flatnonzero(np.r_[False, game.player[game.parent[1:]] >= 0])
    parents = game.parent[kids]
    kk = game.infoset[parents]
    slot = game.infoset_action_start[kk] + game.action[kids]
    mover = game.player[parents]
    total_actions = int(game.infoset_num_actions.sum())
    action_values = np.bincount(slot, weights=belief[parents] * values[kids, mover], minlength=total_actions)
    action_probs = np.zeros(total_actions)
    action_probs[slot] = edge[kids]
    return Presentation(game, edge, reach, values, belief, infoset_reach, action_values, action_probs)


def strategy_report(pres: Presentation, pattern: str | None = None) -> pd.DataFrame:
    """One row per information set and action: ``player`` (1-based), ``infoset`` (the
    player's own number, from 1), ``label`` (what the player knows), ``action``,
    ``probability``, ``value`` (the mover's expected payoff of the action there, given its
    beliefs) and ``reach`` (probability the information set is reached). ``pattern``
    keeps the information sets whose label matches the regular expression."""
    import pandas as pd

    game = pres.game
    local, _ = game.local_infoset_numbering()
    ks = np.repeat(np.arange(game.num_infosets), game.infoset_num_actions)
    actions = np.arange(ks.shape[0]) - game.infoset_action_start[ks]
    labels = _infoset_labels(game)
    table = pd.DataFrame(
        {
            "player": game.infoset_player[ks] + 1,
            "infoset": local[ks] + 1,
            "label": labels[ks],
            "action": [game.action_label(int(k), int(a)) for k, a in zip(ks, actions)],
            "probability": pres.action_probs,
            "value": pres.action_values,
            "reach": pres.infoset_reach[ks],
        }
    )
    if pattern:
        table = table[_matches(table["label"], pattern)].reset_index(drop=True)
    return table


def _infoset_labels(game: ExtensiveGame) -> np.ndarray:
    if game.infoset_labels is not None:
        return np.asarray(game.infoset_labels, dtype=object)
    local, _ = game.local_infoset_numbering()
    return np.asarray([f"information set {i + 1}" for i in local], dtype=object)


def _matches(labels: pd.Series, pattern: str) -> np.ndarray:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise EquilibriaError(f"--infoset '{pattern}' is not a regular expression: {exc}") from None
    return np.array([bool(regex.search(str(text))) for text in labels], dtype=bool)


def _edge_text(game: ExtensiveGame, node: int) -> str:
    par = int(game.parent[node])
    if game.player[par] == CHANCE:
        what = str(game.node_labels[par]) if game.node_labels is not None else ""
        outcome = game.edge_label(node)
        return f"{what} {outcome}" if what else outcome
    return f"{game.player_names[int(game.player[par])]} {game.edge_label(node)}"


def hidden_facts(game: ExtensiveGame, nodes: np.ndarray) -> list[str]:
    """What tells the given nodes (one information set) apart: the steps of their paths
    from the root that are not the same for all of them, e.g. the opponent's card."""
    paths = []
    for v in nodes.tolist():
        steps = []
        while game.parent[v] >= 0:
            steps.append(_edge_text(game, v))
            v = int(game.parent[v])
        paths.append(steps[::-1])
    depth = max((len(s) for s in paths), default=0)
    common = [i for i in range(depth) if all(len(s) == depth for s in paths) and len({s[i] for s in paths}) == 1]
    return ["; ".join(s for i, s in enumerate(steps) if i not in common) or "-" for steps in paths]


def belief_report(pres: Presentation, pattern: str | None = None) -> pd.DataFrame:
    """One row per node of each information set (those whose label matches ``pattern``):
    ``player``, ``infoset``, ``label``, ``node``, ``hidden`` (what the player does not know
    about the node: the steps of its path that differ within the information set) and
    ``belief`` (the player's posterior; sums to one per information set)."""
    import pandas as pd

    game = pres.game
    local, _ = game.local_infoset_numbering()
    labels = _infoset_labels(game)
    keep = np.ones(game.num_infosets, dtype=bool)
    if pattern:
        keep = _matches(pd.Series(labels), pattern)
    decision = np.flatnonzero(game.player >= 0)
    decision = decision[keep[game.infoset[decision]]]
    order = decision[np.argsort(game.infoset[decision], kind="stable")]
    rows = []
    ks = game.infoset[order]
    bounds = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1], True]) if order.shape[0] else np.zeros(1, np.int64)
    for a, b in zip(bounds[:-1], bounds[1:]):
        nodes = order[a:b]
        k = int(ks[a])
        for node, hidden in zip(nodes.tolist(), hidden_facts(game, nodes)):
            rows.append(
                {
                    "player": int(game.infoset_player[k]) + 1,
                    "infoset": int(local[k]) + 1,
                    "label": labels[k],
                    "node": node,
                    "hidden": hidden,
                    "belief": float(pres.belief[node]),
                }
            )
    return pd.DataFrame(rows, columns=["player", "infoset", "label", "node", "hidden", "belief"])


def check_plot_target(path: str) -> None:
    """EquilibriaError, before any work, when a plot cannot be written to ``path``:
    matplotlib is missing, it writes no format with that file ending, or the target is
    no regular file in an existing folder."""
    from .models.output import check_target

    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        raise EquilibriaError("--plot needs matplotlib (pip install 'equilibria[plot]')") from None
    formats = FigureCanvasAgg.get_supported_filetypes()
    ending = os.path.splitext(str(path))[1].lstrip(".").lower()
    if ending not in formats:
        raise EquilibriaError(
            f"--plot {path}: matplotlib writes no format ending in '.{ending}'; use one of "
            + ", ".join(f".{f}" for f in sorted(formats))
        )
    check_target(path)


def plot_strategies(pres: Presentation, path: str, title: str | None = None, pattern: str | None = None) -> None:
    """Gala's picture of a strategy: per player and decision point (what is public), the
    probability of each action against the player's private information (e.g. its card),
    one panel per decision point; ``pattern`` keeps the information sets whose label
    matches the regular expression. Written to ``path`` (any format matplotlib writes)."""
    check_plot_target(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    game = pres.game
    private, public = _private_public(game)
    table = strategy_report(pres)
    table["private"] = np.repeat(private, game.infoset_num_actions)
    table["public"] = np.repeat(public, game.infoset_num_actions)
    if pattern:
        table = table[table["label"].astype(str).str.contains(pattern, regex=True)]
    panels = list(dict.fromkeys(zip(table["player"], table["public"])))
    cols = min(len(panels), 3) or 1
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False, sharey=True)
    for ax, (player, decision) in zip(axes.flat, panels):
        part = table[(table["player"] == player) & (table["public"] == decision)]
        xs = sorted(dict.fromkeys(part["private"]), key=_natural)
        actions = list(dict.fromkeys(part["action"]))
        # with two actions the second says it all (bet, call): Gala's picture
        for action in actions[1:] if len(actions) == 2 else actions:
            chosen = part[(part["action"] == action) & (part["reach"] > 0)]
            ys = [
                chosen[chosen["private"] == x]["probability"].sum() if x in set(chosen["private"]) else np.nan
                for x in xs
            ]
            ax.plot(range(len(xs)), ys, marker="o", label=f"P({action})")
        ax.set_xticks(range(len(xs)), xs, rotation=45 if max((len(x) for x in xs), default=0) > 3 else 0)
        ax.set_ylim(-0.03, 1.03)
        name = game.player_names[player - 1]
        ax.set_title(f"{name}: {decision or 'first move'}", fontsize=9)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels) :]:
        ax.axis("off")
    fig.suptitle((title or game.title) + " (information sets the equilibrium reaches)")
    fig.supylabel("probability")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _natural(text: str) -> list:
    """Sort key reading runs of digits as numbers (card 2 before card 10)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def _private_public(game: ExtensiveGame) -> tuple[np.ndarray, np.ndarray]:
    """Per information set, the player's private information and the public rest: from a
    rules file's facts, else from labels written ``private:public`` (the poker generators)."""
    private = getattr(game, "infoset_private", None)
    public = getattr(game, "infoset_public", None)
    if private is not None and public is not None:
        return np.asarray(private, dtype=object), np.asarray(public, dtype=object)
    labels = _infoset_labels(game)
    split = [str(t).partition(":") for t in labels]
    if all(sep for _, sep, _ in split):
        return np.array([a for a, _, _ in split], dtype=object), np.array([c for _, _, c in split], dtype=object)
    return labels, np.full(labels.shape[0], "", dtype=object)


__all__ = [
    "Presentation",
    "belief_report",
    "check_plot_target",
    "edge_probabilities",
    "hidden_facts",
    "plot_strategies",
    "present",
    "strategy_report",
]
