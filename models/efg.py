"""Extensive-form games held in flat numpy arrays.

A game is one tree. Nodes are numbered breadth-first from the root (node 0), so the
children of a node are contiguous and ordered by action, and every depth level is one
contiguous block. Per node the game keeps:

``parent``        index of the parent node, -1 for the root
``player``        ``TERMINAL`` (-2), ``CHANCE`` (-1) or the player index 0, 1, ...
``infoset``       global information-set index of a decision node, -1 otherwise
``action``        index of the parent's action that leads here, -1 for the root
``first_child``   index of the first child, -1 for a terminal
``num_children``  number of children
``chance_prob``   probability of the edge from a chance parent, 1.0 otherwise
``outcome``       index into ``outcome_payoffs`` (-1 for none); a terminal's payoff is the sum
                  of the outcomes on its path, as in Gambit

Per information set (global index over all players): ``infoset_player``,
``infoset_num_actions``, ``infoset_action_start`` (offset into ``action_labels``),
``infoset_labels`` and, for generated games, ``infoset_key`` (the generator's int64 key,
which abstractions decode to lift strategies; None for games read from files or built by
hand).

No Python object is created per node; validation and derived quantities are vectorised
over depth levels.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .errors import GameError

TERMINAL = -2
CHANCE = -1

#: Tolerance for chance probabilities summing to one.
PROBABILITY_TOLERANCE = 1e-9


def group_ranks(sorted_keys: np.ndarray) -> np.ndarray:
    """Rank of each element inside its run of equal keys (keys already sorted)."""
    n = sorted_keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    run_start = np.repeat(starts, np.diff(np.r_[starts, n]))
    return np.arange(n, dtype=np.int64) - run_start


# the former private name, kept for code written against it
_group_ranks = group_ranks


def segment_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenate ``arange(s, s + c)`` for every (s, c) pair, without a Python loop."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(np.asarray(starts, dtype=np.int64) - offsets, counts) + np.arange(total, dtype=np.int64)


#: Trees with more depth levels than this, and fewer than :data:`NARROW_WIDTH` nodes per
#: level on average, are summed up by pointer jumping rather than level by level.
DEEP_LEVELS = 1000
NARROW_WIDTH = 64


@dataclass(frozen=True)
class PathSummary:
    """Per terminal: its node, each player's own sequence leading to it and its chance
    reach probability; per information set: the owner's sequence leading to it."""

    terminal_nodes: np.ndarray
    terminal_sequences: np.ndarray
    terminal_chance: np.ndarray
    infoset_parent_sequence: np.ndarray


@dataclass(frozen=True)
class GameCounts:
    """Node and information-set counts, as printed by ``equilibria info``."""

    nodes: int
    terminal: int
    chance: int
    decision: int
    infosets: tuple[int, ...]
    sequences: tuple[int, ...]


@dataclass(frozen=True)
class OpenSpielSource:
    """Where a loaded game came from, per global information set of the game.

    ``game_string``: the string that ``pyspiel.load_game`` accepts for this game.
    ``infoset_strings``: the OpenSpiel information-state string of every information set.
    ``action_ids``: flat int64 array aligned with ``game.action_labels``; the OpenSpiel
    action id of action ``a`` at information set ``k`` is
    ``action_ids[game.infoset_action_start[k] + a]``.
    """

    game_string: str
    infoset_strings: np.ndarray
    action_ids: np.ndarray

    def actions_of(self, game: ExtensiveGame, k: int) -> np.ndarray:
        """OpenSpiel action ids of information set ``k``, in our action order."""
        start = int(game.infoset_action_start[k])
        return self.action_ids[start : start + int(game.infoset_num_actions[k])]


