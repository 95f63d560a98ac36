"""Lifting strategies between games by integer arrays, never by labels.

Card names that prefix one another, and signal names and betting labels containing the
characters a label parser would split on (":", "-", "|"), must not change any result:
lifted GameShrink strategies stay exact equilibria of the full game, and plan and
behaviour strategies of signal games convert both ways. Values are checked against the
published ones (Kuhn poker -1/18, Leduc hold'em -0.085606424078) or against the full
game's sequence-form LP, which does not go through any lift.
"""

import numpy as np
import pytest

from equilibria import solve_game
from equilibria.instances import load_ordered
from equilibria.instances.hands import pair_or_high_card, three_card
from equilibria.instances.ordered_games import ordered_poker
from equilibria.instances.poker import infoset_views
from equilibria.models.abstraction import uniform_buckets
from equilibria.models.bayesian import FiniteSignalGame, plans_from_behavior
from equilibria.models.best_response import exploitability
from equilibria.models.betting import BettingTree, decode_view_keys, encode_view_keys
from equilibria.models.efg_io import read_efg, write_efg
from equilibria.models.errors import GameError
from equilibria.models.filtered import filtered_sequence_form, lift_behavior
from equilibria.models.gameshrink import game_shrink
from equilibria.models.ordered import SignalSpace
from equilibria.models.sequence import SequenceForm
from equilibria.routes.shrink import solve_shrunk

LEDUC_VALUE = -0.085606424078  # published value of Leduc hold'em for player 1
KUHN_VALUE = -1.0 / 18.0  # Kuhn poker's value for player 1

# every name is a prefix of another, so concatenated names cannot be split back
PREFIX_NAMES = ["1", "10", "11", "1x", "101", "110"]


def prefix_leduc():
    return ordered_poker(
        "Leduc, prefix card names", 3, 2, 1.0, (2.0, 4.0), (2, 2), pair_or_high_card(3, 2), names=PREFIX_NAMES
    )


def test_prefix_card_names_really_are_ambiguous_in_labels():
    full = prefix_leduc().to_extensive()
    labels = [str(x) for x in full.infoset_labels]
    # own card "1" with board card "10" and own card "110" before the board: without the
    # separator both read "110", and "110" splits as "1" + "10" or "11" + "0" (no card)
    assert any(lbl.startswith("1|10:") for lbl in labels)
    assert any(lbl.startswith("110:") for lbl in labels)


def test_lossless_lift_with_prefix_card_names_keeps_leduc_value_and_is_exact():
    sol = solve_shrunk(prefix_leduc())
    assert sol.report.infosets_after == [144, 144]
    assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert sol.exploitability <= 1e-9


@pytest.mark.parametrize(
    "make",
    [
        lambda: ordered_poker(
            "Leduc 4x2, prefix names",
            4,
            2,
            1.0,
            (2.0, 4.0),
            (2, 2),
            pair_or_high_card(4, 2),
            names=["1", "11", "111", "1111", "1:", "1|", "1-", "11|"],
        ),
        lambda: ordered_poker(
            "Rhode Island 2x2, prefix names",
            2,
            2,
            5.0,
            (10.0, 20.0, 20.0),
            (3, 3, 3),
            three_card(2, 2),
            names=["a", "a|", "a:", "a|a"],
        ),
    ],
)
def test_lifted_strategy_is_an_equilibrium_of_the_full_game(make):
    game = make()
    full = game.to_extensive()
    reference = solve_game(full).value  # the full game's LP: no abstraction, no lift
    sol = solve_shrunk(game)
    assert sol.value == pytest.approx(reference, abs=1e-8)
    assert sol.exploitability <= 1e-9
    assert sol.report.infosets_after[0] < sol.report.infosets_before[0]


def test_lift_plays_each_class_strategy_at_every_information_set_of_the_class():
    game = prefix_leduc()
    filt = game_shrink(game, SignalSpace(game))
    fg = filtered_sequence_form(filt)
    full = game.to_extensive()
    osf = SequenceForm(full)
    # a distinct strategy per abstract information set: random, normalised per set
    rng = np.random.default_rng(11)
    behaviors = []
    for ps in fg.sequence_form.players:
        b = np.ones(ps.num_sequences)
        for first, na in zip(ps.infoset_first_sequence, ps.infoset_num_actions):
            b[first : first + na] = rng.dirichlet(np.ones(na))
        behaviors.append(b)
    lifted = lift_behavior(fg, behaviors, full, osf)
    # the lifted profile earns what the abstract profile earns (lossless abstraction)
    assert exploitability(osf, lifted).payoffs[0] == pytest.approx(
        exploitability(fg.sequence_form, behaviors).payoffs[0], abs=1e-12
    )
    # suits are symmetric in Leduc: two information sets whose cards differ only by suit
    # get the same strategy; cards of different ranks never do at the first decision
    ps = osf.players[0]
    labels = {str(full.infoset_labels[g]): i for i, g in enumerate(ps.infoset_global)}

    def at(lbl):
        return lifted[0][ps.infoset_first_sequence[labels[lbl]] + np.arange(2)]

    np.testing.assert_array_equal(at("1:"), at("10:"))  # rank 0, both suits
    assert not np.array_equal(at("1:"), at("11:"))  # rank 0 vs rank 1


