"""``equilibria nash GAME --all``: every equilibrium of small games, checked against
pygambit's enumerations (``enummixed_solve``, ``enumpoly_solve``) and closed forms."""

import csv
import io
import json
from fractions import Fraction

import numpy as np
import pytest

import equilibria
from equilibria.instances.normal_form_games import random_normal
from equilibria.models.nfg_io import write_nfg
from equilibria.models.normal_form import NormalFormGame
from equilibria.routes.nash.every import NashEquilibria, all_equilibria
from equilibria.solvers.vertex_enumeration import ExtremeEquilibria, maximal_nash_subsets
from tests.conftest import one_line_refusal, run_cli

from .gambit_compat import max_regret, mixed


@pytest.fixture(scope="module")
def gbt():
    return pytest.importorskip("pygambit")


def gambit_mixed(gbt, payoffs) -> list[np.ndarray]:
    """pygambit's ``enummixed_solve`` on the bimatrix game, each profile as one vector
    (player 1's probabilities, then player 2's), duplicates dropped."""
    game = gbt.StrategicGame.from_arrays(*payoffs)
    found = [np.concatenate(mixed(eq)) for eq in gbt.nash.enummixed_solve(game, rational=False).equilibria]
    return distinct(found)


def distinct(profiles, tolerance=1e-9) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for p in profiles:
        if not any(np.abs(p - q).max() <= tolerance for q in out):
            out.append(p)
    return out


def ours(answer: NashEquilibria) -> list[np.ndarray]:
    return [np.concatenate(e.mixed) for e in answer.equilibria]


def same_set(a, b, tolerance=1e-9) -> bool:
    """The same profiles, each matched to one of the other list within ``tolerance``."""
    if len(a) != len(b):
        return False
    left = list(b)
    for p in a:
        hit = next((i for i, q in enumerate(left) if np.abs(p - q).max() <= tolerance), None)
        if hit is None:
            return False
        left.pop(hit)
    return True


# ---------------------------------------------------------------- vertex enumeration


@pytest.mark.parametrize("seed", range(10))
def test_ten_random_4x4_games_list_what_enummixed_lists(gbt, seed):
    """The issue's acceptance: ``nash --all`` on ``random_normal:rows=4,cols=4,seed=S``
    lists exactly pygambit's extreme equilibria, as sets, to 1e-9."""
    spec = f"random_normal:rows=4,cols=4,seed={seed}"
    answer = all_equilibria(spec)
    assert answer.enumeration == "vertices" and answer.complete and answer.status == "optimal"
    theirs = gambit_mixed(gbt, random_normal(rows=4, cols=4, seed=seed).payoffs)
    assert same_set(ours(answer), theirs), (seed, len(answer.equilibria), len(theirs))
    assert all(e.nash_conv <= 1e-12 for e in answer.equilibria)


def test_larger_and_degenerate_games_agree_with_enummixed(gbt):
    """Rectangular games up to 10 x 10, and games with payoffs in {0, 1, 2} (degenerate:
    pygambit lists some vertex pairs twice, which count once)."""
    rng = np.random.default_rng(43)
    games = [random_normal(rows=r, cols=c, seed=s).payoffs for s, (r, c) in enumerate([(10, 10), (3, 7), (8, 5)])]
    for _ in range(30):
        m, n = (int(v) for v in rng.integers(2, 6, size=2))
        games.append(rng.integers(0, 3, size=(2, m, n)).astype(float))
    for payoffs in games:
        answer = all_equilibria(NormalFormGame(payoffs))
        assert same_set(ours(answer), gambit_mixed(gbt, payoffs)), payoffs.tolist()


