"""MIP Nash (Sandholm, Gilpin and Conitzer 2005) on normal-form and extensive-form
two-player general-sum games.

Oracles: the closed-form unique equilibrium of the paper's G_k; pygambit's own regret of
our profiles and the equilibria its ``enummixed_solve`` enumerates (every extreme
equilibrium of a nondegenerate game: the best welfare over all equilibria is attained at
one of them, welfare being bilinear on each product set of equilibria); Kuhn poker's value
-1/18.
"""

import json

import numpy as np
import pytest

from equilibria.instances.normal_form_games import mipnash_test, random_normal
from equilibria.models.checks import OptionError
from equilibria.models.errors import GameError
from equilibria.models.nfg_io import NfgError, parse_nfg, read_nfg, write_nfg
from equilibria.models.normal_form import NormalFormGame
from equilibria.routes.nash.route import solve_nash
from tests.conftest import run_cli

from .gambit_compat import max_regret, mixed, payoffs
from .random_games import random_game


@pytest.fixture(scope="module")
def gbt():
    return pytest.importorskip("pygambit")


def strategic(gbt, game: NormalFormGame):
    if hasattr(gbt, "StrategicGame"):  # pygambit 17
        return gbt.StrategicGame.from_arrays(*game.payoffs)
    return gbt.Game.from_arrays(*game.payoffs)


def gambit_regret(gbt, game: NormalFormGame, mixed) -> float:
    return max(gambit_regrets(gbt, game, mixed))


def gambit_regrets(gbt, game: NormalFormGame, mixed) -> list[float]:
    """pygambit's regret of each player: best pure payoff minus the profile's payoff."""
    g = strategic(gbt, game)
    profile = g.mixed_strategy_profile([list(map(float, m)) for m in mixed], rational=False)
    return [float(profile.player_regrets[player]) for player in g.players]


# ---------------------------------------------------------------- G_k
@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("formulation", [1, 2, 3, 4])
def test_g_k_unique_equilibrium_found(k, formulation):
    answer = solve_nash(f"mipnash_test:k={k}", formulation=formulation)
    cyc = 2 * k - 1
    for p in range(2):
        assert answer.mixed[p][:cyc] == pytest.approx(np.full(cyc, 1 / cyc), abs=1e-7)
        assert answer.mixed[p][cyc:] == pytest.approx(np.zeros(2 * k), abs=1e-7)
    assert answer.payoffs == pytest.approx([3.0, 3.0], abs=1e-7)
    assert max(answer.regrets) <= 1e-9


def test_g_k_is_the_published_table():
    u = mipnash_test(2).payoffs  # rows a1..a3 b1..b4, columns c1..c3 d1..d4
    assert (u[0, 0, 1], u[1, 0, 1]) == (2, 4) and (u[0, 0, 2], u[1, 0, 2]) == (4, 2)  # a1 vs c2, c3 (= c0)
    assert (u[0, 0, 0], u[1, 0, 0]) == (3, 3) and (u[0, 1, 4], u[1, 1, 4]) == (2, 0)
    assert (u[0, 3, 0], u[1, 3, 0]) == (0, 2)
    assert (u[0, 3, 3], u[1, 3, 3]) == (3, 0) and (u[0, 3, 4], u[1, 3, 4]) == (0, 3)  # b1: d1, partner d2
    assert (u[0, 4, 4], u[1, 4, 4]) == (3, 0) and (u[0, 4, 3], u[1, 4, 3]) == (0, 3)  # b2: d2, partner d1
    assert (u[0, 3, 5], u[1, 3, 5]) == (0, 0)


# ---------------------------------------------------------------- random normal form
def random_games(count: int):
    rng = np.random.default_rng(2005)
    for seed in range(count):
        rows, cols = (int(v) for v in rng.integers(2, 11, size=2))
        family = ("uniform", "covariant")[seed % 2]
        rho = float(rng.uniform(-0.9, 0.9))
        yield random_normal(rows, cols, family=family, rho=rho, seed=seed)


