"""Lemke's method on the sequence form (the ``lcp`` route) against pygambit's ``lcp_solve``
and MIP Nash (the ``nash`` route), on the sheriff variants and on random general-sum games
of growing size, each timed as a call in this warm process.

    python benchmarks/lcp.py [--repeat 3] [--limit 120] [--ours-only] [--only GAME ...]

Prints one row per game and solver (min and median seconds of ``--repeat`` calls, the
certified NashConv of our answers) and writes ``benchmarks/lcp.csv``; the ratio column is
pygambit's median over ours. MIP Nash runs once per game, under ``--limit`` seconds.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import equilibria  # noqa: E402
from benchmarks.mip_nash import timed  # noqa: E402
from equilibria.core.deadline import OutOfTime  # noqa: E402
from equilibria.interop.gambit import to_pygambit  # noqa: E402
from tests.random_games import random_game  # noqa: E402

#: pygambit's lcp_solve builds dense matrices: on sheriff with 3 rounds (2,932
#: complementary pairs) and on a random game of depth 9 it did not end within 8 minutes,
#: so the larger games are ours alone (``--ours-only``).
GAMES = ["sheriff:rounds=1", "sheriff:rounds=2", "random:5:0", "random:6:0", "random:7:0", "random:8:1"]
OURS_ONLY = ["sheriff:rounds=3", "sheriff", "random:9:0", "random:10:0", "random:12:0", "random:14:0"]


def load(spec: str) -> equilibria.ExtensiveGame:
    """A game by name, or ``random:DEPTH:SEED`` for a random general-sum tree."""
    if spec.startswith("random:"):
        _, depth, seed = spec.split(":")
        return random_game(int(seed), max_depth=int(depth), general_sum=True)
    return equilibria.load(spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--ours-only", action="store_true", help="also the games pygambit does not end on")
    parser.add_argument("--only", nargs="*", help="these games alone, their rows added to the CSV")
    args = parser.parse_args()
    import pygambit as gbt

    out = Path(__file__).with_name("lcp.csv")
    rows: list[dict] = []
    games = GAMES + (OURS_ONLY if args.ours_only else [])
    if args.only:
        games = args.only
        with out.open() as f:
            rows = [r for r in csv.DictReader(f) if r["game"] not in games]
    for spec in games:
        game = load(spec)
        ours, answer = timed(lambda g=game: equilibria.solve(g, "lcp"), args.repeat)
        theirs = [float("nan")]
        if spec in GAMES:
            theirs_game = to_pygambit(game)
            theirs, _ = timed(lambda g=theirs_game: gbt.nash.lcp_solve(g, rational=False), args.repeat)
        t0 = time.perf_counter()
        try:
            mip = equilibria.solve(game, "nash", time_limit=args.limit)
            mip_seconds, mip_note = time.perf_counter() - t0, f"NashConv {mip.nash_conv:.1e}"
        except OutOfTime:
            mip_seconds, mip_note = float("nan"), f"over {args.limit:g} s"
        row = {
            "game": spec,
            "nodes": game.num_nodes,
            "pivots": answer.pivots,
            "lcp_min_s": round(min(ours), 4),
            "lcp_median_s": round(statistics.median(ours), 4),
            "lcp_nash_conv": answer.nash_conv,
            "pygambit_min_s": round(min(theirs), 4),
            "pygambit_median_s": round(statistics.median(theirs), 4),
            "ratio_pygambit_over_lcp": round(statistics.median(theirs) / statistics.median(ours), 2),
            "mip_nash_s": round(mip_seconds, 3),
            "mip_nash": mip_note,
        }
        rows.append(row)
        print(", ".join(f"{k} {v}" for k, v in row.items()), flush=True)
        with out.open("w", newline="") as f:  # after each game: a long run keeps what it measured
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
