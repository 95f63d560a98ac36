"""The sequence-form linear program of a two-player zero-sum game (Koller, Megiddo and von Stengel,
"Efficient computation of equilibria for extensive two-person games", 1996; Koller and
Pfeffer, "Generating and solving imperfect information games", 1995, section 4).

For player ``p`` with opponent ``o`` and chance-weighted payoff matrix ``A_p`` of ``p``:

    maximise    v(root)
    subject to  E_p r = e_p                          (realization: r(empty) = 1 and one
                                                      row per information set of p)
                A_p^T r - E_o^T v >= 0               (best_response: one row per sequence
                                                      sigma_o a of o, including the empty one:
                                                      sum_{I' in inf_o(sigma_o a)} v(I')
                                                      + sum g(sigma_p, sigma_o a) r(sigma_p) >= v(I))
                0 <= r <= 1,  v free

Columns: ``r`` (p's sequences) then ``v`` (``v_0`` is the root, ``v_{1+i}`` is o's
``i``-th information set); files name them after the game's sequences and information
sets (``r1(J._bet)``, ``v2()``: :mod:`equilibria.models.sequence_names`). The duals of the
``best_response`` rows form o's realization plan, so one solve gives both players'
equilibrium strategies.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import scipy.sparse as sp

from ..models.constant_sum import constant_sum, off_constant
from ..models.errors import GameError
from ..models.sequence import SequenceForm
from ..models.sequence_names import sequence_form_lp_names
from .linear_program import Block, LinearProgram


def check_two_player_zero_sum(sf: SequenceForm, what: str) -> float:
    """The constant the two players' payoffs add up to at every terminal (0 for a zero-sum
    game). A constant-sum game is solved as zero-sum: shifting player 2's payoffs by a
    constant changes no best response, since the terminals' probabilities under any pair
    of strategies add up to one. Raises GameError naming the number of players, or the
    first terminal whose payoffs add up to something else; ``what`` names the method."""
    if sf.num_players != 2:
        raise GameError(f"{what} is for two-player games; this one has {sf.num_players} players")
    constant = constant_sum(sf.terminal_payoffs)
    if constant is not None:
        return constant
    first_sum, off = off_constant(sf.terminal_payoffs)  # only to name the terminals
    node = int(sf.terminal_nodes[off[0]])
    first = int(sf.terminal_nodes[0])
    describe = sf.game.describe_node if sf.game is not None else (lambda v: f"payoff entry {v}")
    raise GameError(
        f"{what} needs a zero-sum (or constant-sum) game, but the payoffs at {describe(first)} sum to "
        f"{float(first_sum)!r} and at {describe(node)} to {float(sf.terminal_payoffs[off[0]].sum())!r} "
        "(general-sum games: equilibria nash)"
    )


def sequence_form_lp(sf: SequenceForm, player: int = 0) -> LinearProgram:
    """Build player ``player``'s (0-based) sequence-form LP in sparse standard form."""
    check_two_player_zero_sum(sf, "the sequence-form LP")
    p, o = player, 1 - player
    Ep = sf.players[p].constraint_matrix
    Eo = sf.players[o].constraint_matrix
    n_r, n_v = Ep.shape[1], Eo.shape[0]
    # column-wise, the layout HiGHS takes, so no conversion happens on the way in:
    # [[E_p, 0], [A_p', -E_o']], the payoff entries sorted straight into their columns
    mat = _lp_matrix(sf, p, Ep.tocsc(), -Eo.T.tocsc())
    lp = saddle_point_lp(
        mat, sf.players[p].constraint_rhs, n_r, n_v, Eo.shape[1], p, name=f"sequence_form_lp_player{p + 1}"
    )
    # named after the game's sequences, so a solver's solution file maps back to them
    lp.names = partial(sequence_form_lp_names, sf, p)
    return lp


