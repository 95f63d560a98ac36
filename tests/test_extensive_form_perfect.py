"""--refine ef-perfect: the exact limit of Farina and Gatti's extensive-form perturbation.

The small games are those of test_refinement.py: an information set never reached in
equilibrium where "bad" earns less than "good" whatever follows. In the game with the
player's own trembles, taking the sure 1 beats a second move worth 1 or 0 against the
player's own tremble there, by eps: the extensive-form perfect equilibrium takes it.
"""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import equilibria
from equilibria.models.efg_io import parse_efg
from equilibria.models.sequence import SequenceForm
from equilibria.routes.extensive_form_perfect import (
    _laurent_basis,
    extensive_form_perfect,
    perturbed_best_response_violations,
)
from tests.test_refinement import GAMES, OWN_TREMBLES, PLAYER_1_DEPTH_2, _probability


@pytest.mark.parametrize("name", list(GAMES))
def test_ef_perfect_never_plays_a_dominated_action_off_the_path(name):
    text, sets = GAMES[name]
    game = parse_efg(text)
    vertex = equilibria.solve(game, "lp")
    refined = equilibria.solve(game, "lp", refine="ef-perfect")
    assert refined.exploitability <= 1e-12
    assert refined.value == pytest.approx(vertex.value, abs=1e-12)
    for player, infoset in sets:
        assert _probability(refined, player, infoset, "good") == pytest.approx(1.0, abs=1e-12)
    assert any(line.startswith("ef-perfect") for line in refined.plan)


def test_ef_perfect_takes_the_sure_payoff_over_its_own_tremble():
    answer = equilibria.solve(parse_efg(OWN_TREMBLES), "lp", refine="ef-perfect")
    assert _probability(answer, 0, "root", "L") == pytest.approx(1.0, abs=1e-12)
    assert _probability(answer, 0, "after R", "a") == pytest.approx(1.0, abs=1e-12)


def _sequence(sf, p, infoset, action):
    """The column of player ``p``'s sequence ending in the ``action``-th action at the
    information set labelled ``infoset``."""
    tp = sf.players[p].treeplex
    labels = [sf.game.infoset_label(int(g)) for g in sf.players[p].infoset_global]
    k = next(i for i, label in enumerate(labels) if label.endswith(f"'{infoset}'"))
    return int(tp.first_sequence[k]) + action


def test_the_check_finds_a_player_who_ignores_its_own_trembles():
    # player 1 taking R (its first action) but for a tremble to L: optimal against player
    # 2 in the game, not in the perturbed games, where R earns 1 - eps and L earns 1
    sf = SequenceForm(parse_efg(OWN_TREMBLES))
    found = extensive_form_perfect(sf)
    assert found.violations == [[], []]
    plan = np.zeros((found.plans[0].shape[0], sf.players[0].treeplex.num_sequences))
    plan[0, 0] = 1.0
    right, left = _sequence(sf, 0, "root", 0), _sequence(sf, 0, "root", 1)
    a, b = _sequence(sf, 0, "after R", 0), _sequence(sf, 0, "after R", 1)
    plan[:2, right] = [1.0, -1.0]  # 1 - eps
    plan[1, left] = 1.0  # eps
    plan[:3, a] = [1.0, -2.0, 1.0]  # (1 - eps) ** 2
    plan[1:3, b] = [1.0, -1.0]  # eps (1 - eps)
    flagged = perturbed_best_response_violations(sf, 0, plan, found.plans[1])
    assert len(flagged) == 1 and flagged[0].endswith("'root'")


@pytest.mark.parametrize(
    "game, value",
    [
        ("kuhn", -1 / 18),
        ("kuhn_rules:cards=8", -1 / 16),
        ("liars_dice:sides=2", None),
        pytest.param("leduc", -0.085606424078, marks=pytest.mark.slow),
    ],
)
def test_ef_perfect_answers_keep_the_value_and_are_certified(game, value):
    refined = equilibria.solve(game, "lp", refine="ef-perfect")
    expected = equilibria.solve(game, "lp").value if value is None else value
    assert refined.value == pytest.approx(expected, abs=1e-9)
    assert refined.exploitability <= 1e-9


def test_the_perturbed_equilibria_approach_the_ef_perfect_limit():
    # two computations: the perturbed LP solved at a number, and its limit taken exactly
    limit = equilibria.solve("kuhn", "lp", refine="ef-perfect").behaviors
    for eps in (1e-3, 1e-5):
        answer = equilibria.solve("kuhn", "lp", refine="ef-perfect", perturbation=eps)
        gap = max(np.abs(a - b).max() for a, b in zip(answer.behaviors, limit))
        assert gap <= 10 * eps


