"""Instance registry and the sizes the published games must have."""

import numpy as np
import pytest

import equilibria
from equilibria.models.errors import UnknownInstanceError
from equilibria.models.sequence import SequenceForm


def test_kuhn_counts(kuhn):
    c = kuhn.counts()
    assert (c.nodes, c.infosets, c.sequences) == (58, (6, 6), (13, 13))


def test_leduc_counts(leduc):
    c = leduc.counts()
    assert (c.nodes, c.infosets, c.sequences) == (9457, (468, 468), (1093, 1093))


def test_liars_dice_histories_match_openspiel_count():
    # 294,883 histories for one 6-faced die each (OpenSpiel's tree)
    assert equilibria.load("liars_dice:sides=6").num_nodes == 294883


def test_generalized_kuhn_size():
    # 1 + n + n(n-1) deals x 9 nodes of Kuhn betting
    assert equilibria.load("generalized_kuhn:cards=50").num_nodes == 1 + 50 + 50 * 49 * 9


def test_generalized_kuhn_three_cards_is_kuhn(kuhn):
    g3 = equilibria.load("generalized_kuhn:cards=3")
    assert g3.counts() == kuhn.counts()
    assert np.array_equal(g3.terminal_payoffs(), kuhn.terminal_payoffs())


def test_leduc_parameters_scale_the_deck():
    g = equilibria.load("leduc:ranks=4,suits=2")
    # round 1: 8 cards x 3 decisions; round 2: 5 histories x 8 x 7 boards x 3
    assert g.counts().infosets == (8 * 3 + 5 * 8 * 7 * 3,) * 2


def test_sequence_form_constraints_hold_for_uniform_play(leduc):
    from equilibria.models.strategy import realization_from_behavior, uniform_behavior

    sf = SequenceForm(leduc)
    for ps in sf.players:
        r = realization_from_behavior(ps, uniform_behavior(ps))
        assert ps.constraint_matrix @ r == pytest.approx(ps.constraint_rhs)


def test_payoff_matrix_sums_chance_weighted_payoffs(kuhn):
    sf = SequenceForm(kuhn)
    A = sf.payoff_matrix(0)
    # zero-sum: player 2's matrix is the negative; every entry carries chance 1/6
    assert (A + sf.payoff_matrix(1)).nnz == 0
    assert set(np.round(np.abs(A.data) * 6, 12)) <= {1.0, 2.0}


def test_unknown_instance_lists_known_names():
    with pytest.raises(
        UnknownInstanceError, match="known: generalized_kuhn, inspection_rules, kuhn, kuhn3_rules, kuhn_continuous"
    ):
        equilibria.load("holdem")


def test_bad_parameter_lists_accepted_ones():
    with pytest.raises(UnknownInstanceError, match="takes parameters dice, sides"):
        equilibria.load("liars_dice:faces=6")


def test_builder_game_solves_matching_pennies():
    b = equilibria.GameBuilder(["Row", "Column"])
    h, t = b.decision(b.root, 0, "row", ["H", "T"])
    for node, sign in ((h, 1), (t, -1)):
        hh, tt = b.decision(node, 1, "column", ["h", "t"])
        b.terminal(hh, [sign, -sign])
        b.terminal(tt, [-sign, sign])
    sol = equilibria.solve_game(b.build())
    assert sol.value == pytest.approx(0.0, abs=1e-12)
    assert sol.behaviors[0][1:] == pytest.approx([0.5, 0.5])
