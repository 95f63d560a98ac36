"""The compact sequence-form LP (fold and showdown payoffs through sum and prefix-sum
variables) has the published values, fewer nonzeros, and strategies that are equilibria
of the full game tree."""

import pytest

import equilibria
from equilibria.routes.lp import solve_sequence_form
from equilibria.routes.shrink import shrink, solve_shrunk
from tests.conftest import run_cli

PUBLISHED = {"kuhn": -1 / 18, "leduc": -0.085606424078}


@pytest.mark.parametrize("game", sorted(PUBLISHED))
def test_published_values(game):
    report = shrink(game, rule="none", compact=True)
    assert report.lp.compact
    run = solve_sequence_form(report.filtered.sequence_form, lp=report.lp)
    assert run.value == pytest.approx(PUBLISHED[game], abs=1e-9)
    assert run.certificate.exploitability <= 1e-9


@pytest.mark.parametrize(
    "game",
    [
        "leduc:ranks=4",
        "leduc:ranks=3,suits=3",
        "rhode_island:ranks=4,suits=1",
        pytest.param("rhode_island:ranks=5,suits=1", marks=pytest.mark.slow),
    ],
)
def test_lifted_strategies_are_equilibria_of_the_tree(game):
    answer = solve_shrunk(game, rule="none", compact=True, lift=True)
    assert answer.lifted and answer.certified_in == "the game"
    assert answer.exploitability <= 1e-8
    low, high = answer.value_bounds
    assert high - low <= 2e-8


def test_fewer_nonzeros_than_the_plain_lp_from_eight_ranks_on():
    plain = shrink("leduc:ranks=8", rule="none").lp
    compact = shrink("leduc:ranks=8", rule="none", compact=True).lp
    # same meaning of the plain rows and columns, sums and prefix sums added
    assert compact.row_block("best_response").stop - compact.row_block("best_response").start == (
        plain.row_block("best_response").stop - plain.row_block("best_response").start
    )
    assert compact.nnz < plain.nnz / 2


def test_compact_needs_the_unabstracted_game():
    with pytest.raises(equilibria.EquilibriaError, match="rule 'none'"):
        shrink("leduc", compact=True)
    res = run_cli("solve", "leduc", "--compact")
    assert res.returncode == 2 and "--compact needs --shrink --rule none" in res.stderr