def check_against_enummixed(gbt, game: NormalFormGame) -> None:
    result = gbt.nash.enummixed_solve(strategic(gbt, game), rational=False)
    welfare = [sum(payoffs(eq)) for eq in result.equilibria]
    anyone = solve_nash(game)
    assert gambit_regret(gbt, game, anyone.mixed) <= 1e-6
    best = solve_nash(game, objective="welfare")
    assert gambit_regret(gbt, game, best.mixed) <= 1e-6
    assert sum(best.payoffs) == pytest.approx(max(welfare), abs=1e-6), game.title


@pytest.mark.parametrize("index", range(40))
def test_random_games_welfare_equals_the_best_enumerated_equilibrium(gbt, index):
    game = list(random_games(40))[index]
    check_against_enummixed(gbt, game)


@pytest.mark.slow
def test_two_hundred_random_games_against_enummixed(gbt):
    for game in random_games(200):
        check_against_enummixed(gbt, game)


@pytest.mark.parametrize("formulation", [2, 3, 4])
def test_penalty_formulations_return_equilibria_by_pygambit(gbt, formulation):
    for game in list(random_games(12)):
        answer = solve_nash(game, formulation=formulation)
        assert gambit_regret(gbt, game, answer.mixed) <= 1e-6
        assert answer.proven_bound is not None and answer.proven_bound <= 1e-6


@pytest.mark.parametrize("objective", ["maxmin", "envy", "best:1", "worst:2", "min-support", "max-support"])
def test_objectives_pick_among_enumerated_equilibria(gbt, objective):
    game = random_normal(6, 6, family="covariant", rho=0.5, seed=11)
    result = gbt.nash.enummixed_solve(strategic(gbt, game), rational=False)
    pays = np.array([payoffs(eq) for eq in result.equilibria])
    answer = solve_nash(game, objective=objective)
    assert gambit_regret(gbt, game, answer.mixed) <= 1e-6
    got = np.array(answer.payoffs)
    expected = {
        "maxmin": lambda: pays.min(axis=1).max(),
        "envy": lambda: np.abs(pays[:, 0] - pays[:, 1]).min(),
        "best:1": lambda: pays[:, 0].max(),
        "worst:2": lambda: pays[:, 1].min(),
    }
    measured = {
        "maxmin": got.min(),
        "envy": abs(got[0] - got[1]),
        "best:1": got[0],
        "worst:2": got[1],
    }
    if objective in expected:
        assert measured[objective] == pytest.approx(expected[objective](), abs=1e-6)
    else:
        supports = [sum(int(np.count_nonzero(np.asarray(m) > 1e-9)) for m in mixed(eq)) for eq in result.equilibria]
        support = int(sum(np.count_nonzero(m > 1e-9) for m in answer.mixed))
        if objective == "min-support":
            assert support == min(supports)
        else:
            assert support <= max(supports)  # allowed strategies bound the support from above


# ---------------------------------------------------------------- extensive form
@pytest.mark.parametrize("seed", range(25))
def test_random_general_sum_extensive_games_have_no_regret_by_pygambit(gbt, seed):
    game = random_game(seed, general_sum=True)
    answer = solve_nash(game)
    sf = answer.sequence_form
    assert max_regret(sf.game, sf, answer.behaviors) <= 1e-6
    assert max(answer.regrets) <= 1e-6


@pytest.mark.slow
def test_one_hundred_random_general_sum_extensive_games(gbt):
    for seed in range(100):
        answer = solve_nash(random_game(seed, general_sum=True))
        sf = answer.sequence_form
        assert max_regret(sf.game, sf, answer.behaviors) <= 1e-6, seed


