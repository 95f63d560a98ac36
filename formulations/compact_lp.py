"""The sequence-form LP of a poker game with ordered signals, with its payoffs written
through sum and prefix-sum variables: O(k) nonzeros per betting terminal and board where
the plain LP has O(k^2), k the cards a player may hold.

In player 1's LP the best-response row of a player-2 sequence adds, over the terminals
below it, ``sum_{c1} a(c1, c2) x(c1)``: player 1's realization weight for every card
``c1`` player 1 may hold beside player 2's ``c2``. With no abstraction the chance weight
of a deal is the same for every compatible pair of cards (none shared, none on the
board), so:

- at a fold, ``a(c1, c2) = w a`` for every ``c1`` but ``c2`` (card removal): the row takes
  ``w a (T - x(c2))`` with one variable ``T = sum_{c1} x(c1)`` per terminal and board;
- at a showdown, ``a(c1, c2) = w pot sign(s(c1) - s(c2))``, ``s`` the hand strength on the
  board: with the cards sorted by strength and prefix sums ``P_j = P_{j-1} + x(c_(j))``
  the row takes ``w pot (P_k - P_le(c2) - P_lt(c2))``, where ``lt`` and ``le`` count the
  cards weaker than, and at most as strong as, ``c2`` (a card of equal strength, ``c2``
  itself included, is a split and adds nothing).

The rows and columns of the plain LP keep their meaning (``r`` columns are player 1's
realization plan, the duals of the ``best_response`` rows player 2's), so reading the
strategies, certifying and lifting are unchanged; the sum and prefix-sum variables and
their defining rows are added as the blocks ``aux`` and ``aux_definitions``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..models.errors import GameError
from ..models.filtered import FilteredGame, class_ancestors
from .linear_program import LinearProgram
from .sequence_form_lp import saddle_point_lp


def _sequences(
    fg: FilteredGame, i: int, v: int, views: np.ndarray, r: int, ancestors: list[dict[int, np.ndarray]]
) -> np.ndarray:
    """Player ``i``'s sequence leading to betting node ``v`` for each round-``r`` view."""
    t = fg.game.betting
    node, action = t.last_own
    u, a = int(node[v, i]), int(action[v, i])
    if u < 0:
        return np.zeros(views.shape[0], dtype=np.int64)
    ps = fg.sequence_form.players[i]
    own_round = int(t.round[u])
    return ps.infoset_first_sequence[fg.infoset_index[i][u] + ancestors[r][own_round][views]] + a


