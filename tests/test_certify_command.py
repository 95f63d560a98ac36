"""``equilibria certify``: strategies that left as files come back certified.

The round trip a user makes: ``export`` each player's LP as MPS, solve the file with
another solver (highspy, PySCIPOpt and Gurobi reading it, as a cluster's solver would),
write its solution file, certify it. The values checked come from outside the code: Kuhn
poker's -1/18, Leduc's published value, OpenSpiel's best responses. Every bad file is
refused in one line with exit 2.
"""

import json
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import equilibria
from equilibria.models.sequence import SequenceForm
from equilibria.models.sequence_names import plan_names
from equilibria.models.strategy import strategy_table, uniform_behavior
from tests.conftest import one_line_refusal, run_cli

#: Player 1's value: Kuhn poker's closed form, Leduc hold'em's published figure.
VALUES = {"kuhn": -1 / 18, "leduc": -0.085606424078}
#: The games of the round trip: those two and Leduc with five ranks (no published value:
#: its two certified bounds must meet).
ROUND_TRIP = ["kuhn", "leduc", "leduc:ranks=5"]
#: HiGHS's solution styles (``kSolutionStyleRaw``, ``kSolutionStylePretty``).
RAW, PRETTY = 0, 1


def certified(*args):
    """``equilibria certify ARGS --json`` as its JSON, asserting it answered."""
    res = run_cli("certify", *map(str, args), "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def exported(game, folder):
    """``export GAME --player P`` for both players: the two MPS files."""
    paths = []
    for player in (1, 2):
        path = folder / f"{game.replace(':', '_')}_p{player}.mps"
        res = run_cli("export", game, "--player", player, "-o", path)
        assert res.returncode == 0, res.stderr
        paths.append(path)
    return paths


def solve_with_highs(mps, solution, style=RAW):
    """highspy reads the MPS file, solves it and writes its solution file."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(mps)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    h.writeSolution(str(solution), style)
    return h


def solve_with_scip(mps, solution):
    """PySCIPOpt reads the MPS file, solves it and writes SCIP's ``.sol``."""
    pyscipopt = pytest.importorskip("pyscipopt")
    model = pyscipopt.Model()
    model.hideOutput()
    model.readProblem(str(mps))
    model.optimize()
    assert model.getStatus() == "optimal"
    model.writeSol(model.getBestSol(), str(solution))


@pytest.fixture(scope="module", params=ROUND_TRIP)
def lps(request, tmp_path_factory):
    """(game, both players' exported MPS files)."""
    folder = tmp_path_factory.mktemp(request.param.replace(":", "_"))
    return request.param, exported(request.param, folder)


def assert_equilibrium(answer, game):
    assert answer["exploitability"] <= 1e-9, answer["exploitability"]
    low, high = answer["value_bounds"]
    assert high - low <= 2e-9
    if game in VALUES:
        assert low == pytest.approx(VALUES[game], abs=1e-9) and high == pytest.approx(VALUES[game], abs=1e-9)
    assert answer["route"] == "certify" and answer["zero_sum"]


def test_highs_solution_files_of_both_exported_lps_certify_as_the_equilibrium(lps, tmp_path):
    game, mps = lps
    solutions = [tmp_path / f"{path.stem}.sol" for path in mps]
    for path, solution in zip(mps, solutions):
        solve_with_highs(path, solution)
    answer = certified(game, *solutions)
    assert_equilibrium(answer, game)
    sources = [(s["format"], s["players"]) for s in answer["sources"]]
    assert sources == [("HiGHS solution", [1]), ("HiGHS solution", [2])]


def test_scip_solution_files_of_both_exported_lps_certify_as_the_equilibrium(lps, tmp_path):
    game, mps = lps
    solutions = [tmp_path / f"{path.stem}.sol" for path in mps]
    for path, solution in zip(mps, solutions):
        solve_with_scip(path, solution)
    answer = certified(game, *solutions)
    assert_equilibrium(answer, game)
    assert {s["format"] for s in answer["sources"]} == {"SCIP solution"}


def test_gurobi_solution_files_certify_as_the_equilibrium(lps, tmp_path):
    gp = pytest.importorskip("gurobipy")
    game, mps = lps
    solutions = []
    for path in mps:
        try:
            model = gp.read(str(path), env=gp.Env(params={"OutputFlag": 0}))
            model.optimize()
        except gp.GurobiError as exc:  # no license, or beyond the bundled one's size
            pytest.skip(f"Gurobi cannot solve {path.name} here: {exc}")
        solutions.append(tmp_path / f"{path.stem}.sol")
        model.write(str(solutions[-1]))
    answer = certified(game, *solutions)
    assert_equilibrium(answer, game)
    assert {s["format"] for s in answer["sources"]} == {"Gurobi solution"}


def test_cplex_solution_files_certify_as_the_equilibrium(lps, tmp_path):
    """CPLEX (the Community Edition's Python API, within its size limit) reads each MPS
    file and writes its XML solution."""
    cplex = pytest.importorskip("cplex")
    game, mps = lps
    solutions = []
    for path in mps:
        model = cplex.Cplex()
        model.set_results_stream(None)
        model.set_log_stream(None)
        model.set_warning_stream(None)
        try:
            model.read(str(path))
            model.solve()
        except cplex.exceptions.CplexError as exc:  # beyond the Community Edition's size
            pytest.skip(f"CPLEX cannot solve {path.name} here: {exc}")
        solutions.append(tmp_path / f"{path.stem}.sol")
        model.solution.write(str(solutions[-1]))
    answer = certified(game, *solutions)
    assert_equilibrium(answer, game)
    assert {s["format"] for s in answer["sources"]} == {"CPLEX solution"}


def cbc_binary():
    """The CBC executable PuLP ships, or a skip."""
    pulp = pytest.importorskip("pulp")
    with warnings.catch_warnings():  # PuLP's note that the bundled CBC moves to an extra
        warnings.simplefilter("ignore", DeprecationWarning)
        path = pulp.apis.PULP_CBC_CMD().path
    if not path or not Path(path).exists():
        pytest.skip("PuLP ships no CBC executable here")
    return path


def test_cbc_solution_files_certify_to_their_eight_digits(lps, tmp_path):
    """CBC reads each MPS file (maximising: it takes no OBJSENSE section) and writes its
    solution, eight significant digits of the nonzero columns: certified as printed."""
    cbc = cbc_binary()
    game, mps = lps
    solutions = []
    for path in mps:
        solutions.append(tmp_path / f"{path.stem}.sol")
        subprocess.run([cbc, str(path), "-max", "-solve", "-solu", str(solutions[-1])], check=True, capture_output=True)
    answer = certified(game, *solutions)
    assert answer["exploitability"] <= 1e-7
    if game in VALUES:
        assert answer["payoffs"][0] == pytest.approx(VALUES[game], abs=1e-7)
    assert {s["format"] for s in answer["sources"]} == {"CBC solution"}


def test_a_cbc_file_without_a_solution_is_refused_in_one_line(tmp_path):
    """CBC minimises an MPS file unless told otherwise: player 1's LP is then unbounded, and
    its file holds nothing to certify."""
    cbc = cbc_binary()
    mps = exported("kuhn", tmp_path)[0]
    solution = tmp_path / "unbounded.sol"
    subprocess.run([cbc, str(mps), "-solve", "-solu", str(solution)], check=True, capture_output=True)
    line = one_line_refusal(run_cli("certify", "kuhn", solution, solution))
    assert "no solution to certify (status Unbounded)" in line


def test_a_name_value_csv_and_solvers_mixed_certify(lps, tmp_path):
    """A plain name,value CSV of player 1's solution (written from highspy's arrays, with
    the names it read from the MPS) beside SCIP's file for player 2."""
    game, mps = lps
    h = solve_with_highs(mps[0], tmp_path / "p1.sol")
    names, values = h.getLp().col_names_, h.getSolution().col_value
    csv = tmp_path / "p1.csv"
    csv.write_text("name,value\n" + "".join(f"{n},{v!r}\n" for n, v in zip(names, values)))
    solve_with_scip(mps[1], tmp_path / "p2.sol")
    assert_equilibrium(certified(game, csv, tmp_path / "p2.sol"), game)


def test_highs_pretty_style_is_read_to_its_six_digits(tmp_path):
    """The pretty style rounds values to six significant digits: certified as printed,
    within what that rounding allows."""
    mps = exported("kuhn", tmp_path)
    solutions = [tmp_path / f"p{p}.txt" for p in (1, 2)]
    for path, solution in zip(mps, solutions):
        solve_with_highs(path, solution, PRETTY)
    answer = certified("kuhn", *solutions)
    assert answer["exploitability"] <= 1e-5
    assert answer["sources"][0]["format"] == "HiGHS solution"


def test_exported_names_are_the_game_sequences_the_same_every_time(tmp_path):
    """Each player's LP holds that player's plan under names made from the game's labels,
    the same on every export."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = exported("leduc", tmp_path / "a"), exported("leduc", tmp_path / "b")
    sf = SequenceForm(equilibria.load("leduc"))
    for p, (a, b) in enumerate(zip(first, second)):
        assert a.read_text() == b.read_text()
        columns = [line.split()[0] for line in a.read_text().split("COLUMNS\n")[1].split("RHS\n")[0].splitlines()]
        own = [c for c in dict.fromkeys(columns) if c.startswith("r")]
        assert own == plan_names(sf, p)
        assert own[1] == f"r{p + 1}({'Js.' if p == 0 else 'Jh.c'}_check)"


# ------------------------------------------------------------------ strategy CSVs


def openspiel_exploitability(game_name, table):
    """OpenSpiel's exploitability of the strategy table ``table``: its rows are the
    sequences in the sequence form's order (as ``--strategy-out`` writes them), walked
    onto OpenSpiel's game by the lock-step map of tests/test_openspiel.py."""
    pytest.importorskip("pyspiel")
    import pyspiel
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from tests.test_openspiel import lockstep_infoset_map, to_openspiel_policy

    game = equilibria.load(game_name)
    sf = SequenceForm(game)
    os_game = pyspiel.load_game({"kuhn": "kuhn_poker", "leduc": "leduc_poker"}[game_name])
    behaviors = [np.r_[1.0, table[table.player == p + 1].probability.to_numpy()] for p in range(2)]
    policy = to_openspiel_policy(game, sf, behaviors, os_game, lockstep_infoset_map(game, os_game))
    return os_exploitability.exploitability(os_game, policy)


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_a_strategy_csv_with_one_probability_changed_is_certified_as_openspiel_finds(game, tmp_path):
    out = tmp_path / "equilibrium.csv"
    res = run_cli("solve", game, "--strategy-out", out)
    assert res.returncode == 0, res.stderr
    table = pd.read_csv(out)
    assert certified(game, out)["exploitability"] <= 1e-9
    # player 1's first information set: its least likely action's probability raised by
    # 0.3, the information set's rows renormalised
    first = table[(table.player == 1) & (table.infoset == table.infoset[0])].index
    table.loc[table.loc[first, "probability"].idxmin(), "probability"] += 0.3
    table.loc[first, "probability"] /= table.loc[first, "probability"].sum()
    changed = tmp_path / "changed.csv"
    table.to_csv(changed, index=False)
    ours = certified(game, changed)["exploitability"]
    theirs = openspiel_exploitability(game, table)
    assert theirs > 1e-3  # the change matters
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_strategy_out_of_certify_is_the_strategies_read(tmp_path):
    """``certify --strategy-out`` turns solution files into a strategy CSV, which
    certifies again to the same figures."""
    mps = exported("kuhn", tmp_path)
    for p, path in enumerate(mps, start=1):
        solve_with_highs(path, tmp_path / f"p{p}.sol")
    table = tmp_path / "strategies.csv"
    res = run_cli("certify", "kuhn", tmp_path / "p1.sol", tmp_path / "p2.sol", "--strategy-out", table)
    assert res.returncode == 0, res.stderr
    again = certified("kuhn", table)
    first = certified("kuhn", tmp_path / "p1.sol", tmp_path / "p2.sol")
    assert again["payoffs"] == pytest.approx(first["payoffs"], abs=1e-15)
    assert again["nash_conv"] == pytest.approx(first["nash_conv"], abs=1e-15)


def test_three_players_are_certified_by_nash_conv(tmp_path):
    """A strategy CSV of a three-player game: NashConv, the payoffs, no value bounds; the
    uniform profile's figures equal those the Python certificate gives."""
    game = equilibria.load("kuhn:players=3")
    sf = SequenceForm(game)
    uniform = [uniform_behavior(ps) for ps in sf.players]
    path = tmp_path / "uniform.csv"
    pd.concat([strategy_table(sf, p, b) for p, b in enumerate(uniform)]).to_csv(path, index=False)
    answer = certified("kuhn:players=3", path)
    reference = equilibria.certify(sf, uniform)
    assert answer["nash_conv"] == pytest.approx(float(reference.nash_conv), abs=1e-12)
    assert answer["payoffs"] == pytest.approx(list(reference.payoffs), abs=1e-12)
    assert "value_bounds" not in answer


@pytest.mark.parametrize("game", ["kuhn", "sheriff:rounds=1"])
@pytest.mark.parametrize("suffix", [".mps", ".lp"])
def test_mip_nash_programs_written_by_nash_certify_from_other_solvers(game, suffix, tmp_path):
    """``nash --write`` names the MIP Nash program's realization plans as every export
    does: the program solved by highspy and by PySCIPOpt from the file, its solution file
    (both players' plans in one) certifies as an equilibrium; Kuhn poker at its value."""
    program = tmp_path / f"nash{suffix}"
    res = run_cli("nash", game, "--write", program, "--quiet")
    assert res.returncode == 0, res.stderr
    highs = tmp_path / "highs.sol"
    solve_with_highs(program, highs)
    solutions = [highs]
    if suffix == ".mps":
        scip = tmp_path / "scip.sol"
        solve_with_scip(program, scip)
        solutions.append(scip)
    for solution in solutions:
        answer = certified(game, solution)
        assert answer["nash_conv"] <= 1e-9, (solution, answer["nash_conv"])
        if game == "kuhn":
            assert answer["payoffs"][0] == pytest.approx(-1 / 18, abs=1e-9)


@pytest.mark.parametrize("game", ["kuhn", "kuhn_continuous", "kuhn:players=3"])
def test_threshold_programs_written_by_threshold_certify_with_their_model(game, tmp_path):
    """``threshold GAME --write`` (its shipped model), solved by highspy from the file:
    ``certify GAME FILE --model standard`` reads the thresholds and certifies the model's
    strategies there as an equilibrium; Kuhn poker at its value."""
    program = tmp_path / "threshold.mps"
    res = run_cli("threshold", game, "--write", program, "--quiet")
    assert res.returncode == 0, res.stderr
    solution = tmp_path / "threshold.sol"
    solve_with_highs(program, solution)
    answer = certified(game, solution, "--model", "standard")
    assert answer["nash_conv"] <= 1e-9
    if game == "kuhn":
        assert answer["value"] == pytest.approx(-1 / 18, abs=1e-9)
    # without the model the file is refused, with the hint
    if game != "kuhn_continuous":  # a continuous game has no extensive form to read plans on
        assert "give --model" in one_line_refusal(run_cli("certify", game, solution))


def test_a_threshold_solution_that_does_not_fit_the_model_is_refused(tmp_path):
    program = tmp_path / "threshold.lp"
    assert run_cli("threshold", "kuhn", "--write", program, "--quiet").returncode == 0
    solution = tmp_path / "threshold.sol"
    solve_with_highs(program, solution)
    # a model with one threshold more than the program's: player 1's fourth is in no file
    bet, check_fold, check_call = {"": "bet"}, {"": "check", "check-bet": "fold"}, {"": "check", "check-bet": "call"}
    player2 = [
        {"check": "bet", "bet": "fold"},
        {"check": "check", "bet": "fold"},
        {"check": "check", "bet": "call"},
        {"check": "bet", "bet": "call"},
    ]
    model = tmp_path / "five.json"
    model.write_text(
        json.dumps(
            {
                "name": "five regions",
                "players": [{"regions": [bet, check_fold, check_call, bet, check_call]}, {"regions": player2}],
                "order": ["1.1 <= 2.1", "2.1 <= 1.2", "1.2 <= 2.2", "2.2 <= 2.3", "2.3 <= 1.3", "1.3 <= 1.4"],
            }
        )
    )
    line = one_line_refusal(run_cli("certify", "kuhn", solution, "--model", str(model)))
    assert "threshold 1.4 ('t(_1_4_)') is in none of the files" in line
    # thresholds out of order
    lines = solution.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("t(_1_1_) "))
    second = next(i for i, line in enumerate(lines) if line.startswith("t(_1_2_) "))
    lines[first], lines[second] = "t(_1_1_) 2.5", "t(_1_2_) 0.5"
    swapped = tmp_path / "swapped.sol"
    swapped.write_text("\n".join(lines) + "\n")
    assert "thresholds descend" in one_line_refusal(run_cli("certify", "kuhn", swapped, "--model", "standard"))
    assert "--tolerance" in one_line_refusal(
        run_cli("certify", "kuhn", solution, "--model", "standard", "--tolerance", "1e-3")
    )


