"""Longer checks, run by `make test-slow`."""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import equilibria
from equilibria.models.efg_io import write_efg
from tests.conftest import assert_value_matches_gambit

from .gambit_compat import equilibrium, first_payoff
from .random_games import random_game

pytestmark = pytest.mark.slow

gbt = pytest.importorskip("pygambit")


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(4, 6), buckets=st.integers(1, 3))
def test_deeper_random_games_match_gambit(seed, depth, buckets, tmp_path):
    game = random_game(seed, max_depth=depth, buckets=buckets)
    assume(min(game.counts().infosets) >= 2 and game.num_nodes <= 400)
    assert_value_matches_gambit(game, tmp_path)


@pytest.mark.parametrize("spec", ["leduc:ranks=5", "liars_dice:sides=4", "generalized_kuhn:cards=400"])
def test_highs_and_scip_agree_on_larger_games(spec):
    game = equilibria.load(spec)
    a = equilibria.solve_game(game, "highs")
    b = equilibria.solve_game(game, "scip")
    assert a.value == pytest.approx(b.value, abs=1e-8)
    assert max(a.exploitability, b.exploitability) <= 1e-7


def test_gambit_value_on_generalized_kuhn_20(tmp_path):
    path = tmp_path / "g20.efg"
    game = equilibria.load("generalized_kuhn:cards=20")
    write_efg(game, path)
    gg = gbt.read_efg(str(path))
    eq = equilibrium(gbt.nash.lp_solve(gg, rational=False))
    assert equilibria.solve_game(game).value == pytest.approx(first_payoff(eq, gg), abs=1e-9)
