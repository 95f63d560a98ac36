"""One planner: ``equilibria.solve(game)`` and ``equilibria solve GAME`` take the same route
and backend, and the command answers general-sum and n-player games (Lemke for two players, MIP Nash for more) instead
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
    "spec, route, backend",
    [
        ("kuhn", "shrink", "highs"),
        ("leduc", "shrink", "highs"),
        ("general_sum", "lcp", "lemke"),
        ("kuhn:players=3", "nash", "highs"),
        (SMALL_SHERIFF, "lcp", "lemke"),
    ],
)
def test_python_and_the_command_take_the_same_route_and_backend(spec, route, backend, general_sum_efg):
    spec = general_sum_efg if spec == "general_sum" else spec
    answer = equilibria.solve(spec)
    ran = run_cli("solve", spec, "--json", "--quiet")
    assert ran.returncode == 0, ran.stderr
    printed = json.loads(ran.stdout)
    assert (answer.route, answer.backend) == (printed["route"], printed["backend"]) == (route, backend)
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


LEDUC_VALUE = -0.085606424078  # Leduc hold'em's value for player 1 (published; see test_anytime)


def test_an_ordered_game_too_large_for_its_tree_goes_through_gameshrink_without_it(monkeypatch):
    """With room for Leduc's signal tree (120 nodes) but not its tree (9,457 nodes), the plan
    shrinks it from its signals; the tree is never built, and the answer is Leduc's value."""
    from equilibria.instances import registry

    monkeypatch.setattr(registry, "available_memory", lambda: 1_000_000)
    built = []
    original = registry.GameDescription.view

    def view(self, name, *args, **kwargs):
        built.append(name)
        return original(self, name, *args, **kwargs)

    monkeypatch.setattr(registry.GameDescription, "view", view)
    answer = equilibria.solve("leduc")
    assert answer.route == "shrink" and "extensive" not in built
    assert any("tree is never built: about 9,457 nodes" in line for line in answer.plan)
    assert answer.value == pytest.approx(LEDUC_VALUE, abs=1e-9) and answer.exploitability <= 1e-9
    # with its signal tree too large as well, the game is refused with its size
    monkeypatch.setattr(registry, "available_memory", lambda: 1_000)
    with pytest.raises(registry.TooLarge, match="signal-tree nodes"):
        equilibria.solve("leduc")


@pytest.mark.parametrize("route", ["lp", "shrink"])
def test_beyond_the_lps_reach_the_backend_left_to_choose_runs_dcfr(route, monkeypatch):
    """An LP with more payoff entries than the limit is solved by DCFR, certified, to
    exploitability 1e-3 unless told otherwise; Leduc's value lies within its bounds. A
    backend named keeps the LP."""
    monkeypatch.setattr("equilibria.routes.lp.LP_ENTRY_LIMIT", 1_000)
    answer = equilibria.solve("leduc", route)
    assert answer.algorithm == "dcfr" and answer.status == "target_reached"
    assert answer.exploitability <= 1e-3
    low, high = answer.value_bounds
    assert low - 1e-12 <= LEDUC_VALUE <= high + 1e-12
    assert any(line.startswith("dcfr, not the LP") for line in answer.plan)
    assert equilibria.solve("leduc", route, backend="highs").algorithm == "lp"