@pytest.mark.parametrize("backend", ["highs", "scip", "clarabel"])
def test_the_perturbed_equilibria_on_every_backend_approach_the_same_limit(backend):
    # the limit is taken on HiGHS's simplex whatever the backend; the perturbed LPs at one
    # eps are each backend's own, and they close on it as eps does
    pytest.importorskip({"highs": "highspy", "scip": "pyscipopt", "clarabel": "clarabel"}[backend])
    limit = equilibria.solve("kuhn", "lp", refine="ef-perfect", backend=backend).behaviors
    for eps in (1e-3, 1e-5):
        answer = equilibria.solve("kuhn", "lp", refine="ef-perfect", perturbation=eps, backend=backend)
        assert max(np.abs(a - b).max() for a, b in zip(answer.behaviors, limit)) <= 2 * eps


def test_series_of_a_basis_singular_at_zero_are_its_laurent_series():
    # B(eps) = [[1, eps], [eps, 0]] (det -eps**2, so two column operations), one nonbasic
    # column (1 + 3 eps, 2 + 5 eps) at its lower bound 1, costs (1, -1) on the basis and
    # 1/2 on it. By hand: u1 = -2/eps - 5, u2 = 2/eps**2 + 4/eps - 3, and the nonbasic
    # column's reduced cost 1/2 - (1 + 3 eps) pi1 - (2 + 5 eps) pi2, with
    # pi = B(eps)^-T (1, -1) = (-1/eps, 1/eps + 1/eps**2): -2/eps**2 - 6/eps - 3/2
    zero = sp.csc_matrix(np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 2.0]]))
    slope = sp.csc_matrix(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 5.0]]))
    lower, upper = np.array([-np.inf, -np.inf, 1.0]), np.full(3, np.inf)
    costs, status = np.array([1.0, -1.0, 0.5]), np.array([1, 1, 0], dtype=np.int8)
    u, d, shift = _laurent_basis(zero, slope, lower, upper, costs, status, 4)
    assert shift == 2
    np.testing.assert_allclose(u[:4, 0], [0, -2, -5, 0], atol=1e-12)
    np.testing.assert_allclose(u[:4, 1], [2, 4, -3, 0], atol=1e-12)
    np.testing.assert_allclose(u[:, 2], [0, 0, 1, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(d[:4, 2], [-2, -6, -1.5, 0], atol=1e-12)
    np.testing.assert_allclose(d[:, :2], 0.0, atol=1e-12)


def test_the_ef_perfect_equilibrium_does_not_depend_on_the_order_of_actions():
    swapped = """EFG 2 R "own trembles, actions reversed" { "P1" "P2" }
""
p "" 1 1 "root" { "L" "R" } 0
p "" 2 1 "after L" { "y" "x" } 0
t "" 4 "y" { 1, -1 }
t "" 3 "x" { 1, -1 }
p "" 1 2 "after R" { "b" "a" } 0
t "" 2 "b" { 0, 0 }
t "" 1 "a" { 1, -1 }
"""
    a = equilibria.solve(parse_efg(OWN_TREMBLES), "lp", refine="ef-perfect")
    b = equilibria.solve(parse_efg(swapped), "lp", refine="ef-perfect")
    # player 1's is unique; player 2's x and y earn the same, so any mixture of them is one
    for player, infoset, action in [(0, "root", "L"), (0, "after R", "a")]:
        assert _probability(a, player, infoset, action) == pytest.approx(_probability(b, player, infoset, action))


def test_the_gamblers_bet_on_the_lowest_card_in_gala_s_simplified_poker():
    # Koller and Pfeffer's figure of 8-card simplified poker shows the gambler betting card
    # 1 fairly often; over the optimal face that probability runs from 0 to 3/4, and the
    # extensive-form perfect equilibrium takes 3/4 (the LP's vertex and the quasi-perfect
    # equilibrium never bet it)
    answer = equilibria.solve("kuhn_rules:cards=8", "lp", refine="ef-perfect")
    assert _probability(answer, 0, "card 1", "bet") == pytest.approx(0.75, abs=1e-9)
    perturbed = equilibria.solve("kuhn_rules:cards=8", "lp", refine="ef-perfect", perturbation=1e-4)
    assert _probability(perturbed, 0, "card 1", "bet") == pytest.approx(0.75, abs=1e-3)
    best = equilibria.solve("kuhn_rules:cards=8", "lp", refine="quasi-perfect")
    assert _probability(best, 0, "card 1", "bet") == pytest.approx(0.0, abs=1e-9)


def test_show_offers_the_ef_perfect_equilibrium(tmp_path):
    path = tmp_path / "dominated.efg"
    path.write_text(PLAYER_1_DEPTH_2)
    done = subprocess.run(
        [sys.executable, "-m", "equilibria", "show", str(path), "--refine", "ef-perfect", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "ef-perfect" in done.stdout.splitlines()[1]


def test_ctrl_c_during_the_limit_on_leduc_exits_130_at_once():
    # Leduc's limit takes about a minute, most of it in dense SVDs of singular bases: the
    # signal ends the command within the console's grace, one line, nothing on stdout
    from tests.test_user_workflows import interrupted_after

    status, stderr, _ = interrupted_after(5, "solve", "leduc", "--refine", "ef-perfect")
    assert status == 130, stderr
    assert stderr.strip().splitlines()[-1] == "equilibria: interrupted"
    assert "Traceback" not in stderr
