"""Threshold programs of two-player general-sum games (a rake taken from the pot) and of
games whose private signals are dependent (ranks dealt from one deck, a joint table).

Oracles: a closed form of the raked one-street game (the three indifference conditions
solved here by hand), pygambit's own regret of our profiles, the sequence-form LP of an
extensive form generated card by card (``poker_game``), and a deck enumerated card by card.
"""

import itertools
import json

import numpy as np
import pytest

from equilibria.instances import load_bayesian
from equilibria.instances.bayesian_games import deck_joint
from equilibria.instances.betting import one_street_betting
from equilibria.models.bayesian import BayesianGame, FiniteSignalGame, SignalDistribution
from equilibria.models.errors import GameError, UnknownInstanceError
from equilibria.routes.lp import solve_game
from equilibria.routes.threshold.route import solve_threshold
from tests.conftest import run_cli

from .gambit_compat import max_regret


def gambit():
    return pytest.importorskip("pygambit")


# ---------------------------------------------------------------- general-sum: a rake
def test_raked_pot_pays_the_winner_the_pot_less_the_rake():
    tree = one_street_betting(2.0, rake=0.1)
    call = next(v for v in tree.terminals if tree.history[v] == "bet-call")
    fold = next(v for v in tree.terminals if tree.history[v] == "bet-fold")
    # pot 2 + two bets of 1 = 4, the winner takes 3.6 having put in 2
    assert np.allclose(tree.payoff[call], [[1.6, -2.0], [-0.2, -0.2], [-2.0, 1.6]])
    # pot 2 + one bet = 3, player 1 takes 2.7 having put in 2
    assert np.allclose(tree.payoff[fold], [[0.7, -1.0]] * 3)
    assert not tree.zero_sum and one_street_betting(2.0).zero_sum


def raked_one_street_closed_form(pot: float, rake: float) -> np.ndarray:
    """Thresholds (a, b, c) of the raked one-street game, uniform signals, lower wins:
    player 1 bets below a and above b, player 2 calls below c (a < c < b). With
    W = (1 - rake) the winner's share, the indifferences are
    player 2 at c:  (1 - b) (W (pot + 2) - 1) = a;
    player 1 at a:  -(1 - c) rake + (c - a)(1 - 2 rake) - a = 0;
    player 1 at b:  (1 - c) W (pot + 1) - 1 = (1 - b) W pot."""
    w = 1.0 - rake
    k = w * (pot + 2) - 1
    lhs = np.array([[1.0, k, 0.0], [-(2 - 2 * rake), 0.0, 1 - rake], [0.0, -w * pot, w * (pot + 1)]])
    rhs = np.array([k, rake, w * (pot + 1) - 1 - w * pot])
    return np.linalg.solve(lhs, rhs)


@pytest.mark.parametrize(("pot", "rake"), [(1.0, 0.05), (2.0, 0.1), (1.0, 0.0)])
def test_raked_one_street_thresholds_equal_the_closed_form(pot, rake):
    answer = solve_threshold(f"one_street:pot={pot},rake={rake}")
    a, b, c = raked_one_street_closed_form(pot, rake)
    assert answer.thresholds[0] == pytest.approx([a, b], abs=1e-9)
    assert answer.thresholds[1] == pytest.approx([c], abs=1e-9)
    gains = np.asarray(answer.certificate.best_response_values) - np.asarray(answer.certificate.payoffs)
    assert np.all(gains <= 1e-6), gains
    assert answer.zero_sum == (rake == 0.0)
    if rake:
        assert answer.value_bounds is None and sum(answer.payoffs) < 0  # the house's share


@pytest.mark.parametrize("spec", ["one_street:cards=12,rake=0.05", "kuhn_continuous:cards=6,rake=0.1"])
def test_raked_finite_games_have_no_regret_by_pygambit(spec):
    gambit()
    answer = solve_threshold(spec)
    assert answer.certified_epsilon <= 1e-6
    sf = answer.sequence_form
    assert max_regret(sf.game, sf, answer.behaviors) <= 1e-9
    # pygambit sees a general-sum game: the profile of the unraked game is not an answer
    zero_sum = solve_threshold(spec.rsplit(",", 1)[0])
    assert max_regret(sf.game, sf, zero_sum.behaviors) > 1e-4


