"""Sweeps: grids checked before they run, one row per cell, values against published ones,
local processes and a Dask cluster, interrupted and resumed without losing or repeating
a cell, and the command line's contract."""

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import equilibria
from equilibria.sweep import Grid, SweepError, plot, run_sweep

KUHN = -1 / 18
LEDUC = -0.085606424078  # Leduc hold'em (3 ranks, 2 suits), player 1's value

#: 6 games x 2 methods x 2 backends = 24 cells; SCIP offers no choice of method, so its
#: 12 cells are rows with status error (a failing cell is a row, not a crash).
GRID24 = {
    "route": "lp",
    "games": ["kuhn", "generalized_kuhn:cards=3..6", "leduc:ranks=3"],
    "options": {"method": ["simplex", "ipx"], "backend": ["highs", "scip"]},
}

EQUILIBRIA = [sys.executable, "-c", "from equilibria.scripts.console import entry; entry()"]


def _check24(table):
    assert len(table) == 24 and table["key"].is_unique
    ok = table[table["backend"] == "highs"]
    assert (ok["status"] == "optimal").all() and len(ok) == 12
    assert (ok["exploitability"] < 1e-9).all()
    assert (ok["rows"] > 0).all() and (ok["nonzeros"] > 0).all() and (ok["seconds_solve"] >= 0).all()
    failed = table[table["backend"] == "scip"]
    assert (failed["status"] == "error").all()
    assert failed["error"].str.contains("offers no choice of method").all()
    for spec, group in ok.groupby("spec"):
        if spec in ("kuhn", "generalized_kuhn:cards=3"):
            expected = KUHN
        elif spec == "leduc:ranks=3":
            expected = LEDUC
        else:
            expected = equilibria.solve_game(spec).value
        assert group["value"].to_numpy() == pytest.approx(expected, abs=1e-9), spec


def test_grid_cells_and_keys():
    cells = Grid.from_dict(GRID24).cells()
    assert len(cells) == 24
    assert len({c.key for c in cells}) == 24
    # keys are stable and do not depend on how a value was written
    again = Grid("lp", ["leduc:ranks=3"], {}, {"method": "ipx"}).cells()
    same = Grid("lp", ["leduc"], {"ranks": [3]}, {"method": ["ipx"]}).cells()
    assert again[0].key == same[0].key and again[0].spec == "leduc:ranks=3"
    shrink = Grid("shrink", ["leduc:ranks=3"], {}, {"threshold": "0,0.1"}).cells()
    assert [dict(c.options)["threshold"] for c in shrink] == [0.0, 0.1]
    assert Grid("shrink", ["leduc:ranks=3"], {}, {"threshold": [0]}).cells()[0].key == shrink[0].key
    assert len(Grid("lp", ["leduc:ranks=3|4", "leduc"], {}, {}).cells()) == 3


@pytest.mark.parametrize(
    "grid, message",
    [
        ({"games": ["kuhn"], "options": {"bogus": [1]}}, "takes no option 'bogus'"),
        ({"games": ["leduc"], "params": {"foo": [3]}}, "takes no parameter 'foo'"),
        ({"games": ["leduc:foo=3"]}, "takes no parameter 'foo'"),
        ({"games": []}, "the grid is empty"),
        ({"games": ["kuhn"], "options": {"method": []}}, "has no values"),
        ({"games": ["nope"]}, "unknown game 'nope'"),
        ({"route": "threshold", "games": ["one_street"], "options": {"cells": ["x"]}}, "whole number"),
        ({"route": "shrink", "games": ["liars_dice"]}, "has no ordered form"),
    ],
)
def test_bad_grids_refused_before_running(grid, message, tmp_path):
    with pytest.raises(SweepError, match=message):
        run_sweep(grid, tmp_path / "r")
    assert not list(tmp_path.iterdir())


def test_local_processes_24_cells_and_resume(tmp_path):
    result = run_sweep(GRID24, tmp_path / "r.parquet", workers=2)
    assert (result.solved, result.skipped, result.errors) == (24, 0, 12)
    _check24(result.table)
    import pandas as pd

    _check24(pd.read_parquet(tmp_path / "r.parquet"))
    assert len(pd.read_csv(tmp_path / "r.csv")) == 24
    assert len(list((tmp_path / "r.cells").glob("*.json"))) == 24
    again = run_sweep(GRID24, tmp_path / "r", workers=2)
    assert (again.solved, again.skipped) == (0, 24)
    retried = run_sweep(GRID24, tmp_path / "r", workers=0, retry_errors=True)
    assert (retried.solved, retried.skipped, retried.errors) == (12, 12, 12)
    _check24(retried.table)


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        result = run_sweep(GRID24, tmp_path / "d", scheduler=client)
        assert (result.solved, result.errors) == (24, 12)
        _check24(result.table)
        # by address, as the command line's --scheduler does: everything already recorded
        again = run_sweep(GRID24, tmp_path / "d", scheduler=cluster.scheduler_address)
        assert (again.solved, again.skipped) == (0, 24)


