"""Reading Gambit .efg files: equilibria's reader beside pygambit's (Gambit's C++ reader).

Each game is written once as a .efg file; each reader then reads it in a fresh process,
``--repeat`` times, and the child reports the seconds of the read call alone (imports and
start-up are outside the clock) and its peak memory. A reader that dies is reported with
the signal that ended it: Gambit's reader recurses once per level of the tree.

Prints min and median seconds per game and reader and pygambit's seconds over ours;
writes every run to CSV.

    python benchmarks/efg_read.py [--repeat 3] [--out benchmarks/efg_read.csv]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
GAMES = ["leduc:ranks=6", "liars_dice:sides=6", "chain:10000", "chain:100000", "chain:1000000"]
READERS = {
    "equilibria": "from equilibria.models.efg_io import read_efg as read",
    "pygambit": "from pygambit import read_efg as read",
}
CHILD = """
import json, resource, sys, time
{imports}
start = time.perf_counter()
read(sys.argv[1])
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def write_chain(nodes: int, path: Path) -> None:
    """A game whose tree is a chain: ``nodes // 2`` decisions in turn, each ending the game
    or going on, as deep as a tree of that many nodes can be."""
    n = nodes // 2
    with open(path, "w") as f:
        f.write('EFG 2 R "chain" { "A" "B" }\n""\n\n')
        for i in range(n):
            f.write(f'p "" {i % 2 + 1} {i // 2 + 1} "" {{ "go" "stop" }} 0\n')
        f.write('t "" 1 "end" { 0, 0 }\n')
        for i in range(n - 1, -1, -1):
            f.write(f't "" {i + 2} "" {{ {i % 7}, {-(i % 7)} }}\n')


def write_game(spec: str, path: Path) -> None:
    if spec.startswith("chain:"):
        write_chain(int(spec.split(":")[1]), path)
        return
    from equilibria.instances import load
    from equilibria.models.efg_io import write_efg

    write_efg(load(spec), path)


def read_once(reader: str, path: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(imports=READERS[reader]), str(path)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        died = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
        return {"seconds": float("nan"), "peak_mb": float("nan"), "error": died}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "error": ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "efg_read.csv"))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for spec in args.games.split(","):
            path = Path(folder) / (spec.replace(":", "_").replace("=", "") + ".efg")
            write_game(spec, path)
            size_mb = path.stat().st_size / 2**20
            best = {}
            for reader in READERS:
                runs = [read_once(reader, path) for _ in range(args.repeat)]
                secs = [r["seconds"] for r in runs if not r["error"]]
                if secs:
                    best[reader] = min(secs)
                    shown = f"min {min(secs):8.3f} s  median {statistics.median(secs):8.3f} s  "
                    shown += f"peak {max(r['peak_mb'] for r in runs if not r['error']):7,.0f} MB"
                else:
                    shown = f"failed: {runs[0]['error']}"
                print(f"{spec:20s} {size_mb:7.1f} MB  {reader:11s} {shown}", flush=True)
                for i, r in enumerate(runs):
                    rows.append(
                        {
                            "game": spec,
                            "file_mb": round(size_mb, 2),
                            "reader": reader,
                            "run": i,
                            "seconds": "" if r["error"] else round(r["seconds"], 4),
                            "peak_mb": "" if r["error"] else round(r["peak_mb"]),
                            "error": r["error"],
                        }
                    )
            if len(best) == 2:
                print(f"{spec:20s} pygambit / equilibria: {best['pygambit'] / best['equilibria']:.2f}x")
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