# ------------------------------------------------------------------ bad files


@pytest.fixture(scope="module")
def kuhn_files(tmp_path_factory):
    """Kuhn poker's two exported LPs solved by HiGHS (raw style) and by SCIP, the strategy
    CSV of ``solve``, and Leduc's player-1 solution (another game's file)."""
    folder = tmp_path_factory.mktemp("kuhn_files")
    files = {}
    for p, path in enumerate(exported("kuhn", folder), start=1):
        solve_with_highs(path, folder / f"p{p}.sol")
        solve_with_scip(path, folder / f"p{p}.scip.sol")
        files[p] = folder / f"p{p}.sol"
    res = run_cli("solve", "kuhn", "--strategy-out", folder / "kuhn.csv")
    assert res.returncode == 0, res.stderr
    leduc = exported("leduc", folder)[0]
    solve_with_highs(leduc, folder / "leduc_p1.sol")
    return folder


def edited(source, target, old, new):
    """``source``'s text with the line ``old`` replaced by ``new``, written to ``target``."""
    lines = source.read_text().splitlines()
    assert old in lines, old
    target.write_text("\n".join(new if line == old else line for line in lines) + "\n")
    return target


def value_line(path, name):
    """The line of ``name`` in a ``name value`` solution file."""
    return next(line for line in path.read_text().splitlines() if line.split()[:1] == [name])


