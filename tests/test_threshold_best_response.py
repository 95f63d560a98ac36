"""Exact best responses against threshold strategies of continuous signal games, checked
against quadrature of the one-street game's payoffs written out by hand (Ganzfried and
Sandholm, "Computing equilibria by incorporating qualitative models", 2010, section 3),
G-infinity's value -1/18, and the certificate on ever finer discretisations (two and
three players)."""

import numpy as np
import pytest
from scipy.integrate import quad

from equilibria.instances import load_bayesian
from equilibria.instances.bayesian_games import standard_models
from equilibria.models.bayesian import plans_from_thresholds
from equilibria.models.errors import GameError
from equilibria.models.parametric import project
from equilibria.models.threshold_best_response import best_response, threshold_exploitability
from equilibria.routes.threshold.route import solve_threshold
from equilibria.scripts.cli import main


def one_street_by_quadrature(pot: float, a: float, b: float, c: float) -> tuple[list[float], list[float]]:
    """Payoffs and best-response values when player 1 bets below a and above b and checks
    between, and player 2 calls below c (uniform signals, the lower wins): each value
    written from the rules and integrated numerically."""
    half = pot / 2

    def check(x):  # player 1 checks at x: showdown for the pot
        return half * ((1 - x) - x)

    def bet(x):  # player 1 bets at x: player 2 folds above c, calls below
        return half * (1 - c) + (half + 1) * (max(c - x, 0.0) - min(x, c))

    def seen(y):  # player 2's showdowns after a check, whatever it does later
        return half * (max(b - max(a, y), 0.0) - max(min(y, b) - a, 0.0))

    def fold(y):
        return -half * (a + 1 - b)

    def call(y):
        beats = max(a - y, 0.0) + (1 - max(b, y))
        loses = min(y, a) + max(y - b, 0.0)
        return (half + 1) * (beats - loses)

    points = sorted({a, b, c})

    def integral(f):
        return quad(f, 0.0, 1.0, points=points, epsabs=1e-13, epsrel=1e-13, limit=200)[0]

    u1 = integral(lambda x: bet(x) if x < a or x > b else check(x))
    u2 = integral(lambda y: seen(y) + (call(y) if y < c else fold(y)))
    br1 = integral(lambda x: max(bet(x), check(x)))
    br2 = integral(lambda y: seen(y) + max(call(y), fold(y)))
    return [u1, u2], [br1, br2]


def one_street_plans(game):
    tree = game.tree
    bet, check = tree.plan_index(0, {"": "bet"}), tree.plan_index(0, {"": "check"})
    call, fold = tree.plan_index(1, {"bet": "call"}), tree.plan_index(1, {"bet": "fold"})
    return [[bet, check, bet], [call, fold]]


@pytest.mark.parametrize(
    ("pot", "a", "b", "c"),
    [(1.0, 2 / 9, 8 / 9, 4 / 9), (1.0, 0.3, 0.7, 0.5), (2.0, 0.05, 0.95, 0.2), (0.5, 0.4, 0.45, 0.9)],
)
def test_one_street_best_responses_equal_quadrature(pot, a, b, c):
    game = load_bayesian(f"one_street:pot={pot}")
    ex = threshold_exploitability(game, one_street_plans(game), [[a, b], [c]])
    payoffs, values = one_street_by_quadrature(pot, a, b, c)
    assert ex["payoffs"] == pytest.approx(payoffs, abs=1e-11)
    assert ex["best_response_values"] == pytest.approx(values, abs=1e-11)


def test_the_one_street_equilibrium_is_exact():
    # pot 1: thresholds 2/9, 8/9 and 4/9 (the paper's closed form), value 1/18 to player 1
    game = load_bayesian("one_street:pot=1")
    ex = threshold_exploitability(game, one_street_plans(game), [[2 / 9, 8 / 9], [4 / 9]])
    assert ex["exploitability"] == pytest.approx(0.0, abs=1e-15)
    assert ex["payoffs"][0] == pytest.approx(1 / 18, abs=1e-15)


def test_g_infinity_has_value_minus_one_eighteenth_and_no_gain():
    sol = solve_threshold("kuhn_continuous")
    assert sol.verification["method"].startswith("exact")
    assert sol.value == pytest.approx(-1 / 18, abs=1e-9)
    assert sol.exploitability <= 1e-12