def test_raked_river_join_is_certified_for_each_player():
    answer = solve_threshold("river_endgame:rake=0.05", models=["standard", "shifted", "check_first"])
    assert answer.join["holds"] in ("standard", "shifted", "check_first")
    assert answer.certified_epsilon <= 1e-6 and not answer.zero_sum


def test_cli_prints_payoffs_of_a_general_sum_game_and_the_lp_refuses_it():
    res = run_cli("threshold", "one_street:rake=0.05")
    assert res.returncode == 0, res.stderr
    assert "payoffs         0.012450" in res.stdout and "value (player 1)" not in res.stdout
    out = json.loads(run_cli("threshold", "one_street:rake=0.05", "--json").stdout)
    assert out["zero_sum"] is False and "value_bounds" not in out and len(out["payoffs"]) == 2
    # the LP route refuses it; solve without flags answers it by Lemke's method
    res = run_cli("solve", "one_street:cards=5,rake=0.1", "--no-shrink")
    assert res.returncode == 2 and res.stdout == "" and len(res.stderr.strip().splitlines()) == 1
    assert "zero-sum" in res.stderr
    planned = json.loads(run_cli("solve", "one_street:cards=5,rake=0.1", "--json").stdout)
    assert planned["route"] == "lcp" and planned["zero_sum"] is False and planned["nash_conv"] <= 1e-9
    res = run_cli("threshold", "one_street:rake=1.5")
    assert res.returncode == 2 and "rake" in res.stderr and len(res.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- dependent signals
def deck_by_enumeration(ranks: int, suits: int, players: int) -> np.ndarray:
    """Every ordered deal of distinct cards, equally likely, counted by rank tuple."""
    out = np.zeros((ranks,) * players)
    deals = list(itertools.permutations(range(ranks * suits), players))
    for cards in deals:
        out[tuple(c // suits for c in cards)] += 1.0
    return out / len(deals)


@pytest.mark.parametrize(("ranks", "suits", "players"), [(4, 2, 2), (3, 3, 3), (5, 1, 2), (2, 3, 3)])
def test_deck_joint_equals_the_deck_enumerated(ranks, suits, players):
    assert np.allclose(deck_joint(ranks, suits, players), deck_by_enumeration(ranks, suits, players), atol=1e-15)


@pytest.mark.parametrize(("cards", "suits"), [(6, 2), (6, 3), (6, 4), (13, 2)])
def test_deck_dealt_kuhn_threshold_value_equals_the_lp_of_the_card_by_card_game(cards, suits):
    spec = f"generalized_kuhn:cards={cards},suits={suits}"
    answer = solve_threshold(spec)
    # the extensive form deals each of the cards x suits cards (poker_game), not ranks
    lp = solve_game(spec)
    assert lp.sequence_form.game.num_nodes > answer.sequence_form.game.num_nodes
    assert answer.value == pytest.approx(lp.value, abs=1e-6)
    assert answer.exploitability <= 1e-9


def test_deck_dealt_one_street_value_equals_its_lp():
    answer = solve_threshold("one_street:cards=8,suits=3")
    assert answer.value == pytest.approx(solve_game("one_street:cards=8,suits=3").value, abs=1e-6)
    assert answer.exploitability <= 1e-9


def correlated_table(size: int, weight: float, seed: int) -> np.ndarray:
    """Independent random marginals mixed with a share ``weight`` of equal signals."""
    rng = np.random.default_rng(seed)
    p1, p2 = rng.uniform(0.5, 1.5, size), rng.uniform(0.5, 1.5, size)
    table = (1 - weight) * np.outer(p1 / p1.sum(), p2 / p2.sum()) + weight * np.diag(rng.dirichlet(np.ones(size)))
    return table / table.sum()


def test_joint_table_game_solved_and_checked_by_pygambit_and_the_lp():
    gambit()
    game = BayesianGame.from_joint(
        "one_street, correlated signals",
        one_street_betting(1.0),
        correlated_table(8, 0.1, seed=3),
        winner="lower",
        parameters={"kind": "one_street"},
    )
    answer = solve_threshold(game, "standard")
    sf = answer.sequence_form
    assert max_regret(sf.game, sf, answer.behaviors) <= 1e-9
    assert answer.value == pytest.approx(solve_game(game.finite_game().to_extensive()).value, abs=1e-6)
    # the same marginals dealt independently are another game
    independent = BayesianGame(
        "independent", game.tree, game.signals, winner="lower", parameters={"kind": "one_street"}
    )
    assert abs(solve_threshold(independent, "standard").value - answer.value) > 1e-3


def test_a_product_table_is_the_independent_game():
    rng = np.random.default_rng(0)
    p1, p2 = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
    signals = (SignalDistribution.discrete(p1), SignalDistribution.discrete(p2))
    independent = BayesianGame("i", one_street_betting(1.0), signals, winner="lower", parameters={"kind": "one_street"})
    joint = BayesianGame.from_joint(
        "j", one_street_betting(1.0), np.outer(p1, p2), winner="lower", parameters={"kind": "one_street"}
    )
    a, b = solve_threshold(independent, "standard"), solve_threshold(joint, "standard")
    assert a.value == pytest.approx(b.value, abs=1e-9)
    assert np.concatenate(a.thresholds) == pytest.approx(np.concatenate(b.thresholds), abs=1e-7)


def test_three_player_deck_deals_are_the_enumerated_deck():
    game = load_bayesian("kuhn_continuous:cards=3,suits=2,players=3").finite_game()
    deal, prob = game.deals()
    table = np.zeros((3, 3, 3))
    table[tuple(deal.T)] = prob
    assert np.allclose(table, deck_by_enumeration(3, 2, 3), atol=1e-15)
    assert isinstance(game, FiniteSignalGame) and game.to_extensive().num_nodes > 1


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: BayesianGame.from_joint("x", one_street_betting(1.0), np.ones((3, 4)) / 12), "axes of one length"),
        (lambda: BayesianGame.from_joint("x", one_street_betting(1.0), np.full((3, 3), 0.2)), "summing to 1"),
        (
            lambda: BayesianGame(
                "x",
                one_street_betting(1.0),
                (SignalDistribution.discrete([0.5, 0.5]),) * 2,
                deal="joint",
                joint=np.array([[0.5, 0.3], [0.1, 0.1]]),
            ),
            "not the marginal",
        ),
        (lambda: load_bayesian("one_street:suits=2"), "suits needs cards"),
    ],
)
def test_bad_joint_laws_are_refused_saying_why(make, words):
    with pytest.raises((GameError, UnknownInstanceError), match=words):
        make()


def test_cli_every_signal_certifies_a_deck_game_the_paper_program_gets_wrong():
    # the paper's program (thresholds only) answers wrongly; the route notices by the
    # certificate and solves again with a best-response row per signal, as asked here
    plain = json.loads(run_cli("threshold", "generalized_kuhn:cards=4,suits=3", "--json").stdout)
    res = run_cli("threshold", "generalized_kuhn:cards=4,suits=3", "--every-signal", "--json")
    assert res.returncode == 0, res.stderr
    checked = json.loads(res.stdout)
    wrong = float(plain["note"].split("exploitability ")[1].split(" ")[0])
    assert wrong > 1e-3 and "--every-signal" in plain["note"] and "note" not in checked
    assert plain["exploitability"] <= 1e-9 and checked["exploitability"] <= 1e-9
    assert checked["value"] == pytest.approx(solve_game("generalized_kuhn:cards=4,suits=3").value, abs=1e-6)
    assert plain["value"] == pytest.approx(checked["value"], abs=1e-9)
