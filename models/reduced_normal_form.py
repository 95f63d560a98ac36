"""The reduced normal form of an extensive game: pure plans as strategies.

A reduced pure strategy (a *plan*, Koller, Megiddo and von Stengel, "Efficient
computation of equilibria for extensive two-person games", 1996; Gambit's reduced
strategic form) picks one action at every information set the plan itself does not
exclude and nothing elsewhere: pure strategies that differ only at information sets their
own earlier moves avoid are one plan. A plan is a 0/1 realization plan, the set of its
sequences, so player ``p``'s plans are the rows of a sparse 0/1 matrix ``P_p`` (plans x
sequences) and the payoff of a plan profile is the sum of the sequence-form payoff
entries it selects: for two players ``U_p = P_1 A_p P_2^T`` with ``A_p`` the sparse
sequence-form payoff matrix (:meth:`SequenceForm.payoff_matrix`); for more players the
payoff entries are contracted with each player's ``P_q`` in turn.

The number of plans is counted exactly before anything is built, by the treeplex
recursion (a sequence's count is the product over the information sets below it of the
sum of their actions' counts), so a normal form that would not fit in the memory the
caller names is refused with its size (:class:`NormalFormTooLarge`) before any table is
allocated. Plans are enumerated bottom-up, one numpy step per information set (Cartesian
products by ``repeat`` and ``tile``); nothing is a Python object per plan but its label.

A mixed strategy over plans ``q`` maps back to the realization plan ``q @ P_p`` and so to
a behaviour strategy (realization-equivalence), which the tree certifies
(:meth:`ReducedNormalForm.certify`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .best_response import Exploitability, certify
from .efg import ExtensiveGame
from .errors import EquilibriaError, GameError
from .normal_form import NormalFormGame
from .sequence import PlayerSequences, SequenceForm

#: Peak bytes per cell of the table and per player beyond the table's own 8: the
#: finiteness check of :class:`NormalFormGame` (two masks of one byte) and rounding.
BYTES_PER_CELL = 8 + 4
#: Cells of the table computed per sparse product, which bounds the transient memory of a
#: product (its sparse result, about 16 bytes per cell) beside the table.
CHUNK_CELLS = 1 << 21
#: The label of an information set a plan excludes (Gambit's mark for it).
UNREACHED_MARK = "*"


class NormalFormTooLarge(EquilibriaError):
    """The reduced normal form of a game would not fit in the memory available."""


@dataclass(frozen=True)
class ReducedSize:
    """What a reduced normal form holds, counted without building it: plans per player
    (exact Python integers), cells of the payoff table and the bytes its construction is
    estimated to need."""

    plans: tuple[int, ...]
    cells: int
    bytes: int

    def describe(self) -> str:
        """``27 x 64 plans = 1,728 cells`` (large numbers in scientific notation)."""
        return f"{' x '.join(_count(m) for m in self.plans)} plans = {_count(self.cells)} cells"


def _count(n: int) -> str:
    """A count with thousands separators, or ``3.52e40`` beyond 15 digits (exact to the
    digits shown; a float would overflow on counts such as 3**1000)."""
    if n < 10**15:
        return f"{n:,}"
    digits = str(n)
    return f"{digits[0]}.{digits[1:3]}e{len(digits) - 1}"


def _bytes(n: int) -> str:
    """Bytes for people: ``124 GB``, ``3.1 MB``."""
    for unit, size in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= size:
            return f"{_count(n // size) if n >= 10**15 * size else f'{n / size:.3g}'} {unit}"
    return f"{n} bytes"


def plan_count(ps: PlayerSequences) -> int:
    """Number of reduced plans of one player, exactly: bottom-up over the treeplex, a
    sequence's count is the product over the information sets it leads to of the sum of
    their actions' counts (Python integers in object arrays, one numpy step per level)."""
    tp = ps.treeplex
    counts = np.ones(tp.num_sequences, dtype=object)
    for lv in reversed(tp.levels):
        if lv.sequences.size:
            totals = np.add.reduceat(counts[lv.sequences], lv.offsets)
            np.multiply.at(counts, lv.parent, totals)
    return int(counts[0])