def saddle_point_lp(
    mat: sp.csc_matrix,
    rhs: np.ndarray,
    n_r: int,
    n_v: int,
    m_br: int,
    player: int,
    *,
    name: str,
    aux: tuple[str, str] | None = None,
    compact: bool = False,
) -> LinearProgram:
    """Player ``player``'s sequence-form LP around the matrix ``mat``: columns ``r`` (the
    realization plan, in [0, 1]) and ``v`` (the opponent's information-set values, free),
    rows ``realization`` (``= rhs``) and ``best_response`` (``>= 0``); maximise ``v_0``.
    Columns and rows of ``mat`` beyond those are the block ``aux`` (non-negative) and its
    defining equations (``= 0``); ``aux`` names the pair of blocks' descriptions and
    ``compact`` marks the LP as the compact one of a card game."""
    o = 1 - player
    m_real = rhs.shape[0]
    n_aux = mat.shape[1] - n_r - n_v
    c = np.zeros(mat.shape[1])
    c[n_r] = 1.0
    col_blocks = [
        Block("r", 0, n_r, f"realization plan of player {player + 1}, one entry per sequence"),
        Block("v", n_r, n_r + n_v, f"values of player {o + 1}'s information sets (v_0: root)"),
    ]
    row_blocks = [
        Block("realization", 0, m_real, "r(empty) = 1; sum of an information set's actions = parent sequence"),
        Block("best_response", m_real, m_real + m_br, f"one row per sequence of player {o + 1}"),
    ]
    if n_aux:
        described = aux or ("auxiliary variables", "their definitions")
        col_blocks.append(Block("aux", n_r + n_v, mat.shape[1], described[0]))
        row_blocks.append(Block("aux_definitions", m_real + m_br, mat.shape[0], described[1]))
    return LinearProgram(
        name=name,
        c=c,
        A=mat,  # CSC
        row_lower=np.concatenate([rhs, np.zeros(m_br), np.zeros(n_aux)]),
        row_upper=np.concatenate([rhs, np.full(m_br, np.inf), np.zeros(n_aux)]),
        col_lower=np.concatenate([np.zeros(n_r), np.full(n_v, -np.inf), np.zeros(n_aux)]),
        col_upper=np.concatenate([np.ones(n_r), np.full(n_v, np.inf), np.full(n_aux, np.inf)]),
        maximize=True,
        col_blocks=col_blocks,
        row_blocks=row_blocks,
        objective_doc="v(root): the value guaranteed to the player",
        player=player,
        opponent=o,
        compact=compact,
    )


#: Entries moved per step when assembling the LP matrix (bounds the temporaries).
ASSEMBLY_CHUNK = 1 << 22


