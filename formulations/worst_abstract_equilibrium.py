"""Among a player's equilibrium strategies of an abstraction, the one whose lift to the
original game guarantees least there: a mixed-integer program.

What a strategy guarantees is a minimum over the opponent's replies, so it is concave in
the strategy and its minimum over the abstraction's optimal face is no LP (its maximum is:
:func:`~equilibria.formulations.sequence_form_lp.best_abstract_equilibrium_lp`). The
minimum over both the player's plan ``r`` (on the face) and the opponent's reply ``y`` in
the original game is the same number, and for a fixed ``r`` some pure reply attains it. So
``y`` is a pure realization plan (binary, on the opponent's treeplex of the original game)
and the payoff ``sum_j y_j c_j(r)``, with ``c(r) = M r`` the player's payoff per opponent
sequence against the lifted plan, is linearised exactly: for binary ``y_j`` and
``lo_j <= c_j(r) <= hi_j``,

    w_j >= lo_j y_j,    w_j >= c_j(r) - hi_j (1 - y_j)

make ``w_j = y_j c_j(r)`` at the minimum of ``sum_j w_j``. That minimum is the worst
guarantee; the program's ``r`` is a strategy that attains it. This is the lower end of the
range of guarantees the abstraction's equilibria span, which Ganzfried and Sandholm's
Figure 2 ("Computing equilibria by incorporating qualitative models", 2010) places the
published values in.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..models.sequence import SequenceForm
from ..models.treeplex import Treeplex
from .linear_program import Block, LinearProgram
from .sequence_form_lp import sequence_form_lp


def lifted_payoffs(original_sf: SequenceForm, lift: sp.spmatrix, player: int) -> sp.csr_matrix:
    """``M``: row ``j`` gives ``player``'s payoff against the opponent's sequence ``j`` of
    the original game, per abstract sequence of the player (``lift`` takes the player's
    abstract realization plans to the original's)."""
    payoff = original_sf.payoff_matrix(player)  # rows: player 1's sequences
    per_opponent = payoff.T if player == 0 else payoff
    return sp.csr_matrix(per_opponent @ lift)


#: Rows of ``M`` whose best values are found together (a dense block of this many columns).
BEST_VALUE_BLOCK = 512


def treeplex_best_values(treeplex: Treeplex, rows: sp.spmatrix) -> np.ndarray:
    """Per row of ``rows`` (one entry per sequence of ``treeplex``), its largest inner
    product with a realization plan: the best responses of many payoff vectors at once,
    level by level as :meth:`Treeplex.best_value` takes one, in blocks of
    :data:`BEST_VALUE_BLOCK` rows."""
    rows = sp.csr_matrix(rows)
    out = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], BEST_VALUE_BLOCK):
        v = rows[start : start + BEST_VALUE_BLOCK].T.toarray()  # sequences x block
        for lv in reversed(treeplex.levels):
            if not lv.sequences.size:
                continue
            best = np.maximum.reduceat(v[lv.sequences], lv.offsets, axis=0)
            gather = sp.csr_matrix(
                (np.ones(lv.parent_of.size), (lv.parent_of, np.arange(lv.parent_of.size))),
                shape=(lv.parents.shape[0], lv.parent_of.size),
            )
            v[lv.parents] += gather @ best
        out[start : start + BEST_VALUE_BLOCK] = v[0]
    return out