def _two_player_shipped():
    for spec in ("one_street:pot=2", "kuhn_continuous", "river_endgame:pot=3"):
        game = load_bayesian(spec)
        for name in standard_models(game):
            yield spec, name


@pytest.mark.parametrize(("spec", "name"), list(_two_player_shipped()))
def test_exact_and_cell_certificates_agree_within_the_cells_error(spec, name):
    game = load_bayesian(spec)
    try:
        sol = solve_threshold(game, name)
    except Exception:  # a shipped model that holds no equilibrium of this instance
        pytest.skip(f"{name} does not answer {spec}")
    plans = sol.model.plan_indices(game)
    # the answer, and the answer moved off equilibrium
    for shift in (0.0, 0.02):
        thresholds = [[min(1.0, t + shift * (j + 1)) for j, t in enumerate(ts)] for ts in sol.thresholds]
        exact = threshold_exploitability(game, plans, thresholds)
        errors = []
        for cells in (1000, 4000):
            finite = game.discretize(cells)
            on_cells = finite.exploitability(project(game, sol.model, thresholds, finite))
            errors.append(abs(on_cells["exploitability"] - exact["exploitability"]))
            assert errors[-1] <= 1.0 / cells
        assert errors[1] <= errors[0] + 1e-12  # converging


def test_three_players_the_cells_converge_to_the_exact_certificate():
    game = load_bayesian("kuhn_continuous:players=3")
    rng = np.random.default_rng(7)
    sizes = [len(game.tree.plans[p]) for p in range(3)]
    plans = [[int(q) for q in rng.integers(0, sizes[p], size=3)] for p in range(3)]
    thresholds = [sorted(rng.uniform(0, 1, size=2)) for _ in range(3)]
    exact = threshold_exploitability(game, plans, thresholds)
    errors = []
    for cells in (12, 24):
        finite = game.discretize(cells)
        edges = finite.cell_edges
        sigmas = [
            plans_from_thresholds(
                game.signals[p](edges), np.r_[0.0, game.signals[p](np.asarray(thresholds[p])), 1.0], plans[p], sizes[p]
            )
            for p in range(3)
        ]
        on_cells = finite.exploitability(sigmas)
        gaps = [on_cells[k] - exact[k] for k in ("payoffs", "best_response_values")]
        errors.append(float(np.abs(np.r_[gaps[0], gaps[1]]).max()))
    assert errors[1] < errors[0] <= 2.0 / 12


def test_best_response_intervals_cover_the_signals_and_sum_to_the_gain():
    game = load_bayesian("one_street:pot=1")
    payoff, value, intervals = best_response(game, 1, one_street_plans(game), [[0.3, 0.7], [0.5]])
    assert intervals[0].start == 0.0 and intervals[-1].stop == 1.0
    assert all(x.stop == pytest.approx(y.start) for x, y in zip(intervals, intervals[1:]))
    assert sum(x.gain for x in intervals) == pytest.approx(value - payoff, abs=1e-12)


def test_bad_threshold_profiles_are_refused():
    game = load_bayesian("one_street:pot=1")
    with pytest.raises(GameError, match="must ascend"):
        threshold_exploitability(game, one_street_plans(game), [[0.7, 0.3], [0.5]])
    with pytest.raises(GameError, match="3 regions need 2 thresholds"):
        threshold_exploitability(game, one_street_plans(game), [[0.3], [0.5]])
    with pytest.raises(GameError, match="finite signals"):
        threshold_exploitability(load_bayesian("one_street:pot=1,cards=4"), one_street_plans(game), [[1, 3], [2]])


def test_cli_certifies_exactly_and_on_cells_when_asked(capsys):
    assert main(["threshold", "one_street:pot=1"]) == 0
    out = capsys.readouterr().out
    assert "(exact, best responses integrated piece by piece" in out and "on 4000 cells" in out
    assert main(["threshold", "one_street:pot=1", "--certificate", "cells", "--cells", "500"]) == 0
    assert "on a discretisation into 500 equal cells" in capsys.readouterr().out
