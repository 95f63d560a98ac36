"""First-order solvers on the sequence-form saddle point (CFR+, discounted CFR,
mirror-prox), checked against OpenSpiel's own CFR+ and DCFR, published values and the
mirror-prox convergence bound."""

import re
from pathlib import Path

import numpy as np
import pytest

import equilibria
from equilibria.models.best_response import certify, saddle_point_exploitability
from equilibria.models.sequence import SequenceForm
from equilibria.routes.first_order import treeplexes
from equilibria.routes.shrink import solve_shrunk
from equilibria.solvers.first_order import ALGORITHMS, MirrorProxSolver
from tests.conftest import run_cli

KUHN = -1 / 18  # closed form
LEDUC = -0.085606424078  # published value of Leduc hold'em for player 1


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("game, value", [("kuhn", KUHN), ("leduc", LEDUC)])
def test_certified_bounds_hold_the_published_value(algorithm, game, value):
    target = 2e-3
    answer = equilibria.solve(game, algorithm=algorithm, target_exploitability=target, time_limit=120)
    assert answer.status == "target_reached"
    assert answer.exploitability <= target
    low, high = answer.value_bounds
    assert low - 1e-12 <= value <= high + 1e-12
    assert [c.iterations for c in answer.curve] == sorted({c.iterations for c in answer.curve})


def test_mirror_prox_exploitability_stays_below_its_proven_bound():
    answer = equilibria.solve("leduc", algorithm="mirror-prox", iterations=400)
    assert answer.status == "iteration_limit"
    assert len(answer.curve) > 10
    for point in answer.curve:
        assert point.proven_bound is not None and point.exploitability <= point.proven_bound * (1 + 1e-9), point
    assert answer.curve[-1].proven_bound < answer.curve[0].proven_bound / 50


def test_mirror_prox_bound_holds_on_random_matrices():
    # a random bilinear saddle point over two treeplexes of one game's shape
    sf = SequenceForm(equilibria.load("leduc:ranks=4"))
    rng = np.random.default_rng(3)
    payoff = sf.payoff_matrix(0).copy()
    payoff.data = rng.normal(size=payoff.nnz)
    solver = MirrorProxSolver(payoff, treeplexes(sf))
    for _ in range(6):
        solver.iterate(25)
        gap = saddle_point_exploitability(payoff, payoff.T, solver.treeplexes, solver.average_behaviors()).nash_conv
        assert gap <= solver.gap_bound * (1 + 1e-9)


@pytest.mark.parametrize("name", ["kuhn_poker", pytest.param("leduc_poker", marks=pytest.mark.slow)])
@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_iterates_equal_openspiel_iteration_by_iteration(name, algorithm):
    """Our average strategy after n iterations is as exploitable as OpenSpiel's (C++
    CFR+; Python DCFR with alpha 1.5, beta 0, gamma 2), iteration count by count."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import discounted_cfr
    from open_spiel.python.algorithms import exploitability as python_exploitability

    game = pyspiel.load_game(name)
    for n in (1, 2, 7, 30):
        ours = equilibria.solve(f"openspiel:{name}", algorithm=algorithm, iterations=n)
        assert ours.curve[-1].iterations == n
        solver = pyspiel.CFRPlusSolver(game) if algorithm == "cfr+" else discounted_cfr.DCFRSolver(game)
        for _ in range(n):
            solver.evaluate_and_update_policy()
        theirs = solver.average_policy()
        expected = (
            pyspiel.exploitability(game, theirs)
            if algorithm == "cfr+"
            else python_exploitability.exploitability(game, theirs)
        )
        assert ours.curve[-1].exploitability == pytest.approx(expected, abs=1e-10), n


def test_shrunk_lossless_certificate_equals_the_full_games():
    """For the lossless rule, lifted strategies are exactly as exploitable in the full game
    as in the shrunk one (tested on small decks, away from equilibrium too); for the
    published rule they are not."""
    for game in ("leduc", "leduc:ranks=4", "rhode_island:ranks=3,suits=2"):
        for n in (3, 40):
            answer = solve_shrunk(game, algorithm="cfr+", iterations=n, lift=True)
            assert answer.lifted
            assert answer.exploitability == pytest.approx(answer.abstract_exploitability, abs=1e-9), (game, n)
    published = solve_shrunk("leduc", algorithm="cfr+", iterations=40, lift=True, rule="published")
    assert abs(published.exploitability - published.abstract_exploitability) > 1e-3


@pytest.mark.parametrize("game", ["kuhn", "leduc", "liars_dice:sides=3", "kuhn+16"])
def test_first_order_certificate_equals_the_best_responses_over_every_payoff_entry(game, tmp_path):
    """The solver certifies its average by its own payoff matrix; the same best responses
    by a pass over the sequence form's payoff entries give the same figures (a constant-sum
    game too, where player 2's payoffs carry the constant)."""
    from tests.test_user_workflows import kuhn_plus_16

    if game == "kuhn+16":
        game = str(kuhn_plus_16(tmp_path))
    for algorithm, n in (("dcfr", 20), ("mirror-prox", 7)):
        answer = equilibria.solve(game, algorithm=algorithm, iterations=n)
        again = certify(answer.sequence_form, answer.behaviors)
        assert answer.exploitability == pytest.approx(again.exploitability, rel=1e-12, abs=1e-14)
        assert answer.certificate.payoffs == pytest.approx(again.payoffs, rel=1e-12, abs=1e-14)
        assert answer.certificate.best_response_values == pytest.approx(
            again.best_response_values, rel=1e-12, abs=1e-14
        )


