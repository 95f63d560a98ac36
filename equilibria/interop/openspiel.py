"""OpenSpiel games as :class:`ExtensiveGame` trees, and strategies both ways.

OpenSpiel (Lanctot et al., "OpenSpiel: A Framework for Reinforcement Learning in Games",
2019) describes a game by its rules: a state object that can be cloned, advanced and asked
for its legal actions, chance outcomes, information-state strings and returns. Since the
rules are the only description, the tree is obtained by visiting every state once; the
visit appends to flat Python lists and hands them to :meth:`ExtensiveGame.from_arrays`.

Nothing here imports OpenSpiel at module level: it is a test and benchmark peer, never a
run-time dependency, so ``pyspiel`` is imported inside the functions that need it.

A game loaded this way carries an :class:`OpenSpielSource` as ``game.openspiel``: per
information set the OpenSpiel information-state string and the OpenSpiel action ids aligned
with our action order, so strategies go back to OpenSpiel by integer indexing, without
parsing labels.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..models.efg import CHANCE, TERMINAL, ExtensiveGame, OpenSpielSource, segment_ranges
from ..models.errors import EquilibriaError, GameError

#: Default limit on the number of tree nodes :func:`from_openspiel` will expand.
DEFAULT_MAX_NODES = 20_000_000

#: Seconds between progress lines while a tree is expanded.
PROGRESS_EVERY = 5.0

_log = logging.getLogger(__name__)

# OpenSpiel's player ids for non-decision states (pyspiel.PlayerId)
_OS_CHANCE = -1
_OS_SIMULTANEOUS = -2
_OS_TERMINAL = -4


class OpenSpielError(EquilibriaError):
    """An OpenSpiel game cannot be turned into a finite tree (the message names the game
    and the reason), or a strategy does not fit the game it is exported to."""


def pyspiel_module() -> Any:
    """OpenSpiel's ``pyspiel``, or OpenSpielError saying how to install it (it is an
    optional extra: games named ``openspiel:GAME`` and OpenSpiel policies need it)."""
    try:
        import pyspiel
    except ImportError:
        raise OpenSpielError(
            "OpenSpiel games need OpenSpiel, which is not installed: pip install 'equilibria[openspiel]'"
        ) from None
    return pyspiel


def _load(game_or_string: Any) -> Any:
    pyspiel = pyspiel_module()

    if isinstance(game_or_string, str):
        # OpenSpiel writes its own complaints (the list of every game, a parameter's type) to
        # the process's stderr; they are caught here so the error is one line of ours
        with _captured_stderr() as said:
            try:
                return pyspiel.load_game(game_or_string)
            except Exception as exc:  # pyspiel raises its own error types for unknown names
                error, printed = exc, said()
        first = (str(error).strip() or printed.strip()).splitlines()
        reason = first[0] if first else type(error).__name__
        if reason.startswith("Unknown game"):
            # OpenSpiel follows this line with every game it has: name the closest instead
            import difflib

            name = game_or_string.split("(", 1)[0]
            close = difflib.get_close_matches(name, pyspiel.registered_names(), n=5, cutoff=0.5)
            hint = f"the closest: {', '.join(close)}" if close else "no name is close"
            raise OpenSpielError(
                f"OpenSpiel has no game '{name}' ({hint}; every name: python -c "
                "'import pyspiel; print(pyspiel.registered_names())')"
            )
        raise OpenSpielError(f"OpenSpiel cannot load '{game_or_string}': {reason[:200]}")
    return game_or_string


@contextlib.contextmanager
def _captured_stderr() -> Iterator[Callable[[], str]]:
    """Send file descriptor 2 to a temporary file for the block; yields a function that
    returns what was written there."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: (sink.seek(0), sink.read().decode("utf-8", "replace"))[1]
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def game_traits(game_or_string: Any) -> dict[str, Any]:
    """What OpenSpiel's game type says before any state is visited: ``players`` and
    ``zero_sum`` (True for zero- and constant-sum utilities, False for general-sum and
    identical ones, where a two-player zero-sum route has nothing to solve)."""
    pyspiel = pyspiel_module()
    os_game = _load(game_or_string)
    utility = os_game.get_type().utility
    zero_sum = utility in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM)
    return {"players": int(os_game.num_players()), "zero_sum": zero_sum}