def test_a_3x3_game_with_its_three_equilibria_in_closed_form(gbt):
    """von Stengel's 3 x 2 example ("Computing equilibria for two-person games", 2002),
    with a third column strictly dominated for player 2: three equilibria, in fractions."""
    a = np.array([[3, 3, 0], [2, 5, 0], [0, 6, 0]], dtype=float)
    b = np.array([[3, 2, 1], [2, 6, 1], [3, 1, 0]], dtype=float)
    answer = all_equilibria(NormalFormGame(np.stack([a, b])))
    F = Fraction
    expected = [
        ((1, 0, 0), (1, 0, 0)),
        ((F(4, 5), F(1, 5), 0), (F(2, 3), F(1, 3), 0)),
        ((0, F(1, 3), F(2, 3)), (F(1, 3), F(2, 3), 0)),
    ]
    closed = [np.array([float(v) for v in x + y]) for x, y in expected]
    assert same_set(ours(answer), closed, tolerance=1e-12)
    assert same_set(ours(answer), gambit_mixed(gbt, np.stack([a, b])))
    assert answer.nash_subsets == []  # a nondegenerate game: every equilibrium isolated


def test_a_degenerate_game_lists_its_extreme_equilibria_and_their_convex_sets():
    """Player 2 indifferent everywhere: the equilibria are ((1, 0), y) with y_2 <= 1/2,
    (x, (1/2, 1/2)) for every x, and ((0, 1), y) with y_2 >= 1/2; four extreme ones, in
    three maximal Nash subsets of two each (a segment of equilibria each)."""
    a = np.array([[1.0, 1.0], [0.0, 2.0]])
    b = np.ones((2, 2))
    answer = all_equilibria(NormalFormGame(np.stack([a, b])))
    expected = [[1, 0, 1, 0], [1, 0, 0.5, 0.5], [0, 1, 0, 1], [0, 1, 0.5, 0.5]]
    assert same_set(ours(answer), [np.array(e, dtype=float) for e in expected], tolerance=1e-12)
    listed = ours(answer)
    subsets = [sorted(tuple(listed[i].round(9)) for i in s) for s in answer.nash_subsets]
    segments = [
        [(0.0, 1.0, 0.0, 1.0), (0.0, 1.0, 0.5, 0.5)],
        [(1.0, 0.0, 0.5, 0.5), (1.0, 0.0, 1.0, 0.0)],
        [(0.0, 1.0, 0.5, 0.5), (1.0, 0.0, 0.5, 0.5)],
    ]
    assert sorted(subsets) == sorted(segments)
    # the midpoint of a segment is an equilibrium too; the certificate says so
    middle = [np.array([0.5, 0.5]), np.array([0.5, 0.5])]
    assert NormalFormGame(np.stack([a, b])).regrets(middle).max() == 0.0


def test_the_same_degenerate_game_by_supports_lists_one_equilibrium_per_support():
    """MIP Nash with no-good cuts: of the four support pairs with an equilibrium, one each
    ({1} x {1, 2} and {2} x {1, 2} hold segments of equilibria; {1, 2} x {1, 2} a segment
    too: its centre, (1/2, 1/2) against (1/2, 1/2), is the profile listed)."""
    a = np.array([[1.0, 1.0], [0.0, 2.0]])
    answer = all_equilibria(NormalFormGame(np.stack([a, np.ones((2, 2))])), enumeration="supports")
    assert answer.complete and answer.enumeration == "supports"
    supports = sorted(tuple(tuple(int(s) for s in sup) for sup in e.supports()) for e in answer.equilibria)
    assert supports == [((0,), (0,)), ((0,), (0, 1)), ((0, 1), (0, 1)), ((1,), (0, 1)), ((1,), (1,))]
    assert all(e.nash_conv <= 1e-9 for e in answer.equilibria)
    centre = next(e for e in answer.equilibria if e.support_sizes() == [2, 2])
    assert np.concatenate(centre.mixed) == pytest.approx([0.5, 0.5, 0.5, 0.5], abs=1e-9)


def test_maximal_nash_subsets_are_the_maximal_bicliques():
    # rows 0, 1 both pair with columns 0, 1; row 2 with column 1 only
    pairs = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 1)]
    assert maximal_nash_subsets(pairs) == [([0, 1], [0, 1]), ([0, 1, 2], [1])]


