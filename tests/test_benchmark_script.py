"""The benchmark script runs on a tiny game and writes its CSV (timings are not asserted)."""

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_runs_on_kuhn_and_writes_csv(tmp_path):
    out = tmp_path / "bench.csv"
    res = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--games",
            "kuhn",
            "--tools",
            "equilibria,gambit",
            "--time-limit",
            "120",
            "--out",
            str(out),
            "--plot",
            "",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(out.open()))
    assert {r["tool"] for r in rows} == {"equilibria", "gambit"}
    ours = next(r for r in rows if r["tool"] == "equilibria")
    assert ours["status"] == "optimal" and abs(float(ours["value"]) + 1 / 18) < 1e-9
    assert float(ours["exploitability"]) <= 1e-7
    assert "| kuhn | 58 |" in res.stdout


def test_pyomo_build_benchmark_runs_on_kuhn_and_its_route_keeps_the_value(tmp_path):
    import importlib.util

    out = tmp_path / "pyomo.csv"
    res = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "pyomo_build.py"), "--games", "kuhn", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(out.open()))
    assert [r["game"] for r in rows] == ["kuhn"] and int(rows[0]["nonzeros"]) > 0

    # the timed "Pyomo into HiGHS" route must hand HiGHS the same LP: Kuhn's value -1/18
    spec = importlib.util.spec_from_file_location("pyomo_build", ROOT / "benchmarks" / "pyomo_build.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    import equilibria
    from equilibria.formulations import sequence_form_lp
    from equilibria.models.sequence import SequenceForm

    model = sequence_form_lp(SequenceForm(equilibria.load("kuhn")), 0).to_pyomo()
    h = bench._highs_from_standard_form(model)
    h.run()
    # Pyomo's compiler turns the maximisation into minimising the negated objective
    assert abs(h.getInfo().objective_function_value - 1 / 18) < 1e-9
    h = bench._highs_from_equilibria_form(model)
    h.run()
    assert abs(h.getInfo().objective_function_value + 1 / 18) < 1e-9