def _turn_based(os_game: Any, name: str) -> tuple[Any, str]:
    """The game as a finite sequential tree with explicit chance: a simultaneous-move game
    through OpenSpiel's own conversion (each player's move of a round in turn, none seeing
    the others' moves of that round, so the equilibria are the same), with the note that
    says so; other games are refused unless sequential."""
    pyspiel = pyspiel_module()

    gt = os_game.get_type()
    note = ""
    if gt.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        os_game = pyspiel.convert_to_turn_based(os_game)
        gt = os_game.get_type()
        note = "simultaneous moves played in turn, unseen until the round ends (OpenSpiel's turn-based conversion)"
    if gt.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise OpenSpielError(
            f"OpenSpiel game '{name}' has {gt.dynamics.name.lower()} dynamics; only turn-based "
            "(sequential) and simultaneous-move games are converted"
        )
    if gt.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise OpenSpielError(
            f"OpenSpiel game '{name}' samples its chance events without listing their "
            "probabilities, so its tree is not finite and explicit"
        )
    if not gt.provides_information_state_string and gt.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        raise OpenSpielError(
            f"OpenSpiel game '{name}' provides no information-state strings, which define the information sets"
        )
    return os_game, note


def _per_node(os_game: Any) -> bool:
    """True for a perfect-information game without information-state strings: every node
    is then an information set of its own, keyed by the history that leads to it."""
    return not os_game.get_type().provides_information_state_string


def estimate_tree_size(os_game: Any, probes: int = 64, seed: int = 0, cap: float = float("inf")) -> float:
    """Estimated number of nodes of the game tree (terminals included).

    Knuth's estimator (D. E. Knuth, "Estimating the efficiency of backtrack programs",
    1975): along a uniformly random path, the sum over depths of the product of the
    branching factors seen so far is an unbiased estimate of the tree size; the mean over
    ``probes`` paths is returned. It is cheap (``probes`` times the game length) and
    serves to refuse hopeless trees before expanding them. A path whose estimate passes
    ``cap`` ends the estimate there (its value is then only known to exceed ``cap``):
    liars_dice(numdice=99999) deals 199,998 dice before its first bid, and walking that
    path 64 times took longer than refusing it should.
    """
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(probes):
        state = os_game.new_initial_state()
        width, size = 1.0, 1.0
        while not state.is_terminal():
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
            elif state.is_simultaneous_node():
                break
            else:
                actions = state.legal_actions()
            width *= len(actions)
            size += width
            if size > cap:
                return size
            state.apply_action(actions[int(rng.integers(len(actions)))])
        total += size
    return total / probes


def from_openspiel(game_or_string: Any, *, max_nodes: int = DEFAULT_MAX_NODES) -> ExtensiveGame:
    """The full game tree of a finite turn-based OpenSpiel game.

    ``game_or_string`` is a ``pyspiel.Game`` or a string for ``pyspiel.load_game`` (for
    example ``"kuhn_poker"``, ``"leduc_poker"``, ``"kuhn_poker(players=3)"``). Chance nodes
    keep OpenSpiel's probabilities; terminal payoffs are OpenSpiel's returns; nodes of one
    player with the same information-state string form one information set, labelled by
    that string; actions are labelled by ``action_to_string`` and ordered as OpenSpiel's
    legal actions (chance outcomes by ascending action id).

    A simultaneous-move game is walked through OpenSpiel's turn-based conversion (its
    title says so); a perfect-information game without information-state strings gets one
    information set per node, labelled ``PLAYER:HISTORY`` (player from 0, OpenSpiel's
    action ids). The walk logs its progress every :data:`PROGRESS_EVERY` seconds.

    Returns the validated :class:`ExtensiveGame`, with ``game.openspiel`` an
    :class:`OpenSpielSource`. Raises :class:`OpenSpielError` for sampled-chance games,
    and when the tree has (or is estimated to have) more than ``max_nodes`` nodes;
    :class:`GameError` if the information states break perfect recall.
    """
    os_game = _load(game_or_string)
    name = str(os_game)
    os_game, note = _turn_based(os_game, name)
    estimate = _checked_estimate(os_game, name, max_nodes)
    tree = _walk(os_game, name, _per_node(os_game), estimate, max_nodes)
    return _extensive_game(tree, os_game, name, note)