def test_other_routes_and_plot(tmp_path):
    grid = {"route": "shrink", "games": ["leduc:ranks=3"], "options": {"threshold": "0,0.1"}}
    table = run_sweep(grid, tmp_path / "s", workers=0).table
    assert list(table["threshold"]) == [0.0, 0.1]
    assert table["value"].to_numpy() == pytest.approx(LEDUC, abs=1e-9)
    grid = {"route": "threshold", "games": ["one_street:pot=2,cards=5"], "options": {"cells": [500, 1000]}}
    table = run_sweep(grid, tmp_path / "t", workers=0).table
    assert (table["status"] == "optimal").all() and (table["binaries"] > 0).all()
    assert table["value"].to_numpy() == pytest.approx(1 / 12, abs=1e-9)
    pytest.importorskip("matplotlib")
    assert plot(table, tmp_path / "p.png", "cells", "seconds", "spec")
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def _cells_done(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.glob("*.json")} if folder.exists() else {}


@pytest.mark.parametrize(
    "sig", [signal.SIGINT, pytest.param(signal.SIGKILL, marks=pytest.mark.slow)], ids=["SIGINT", "SIGKILL"]
)
def test_killed_sweep_resumes_without_repeating(sig, tmp_path):
    args = ["sweep", "--game", "leduc:ranks=3..6", "--option", "method=simplex,ipx", "-o", str(tmp_path / "k")]
    folder = tmp_path / "k.cells"
    log = open(tmp_path / "stderr.txt", "w+")
    proc = subprocess.Popen(EQUILIBRIA + args, stdout=subprocess.DEVNULL, stderr=log, text=True)
    deadline = time.monotonic() + 40
    while len(_cells_done(folder)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep ended before it could be interrupted"
    proc.send_signal(sig)
    proc.wait(timeout=30)
    log.seek(0)
    err = log.read()
    log.close()
    assert proc.returncode == (130 if sig == signal.SIGINT else -signal.SIGKILL), err
    time.sleep(0.5)  # a worker left behind by SIGKILL cannot record anything: only the parent writes
    before = _cells_done(folder)
    assert 2 <= len(before) < 8
    if sig == signal.SIGINT:
        assert "interrupted" in err
    rerun = subprocess.run(EQUILIBRIA + args + ["--quiet"], capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr
    missing = 8 - len(before)
    assert f"{missing} solved, 0 errors, {len(before)} already recorded" in rerun.stdout
    after = _cells_done(folder)
    assert len(after) == 8
    assert all(after[name] == data for name, data in before.items())  # recorded cells were not solved again
    import pandas as pd

    table = pd.read_parquet(tmp_path / "k.parquet")
    assert len(table) == 8 and table["key"].is_unique and (table["status"] == "optimal").all()
    print(f"{sig.name}: {len(before)} cells recorded before the kill, {missing} solved by the re-run")


def _cli(*args, cwd=None):
    return subprocess.run(EQUILIBRIA + list(args), capture_output=True, text=True, timeout=60, cwd=cwd)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "kuhn", "--option", "bogus=1"], "takes no option 'bogus'"),
        (["--game", "leduc", "--param", "foo=1,2"], "takes no parameter 'foo'"),
        ([], "the grid is empty"),
        (["--game", "leduc", "--param", "ranks="], "an empty value of ranks"),
        (["--game", "kuhn", "--plot", "p.png", "--x", "nope", "--y", "value"], "no column 'nope'"),
        (["--grid", "missing.json"], "no such grid: missing.json"),
    ],
)
def test_cli_bad_input(args, message, tmp_path):
    run = _cli("sweep", *args, "-o", str(tmp_path / "r"), cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert not (tmp_path / "r.parquet").exists()


@pytest.mark.parametrize("target", ["missing/r", "."], ids=["missing folder", "a directory"])
def test_cli_unwritable_output(target, tmp_path):
    run = _cli("sweep", "--game", "kuhn", "-o", target, cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "cannot write" in run.stderr


def test_cli_grid_file_and_plot(tmp_path):
    (tmp_path / "grid.json").write_text(json.dumps({"route": "lp", "games": ["generalized_kuhn"]}))
    run = _cli(
        "sweep", "--grid", "grid.json", "--param", "cards=3..5", "--option", "method=simplex,ipx",
        "-o", "out", "--workers", "0", "--quiet", "--plot", "p.png", "--x", "cards", "--y", "seconds",
        "--series", "method", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    # --quiet leaves only the note that the plot cannot be drawn, when matplotlib is absent
    has_matplotlib = importlib.util.find_spec("matplotlib") is not None
    assert run.stderr == ("" if has_matplotlib else "no plot: matplotlib is not installed (pip install matplotlib)\n")
    assert "6 cells: 6 solved, 0 errors, 0 already recorded" in run.stdout
    assert os.path.exists(tmp_path / "out.parquet") and os.path.exists(tmp_path / "out.csv")
    assert ("plot     p.png" in run.stdout) == (tmp_path / "p.png").exists()


def test_cli_threshold_products_sweep_plots_promised_against_certified(tmp_path):
    run = _cli(
        "sweep", "--route", "threshold", "--game", "kuhn_continuous:players=3,cards=2,deal=independent",
        "--option", "breakpoints=2,3", "-o", "out", "--workers", "0", "--quiet",
        "--plot", "p.png", "--x", "breakpoints", "--y", "certified_epsilon", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    table = pd.read_parquet(tmp_path / "out.parquet").sort_values("breakpoints")
    assert list(table["breakpoints"]) == [2, 3] and (table["num_products"] > 0).all()
    # the promise is the products' interpolation error, which shrinks like (k - 1)^-2, and
    # bounds the NashConv measured by exact best responses
    assert (table["nash_conv"] <= table["promised_epsilon"] + 1e-9).all()
    assert table["promised_epsilon"].iloc[0] > 2 * table["promised_epsilon"].iloc[1]
