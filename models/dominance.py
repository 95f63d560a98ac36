"""Actions that no equilibrium needs: iterated elimination of actions dominated at every
node of their information set.

Action ``a`` at an information set ``I`` of player ``p`` is dominated by ``a'`` when, at
every node of ``I``, the best payoff ``p`` can get anywhere below ``a`` is strictly less
than the worst payoff anywhere below ``a'`` (over every continuation of every player and
chance). A pure strategy that plays ``a`` at ``I`` is then weakly dominated by the one
that plays ``a'`` there instead, so every Nash equilibrium of the game with ``a`` removed
is an equilibrium of the full game (a deviation to a removed strategy earns no more than
the deviation to its dominator, against any profile). Removing actions and recomputing
the payoff ranges below each node repeats this for the reduced game (iterated weak
dominance keeps that property, and the reduced game has an equilibrium by Nash's theorem).

The test is conservative (ranges over all terminals, not expectations), cheap (one
vectorised pass over the tree per round, a Python loop only over pairs of action
indices), and usually removes the actions a person would call obviously bad: folding
the best hand, calling with the worst. The MIP Nash programs forbid the removed actions,
which removes their binaries from the search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .efg import TERMINAL, ExtensiveGame, segment_ranges
from .sequence import PlayerSequences, SequenceForm, build_player_sequences


def dominated_actions(game: ExtensiveGame, *, max_rounds: int = 50) -> np.ndarray:
    """Boolean array over the game's actions (``infoset_action_start[k] + a``): True for
    the actions removed by iterated elimination of nodewise-dominated actions."""
    n = game.num_nodes
    players = game.num_players
    removed = np.zeros(int(game.infoset_num_actions.sum()), dtype=bool)
    child = np.arange(1, n)
    parent = game.parent[1:]
    from_decision = game.player[parent] >= 0
    edge_action = np.full(n - 1, -1, dtype=np.int64)
    edge_action[from_decision] = (
        game.infoset_action_start[game.infoset[parent[from_decision]]] + game.action[child[from_decision]]
    )
    terminals = np.flatnonzero(game.player == TERMINAL)
    payoffs = game.terminal_payoffs()

    # the children of each decision node by action index, for the pairwise tests
    decision = np.flatnonzero(game.player >= 0)
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[decision] = np.arange(decision.shape[0])
    max_actions = int(game.infoset_num_actions.max(initial=0))
    table = np.full((decision.shape[0], max(max_actions, 1)), -1, dtype=np.int64)
    table[row_of[parent[from_decision]], game.action[child[from_decision]]] = child[from_decision]
    owner = game.player[decision].astype(np.int64)
    node_infoset = game.infoset[decision].astype(np.int64)
    start = game.infoset_action_start[node_infoset]
    count = game.infoset_num_actions[node_infoset]
    num_infosets = game.num_infosets

    for _ in range(max_rounds):
        low = np.full((n, players), np.inf)
        high = np.full((n, players), -np.inf)
        low[terminals] = payoffs
        high[terminals] = payoffs
        live = edge_action < 0
        live[~live] = ~removed[edge_action[~live]]
        for level_start, level_stop in reversed(list(game.levels())):
            if level_start == 0:
                break
            kids = np.arange(level_start, level_stop)
            kids = kids[live[kids - 1]]
            np.minimum.at(low, game.parent[kids], low[kids])
            np.maximum.at(high, game.parent[kids], high[kids])
        found = np.zeros_like(removed)
        for a in range(max_actions):
            for better in range(max_actions):
                if a == better:
                    continue
                usable = (a < count) & (better < count)
                usable &= ~removed[np.where(usable, start + a, 0)] & ~removed[np.where(usable, start + better, 0)]
                worse_kid = table[:, a]
                better_kid = table[:, better]
                strictly = np.zeros(decision.shape[0], dtype=bool)
                ok = np.flatnonzero(usable)
                strictly[ok] = high[worse_kid[ok], owner[ok]] < low[better_kid[ok], owner[ok]]
                failures = np.bincount(node_infoset, weights=(~strictly).astype(np.float64), minlength=num_infosets)
                tested = np.bincount(node_infoset, weights=usable.astype(np.float64), minlength=num_infosets)
                hit = np.flatnonzero((failures == 0) & (tested > 0))
                found[game.infoset_action_start[hit] + a] = True
        found &= ~removed
        if not found.any():
            break
        removed |= found
    return removed


def dominated_sequences(game: ExtensiveGame, sequence_form: SequenceForm) -> list[np.ndarray]:
    """Per player, a boolean mask over the sequences that contain an action removed by
    :func:`dominated_actions` (such a sequence has weight 0 in the reduced game)."""
    removed = dominated_actions(game)
    out = []
    for ps in sequence_form.players:
        alive = np.ones(ps.num_sequences, dtype=bool)
        if ps.num_infosets:
            ks = ps.infoset_global[ps.sequence_infoset[1:]]
            alive[1:] = ~removed[game.infoset_action_start[ks] + ps.sequence_action[1:]]
            _close_downwards(ps, alive)  # a sequence through a removed action is removed too
        out.append(~alive)
    return out


@dataclass(frozen=True)
class ReducedSequenceForm:
    """A sequence form with dominated sequences removed, and the way back.

    ``kept[p]`` marks player ``p``'s sequences of the original that remain;
    ``sequence_map[p]`` gives each original sequence its index in ``sequence_form``
    (-1 when removed); ``rounds`` counts the passes over the players until nothing
    changed."""

    original: SequenceForm
    sequence_form: SequenceForm
    kept: list[np.ndarray]
    sequence_map: list[np.ndarray]
    rounds: int

    def lift(self, behaviors: list[np.ndarray]) -> list[np.ndarray]:
        """Behaviour strategies on the original: removed actions get probability 0;
        information sets below a removed action, which play never reaches, are uniform."""
        out = []
        for ps, b, kept, where in zip(self.original.players, behaviors, self.kept, self.sequence_map):
            full = np.zeros(ps.num_sequences)
            full[0] = 1.0
            full[kept] = np.asarray(b)[where[kept]]
            infoset_kept = kept[ps.infoset_parent_sequence]
            unreached = ~infoset_kept[ps.sequence_infoset[1:]]
            full[1:][unreached] = 1.0 / ps.infoset_num_actions[ps.sequence_infoset[1:][unreached]]
            out.append(full)
        return out

    def lp_size(self) -> dict:
        """Rows and columns of player 1's sequence-form LP before and after."""
        before, after = self.original.lp_size(), self.sequence_form.lp_size()
        return {
            "rows_before": before["rows"],
            "columns_before": before["columns"],
            "rows_after": after["rows"],
            "columns_after": after["columns"],
        }

    def report(self) -> dict:
        """:meth:`lp_size` and the passes it took: what answers and reports show."""
        return self.lp_size() | {"passes": self.rounds}