def _checked_estimate(os_game: Any, name: str, max_nodes: int) -> float:
    """The estimated tree size (:func:`estimate_tree_size`); OpenSpielError when it is far
    above ``max_nodes``."""
    estimate = estimate_tree_size(os_game, cap=10 * max_nodes)
    if estimate > 10 * max_nodes:  # the estimate is noisy: refuse early only when far off
        raise OpenSpielError(
            f"OpenSpiel game '{name}' is too large: {estimate:.3g} nodes or more are estimated, "
            f"the limit is max_nodes={max_nodes}"
        )
    return estimate


@dataclass
class _Tree:
    """A walked tree as the flat lists :meth:`ExtensiveGame.from_arrays` takes: per node in
    visit order its parent, player, information set, action index at the parent and chance
    probability and label; the terminal nodes and their returns; per information set its
    player, key string and action count, and per action its OpenSpiel id and label."""

    parent: list[int] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    infoset: list[int] = field(default_factory=list)
    action: list[int] = field(default_factory=list)
    chance_prob: list[float] = field(default_factory=list)
    chance_label: list[str] = field(default_factory=list)
    terminal_node: list[int] = field(default_factory=list)
    terminal_returns: list[list[float]] = field(default_factory=list)
    infoset_index: dict[tuple[int, str], int] = field(default_factory=dict)
    infoset_player: list[int] = field(default_factory=list)
    infoset_strings: list[str] = field(default_factory=list)
    infoset_num_actions: list[int] = field(default_factory=list)
    action_ids: list[int] = field(default_factory=list)
    action_labels: list[str] = field(default_factory=list)

    def information_set(self, state: Any, cur: int, key_text: str, legal: list[int], name: str) -> int:
        """The index of player ``cur``'s information set keyed ``key_text``, added with the
        actions ``legal`` of ``state`` on its first visit. GameError when another visit
        offered another number of actions."""
        k = self.infoset_index.get((cur, key_text))
        if k is None:
            k = self.infoset_index[(cur, key_text)] = len(self.infoset_player)
            self.infoset_player.append(cur)
            self.infoset_strings.append(key_text)
            self.infoset_num_actions.append(len(legal))
            self.action_ids.extend(legal)
            self.action_labels.extend(state.action_to_string(cur, aid) for aid in legal)
        elif self.infoset_num_actions[k] != len(legal):
            raise GameError(
                f"OpenSpiel game '{name}': information state {key_text!r} of player {cur + 1} "
                f"offers {len(legal)} actions at one state and {self.infoset_num_actions[k]} at another"
            )
        return k


def _walk(os_game: Any, name: str, per_node: bool, estimate: float, max_nodes: int) -> _Tree:
    """The tree of ``os_game``, every state visited once, nodes in depth-first order with
    children in action order (chance outcomes by ascending id). Logs progress every
    :data:`PROGRESS_EVERY` seconds; OpenSpielError past ``max_nodes`` nodes or at a
    simultaneous-move state. Information sets are keyed by information-state strings, or by
    ``PLAYER:HISTORY`` when ``per_node``."""
    tree = _Tree()
    # bound once: this loop runs once per node, millions of times on a large game
    parent, action, player, infoset = tree.parent.append, tree.action.append, tree.player.append, tree.infoset.append
    chance_prob, chance_label = tree.chance_prob.append, tree.chance_label.append
    # Depth-first with an explicit stack: memory stays proportional to depth times
    # branching, whereas a breadth-first frontier of state objects can hold millions.
    stack = [(os_game.new_initial_state(), -1, -1, 1.0, "")]
    started = told = time.perf_counter()
    while stack:
        state, par, act, prob, clabel = stack.pop()
        node = len(tree.parent)
        if node % 4096 == 0 and time.perf_counter() - told >= PROGRESS_EVERY:
            told = time.perf_counter()
            _log.info("expanding %s: %s nodes of about %.3g, %.0f s", name, f"{node:,}", estimate, told - started)
        if node >= max_nodes:
            raise OpenSpielError(
                f"OpenSpiel game '{name}' is too large: its tree has more than "
                f"max_nodes={max_nodes} nodes (estimated size {estimate:.3g})"
            )
        parent(par)
        action(act)
        chance_prob(prob)
        chance_label(clabel)
        cur = state.current_player()
        if cur == _OS_TERMINAL or state.is_terminal():
            player(TERMINAL)
            infoset(-1)
            tree.terminal_node.append(node)
            tree.terminal_returns.append(state.returns())
        elif cur == _OS_CHANCE:
            player(CHANCE)
            infoset(-1)
            stack.extend(_chance_children(state, node))
        elif cur == _OS_SIMULTANEOUS or cur < 0:
            raise OpenSpielError(f"OpenSpiel game '{name}' reaches a simultaneous-move state")
        else:
            key_text = f"{cur}:{state.history_str()}" if per_node else state.information_state_string(cur)
            legal = state.legal_actions()
            k = tree.information_set(state, cur, key_text, legal, name)
            player(cur)
            infoset(k)
            for a in range(len(legal) - 1, -1, -1):  # last first: the first action is visited first
                stack.append((state.child(legal[a]), node, a, 1.0, ""))
    return tree