def test_view_keys_round_trip_and_games_without_keys_are_refused(tmp_path):
    rng = np.random.default_rng(5)
    deck, slots = 52, 2
    tpl = rng.integers(0, 500, size=1000)
    own = rng.integers(0, deck, size=1000)
    board = rng.integers(-1, deck, size=(1000, slots))
    player = rng.integers(0, 2, size=1000)
    views = decode_view_keys(encode_view_keys(tpl, own, board, deck) * 2 + player, deck, slots)
    for got, want in ((views.template, tpl), (views.own, own), (views.board, board), (views.player, player)):
        np.testing.assert_array_equal(got, want)
    # a game read back from a Gambit file is the same game, without generator keys
    game = load_ordered("kuhn")
    full = game.to_extensive()
    assert full.infoset_key is not None and full.infoset_key.shape == (full.num_infosets,)
    views = infoset_views(full, 3, 1)
    np.testing.assert_array_equal(views.player, full.infoset_player)
    assert sorted(set(views.own.tolist())) == [0, 1, 2]
    assert set(views.template.tolist()) == set(game.betting.decisions)
    path = tmp_path / "kuhn.efg"
    write_efg(full, path)
    again = read_efg(path)
    assert again.infoset_key is None
    np.testing.assert_array_equal(again.parent, full.parent)
    assert again.num_infosets == full.num_infosets
    assert solve_game(again).value == pytest.approx(KUHN_VALUE, abs=1e-9)
    fg = filtered_sequence_form(game_shrink(game))
    behaviors = [np.ones(p.num_sequences) / 2 for p in fg.sequence_form.players]
    with pytest.raises(GameError, match="no information-set keys"):
        lift_behavior(fg, behaviors, again, SequenceForm(again))


# ----------------------------------------------------------------------------- signal games
def awkward_kuhn() -> FiniteSignalGame:
    """Kuhn poker with labels a 'signal:history' parser confuses: player 2's label of
    signal 'J' at node 'c:x' and of signal 'J:c' at node 'x' are both 'J:c:x'."""
    t = BettingTree()
    check, bet = t.decision(0, 0, ["x", "c:x"])
    check2, bet2 = t.decision(check, 1, ["x", "c:x"])
    t.poker_terminal(check2, (1, 1))
    fold, call = t.decision(bet2, 0, ["f|-", "c-|"])
    t.poker_terminal(fold, (1, 2), folder=0)
    t.poker_terminal(call, (2, 2))
    fold, call = t.decision(bet, 1, ["f|-", "c-|"])
    t.poker_terminal(fold, (2, 1), folder=1)
    t.poker_terminal(call, (2, 2))
    t.finish()
    third = np.full(3, 1.0 / 3.0)
    names = (("J", "J:", "Q|K-"), ("J", "J:c", "-:|"))
    return FiniteSignalGame(
        t,
        pmf=(third, third),
        winner="higher",
        deal="without_replacement",
        names=names,
        title="Kuhn poker, awkward labels",
    )


def test_signal_game_labels_collide_but_lifting_does_not_care():
    fg = awkward_kuhn()
    efg = fg.to_extensive()
    labels = [str(x) for x in efg.infoset_labels]
    assert labels.count("J:c:x") == 2  # two information sets, one label
    sol = solve_game(efg)
    assert sol.value == pytest.approx(KUHN_VALUE, abs=1e-9)
    sigmas = plans_from_behavior(fg, efg, sol.sequence_form, sol.behaviors)
    for _p, s in enumerate(sigmas):
        np.testing.assert_allclose(s.sum(axis=1), 1.0, atol=1e-12)
    plan = fg.exploitability(sigmas)  # plan best responses: no extensive form involved
    assert plan["payoffs"][0] == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert plan["exploitability"] <= 1e-9
    back = fg.behavior_from_plans(sigmas, efg, sol.sequence_form)
    cert = exploitability(sol.sequence_form, back)
    assert cert.payoffs[0] == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert cert.exploitability <= 1e-9


def test_plans_and_behaviours_round_trip_on_awkward_labels():
    fg = awkward_kuhn()
    efg = fg.to_extensive()
    sf = SequenceForm(efg)
    rng = np.random.default_rng(2)
    sig = [rng.dirichlet(np.ones(k), size=fg.sizes[p]) for p, k in enumerate(fg.num_plans)]
    beh = fg.behavior_from_plans(sig, efg, sf)
    # the sequence-form best response of the converted profile equals the plan one
    ours, ref = fg.exploitability(sig), exploitability(sf, beh)
    np.testing.assert_allclose(ours["payoffs"], ref.payoffs, atol=1e-12)
    np.testing.assert_allclose(ours["best_response_values"], ref.best_response_values, atol=1e-12)
    # behaviour -> plans -> behaviour is the identity (every information set is reached)
    again = fg.behavior_from_plans(plans_from_behavior(fg, efg, sf, beh), efg, sf)
    for a, b in zip(beh, again):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_bucket_lift_matrix_on_awkward_labels_keeps_the_value():
    fg = awkward_kuhn()
    abst = uniform_buckets(fg, 3)  # one signal per bucket: the same game, renamed
    full_efg, abs_efg = fg.to_extensive(), abst.game.to_extensive()
    full_sf = SequenceForm(full_efg)
    sol = solve_game(abs_efg)
    lifted = []
    for p in (0, 1):
        L = abst.lift_matrix(p, full_sf, sol.sequence_form)
        lifted.append(L @ sol.realization_plans[p])
    from equilibria.models.strategy import behavior_from_realization

    beh = [behavior_from_realization(full_sf.players[p], lifted[p]) for p in (0, 1)]
    cert = exploitability(full_sf, beh)
    assert cert.payoffs[0] == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert cert.exploitability <= 1e-9


def test_lift_map_refuses_a_game_that_is_not_its_extensive_form():
    fg = awkward_kuhn()
    with pytest.raises(GameError):
        fg.lift_map(load_ordered("kuhn").to_extensive())
