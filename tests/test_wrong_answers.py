"""No answer that the exact certificate rejects is called optimal.

A backend's duals can be wrong where its primal solution is right (SCIP's were, on the
game below: value 0, player 2's strategy 0.5 exploitable); the LP route then solves
player 2's own LP, and where nothing gives certified strategies it ends without an
answer (exit 1), never with status ``optimal``. The games here have closed-form values.
"""

import json

import pytest

import equilibria
from equilibria.models.errors import NoAnswerError, SolveFailed
from equilibria.solvers import available_backends, get_backend

from .conftest import run_cli

#: Chance at the root, one information set per player under each outcome, matching
#: pennies below each (stakes 1 and 2): value 0, the uniform strategies the equilibrium.
CHANCE_AT_THE_ROOT = """EFG 2 R "t" { "P1" "P2" }
""

c "" 1 "ch" { "h" 1/2 "t" 1/2 } 0
p "" 1 1 "i0" { "a" "b" } 0
p "" 2 1 "j0" { "x" "y" } 0
t "" 1 "o1" { 1, -1 }
t "" 2 "o2" { -1, 1 }
p "" 2 1 "j0" { "x" "y" } 0
t "" 3 "o3" { -1, 1 }
t "" 4 "o4" { 1, -1 }
p "" 1 2 "i1" { "a" "b" } 0
p "" 2 2 "j1" { "x" "y" } 0
t "" 5 "o5" { -2, 2 }
t "" 6 "o6" { 2, -2 }
p "" 2 2 "j1" { "x" "y" } 0
t "" 7 "o7" { 2, -2 }
t "" 8 "o8" { -2, 2 }
"""


def lp_backends() -> list[str]:
    return [name for name in sorted(available_backends()) if get_backend(name).capabilities.lp]


def pennies_under_chance(stakes: list[int], player2_sees: bool) -> equilibria.ExtensiveGame:
    """Chance picks a stake at the root, player 1 sees it, player 2 sees it or not;
    matching pennies for that stake follows. Value 0 either way (player 2 mixing evenly
    leaves player 1 nothing in every subgame, and player 1 mixing evenly the same)."""
    b = equilibria.GameBuilder(["P1", "P2"], title="pennies under chance")
    kids = b.chance(b.root, [(f"s{k}", f"1/{len(stakes)}") for k in range(len(stakes))])
    for k, (kid, stake) in enumerate(zip(kids, stakes)):
        for a, node in enumerate(b.decision(kid, 0, f"i{k}", ["a", "b"])):
            j = f"j{k}" if player2_sees else "j"
            for x, leaf in enumerate(b.decision(node, 1, j, ["x", "y"])):
                u = stake if a == x else -stake
                b.terminal(leaf, [u, -u])
    return b.build()


SHAPES = {
    "two stakes, both see": ([1, 2], True),
    "three stakes, both see": ([1, 2, 3], True),
    "two stakes, player 2 blind": ([1, 2], False),
    "three stakes, player 2 blind": ([3, 1, 2], False),
}


@pytest.fixture(scope="module")
def chance_game(tmp_path_factory):
    path = tmp_path_factory.mktemp("games") / "chance_at_the_root.efg"
    path.write_text(CHANCE_AT_THE_ROOT)
    return path


@pytest.mark.parametrize("backend", lp_backends())
def test_chance_at_the_root_is_certified_by_every_backend(backend, chance_game):
    answer = equilibria.solve_game(equilibria.load(str(chance_game)), backend=backend)
    assert answer.status == "optimal"
    assert answer.value == pytest.approx(0.0, abs=1e-9)
    assert answer.exploitability <= 1e-9, (backend, answer.exploitability, answer.plan)


@pytest.mark.parametrize("backend", lp_backends())
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_several_information_sets_under_chance_every_backend(backend, shape):
    answer = equilibria.solve_game(pennies_under_chance(*SHAPES[shape]), backend=backend)
    assert answer.value == pytest.approx(0.0, abs=1e-9)
    assert answer.exploitability <= 1e-9, (backend, shape, answer.exploitability, answer.plan)


def test_scip_answer_on_the_command_line_is_certified(chance_game):
    res = run_cli("solve", chance_game, "--backend", "scip", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["status"] == "optimal"
    assert out["exploitability"] <= 1e-9


def test_a_solve_failure_is_no_answer_not_bad_input():
    """The contract: exit 1 with one line when the run ends without the answer asked for
    (here a time limit no work fits in), 2 only for bad input."""
    assert issubclass(SolveFailed, NoAnswerError)
    for args in (
        ("solve", "kuhn", "--time-limit", "1e-9"),
        ("solve", "kuhn", "--no-shrink", "--time-limit", "1e-9"),
        ("nash", "sheriff:rounds=1", "--time-limit", "1e-9"),
        ("threshold", "kuhn", "--time-limit", "1e-9"),
    ):
        res = run_cli(*args)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 1, (args, res.returncode, res.stderr)
        assert len(lines) == 1 and lines[0].startswith("equilibria: no answer:"), res.stderr
        assert res.stdout == ""


@pytest.mark.parametrize("route", ["lp", "shrink"])
def test_an_anytime_answer_is_optimal_only_when_certified_so(route):
    """An interior point stopped at a loose tolerance may call its point optimal; the
    answer's status says optimal only where the certificate agrees."""
    answer = equilibria.solve("leduc", route, target_exploitability=1e-2)
    assert answer.exploitability <= 1e-2
    if answer.status == "optimal":
        assert answer.exploitability <= 1e-9 * 13  # Leduc's largest payoff is 13 chips
    else:
        assert answer.status == "target_reached"
