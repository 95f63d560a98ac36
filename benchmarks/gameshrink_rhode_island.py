"""GameShrink on full Rhode Island Hold'em, both rules, beside the paper's figures.

Gilpin and Sandholm ("Lossless abstraction of imperfect information games", J. ACM 2007,
section 1.3) report GameShrink "in less than one second" and an LP of 1,237,238 rows and
columns with 50,428,638 nonzeros. For each rule, in a process of its own (so that peak
memory is the rule's): the signal tree is built once, GameShrink is timed ``--repeat``
times (min and median), then the shrunk LP is built once and its size and the process's
peak memory reported. Writes every row to CSV.

    python benchmarks/gameshrink_rhode_island.py [--repeat 5] [--out benchmarks/gameshrink_rhode_island.csv]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
PAPER = {"rows": 1_237_238, "columns": 1_237_238, "nonzeros": 50_428_638, "seconds": "< 1"}

CHILD = r"""
import json, resource, sys, time
from equilibria.instances import describe
from equilibria.models.gameshrink import game_shrink, published_shrink
from equilibria.models.ordered import SignalSpace
from equilibria.routes.shrink import shrink

rule, repeat = sys.argv[1], int(sys.argv[2])
game = describe("rhode_island").view("ordered")
t0 = time.perf_counter()
space = SignalSpace(game)
tree = time.perf_counter() - t0
run = published_shrink if rule == "published" else game_shrink
seconds = []
for _ in range(repeat):
    t0 = time.perf_counter()
    filt = run(game, space)
    seconds.append(time.perf_counter() - t0)
shrink_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
del space, filt
report = shrink(game, rule=rule).to_dict()
print(json.dumps({
    "classes": [c["classes"] for c in report["classes"]["player1"]],
    "signal_tree_seconds": tree,
    "shrink_seconds": seconds,
    "shrink_peak_mb": shrink_peak,
    "rows": report["rows_after"],
    "columns": report["columns_after"],
    "nonzeros": report["nonzeros_after"],
    "lp_seconds": report["seconds"]["sequence_form"] + report["seconds"]["lp_build"],
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "gameshrink_rhode_island.csv"))
    args = parser.parse_args()
    rows = []
    for rule in ("published", "lossless"):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, rule, str(args.repeat)], capture_output=True, text=True, check=True
        )
        r = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append(
            {
                "rule": rule,
                "classes": "/".join(map(str, r["classes"])),
                "gameshrink_s_min": round(min(r["shrink_seconds"]), 3),
                "gameshrink_s_median": round(statistics.median(r["shrink_seconds"]), 3),
                "signal_tree_s": round(r["signal_tree_seconds"], 2),
                "peak_mb_through_gameshrink": round(r["shrink_peak_mb"]),
                "rows": r["rows"],
                "columns": r["columns"],
                "nonzeros": r["nonzeros"],
                "lp_build_s": round(r["lp_seconds"], 2),
                "peak_mb_with_lp": round(r["peak_mb"]),
            }
        )
    print(
        f"{'rule':<10} {'classes':<14} {'GameShrink s (min/median)':>26} {'tree s':>7} {'MB':>6} "
        f"{'LP rows':>10} {'LP nonzeros':>12} {'LP s':>6} {'MB with LP':>10}"
    )
    for r in rows:
        print(
            f"{r['rule']:<10} {r['classes']:<14} {r['gameshrink_s_min']:>12.3f} / {r['gameshrink_s_median']:<11.3f} "
            f"{r['signal_tree_s']:>7.2f} {r['peak_mb_through_gameshrink']:>6,} {r['rows']:>10,} {r['nonzeros']:>12,} "
            f"{r['lp_build_s']:>6.1f} {r['peak_mb_with_lp']:>10,}"
        )
    print(
        f"{'paper':<10} {'-':<14} {PAPER['seconds']:>26} {'':>7} {'':>6} {PAPER['rows']:>10,} {PAPER['nonzeros']:>12,}"
    )
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