def _lp_matrix(sf: SequenceForm, p: int, top: sp.csc_matrix, right: sp.csc_matrix) -> sp.csc_matrix:
    """The CSC matrix ``[[top, 0], [A_p', right]]`` of player ``p``'s LP, where column ``j``
    of ``A_p'`` holds the payoff entries whose player-``p`` sequence is ``j`` (value: chance
    times ``p``'s payoff, row: the opponent's sequence), repeated pairs summed.

    The entries are sorted into arrays of the final size a few million at a time (a
    counting sort by column), so the build needs the matrix and small chunks, never a copy
    of the payoff entries (scipy's COO route holds inputs and output at once: it decided
    the memory of a shrunk Rhode Island LP, 1.2e8 entries)."""
    seqs, chance, payoff = sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs
    o = 1 - p
    n_left, m_top = top.shape[1], top.shape[0]
    n_entries = seqs.shape[0]
    chunks = [(k, min(k + ASSEMBLY_CHUNK, n_entries)) for k in range(0, n_entries, ASSEMBLY_CHUNK)]
    per_column = np.zeros(n_left, dtype=np.int64)
    for k0, k1 in chunks:
        live = (chance[k0:k1] * payoff[k0:k1, p]) != 0
        per_column += np.bincount(seqs[k0:k1, p][live], minlength=n_left)
    nt = np.diff(top.indptr).astype(np.int64)
    nr = np.diff(right.indptr).astype(np.int64)
    indptr = np.zeros(n_left + right.shape[1] + 1, dtype=np.int64)
    np.cumsum(np.concatenate([nt + per_column, nr]), out=indptr[1:])
    nnz = int(indptr[-1])
    rows = m_top + sf.players[o].num_sequences
    data = np.empty(nnz)
    indices = np.empty(nnz, dtype=np.int32 if rows < 2**31 and nnz < 2**31 else np.int64)
    _copy_columns(top, indptr[:n_left], 0, data, indices)
    _copy_columns(right, indptr[n_left:-1], m_top, data, indices)
    fill = indptr[:n_left] + nt  # next free place in each column
    for k0, k1 in chunks:
        vals = chance[k0:k1] * payoff[k0:k1, p]
        live = np.flatnonzero(vals != 0)
        if not live.size:  # a chunk of zero payoffs (ties, or a game that pays nothing)
            continue
        column = seqs[k0:k1, p][live]
        order = np.argsort(column, kind="stable")
        column = column[order]
        starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
        counts = np.diff(np.r_[starts, column.shape[0]])
        # place = the column's next free place + rank among this chunk's entries of the column
        place = np.repeat(fill[column[starts]] - starts, counts) + np.arange(column.shape[0])
        fill[column[starts]] += counts
        data[place] = vals[live[order]]
        indices[place] = m_top + seqs[k0:k1, o][live[order]]
    if indices.dtype == np.int32:
        indptr = indptr.astype(np.int32)  # one index type, so scipy copies neither array
    mat = sp.csc_matrix((data, indices, indptr), shape=(rows, n_left + right.shape[1]), copy=False)
    mat.sum_duplicates()  # in place: the same pair of sequences at several terminals
    return mat


def _copy_columns(
    src: sp.csc_matrix, starts: np.ndarray, row_shift: int, data: np.ndarray, indices: np.ndarray
) -> None:
    """Write each column ``j`` of ``src`` to ``data``/``indices`` from ``starts[j]`` on,
    its row indices shifted by ``row_shift``, in chunks of whole columns."""
    ptr = src.indptr.astype(np.int64)
    j = 0
    n = src.shape[1]
    while j < n:
        # as many whole columns as fit in one chunk (at least one)
        stop = int(np.searchsorted(ptr, ptr[j] + ASSEMBLY_CHUNK, side="right")) - 1
        stop = min(max(stop, j + 1), n)
        k0, k1 = int(ptr[j]), int(ptr[stop])
        if k1 > k0:
            dest = np.repeat(starts[j:stop] - ptr[j:stop], np.diff(ptr[j : stop + 1]))
            dest += np.arange(k0, k1, dtype=np.int64)
            data[dest] = src.data[k0:k1]
            indices[dest] = src.indices[k0:k1]
            if row_shift:
                indices[dest] += row_shift
        j = stop


def realization_plan(lp: LinearProgram, x: np.ndarray) -> np.ndarray:
    """The LP player's realization plan from a primal solution."""
    b = lp.col_block("r")
    return np.clip(np.asarray(x)[b.start : b.stop], 0.0, 1.0)


def opponent_realization_plan(lp: LinearProgram, row_duals: np.ndarray) -> np.ndarray:
    """The opponent's realization plan from the duals of the ``best_response`` rows.

    Solvers differ in the sign convention of duals; the magnitudes are the plan.
    """
    b = lp.row_block("best_response")
    return np.clip(np.abs(np.asarray(row_duals)[b.start : b.stop]), 0.0, 1.0)