# ---------------------------------------------------------------- more than two players
@pytest.mark.parametrize("seed", range(4))
def test_three_player_normal_form_exact_products_on_scip(gbt, seed):
    pytest.importorskip("pyscipopt")
    game = random_normal(3, 3, players=3, seed=seed)
    answer = solve_nash(game, backend="scip", products="exact")
    assert answer.products == "exact" and answer.num_products == 27 and answer.promised_nash_conv == 0.0
    assert gambit_regret(gbt, game, answer.mixed) <= 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_three_player_normal_form_piecewise_products_keep_their_promise(gbt, seed):
    game = random_normal(2, 2, players=3, seed=seed)
    # one program on a fixed grid: its a-priori promise bounds the profile's NashConv
    answer = solve_nash(game, breakpoints=5)
    assert answer.products == "log" and answer.curve is None and answer.promised_nash_conv > 0.0
    theirs = gambit_regrets(gbt, game, answer.mixed)
    assert answer.regrets == pytest.approx(theirs, abs=1e-9)
    assert sum(theirs) <= answer.promised_nash_conv
    # rounds until the certificate meets epsilon: pygambit's regrets within it and within
    # the bound the last program proves at its solution
    refined = solve_nash(game, epsilon=0.01)
    theirs = gambit_regrets(gbt, game, refined.mixed)
    assert refined.regrets == pytest.approx(theirs, abs=1e-9)
    assert sum(theirs) <= min(0.01, refined.bound_at_answer, refined.promised_nash_conv) + 1e-12
    assert refined.curve[0]["phase"].startswith("seed") and refined.curve[-1]["certified_nash_conv"] <= 0.01


@pytest.mark.parametrize("seed", range(6))
def test_three_player_extensive_games_exact_products_have_no_regret_by_pygambit(gbt, seed):
    pytest.importorskip("pyscipopt")
    game = random_game(seed, max_depth=4, players=3)
    answer = solve_nash(game, backend="scip", products="exact")
    sf = answer.sequence_form
    assert answer.num_products > 0
    assert max_regret(sf.game, sf, answer.behaviors) <= 1e-6


def test_zero_sum_extensive_game_payoff_is_its_value():
    answer = solve_nash("kuhn")
    assert answer.payoffs[0] == pytest.approx(-1 / 18, abs=1e-7) and answer.zero_sum


# ---------------------------------------------------------------- .nfg files
def test_nfg_round_trip_through_pygambit(gbt, tmp_path):
    rng = np.random.default_rng(3)
    game = NormalFormGame(
        rng.integers(-5, 6, size=(3, 2, 3, 4)).astype(float),
        strategy_names=[["a", "b"], ["c", "d", "e"], ["f", "g", "h", "i"]],
        title='three "players"',
    )
    path = tmp_path / "g.nfg"
    write_nfg(game, path)
    theirs = gbt.read_nfg(str(path))
    assert np.array_equal(np.array([np.asarray(a, dtype=float) for a in theirs.to_arrays()]), game.payoffs)
    back = read_nfg(path)
    assert np.array_equal(back.payoffs, game.payoffs) and back.strategy_names == game.strategy_names
    # pygambit's own writing, read by us
    again = parse_nfg(theirs.to_nfg())
    assert np.array_equal(again.payoffs, game.payoffs)


def test_nfg_payoff_layout_is_read():
    text = 'NFG 1 R "pd" { "A" "B" } { 2 2 }\n\n3 3 5 0 0 5 1 1\n'
    game = parse_nfg(text)
    # player 1's strategy changes fastest: cells (1,1), (2,1), (1,2), (2,2)
    assert game.payoffs[0].tolist() == [[3, 0], [5, 1]] and game.payoffs[1].tolist() == [[3, 5], [0, 1]]
    answer = solve_nash(game)
    assert [m.tolist() for m in answer.mixed] == [[0.0, 1.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('NFG 1 R "x" { "A" "B" } { 2 2 }\n\n3 3 0 5\n5 0 1\n', "line 4"),
        ('NFG 1 R "x" { "A" "B" } { 2 0 }\n\n', "no pure strategies"),
        ('NFG 1 R "x" { "A" "B" } { 1 1 }\n\nnan 1\n', "line 3: a payoff .* not 'nan'"),
        ('NFG 1 R "x" { "A" "B" } { 1 1 }\n\n1 one\n', "should be a number"),
        ('EFG 2 R "x" { "A" "B" }\n', "starts with"),
    ],
)
def test_bad_nfg_files_name_the_fault(text, words):
    with pytest.raises(GameError, match=words):
        parse_nfg(text)