@pytest.mark.parametrize(
    "args, words",
    [
        (["solve", "kuhn", "--algorithm", "cfr+"], "cfr+ runs until a target exploitability"),
        (["solve", "kuhn", "--iterations", "5"], "iterations applies to a first-order algorithm"),
        (["solve", "kuhn", "--algorithm", "dcfr", "--both-lps", "--iterations", "3"], "--both-lps applies to the LP"),
        (["solve", "kuhn", "--algorithm", "cfr"], "invalid choice: 'cfr'"),
        (
            ["solve", "kuhn", "--algorithm", "cfr+", "--backend", "scip", "--iterations", "3"],
            "--backend applies to the LP",
        ),
        (["solve", "kuhn:players=3", "--algorithm", "cfr+", "--iterations", "3"], "applies to two-player zero-sum"),
    ],
)
def test_bad_first_order_options_give_one_line(args, words):
    res = run_cli(*args)
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr


def test_cli_prints_iterations_and_no_lp():
    res = run_cli("solve", "leduc", "--shrink", "--algorithm", "mirror-prox", "--iterations", "50")
    assert res.returncode == 0, res.stderr
    assert "iterations      50 in" in res.stdout and "proven exploitability bound" in res.stdout
    assert "no LP built" in res.stdout and "certified by best responses over the betting template" in res.stdout


def test_rhode_island_runner_writes_its_curve_and_figure(tmp_path):
    """The script that solves Rhode Island, on a small deck: a curve row per certificate,
    a figure, and a final line with the certified value bounds."""
    import csv
    import subprocess
    import sys

    curve, figure = tmp_path / "curve.csv", tmp_path / "curve.png"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "research.rhode_island_solve",
            "--game",
            "rhode_island:ranks=3,suits=2",
            "--method",
            "dcfr",
            "--target-exploitability",
            "0.05",
            "--curve-out",
            str(curve),
            "--plot",
            str(figure),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parents[1],  # research/ runs from a checkout
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(curve.open()))
    assert len(rows) >= 3 and float(rows[-1]["exploitability"]) <= 0.05
    assert [int(r["iterations"]) for r in rows] == sorted(int(r["iterations"]) for r in rows)
    assert figure.stat().st_size > 10_000
    assert "target_reached: exploitability" in done.stdout and "value of the game in [" in done.stdout


def test_general_sum_games_are_refused_as_by_the_lp():
    """CFR on a general-sum game would treat player 2's payoff as minus player 1's."""
    from tests.random_games import random_game

    game = random_game(1, general_sum=True)
    for algorithm in ALGORITHMS:
        with pytest.raises(
            equilibria.EquilibriaError,
            match=re.escape(f"{algorithm} needs a zero-sum (or constant-sum) game, but the payoffs at"),
        ):
            equilibria.solve(game, "lp", algorithm=algorithm, iterations=5)


def test_a_target_below_floating_point_resolution_stops_as_stalled():
    # a target of 1e-18 is below what doubles resolve on payoffs of size 1 (about 1e-16):
    # no method reaches it, and the run must say so instead of iterating for ever
    answer = equilibria.solve("kuhn", algorithm="cfr+", target_exploitability=1e-18)
    assert answer.status == "stalled"
    assert answer.exploitability > 1e-18
    low, high = answer.value_bounds
    assert low - 1e-12 <= KUHN <= high + 1e-12


