"""--refine quasi-perfect: the limit of Miltersen and Sørensen's perturbed sequence-form LP.

The small games below are built so that an information set is never reached in
equilibrium and one of its actions is weakly dominated there ("bad" earns less than
"good" whatever follows): any Nash equilibrium may play it, a quasi-perfect one never
does. Kuhn poker, Leduc hold'em and Liar's dice keep their published values and are
certified equilibria.
"""

import subprocess
import sys

import numpy as np
import pytest

import equilibria
from equilibria.models.efg_io import parse_efg
from equilibria.models.sequence import SequenceForm
from equilibria.routes.quasi_perfect import quasi_perfect, sequential_violations

# player 1 goes in or out; in, player 2 answers l (player 1 then chooses, "bad" or
# "good") or r (player 1 loses 3): player 2 answers r, so player 1 goes out
PLAYER_1_DEPTH_2 = """EFG 2 R "dominated at depth 2" { "P1" "P2" }
""
p "" 1 1 "root" { "in" "out" } 0
p "" 2 1 "after in" { "l" "r" } 0
p "" 1 2 "after in, l" { "bad" "good" } 0
t "" 1 "bad" { 0, 0 }
t "" 2 "good" { 2, -2 }
t "" 3 "r" { -3, 3 }
t "" 4 "out" { 1, -1 }
"""

# player 1 plays b (earning 1); after a, player 2 chooses, and "bad" earns it 0, "good" 2
PLAYER_2_DEPTH_1 = """EFG 2 R "dominated for player 2" { "P1" "P2" }
""
p "" 1 1 "root" { "a" "b" } 0
p "" 2 1 "after a" { "bad" "good" } 0
t "" 1 "bad" { 0, 0 }
t "" 2 "good" { -2, 2 }
t "" 3 "b" { 1, -1 }
"""

# a card dealt to player 1 first; both cards go out; the sets after "in, l" are unreached
WITH_CHANCE = """EFG 2 R "dominated after chance" { "P1" "P2" }
""
c "" 1 "deal" { "high" 1/2 "low" 1/2 } 0
p "" 1 1 "high" { "in" "out" } 0
p "" 2 1 "after in" { "l" "r" } 0
p "" 1 2 "high, in, l" { "bad" "good" } 0
t "" 1 "" { 0, 0 }
t "" 2 "" { 2, -2 }
t "" 3 "" { -3, 3 }
t "" 4 "" { 1, -1 }
p "" 1 3 "low" { "in" "out" } 0
p "" 2 1 "after in" { "l" "r" } 0
p "" 1 4 "low, in, l" { "bad" "good" } 0
t "" 5 "" { 0, 0 }
t "" 6 "" { 1, -1 }
t "" 7 "" { -3, 3 }
t "" 8 "" { 1, -1 }
"""

# player 2 at depth 2 of its own: it answers twice; player 1 never lets it reach the second
PLAYER_2_DEPTH_2 = """EFG 2 R "dominated for player 2 at depth 2" { "P1" "P2" }
""
p "" 2 1 "first" { "x" "y" } 0
p "" 1 1 "after x" { "go" "stop" } 0
p "" 2 2 "x, go" { "bad" "good" } 0
t "" 1 "" { 0, 0 }
t "" 2 "" { -2, 2 }
t "" 3 "" { 1, -1 }
t "" 4 "" { 1, -1 }
"""

GAMES = {
    "player 1, depth 2": (PLAYER_1_DEPTH_2, [(0, "after in, l")]),
    "player 2, depth 1": (PLAYER_2_DEPTH_1, [(1, "after a")]),
    "player 1 after chance": (WITH_CHANCE, [(0, "high, in, l"), (0, "low, in, l")]),
    "player 2, depth 2": (PLAYER_2_DEPTH_2, [(1, "x, go")]),
}


def _probability(answer, player, infoset, action):
    rows = answer.strategy_table()
    hit = rows[(rows.player == player + 1) & (rows.infoset == infoset) & (rows.action == action)]
    assert len(hit) == 1, (player, infoset, action, rows)
    return float(hit.probability.iloc[0])