def _chance_children(state: Any, node: int) -> list[tuple[Any, int, int, float, str]]:
    """The stack entries of chance node ``node``'s children (state, parent, outcome index,
    probability, label), last outcome first: outcomes in ascending id order."""
    outcomes = sorted(state.chance_outcomes())
    children = []
    for a in range(len(outcomes) - 1, -1, -1):
        aid, p = outcomes[a]
        children.append((state.child(aid), node, a, float(p), state.action_to_string(_OS_CHANCE, aid)))
    return children


def _extensive_game(tree: _Tree, os_game: Any, name: str, note: str) -> ExtensiveGame:
    """The validated :class:`ExtensiveGame` of a walked tree, titled ``name`` (and the
    ``note`` on its conversion), carrying its :class:`OpenSpielSource`; GameError naming
    the game when it breaks perfect recall."""
    num_players = os_game.num_players()
    payoffs = np.zeros((len(tree.parent), num_players))
    if tree.terminal_node:
        payoffs[np.asarray(tree.terminal_node)] = np.asarray(tree.terminal_returns, dtype=np.float64)
    labels = np.asarray(tree.infoset_strings, dtype=str)
    game = ExtensiveGame.from_arrays(
        parent=np.asarray(tree.parent, dtype=np.int64),
        player=np.asarray(tree.player, dtype=np.int32),
        infoset=np.asarray(tree.infoset, dtype=np.int64),
        action=np.asarray(tree.action, dtype=np.int64),
        chance_prob=np.asarray(tree.chance_prob, dtype=np.float64),
        payoffs=payoffs,
        infoset_player=np.asarray(tree.infoset_player, dtype=np.int32),
        infoset_num_actions=np.asarray(tree.infoset_num_actions, dtype=np.int32),
        player_names=[f"Player {p + 1}" for p in range(num_players)],
        infoset_labels=labels,
        action_labels=np.asarray(tree.action_labels, dtype=str),
        chance_labels=np.asarray(tree.chance_label, dtype=str),
        title=f"{name} ({note})" if note else name,
        validate=False,
    )
    try:
        game.validate()
    except GameError as exc:
        raise GameError(f"OpenSpiel game '{name}': {exc}") from None
    # Identify the per-information-set data only after construction: from_arrays
    # renumbers nodes but keeps information sets and their action order as given.
    # the string that loads the tree walked (the turn-based game of a simultaneous one)
    ids = np.asarray(tree.action_ids, dtype=np.int64)
    game.openspiel = OpenSpielSource(game_string=str(os_game), infoset_strings=labels, action_ids=ids)
    return game


def _source(game: ExtensiveGame) -> OpenSpielSource:
    source = getattr(game, "openspiel", None)
    if source is None:
        raise OpenSpielError(
            f"game '{game.title}' was not loaded by from_openspiel, so it has no OpenSpiel "
            "information states to export to"
        )
    return source


def _player_positions(game: ExtensiveGame, p: int) -> np.ndarray:
    """Flat action positions (into ``action_labels``) of player ``p``'s sequences 1, 2, ...

    Player ``p``'s sequences follow its information sets in global order, each set's
    actions in order (see :mod:`equilibria.models.sequence`).
    """
    ks = np.flatnonzero(game.infoset_player == p)
    return segment_ranges(game.infoset_action_start[ks], game.infoset_num_actions[ks])


def _policy_rows(policy: Any, game: ExtensiveGame, source: OpenSpielSource) -> np.ndarray:
    """Row of the tabular policy of every global information set of ``game``."""
    lookup = policy.state_lookup
    rows = np.empty(game.num_infosets, dtype=np.int64)
    for k, text in enumerate(source.infoset_strings.tolist()):
        row = lookup.get(text)
        if row is None:
            raise OpenSpielError(
                f"the OpenSpiel policy has no row for information state {text!r} of game "
                f"'{source.game_string}': policy and game do not match"
            )
        rows[k] = row
    return rows