def bad_files(folder, tmp):
    """(what is wrong, the files given, words the one line must hold)."""
    p1, p2, strategies = folder / "p1.sol", folder / "p2.sol", folder / "kuhn.csv"
    bet = value_line(p1, "r1(J._bet)")
    check = value_line(p1, "r1(J._check)")
    text = p1.read_text()
    cut = tmp / "cut.sol"
    cut.write_text(text[: text.index(bet)])
    scip = (folder / "p1.scip.sol").read_text()
    scip_cut = tmp / "cut.scip.sol"
    scip_cut.write_text(scip[: scip.index("r1(Q._check)") + 8])
    csv_cut = tmp / "cut.csv"
    csv_cut.write_text("".join(strategies.read_text().splitlines(keepends=True)[:7]))
    binary = tmp / "binary.sol"
    binary.write_bytes(bytes(range(256)) * 4)
    empty = tmp / "empty.sol"
    empty.write_text("")
    folder_given = tmp / "folder.sol"
    folder_given.mkdir()
    rows = strategies.read_text().splitlines()
    return [
        ("truncated HiGHS file", [cut, p2], "ends after"),
        ("truncated SCIP file", [scip_cut, p2], "line"),
        ("truncated strategy CSV", [csv_cut], "no row for player 1's action"),
        ("another game", [folder / "leduc_p1.sol", p2], "'r1(Js._check)' is no column of Kuhn poker"),
        ("one player twice", [p1, folder / "p1.scip.sol"], "player 1's strategy is in"),
        ("a player missing", [p2], "no strategy for player 1"),
        ("NaN", [edited(p1, tmp / "nan.sol", bet, "r1(J._bet) nan"), p2], "'r1(J._bet)' is NaN"),
        ("infinite", [edited(p1, tmp / "inf.sol", bet, "r1(J._bet) inf"), p2], "'r1(J._bet)' is infinite"),
        ("negative", [edited(p1, tmp / "neg.sol", bet, "r1(J._bet) -0.25"), p2], "'r1(J._bet)' is -0.25"),
        ("not a number", [edited(p1, tmp / "word.sol", bet, "r1(J._bet) half"), p2], "'half', not a number"),
        (
            "inconsistent plan",
            [edited(p1, tmp / "plan.sol", check, "r1(J._check) 0.5"), p2],
            "r1(J._check) + r1(J._bet) = 0.5, but r1() = 1",
        ),
        ("unknown variable", [edited(p1, tmp / "unknown.sol", bet, "r1(J._raise) 0"), p2], "'r1(J._raise)'"),
        ("a name twice", [edited(p1, tmp / "twice.sol", bet, "v2() 0"), p2], "'v2()' again"),
        ("a directory", [folder_given, p2], "it is a folder"),
        ("binary data", [binary, p2], "binary data"),
        ("an empty file", [empty, p2], "empty"),
        ("no such file", [tmp / "absent.sol", p2], "no such strategy file"),
        (
            "probabilities off 1",
            [edited(strategies, tmp / "sum.csv", rows[1], rows[1].replace("1.0,1.0", "0.5,1.0"))],
            "probabilities at 'J:' add up to 0.5",
        ),
        (
            "another game's strategy CSV",
            [edited(strategies, tmp / "other.csv", rows[1], rows[1].replace("J:", "Js:"))],
            "no action 'check' at an information set 'Js:'",
        ),
        ("a strange first line", [edited(p1, tmp / "strange.sol", "Model status", "hello")], "line 1: 'hello'"),
    ]