@pytest.mark.parametrize("name", list(GAMES))
def test_quasi_perfect_never_plays_a_dominated_action_off_the_path(name):
    text, sets = GAMES[name]
    game = parse_efg(text)
    vertex = equilibria.solve(game, "lp")
    refined = equilibria.solve(game, "lp", refine="quasi-perfect")
    assert refined.exploitability <= 1e-12
    assert refined.value == pytest.approx(vertex.value, abs=1e-12)
    for player, infoset in sets:
        assert _probability(refined, player, infoset, "good") == pytest.approx(1.0, abs=1e-12)
    # where the LP's vertex plays the dominated action, the sequential check finds it
    sf = SequenceForm(game)
    found = quasi_perfect(sf)
    assert found.violations == [[], []]
    for player, infoset in sets:
        flagged = sequential_violations(sf, player, vertex.behaviors[player], found.plans[1 - player])
        plays_bad = _probability(vertex, player, infoset, "bad") > 1e-9
        assert plays_bad == any(infoset in label for label in flagged), (infoset, flagged)


@pytest.mark.parametrize("game, value", [("kuhn", -1 / 18), ("leduc", -0.085606424078), ("liars_dice:sides=4", 1 / 16)])
def test_refined_answers_keep_the_value_and_are_certified(game, value):
    refined = equilibria.solve(game, "lp", refine="quasi-perfect")
    assert refined.value == pytest.approx(value, abs=1e-9)
    assert refined.exploitability <= 1e-9
    assert any(line.startswith("quasi-perfect") for line in refined.plan)


@pytest.mark.parametrize("backend", ["scip", "clarabel"])
def test_the_refined_equilibrium_does_not_depend_on_the_backend(backend):
    pytest.importorskip({"scip": "pyscipopt", "clarabel": "clarabel"}[backend])
    ours = equilibria.solve("kuhn", "lp", refine="quasi-perfect", backend="highs")
    theirs = equilibria.solve("kuhn", "lp", refine="quasi-perfect", backend=backend)
    for a, b in zip(ours.behaviors, theirs.behaviors):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_the_refined_equilibrium_does_not_depend_on_the_order_of_actions():
    # the same game with every decision's actions listed the other way round (and the
    # terminals with them): the refinement is unique here, so the strategies agree
    swapped = """EFG 2 R "dominated at depth 2, actions reversed" { "P1" "P2" }
""
p "" 1 1 "root" { "out" "in" } 0
t "" 4 "out" { 1, -1 }
p "" 2 1 "after in" { "r" "l" } 0
t "" 3 "r" { -3, 3 }
p "" 1 2 "after in, l" { "good" "bad" } 0
t "" 2 "good" { 2, -2 }
t "" 1 "bad" { 0, 0 }
"""
    a = equilibria.solve(parse_efg(PLAYER_1_DEPTH_2), "lp", refine="quasi-perfect")
    b = equilibria.solve(parse_efg(swapped), "lp", refine="quasi-perfect")
    for player, infoset, action in [(0, "root", "out"), (0, "after in, l", "good"), (1, "after in", "r")]:
        assert _probability(a, player, infoset, action) == pytest.approx(_probability(b, player, infoset, action))


