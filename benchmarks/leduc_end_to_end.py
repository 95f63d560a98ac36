"""Leduc hold'em with many ranks, end to end as a user runs it: process wall time of one
command, Python start-up and imports included, beside OpenSpiel's sequence-form LP in the
same run.

Each row is a fresh process, repeated (min and median reported): Python alone, importing
the command line, ``equilibria solve`` on the game tree (the direct LP), through the
compact LP (``--shrink --rule none --compact``: the same game without abstraction, fold and
showdown payoffs through sums and prefix sums), through GameShrink's lossless shrunk LP
(``--shrink``: shrink, solve, lift, certify in the full tree), and by discounted CFR to
exploitability 1e-6; OpenSpiel (``benchmarks/worker.py openspiel``: its sequence-form
LP, then its exploitability) once. Ratios are OpenSpiel's wall over ours.

    python benchmarks/leduc_end_to_end.py [--games leduc:ranks=8,leduc:ranks=13] [--repeat 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
PY = sys.executable
CLI = [PY, "-m", "equilibria.scripts.cli"]


def commands(game: str) -> list[tuple[str, list[str]]]:
    return (
        [
            ("python start-up", [PY, "-c", "pass"]),
            ("import the command line", [PY, "-c", "import equilibria.scripts.cli"]),
            ("import numpy, scipy, highspy", [PY, "-c", "import numpy, scipy.sparse, highspy"]),
            ("direct LP", [*CLI, "solve", game, "--json"]),
            ("compact LP", [*CLI, "solve", game, "--shrink", "--rule", "none", "--compact", "--json"]),
            ("lossless shrink + lift + certify", [*CLI, "solve", game, "--shrink", "--json"]),
        ]
        + (
            [
                ("direct LP, clarabel", [*CLI, "solve", game, "--backend", "clarabel", "--json"]),
                (
                    "compact LP, clarabel",
                    [*CLI, "solve", game, "--shrink", "--rule", "none", "--compact"]
                    + ["--backend", "clarabel", "--json"],
                ),
            ]
            if importlib.util.find_spec("clarabel")
            else []
        )
        + [
            ("dcfr to 1e-6", [*CLI, "solve", game, "--algorithm", "dcfr", "--target-exploitability", "1e-6", "--json"]),
        ]
    )


def wall(cmd: list[str], check: bool = True) -> tuple[float, dict]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=check)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        return seconds, {"failed": f"exit {done.returncode}" + (" (killed)" if done.returncode < 0 else "")}
    out = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return seconds, out


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default="leduc:ranks=8,leduc:ranks=13")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(HERE / "leduc_end_to_end.csv"))
    args = parser.parse_args()
    rows = []
    for game in args.games.split(","):
        theirs, answer = wall([PY, str(HERE / "worker.py"), "openspiel", game], check=False)
        if "failed" in answer:
            print(f"{game:16s} {'OpenSpiel sequence-form LP':34s} {answer['failed']} after {theirs:.1f} s")
            answer["exploitability"] = answer["failed"]
            theirs = None
        else:
            print(
                f"{game:16s} {'OpenSpiel sequence-form LP':34s} {theirs:8.2f} s  "
                f"exploitability {answer['exploitability']:.1e}"
            )
        rows.append(
            {
                "game": game,
                "run": "OpenSpiel sequence-form LP",
                "min_s": "" if theirs is None else round(theirs, 3),
                "median_s": "" if theirs is None else round(theirs, 3),
                "exploitability": answer["exploitability"],
                "rows": "",
                "nonzeros": "",
            }
        )
        for label, cmd in commands(game):
            results = [wall(cmd) for _ in range(args.repeat)]
            secs = [r[0] for r in results]
            answer = results[0][1]
            expl = answer.get("exploitability", "")
            ratio = f"  OpenSpiel / this {theirs / min(secs):6.1f}x" if answer and theirs else ""
            shown = f"  exploitability {expl:.1e}" if answer else ""
            print(f"{game:16s} {label:34s} {min(secs):8.2f} s  median {statistics.median(secs):6.2f} s{shown}{ratio}")
            rows.append(
                {
                    "game": game,
                    "run": label,
                    "min_s": round(min(secs), 3),
                    "median_s": round(statistics.median(secs), 3),
                    "exploitability": expl,
                    "rows": answer.get("rows", ""),
                    "nonzeros": answer.get("nonzeros", ""),
                }
            )
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
