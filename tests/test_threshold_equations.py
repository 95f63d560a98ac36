"""A model's indifference equations solved exactly, and a model repaired by exact best
responses, against the one-street game's closed form (Ganzfried and Sandholm, "Computing
equilibria by incorporating qualitative models", 2010, section 3: at pot 1 player 1 bets
below 2/9 and above 8/9, player 2 calls below 4/9)."""

import pytest

from equilibria.instances import load_bayesian
from equilibria.models.threshold_best_response import indifference_residuals
from equilibria.routes.threshold.equations import repair, solve_equations

CLOSED_FORM = [[2 / 9, 8 / 9], [4 / 9]]


def one_street():
    game = load_bayesian("one_street:pot=1")
    tree = game.tree
    bet, check = tree.plan_index(0, {"": "bet"}), tree.plan_index(0, {"": "check"})
    call, fold = tree.plan_index(1, {"bet": "call"}), tree.plan_index(1, {"bet": "fold"})
    return game, (bet, check, call, fold)


def by_hand(a: float, b: float, c: float) -> list[float]:
    """The indifference residuals written from the rules (pot 1, the lower signal wins,
    bet 1): player 1 at a (bet minus check) and b (check minus bet), player 2 at c (call
    minus fold)."""
    half = 0.5

    def check(x):
        return half * ((1 - x) - x)

    def bet(x):
        return half * (1 - c) + (half + 1) * (max(c - x, 0.0) - min(x, c))

    def call(y):
        return (half + 1) * ((max(a - y, 0.0) + 1 - max(b, y)) - (min(y, a) + max(y - b, 0.0)))

    def fold(y):
        return -half * (a + 1 - b)

    return [bet(a) - check(a), check(b) - bet(b), call(c) - fold(c)]


@pytest.mark.parametrize(("a", "b", "c"), [(2 / 9, 8 / 9, 4 / 9), (0.1, 0.7, 0.5), (0.3, 0.95, 0.2)])
def test_residuals_are_the_payoff_differences_written_by_hand(a, b, c):
    game, (bet, check, call, fold) = one_street()
    residuals = indifference_residuals(game, [[bet, check, bet], [call, fold]], [[a, b], [c]])
    assert residuals == pytest.approx(by_hand(a, b, c), abs=1e-13)


def test_the_equations_are_solved_to_the_closed_form():
    game, (bet, check, call, fold) = one_street()
    thresholds, residual = solve_equations(game, [[bet, check, bet], [call, fold]], [[0.3, 0.8], [0.5]])
    assert residual <= 1e-12
    assert thresholds[0] == pytest.approx(CLOSED_FORM[0], abs=1e-9)
    assert thresholds[1] == pytest.approx(CLOSED_FORM[1], abs=1e-9)


def test_a_correct_model_read_off_its_thresholds_is_solved_in_one_step():
    game, (bet, check, call, fold) = one_street()
    repaired = repair(game, [[bet, check, bet], [call, fold]], [[0.25, 0.85], [0.4]], target=1e-12)
    assert len(repaired.steps) == 1 and repaired.nash_conv <= 1e-12
    assert repaired.thresholds[0] == pytest.approx(CLOSED_FORM[0], abs=1e-9)


def test_a_model_far_from_any_equilibrium_keeps_the_best_solved_profile():
    """The repair is local: read far from an equilibrium (player 2 calling every bet), the
    one-street game's regions collapse and no model reaches the target. The best profile
    whose equations hold is returned, with its exact NashConv, and the steps end when a
    model and its thresholds repeat."""
    game, (bet, check, call, fold) = one_street()
    repaired = repair(game, [[bet, check, bet], [call]], [[0.3, 0.8], []], target=1e-12, steps=20)
    solved = [s["nash_conv"] for s in repaired.steps if s["residual"] <= 1e-9]
    assert repaired.nash_conv == min(solved) > 1e-3
    assert len(repaired.steps) < 20  # a repeat ended them
