"""How long each route's command takes to end under ``--time-limit 2`` on a game that needs
longer, and to refuse a backend that cannot solve its program: the whole command, from
the shell, interpreter start included.

    python benchmarks/time_limits.py [--repeat 3] [--limit 2]

Each row is one command run ``--repeat`` times (min and median of the wall time), with
its exit status and the status its answer gives (``time_limit`` with a certified profile,
or none: exit 1 with one line). Rows go to ``benchmarks/time_limits.csv``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent

#: (route, arguments): each game takes longer than the limit on this machine without one
LIMITED = [
    ("lp", ["solve", "leduc:ranks=13", "--no-shrink", "--backend", "highs"]),
    ("lp (cfr+)", ["solve", "leduc:ranks=13", "--no-shrink", "--algorithm", "cfr+"]),
    ("shrink", ["solve", "rhode_island:ranks=8", "--shrink"]),
    ("nash", ["nash", "kuhn:players=3", "--epsilon", "1e-4"]),
    ("nash (two players)", ["nash", "sheriff"]),
    ("threshold", ["threshold", "generalized_kuhn:players=3,cards=8", "--epsilon", "1e-4"]),
]
#: (route, arguments) naming a backend that solves no integer program
REFUSED = [
    ("nash", ["nash", "sheriff", "--backend", "clarabel"]),
    ("threshold", ["threshold", "generalized_kuhn:players=3,cards=8", "--backend", "clarabel"]),
]


def run(argv: list[str], json_out: bool) -> tuple[float, int, str, str]:
    """(seconds, exit status, the answer's status or '', standard error's last line)."""
    command = [sys.executable, "-m", "equilibria", *argv, "--quiet"] + (["--json"] if json_out else [])
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    status = json.loads(done.stdout)["status"] if done.returncode == 0 and json_out else ""
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return seconds, done.returncode, status, last


def measure(route: str, argv: list[str], repeat: int, json_out: bool) -> dict:
    runs = [run(argv, json_out) for _ in range(repeat)]
    times = [r[0] for r in runs]
    row = {
        "route": route,
        "command": "equilibria " + " ".join(argv),
        "min_s": round(min(times), 3),
        "median_s": round(statistics.median(times), 3),
        "exit": runs[-1][1],
        "status": runs[-1][2],
        "stderr": runs[-1][3][:160],
    }
    print(f"{row['route']:<20} {row['min_s']:>7.2f} {row['median_s']:>7.2f}  exit {row['exit']}  {row['status']}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=2.0)
    args = parser.parse_args()
    print(f"{'route':<20} {'min s':>7} {'median':>7}")
    rows = [
        measure(route, [*argv, "--time-limit", f"{args.limit:g}"], args.repeat, json_out=True)
        for route, argv in LIMITED
    ]
    print("refused backends (no integer programs)")
    rows += [measure(route, argv, args.repeat, json_out=False) for route, argv in REFUSED]
    write_csv(rows, str(HERE / "time_limits.csv"))  # interpreter start: benchmarks/latency.py


if __name__ == "__main__":
    main()
