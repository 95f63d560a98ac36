"""One planner: ``equilibria.solve(game)`` and ``equilibria solve GAME`` take the same route
and backend, and the command answers general-sum and n-player games (by MIP Nash) instead
of refusing them."""

import json

import pytest

import equilibria
from equilibria.models.efg_io import write_efg
from tests.conftest import run_cli
from tests.random_games import random_game

SMALL_SHERIFF = "sheriff:max_items=3,max_bribe=3,rounds=1"


@pytest.fixture(scope="module")
def general_sum_efg(tmp_path_factory):
    path = tmp_path_factory.mktemp("games") / "general_sum.efg"
    write_efg(random_game(3, general_sum=True), path)
    return str(path)


@pytest.mark.parametrize(
    "spec, route",
    [
        ("kuhn", "shrink"),
        ("leduc", "shrink"),
        ("general_sum", "nash"),
        ("kuhn:players=3", "nash"),
        (SMALL_SHERIFF, "nash"),
    ],
)
def test_python_and_the_command_take_the_same_route_and_backend(spec, route, general_sum_efg):
    spec = general_sum_efg if spec == "general_sum" else spec
    answer = equilibria.solve(spec)
    ran = run_cli("solve", spec, "--json", "--quiet")
    assert ran.returncode == 0, ran.stderr
    printed = json.loads(ran.stdout)
    assert (answer.route, answer.backend) == (printed["route"], printed["backend"]) == (route, "highs")
    assert answer.plan[0] == printed["plan"][0]
    # each answer is certified, whichever route gave it: an equilibrium for two players,
    # within the rounds' default epsilon (0.05) for three
    assert printed["nash_conv"] <= (0.05 if "players=3" in spec else 1e-6)


def test_a_two_player_zero_sum_game_without_ordered_signals_takes_the_tree_lp():
    answer = equilibria.solve("liars_dice:sides=2")
    assert answer.route == "lp" and "no abstraction" in answer.plan[0]


def test_options_of_the_lp_alone_are_refused_for_a_general_sum_game(general_sum_efg):
    with pytest.raises(equilibria.EquilibriaError, match="applies to two-player zero-sum games"):
        equilibria.solve(general_sum_efg, algorithm="cfr+", iterations=10)
    ran = run_cli("solve", general_sum_efg, "--target-exploitability", "1e-3")
    assert ran.returncode == 2 and "--target-exploitability applies to two-player zero-sum games" in ran.stderr
