"""The abstract game of an information filter: its sequence form, its game tree, and the
lift of its strategies to the full game.

:func:`filtered_sequence_form` builds the abstract game's sequence form directly from the
betting tree and the classes of an :class:`~equilibria.models.gameshrink.InformationFilter`,
without expanding any game tree; its entries are aggregated per pair of classes, so the
work is proportional to the abstract LP. :func:`lift_behavior` plays an abstract strategy
in the full game (Gilpin and Sandholm, "Lossless abstraction of imperfect information
games", J. ACM 2007: an equilibrium of the abstract game lifts to one of the full game)
by integer arrays: each information set's key in the full game gives its betting node and
cards, the cards its view, the view its class.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .array_ops import usable_cores
from .betting import decode_view_keys
from .efg import CHANCE, TERMINAL, ExtensiveGame, segment_ranges
from .errors import GameError
from .gameshrink import InformationFilter
from .ordered import OrderedGame
from .sequence import SequenceForm, build_player_sequences


@dataclass
class FilteredGame:
    """The abstract game of a filter as a sequence form, with the maps to lift it back.

    ``infoset_index[i]`` is an int array over the betting tree's nodes: the first of player
    ``i``'s abstract information sets at that node (one per class of the node's round, in
    class order), -1 at nodes where ``i`` does not act.
    """

    game: OrderedGame
    filter: InformationFilter
    sequence_form: SequenceForm
    infoset_index: list
    seconds: float = 0.0


def class_ancestors(filt: InformationFilter, i: int) -> list[dict[int, np.ndarray]]:
    """``out[r][s]``: for each round-``r`` class of player ``i``, its round-``s`` class
    (``s <= r``; for the identity filter, classes are views)."""
    out = []
    for r in range(filt.game.rounds):
        cur = np.arange(filt.num_classes(i, r))
        maps = {r: cur}
        for s in range(r, 0, -1):
            cur = filt.parent_class(i, s)[cur]
            maps[s - 1] = cur
        out.append(maps)
    return out


def filtered_sequence_form(filt: InformationFilter) -> FilteredGame:
    """The filtered game's sequence form, built from the betting tree and the classes.

    Information sets of player i: (class of the round's view, decision node of the
    betting tree). Payoff entries: per terminal of the tree, one per pair of classes that
    occurs in its round, weighted by the chance of that pair (and at a showdown, summed
    over outcomes). Returns the :class:`FilteredGame`.
    """
    t0 = time.perf_counter()
    game, space = filt.game, filt.space
    t = game.betting
    last_node, last_action = t.last_own
    R = game.rounds
    ncls = [[filt.num_classes(i, r) for r in range(R)] for i in (0, 1)]
    anc = [class_ancestors(filt, i) for i in (0, 1)]
    rnd = t.round
    players, first_infoset, first_seq_of = [], [], []
    for i in (0, 1):
        nodes = [v for v in t.decisions if t.player[v] == i]
        start, parent_list = 0, []
        infoset_first = np.full(t.num_nodes, -1, dtype=np.int64)
        seq_first = {}
        for v in nodes:
            infoset_first[v] = start
            start += ncls[i][rnd[v]]
        # sequences numbered by information set: first sequence of infoset (v, k)
        na_all = (
            np.concatenate([np.full(ncls[i][rnd[v]], len(t.children[v])) for v in nodes])
            if nodes
            else np.zeros(0, dtype=np.int64)
        )
        first = 1 + np.cumsum(na_all) - na_all
        for v in nodes:
            seq_first[v] = first[infoset_first[v] : infoset_first[v] + ncls[i][rnd[v]]]
        for v in nodes:
            r = rnd[v]
            u, a = last_node[v, i], last_action[v, i]
            if u < 0:
                parent_list.append(np.zeros(ncls[i][r], dtype=np.int64))
            else:
                parent_list.append(seq_first[u][anc[i][r][rnd[u]]] + a)
        parent = np.concatenate(parent_list) if parent_list else np.zeros(0, dtype=np.int64)
        players.append(build_player_sequences(i, np.arange(na_all.shape[0]), na_all, parent))
        first_infoset.append(infoset_first)
        first_seq_of.append(seq_first)
    # class pairs per round with their chance mass (and outcome masses at the end)
    pair_mass = []
    for r in range(R):
        k1 = filt.classes[0][r][space.view_index[0][r]]
        k2 = filt.classes[1][r][space.view_index[1][r]]
        w = 1.0 / space.states[r].shape[0]
        if r == R - 1:
            key = (k1 * ncls[1][r] + k2) * 3 + (space.outcome.astype(np.int64) + 1)
            u, cnt = np.unique(key, return_counts=True)
            pair, out = u // 3, u % 3 - 1
        else:
            key = k1 * ncls[1][r] + k2
            u, cnt = np.unique(key, return_counts=True)
            pair, out = u, np.zeros_like(u)
        pair_mass.append((pair // ncls[1][r], pair % ncls[1][r], out, cnt * w))
    # one payoff entry per (terminal, class pair of its round): preallocated, int32
    # sequences, so the biggest games (Rhode Island: 1.2e8 entries) stay in memory
    total = sum(pair_mass[rnd[v]][0].shape[0] for v in t.terminals)
    max_seq = max(p.num_sequences for p in players)
    # one column per player, each contiguous: the payoff matrix reads them as its row and
    # column indices without a copy
    seqs = np.zeros((total, 2), dtype=np.int32 if max_seq < 2**31 else np.int64, order="F")
    chance = np.empty(total)
    # chips are small whole numbers: float32 holds them exactly and halves the payoff table
    chips = np.array([c for v in t.terminals for c in t.contrib[v]], dtype=np.float64)
    exact32 = np.array_equal(chips.astype(np.float32).astype(np.float64), chips)
    pays = np.empty((total, 2), dtype=np.float32 if exact32 else np.float64)
    # sequence of each class at (player, round of the terminal, last own node, action):
    # one gather per terminal instead of two through the class ancestors
    seq_of_class: dict[tuple[int, int, int, int], np.ndarray] = {}

    def class_sequences(i: int, r: int, u: int, a: int) -> np.ndarray:
        key = (i, r, u, a)
        if key not in seq_of_class:
            seq_of_class[key] = (first_seq_of[i][u][anc[i][r][rnd[u]]] + a).astype(seqs.dtype)
        return seq_of_class[key]

    starts, at = [], 0
    for v in t.terminals:
        if t.folder[v] < 0 and rnd[v] != R - 1:
            raise GameError(f"betting history '{t.history[v]}' reaches a showdown before the last round")
        starts.append(at)
        at += pair_mass[rnd[v]][0].shape[0]

    def fill(v: int, at: int) -> None:
        """The entries of terminal ``v``, from ``at`` on."""
        r = rnd[v]
        c1, c2 = t.contrib[v]
        k1, k2, out, mass = pair_mass[r]
        n = mass.shape[0]
        folder = t.folder[v]
        p1 = -c1 if folder == 0 else c2 if folder == 1 else out * c2
        for i, k in ((0, k1), (1, k2)):
            u, a = last_node[v, i], last_action[v, i]
            if u >= 0:
                seqs[at : at + n, i] = class_sequences(i, r, int(u), int(a))[k]
        chance[at : at + n] = mass
        pays[at : at + n, 0] = p1
        pays[at : at + n, 1] = -p1

    # each terminal fills its own slice; numpy's gathers and copies release the GIL, so the
    # terminals share the cores (Rhode Island: 1.2e8 entries)
    with ThreadPoolExecutor(usable_cores()) as pool:
        list(pool.map(fill, t.terminals, starts))
    sf = SequenceForm.from_parts(players, seqs, chance, pays)
    return FilteredGame(game, filt, sf, first_infoset, seconds=time.perf_counter() - t0)


def filtered_extensive(fg: FilteredGame) -> ExtensiveGame:
    """The filtered game as an :class:`ExtensiveGame` (small games; a cross-check of
    :func:`filtered_sequence_form`): chance deals pairs of classes, round by round, with
    the conditional probabilities of the original deal; players see their own class;
    showdowns pay the expected outcome of the final pair of classes."""
    from .efg import GameBuilder

    game, filt = fg.game, fg.filter
    space = filt.space
    raw = game.betting
    R = game.rounds
    ncls2 = [filt.num_classes(1, r) for r in range(R)]
    pair_of_state = []
    for r in range(R):
        k1 = filt.classes[0][r][space.view_index[0][r]]
        k2 = filt.classes[1][r][space.view_index[1][r]]
        pair_of_state.append(k1 * ncls2[r] + k2)
    first = {}
    u, cnt = np.unique(pair_of_state[0], return_counts=True)
    first = dict(zip(u.tolist(), (cnt / cnt.sum()).tolist()))
    trans = []
    for r in range(1, R):
        parent_state = np.arange(space.states[r].shape[0]) // space.children_per_state[r - 1]
        key = np.stack([pair_of_state[r - 1][parent_state], pair_of_state[r]], axis=1)
        uk, cnt = np.unique(key, axis=0, return_counts=True)
        table: dict[int, list[tuple[int, int]]] = {}
        for (a, b), c in zip(uk.tolist(), cnt.tolist()):
            table.setdefault(a, []).append((b, c))
        trans.append({a: [(b, c / sum(x for _, x in lst)) for b, c in lst] for a, lst in table.items()})
    out = space.outcome.astype(np.float64)
    expected = {}
    uf, inv = np.unique(pair_of_state[R - 1], return_inverse=True)
    means = np.bincount(inv.reshape(-1), weights=out) / np.bincount(inv.reshape(-1))
    expected = dict(zip(uf.tolist(), means.tolist()))
    b = GameBuilder(title=f"{game.name}, filtered")

    def walk(node: int, v: int, r: int, pair: int) -> None:
        kind = raw.player[v]
        if kind == CHANCE:
            if not raw.public[v]:  # private cards: dealt as the first pair of classes
                return walk(node, raw.children[v][0], r, pair)
            nxt = trans[r][pair]
            kids = b.chance(node, [(f"pair {q}", pr) for q, pr in nxt])
            for kid, (q, _) in zip(kids, nxt):
                walk(kid, raw.children[v][0], r + 1, q)
            return
        if kind == TERMINAL:
            c1, c2 = raw.contrib[v]
            f = raw.folder[v]
            p1 = -c1 if f == 0 else (c2 if f == 1 else expected[pair] * c2)
            b.terminal(node, [p1, -p1])
            return
        k = pair // ncls2[r] if kind == 0 else pair % ncls2[r]
        kids = b.decision(node, int(kind), f"{k}:{raw.history[v]}", raw.action_labels(v))
        for kid, c in zip(kids, raw.children[v]):
            walk(kid, c, r, pair)

    roots = b.chance(b.root, [(f"pair {q}", pr) for q, pr in first.items()])
    for node, q in zip(roots, first):
        walk(node, 0, 0, q)
    return b.build()


#: Views named in an information set's label of the shrunk game; more are counted.
VIEWS_NAMED = 3


def filtered_labels(fg: FilteredGame, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Names of player ``i``'s information sets in the filtered game (one per set: the
    betting history, then the views of its class, as cards: ``"Kh | J, Q"``, the first
    :data:`VIEWS_NAMED` named and the rest counted) and of its sequences but the empty one
    (the betting tree's action labels), for :func:`~equilibria.models.strategy.strategy_table`.
    Built by integer arrays over the classes, not per information set."""
    game, filt, space = fg.game, fg.filter, fg.filter.space
    t, D = game.betting, game.deck
    cards = np.asarray(game.card_names, dtype=object)
    class_text = []
    for r in range(game.rounds):
        classes = np.asarray(filt.classes[i][r])
        order = np.argsort(classes, kind="stable")  # views by class, each class's views by code
        counts = np.bincount(classes, minlength=filt.num_classes(i, r))
        first = np.cumsum(counts) - counts
        codes = space.view_codes[i][r][order]
        digits = [(codes // D**k) % D for k in range(r, -1, -1)]  # own card, then the board
        view_names = cards[digits[0]]
        for d in digits[1:]:
            view_names = view_names + " " + cards[d]
        text = np.full(counts.shape[0], "", dtype=object)
        for k in range(min(VIEWS_NAMED, int(counts.max(initial=0)))):
            has = counts > k
            text[has] = text[has] + (", " if k else "") + view_names[first[has] + k]
        more = counts > VIEWS_NAMED
        text[more] = text[more] + np.char.add(" and ", (counts[more] - VIEWS_NAMED).astype(str)) + " more"
        class_text.append(text)
    nodes = np.asarray([v for v in t.decisions if t.player[v] == i], dtype=np.int64)
    per_node = np.asarray([filt.num_classes(i, int(t.round[v])) for v in nodes], dtype=np.int64)
    node = np.repeat(nodes, per_node)
    klass = np.arange(node.shape[0]) - np.repeat(np.cumsum(per_node) - per_node, per_node)
    history = np.asarray([t.history[v] or "(root)" for v in range(t.num_nodes)], dtype=object)
    rounds = t.round[node]
    views = np.empty(node.shape[0], dtype=object)
    for r in range(game.rounds):
        at = rounds == r
        views[at] = class_text[r][klass[at]]
    infosets = history[node] + " | " + views
    offsets = np.zeros(t.num_nodes + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(t.children[v]) for v in range(t.num_nodes)])
    action_labels = np.asarray([a for v in range(t.num_nodes) for a in t.action_labels(v)], dtype=object)
    ps = fg.sequence_form.players[i]
    seq_node = np.repeat(node, ps.infoset_num_actions)
    actions = action_labels[offsets[seq_node] + ps.sequence_action[1:]]
    return infosets.astype(str), actions.astype(str)


def abstract_infosets(fg: FilteredGame, original_game: ExtensiveGame, original_sf: SequenceForm) -> list[np.ndarray]:
    """Per player, the filtered game's information set of each of the full game's
    (``original_game``, from the game's ``to_extensive()``; ``original_sf`` its
    :class:`SequenceForm`): the class of its view at its betting node.

    The map is by integers, all information sets at once: the full game's
    ``infoset_key`` decodes to (betting node, own card, board cards); the cards give the
    view's code in the signal space, a sorted search its index, the filter its class, and
    ``fg.infoset_index`` the abstract information set. GameError when a key is no view of
    the game or the actions differ."""
    game, filt = fg.game, fg.filter
    space, t = filt.space, game.betting
    if original_game.infoset_key is None:
        raise GameError(
            f"the full game of '{game.name}' carries no information-set keys (build it with the game's to_extensive())"
        )
    D, R = game.deck, game.rounds
    views = decode_view_keys(original_game.infoset_key, D, R - 1)
    out = []
    for i in (0, 1):
        ps_full, ps_abs = original_sf.players[i], fg.sequence_form.players[i]
        g = np.asarray(ps_full.infoset_global, dtype=np.int64)
        node, own, board = views.template[g], views.own[g], views.board[g]
        ok = (views.player[g] == i) & (node >= 0) & (node < t.num_nodes) & (own >= 0) & (own < D)
        node = np.where(ok, node, 0)
        ok &= t.kind[node] == i
        rnd = t.round[node]
        # the view's code as SignalSpace numbers it: own card, then the board cards dealt
        # so far, in base D
        code = own.copy()
        for b in range(R - 1):
            dealt = b < rnd
            ok &= np.where(dealt, (board[:, b] >= 0) & (board[:, b] < D), board[:, b] == -1)
            code = np.where(dealt, code * D + board[:, b], code)
        if not np.all(ok):
            bad = int(g[np.flatnonzero(~ok)[0]])
            raise GameError(
                f"{original_game.infoset_label(bad)}: its key is no view of '{game.name}' "
                "(the full game must come from the game's to_extensive())"
            )
        cls = np.empty(g.shape[0], dtype=np.int64)
        for r in range(R):
            at = np.flatnonzero(rnd == r)
            codes = space.view_codes[i][r]
            pos = np.minimum(np.searchsorted(codes, code[at]), codes.shape[0] - 1)
            if np.any(codes[pos] != code[at]):
                bad = int(g[at[np.flatnonzero(codes[pos] != code[at])[0]]])
                raise GameError(f"{original_game.infoset_label(bad)}: its cards are no view of '{game.name}'")
            cls[at] = filt.classes[i][r][pos]
        abstract = fg.infoset_index[i][node] + cls
        na = np.asarray(ps_full.infoset_num_actions, dtype=np.int64)
        if not np.array_equal(np.asarray(ps_abs.infoset_num_actions)[abstract], na):
            raise GameError("the full game's actions do not match the filtered game's")
        out.append(abstract)
    return out


def _sequence_pairs(
    fg: FilteredGame, original_sf: SequenceForm, abstract: list[np.ndarray], i: int
) -> tuple[np.ndarray, np.ndarray]:
    """Player ``i``'s full-game sequences after the empty one, and the filtered game's
    sequence each of them plays (same action, the information set's class)."""
    ps_full, ps_abs = original_sf.players[i], fg.sequence_form.players[i]
    na = np.asarray(ps_full.infoset_num_actions, dtype=np.int64)
    full = segment_ranges(ps_full.infoset_first_sequence, na)
    return full, segment_ranges(np.asarray(ps_abs.infoset_first_sequence)[abstract[i]], na)


def lift_behavior(
    fg: FilteredGame, behaviors: Sequence[np.ndarray], original_game: ExtensiveGame, original_sf: SequenceForm
) -> list[np.ndarray]:
    """Behaviour strategies of the full game (``game.to_extensive()``) that play, at every
    information set, the strategy of its class in the filtered game.

    ``behaviors`` are per player arrays over the filtered game's sequences (as
    :func:`~equilibria.models.strategy.behavior_from_realization` returns them);
    ``original_sf`` is the full game's :class:`SequenceForm`; the information sets are
    matched by :func:`abstract_infosets`. Returns per player an array over the full
    game's sequences.
    """
    abstract = abstract_infosets(fg, original_game, original_sf)
    out = []
    for i in (0, 1):
        full, played = _sequence_pairs(fg, original_sf, abstract, i)
        lifted = np.ones(original_sf.players[i].num_sequences)
        lifted[full] = np.asarray(behaviors[i])[played]
        out.append(lifted)
    return out


def lift_matrix(
    fg: FilteredGame,
    original_game: ExtensiveGame,
    original_sf: SequenceForm,
    i: int,
    abstract: list[np.ndarray] | None = None,
) -> sp.csr_matrix:
    """The 0/1 matrix taking player ``i``'s realization plans of the filtered game to the
    full game's: each full sequence is realized as the filtered sequence it plays (the
    class's sequence of the same actions; the filter keeps classes' histories, so the
    product of behaviours along the path is the same), the empty sequence as the empty one.
    ``lift_matrix @ r`` is the realization plan of :func:`lift_behavior`'s strategy;
    ``abstract`` is :func:`abstract_infosets`' map where the caller has it already."""
    if abstract is None:
        abstract = abstract_infosets(fg, original_game, original_sf)
    full, played = _sequence_pairs(fg, original_sf, abstract, i)
    rows = np.concatenate([[0], full])
    cols = np.concatenate([[0], played])
    shape = (original_sf.players[i].num_sequences, fg.sequence_form.players[i].num_sequences)
    return sp.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=shape)


__all__ = [
    "FilteredGame",
    "class_ancestors",
    "filtered_labels",
    "filtered_sequence_form",
    "filtered_extensive",
    "abstract_infosets",
    "lift_behavior",
    "lift_matrix",
]