def test_a_stopped_search_has_yielded_a_part_of_the_list():
    """Vertex enumeration stopped once it has yielded: a part of the full list, and
    marked incomplete (how a time limit ends it)."""
    game = random_normal(rows=10, cols=10, seed=5)
    full = [np.concatenate([e.row, e.column]) for e in ExtremeEquilibria(*game.payoffs)]
    seen = []
    search = ExtremeEquilibria(*game.payoffs, stop=lambda: len(seen) > 0)
    for e in search:
        seen.append(np.concatenate([e.row, e.column]))
    assert 0 < len(seen) < len(full) and not search.complete
    assert all(any(np.abs(p - q).max() <= 1e-12 for q in full) for p in seen)


# ---------------------------------------------------------------- extensive and n-player games

#: Two 2 x 2 games behind a fair coin both players see: a game of matching pennies's kind
#: (one equilibrium: player 1 U with 1/2, player 2 L with 1/3) and the battle of the sexes
#: (three: (U, L), (D, R), and U with 3/5 against L with 2/5). Every information set is
#: reached whatever the players do, so the game has exactly 1 x 3 equilibria.
SPLIT_EFG = """EFG 2 R "two games behind a coin" { "Player 1" "Player 2" }
""

c "" 1 "" { "A" 1/2 "B" 1/2 } 0
p "" 1 1 "1 after A" { "U" "D" } 0
p "" 2 1 "2 after A" { "L" "R" } 0
t "" 1 "" { 2, 0 }
t "" 2 "" { 0, 1 }
p "" 2 1 "2 after A" { "L" "R" } 0
t "" 3 "" { 0, 1 }
t "" 4 "" { 1, 0 }
p "" 1 2 "1 after B" { "U" "D" } 0
p "" 2 2 "2 after B" { "L" "R" } 0
t "" 5 "" { 3, 2 }
t "" 6 "" { 0, 0 }
p "" 2 2 "2 after B" { "L" "R" } 0
t "" 7 "" { 0, 0 }
t "" 8 "" { 2, 3 }
"""


@pytest.fixture
def split_game(tmp_path):
    path = tmp_path / "split.efg"
    path.write_text(SPLIT_EFG)
    return path


def behaviour_rows(answer):
    """Per equilibrium, the probability of the first action at each information set
    (player 1's two, then player 2's two)."""
    out = []
    for e in answer.equilibria:
        sf = answer.sequence_form
        rows = [e.behaviors[p][int(ps.infoset_first_sequence[i])] for p, ps in enumerate(sf.players) for i in range(2)]
        out.append(np.array(rows))
    return out


def test_an_extensive_game_by_supports_has_its_three_equilibria(gbt, split_game):
    answer = all_equilibria(str(split_game))
    assert answer.enumeration == "supports" and answer.complete and len(answer.equilibria) == 3
    expected = [[0.5, 1, 1 / 3, 1], [0.5, 0, 1 / 3, 0], [0.5, 0.6, 1 / 3, 0.4]]
    assert same_set(behaviour_rows(answer), [np.array(e) for e in expected], tolerance=1e-9)
    sf = answer.sequence_form
    for e in answer.equilibria:
        assert e.nash_conv <= 1e-9 and max_regret(sf.game, sf, e.behaviors) <= 1e-9
    # pygambit's enumeration of the same file pays the same three ways
    theirs = gbt.nash.enumpoly_solve(gbt.read_efg(str(split_game))).equilibria
    payoffs = sorted(tuple(round(float(v), 9) for _, v in eq.payoffs) for eq in theirs)
    assert payoffs == sorted(tuple(round(v, 9) for v in e.payoffs) for e in answer.equilibria)


def test_lemke_from_several_covering_vectors_lists_a_part(split_game):
    """Lemke's enumeration is partial: whatever it lists is among the equilibria."""
    listed = all_equilibria(str(split_game), enumeration="lemke", starts=8)
    assert listed.enumeration == "lemke" and not listed.complete and listed.status == "iteration_limit"
    every = behaviour_rows(all_equilibria(str(split_game)))
    assert 1 <= len(listed.equilibria) <= 3
    assert all(any(np.abs(p - q).max() <= 1e-9 for q in every) for p in behaviour_rows(listed))


