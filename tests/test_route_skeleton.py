"""A new route is its steps, its options and one registration: the skeleton gives it the
Python call, option checks, the backend check, progress, the certificate, a command with
--json and --time-limit, and sweeps. The route here is the example package of the
tutorial (docs/examples/support-route), registered in this process; test_route_plugin.py
installs it as a user would."""

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import equilibria
from equilibria.core.skeleton import ROUTES, register_route
from equilibria.models.errors import EquilibriaError
from equilibria.models.nfg_io import write_nfg
from equilibria.models.normal_form import NormalFormGame
from equilibria.scripts.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "support-route"


@pytest.fixture(autouse=True)
def support_route(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    register_route(
        "support",
        "normal",
        "support_route.steps:SupportEnumeration",
        "support enumeration (two players)",
        options="support_route.options:SupportOptions",
    )
    yield
    del ROUTES["support"]


@pytest.fixture
def rps(tmp_path):
    """Rock-paper-scissors: the unique equilibrium mixes uniformly, value 0."""
    a = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    path = tmp_path / "rps.nfg"
    write_nfg(NormalFormGame(np.stack([a, -a]), title="rock-paper-scissors"), path)
    return str(path)


def test_python_call_gives_a_certified_answer(rps):
    answer = equilibria.solve(rps, "support")
    uniform = np.full(3, 1 / 3)
    for b in answer.behaviors:
        assert b[1:] == pytest.approx(uniform, abs=1e-9)
    assert answer.payoffs == pytest.approx([0.0, 0.0], abs=1e-9)
    assert answer.exploitability <= 1e-9 and answer.certified_in == "the game"
    assert set(answer.seconds) == {"game", "build", "solve", "certify"}


def test_the_published_game_g_k_has_its_closed_form_equilibrium():
    # Sandholm, Gilpin and Conitzer (2005): G_2's unique equilibrium mixes uniformly over
    # the first three strategies of each player, payoffs (3, 3)
    answer = equilibria.solve("mipnash_test:k=2", "support", largest=3)
    for b in answer.behaviors:
        assert b[1:4] == pytest.approx(np.full(3, 1 / 3), abs=1e-7)
    assert answer.payoffs == pytest.approx([3.0, 3.0], abs=1e-7)
    assert answer.nash_conv <= 1e-9


def test_a_random_game_equilibrium_is_one_pygambit_enumerates():
    gbt = pytest.importorskip("pygambit")
    from equilibria.instances import describe

    from .gambit_compat import mixed

    spec = "random_normal:rows=4,cols=4,seed=3"
    game = describe(spec).view("normal")
    answer = equilibria.solve(spec, "support")
    ours = [b[1:] for b in answer.behaviors]
    g = gbt.StrategicGame.from_arrays(*game.payoffs) if hasattr(gbt, "StrategicGame") else None
    if g is None:
        g = gbt.Game.from_arrays(*game.payoffs)
    found = gbt.nash.enummixed_solve(g, rational=False).equilibria
    assert any(all(np.allclose(o, t, atol=1e-6) for o, t in zip(ours, mixed(eq))) for eq in found)


def test_options_and_backend_are_checked_before_any_work(rps):
    with pytest.raises(EquilibriaError, match="takes no option 'colour'"):
        equilibria.solve(rps, "support", colour="red")
    with pytest.raises(EquilibriaError, match="order of route 'support' is one of small-first, large-first"):
        equilibria.solve(rps, "support", order="middle")
    with pytest.raises(EquilibriaError, match="largest of route 'support' takes a whole number"):
        equilibria.solve(rps, "support", largest=2.5)
    with pytest.raises(EquilibriaError, match="time_limit must be above 0"):
        equilibria.solve(rps, "support", time_limit=-1)
    with pytest.raises(EquilibriaError, match="backend 'nope' is not available"):
        equilibria.solve(rps, "support", backend="nope")
    with pytest.raises(EquilibriaError, match="has no normal form"):
        equilibria.solve("leduc", "support")


def test_stages_report_progress(rps, caplog):
    with caplog.at_level(logging.DEBUG, logger="equilibria.progress"):
        equilibria.solve(rps, "support")
    started = [r.stage for r in caplog.records if getattr(r, "event", "") == "start"]
    assert started[1:] == [
        "building the support route's problem",
        "solving by the support route with highs",
        "certifying by exact best responses",
    ]


def test_the_command_is_made_from_the_options(rps, capsys):
    assert main(["support", rps, "--json", "--order", "large-first", "--backend", "scip"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["route"] == "support" and out["backend"] == "scip"
    assert out["payoffs"] == pytest.approx([0.0, 0.0], abs=1e-9) and out["exploitability"] <= 1e-9
    assert main(["support", rps]) == 0
    text = capsys.readouterr().out
    assert "exploitability  " in text and "status          optimal (highs)" in text
    assert "game            rock-paper-scissors" in text


def test_the_command_refuses_bad_input_in_one_line(rps, capsys):
    for argv, words in [
        (["support", rps, "--order", "middle"], "--order: invalid choice: 'middle' (choose from 'small-first'"),
        (["support", rps, "--largest", "two"], "--largest: 'two' is not a whole number"),
        (["support", rps, "--largest", "0"], "--largest: '0': must be a whole number of at least 1"),
        (["support", rps, "--time-limit", "-1"], "--time-limit: '-1': must be above 0"),
        (["support", rps, "--backend", "nope"], "backend 'nope' is not available"),
        (["support", rps, "--strategy-out", "/missing/x.csv"], "folder /missing does not exist"),
    ]:
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse's usage errors
            code = exit.code
        assert code == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err


def test_the_command_writes_strategies(rps, tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["support", rps, "--strategy-out", str(out), "--quiet"]) == 0
    table = pd.read_csv(out)
    assert len(table) == 6 and table["probability"].to_numpy() == pytest.approx(np.full(6, 1 / 3))


def test_a_sweep_runs_the_route(rps, tmp_path, capsys):
    output = tmp_path / "sweep"
    argv = ["sweep", "--route", "support", "--game", rps, "--option", "order=small-first,large-first"]
    assert main([*argv, "-o", str(output), "--workers", "0", "--quiet"]) == 0
    table = pd.read_parquet(f"{output}.parquet")
    assert sorted(table["order"]) == ["large-first", "small-first"]
    assert (table["status"] == "optimal").all() and (table["exploitability"] <= 1e-9).all()