class ExtensiveGame:
    """A finite extensive-form game with perfect recall, stored as flat arrays.

    Build one with :class:`GameBuilder` (small games by hand), :meth:`from_arrays`
    (generators), :func:`equilibria.models.efg_io.read_efg` (Gambit files) or an instance
    from :mod:`equilibria.instances`. Construction validates the game and raises
    :class:`~equilibria.models.errors.GameError` naming the node or information set at
    fault.
    """

    # Set after construction by the readers that know them: the comment line of a
    # ``.efg`` file, the information-set numbers it used, and the OpenSpiel game a tree
    # was expanded from.
    comment: str = ""
    infoset_numbers: np.ndarray | None = None
    openspiel: OpenSpielSource | None = None

    def __init__(
        self,
        *,
        parent: npt.ArrayLike,
        player: npt.ArrayLike,
        infoset: npt.ArrayLike,
        action: npt.ArrayLike,
        chance_prob: npt.ArrayLike,
        outcome: npt.ArrayLike,
        outcome_payoffs: npt.ArrayLike,
        infoset_player: npt.ArrayLike,
        infoset_num_actions: npt.ArrayLike,
        player_names: Sequence[str],
        infoset_labels: np.ndarray | None = None,
        action_labels: np.ndarray | None = None,
        node_labels: np.ndarray | None = None,
        chance_labels: np.ndarray | None = None,
        outcome_labels: np.ndarray | None = None,
        chance_text: np.ndarray | None = None,
        infoset_key: npt.ArrayLike | None = None,
        title: str = "",
        validate: bool = True,
    ):
        """Wrap arrays that are already in breadth-first order; prefer :meth:`from_arrays`."""
        self.parent = np.asarray(parent, dtype=np.int64)
        n = self.parent.shape[0]
        self.player = np.asarray(player, dtype=np.int8)
        self.infoset = np.asarray(infoset, dtype=np.int32)
        self.action = np.asarray(action, dtype=np.int32)
        self.chance_prob = np.asarray(chance_prob, dtype=np.float64)
        self.outcome = np.asarray(outcome, dtype=np.int32)
        self.outcome_payoffs = np.asarray(outcome_payoffs, dtype=np.float64).reshape(-1, len(player_names))
        self.infoset_player = np.asarray(infoset_player, dtype=np.int32)
        self.infoset_num_actions = np.asarray(infoset_num_actions, dtype=np.int32)
        self.infoset_action_start = np.concatenate([[0], np.cumsum(self.infoset_num_actions, dtype=np.int64)])[:-1]
        self.player_names = list(player_names)
        self.title = title
        self.infoset_labels = infoset_labels
        self.action_labels = action_labels
        self.node_labels = node_labels
        self.chance_labels = chance_labels
        self.outcome_labels = outcome_labels
        # the probability text of a file, kept verbatim for exact round trips ('' where
        # absent; the writer then uses the simplest fraction equal to the float)
        self.chance_text = chance_text
        # the generator's integer key per information set (None unless a generator set
        # it): strategies are mapped between games through it, never through labels
        self.infoset_key = None if infoset_key is None else np.asarray(infoset_key, dtype=np.int64)
        if self.infoset_key is not None and self.infoset_key.shape != self.infoset_player.shape:
            raise GameError(f"infoset_key has shape {self.infoset_key.shape}, expected {self.infoset_player.shape}")
        for name in ("player", "infoset", "action", "chance_prob", "outcome"):
            if getattr(self, name).shape != (n,):
                raise GameError(f"array '{name}' has shape {getattr(self, name).shape}, expected ({n},)")
        self._derive_structure()
        if validate:
            self.validate()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(
        cls,
        *,
        parent: npt.ArrayLike,
        player: npt.ArrayLike,
        infoset: npt.ArrayLike,
        action: npt.ArrayLike,
        chance_prob: npt.ArrayLike,
        payoffs: npt.ArrayLike | None = None,
        outcome: npt.ArrayLike | None = None,
        outcome_payoffs: npt.ArrayLike | None = None,
        infoset_player: npt.ArrayLike,
        infoset_num_actions: npt.ArrayLike,
        player_names: Sequence[str] = ("Player 1", "Player 2"),
        infoset_labels: np.ndarray | None = None,
        action_labels: np.ndarray | None = None,
        node_labels: npt.ArrayLike | None = None,
        chance_labels: npt.ArrayLike | None = None,
        outcome_labels: np.ndarray | None = None,
        chance_text: npt.ArrayLike | None = None,
        infoset_key: npt.ArrayLike | None = None,
        title: str = "",
        validate: bool = True,
    ) -> ExtensiveGame:
        """Build a game from node arrays in any order (parents need not precede children).

        Either ``payoffs`` (shape ``(num_nodes, num_players)``, read at terminals only) or
        ``outcome`` with ``outcome_payoffs`` gives the payoffs. Nodes are renumbered
        breadth-first; the children of a node are ordered by ``action``. ``infoset_key``
        (optional, int64 per information set) is the generator's key of each information
        set, kept as given (information sets are not renumbered). Returns the validated game.
        """
        parent = np.asarray(parent, dtype=np.int64)
        action = np.asarray(action, dtype=np.int64)
        player = np.asarray(player, dtype=np.int32)
        n = parent.shape[0]
        if payoffs is not None:
            payoffs = np.asarray(payoffs, dtype=np.float64).reshape(n, -1)
            terminal_ids = np.flatnonzero(player == TERMINAL)
            outcome = np.full(n, -1, dtype=np.int64)
            outcome[terminal_ids] = np.arange(terminal_ids.shape[0])
            outcome_payoffs = payoffs[terminal_ids]
        order = cls._breadth_first_order(parent, action)
        identity = order is None

        def take(a: Any) -> Any:
            if a is None or identity:
                return a
            return np.asarray(a)[order]

        if identity:
            new_parent = parent
        else:
            new_index = np.empty(n, dtype=np.int64)
            new_index[order] = np.arange(n, dtype=np.int64)
            new_parent = parent[order]
            new_parent = np.where(new_parent >= 0, new_index[np.maximum(new_parent, 0)], -1)
        return cls(
            parent=new_parent,
            player=take(player),
            infoset=take(infoset),
            action=take(action),
            chance_prob=take(chance_prob),
            outcome=take(outcome),
            # None only when the caller gave neither payoff form; the constructor rejects it
            outcome_payoffs=cast(npt.ArrayLike, outcome_payoffs),
            infoset_player=infoset_player,
            infoset_num_actions=infoset_num_actions,
            player_names=player_names,
            infoset_labels=infoset_labels,
            action_labels=action_labels,
            node_labels=take(node_labels),
            chance_labels=take(chance_labels),
            outcome_labels=outcome_labels,
            chance_text=take(chance_text),
            infoset_key=infoset_key,
            title=title,
            validate=validate,
        )

    @staticmethod
    def _breadth_first_order(parent: np.ndarray, action: np.ndarray) -> np.ndarray | None:
        """Old node indices listed breadth-first, children by action (None when the
        arrays are already in that order); checks the tree shape."""
        n = parent.shape[0]
        roots = np.flatnonzero(parent < 0)
        if roots.shape[0] != 1:
            raise GameError(f"a game tree needs exactly one root, found {roots.shape[0]}")
        if n > 1 and (parent.max() >= n):
            bad = int(np.flatnonzero(parent >= n)[0])
            raise GameError(f"node {bad} names a parent {int(parent[bad])} that does not exist")
        nonroot = np.flatnonzero(parent >= 0)
        # Already breadth-first with children in action order: nothing to do.
        if roots[0] == 0 and n > 1:
            p = parent[1:]
            if np.all(p[1:] >= p[:-1]) and np.all(p < np.arange(1, n)):
                ranks = group_ranks(p)
                if np.array_equal(ranks, action[1:]):
                    return None
        elif n == 1:
            return None
        by_parent = nonroot[np.lexsort((action[nonroot], parent[nonroot]))]
        counts = np.bincount(parent[nonroot], minlength=n)
        start = np.concatenate([[0], np.cumsum(counts)])[:-1]
        order_levels = [roots]
        level = roots
        seen = 1
        while level.shape[0]:
            level = by_parent[segment_ranges(start[level], counts[level])]
            seen += level.shape[0]
            if seen > n:
                raise GameError("the parent links contain a cycle")
            if level.shape[0]:
                order_levels.append(level)
        order = np.concatenate(order_levels)
        if order.shape[0] != n:
            raise GameError(f"{n - order.shape[0]} nodes are not connected to the root")
        return order

    def _derive_structure(self) -> None:
        n = self.num_nodes
        counts = np.bincount(self.parent[1:], minlength=n).astype(np.int32) if n > 1 else np.zeros(n, np.int32)
        self.num_children = counts
        first = np.full(n, -1, dtype=np.int64)
        if n > 1:
            starts = np.flatnonzero(np.r_[True, self.parent[2:] != self.parent[1:-1]]) + 1
            first[self.parent[starts]] = starts
        self.first_child = first
        # Depth levels are contiguous blocks in breadth-first order: the level after
        # [start, stop) holds the nodes whose parent lies in [start, stop).
        level_starts = [0]
        stop = 1
        while stop < n:
            nxt = int(np.searchsorted(self.parent[1:], stop, side="left")) + 1
            if nxt <= stop:
                raise GameError("node arrays are not in breadth-first order; use from_arrays")
            level_starts.append(stop)
            stop = nxt
        level_starts.append(n)
        self.level_offsets = np.asarray(level_starts, dtype=np.int64)

    # ------------------------------------------------------------------ basic facts
    @property
    def num_nodes(self) -> int:
        """Number of nodes, terminals included."""
        return int(self.parent.shape[0])

    @property
    def num_players(self) -> int:
        """Number of (non-chance) players."""
        return len(self.player_names)

    @property
    def num_infosets(self) -> int:
        """Number of information sets over all players."""
        return int(self.infoset_player.shape[0])

    @property
    def num_levels(self) -> int:
        """Number of depth levels (the root is level 0)."""
        return int(self.level_offsets.shape[0] - 1)

    def levels(self) -> Iterator[tuple[int, int]]:
        """Yield ``(start, stop)`` node ranges, one per depth level from the root down."""
        for k in range(self.num_levels):
            yield int(self.level_offsets[k]), int(self.level_offsets[k + 1])

    @property
    def terminals(self) -> np.ndarray:
        """Indices of terminal nodes."""
        return np.flatnonzero(self.player == TERMINAL)

    def counts(self) -> GameCounts:
        """Numbers of nodes by kind and information sets / sequences per player."""
        kinds = self.player
        infosets = tuple(int(np.count_nonzero(self.infoset_player == p)) for p in range(self.num_players))
        sequences = tuple(
            1 + int(self.infoset_num_actions[self.infoset_player == p].sum()) for p in range(self.num_players)
        )
        return GameCounts(
            nodes=self.num_nodes,
            terminal=int(np.count_nonzero(kinds == TERMINAL)),
            chance=int(np.count_nonzero(kinds == CHANCE)),
            decision=int(np.count_nonzero(kinds >= 0)),
            infosets=infosets,
            sequences=sequences,
        )

    def nbytes(self) -> int:
        """Bytes held by the node and information-set arrays."""
        total = 0
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                total += value.nbytes
        return total

    # ------------------------------------------------------------------ derived arrays
    def terminal_payoffs(self) -> np.ndarray:
        """Payoff of every terminal node, shape ``(num_terminals, num_players)``.

        Outcomes on inner nodes are added to every terminal below them (Gambit's rule).
        """
        term = self.terminals
        has_inner = np.any(self.outcome[self.player != TERMINAL] >= 0)
        if not has_inner:
            pay = np.zeros((term.shape[0], self.num_players))
            o = self.outcome[term]
            pay[o >= 0] = self.outcome_payoffs[o[o >= 0]]
            return pay
        acc = np.zeros((self.num_nodes, self.num_players))
        for start, stop in self.levels():
            if start > 0:
                acc[start:stop] = acc[self.parent[start:stop]]
            o = self.outcome[start:stop]
            hit = np.flatnonzero(o >= 0)
            acc[start + hit] += self.outcome_payoffs[o[hit]]
        return acc[term]

    def infoset_label(self, k: int) -> str:
        """Readable name of global information set ``k`` (its label, else player and index)."""
        p = int(self.infoset_player[k])
        own = int(np.count_nonzero(self.infoset_player[:k] == p)) + 1
        name = f"player {p + 1} information set {own}"
        if self.infoset_labels is not None and str(self.infoset_labels[k]):
            name += f" '{self.infoset_labels[k]}'"
        return name

    def action_label(self, k: int, a: int) -> str:
        """Label of action ``a`` at global information set ``k`` (or its number)."""
        if self.action_labels is not None:
            label = str(self.action_labels[self.infoset_action_start[k] + a])
            if label:
                return label
        return str(a + 1)

    def edge_label(self, node: int) -> str:
        """Label of the action leading into ``node`` from its parent."""
        par = int(self.parent[node])
        if par < 0:
            return ""
        a = int(self.action[node])
        if self.player[par] == CHANCE:
            if self.chance_labels is not None and str(self.chance_labels[node]):
                return str(self.chance_labels[node])
            return str(a + 1)
        return self.action_label(int(self.infoset[par]), a)

    def describe_node(self, node: int) -> str:
        """Name a node for error messages: its label, index and path of action labels."""
        path = []
        cur = int(node)
        while self.parent[cur] >= 0:
            path.append(self.edge_label(cur))
            cur = int(self.parent[cur])
        text = f"node {node}"
        if self.node_labels is not None and str(self.node_labels[node]):
            text += f" '{self.node_labels[node]}'"
        return text + " (path: " + ("/".join(reversed(path)) or "root") + ")"

    # ------------------------------------------------------------------ validation
    def validate(self) -> None:
        """Check the rules of a well-formed game; raise GameError naming the culprit."""
        n = self.num_nodes
        P = self.num_players
        kinds = self.player
        bad = np.flatnonzero((kinds < TERMINAL) | (kinds >= P))
        if bad.shape[0]:
            raise GameError(f"{self.describe_node(int(bad[0]))} has invalid player {kinds[bad[0]]}")
        term = kinds == TERMINAL
        bad = np.flatnonzero(term & (self.num_children > 0))
        if bad.shape[0]:
            raise GameError(f"terminal {self.describe_node(int(bad[0]))} has children")
        bad = np.flatnonzero(~term & (self.num_children == 0))
        if bad.shape[0]:
            raise GameError(f"{self.describe_node(int(bad[0]))} is not terminal but has no actions")
        bad_outcome = np.flatnonzero(~np.isfinite(self.outcome_payoffs).all(axis=1))
        if bad_outcome.shape[0]:
            where = np.flatnonzero(self.outcome == bad_outcome[0])
            at = self.describe_node(int(where[0])) if where.shape[0] else f"outcome {int(bad_outcome[0]) + 1}"
            raise GameError(
                f"{at} has payoffs {self.outcome_payoffs[bad_outcome[0]].tolist()}: payoffs must be finite numbers"
            )
        # chance probabilities
        chance_children = (
            np.flatnonzero(np.r_[False, kinds[self.parent[1:]] == CHANCE]) if n > 1 else np.zeros(0, np.int64)
        )
        probs = self.chance_prob[chance_children]
        bad = chance_children[(probs < 0) | (probs > 1) | ~np.isfinite(probs)]
        if bad.shape[0]:
            par = int(self.parent[bad[0]])
            raise GameError(
                f"chance {self.describe_node(par)} has probability {self.chance_prob[bad[0]]} "
                f"outside [0, 1] on action '{self.edge_label(int(bad[0]))}'"
            )
        sums = np.bincount(self.parent[chance_children], weights=probs, minlength=n)
        chance_nodes = np.flatnonzero(kinds == CHANCE)
        off = np.abs(sums[chance_nodes] - 1.0) > PROBABILITY_TOLERANCE
        if np.any(off):
            node = int(chance_nodes[np.flatnonzero(off)[0]])
            raise GameError(f"chance probabilities at {self.describe_node(node)} sum to {float(sums[node])!r}, not 1")
        # information sets: one player, one action set
        decision = np.flatnonzero(kinds >= 0)
        k = self.infoset[decision]
        bad = decision[(k < 0) | (k >= self.num_infosets)]
        if bad.shape[0]:
            raise GameError(f"decision {self.describe_node(int(bad[0]))} has no valid information set")
        bad = decision[self.infoset_player[k] != kinds[decision]]
        if bad.shape[0]:
            node = int(bad[0])
            raise GameError(
                f"{self.infoset_label(int(self.infoset[node]))} holds {self.describe_node(node)} "
                f"of player {kinds[node] + 1}: an information set has one player"
            )
        bad = decision[self.infoset_num_actions[k] != self.num_children[decision]]
        if bad.shape[0]:
            node = int(bad[0])
            raise GameError(
                f"{self.infoset_label(int(self.infoset[node]))} has "
                f"{self.infoset_num_actions[self.infoset[node]]} actions but "
                f"{self.describe_node(node)} has {self.num_children[node]}: "
                "an information set has one action set"
            )
        if n > 1:
            ranks = group_ranks(self.parent[1:])
            bad = np.flatnonzero(ranks != self.action[1:])
            if bad.shape[0]:
                node = int(bad[0]) + 1
                raise GameError(
                    f"the actions below {self.describe_node(int(self.parent[node]))} are not "
                    "numbered 0, 1, ... without gaps or repeats"
                )
        used = np.zeros(self.num_infosets, dtype=bool)
        used[k] = True
        if not np.all(used):
            unused = int(np.flatnonzero(~used)[0])
            raise GameError(f"{self.infoset_label(unused)} contains no node")
        bad = np.flatnonzero(self.outcome >= self.outcome_payoffs.shape[0])
        if bad.shape[0]:
            raise GameError(f"{self.describe_node(int(bad[0]))} refers to a missing outcome")
        self.path_summary()  # perfect recall

    def path_summary(self) -> PathSummary:
        """What the paths from the root determine, computed once (see :class:`PathSummary`).

        Raises GameError at the first information set whose nodes are reached by
        different own histories (imperfect recall).
        """
        cached = getattr(self, "_path_summary", None)
        if cached is None:
            cached = self._path_summary = self._top_down()
        return cached

    def _top_down(self) -> PathSummary:
        if self.num_levels > DEEP_LEVELS and self.num_nodes < NARROW_WIDTH * self.num_levels:
            return self._top_down_by_jumps()
        # One sweep over depth levels keeping only the previous level's arrays, so the
        # memory beyond the game is proportional to the widest level.
        P = self.num_players
        _, local_start = self.local_infoset_numbering()
        seq_of_infoset_action = 1 + local_start
        terminal_nodes = np.flatnonzero(self.player == TERMINAL)
        T = terminal_nodes.shape[0]
        term_seq = np.zeros((T, P), dtype=np.int64)
        term_chance = np.zeros(T)
        parent_seq = np.full(self.num_infosets, -1, dtype=np.int64)
        done = 0
        prev_seq = np.zeros((1, P), dtype=np.int64)
        prev_reach = np.ones(1)
        prev_start = 0
        for start, stop in self.levels():
            if start == 0:
                seq, reach = prev_seq, prev_reach
            else:
                par = self.parent[start:stop]
                local = par - prev_start
                seq = prev_seq[local]
                reach = prev_reach[local] * self.chance_prob[start:stop]
                par_player = self.player[par]
                decided = np.flatnonzero(par_player >= 0)
                seq[decided, par_player[decided]] = (
                    seq_of_infoset_action[self.infoset[par[decided]]] + self.action[start + decided]
                )
            kinds = self.player[start:stop]
            dec = np.flatnonzero(kinds >= 0)
            if dec.shape[0]:
                ks = self.infoset[start + dec]
                own = seq[dec, kinds[dec]]
                unset = parent_seq[ks] < 0
                parent_seq[ks[unset]] = own[unset]
                clash = np.flatnonzero(parent_seq[ks] != own)
                if clash.shape[0]:
                    node = start + int(dec[clash[0]])
                    raise GameError(
                        f"imperfect recall at {self.infoset_label(int(self.infoset[node]))}: "
                        f"its nodes are reached by different own histories (e.g. {self.describe_node(node)})"
                    )
            term = np.flatnonzero(kinds == TERMINAL)
            term_seq[done : done + term.shape[0]] = seq[term]
            term_chance[done : done + term.shape[0]] = reach[term]
            done += term.shape[0]
            prev_seq, prev_reach, prev_start = seq, reach, start
        return PathSummary(terminal_nodes, term_seq, term_chance, parent_seq)

    def _top_down_by_jumps(self) -> PathSummary:
        """:meth:`_top_down` for deep, narrow trees (a sweep per level would cost a few
        numpy calls per level: minutes for a chain of a million nodes). Every node's
        sequences and chance reach are found by pointer jumping, ``log2(depth)`` passes over
        all nodes, with memory proportional to the nodes times the players."""
        n, P = self.num_nodes, self.num_players
        _, local_start = self.local_infoset_numbering()
        parent = self.parent.copy()
        parent[0] = 0
        above = self.player[parent]  # who moves at each node's parent (the root: itself)
        above[0] = CHANCE
        sequence_in = np.zeros(n, dtype=np.int64)  # the sequence of the edge into a node
        decided = np.flatnonzero(above >= 0)
        sequence_in[decided] = 1 + local_start[self.infoset[parent[decided]]] + self.action[decided]
        seq = np.zeros((n, P), dtype=np.int64)
        for p in range(P):
            # from each node, the nearest node (itself or an ancestor) entered by p's move
            source = np.where(above == p, np.arange(n), parent)
            source[0] = 0
            while True:
                jumped = source[source]
                if np.array_equal(jumped, source):
                    break
                source = jumped
            seq[:, p] = np.where(above[source] == p, sequence_in[source], 0)
        reach = self.chance_prob.astype(np.float64).copy()
        reach[0] = 1.0
        pointer = parent
        while np.any(pointer):
            reach = reach * reach[pointer]
            pointer = pointer[pointer]
        # perfect recall: every node of an information set reached by one own sequence
        dec = np.flatnonzero(self.player >= 0)
        ks = self.infoset[dec]
        own = seq[dec, self.player[dec]]
        parent_seq = np.full(self.num_infosets, -1, dtype=np.int64)
        parent_seq[ks[::-1]] = own[::-1]  # the first node of each set (in node order) wins
        clash = np.flatnonzero(parent_seq[ks] != own)
        if clash.shape[0]:
            node = int(dec[clash[0]])
            raise GameError(
                f"imperfect recall at {self.infoset_label(int(self.infoset[node]))}: "
                f"its nodes are reached by different own histories (e.g. {self.describe_node(node)})"
            )
        terminal_nodes = np.flatnonzero(self.player == TERMINAL)
        return PathSummary(terminal_nodes, seq[terminal_nodes], reach[terminal_nodes], parent_seq)

    def local_infoset_numbering(self) -> tuple[np.ndarray, np.ndarray]:
        """Per global information set: its index among its player's information sets,
        and the offset of its first action among its player's actions."""
        P = self.num_players
        local = np.zeros(self.num_infosets, dtype=np.int64)
        start = np.zeros(self.num_infosets, dtype=np.int64)
        for p in range(P):
            ks = np.flatnonzero(self.infoset_player == p)
            local[ks] = np.arange(ks.shape[0])
            na = self.infoset_num_actions[ks].astype(np.int64)
            start[ks] = np.cumsum(na) - na
        return local, start

    def __repr__(self) -> str:
        c = self.counts()
        return (
            f"ExtensiveGame({self.title!r}, nodes={c.nodes}, terminal={c.terminal}, "
            f"chance={c.chance}, infosets={c.infosets})"
        )