@pytest.mark.parametrize(
    "args, message",
    [
        (["kuhn", "--refine", "quasi-perfect", "--algorithm", "cfr+", "--iterations", "5"], "--refine"),
        (["kuhn", "--refine", "quasi-perfect", "--select", "best"], "--refine"),
        (["kuhn", "--refine", "proper"], "--refine"),
    ],
)
def test_bad_refinements_are_refused_in_one_line(args, message):
    done = subprocess.run(
        [sys.executable, "-m", "equilibria", "solve", *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_show_advises_the_quasi_perfect_action_by_default(tmp_path):
    path = tmp_path / "dominated.efg"
    path.write_text(PLAYER_1_DEPTH_2)

    def shown(*flags):
        done = subprocess.run(
            [sys.executable, "-m", "equilibria", "show", str(path), "--json", "--quiet", *flags],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        import json

        rows = json.loads(done.stdout)["strategies"]
        return {r["action"]: r["probability"] for r in rows if r["label"] == "after in, l"}

    assert shown() == {"bad": pytest.approx(0.0), "good": pytest.approx(1.0)}
    assert shown("--refine", "vertex")["bad"] > 0  # the LP's vertex: uniform where never reached


@pytest.mark.parametrize("name", ["kuhn", *GAMES])
def test_the_perturbed_equilibria_converge_to_the_exact_limit(name):
    # two computations: the perturbed LP solved at a number, and its limit taken exactly
    game = parse_efg(GAMES[name][0]) if name in GAMES else equilibria.load(name)
    sf = SequenceForm(game)
    limit = quasi_perfect(sf).behaviors
    for eps in (1e-3, 1e-5):
        answer = equilibria.solve(game, "lp", refine="quasi-perfect", perturbation=eps)
        gap = max(np.abs(a - b).max() for a, b in zip(answer.behaviors, limit))
        assert gap <= 2 * eps
        assert answer.exploitability <= 10 * eps


def test_a_perturbation_needs_the_refinement():
    done = subprocess.run(
        [sys.executable, "-m", "equilibria", "solve", "kuhn", "--perturbation", "0.01"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "--perturbation" in done.stderr and done.stdout == ""


# player 1 takes L (1) or R; after R it chooses a (1) or b (0). Against its own trembles
# R earns 1 - eps: an extensive-form perfect equilibrium takes L, a quasi-perfect one, which
# ignores the player's own future trembles, may take either
OWN_TREMBLES = """EFG 2 R "own trembles" { "P1" "P2" }
""
p "" 1 1 "root" { "R" "L" } 0
p "" 1 2 "after R" { "a" "b" } 0
t "" 1 "a" { 1, -1 }
t "" 2 "b" { 0, 0 }
p "" 2 1 "after L" { "x" "y" } 0
t "" 3 "x" { 1, -1 }
t "" 4 "y" { 1, -1 }
"""


@pytest.mark.parametrize("name", list(GAMES))
def test_ef_perfect_trembles_onto_a_dominated_action_no_more_than_it_must(name):
    text, sets = GAMES[name]
    eps = 1e-2
    answer = equilibria.solve(parse_efg(text), "lp", refine="ef-perfect", perturbation=eps)
    for player, infoset in sets:
        assert _probability(answer, player, infoset, "bad") == pytest.approx(eps, abs=1e-6)
    assert answer.exploitability <= 10 * eps


def test_ef_perfect_weighs_the_players_own_trembles_where_quasi_perfect_does_not():
    eps = 1e-2
    game = parse_efg(OWN_TREMBLES)
    ef = equilibria.solve(game, "lp", refine="ef-perfect", perturbation=eps)
    # R earns 1 - eps against its own tremble to b, L earns 1: L gets all but the tremble
    assert _probability(ef, 0, "root", "L") == pytest.approx(1 - eps, abs=1e-6)
    assert _probability(ef, 0, "after R", "a") == pytest.approx(1 - eps, abs=1e-6)
    qp = equilibria.solve(game, "lp", refine="quasi-perfect")
    assert _probability(qp, 0, "after R", "a") == pytest.approx(1.0)
    assert qp.exploitability <= 1e-12


def test_ef_perfect_on_kuhn_approaches_the_value():
    for eps in (1e-2, 1e-4):
        answer = equilibria.solve("kuhn", "lp", refine="ef-perfect", perturbation=eps)
        # the perturbed equilibria close on Kuhn's value, -1/18, as eps vanishes
        assert answer.exploitability <= 0.5 * eps
        assert abs(float(answer.certificate.payoffs[0]) + 1 / 18) <= 0.5 * eps