def reduced_size(sf: SequenceForm) -> ReducedSize:
    """Plans per player, cells and the bytes the reduced normal form needs: the payoff
    table (8 bytes a cell per player and the transients of :data:`BYTES_PER_CELL`), and per
    plan its choices twice (being assembled), its sparse row (12 bytes per sequence) and its
    label (an object and its text)."""
    plans = tuple(plan_count(ps) for ps in sf.players)
    cells = math.prod(plans)
    need = cells * sf.num_players * BYTES_PER_CELL + sf.num_players * CHUNK_CELLS * 16
    for m, ps in zip(plans, sf.players):
        k = ps.num_infosets
        need += m * (k * (2 * _choice_dtype(ps).itemsize + 12 + 8) + 100)
    return ReducedSize(plans=plans, cells=cells, bytes=need)


def check_fits(sf: SequenceForm, memory: int, name: str | None = None) -> ReducedSize:
    """The size of the reduced normal form; NormalFormTooLarge, naming the plans, cells and
    bytes against ``memory`` (the bytes this process may use), when it would not fit."""
    size = reduced_size(sf)
    if size.bytes > memory:
        what = name or (sf.game.title if sf.game is not None and sf.game.title else "the game")
        raise NormalFormTooLarge(
            f"the reduced normal form of '{what}' is too large: {size.describe()}, needing about "
            f"{_bytes(size.bytes)}; this process has {_bytes(max(memory, 0))} available "
            "(free memory, ulimit and cgroup limits); choose smaller parameters or solve the sequence form"
        )
    return size


