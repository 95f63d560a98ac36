"""The sequence-form LP of a two-player zero-sum game perturbed in the extensive form, as
Farina and Gatti perturb it ("Extensive-form perturbations in extensive-form games",
2017): every action is played with probability at least ``eps`` at its information set,
by both players. In realization weights that is ``x[s] >= eps * x[parent(s)]`` for every
non-empty sequence ``s``: a player's own trembles are rows of its LP, the opponent's enter
the inner minimum, whose dual gains one non-negative column per opponent sequence.

Unlike the quasi-perfect perturbation (bounds on the weights alone), ``eps`` stands in the
matrix here: the matrix is ``M0 + eps * M1`` (:func:`extensive_form_pencil`), so a basis's
answer is a rational function of ``eps``, not a polynomial.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ..models.sequence import SequenceForm
from .linear_program import Block, LinearProgram
from .sequence_form_lp import sequence_form_lp


def _trembles(sf: SequenceForm, p: int, eps: float) -> sp.csr_matrix:
    """One row per non-empty sequence ``s`` of player ``p``: ``x[s] - eps * x[parent(s)]``."""
    tp = sf.players[p].treeplex
    n = tp.num_sequences
    rows = np.arange(n - 1)
    parents = tp.parent_sequence[tp.sequence_infoset]
    data = np.concatenate([np.ones(n - 1), np.full(n - 1, -eps)])
    return sp.csr_matrix((data, (np.concatenate([rows, rows]), np.concatenate([rows + 1, parents]))), shape=(n - 1, n))


def extensive_form_perturbed_lp(sf: SequenceForm, p: int, eps: float) -> LinearProgram:
    """Player ``p``'s sequence-form LP with both players' extensive-form trembles at
    ``eps`` (module docstring): rows ``trembles`` (own, ``>= 0``) and columns ``w`` (the
    duals of the opponent's, ``>= 0``) added to :func:`sequence_form_lp`'s."""
    if not 0 < eps < 1:
        raise ValueError(f"eps must lie in (0, 1), not {eps}")
    return _perturbed_lp(sf, p, eps)


def most_actions(sf: SequenceForm) -> int:
    """The most actions at any information set of either player: every action at least
    ``eps`` needs ``eps`` below one over it."""
    return max(int(ps.treeplex.num_actions.max(initial=1)) for ps in sf.players)


def extensive_form_pencil(sf: SequenceForm, p: int) -> tuple[LinearProgram, sp.csc_matrix]:
    """Player ``p``'s perturbed LP as a pencil: the LP at ``eps = 0`` (its tremble rows
    ``x[s] >= 0``) and ``M1``, the matrix's change per unit of ``eps``; the bounds, the
    rows' sides and the objective do not move."""
    at_zero, at_one = _perturbed_lp(sf, p, 0.0), _perturbed_lp(sf, p, 1.0)
    slope = sp.csc_matrix(at_one.A - at_zero.A)
    slope.eliminate_zeros()
    zero = sp.csc_matrix(at_zero.A)
    zero.eliminate_zeros()
    return dataclasses.replace(at_zero, A=zero), slope


def _perturbed_lp(sf: SequenceForm, p: int, eps: float) -> LinearProgram:
    base = sequence_form_lp(sf, p)
    o = 1 - p
    own = _trembles(sf, p, eps)
    theirs = _trembles(sf, o, eps)
    r, br = base.col_block("r"), base.row_block("best_response")
    m, n = base.num_rows, base.num_cols
    k = theirs.shape[0]
    # the inner minimum's dual: best-response rows A'x - F'v - G'w >= 0
    w_columns = sp.lil_matrix((m, k))
    w_columns[br.start : br.stop, :] = -theirs.T
    own_rows = sp.hstack([sp.csr_matrix((own.shape[0], r.start)), own, sp.csr_matrix((own.shape[0], n - r.stop))])
    matrix = sp.bmat([[base.A, w_columns.tocsc()], [own_rows, None]], format="csc")
    rows = own.shape[0]
    return LinearProgram(
        name=f"extensive_form_perturbed_player{p + 1}",
        c=np.concatenate([base.c, np.zeros(k)]),
        A=matrix,
        row_lower=np.concatenate([base.row_lower, np.zeros(rows)]),
        row_upper=np.concatenate([base.row_upper, np.full(rows, np.inf)]),
        col_lower=np.concatenate([base.col_lower, np.zeros(k)]),
        col_upper=np.concatenate([base.col_upper, np.full(k, np.inf)]),
        maximize=True,
        col_blocks=[*base.col_blocks, Block("w", n, n + k, "duals of the opponent's trembles")],
        row_blocks=[*base.row_blocks, Block("trembles", m, m + rows, "x[s] >= eps x[parent(s)]")],
        objective_doc=base.objective_doc,
        player=base.player,
        opponent=base.opponent,
    )


__all__ = ["extensive_form_pencil", "extensive_form_perturbed_lp", "most_actions"]