def test_cli_nash_prints_strategies_payoffs_and_regrets_and_refuses_bad_input(tmp_path):
    res = run_cli("nash", "mipnash_test:k=2", "--objective", "welfare")
    assert res.returncode == 0, res.stderr
    assert "a1 0.333333, a2 0.333333, a3 0.333333" in res.stdout and "payoffs         3.000000000" in res.stdout
    # the unique equilibrium pays 3 each, so the best welfare is 6 and the solver proves it
    assert "objective       welfare 6.000000000; the solver's bound on it 6.000000000" in res.stdout
    out = json.loads(run_cli("nash", "random_normal:rows=4,cols=3,seed=5", "--formulation", "2", "--json").stdout)
    assert len(out["payoffs"]) == 2 and len(out["regrets"]) == 2 and out["profile"][0]["infosets"][0]["infoset"] == 1
    assert sum(out["profile"][1]["infosets"][0]["probabilities"]) == pytest.approx(1.0)
    path = tmp_path / "bad.nfg"
    path.write_text('NFG 1 R "x" { "A" "B" } { 1 2 }\n\nnan 1 2 3\n')
    mps = tmp_path / "g.mps"
    for args in (
        [str(path)],
        ["mipnash_test:k=2", "--objective", "nope"],
        ["mipnash_test:k=2", "--formulation", "2", "--objective", "welfare"],
        ["mipnash_test:k=2", "--products", "cubic"],
    ):
        res = run_cli("nash", *args)
        assert res.returncode == 2 and res.stdout == "" and len(res.stderr.strip().splitlines()) == 1, (args, res)
        assert "Traceback" not in res.stderr
    res = run_cli("nash", "mipnash_test:k=2", "--write", str(mps))
    assert res.returncode == 0 and mps.read_text().startswith("NAME")


def test_bad_options_and_games_are_refused():
    with pytest.raises(OptionError, match="formulation"):
        solve_nash("mipnash_test", formulation=5)
    with pytest.raises(OptionError, match="best:1"):
        solve_nash("mipnash_test", objective="best:3")
    with pytest.raises(OptionError, match="exact products"):
        solve_nash(random_normal(2, 2, players=3), products="exact", epsilon=0.1)
    with pytest.raises(GameError, match="player 2 has no pure strategies"):
        NormalFormGame(np.zeros((2, 2, 0)))
    with pytest.raises(NfgError):
        parse_nfg("")


# ---------------------------------------------------------------- dominated actions
def _removed(game):
    from equilibria.models.dominance import dominated_actions

    removed = dominated_actions(game)
    out = set()
    for k in range(game.num_infosets):
        start = int(game.infoset_action_start[k])
        for a in range(int(game.infoset_num_actions[k])):
            if removed[start + a]:
                out.add((int(game.infoset_player[k]), str(game.infoset_labels[k]), str(game.action_labels[start + a])))
    return out


def test_dominated_actions_of_kuhn_poker_are_the_hopeless_calls_and_folds():
    from equilibria.instances.registry import load

    # facing a bet, calling with the lowest card always loses 2 (folding loses 1), and
    # folding the highest card loses 1 where calling always wins
    assert _removed(load("kuhn")) == {(1, "J:r", "call"), (1, "K:r", "fold"), (0, "J:cr", "call"), (0, "K:cr", "fold")}
    game = load("kuhn:players=3")
    expected = set()
    for k in range(game.num_infosets):
        start = int(game.infoset_action_start[k])
        labels = [str(game.action_labels[start + a]) for a in range(int(game.infoset_num_actions[k]))]
        card, _, history = str(game.infoset_labels[k]).partition(":")
        if labels != ["fold", "call"]:
            continue
        # with card 2 against a bet and a call, one of the two others holds 3 or 4
        hopeless = card == "1" or (card == "2" and "call" in history.split("-"))
        if hopeless:
            expected.add((int(game.infoset_player[k]), str(game.infoset_labels[k]), "call"))
        if card == "4":
            expected.add((int(game.infoset_player[k]), str(game.infoset_labels[k]), "fold"))
    assert _removed(game) == expected and len(expected) == 21