def test_lemke_on_a_normal_form_game_lists_a_part_of_the_vertices():
    spec = "random_normal:rows=5,cols=5,seed=7"
    every = ours(all_equilibria(spec))
    part = ours(all_equilibria(spec, enumeration="lemke", starts=6))
    assert part and all(any(np.abs(p - q).max() <= 1e-9 for q in every) for p in part)


def test_three_players_by_supports_with_exact_products_agree_with_enumpoly(gbt):
    pytest.importorskip("pyscipopt")
    spec = "random_normal:rows=2,cols=2,players=3,seed=5"
    answer = all_equilibria(spec, products="exact", backend="scip")
    game = random_normal(rows=2, cols=2, players=3, seed=5)
    theirs = gbt.nash.enumpoly_solve(gbt.StrategicGame.from_arrays(*game.payoffs)).equilibria
    assert len(answer.equilibria) == len(theirs) == 3
    assert same_set(ours(answer), [np.concatenate(mixed(eq)) for eq in theirs], tolerance=1e-6)


# ---------------------------------------------------------------- count, objective, API


def test_count_lists_at_most_k_and_says_there_may_be_more():
    answer = all_equilibria("random_normal:rows=4,cols=4,seed=3", count=2)
    every = ours(all_equilibria("random_normal:rows=4,cols=4,seed=3"))
    assert len(every) == 5 and len(answer.equilibria) == 2
    assert answer.status == "solution_limit" and not answer.complete
    assert all(any(np.abs(p - q).max() <= 1e-12 for q in every) for p in ours(answer))


def test_count_with_an_objective_keeps_the_best(gbt):
    game = random_normal(rows=6, cols=6, family="covariant", rho=0.5, seed=11)
    theirs = gbt.nash.enummixed_solve(gbt.StrategicGame.from_arrays(*game.payoffs), rational=False).equilibria
    welfare = sorted((sum(float(v) for _, v in eq.payoffs) for eq in theirs), reverse=True)
    best = all_equilibria(game, count=2, objective="welfare")
    assert [sum(e.payoffs) for e in best.equilibria] == pytest.approx(welfare[:2], abs=1e-9)
    by_supports = all_equilibria(game, count=2, objective="welfare", enumeration="supports")
    assert [sum(e.payoffs) for e in by_supports.equilibria] == pytest.approx(welfare[:2], abs=1e-6)


def test_equilibria_solve_takes_all_and_returns_the_list():
    answer = equilibria.solve("random_normal:rows=3,cols=3,seed=0", "nash", all=True)
    assert isinstance(answer, NashEquilibria) and len(answer.equilibria) == 3
    assert answer.is_equilibrium and answer.nash_conv == max(e.nash_conv for e in answer.equilibria)


def test_a_time_limit_reached_before_the_first_equilibrium_is_no_answer():
    from equilibria.core.deadline import OutOfTime
    from equilibria.models.sequence import SequenceForm
    from equilibria.routes.nash.enumeration import enumerate_equilibria
    from equilibria.routes.options import NashOptions

    game = random_normal(rows=4, cols=4, seed=0)
    extensive = game.to_extensive()
    for enumeration in ("vertices", "supports", "lemke"):
        options = NashOptions(all=True, enumeration=enumeration)
        with pytest.raises(OutOfTime, match="before the first equilibrium"):
            enumerate_equilibria(game, extensive, SequenceForm(extensive), options, deadline=0.0)


# ---------------------------------------------------------------- the command line


