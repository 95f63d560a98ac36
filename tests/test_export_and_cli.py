"""MPS/LP export re-solves to the same value in HiGHS and SCIP; the CLI's output and errors."""

import json

import highspy
import pyscipopt
import pytest

from tests.conftest import one_line_refusal, run_cli

from .efg_samples import IMPERFECT_RECALL

LEDUC_VALUE = -0.085606424078


def highs_optimum(path):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) != highspy.HighsStatus.kError
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value


def scip_optimum(path):
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(path))
    m.optimize()
    assert m.getStatus() == "optimal"
    return m.getObjVal()


@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("player, value", [(1, LEDUC_VALUE), (2, -LEDUC_VALUE)])
def test_exported_lp_resolves_in_highs_and_scip(fmt, player, value, tmp_path):
    path = tmp_path / f"leduc_p{player}.{fmt}"
    res = run_cli("export", "leduc", "--player", str(player), "--format", fmt, "-o", str(path))
    assert res.returncode == 0, res.stderr
    assert highs_optimum(path) == pytest.approx(value, abs=1e-8)
    assert scip_optimum(path) == pytest.approx(value, abs=1e-8)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_a_gz_name_is_written_compressed_and_solvers_read_it(fmt, tmp_path):
    """``-o leduc.mps.gz`` wrote plain text under a .gz name; it is gzip now, named inside
    as the file it unpacks to, and HiGHS and SCIP read it to Leduc's published value."""
    import gzip

    path = tmp_path / f"leduc.{fmt}.gz"
    res = run_cli("export", "leduc", "-o", str(path))
    assert res.returncode == 0, res.stderr
    assert path.read_bytes()[:2] == b"\x1f\x8b"  # gzip's magic number
    plain = gzip.decompress(path.read_bytes()).decode()
    assert ("ROWS" in plain) == (fmt == "mps") and ("\nst\n" in plain) == (fmt == "lp")
    assert highs_optimum(path) == pytest.approx(LEDUC_VALUE, abs=1e-8)
    assert scip_optimum(path) == pytest.approx(LEDUC_VALUE, abs=1e-8)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary file left


def test_exported_names_follow_the_math(tmp_path):
    """Columns and rows are named after the game's sequences and information sets
    (``models.sequence_names``), in letters, digits and ``_ . ( )`` alone."""
    import re

    path = tmp_path / "kuhn.lp"
    assert run_cli("export", "kuhn", "-o", str(path)).returncode == 0
    text = path.read_text()
    for name in ("r1()", "r1(J._bet)", "v2()", "v2(Q.c)", "realization1(J.cr)", "best_response2(K.r_call)"):
        assert f" {name} " in text or f" {name}:" in text, name
    names = re.findall(r"\b(?:r|v|realization|best_response)[12]\([^)]*\)", text)
    assert len(set(names)) == 20 + 20 and all(re.fullmatch(r"[A-Za-z0-9_.()]+", n) for n in names)