@pytest.mark.parametrize("seed", range(8))
def test_pruned_and_unpruned_programs_both_find_equilibria_of_the_full_game(gbt, seed):
    game = random_game(100 + seed, general_sum=True)
    for prune in (True, False):
        answer = solve_nash(game, objective="welfare", prune=prune)
        sf = answer.sequence_form
        assert max_regret(sf.game, sf, answer.behaviors) <= 1e-6


# ---------------------------------------------------------------- Sheriff
SHERIFF_SIZES = [
    dict(max_items=3, max_bribe=3, rounds=1),
    dict(max_items=2, max_bribe=2, rounds=2),
    dict(max_items=1, max_bribe=0, rounds=3, item_value=1.5, sheriff_penalty=0.5),
]


@pytest.mark.parametrize("params", SHERIFF_SIZES)
def test_sheriff_tree_equals_openspiel(params):
    pyspiel = pytest.importorskip("pyspiel")
    from equilibria.instances.registry import load
    from equilibria.interop.openspiel import from_openspiel
    from equilibria.models.efg import TERMINAL
    from equilibria.models.sequence import SequenceForm

    theirs = dict(params)
    theirs["num_rounds"] = theirs.pop("rounds")
    reference = from_openspiel(pyspiel.load_game("sheriff", theirs))
    ours = load("sheriff:" + ",".join(f"{k}={v}" for k, v in params.items()))
    sizes = [[p.num_sequences for p in SequenceForm(game).players] for game in (ours, reference)]
    assert ours.num_nodes == reference.num_nodes and ours.num_infosets == reference.num_infosets
    assert sizes[0] == sizes[1]
    assert np.array_equal(np.sort(ours.terminal_payoffs(), axis=0), np.sort(reference.terminal_payoffs(), axis=0))
    if params == SHERIFF_SIZES[0]:  # the smallest published size
        assert sizes[0] == [21, 9] and int(np.count_nonzero(ours.player == TERMINAL)) == 32


def test_sheriff_equilibria_are_certified_and_agree_with_openspiels_tree(gbt):
    pyspiel = pytest.importorskip("pyspiel")
    from equilibria.interop.openspiel import from_openspiel

    reference = from_openspiel(pyspiel.load_game("sheriff", {"max_items": 3, "max_bribe": 3, "num_rounds": 1}))
    ours = solve_nash("sheriff:max_items=3,max_bribe=3,rounds=1", objective="welfare")
    sf = ours.sequence_form
    assert max(ours.regrets) <= 1e-9 and max_regret(sf.game, sf, ours.behaviors) <= 1e-6
    # the best welfare over all equilibria is a property of the game, whoever built the tree
    theirs = solve_nash(reference, objective="welfare")
    assert sum(ours.payoffs) == pytest.approx(sum(theirs.payoffs), abs=1e-9)
    for player in (1, 2):
        best = solve_nash("sheriff:max_items=3,max_bribe=3,rounds=1", objective=f"best:{player}")
        assert best.payoffs[player - 1] == pytest.approx(
            solve_nash(reference, objective=f"best:{player}").payoffs[player - 1], abs=1e-9
        )


def test_sheriff_parameters_are_checked():
    from equilibria.instances.registry import load

    with pytest.raises(GameError, match="max_items"):
        load("sheriff:max_items=0")
    with pytest.raises(GameError, match="item_penalty"):
        load("sheriff:item_penalty=-1")


def test_graphical_games_ignore_the_players_a_player_does_not_see(gbt):
    from equilibria.instances.normal_form_games import random_graph

    game = random_normal(3, 2, family="graphical", players=4, seed=3)
    neighbours = random_graph(4, np.random.default_rng(3))
    u = game.payoffs
    for i in range(4):
        for j in set(range(4)) - neighbours[i] - {i}:
            assert np.ptp(u[i], axis=j).max() == 0.0  # constant in j's strategy
        for j in neighbours[i]:
            assert np.ptp(u[i], axis=j).max() > 0.0
    pytest.importorskip("pyscipopt")
    small = random_normal(2, 2, family="graphical", players=3, seed=1)
    answer = solve_nash(small, backend="scip", products="exact")
    assert gambit_regret(gbt, small, answer.mixed) <= 1e-6


