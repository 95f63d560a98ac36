"""Values and strategies of the sequence-form LP against published numbers (REFERENCE.md)."""

from fractions import Fraction

import numpy as np
import pytest

import equilibria
from equilibria.formulations import sequence_form_lp
from equilibria.models.sequence import SequenceForm
from equilibria.solvers import solve


def behavior_of(solution, player, label):
    table = solution.strategy_table()
    rows = table[(table.player == player) & (table.infoset == label)]
    return dict(zip(rows.action, rows.probability))


def test_kuhn_value_is_minus_one_eighteenth(kuhn_solution):
    assert kuhn_solution.value == pytest.approx(-1 / 18, abs=1e-9)
    assert kuhn_solution.exploitability <= 1e-7


def test_kuhn_player2_unique_strategy_recovered(kuhn_solution):
    # Kuhn 1950: facing a bet call with K, call Q 1/3, fold J; after a check bet K, check Q, bet J 1/3.
    assert behavior_of(kuhn_solution, 2, "K:r")["call"] == pytest.approx(1.0, abs=1e-9)
    assert behavior_of(kuhn_solution, 2, "Q:r")["call"] == pytest.approx(1 / 3, abs=1e-9)
    assert behavior_of(kuhn_solution, 2, "J:r")["call"] == pytest.approx(0.0, abs=1e-9)
    assert behavior_of(kuhn_solution, 2, "K:c")["bet"] == pytest.approx(1.0, abs=1e-9)
    assert behavior_of(kuhn_solution, 2, "Q:c")["bet"] == pytest.approx(0.0, abs=1e-9)
    assert behavior_of(kuhn_solution, 2, "J:c")["bet"] == pytest.approx(1 / 3, abs=1e-9)


def test_kuhn_player1_in_published_family(kuhn_solution):
    alpha = behavior_of(kuhn_solution, 1, "J:")["bet"]
    assert -1e-9 <= alpha <= 1 / 3 + 1e-9
    assert behavior_of(kuhn_solution, 1, "K:")["bet"] == pytest.approx(3 * alpha, abs=1e-8)
    assert behavior_of(kuhn_solution, 1, "Q:")["bet"] == pytest.approx(0.0, abs=1e-9)
    assert behavior_of(kuhn_solution, 1, "Q:cr")["call"] == pytest.approx(alpha + 1 / 3, abs=1e-8)


def test_leduc_value(leduc_solution):
    assert leduc_solution.value == pytest.approx(-0.085606424078, abs=1e-8)
    assert leduc_solution.exploitability <= 1e-7


def test_liars_dice_six_faces_value():
    sol = equilibria.solve_game(equilibria.load("liars_dice:dice=1,sides=6"))
    assert sol.value == pytest.approx(float(Fraction(-7, 258)), abs=1e-8)
    assert sol.exploitability <= 1e-7


@pytest.mark.parametrize(
    "cards, published", [(50, -0.0576), (100, -0.0566), (150, -0.0563), (200, -0.0561), (250, -0.0560)]
)
def test_generalized_kuhn_matches_qualitative_models_figure1(cards, published):
    sol = equilibria.solve_game(equilibria.load(f"generalized_kuhn:cards={cards}"))
    assert round(sol.value, 4) == pytest.approx(published, abs=1e-12)
    assert sol.exploitability <= 1e-7


@pytest.mark.parametrize("spec", ["kuhn", "leduc", "generalized_kuhn:cards=7", "liars_dice:sides=3"])
def test_both_players_lps_give_opposite_values(spec):
    sf = SequenceForm(equilibria.load(spec))
    v1 = solve(sequence_form_lp(sf, 0)).objective
    v2 = solve(sequence_form_lp(sf, 1)).objective
    assert v1 == pytest.approx(-v2, abs=1e-9)


@pytest.mark.parametrize("backend", ["scip", "pyomo:appsi_highs", "pyomo:scip_direct"])
def test_other_backends_agree(backend, leduc_solution):
    from equilibria.solvers import available_backends

    if backend not in available_backends():
        pytest.skip(f"{backend} not installed")
    game = equilibria.load("kuhn") if backend.startswith("pyomo") else leduc_solution.game
    expected = -1 / 18 if backend.startswith("pyomo") else -0.085606424078
    sol = equilibria.solve_game(game, backend)
    assert sol.value == pytest.approx(expected, abs=1e-8)
    assert sol.exploitability <= 1e-7


@pytest.mark.parametrize("method", ["concurrent", "simplex", "ipx", "ipm", "pdlp"])
def test_highs_methods(method):
    sol = equilibria.solve_game(equilibria.load("kuhn"), method=method)
    assert sol.value == pytest.approx(-1 / 18, abs=1e-6)
    assert sol.exploitability <= 1e-5


def test_optional_solvers_skip_cleanly():
    from equilibria.models.errors import SolverError

    with pytest.raises(SolverError, match="available here: highs"):
        solve(sequence_form_lp(SequenceForm(equilibria.load("kuhn")), 0), "pyomo:no_such_solver")


def test_pyomo_model_has_named_components_and_same_optimum():
    import pyomo.environ as pyo

    lp = sequence_form_lp(SequenceForm(equilibria.load("kuhn")), 0)
    m = lp.to_pyomo()
    assert {c.name for c in m.component_objects(pyo.Constraint)} == {"realization", "best_response"}
    assert {v.name for v in m.component_objects(pyo.Var)} == {"r", "v"}
    pyo.SolverFactory("appsi_highs").solve(m)
    assert pyo.value(m.objective) == pytest.approx(-1 / 18, abs=1e-9)


def test_slides_lp_structure_kuhn():
    """Rows: 1 + infosets of the player (realization) and one per opponent sequence."""
    sf = SequenceForm(equilibria.load("kuhn"))
    lp = sequence_form_lp(sf, 0)
    assert lp.row_block("realization").size == 1 + 6
    assert lp.row_block("best_response").size == 13
    assert lp.col_block("r").size == 13 and lp.col_block("v").size == 1 + 6
    # r(empty) = 1 is the first realization row
    assert lp.A[0].toarray().ravel().tolist()[:1] == [1.0] and lp.row_lower[0] == lp.row_upper[0] == 1.0
    assert np.all(lp.col_lower[:13] == 0) and np.all(lp.col_upper[:13] == 1)
