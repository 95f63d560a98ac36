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


# ------------------------------------------------ the sequence-form slides' Example 1
#: The slides' g1 values, by player 1's and player 2's sequences ("" the empty one).
SLIDES_G1 = {
    ("a", ""): Fraction(1, 3),
    ("b", "e"): Fraction(1),
    ("b", "f"): Fraction(-2, 3),
    ("c", "e"): Fraction(4, 3),
    ("cg", "f"): Fraction(10, 3),
    ("d", ""): Fraction(4, 3),
    ("ch", "f"): Fraction(0),
}
#: Player 1's sequences and player 2's in the order of the sequence form.
P1_SEQUENCES = ["", "a", "b", "c", "d", "cg", "ch"]
P2_SEQUENCES = ["", "e", "f"]
#: Their columns in the exported LPs, named by the slides' information sets and actions
#: (``models.sequence_names``), and the information sets' values (the root's ``v2()``).
P1_COLUMNS = ["r1()", "r1(I11_a)", "r1(I11_b)", "r1(I12_c)", "r1(I12_d)", "r1(I13_g)", "r1(I13_h)"]
P2_COLUMNS = ["r2()", "r2(I21_e)", "r2(I21_f)"]


def _slide_rows(player):
    """The slides' LP of ``player`` row by row: (coefficients by column name, lower, upper)."""
    g = {k: float(v) for k, v in SLIDES_G1.items()}
    if player == 1:
        r = dict(zip(P1_SEQUENCES, P1_COLUMNS))
        v20, v21 = "v2()", "v2(I21)"
        return [
            ({r[""]: 1}, 1, 1),  # (7)
            ({r["a"]: 1, r["b"]: 1, r[""]: -1}, 0, 0),  # (9)  I11
            ({r["c"]: 1, r["d"]: 1, r[""]: -1}, 0, 0),  # (10) I12
            ({r["cg"]: 1, r["ch"]: 1, r["c"]: -1}, 0, 0),  # (11) I13
            ({v21: 1, r["a"]: g["a", ""], r["d"]: g["d", ""], v20: -1}, 0, None),  # (12)
            ({r["b"]: g["b", "e"], r["c"]: g["c", "e"], v21: -1}, 0, None),  # (13)
            ({r["b"]: g["b", "f"], r["cg"]: g["cg", "f"], r["ch"]: g["ch", "f"], v21: -1}, 0, None),  # (14)
        ]
    r = dict(zip(P2_SEQUENCES, P2_COLUMNS))
    v10, v11, v12, v13 = "v1()", "v1(I11)", "v1(I12)", "v1(I13)"
    return [
        ({r[""]: 1}, 1, 1),  # (16)
        ({r["e"]: 1, r["f"]: 1, r[""]: -1}, 0, 0),  # (18) I21
        ({v11: 1, v12: 1, v10: -1}, 0, None),  # (19)
        ({r[""]: -g["a", ""], v11: -1}, 0, None),  # (20)
        ({r["e"]: -g["b", "e"], r["f"]: -g["b", "f"], v11: -1}, 0, None),  # (21)
        ({v13: 1, r["e"]: -g["c", "e"], v12: -1}, 0, None),  # (22)
        ({r[""]: -g["d", ""], v12: -1}, 0, None),  # (23)
        ({r["f"]: -g["cg", "f"], v13: -1}, 0, None),  # (24)
        ({r["f"]: -g["ch", "f"], v13: -1}, 0, None),  # (25)
    ]


def test_slides_example_has_the_slides_sequence_form_payoffs():
    game = equilibria.load("slides_example")
    sf = SequenceForm(game)
    A = sf.payoff_matrix(0).toarray()
    for (s1, s2), value in SLIDES_G1.items():
        assert A[P1_SEQUENCES.index(s1), P2_SEQUENCES.index(s2)] == float(value), (s1, s2)
    assert np.count_nonzero(A) == sum(1 for v in SLIDES_G1.values() if v)


@pytest.mark.parametrize("player", [1, 2])
def test_slides_example_lps_are_the_slides_row_for_row(player, tmp_path):
    """``export slides_example --player N --format lp``, read back by HiGHS: the
    objective is the root value, the bounds are 0 <= r <= 1, and row k is the slides'
    row k ((7), (9)-(14) for player 1; (16), (18)-(25) for player 2)."""
    import highspy

    from tests.conftest import run_cli

    path = tmp_path / f"slides_p{player}.lp"
    res = run_cli("export", "slides_example", "--player", player, "--format", "lp", "-o", path)
    assert res.returncode == 0, res.stderr
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    lp = h.getLp()
    names = list(lp.col_names_)
    assert lp.sense_ == highspy.ObjSense.kMaximize
    root = f"v{3 - player}()"
    assert dict(zip(names, lp.col_cost_)) == {n: (1.0 if n == root else 0.0) for n in names}  # (6) / (15)
    for n, lo, hi in zip(names, lp.col_lower_, lp.col_upper_):
        assert (lo, hi) == ((0.0, 1.0) if n.startswith("r") else (-highspy.kHighsInf, highspy.kHighsInf)), n
    m = lp.a_matrix_
    dense = np.zeros((lp.num_row_, lp.num_col_))
    for j in range(lp.num_col_):
        for k in range(m.start_[j], m.start_[j + 1]):
            dense[m.index_[k], j] = m.value_[k]
    rows = _slide_rows(player)
    assert lp.num_row_ == len(rows)
    for i, (coefficients, lower, upper) in enumerate(rows):
        want = np.zeros(lp.num_col_)
        for name, value in coefficients.items():
            want[names.index(name)] = value
        assert dense[i] == pytest.approx(want, abs=1e-12), (player, i)
        assert lp.row_lower_[i] == lower
        assert lp.row_upper_[i] == (highspy.kHighsInf if upper is None else upper)