def test_cli_nash_three_players_prints_the_promise_and_writes_the_model(gbt, tmp_path):
    spec = "random_normal:rows=2,cols=2,players=3,seed=4"
    res = run_cli("nash", spec, "--epsilon", "0.1", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    game = random_normal(2, 2, players=3, seed=4)
    mixed = [entry["infosets"][0]["probabilities"] for entry in out["profile"]]
    theirs = gambit_regrets(gbt, game, mixed)
    assert out["regrets"] == pytest.approx(theirs, abs=1e-6) and sum(theirs) <= 0.1 + 1e-9
    text = run_cli("nash", spec, "--breakpoints", "3").stdout
    assert "products" in text and "3 breakpoints; promised NashConv <=" in text
    for suffix in ("lp", "mps"):
        path = tmp_path / f"three.{suffix}"
        res = run_cli("nash", spec, "--epsilon", "0.1", "--write", str(path))
        assert res.returncode == 0 and path.stat().st_size > 0, res.stderr
    res = run_cli("nash", spec, "--breakpoints", "1")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


# ---------------------------------------------------------------- three-player Kuhn poker
@pytest.mark.slow  # about 15 s; the three-player command-line test runs the same route
def test_three_player_kuhn_poker_equilibrium_certified_by_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("pyscipopt")
    from open_spiel.python.algorithms import exploitability as os_exploitability
    from open_spiel.python.algorithms.expected_game_score import policy_value

    from equilibria.interop.openspiel import from_openspiel, to_tabular_policy

    os_game = pyspiel.load_game("kuhn_poker(players=3)")
    game = from_openspiel(os_game)
    answer = solve_nash(game, backend="scip", products="exact")
    policy = to_tabular_policy(os_game, game, answer.behaviors)
    theirs = os_exploitability.nash_conv(os_game, policy)
    assert theirs <= 1e-6 and answer.nash_conv == pytest.approx(theirs, abs=1e-9)
    values = policy_value(os_game.new_initial_state(), [policy] * 3)
    assert answer.payoffs == pytest.approx(list(values), abs=1e-9)
    assert sum(answer.payoffs) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.slow
def test_native_three_player_kuhn_poker_is_openspiels_and_solves(gbt):
    pyspiel = pytest.importorskip("pyspiel")
    pytest.importorskip("pyscipopt")
    from equilibria.instances.registry import load
    from equilibria.interop.openspiel import from_openspiel
    from equilibria.models.sequence import SequenceForm

    ours, theirs = load("kuhn:players=3"), from_openspiel(pyspiel.load_game("kuhn_poker(players=3)"))
    # OpenSpiel deals one card at a time (16 more chance nodes); the rest is the same
    assert ours.num_nodes == theirs.num_nodes - 16 and ours.num_infosets == theirs.num_infosets
    assert np.array_equal(np.sort(ours.terminal_payoffs(), axis=0), np.sort(theirs.terminal_payoffs(), axis=0))
    assert [p.num_sequences for p in SequenceForm(ours).players] == [
        p.num_sequences for p in SequenceForm(theirs).players
    ]
    answer = solve_nash(ours, backend="scip", products="exact")
    sf = answer.sequence_form
    assert max_regret(sf.game, sf, answer.behaviors) <= 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_products_equations_hold_for_every_profile(seed):
    """The products' sequence-form equations are identities: the realization plans of any
    behaviour profile and their exact products satisfy them (so no equilibrium is cut off)."""
    from equilibria.formulations.mip_nash import mip_nash
    from equilibria.models.sequence import SequenceForm
    from equilibria.models.strategy import realization_from_behavior

    game = random_game(200 + seed, max_depth=5, players=3 + seed % 2)
    sf = SequenceForm(game)
    lp = mip_nash(sf, 1, "any", exact=True)
    plain = mip_nash(sf, 1, "any", exact=True, linearize=False)
    assert lp.num_rows > plain.num_rows
    layout = lp.layout
    rng = np.random.default_rng(seed)
    column = np.zeros(lp.num_cols)
    for p, ps in enumerate(sf.players):
        behavior = np.ones(ps.num_sequences)
        for i in range(ps.num_infosets):
            first, count = int(ps.infoset_first_sequence[i]), int(ps.infoset_num_actions[i])
            behavior[first : first + count] = rng.dirichlet(np.ones(count))
        start = layout.offset[f"x{p}"]
        column[start : start + ps.num_sequences] = realization_from_behavior(ps, behavior)
    for block, factors in (("w", layout.products), ("u", layout.equation_products)):
        start = layout.offset[block]
        column[start : start + len(factors)] = [np.prod(column[f]) for f in factors]
    equations = next(b for b in lp.row_blocks if b.name == "product_equations")
    residual = lp.A.tocsr()[equations.start : equations.stop] @ column
    assert equations.stop > equations.start and np.abs(residual).max() <= 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_products_equations_keep_every_equilibrium(gbt, seed):
    """With and without the products' sequence-form equations, exact and approximate
    products find equilibria (the equations cut no equilibrium off)."""
    pytest.importorskip("pyscipopt")
    game = random_game(200 + seed, max_depth=4, players=3)
    from equilibria.formulations.mip_nash import mip_nash
    from equilibria.models.sequence import SequenceForm

    sf = SequenceForm(game)
    plain = mip_nash(sf, 1, "any", exact=True, linearize=False)
    tight = mip_nash(sf, 1, "any", exact=True)
    assert tight.num_rows >= plain.num_rows
    answer = solve_nash(game, backend="scip", products="exact")
    assert max_regret(sf.game, answer.sequence_form, answer.behaviors) <= 1e-6
    approximate = solve_nash(game, epsilon=0.2)
    assert sum(approximate.regrets) <= approximate.promised_nash_conv + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_three_player_best_and_worst_equilibria_bracket_pygambits_enumeration(gbt, seed):
    """Every equilibrium pygambit's enumpoly_solve lists is feasible for our program, so
    our best:P and worst:P payoffs bracket the listed ones; SCIP proves its answer optimal
    (its bound equals the payoff), and pygambit finds no regret in our profiles. (On seed 0
    our worst:1 is an equilibrium enumpoly does not list: supports 2, 3 and 2, regret 0
    after Newton refinement.)"""
    pytest.importorskip("pyscipopt")
    game = random_normal(2, 3, players=3, seed=seed)
    found = gbt.nash.enumpoly_solve(strategic(gbt, game)).equilibria
    listed = np.array([[float(v) for _label, v in eq.payoffs] for eq in found])
    for player in (1, 3):
        best = solve_nash(game, backend="scip", products="exact", objective=f"best:{player}")
        worst = solve_nash(game, backend="scip", products="exact", objective=f"worst:{player}")
        assert best.payoffs[player - 1] >= listed[:, player - 1].max() - 1e-6
        assert worst.payoffs[player - 1] <= listed[:, player - 1].min() + 1e-6
        assert best.best_bound == pytest.approx(best.payoffs[player - 1], abs=1e-6)
        assert worst.best_bound == pytest.approx(worst.payoffs[player - 1], abs=1e-6)
        for answer in (best, worst):
            assert gambit_regret(gbt, game, answer.mixed) <= 1e-5


# ---------------------------------------------------------------- rounds with piecewise-linear products
def test_three_player_kuhn_poker_log_products_on_highs_reach_epsilon_certified_by_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from equilibria.interop.openspiel import from_openspiel, to_tabular_policy

    os_game = pyspiel.load_game("kuhn_poker(players=3)")
    game = from_openspiel(os_game)
    answer = solve_nash(game, products="log", backend="highs", epsilon=0.01, time_limit=120)
    theirs = os_exploitability.nash_conv(os_game, to_tabular_policy(os_game, game, answer.behaviors))
    assert theirs <= 0.01 and answer.nash_conv == pytest.approx(theirs, abs=1e-9)
    # the bound the program proves at its solution holds for OpenSpiel's NashConv
    assert theirs <= answer.bound_at_answer <= answer.promised_nash_conv
    assert [r["round"] for r in answer.curve] == list(range(len(answer.curve)))


def test_multiplayer_cfr_plus_on_two_player_kuhn_poker_approaches_the_value():
    from equilibria.core.anytime import seed_profile
    from equilibria.instances.registry import load
    from equilibria.models.best_response import certify
    from equilibria.models.sequence import SequenceForm

    sf = SequenceForm(load("kuhn"))
    seed = seed_profile(sf, target=1e-4, seconds=30)
    plans, nash_conv, iterations = seed.plans, seed.nash_conv, seed.iterations
    from equilibria.models.strategy import behavior_from_realization

    behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(2)]
    cert = certify(sf, behaviors)
    assert nash_conv <= 1e-4 and cert.nash_conv == pytest.approx(nash_conv, abs=1e-12)
    # an epsilon-equilibrium of a zero-sum game pays within epsilon of the value -1/18
    assert abs(cert.payoffs[0] + 1 / 18) <= nash_conv and iterations > 0