def to_tabular_policy(os_game: Any, game: ExtensiveGame, behaviors: Sequence[np.ndarray]) -> object:
    """OpenSpiel ``TabularPolicy`` playing the behaviour strategies ``behaviors``.

    ``os_game`` is the ``pyspiel.Game`` (or its string) that ``game`` was loaded from by
    :func:`from_openspiel`; ``behaviors`` holds one array per player indexed by the
    player's sequences (entry ``s >= 1`` is the probability of the action of sequence
    ``s`` at its information set), as returned by ``solve_game`` or built with
    :mod:`equilibria.models.strategy`. Returns an
    ``open_spiel.python.policy.TabularPolicy`` whose rows hold those probabilities at the
    matching OpenSpiel action ids (zero at ids that are not legal).
    """
    os_game = _load(os_game)  # first: without OpenSpiel this says how to install it
    from open_spiel.python import policy as os_policy

    source = _source(game)
    if len(behaviors) != game.num_players:
        raise OpenSpielError(f"{len(behaviors)} behaviour strategies for {game.num_players} players")
    pol = os_policy.TabularPolicy(os_game)
    rows = _policy_rows(pol, game, source)
    probs = np.zeros(source.action_ids.shape[0])
    for p in range(game.num_players):
        pos = _player_positions(game, p)
        b = np.asarray(behaviors[p], dtype=np.float64)
        if b.shape[0] != pos.shape[0] + 1:
            raise OpenSpielError(
                f"the behaviour strategy of player {p + 1} has {b.shape[0]} entries; the "
                f"player has {pos.shape[0] + 1} sequences"
            )
        probs[pos] = b[1:]
    row_of_action = np.repeat(rows, game.infoset_num_actions)
    table = pol.action_probability_array
    table[rows] = 0.0
    table[row_of_action, source.action_ids] = probs
    return pol


def to_openspiel_policy(os_game: Any, game: ExtensiveGame, behaviors: Sequence[np.ndarray]) -> object:
    """An OpenSpiel policy playing ``behaviors`` on the game ``game`` was walked from: a
    ``TabularPolicy`` (:func:`to_tabular_policy`) where OpenSpiel names information states,
    else (perfect information, one information set per node) a policy that looks each
    state up by its history. Either goes to OpenSpiel's ``exploitability.nash_conv``."""
    os_game = _load(os_game)
    if not _per_node(os_game):
        return to_tabular_policy(os_game, game, behaviors)
    from open_spiel.python import policy as os_policy

    source = _source(game)
    row = {text: k for k, text in enumerate(source.infoset_strings.tolist())}
    first, count = game.infoset_action_start, game.infoset_num_actions
    probs = np.zeros(source.action_ids.shape[0])
    for p in range(game.num_players):
        probs[_player_positions(game, p)] = np.asarray(behaviors[p], dtype=np.float64)[1:]

    class HistoryPolicy(os_policy.Policy):
        """Action probabilities by the history that reaches a state."""

        def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
            player = state.current_player() if player_id is None else player_id
            k = row.get(f"{player}:{state.history_str()}")
            if k is None:
                raise OpenSpielError(f"no information set of the game for the state after '{state.history_str()}'")
            span = slice(int(first[k]), int(first[k]) + int(count[k]))
            return {int(a): float(w) for a, w in zip(source.action_ids[span], probs[span])}

    return HistoryPolicy(os_game, list(range(os_game.num_players())))


def from_tabular_policy(policy: Any, game: ExtensiveGame) -> list[np.ndarray]:
    """Behaviour strategies (one array per player, indexed by sequences) of an OpenSpiel
    ``TabularPolicy`` on ``game``, a game loaded by :func:`from_openspiel`.

    Entry 0 of each array (the empty sequence) is 1; entry ``s`` is the policy's
    probability of the OpenSpiel action behind sequence ``s``. Probabilities are taken as
    stored, without renormalising.
    """
    source = _source(game)
    rows = _policy_rows(policy, game, source)
    table = np.asarray(policy.action_probability_array)
    probs = table[np.repeat(rows, game.infoset_num_actions), source.action_ids]
    behaviors = []
    for p in range(game.num_players):
        pos = _player_positions(game, p)
        b = np.ones(pos.shape[0] + 1)
        b[1:] = probs[pos]
        behaviors.append(b)
    return behaviors
