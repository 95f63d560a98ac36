"""Leduc hold'em with many ranks, end to end as a user runs it: process wall time of one
command, Python start-up and imports included, beside OpenSpiel's sequence-form LP in the
same run; then the in-process call alone, warm, beside OpenSpiel's in-process seconds.

Each row is a fresh process, repeated (min and median reported): Python alone, importing
the command line, ``equilibria solve`` without flags (the default plan: lossless
GameShrink, the backend by the LP's size), the game tree's LP on HiGHS (``--no-shrink``),
the compact LP (``--shrink --rule none --compact``: no abstraction, fold and showdown
payoffs through sums and prefix sums), GameShrink's lossless shrunk LP on HiGHS (certified
in the full game over the betting template; once more lifted onto the built tree, as
``--strategy-out`` does), and discounted CFR on the tree to exploitability 1e-6; OpenSpiel
(``benchmarks/worker.py openspiel``: its sequence-form LP, then its exploitability) once.
The in-process rows are ``equilibria.solve(game, "auto")`` timed after a warm-up call in
one process (``worker.py equilibria_warm``) and OpenSpiel's game, LP and exploitability
seconds inside its process. Ratios are OpenSpiel's time over ours.

    python benchmarks/leduc_end_to_end.py [--games leduc:ranks=8,leduc:ranks=13] [--repeat 5]
        [--skip-openspiel leduc:ranks=13]
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
            ("solve, no flags (the default plan)", [*CLI, "solve", game, "--json"]),
            ("direct LP, HiGHS", [*CLI, "solve", game, "--no-shrink", "--backend", "highs", "--json"]),
            (
                "compact LP, HiGHS",
                [*CLI, "solve", game, "--shrink", "--rule", "none", "--compact", "--backend", "highs", "--json"],
            ),
            ("lossless shrink, HiGHS", [*CLI, "solve", game, "--shrink", "--backend", "highs", "--json"]),
            (
                "lossless shrink, HiGHS, lifted onto the tree",
                [*CLI, "solve", game, "--shrink", "--backend", "highs", "--strategy-out", "/dev/null", "--json"],
            ),
        ]
        + (
            [
                ("direct LP, clarabel", [*CLI, "solve", game, "--no-shrink", "--backend", "clarabel", "--json"]),
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
            (
                "dcfr to 1e-6",
                [*CLI, "solve", game, "--no-shrink", "--algorithm", "dcfr"]
                + ["--target-exploitability", "1e-6", "--json"],
            ),
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
    parser.add_argument(
        "--skip-openspiel", default="", help="games (comma-separated) OpenSpiel is not run on (it needs over 24 GB)"
    )
    parser.add_argument("--out", default=str(HERE / "leduc_end_to_end.csv"))
    args = parser.parse_args()
    rows = []
    for game in args.games.split(","):
        if game in args.skip_openspiel.split(","):
            theirs, answer = 0.0, {"failed": "skipped (--skip-openspiel)"}
        else:
            theirs, answer = wall([PY, str(HERE / "worker.py"), "openspiel", game], check=False)
        answer_os = answer
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
        # in-process, warm: the call alone, beside OpenSpiel's own in-process seconds
        _, warm = wall([PY, str(HERE / "worker.py"), "equilibria_warm", game, "--repeat", str(args.repeat)])
        inside = theirs_inside = None
        if "failed" not in answer_os:
            theirs_inside = sum(answer_os[k] for k in ("seconds_game", "seconds_solve", "seconds_certify"))
        inside = warm["min_s"]
        ratio = f"  OpenSpiel / this {theirs_inside / inside:6.1f}x" if theirs_inside else ""
        print(f"{game:16s} {'in-process, warm: solve(game, auto)':34s} {inside:8.3f} s{ratio}")
        for label, secs, med, expl in (
            ("in-process: OpenSpiel sequence-form LP", theirs_inside, theirs_inside, answer_os.get("exploitability")),
            ("in-process, warm: solve(game, auto)", inside, warm["median_s"], warm["exploitability"]),
        ):
            rows.append(
                {
                    "game": game,
                    "run": label,
                    "min_s": "" if secs is None else round(secs, 4),
                    "median_s": "" if med is None else round(med, 4),
                    "exploitability": expl,
                    "rows": warm["rows"] if "solve" in label else "",
                    "nonzeros": warm["nonzeros"] if "solve" in label else "",
                }
            )
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