def test_nash_rounds_time_limit_and_bad_rounds_are_one_line():
    # epsilon 1e-20 is below rounding, out of reach on any machine (1e-9 no longer is: the
    # seed is exact to rounding within 2 s): the run ends with its best certified profile,
    # status time_limit (exit 0), or, with no program's profile certified in time, with
    # no answer (exit 1, one line); which of the two depends on the machine, the contract
    # does not
    res = run_cli("nash", "kuhn:players=3", "--epsilon", "1e-20", "--time-limit", "2", "--json", "--quiet")
    if res.returncode == 0:
        answer = json.loads(res.stdout)
        assert answer["status"] == "time_limit" and answer["nash_conv"] > 1e-20
        assert "above epsilon 1e-20" in answer["reason"]
    else:
        assert res.returncode == 1 and res.stdout == "" and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert "time limit" in res.stderr
    res = run_cli("nash", "kuhn:players=3", "--breakpoints", "3", "--rounds", "2")
    assert res.returncode == 2 and "--rounds" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = run_cli("nash", "kuhn:players=3", "--rounds", "0")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1


def test_rounds_never_trade_a_seed_within_epsilon_for_a_worse_answer():
    """kuhn:players=3 with epsilon 0.001: CFR+'s seed is certified well within epsilon,
    and the answer is at least as good as it (it was 5x worse, from a boxed round)."""
    answer = solve_nash("kuhn:players=3", epsilon=0.001)
    seed = answer.curve[0]["certified_nash_conv"]
    assert answer.curve[0]["phase"].startswith("seed")
    assert answer.nash_conv <= 0.001
    if seed <= 0.001:
        assert answer.nash_conv <= seed
    # the program to export is the game's: every realization weight free in [0, 1] (or
    # fixed at 0 where dominated), where the rounds' programs box them near the incumbent
    import pyomo.environ as pyo

    def weights(model):
        return [v for v in model.component_data_objects(pyo.Var) if v.name.startswith("x")]

    whole, what = answer.program_to_export()
    assert "every profile" in what
    assert all(v.lb == 0.0 and v.ub in (0.0, 1.0) for v in weights(whole))
    assert any(v.lb > 0.0 or 0.0 < v.ub < 1.0 for v in weights(answer.problem))


def test_a_program_the_backend_finds_infeasible_is_no_answer(tmp_path):
    """A mutated random game of the fuzz corpus, general-sum through one payoff of
    2,147,483,647: HiGHS calls MIP Nash's program infeasible and left a point behind,
    which was read as a profile (exploitability 2.04, exit 0). Now it is refused in one
    line, the payoffs named as the cause."""
    from tests.test_fuzz import _files

    name, data = _files()[867]
    assert name == "0848-random4-replace_number[42]+small_integer"
    path = tmp_path / "case.efg"
    path.write_bytes(data)
    res = run_cli("nash", path)
    assert res.returncode == 2 and res.stdout == "" and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "rescale" in res.stderr
    # solve plans Lemke's method for this two-player general-sum game: it ends without an
    # answer, in one line, and never reads a profile the certificate did not accept
    res = run_cli("solve", path)
    assert res.returncode == 1 and res.stdout == "" and len(res.stderr.strip().splitlines()) == 1, res.stderr
