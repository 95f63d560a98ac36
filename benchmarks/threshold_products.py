"""Threshold programs of games with three or more players: solve time, binaries and the
epsilon promised and certified, against breakpoints, per product representation and backend.

Each cell builds the game's threshold program (its shipped ``standard`` model) with one
representation of the products and ``k`` breakpoints per square, solves it ``--runs`` times
with a time limit, and reports the minimum and median wall seconds of the whole solve
(build, solve, certification), the program's rows, columns, binaries and SOS2 sets, the
NashConv bound the program promises and the NashConv and largest one-player gain measured
by exact best responses in the game. ``exact`` (bilinear products on SCIP) has no
breakpoints and appears once per game. Each cell runs in a process of its own.

    python benchmarks/threshold_products.py [--games generalized_kuhn:players=3,cards=3]
        [--ks 3,5] [--cells log/highs,exact/scip] [--runs 2] [--time-limit 60] [--plot FILE.png]
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import statistics
import time
from pathlib import Path

from equilibria.models.errors import EquilibriaError

HERE = Path(__file__).resolve().parent
GAMES = ("generalized_kuhn:players=3,cards=3", "kuhn:players=3")
CELLS = (
    ("log", "highs"),
    ("cc", "highs"),
    ("incremental", "highs"),
    ("dlog", "highs"),
    ("log", "scip"),
    ("sos2", "scip"),
    ("exact", "scip"),
)
FIELDS = [
    "game",
    "products",
    "backend",
    "k",
    "rows",
    "columns",
    "binaries",
    "sos2",
    "status",
    "promised_epsilon",
    "nash_conv",
    "certified_epsilon",
    "min_seconds",
    "median_seconds",
]


def run_cell(game: str, products: str, backend: str, k: int | None, runs: int, time_limit: float) -> dict:
    from equilibria.routes.threshold.route import solve_threshold

    row: dict = {"game": game, "products": products, "backend": backend, "k": "" if k is None else k}
    seconds = []
    sol = None
    for _ in range(runs):
        t0 = time.perf_counter()
        try:
            sol = solve_threshold(game, backend=backend, products=products, breakpoints=k, time_limit=time_limit)
        except EquilibriaError as exc:
            row.update(status=" ".join(str(exc).split())[:60])
            return row
        seconds.append(time.perf_counter() - t0)
    assert sol is not None
    row.update({f: sol.sizes.get(f, "") for f in ("rows", "columns", "binaries", "sos2")})
    row.update(
        status="optimal",
        promised_epsilon=f"{sol.program.promised_epsilon:.4g}",
        nash_conv=f"{sol.nash_conv:.3e}",
        certified_epsilon=f"{sol.certified_epsilon:.3e}",
        min_seconds=f"{min(seconds):.2f}",
        median_seconds=f"{statistics.median(seconds):.2f}",
    )
    return row


def run_isolated(game: str, products: str, backend: str, k: int | None, runs: int, time_limit: float) -> dict:
    """:func:`run_cell` in a process of its own, so that a solver that stops responding
    costs one row, not the run."""
    wall = runs * (time_limit + 60.0) + 30.0
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        job = pool.apply_async(run_cell, (game, products, backend, k, runs, time_limit))
        try:
            return job.get(timeout=wall)
        except multiprocessing.TimeoutError:
            pool.terminate()
            status = f"no answer in {wall:.0f} s"
            return {"game": game, "products": products, "backend": backend, "k": k, "status": status}


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for (products, backend), group in _series(rows).items():
        ks = [int(r["k"]) for r in group]
        label = f"{products} / {backend}"
        axes[0].plot(ks, [float(r["promised_epsilon"]) for r in group], "o--", label=f"{label}: promised")
        axes[0].plot(ks, [max(float(r["nash_conv"]), 1e-16) for r in group], "s-", label=f"{label}: certified")
        axes[1].plot(ks, [float(r["median_seconds"]) for r in group], "o-", label=label)
    axes[0].set(xlabel="breakpoints per square", ylabel="NashConv", yscale="log", title="promised and certified")
    axes[1].set(xlabel="breakpoints per square", ylabel="seconds (median)", yscale="log", title="solve time")
    for ax in axes:
        ax.legend(fontsize=6)
    fig.suptitle(rows[0]["game"])
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _series(rows: list[dict]) -> dict:
    out: dict = {}
    for r in rows:
        if r.get("status") == "optimal" and r["k"] != "" and r["game"] == rows[0]["game"]:
            out.setdefault((r["products"], r["backend"]), []).append(r)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=GAMES[0], help="games, separated by ';'")
    parser.add_argument("--ks", default="3,5", help="breakpoints per square, comma separated")
    parser.add_argument("--cells", default=None, help="only these products/backend pairs, e.g. log/highs,exact/scip")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--out", default=str(HERE / "threshold_products.csv"))
    parser.add_argument("--plot", default=None, help="PNG of epsilon and time against breakpoints (first game)")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",") if k]
    rows = []
    print(" ".join(f"{f[:12]:>12}" for f in FIELDS[1:]))
    for game in args.games.split(";"):
        print(game)
        chosen = CELLS if args.cells is None else [tuple(c.split("/")) for c in args.cells.split(",")]
        for products, backend in chosen:
            for k in ks if products != "exact" else [None]:
                row = run_isolated(game, products, backend, k, args.runs, args.time_limit)
                rows.append(row)
                print(" ".join(f"{str(row.get(f, ''))[:12]:>12}" for f in FIELDS[1:]), flush=True)
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows({f: r.get(f, "") for f in FIELDS} for r in rows)
    print(f"wrote {args.out}")
    if args.plot:
        plot(rows, args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
