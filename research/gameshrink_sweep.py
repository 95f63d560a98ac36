"""Lossy GameShrink sweep: threshold against LP size and exploitability in the full game.

    python -m research.gameshrink_sweep [--game leduc:ranks=6] [--thresholds 2 1 0.5 0.2 0.1 0]

Thresholds are visited from the coarsest to 0 (lossless), which is the anytime use (Gilpin
and Sandholm, "Finding equilibria in large sequential games of imperfect information", 2006)
of the lossy variant: solve increasingly finer abstractions and measure each strategy
against a best response in the original game, stopping whenever the figure is good
enough. Prints the table (with the cumulative time), writes sweep_<game>.csv and .png.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from research._report import finish, pyplot, write_rows


def run(game: str, thresholds: Iterable[float], out: Path, plot: bool = True) -> list[dict]:
    """Rows of the sweep (see the module docstring)."""
    from equilibria.routes.shrink import solve_shrunk

    rows, t_start = [], time.perf_counter()
    for thr in sorted(thresholds, reverse=True):
        sol = solve_shrunk(game, thr, lift=True)
        rep = sol.report
        rows.append(
            {
                "threshold": thr,
                "infosets": rep.infosets_after[0],
                "rows": rep.lp_size["rows"],
                "nonzeros": rep.lp_size["nonzeros"],
                "abstract_value": sol.value,
                "exploitability": sol.exploitability,
                "cumulative_seconds": time.perf_counter() - t_start,
            }
        )
        r = rows[-1]
        print(
            f"threshold {thr:>6g}: {r['infosets']:>7,} infosets/player, {r['rows']:>8,} rows, "
            f"{r['nonzeros']:>9,} nonzeros, abstract value {r['abstract_value']:+.6f}, "
            f"exploitability in the full game {r['exploitability']:.3e}, {r['cumulative_seconds']:.1f} s so far",
            flush=True,
        )
    stem = game.replace(":", "_").replace(",", "_").replace("=", "")
    write_rows(rows, out / f"sweep_{stem}.csv")
    if plot:
        plt = pyplot()
        if plt is not None:
            fig, ax = plt.subplots(figsize=(6.5, 4))
            ax.plot([r["rows"] for r in rows], [max(r["exploitability"], 1e-16) for r in rows], "o-", label=game)
            for r in rows:
                ax.annotate(
                    f"T={r['threshold']:g}",
                    (r["rows"], max(r["exploitability"], 1e-16)),
                    fontsize=7,
                    xytext=(3, 3),
                    textcoords="offset points",
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("shrunk LP rows")
            ax.set_ylabel("exploitability in the full game")
            finish(fig, ax, out / f"sweep_{stem}.png")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--game", default="leduc:ranks=6")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[2, 1, 0.5, 0.2, 0.1, 0.05, 0])
    parser.add_argument("--out", type=Path, default=Path("figures"))
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args(argv)
    run(args.game, args.thresholds, args.out, plot=not args.no_plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
