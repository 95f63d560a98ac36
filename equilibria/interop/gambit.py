"""Games exchanged with pygambit (Gambit's Python API) directly, without ``.efg`` files.

Gambit (McKelvey, McLennan and Turocy, "Gambit: Software Tools for Game Theory") is a
test peer, never a run-time dependency: ``pygambit`` is imported inside the functions.
The functions target pygambit 17, whose tree API addresses nodes by the labels of the
actions on their path (``pygambit.H.path(...)`` selectors). That API requires every
action label to be non-empty and unique at its information set or chance event, player
labels to be unique and different from the reserved chance label, and outcome labels to
be unique; :func:`to_pygambit` makes up such labels where the game lacks them.

pygambit 17 has no information-set or node labels, so those do not survive a round trip;
players, actions, chance probabilities (exact fractions), information sets and payoffs do.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from ..models.efg import CHANCE, TERMINAL, ExtensiveGame
from ..models.efg_io import _simplest_text
from ..models.errors import EquilibriaError, GameError


class GambitError(EquilibriaError):
    """A pygambit game cannot be converted (the message says which node and why)."""


def _unique_labels(labels: Iterable[str], fallback_prefix: str = "") -> list[str]:
    """Non-empty, pairwise distinct labels: blanks become the 1-based position, repeats
    get the position appended, so a label only changes where pygambit would refuse it."""
    out: list[str] = []
    seen: set[str] = set()
    for i, label in enumerate(labels):
        text = str(label) if label is not None else ""
        if not text.strip():
            text = f"{fallback_prefix}{i + 1}"
        candidate = text
        while candidate in seen:
            candidate = f"{text} ({i + 1})" if candidate == text else candidate + "'"
        seen.add(candidate)
        out.append(candidate)
    return out


def _chance_texts(game: ExtensiveGame, kids: range) -> list[str]:
    """Probability texts of a chance node's edges that sum to exactly one.

    The game's own text (exact fractions from a file) is used where present, else the
    simplest fraction equal to the float. Gambit demands an exact sum of one; when floats
    (for example from OpenSpiel) miss it by rounding, the last edge takes the remainder.
    """
    texts = []
    for c in kids:
        text = str(game.chance_text[c]) if game.chance_text is not None else ""
        texts.append(text if text else _simplest_text(float(game.chance_prob[c])))
    values = [Fraction(t) for t in texts]
    total = sum(values)
    if total != 1:
        rest = 1 - sum(values[:-1])
        if rest < 0 or abs(float(rest) - float(values[-1])) > 1e-9:
            raise GameError(
                f"chance probabilities at {game.describe_node(int(game.parent[kids[0]]))} "
                f"sum to {float(total)!r}, not 1"
            )
        texts[-1] = str(rest)
    return texts


def to_pygambit(game: ExtensiveGame) -> Any:
    """A ``pygambit.ExtensiveGame`` equal to ``game``.

    Returns the pygambit game with the same players (in order), tree, information sets,
    action order, chance probabilities (fractions kept exact where the game has their
    text) and payoffs; each node that carries an outcome gets its own Gambit outcome.
    Labels Gambit would refuse (blank or repeated action, player or outcome labels) are
    replaced as described in :func:`_unique_labels`.
    """
    import pygambit as gbt
    from pygambit import H

    names = _unique_labels(game.player_names, "Player ")
    names = [f"{n} (player)" if n.strip().lower() == "chance" else n for n in names]
    g = gbt.ExtensiveGame(names, title=game.title or "Untitled extensive game")

    # The label of the edge into every node, made acceptable to Gambit.
    edge = [""] * game.num_nodes
    infoset_actions = [
        _unique_labels([game.action_label(k, a) for a in range(int(game.infoset_num_actions[k]))])
        for k in range(game.num_infosets)
    ]
    path: list[tuple] = [()] * game.num_nodes
    canonical: dict[int, tuple] = {}
    # Nodes are breadth-first, so a parent's move exists before its children are reached;
    # all structural edits come before outcomes, which pygambit handles fastest.
    for node in range(game.num_nodes):
        if node:
            path[node] = path[int(game.parent[node])] + (edge[node],)
        kind = int(game.player[node])
        if kind == TERMINAL:
            continue
        first = int(game.first_child[node])
        kids = range(first, first + int(game.num_children[node]))
        if kind == CHANCE:
            labels = _unique_labels([game.chance_labels[c] if game.chance_labels is not None else "" for c in kids])
            texts = _chance_texts(game, kids)
            g.append_event(H.path(*path[node]), dict(zip(labels, texts)))
        else:
            k = int(game.infoset[node])
            labels = infoset_actions[k]
            if k in canonical:
                g.append_infoset(H.path(*path[node]), H.path(*canonical[k]))
            else:
                canonical[k] = path[node]
                g.append_move(H.path(*path[node]), names[kind], labels)
        for c, label in zip(kids, labels):
            edge[c] = label

    with_outcome = np.flatnonzero(game.outcome >= 0)
    out_labels = game.outcome_labels
    used: set[str] = set()
    for node in with_outcome.tolist():
        o = int(game.outcome[node])
        label = str(out_labels[o]) if out_labels is not None and o < len(out_labels) else ""
        if not label.strip() or label in used:
            label = f"{label or 'o'}@{node}"
        used.add(label)
        pays = {
            names[p]: (int(x) if float(x).is_integer() and abs(x) < 2**53 else float(x))
            for p, x in enumerate(game.outcome_payoffs[o].tolist())
        }
        g.make_outcome(H.path(*path[node]), pays, label=label)
    return g


def _number(value: Any) -> tuple[float, str]:
    """Float and exact text of a pygambit number (``Rational`` or ``Decimal``)."""
    return float(value), str(value)


def _all_histories(g: Any) -> list:
    """The History of every node of ``g``, depth-first from the root.

    ``g.get_histories(H.after())`` rebuilds each node's history from the root (about
    0.35 ms a node: 3.3 s on Leduc's 9,457 nodes); the tree layout is computed in one
    linear sweep that yields the same histories in the same order (0.35 s on Leduc).
    """
    import pygambit as gbt
    from pygambit import H

    layout = getattr(gbt, "layout_tree", None)
    if layout is not None:
        try:
            return [history for history, _ in layout(g).items()]
        except (AttributeError, TypeError):  # a pygambit whose layout lacks items()
            pass
    return g.get_histories(H.after())


def from_pygambit(g: Any) -> ExtensiveGame:
    """An :class:`ExtensiveGame` equal to the pygambit extensive game ``g``.

    Returns the validated game with ``g``'s players, tree (children in Gambit's action
    order), information sets (numbered in Gambit's depth-first order), action and chance
    labels, chance probabilities (their exact text kept in ``chance_text``) and outcomes
    (payoffs as floats; outcomes on inner nodes stay where they are). Raises
    :class:`GambitError` if ``g`` has no tree or two actions of a move share a label.
    """
    from pygambit import H

    if not hasattr(g, "get_histories"):
        raise GambitError("the pygambit game has no extensive (tree) representation")
    names = [str(p) for p in g.players]
    player_of = {name: p for p, name in enumerate(names)}
    histories = _all_histories(g)
    paths = [h.actions for h in histories]
    index = {path: i for i, path in enumerate(paths)}
    if len(index) != len(paths):
        raise GambitError("two actions of one move share a label, so nodes cannot be told apart")
    n = len(paths)
    parent = np.full(n, -1, dtype=np.int64)
    action = np.full(n, -1, dtype=np.int64)
    player = np.full(n, TERMINAL, dtype=np.int32)
    infoset = np.full(n, -1, dtype=np.int64)
    chance_prob = np.ones(n)
    chance_text = [""] * n
    chance_label = [""] * n

    infoset_index: dict[tuple, int] = {}
    infoset_player: list[int] = []
    infoset_actions: list[list[str]] = []
    event_probs: dict[tuple, dict] = {}
    for i, h in enumerate(histories):
        if not h:
            continue
        step = h[-1]
        par = index[paths[i][:-1]]
        parent[i] = par
        key = step.state.actions  # the canonical member of the parent's infoset or event
        if step.player in player_of:
            k = infoset_index.get(key)
            if k is None:
                k = infoset_index[key] = len(infoset_player)
                infoset_player.append(player_of[step.player])
                infoset_actions.append(g.get_actions(H.path(*key)))
            player[par] = infoset_player[k]
            infoset[par] = k
            action[i] = infoset_actions[k].index(step.action)
        else:
            probs = event_probs.get(key)
            if probs is None:
                probs = event_probs[key] = g.get_action_probs(H.path(*key))
            player[par] = CHANCE
            action[i] = list(probs).index(step.action)
            chance_prob[i], chance_text[i] = _number(probs[step.action])
            chance_label[i] = step.action

    outcome = np.full(n, -1, dtype=np.int64)
    outcome_index: dict[str, int] = {}
    outcome_payoffs: list[list[float]] = []
    outcome_labels: list[str] = []
    for i, path in enumerate(paths):
        label = g.get_outcome(H.path(*path))
        if label is None:
            continue
        o = outcome_index.get(label)
        if o is None:
            o = outcome_index[label] = len(outcome_payoffs)
            pays = g.get_outcome_payoffs(label)
            outcome_payoffs.append([float(pays[name]) for name in names])
            outcome_labels.append(label)
        outcome[i] = o

    action_labels = [a for acts in infoset_actions for a in acts]
    try:
        return ExtensiveGame.from_arrays(
            parent=parent,
            player=player,
            infoset=infoset,
            action=action,
            chance_prob=chance_prob,
            outcome=outcome,
            outcome_payoffs=np.asarray(outcome_payoffs, dtype=np.float64).reshape(-1, len(names)),
            infoset_player=np.asarray(infoset_player, dtype=np.int32),
            infoset_num_actions=np.asarray([len(a) for a in infoset_actions], dtype=np.int32),
            player_names=names,
            action_labels=np.asarray(action_labels, dtype=str),
            chance_labels=np.asarray(chance_label, dtype=str),
            outcome_labels=np.asarray(outcome_labels, dtype=str),
            chance_text=np.asarray(chance_text, dtype=str),
            title=str(g.title),
        )
    except GameError as exc:
        raise GameError(f"pygambit game '{g.title}': {exc}") from None
