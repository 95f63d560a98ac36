"""The measurements behind ``equilibria solve``'s default plan (``equilibria.core.plan``): every
formulation of a game's LP (the tree's direct LP; GameShrink's lossless shrunk LP; the
compact LP without abstraction) solved by HiGHS (its default method) and by Clarabel, in
one process, warm, repeated (min and median of the solve and of the whole call).

    python benchmarks/default_rule.py [--games "kuhn;leduc:ranks=8"] [--repeat 3]

Rows go to ``benchmarks/default_rule.csv``. Each LP is certified where the route certifies
it (the full game), so a fast but inexact solve shows in the exploitability column.
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
GAMES = [
    "kuhn",
    "leduc",
    "leduc:ranks=5",
    "leduc:ranks=8",
    "leduc:ranks=13",
    "generalized_kuhn:cards=100",
    "generalized_kuhn:cards=300",
    "rhode_island:ranks=4,suits=2",
    "liars_dice:sides=4",
    "liars_dice:sides=6",
]
#: formulation -> (route, options); the ordered ones apply to games with ordered signals
FORMULATIONS = {
    "direct": ("lp", {}),
    "lossless": ("shrink", {"rule": "lossless"}),
    "compact": ("shrink", {"rule": "none", "compact": True}),
}
#: a call slower than this many seconds is not repeated
SLOW = 10.0
#: seconds one (game, formulation, backend) cell may take, repeats included
CELL_LIMIT = 180.0


def run(game: str, route: str, options: dict, backend: str, repeat: int) -> dict:
    from equilibria.core.skeleton import solve

    solves, totals, answer = [], [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        answer = solve(game, route, backend=backend, **options)
        totals.append(time.perf_counter() - t0)
        solves.append(answer.seconds.get("solve", float("nan")))
        if totals[-1] > SLOW:
            break
    assert answer is not None
    return {
        "rows": answer.sizes.get("rows"),
        "nonzeros": answer.sizes.get("nonzeros"),
        "method": answer.method,
        "solve_min_s": round(min(solves), 4),
        "solve_median_s": round(statistics.median(solves), 4),
        "total_min_s": round(min(totals), 4),
        "total_median_s": round(statistics.median(totals), 4),
        "exploitability": answer.exploitability,
    }


def cell(game: str, formulation: str, backend: str, repeat: int) -> dict:
    """One measurement in a process of its own, stopped after :data:`CELL_LIMIT` seconds."""
    cmd = [sys.executable, __file__, "--cell", game, formulation, backend, "--repeat", str(repeat)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=CELL_LIMIT)
    except subprocess.TimeoutExpired:
        return {"error": f"over {CELL_LIMIT:.0f} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]}
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=";".join(GAMES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "default_rule.csv"))
    parser.add_argument("--cell", nargs=3, metavar=("GAME", "FORMULATION", "BACKEND"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cell:
        game, formulation, backend = args.cell
        route, options = FORMULATIONS[formulation]
        print(json.dumps(run(game, route, options, backend, args.repeat)))
        return 0
    from equilibria.instances.registry import describe

    rows = []
    for game in args.games.split(";"):
        ordered = "ordered" in describe(game).views
        for formulation, (route, _) in FORMULATIONS.items():
            if route == "shrink" and not ordered:
                continue
            for backend in ("highs", "clarabel"):
                row = {"game": game, "formulation": formulation, "backend": backend}
                row |= cell(game, formulation, backend, args.repeat)
                rows.append(row)
                print(", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    keys = list(dict.fromkeys(k for row in rows for k in row))
    write_csv([{k: row.get(k) for k in keys} for row in rows], args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