def _choice_dtype(ps: PlayerSequences) -> np.dtype:
    """The narrowest signed integer holding every action index and -1 (excluded)."""
    most = int(ps.infoset_num_actions.max(initial=1))
    for dtype in (np.int8, np.int16, np.int32):
        if most <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _product(blocks: Sequence[tuple[np.ndarray, np.ndarray]], dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Every combination of one row from each block (the first block varies slowest):
    blocks are (choices, the information sets their columns stand for), disjoint."""
    rows = np.zeros((1, 0), dtype=dtype)
    ids = np.zeros(0, dtype=np.int64)
    for choices, infosets in blocks:
        a, b = rows.shape[0], choices.shape[0]
        rows = np.hstack([np.repeat(rows, b, axis=0), np.tile(choices, (a, 1))])
        ids = np.concatenate([ids, infosets])
    return rows, ids


def plan_choices(ps: PlayerSequences) -> np.ndarray:
    """Player ``ps``'s reduced plans as a (plans, information sets) array: the action a
    plan picks at each information set, -1 where the plan excludes it.

    Bottom-up over the player's information sets, deepest first: an information set's
    plans are, per action, the plans of the sequence it ends in (the Cartesian product of
    the plans of the information sets that sequence leads to) with that action written in
    its column. One numpy step per information set and action; rows are ordered with the
    player's first information sets varying slowest."""
    dtype = _choice_dtype(ps)
    tp = ps.treeplex
    order = np.argsort(tp.parent_sequence, kind="stable")
    starts = np.searchsorted(tp.parent_sequence[order], np.arange(tp.num_sequences + 1))
    blocks: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def below(s: int) -> tuple[np.ndarray, np.ndarray]:
        # the information sets after sequence s are finished (deeper): combine and free them
        kids = order[starts[s] : starts[s + 1]]
        return _product([blocks.pop(int(k)) for k in kids], dtype)

    for lv in reversed(tp.levels):
        for k in lv.infosets:
            parts = [below(int(tp.first_sequence[k]) + a) for a in range(int(tp.num_actions[k]))]
            ids = np.concatenate([[k], *(infosets for _, infosets in parts)])
            choices = np.full((sum(c.shape[0] for c, _ in parts), ids.shape[0]), -1, dtype=dtype)
            row, col = 0, 1
            for a, (c, infosets) in enumerate(parts):
                choices[row : row + c.shape[0], 0] = a
                choices[row : row + c.shape[0], col : col + infosets.shape[0]] = c
                row, col = row + c.shape[0], col + infosets.shape[0]
            blocks[int(k)] = (choices, ids)
    rows, ids = below(0)
    out = np.empty_like(rows)
    out[:, ids] = rows  # every information set lies below the empty sequence: ids is a permutation
    return out


def plan_matrix(ps: PlayerSequences, choices: np.ndarray) -> sp.csr_matrix:
    """The plans as a sparse 0/1 matrix (plans x sequences): each row is the realization
    plan of one plan (the empty sequence and the sequence of every action it picks)."""
    m, k = choices.shape
    flat = choices.ravel()
    picked = np.flatnonzero(flat >= 0)  # row-major: each row's entries together, in order
    rows, infosets = np.divmod(picked, max(k, 1))
    seqs = ps.infoset_first_sequence[infosets] + flat[picked]
    del picked, infosets
    per_row = np.bincount(rows, minlength=m) + 1
    indptr = np.concatenate([[0], np.cumsum(per_row)])
    indices = np.empty(int(indptr[-1]), dtype=np.int64)
    indices[indptr[:-1]] = 0
    rest = np.ones(indices.shape[0], dtype=bool)
    rest[indptr[:-1]] = False
    indices[rest] = seqs
    return sp.csr_matrix((np.ones(indices.shape[0]), indices, indptr), shape=(m, ps.num_sequences))


def plan_labels(game: ExtensiveGame | None, ps: PlayerSequences, choices: np.ndarray) -> list[str]:
    """One name per plan: the action picked at each of the player's information sets, in
    the game's order, separated by spaces, ``*`` where the plan excludes the information
    set. Action labels are used where an information set's are distinct, non-empty words
    (not ``*``); its action numbers (1, 2, ...) otherwise. A player without moves has the
    one plan ``-``."""
    if ps.num_infosets == 0:
        return ["-"] * choices.shape[0]
    words = []
    for i in range(ps.num_infosets):
        k, na = int(ps.infoset_global[i]), int(ps.infoset_num_actions[i])
        names = [game.action_label(k, a) if game is not None else str(a + 1) for a in range(na)]
        if len(set(names)) < na or any(not n or n.split() != [n] or n == UNREACHED_MARK for n in names):
            names = [str(a + 1) for a in range(na)]
        table = np.array([*names, UNREACHED_MARK], dtype=object)  # index -1: excluded
        words.append(table[choices[:, i]].tolist())
    # one join per plan over the columns: ten times faster than adding object arrays
    # column by column, which copies every growing label once per information set
    return [" ".join(row) for row in zip(*words)]


@dataclass(frozen=True)
class ReducedNormalForm:
    """The reduced normal form of ``sequence_form``'s game: the :class:`NormalFormGame`
    over plans, and per player the plans as a sparse 0/1 matrix (plans x sequences) and as
    choices (plans x information sets, -1 where excluded)."""

    game: NormalFormGame
    sequence_form: SequenceForm
    plans: list[sp.csr_matrix]
    choices: list[np.ndarray]

    def realization_plans(self, profile: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each player's mixed strategy over plans as a realization plan (``q @ P_p``)."""
        if len(profile) != len(self.plans):
            raise GameError(f"a profile for {len(self.plans)} players has {len(profile)} strategies")
        out = []
        for p, (q, plans) in enumerate(zip(profile, self.plans)):
            q = np.asarray(q, dtype=np.float64)
            if q.shape != (plans.shape[0],):
                raise GameError(
                    f"player {p + 1}'s mixed strategy has shape {q.shape}; there are {plans.shape[0]} plans"
                )
            out.append(np.asarray(plans.T @ q))
        return out

    def behaviors(self, profile: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The profile as behaviour strategies of the tree, realization-equivalent to it
        (uniform at information sets a player's own plan mix never reaches)."""
        plans = self.realization_plans(profile)
        return [ps.treeplex.behavior(r) for ps, r in zip(self.sequence_form.players, plans)]

    def certify(self, profile: Sequence[np.ndarray]) -> Exploitability:
        """The profile's exact best responses in the tree (:func:`certify`)."""
        return certify(self.sequence_form, self.behaviors(profile))


def _two_player_table(sf: SequenceForm, plans: list[sp.csr_matrix]) -> np.ndarray:
    """``U_p = P_1 A_p P_2^T`` for both players, a block of player 1's plans at a time."""
    m1, m2 = plans[0].shape[0], plans[1].shape[0]
    out = np.empty((2, m1, m2))
    p2t = plans[1].T.tocsr()
    step = max(1, CHUNK_CELLS // max(m2, 1))
    for p in range(2):
        a = sf.payoff_matrix(p)
        for lo in range(0, m1, step):
            out[p, lo : lo + step] = (plans[0][lo : lo + step] @ a @ p2t).toarray()
    return out


def _contract(coords: np.ndarray, values: np.ndarray, q: int, plans: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Entries over (..., sequence of player q, ...) summed into entries over (..., plan of
    player q, ...): the entries sharing the other coordinates form one column, and the
    plan matrix multiplies them all at once."""
    others = np.delete(coords, q, axis=1)
    keys, column = np.unique(others, axis=0, return_inverse=True)
    by_sequence = sp.csr_matrix((values, (coords[:, q], column.ravel())), shape=(plans.shape[1], keys.shape[0]))
    lifted = (plans @ by_sequence).tocoo()
    return np.insert(keys[lifted.col], q, lifted.row, axis=1), lifted.data


def _n_player_table(sf: SequenceForm, plans: list[sp.csr_matrix]) -> np.ndarray:
    """Every player's payoff table from the payoff entries (one per terminal: the players'
    sequences, chance times payoff), contracted with each player's plans in turn, a block
    of player 1's plans at a time."""
    n = sf.num_players
    shape = tuple(P.shape[0] for P in plans)
    rest = math.prod(shape[1:])
    out = np.empty((n, *shape))
    seqs = np.asarray(sf.terminal_sequences, dtype=np.int64)
    step = max(1, CHUNK_CELLS // max(rest, 1))
    for p in range(n):
        values = sf.terminal_chance * sf.terminal_payoffs[:, p]
        for lo in range(0, shape[0], step):
            block = plans[0][lo : lo + step]
            coords, data = _contract(seqs, values, 0, block)
            for q in range(1, n):
                coords, data = _contract(coords, data, q, plans[q])
            cells = np.ravel_multi_index(tuple(coords.T), (block.shape[0], *shape[1:]))
            table = np.bincount(cells, weights=data, minlength=block.shape[0] * rest)
            out[p, lo : lo + step] = table.reshape(block.shape[0], *shape[1:])
    return out


def reduced_normal_form(
    game: ExtensiveGame | SequenceForm, *, memory: int | None = None, name: str | None = None, labels: bool = True
) -> ReducedNormalForm:
    """The reduced normal form of ``game`` (an extensive game, or its sequence form).

    ``memory`` is the bytes this process may use (the command line passes
    ``instances.registry.available_memory()``): a normal form estimated to need more is
    refused with :class:`NormalFormTooLarge` before anything large is allocated; ``None``
    skips that check. ``name`` is what the refusal calls the game (default its title).
    Strategies are named by :func:`plan_labels` (``labels=False``: numbered 1, 2, ...,
    which saves a string per plan for a program that never prints them).
    """
    sf = game if isinstance(game, SequenceForm) else SequenceForm(game)
    if memory is not None:
        check_fits(sf, memory, name)
    choices = [plan_choices(ps) for ps in sf.players]
    plans = [plan_matrix(ps, c) for ps, c in zip(sf.players, choices)]
    table = _two_player_table(sf, plans) if sf.num_players == 2 else _n_player_table(sf, plans)
    tree = sf.game
    normal = NormalFormGame(
        table,
        player_names=tree.player_names if tree is not None else None,
        strategy_names=[plan_labels(tree, ps, c) for ps, c in zip(sf.players, choices)] if labels else None,
        title=f"{tree.title} (reduced normal form)" if tree is not None and tree.title else "reduced normal form",
    )
    return ReducedNormalForm(game=normal, sequence_form=sf, plans=plans, choices=choices)


__all__ = [
    "NormalFormTooLarge",
    "ReducedNormalForm",
    "ReducedSize",
    "check_fits",
    "plan_choices",
    "plan_count",
    "plan_labels",
    "plan_matrix",
    "reduced_normal_form",
    "reduced_size",
]