def test_solve_json_keys_and_values():
    res = run_cli("solve", "leduc", "--no-shrink", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    for key in ("value", "exploitability", "backend", "rows", "columns", "nonzeros", "seconds"):
        assert key in out
    assert out["value"] == pytest.approx(LEDUC_VALUE, abs=1e-8)
    assert out["exploitability"] <= 1e-7
    assert (out["rows"], out["columns"]) == (1 + 468 + 1093, 1093 + 1 + 468)


def test_solve_without_flags_chooses_lossless_gameshrink_and_says_why():
    """Leduc has ordered signals: the default is GameShrink's lossless LP (144 information
    sets per player instead of 468), same value, certified in the full game."""
    out = json.loads(run_cli("solve", "leduc", "--json").stdout)
    assert out["route"] == "shrink" and out["certified_in"] == "the game"
    assert out["infosets_after"] == [144, 144] and out["infosets_before"] == [468, 468]
    assert out["value"] == pytest.approx(LEDUC_VALUE, abs=1e-8) and out["exploitability"] <= 1e-7
    assert out["plan"][0].startswith("lossless GameShrink") and out["plan"][1].startswith("backend highs")
    # a game without ordered signals keeps its tree; a named backend is kept
    dice = json.loads(run_cli("solve", "liars_dice:sides=3", "--backend", "clarabel", "--json").stdout)
    assert dice["route"] == "lp" and dice["backend"] == "clarabel"
    assert dice["plan"] == ["no abstraction: the game has no ordered signals for GameShrink"]
    refused = one_line_refusal(run_cli("solve", "leduc", "--shrink", "--no-shrink"))
    assert "exclude each other" in refused


def test_solve_prints_value_and_exploitability_and_writes_strategy(tmp_path):
    csv = tmp_path / "s.csv"
    res = run_cli("solve", "kuhn", "--strategy-out", str(csv))
    assert res.returncode == 0, res.stderr
    assert "-0.055555555556" in res.stdout and "exploitability" in res.stdout
    import pandas as pd

    table = pd.read_csv(csv)
    assert set(table.columns) >= {"player", "infoset", "action", "probability"}
    assert len(table) == 2 * 12
    sums = table.groupby(["player", "infoset"]).probability.sum()
    assert sums.to_numpy() == pytest.approx(1.0)


def test_info_counts_json():
    out = json.loads(run_cli("info", "kuhn", "--json").stdout)
    assert (out["nodes"], out["infosets"], out["sequences"]) == (58, [6, 6], [13, 13])
    assert out["terminal"] + out["chance"] + out["decision"] == 58


BAD_EFG = 'EFG 2 R "x" { "A" "B" }\n""\np "" 1 1 "i" { "a" "b" } 0\nt "" 1 "o" { 1 -1 }\nt "" 2 "o2" { 1 }\n'
GENERAL_SUM = (
    'EFG 2 R "x" { "A" "B" }\n""\np "" 1 1 "i" { "a" "b" } 0\np "" 2 1 "j" { "c" "d" } 0\n'
    't "" 1 "o1" { 1, 2 }\nt "" 2 "o2" { 0, 0 }\nt "" 3 "o3" { 1, -1 }\n'
)
BAD_PROBS = (
    'EFG 2 R "x" { "A" "B" }\n""\nc "coin" 1 "" { "h" 1/2 "t" 1/3 } 0\nt "" 1 "o" { 1, -1 }\nt "" 2 "o2" { -1, 1 }\n'
)


@pytest.mark.parametrize(
    "content, args, words",
    [
        (BAD_EFG, ["solve"], "line 5"),
        (IMPERFECT_RECALL, ["solve"], "imperfect recall at player 1 information set 2 'second'"),
        (BAD_PROBS, ["info"], "node 0 'coin'"),
        (
            None,
            ["solve", "no_such_game"],
            "known: generalized_kuhn, inspection_rules, kuhn, kuhn3_rules, kuhn_continuous",
        ),
        (None, ["solve", "kuhn", "--backend", "no_such_solver"], "available here: highs, scip"),
        # found before the game (seconds to build) is built, so no progress line precedes it
        (None, ["solve", "leduc:ranks=20", "--backend", "no_such_solver"], "available here: highs, scip"),
        (None, ["nash", "sheriff", "--backend", "no_such_solver"], "available here: highs, scip"),
        (None, ["info", "leduc:colours=3"], "takes parameters ranks, suits"),
        (
            GENERAL_SUM,
            ["solve", "--no-shrink"],
            "or constant-sum) game, but the payoffs at node 2 (path: b) sum to 0.0 and at node 3",
        ),
    ],
)
def test_bad_input_gives_one_line_and_nonzero_exit(content, args, words, tmp_path):
    if content is not None:
        path = tmp_path / "bad.efg"
        path.write_text(content)
        args = [args[0], str(path), *args[1:]]
    res = run_cli(*args)
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr


def test_the_auto_backend_belongs_to_the_lp_routes():
    from equilibria.core.skeleton import RouteError, solve

    with pytest.raises(RouteError, match="applies to the routes lp, shrink, not nash"):
        solve("kuhn", "nash", backend="auto")
    # from Python, route "auto" is the rule the command line runs without flags
    answer = solve("kuhn", "auto")
    assert answer.route == "shrink" and answer.value == pytest.approx(-1 / 18, abs=1e-12)  # Kuhn (1950)
    # Kuhn's cards are all ranks apart: GameShrink merges nothing, and the compact LP (31
    # rows, 100 nonzeros) would be larger than the direct one: 1 + 6 information sets of
    # player 1 and 13 sequences of player 2 (Kuhn poker's counts), 68 nonzeros
    assert answer.backend == "highs" and answer.plan[0].startswith("lossless GameShrink")
    assert (answer.rows, answer.nonzeros) == (1 + 6 + 13, 68) and "68 nonzeros" in answer.plan[1]
    # on G_30 its sums pay: the compact LP is chosen, with the value of the tree's own LP
    larger = solve("generalized_kuhn:cards=30", "auto")
    tree = solve("generalized_kuhn:cards=30", "lp")
    assert larger.plan[0].startswith("the compact LP") and larger.value == pytest.approx(tree.value, abs=1e-9)


@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_export_to_standard_output_leaves_the_device_and_prints_the_model(tmp_path, target):
    """``-o /dev/stdout > f.mps`` once replaced /dev/stdout, run as root, with a regular
    file; now the model is what the command prints, the report goes to stderr, and the
    device stays as it was. The model read back by HiGHS has Kuhn poker's value, -1/18."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    before = os.lstat("/dev/stdout")
    out = tmp_path / "f.mps"
    with open(out, "w") as sink:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "equilibria"), "export", "kuhn", "-o", target],
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0 and done.stderr.startswith(f"wrote {target}: player 1's LP")
    after = os.lstat("/dev/stdout")
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert highs_optimum(out) == pytest.approx(-1 / 18, abs=1e-9)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.mps"]


def test_strategies_to_standard_output_keep_it_for_the_csv(tmp_path):
    import io

    import pandas as pd

    done = run_cli("solve", "kuhn", "--strategy-out", "-")
    table = pd.read_csv(io.StringIO(done.stdout))
    assert list(table.columns[:3]) == ["player", "infoset", "action"]
    assert "value (player 1) -0.055555555556" in done.stderr  # the report moved to stderr