def _reference_pcfr_plus(sf, iterations):
    """Predictive CFR+ (Farina, Kroer and Sandholm, 2021) written plainly, one information
    set at a time: CFR+ regrets from each iteration's counterfactual values, then the next
    strategy by predictive regret matching+ with each set's instantaneous regrets just seen
    as the prediction of its next, quadratic averaging, the players in turn."""
    A = sf.payoff_matrix(0).toarray()
    players = sf.players
    behavior = [np.ones(ps.num_sequences) for ps in players]
    for ps, b in zip(players, behavior):
        for k in range(ps.num_infosets):
            first, n = int(ps.infoset_first_sequence[k]), int(ps.infoset_num_actions[k])
            b[first : first + n] = 1.0 / n
    regret = [np.zeros(ps.num_sequences) for ps in players]
    average = [np.zeros(ps.num_sequences) for ps in players]

    def plan(p):
        ps, b = players[p], behavior[p]
        x = np.zeros(ps.num_sequences)
        x[0] = 1.0
        for k in sorted(range(ps.num_infosets), key=lambda k: ps.infoset_depth[k]):
            first, n = int(ps.infoset_first_sequence[k]), int(ps.infoset_num_actions[k])
            parent = int(ps.infoset_parent_sequence[k])
            for a in range(n):
                x[first + a] = x[parent] * b[first + a]
        return x

    def deepest_first(ps):
        return sorted(range(ps.num_infosets), key=lambda k: -ps.infoset_depth[k])

    for t in range(1, iterations + 1):
        for p in (0, 1):
            ps, b, r = players[p], behavior[p], regret[p]
            utility = A @ plan(1) if p == 0 else -(A.T @ plan(0))
            average[p] += t * t * plan(p)
            seen = utility.copy()
            new = b.copy()
            for k in deepest_first(ps):
                first, n = int(ps.infoset_first_sequence[k]), int(ps.infoset_num_actions[k])
                actions = range(first, first + n)
                value = sum(b[s] * seen[s] for s in actions)
                instant = {s: seen[s] - value for s in actions}
                for s in actions:
                    r[s] = max(r[s] + instant[s], 0.0)
                theta = [max(r[s] + instant[s], 0.0) for s in actions]
                total = sum(theta)
                for i, s in enumerate(actions):
                    new[s] = theta[i] / total if total > 0 else 1.0 / n
                seen[int(ps.infoset_parent_sequence[k])] += value
            behavior[p] = new
    return average


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_predictive_cfr_plus_equals_a_plain_reference_iteration_by_iteration(game):
    from equilibria.solvers.first_order import make_solver

    sf = SequenceForm(equilibria.load(game))
    iterations = 30 if game == "kuhn" else 8
    solver = make_solver("pcfr+", sf.payoff_matrix(0), treeplexes(sf))
    solver.iterate(iterations)
    reference = _reference_pcfr_plus(sf, iterations)
    for p in range(2):
        np.testing.assert_allclose(solver.plan_sums[p], reference[p], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(("game", "openspiel_name"), [("kuhn", "kuhn_poker"), ("leduc", "leduc_poker")])
def test_predictive_cfr_plus_plays_what_liteefg_plays(game, openspiel_name, tmp_path, monkeypatch, capsys):
    """The current strategies of pcfr+ are as exploitable, iteration by iteration, as
    those of LiteEFG's PCFR+ (Liu, Farina and Ozdaglar's C++ library) on OpenSpiel's copy of
    the game: the same algorithm, written twice. Runs where LiteEFG is installed (the
    bench extra); its file of the game goes to a temporary home."""
    leg = pytest.importorskip("LiteEFG")
    import pyspiel
    from LiteEFG.baselines import PCFR

    from equilibria.solvers.first_order import make_solver

    monkeypatch.setenv("HOME", str(tmp_path))
    marks = [1, 2, 3, 10, 30]
    graph = PCFR.graph()
    env = leg.OpenSpielEnv(pyspiel.load_game(openspiel_name), traverse_type="Enumerate", regenerate=False)
    env.set_graph(graph)
    theirs = []
    for t in range(1, marks[-1] + 1):
        graph.update_graph(env)
        env.update_strategy(graph.current_strategy(), update_best=False)
        if t in marks:
            theirs.append(sum(env.exploitability(graph.current_strategy(), "last-iterate")) / 2)
    capsys.readouterr()  # LiteEFG announces its graphs on standard output

    sf = SequenceForm(equilibria.load(game))
    solver = make_solver("pcfr+", sf.payoff_matrix(0), treeplexes(sf))
    ours = []
    for t in marks:
        solver.iterate(t - solver.iterations)
        ours.append(certify(sf, solver.current).exploitability)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_predictive_cfr_plus_converges_faster_than_cfr_plus_on_kuhn():
    # the prediction pays on Kuhn poker: orders of magnitude after 1,000 iterations
    sf = SequenceForm(equilibria.load("kuhn"))
    from equilibria.routes.first_order import solve_first_order

    plain = solve_first_order(sf, "cfr+", iterations=1000).certificate.exploitability
    predictive = solve_first_order(sf, "pcfr+", iterations=1000).certificate.exploitability
    assert predictive < plain / 100


def test_products_by_row_blocks_equal_scipys_and_share_its_memory():
    """A large payoff matrix is multiplied by row blocks on several threads: the blocks
    are views of the matrix, and every product equals scipy's on the whole matrix to the
    last digit, so the iterates do not depend on the number of cores."""
    from equilibria.models.array_ops import RowBlocks
    from equilibria.routes.shrink import shrink

    sf = shrink("leduc:ranks=13", rule="none", build_lp=False).filtered.sequence_form
    A = sf.payoff_matrix(0)
    rng = np.random.default_rng(3)
    for matrix in (A, A.T.tocsr()):
        x = rng.random(matrix.shape[1])
        for threads in (2, 3, 7):
            blocks = RowBlocks(matrix, threads)
            assert len(blocks.blocks) == threads
            assert sum(b.nnz for b in blocks.blocks) == matrix.nnz
            assert all(np.shares_memory(b.data, matrix.data) for b in blocks.blocks)
            assert np.array_equal(blocks @ x, matrix @ x)
