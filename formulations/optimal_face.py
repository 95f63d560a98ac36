"""The optimal face of a two-player zero-sum game's sequence-form LP: a player's maximin
strategies, over which one more LP picks the best or the worst for a stated objective.

A zero-sum game's LP returns whichever optimal vertex the backend lands on; the game's
equilibrium strategies of a player are all of its maximin strategies (the realization
plans that guarantee the value), a polytope. Holding the guarantee at the value and
optimising a linear function of the plan over it selects among them without leaving the
equilibria: for example the payoff against a given opponent strategy, maximised (the
equilibrium that exploits that strategy most) or minimised.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..models.sequence import SequenceForm
from .linear_program import Block, LinearProgram
from .sequence_form_lp import sequence_form_lp

#: The guarantee is held at ``value - FACE_TOLERANCE * max(1, |value|)``: the value comes
#: from a solver, and a face held at it exactly can be infeasible by the last digits.
FACE_TOLERANCE = 1e-12


def optimal_face_lp(
    sf: SequenceForm,
    player: int,
    value: float,
    objective: np.ndarray,
    *,
    maximize: bool = True,
    tolerance: float = FACE_TOLERANCE,
) -> LinearProgram:
    """``player``'s sequence-form LP (:func:`sequence_form_lp`) with its guarantee held at
    ``value`` (the player's own value of the game, less ``tolerance`` relative to it) by
    one more row ``equilibrium``, and the objective ``objective @ r`` over the player's
    realization plan ``r`` (one entry per sequence), maximised or minimised."""
    base = sequence_form_lp(sf, player)
    r = base.col_block("r")
    objective = np.asarray(objective, dtype=np.float64)
    if objective.shape != (r.size,):
        raise ValueError(f"an objective over player {player + 1}'s {r.size} sequences has shape {objective.shape}")
    guarantee = sp.csc_matrix(base.c.reshape(1, -1))
    m = base.num_rows
    c = np.zeros(base.num_cols)
    c[r.start : r.stop] = objective
    return LinearProgram(
        name=f"optimal_face_player{player + 1}",
        c=c,
        A=sp.vstack([base.A, guarantee], format="csc"),
        row_lower=np.concatenate([base.row_lower, [value - tolerance * max(1.0, abs(value))]]),
        row_upper=np.concatenate([base.row_upper, [np.inf]]),
        col_lower=base.col_lower,
        col_upper=base.col_upper,
        maximize=maximize,
        col_blocks=list(base.col_blocks),
        row_blocks=[*base.row_blocks, Block("equilibrium", m, m + 1, "the guarantee v(root) >= the game's value")],
        objective_doc="the stated objective over the player's maximin strategies",
        player=base.player,
        opponent=base.opponent,
    )


__all__ = ["FACE_TOLERANCE", "optimal_face_lp"]