def worst_abstract_equilibrium_milp(
    abstract_sf: SequenceForm,
    original_sf: SequenceForm,
    lift: sp.spmatrix,
    abstract_value: float,
    player: int = 0,
    tolerance: float = 1e-9,
) -> LinearProgram:
    """Among ``player``'s equilibrium strategies of an abstract game, the one that
    guarantees least in the original game (module docstring).

    Columns: ``r`` and ``v_abstract`` (the abstract LP's), ``y`` (the opponent's pure
    realization plan in the original game, binary) and ``w`` (``y_j c_j(r)``, for the
    opponent sequences where ``c_j`` is not zero). Rows: the abstract LP's
    ``realization`` and ``best_response`` rows, ``equilibrium`` (the abstract guarantee
    is at least ``abstract_value - tolerance``), ``reply`` (``y`` is a realization plan),
    ``product_low`` and ``product_high`` (the linearisation). Minimises ``sum w``, the
    lifted strategy's payoff against its worst reply, which is what it guarantees.
    """
    base = sequence_form_lp(abstract_sf, player)
    o = 1 - player
    nr = base.col_block("r").size
    nva = base.col_block("v").size
    M = lifted_payoffs(original_sf, lift, player)
    if M.shape[1] != nr:
        raise ValueError(f"the lift has {M.shape[1]} abstract sequences, the abstraction {nr}")
    Eo = sp.csr_matrix(original_sf.players[o].constraint_matrix)
    ny = Eo.shape[1]
    paying = np.flatnonzero(np.diff(M.indptr) > 0)  # c_j is zero elsewhere: no w_j
    Mp = M[paying]
    nw = paying.size
    # each c_j(r) lies between its least and its most over the player's realization plans
    hi = treeplex_best_values(abstract_sf.players[player].treeplex, Mp)
    lo = -treeplex_best_values(abstract_sf.players[player].treeplex, -Mp)
    pick = sp.csr_matrix((np.ones(nw), (np.arange(nw), paying)), shape=(nw, ny))
    eye = sp.identity(nw, format="csr")
    eq = sp.csr_matrix(([1.0], ([0], [nr])), shape=(1, nr + nva))
    mat = sp.bmat(
        [
            [base.A, None, None],
            [eq, None, None],
            [None, Eo, None],
            [None, -sp.diags(lo) @ pick, eye],  # w - lo y >= 0
            [sp.hstack([-Mp, sp.csr_matrix((nw, nva))]), -sp.diags(hi) @ pick, eye],  # w - M r - hi y >= -hi
        ],
        format="csc",
    )
    m_base = base.num_rows
    n = nr + nva + ny + nw
    c = np.zeros(n)
    c[nr + nva + ny :] = 1.0
    rhs = np.asarray(original_sf.players[o].constraint_rhs, dtype=np.float64)
    integrality = np.zeros(n, dtype=bool)
    integrality[nr + nva : nr + nva + ny] = True
    start_y, start_w = nr + nva, nr + nva + ny
    rows = [m_base, m_base + 1, m_base + 1 + Eo.shape[0], m_base + 1 + Eo.shape[0] + nw]
    return LinearProgram(
        name=f"worst_abstract_equilibrium_player{player + 1}",
        c=c,
        A=mat,
        row_lower=np.concatenate([base.row_lower, [abstract_value - tolerance], rhs, np.zeros(nw), -hi]),
        row_upper=np.concatenate([base.row_upper, [np.inf], rhs, np.full(2 * nw, np.inf)]),
        col_lower=np.concatenate([base.col_lower, np.zeros(ny), np.full(nw, -np.inf)]),
        col_upper=np.concatenate([base.col_upper, np.ones(ny), np.full(nw, np.inf)]),
        maximize=False,
        integrality=integrality,
        col_blocks=[
            Block("r", 0, nr, "abstract realization plan"),
            Block("v_abstract", nr, start_y, "opponent's information-set values in the abstraction"),
            Block("y", start_y, start_w, "opponent's pure realization plan in the original game"),
            Block("w", start_w, n, "the player's payoff against y, per opponent sequence that pays"),
        ],
        row_blocks=[
            *base.row_blocks,
            Block("equilibrium", rows[0], rows[1], "abstract guarantee >= the abstraction's value"),
            Block("reply", rows[1], rows[2], "y is a realization plan of the opponent in the original game"),
            Block("product_low", rows[2], rows[3], "w_j >= lo_j y_j"),
            Block("product_high", rows[3], rows[3] + nw, "w_j >= c_j(r) - hi_j (1 - y_j)"),
        ],
        objective_doc="what the lifted strategy guarantees in the original game (its payoff against its worst reply)",
        player=player,
    )


__all__ = ["lifted_payoffs", "worst_abstract_equilibrium_milp"]