def equilibrium_behaviors(
    sf: SequenceForm,
    lp: LinearProgram,
    x: np.ndarray,
    row_duals: np.ndarray | None = None,
    opponent_lp: LinearProgram | None = None,
    opponent_x: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Both players' behaviour strategies from a solved sequence-form LP.

    The LP's player gets the primal realization plan; the opponent gets the duals of the
    ``best_response`` rows, or the primal plan of the opponent's own LP when given
    (``opponent_lp``, ``opponent_x``). Returned in player order, on ``sf``'s sequences.
    """
    from ..models.strategy import behavior_from_realization

    p, o = lp.player, lp.opponent
    if p is None or o is None:
        raise ValueError(f"the LP {lp.name!r} names no player and opponent: not a sequence-form LP")
    plans: list[np.ndarray | None] = [None, None]
    plans[p] = realization_plan(lp, x)
    if opponent_lp is not None and opponent_x is not None:
        plans[o] = realization_plan(opponent_lp, opponent_x)
    elif row_duals is not None:
        plans[o] = opponent_realization_plan(lp, row_duals)
    else:
        raise GameError("the opponent's strategy needs the LP's row duals or the opponent's own LP")
    return [behavior_from_realization(sf.players[q], plan) for q, plan in enumerate(plans) if plan is not None]


def best_abstract_equilibrium_lp(
    abstract_sf: SequenceForm,
    original_sf: SequenceForm,
    lift: sp.spmatrix,
    abstract_value: float,
    player: int = 0,
    tolerance: float = 1e-9,
) -> LinearProgram:
    """Among ``player``'s equilibrium strategies of an abstract game, the one that
    guarantees most in the original game.

    Columns: ``r`` (the abstract realization plan), ``v_abstract`` and ``v_original``
    (the opponent's information-set values in each game). Rows: the abstract LP's
    ``realization`` and ``best_response`` rows, ``equilibrium`` (the abstract guarantee is
    at least ``abstract_value - tolerance``: r is one of the abstraction's maximin
    strategies) and ``original_best_response`` (the opponent's best responses in the
    original game to the lifted plan ``lift @ r``). Maximises ``v_original(root)``.
    """
    base = sequence_form_lp(abstract_sf, player)
    full = sequence_form_lp(original_sf, player)
    nr = base.col_block("r").size
    nva = base.col_block("v").size
    full_r = full.col_block("r")
    nvf = full.col_block("v").size
    full_br = full.row_block("best_response")
    A_full = full.A.tocsr()[full_br.start : full_br.stop]
    lifted = (A_full[:, full_r.start : full_r.stop] @ lift).tocsc()
    v_part = A_full[:, full_r.stop :]
    eq = sp.csr_matrix(([1.0], ([0], [nr])), shape=(1, nr + nva))
    mat = sp.bmat(
        [
            [base.A, None],
            [eq, None],
            [sp.hstack([lifted, sp.csc_matrix((lifted.shape[0], nva))]), v_part],
        ],
        format="csc",
    )
    m_base = base.num_rows
    c = np.zeros(nr + nva + nvf)
    c[nr + nva] = 1.0
    return LinearProgram(
        name=f"best_abstract_equilibrium_player{player + 1}",
        c=c,
        A=mat,
        row_lower=np.concatenate([base.row_lower, [abstract_value - tolerance], np.zeros(full_br.size)]),
        row_upper=np.concatenate([base.row_upper, [np.inf], np.full(full_br.size, np.inf)]),
        col_lower=np.concatenate([base.col_lower, np.full(nvf, -np.inf)]),
        col_upper=np.concatenate([base.col_upper, np.full(nvf, np.inf)]),
        maximize=True,
        col_blocks=[
            Block("r", 0, nr, "abstract realization plan"),
            Block("v_abstract", nr, nr + nva, "opponent's information-set values in the abstraction"),
            Block("v_original", nr + nva, nr + nva + nvf, "opponent's information-set values in the original game"),
        ],
        row_blocks=[
            *base.row_blocks,
            Block("equilibrium", m_base, m_base + 1, "abstract guarantee >= the abstraction's value"),
            Block(
                "original_best_response",
                m_base + 1,
                m_base + 1 + full_br.size,
                "opponent's sequences in the original game against the lifted plan",
            ),
        ],
        objective_doc="what the lifted strategy guarantees in the original game",
        player=player,
    )