def test_every_kind_of_bad_file_is_refused_in_one_line(kuhn_files, tmp_path):
    for what, files, words in bad_files(kuhn_files, tmp_path):
        line = one_line_refusal(run_cli("certify", "kuhn", *files))
        assert words in line, (what, line)


def test_a_missing_variable_of_a_complete_format_is_named(kuhn_files, tmp_path):
    """HiGHS and name,value CSVs list every column: one left out is named; SCIP's format
    leaves zeros out, so there a plan is checked by its constraints instead."""
    p1 = kuhn_files / "p1.sol"
    names_values = [line.split() for line in p1.read_text().split("# Columns 20\n")[1].splitlines()[:20]]
    short = tmp_path / "short.csv"
    short.write_text("".join(f"{n},{v}\n" for n, v in names_values if n != "r1(K.cr_call)"))
    line = one_line_refusal(run_cli("certify", "kuhn", short, kuhn_files / "p2.sol"))
    assert "'r1(K.cr_call)' is missing" in line


def test_ctrl_c_ends_certify_with_130(tmp_path):
    """Interrupted while it reads a large strategy CSV: exit 130, one line, no traceback.
    The command takes about 10 s here (Leduc with 13 ranks, 2 s, could end before the
    signal on a fast machine)."""
    game = "leduc:ranks=22"
    sf = SequenceForm(equilibria.load(game))
    path = tmp_path / "uniform.csv"
    tables = [strategy_table(sf, p, uniform_behavior(ps)) for p, ps in enumerate(sf.players)]
    pd.concat(tables).to_csv(path, index=False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "equilibria.scripts.cli", "certify", game, str(path), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "equilibria: interrupted\n" and out == "", (proc.returncode, err)


def test_the_help_gives_the_tolerance_the_reader_uses():
    """The command line names its default without importing numpy to read it."""
    import re

    from equilibria.models.strategy_files import TOLERANCE

    res = run_cli("certify", "--help")
    said = re.search(r"\(default ([0-9.e-]+)\)", " ".join(res.stdout.split()))
    assert res.returncode == 0 and said is not None and float(said.group(1)) == TOLERANCE