class _EntriesBySequence:
    """One player's payoff entries sorted by the player's sequence, sorted once, so that
    each pass takes the extremes per sequence with one ``reduceat`` (``ufunc.at`` over
    tens of millions of entries is slow)."""

    def __init__(self, sequences: np.ndarray, payoff: np.ndarray):
        self.order = np.argsort(sequences, kind="stable")
        keys = sequences[self.order]
        self.starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else keys[:0]
        self.sequences = keys[self.starts]
        self.payoff = payoff[self.order]

    def extremes(self, n: int, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        high = np.full(n, -np.inf)
        low = np.full(n, np.inf)
        if self.starts.size:
            on = live[self.order]
            high[self.sequences] = np.maximum.reduceat(np.where(on, self.payoff, -np.inf), self.starts)
            low[self.sequences] = np.minimum.reduceat(np.where(on, self.payoff, np.inf), self.starts)
        return high, low


def _subtree_extremes(
    ps: PlayerSequences, entries: _EntriesBySequence, live: np.ndarray, alive: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per sequence, the largest and smallest payoff of the live entries at it or below it
    in the player's own forest, over live sequences only (-inf / +inf where there are none)."""
    high, low = entries.extremes(ps.num_sequences, live)
    high[~alive] = -np.inf
    low[~alive] = np.inf
    for d in range(int(ps.infoset_depth.max(initial=-1)), -1, -1):
        ks = np.flatnonzero(ps.infoset_depth == d)
        seqs = segment_ranges(ps.infoset_first_sequence[ks], ps.infoset_num_actions[ks])
        offsets = np.cumsum(ps.infoset_num_actions[ks]) - ps.infoset_num_actions[ks]
        if not seqs.size:
            continue
        np.maximum.at(high, ps.infoset_parent_sequence[ks], np.maximum.reduceat(high[seqs], offsets))
        np.minimum.at(low, ps.infoset_parent_sequence[ks], np.minimum.reduceat(low[seqs], offsets))
    return high, low


def _close_downwards(ps: PlayerSequences, alive: np.ndarray) -> None:
    """A sequence continuing a removed one is removed too (shallowest level first)."""
    for d in range(int(ps.infoset_depth.max(initial=-1)) + 1):
        ks = np.flatnonzero(ps.infoset_depth == d)
        dead = ks[~alive[ps.infoset_parent_sequence[ks]]]
        if dead.size:
            alive[segment_ranges(ps.infoset_first_sequence[dead], ps.infoset_num_actions[dead])] = False


def eliminate_dominated(sf: SequenceForm, max_rounds: int = 100) -> ReducedSequenceForm:
    """Iterated elimination of dominated actions on a two-player sequence form.

    Action ``a`` of information set ``I`` is removed when some other live action ``a'`` of
    ``I`` has every payoff entry below it (its own later sequences included, every
    opponent sequence and chance outcome) strictly better for the player than every entry
    below ``a``. That is the nodewise test of :func:`dominated_actions` taken over all the
    nodes of ``I`` at once, so it needs no tree: it works on sequence forms given by parts,
    such as GameShrink's. The players are treated in turn, entries through a removed
    sequence no longer count, until a pass removes nothing; the reduced game keeps the
    value, and its equilibria lifted (:meth:`ReducedSequenceForm.lift`) are equilibria of
    the original."""
    if sf.num_players != 2:
        raise ValueError("eliminate_dominated is defined for two-player games")
    alive = [np.ones(ps.num_sequences, dtype=bool) for ps in sf.players]
    seqs = sf.terminal_sequences
    weight = np.asarray(sf.terminal_chance) != 0
    payoffs = np.asarray(sf.terminal_payoffs)
    entries = [_EntriesBySequence(seqs[:, p], payoffs[:, p]) for p in (0, 1)]
    rounds = 0
    quiet = 0
    p = 0
    while quiet < 2 and rounds < max_rounds:
        ps = sf.players[p]
        live = weight & alive[0][seqs[:, 0]] & alive[1][seqs[:, 1]]
        high, low = _subtree_extremes(ps, entries[p], live, alive[p])
        sequences = np.arange(1, ps.num_sequences)
        infoset = ps.sequence_infoset[1:]
        # the best guaranteed payoff among the live actions of each information set (the
        # sequences of an information set are consecutive)
        guaranteed = np.where(alive[p][1:], low[1:], -np.inf)
        best_low = np.maximum.reduceat(guaranteed, ps.infoset_first_sequence - 1) if guaranteed.size else guaranteed
        dominated = alive[p][1:] & np.isfinite(high[1:]) & (high[1:] < best_low[infoset])
        if dominated.any():
            alive[p][sequences[dominated]] = False
            _close_downwards(ps, alive[p])
            quiet = 0
        else:
            quiet += 1
        rounds += 1
        p = 1 - p
    return _restrict(sf, alive, rounds)


def _restrict(sf: SequenceForm, alive: list[np.ndarray], rounds: int) -> ReducedSequenceForm:
    players = []
    maps = []
    for ps, kept in zip(sf.players, alive):
        where = np.full(ps.num_sequences, -1, dtype=np.int64)
        where[kept] = np.arange(int(kept.sum()))
        live_infosets = np.flatnonzero(kept[ps.infoset_parent_sequence])
        actions = np.bincount(ps.sequence_infoset[1:][kept[1:]], minlength=ps.num_infosets)[live_infosets]
        players.append(
            build_player_sequences(
                ps.player, ps.infoset_global[live_infosets], actions, where[ps.infoset_parent_sequence[live_infosets]]
            )
        )
        maps.append(where)
    s = sf.terminal_sequences
    keep = alive[0][s[:, 0]] & alive[1][s[:, 1]]
    reduced = SequenceForm.from_parts(
        players,
        np.stack([maps[0][s[keep, 0]], maps[1][s[keep, 1]]], axis=1),
        np.asarray(sf.terminal_chance)[keep],
        np.asarray(sf.terminal_payoffs)[keep],
        game=sf.game,
    )
    return ReducedSequenceForm(sf, reduced, alive, maps, rounds)


__all__ = ["ReducedSequenceForm", "dominated_actions", "dominated_sequences", "eliminate_dominated"]
