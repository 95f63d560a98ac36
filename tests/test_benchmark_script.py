"""The benchmark script runs on a tiny game and writes its CSV (timings are not asserted)."""
import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_runs_on_kuhn_and_writes_csv(tmp_path):
    out = tmp_path / "bench.csv"
    res = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--games", "kuhn", "--tools", "equilibria,gambit",
         "--time-limit", "120", "--out", str(out), "--plot", ""],
        capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(out.open()))
    assert {r["tool"] for r in rows} == {"equilibria", "gambit"}
    ours = next(r for r in rows if r["tool"] == "equilibria")
    assert ours["status"] == "optimal" and abs(float(ours["value"]) + 1 / 18) < 1e-9
    assert float(ours["exploitability"]) <= 1e-7
    assert "| kuhn | 58 |" in res.stdout
