"""The measurements behind ``equilibria solve``'s default plan (``equilibria.plan``): every
formulation of a game's LP (the tree's direct LP; GameShrink's lossless shrunk LP; the
compact LP without abstraction) solved by HiGHS (its default method) and by Clarabel, in
one process, warm, repeated (min and median of the solve and of the whole call).

    python benchmarks/default_rule.py [--games "kuhn;leduc:ranks=8"] [--repeat 3]

Rows go to ``benchmarks/default_rule.csv``. Each LP is certified where the route certifies
it (the full game), so a fast but inexact solve shows in the exploitability column.
"""

from __future__ import annotations

import argparse
import statistics
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
    "generalized_kuhn:cards=1000",
    "rhode_island:ranks=4,suits=2",
    "liars_dice:sides=4",
    "liars_dice:sides=6",
    "mipnash_test:k=200",
]
#: formulation -> (route, options); the ordered ones apply to games with ordered signals
FORMULATIONS = {
    "direct": ("lp", {}),
    "lossless": ("shrink", {"rule": "lossless"}),
    "compact": ("shrink", {"rule": "none", "compact": True}),
}
#: a call slower than this many seconds is not repeated
SLOW = 10.0


def run(game: str, route: str, options: dict, backend: str, repeat: int) -> dict:
    from equilibria.routes import solve

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=";".join(GAMES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(HERE / "default_rule.csv"))
    args = parser.parse_args(argv)
    from equilibria.instances.registry import describe
    from equilibria.models.errors import EquilibriaError

    rows = []
    for game in args.games.split(";"):
        ordered = "ordered" in describe(game).views
        for formulation, (route, options) in FORMULATIONS.items():
            if route == "shrink" and not ordered:
                continue
            for backend in ("highs", "clarabel"):
                row = {"game": game, "formulation": formulation, "backend": backend}
                try:
                    row |= run(game, route, options, backend, args.repeat)
                except EquilibriaError as exc:  # a backend that returns no solution is a row too
                    row["error"] = str(exc)
                rows.append(row)
                print(", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    keys = list(dict.fromkeys(k for row in rows for k in row))
    write_csv([{k: row.get(k) for k in keys} for row in rows], args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