def test_cli_table_json_csv_and_strategies(tmp_path, gbt):
    table, strategies = tmp_path / "eq.csv", tmp_path / "strategies.csv"
    spec = "random_normal:rows=4,cols=4,seed=6"
    res = run_cli("nash", spec, "--all", "--csv", table, "--strategy-out", strategies)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[1].startswith("enumeration     vertices: two-player normal form")
    assert lines[2].startswith("equilibria      5 profiles listed, every extreme equilibrium")
    assert lines[3].split() == ["#", "payoff", "1", "payoff", "2", "support", "NashConv"]
    assert [line.split()[0] for line in lines[4:9]] == ["1", "2", "3", "4", "5"]
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    theirs = gambit_mixed(gbt, random_normal(rows=4, cols=4, seed=6).payoffs)
    listed = [np.array([float(r[f"p{p}:{s}"]) for p in (1, 2) for s in "1234"]) for r in rows]
    assert same_set(listed, theirs)
    assert {"equilibrium", "payoff_1", "payoff_2", "regret_1", "support_2", "nash_conv"} <= set(rows[0])
    written = list(csv.DictReader(io.StringIO(strategies.read_text())))
    assert sorted({r["equilibrium"] for r in written}) == ["1", "2", "3", "4", "5"]
    assert len(written) == 5 * 8  # four strategies per player, two players, five equilibria

    res = run_cli("nash", spec, "--count", "2", "--json")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["number"] == 2 and answer["status"] == "solution_limit" and answer["complete"] is False
    assert answer["enumeration"] == "vertices" and len(answer["equilibria"]) == 2
    first = answer["equilibria"][0]
    assert first["is_equilibrium"] and first["nash_conv"] <= 1e-12 and len(first["mixed"]) == 2
    assert all(any(np.abs(np.concatenate(e["mixed"]) - q).max() <= 1e-9 for q in theirs) for e in answer["equilibria"])


def test_cli_the_table_on_standard_output_comes_alone():
    res = run_cli("nash", "random_normal:rows=3,cols=3,seed=0", "--all", "--csv", "-")
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["equilibrium"] for r in rows] == ["1", "2", "3"]
    assert "enumeration     vertices" in res.stderr  # the report, on standard error


def test_cli_an_extensive_game_prints_its_profiles(split_game):
    res = run_cli("nash", split_game, "--all", "--json")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["enumeration"] == "supports" and answer["number"] == 3 and answer["complete"]
    infosets = answer["equilibria"][0]["profile"][0]["infosets"]
    assert [i["label"].split("'")[1] for i in infosets] == ["1 after A", "1 after B"]
    text = run_cli("nash", split_game, "--all").stdout
    assert "profile 3" in text and "1 after B" in text


def test_cli_a_time_limit_before_any_equilibrium_is_exit_1_in_one_line():
    res = run_cli("nash", "random_normal:rows=4,cols=4,seed=0", "--all", "--time-limit", "1e-9")
    assert res.returncode == 1 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert (
        len(lines) == 1
        and lines[0].startswith("equilibria: no answer: the time limit")
        and "Traceback" not in res.stderr
    )


@pytest.mark.parametrize(
    "args, named",
    [
        (["--all", "--formulation", "2"], "formulation"),
        (["--all", "--rounds", "3"], "rounds"),
        (["--enumeration", "lemke"], "enumeration"),
        (["--all", "--starts", "4"], "starts"),
        (["--all", "--enumeration", "vertices", "--epsilon", "0.1"], "epsilon"),
        (["--all", "--write", "x.mps"], "--write"),
        (["--csv", "x.csv"], "--csv"),
        (["--count", "0"], "count"),
    ],
)
def test_cli_options_that_make_no_sense_together_are_refused_in_one_line(args, named):
    line = one_line_refusal(run_cli("nash", "random_normal:rows=3,cols=3,seed=0", *args))
    assert named in line, line


def test_cli_vertex_enumeration_refuses_an_extensive_game(split_game):
    line = one_line_refusal(run_cli("nash", split_game, "--all", "--enumeration", "vertices"))
    assert "enumeration vertices takes two-player games in normal form" in line


def test_cli_a_normal_form_file_round_trips(tmp_path, gbt):
    path = tmp_path / "bos.nfg"
    a = np.array([[3.0, 0.0], [0.0, 2.0]])
    write_nfg(NormalFormGame(np.stack([a, a[::-1, ::-1]]), title="battle of the sexes"), path)
    answer = json.loads(run_cli("nash", path, "--all", "--json").stdout)
    theirs = distinct(
        [
            np.concatenate(mixed(eq))
            for eq in gbt.nash.enummixed_solve(gbt.read_nfg(str(path)), rational=False).equilibria
        ]
    )
    assert same_set([np.concatenate(e["mixed"]) for e in answer["equilibria"]], theirs)