class GameBuilder:
    """Build a small game by hand, node by node.

    >>> b = GameBuilder(["Alice", "Bob"])
    >>> heads, tails = b.chance(b.root, [("H", 0.5), ("T", 0.5)])
    >>> stop, go = b.decision(heads, player=0, infoset="saw H", actions=["stop", "go"])
    >>> b.terminal(stop, [1, -1])

    Information sets are named per player: nodes given the same player and name share an
    information set and must offer the same actions. ``build()`` returns a validated
    :class:`ExtensiveGame`. (This API makes Python objects per node; generators of large
    games call :meth:`ExtensiveGame.from_arrays` instead.)
    """

    def __init__(self, players: Sequence[str] = ("Player 1", "Player 2"), title: str = ""):
        self.players = list(players)
        self.title = title
        self.root = 0
        self._parent = [-1]
        self._action = [-1]
        self._kind: list[int | None] = [None]  # None while open
        self._infoset = [-1]
        self._prob: list[Fraction | float] = [1.0]
        self._chance_label = [""]
        self._label = [""]
        self._payoff: dict[int, list[float]] = {}
        self._outcome_label: dict[int, str] = {}
        self._infosets: dict[tuple[int, str], int] = {}
        self._infoset_actions: list[list[str]] = []
        self._infoset_player: list[int] = []
        self._infoset_names: list[str] = []

    def _open(self, node: int) -> None:
        if not (0 <= node < len(self._parent)):
            raise GameError(f"node {node} does not exist")
        if self._kind[node] is not None:
            raise GameError(f"node {node} was already given a type")

    def _children(self, node: int, labels: Sequence[str]) -> list[int]:
        kids = []
        for a, _label in enumerate(labels):
            kids.append(len(self._parent))
            self._parent.append(node)
            self._action.append(a)
            self._kind.append(None)
            self._infoset.append(-1)
            self._prob.append(1.0)
            self._chance_label.append("")
            self._label.append("")
        return kids

    def label(self, node: int, text: str) -> None:
        """Give ``node`` a name (used in files and error messages)."""
        self._label[node] = text

    def chance(self, node: int, outcomes: Sequence[tuple[str, float | Fraction | str]]) -> list[int]:
        """Make ``node`` a chance node with ``(label, probability)`` pairs; returns children."""
        self._open(node)
        self._kind[node] = CHANCE
        kids = self._children(node, [o[0] for o in outcomes])
        for kid, (label, prob) in zip(kids, outcomes):
            self._chance_label[kid] = str(label)
            self._prob[kid] = Fraction(prob) if isinstance(prob, str) else prob
        return kids

    def decision(self, node: int, player: int, infoset: str, actions: Sequence[str]) -> list[int]:
        """Make ``node`` a decision of ``player`` (0-based) in the named information set."""
        self._open(node)
        if not (0 <= player < len(self.players)):
            raise GameError(f"node {node}: player {player} does not exist")
        key = (player, infoset)
        if key not in self._infosets:
            self._infosets[key] = len(self._infoset_actions)
            self._infoset_actions.append(list(actions))
            self._infoset_player.append(player)
            self._infoset_names.append(infoset)
        k = self._infosets[key]
        if self._infoset_actions[k] != list(actions):
            raise GameError(
                f"information set '{infoset}' of player {player + 1} has actions "
                f"{self._infoset_actions[k]} but node {node} offers {list(actions)}"
            )
        self._kind[node] = player
        self._infoset[node] = k
        return self._children(node, actions)

    def terminal(self, node: int, payoffs: Sequence[float], outcome: str = "") -> None:
        """Make ``node`` terminal with one payoff per player."""
        self._open(node)
        if len(payoffs) != len(self.players):
            raise GameError(f"node {node}: {len(payoffs)} payoffs for {len(self.players)} players")
        self._kind[node] = TERMINAL
        self._payoff[node] = [float(x) for x in payoffs]
        self._outcome_label[node] = outcome

    def build(self) -> ExtensiveGame:
        """Return the validated game; every node must have been given a type."""
        open_nodes = [i for i, k in enumerate(self._kind) if k is None]
        if open_nodes:
            raise GameError(f"node {open_nodes[0]} was never made chance, decision or terminal")
        n = len(self._parent)
        terms = [i for i in range(n) if self._kind[i] == TERMINAL]
        outcome = np.full(n, -1, dtype=np.int64)
        outcome[terms] = np.arange(len(terms))
        payoffs = np.array([self._payoff[i] for i in terms], dtype=float).reshape(len(terms), len(self.players))
        text = np.array([str(p) if isinstance(p, Fraction) else "" for p in self._prob], dtype=str)
        actions = [a for acts in self._infoset_actions for a in acts]
        return ExtensiveGame.from_arrays(
            parent=np.array(self._parent),
            player=np.array(self._kind, dtype=np.int32),
            infoset=np.array(self._infoset),
            action=np.array(self._action),
            chance_prob=np.array([float(p) for p in self._prob]),
            outcome=outcome,
            outcome_payoffs=payoffs,
            infoset_player=np.array(self._infoset_player, dtype=np.int32),
            infoset_num_actions=np.array([len(a) for a in self._infoset_actions], dtype=np.int32),
            player_names=self.players,
            infoset_labels=np.array(self._infoset_names, dtype=str),
            action_labels=np.array(actions, dtype=str),
            node_labels=np.array(self._label, dtype=str),
            chance_labels=np.array(self._chance_label, dtype=str),
            outcome_labels=np.array([self._outcome_label[i] for i in terms], dtype=str),
            chance_text=text,
            title=self.title,
        )