def compact_sequence_form_lp(fg: FilteredGame) -> LinearProgram:
    """Player 1's sequence-form LP of the unabstracted ordered game ``fg`` (built with the
    identity filter), payoffs through sum and prefix-sum variables (module docstring)."""
    game, filt = fg.game, fg.filter
    space = filt.space
    R, D = game.rounds, game.deck
    for i in (0, 1):
        for r in range(R):
            if filt.num_classes(i, r) != space.view_codes[i][r].shape[0]:
                raise GameError("the compact LP is written for the game without abstraction (rule 'none')")
    t = game.betting
    sf = fg.sequence_form
    p1, p2 = sf.players
    ancestors = [class_ancestors(filt, i) for i in (0, 1)]  # the identity filter's classes are views
    n_x, n_v = p1.num_sequences, 1 + p2.num_infosets
    m_real = 1 + p1.num_infosets
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    # realization rows (E_1 x = e) and the opponent's values (-E_2' v)
    e1 = p1.constraint_matrix.tocoo()
    rows.append(e1.row)
    cols.append(e1.col)
    vals.append(e1.data)
    e2 = p2.constraint_matrix.tocoo()
    rows.append(m_real + e2.col)
    cols.append(n_x + e2.row)
    vals.append(-e2.data)
    n_aux = 0
    per_round = []
    for r in range(R):
        codes = space.view_codes[0][r]
        assert np.array_equal(codes, space.view_codes[1][r])  # both players see (card, board)
        card, board = codes // D**r, codes % D**r
        boards, board_id = np.unique(board, return_inverse=True)
        k = D - r  # cards a player may hold on a board
        weight = 1.0 / space.states[r].shape[0]
        # views board by board, by hand strength within a board (only showdowns need it)
        if r == R - 1:
            digits = np.zeros((codes.shape[0], r), dtype=np.int64)
            for j in range(r):
                digits[:, j] = (board // D ** (r - 1 - j)) % D
            strength = np.asarray(game.strength(card.astype(np.int64), digits), dtype=np.float64)
        else:
            strength = np.zeros(codes.shape[0])
        order = np.lexsort((strength, board_id))
        if not np.all(np.bincount(board_id) == k):
            raise GameError("every board must leave the same number of cards")
        sorted_strength = strength[order].reshape(-1, k)
        # per view: position in its board's strength order, and counts weaker / not stronger
        position = np.empty(codes.shape[0], dtype=np.int64)
        position[order] = np.tile(np.arange(k), boards.shape[0])
        lt = np.empty(codes.shape[0], dtype=np.int64)
        le = np.empty(codes.shape[0], dtype=np.int64)
        per_board_lt = np.stack([np.searchsorted(row, row, side="left") for row in sorted_strength])
        per_board_le = np.stack([np.searchsorted(row, row, side="right") for row in sorted_strength])
        lt[order] = per_board_lt.reshape(-1)
        le[order] = per_board_le.reshape(-1)
        per_round.append((order, board_id, boards.shape[0], k, weight, position, lt, le))
    for v in t.terminals:
        r = int(t.round[v])
        order, board_id, n_boards, k, weight, position, lt, le = per_round[r]
        views = np.arange(order.shape[0])
        x_of = _sequences(fg, 0, v, views, r, ancestors[0])  # player 1 holding each view's card
        br_row = m_real + _sequences(fg, 1, v, views, r, ancestors[1])  # player 2 holding it
        c1, c2 = t.contrib[v]
        folder = t.folder[v]
        first = n_x + n_v + n_aux  # this terminal's auxiliary columns
        aux_row0 = m_real + p2.num_sequences + n_aux
        if folder >= 0:
            amount = weight * (-c1 if folder == 0 else c2)
            total = first + board_id  # T per board
            # T - sum_c x(c) = 0
            rows += [aux_row0 + np.arange(n_boards), aux_row0 + board_id]
            cols += [first + np.arange(n_boards), x_of]
            vals += [np.ones(n_boards), -np.ones(views.shape[0])]
            # best-response rows: amount * (T - x(c2))
            rows += [br_row, br_row]
            cols += [total, x_of]
            vals += [np.full(views.shape[0], amount), np.full(views.shape[0], -amount)]
            n_aux += n_boards
        else:
            if r != R - 1:
                raise GameError(f"betting history '{t.history[v]}' reaches a showdown before the last round")
            pot = weight * c2
            prefix = first + board_id * k + position  # P_j of each view's own place
            # P_j - P_{j-1} - x(c_(j)) = 0
            has_previous = position > 0
            rows += [aux_row0 + board_id * k + position, aux_row0 + (board_id * k + position)[has_previous]]
            cols += [prefix, prefix[has_previous] - 1]
            vals += [np.ones(views.shape[0]), -np.ones(int(has_previous.sum()))]
            rows.append(aux_row0 + board_id * k + position)
            cols.append(x_of)
            vals.append(-np.ones(views.shape[0]))
            # best-response rows: pot * (P_k - P_le - P_lt), P_0 = 0
            base = first + board_id * k - 1  # column of P_0 + j is base + j
            for index, sign in ((np.full(views.shape[0], k), 1.0), (le, -1.0), (lt, -1.0)):
                keep = index > 0
                rows.append(br_row[keep])
                cols.append(base[keep] + index[keep])
                vals.append(np.full(int(keep.sum()), sign * pot))
            n_aux += n_boards * k
    m_br = p2.num_sequences
    shape = (m_real + m_br + n_aux, n_x + n_v + n_aux)
    mat = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=shape).tocsc()
    mat.sum_duplicates()
    mat.eliminate_zeros()
    return saddle_point_lp(
        mat,
        p1.constraint_rhs,
        n_x,
        n_v,
        m_br,
        0,
        name="compact_sequence_form_lp_player1",
        aux=("per terminal and board: card sums (folds), prefix sums (showdowns)", "the sums, defined from r"),
        compact=True,
    )


__all__ = ["compact_sequence_form_lp"]
