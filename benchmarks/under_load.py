"""The default LP method on a busy machine: ``concurrent`` beside simplex and IPX alone.

    python benchmarks/under_load.py [--game leduc:ranks=10] [--load 1] [--repeat 3] [--out benchmarks/under_load.csv]

Each solve runs as ``equilibria solve GAME --method M --json --quiet`` in a process of its
own while ``--load`` other processes spin on the CPU; the wall time of the whole command
is measured. The default method races simplex and IPX only when two cores are free, so on
a loaded machine it should cost about what the faster single method costs.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import statistics
import subprocess
import sys
import time
from pathlib import Path


def spin(stop: multiprocessing.Event) -> None:  # type: ignore[valid-type]
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def timed(game: str, method: str | None) -> tuple[float, str]:
    cmd = [str(Path(sys.executable).parent / "equilibria"), "solve", game, "--json", "--quiet"]
    if method:
        cmd += ["--method", method]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, json.loads(res.stdout)["method"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--game", default="leduc:ranks=10")
    parser.add_argument("--load", type=int, default=1, help="busy processes beside the solve")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("under_load.csv"))
    args = parser.parse_args(argv)
    rows = []
    for load in sorted({0, args.load}):
        stop = multiprocessing.Event()
        hogs = [multiprocessing.Process(target=spin, args=(stop,), daemon=True) for _ in range(load)]
        for h in hogs:
            h.start()
        time.sleep(1.0)
        try:
            for method in (None, "simplex", "ipx"):
                times, used = [], ""
                for _ in range(args.repeat):
                    seconds, used = timed(args.game, method)
                    times.append(seconds)
                row = {
                    "game": args.game,
                    "busy_processes": load,
                    "method": method or "default (concurrent)",
                    "ran": used,
                    "min_s": round(min(times), 2),
                    "median_s": round(statistics.median(times), 2),
                }
                rows.append(row)
                print(row, flush=True)
        finally:
            stop.set()
            for h in hogs:
                h.join()
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
