"""Solve Rhode Island hold'em through GameShrink's shrunk game and certify the result.

    python -m research.rhode_island_solve [--method cfr+] [--time-limit 3600]
        [--curve-out rhode_island_curve.csv] [--plot rhode_island_anytime.png]

With a first-order method (``cfr+``, ``dcfr``, ``mirror-prox``) no LP is built: the
solver iterates on the shrunk sequence form's payoff matrix, and the average strategies
are certified by exact best responses after growing iteration counts; each certificate
is appended to ``--curve-out`` as it is made (a stopped run keeps its curve), and
``--plot`` draws certified exploitability against wall time. With an LP method
(``pdlp``, ``ipm``, ``ipx``, ``simplex``) the shrunk LP (5.5 million rows and 130
million nonzeros for the lossless rule; expect 10 to 20 GB) goes to HiGHS, which returns
no iterate when it stops at the time limit.

The curve's exploitability is measured in the shrunk game; the final strategies are also
certified in the full game, by best responses over the betting template and the cards
(:func:`equilibria.models.ordered_best_response.ordered_certificate`; the 6.7-billion-node
tree is never built). For the lossless rule the two agree.
"""

from __future__ import annotations

import argparse
import csv
import resource
import time
from collections.abc import Sequence

FIRST_ORDER = ("cfr+", "pcfr+", "dcfr", "mirror-prox")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def plot_curve(rows: list[dict], path: str, title: str) -> None:
    """Certified exploitability against wall time, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.loglog([float(r["wall_seconds"]) for r in rows], [float(r["exploitability"]) for r in rows], marker=".")
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
    ax.text(ax.get_xlim()[0], 1.0, " 1 chip", va="bottom", color="grey")
    ax.set_xlabel("wall time since the start (s)")
    ax.set_ylabel("certified exploitability (chips)")
    ax.set_title(title)
    ax.grid(True, which="both", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"figure written to {path}")


def _first_order(args: argparse.Namespace, t0: float) -> None:
    from equilibria.routes.first_order import solve_first_order
    from equilibria.routes.run import CurvePoint
    from equilibria.routes.shrink import shrink

    report = shrink(args.game, rule=args.rule, build_lp=False)
    sf = report.filtered.sequence_form
    print(
        f"shrunk game ({args.rule} rule): {sf.players[0].num_sequences:,} and {sf.players[1].num_sequences:,} "
        f"sequences, {len(sf.terminal_chance):,} payoff entries, after {time.perf_counter() - t0:.0f} s; "
        f"peak memory {_peak_mb():,.0f} MB",
        flush=True,
    )
    rows: list[dict] = []
    out = open(args.curve_out, "w", newline="") if args.curve_out else None
    writer = None

    def record(point: CurvePoint) -> None:
        nonlocal writer
        row = {"wall_seconds": round(time.perf_counter() - t0, 2), **point.row(), "peak_mb": round(_peak_mb())}
        rows.append(row)
        print(
            f"{row['wall_seconds']:9.0f} s  {point.iterations:7,d} iterations  "
            f"exploitability {point.exploitability:.4e}",
            flush=True,
        )
        if out is not None:
            if writer is None:
                writer = csv.DictWriter(out, fieldnames=list(row))
                writer.writeheader()
            writer.writerow(row)
            out.flush()

    try:
        run = solve_first_order(
            sf,
            args.method,
            time_limit=max(1.0, args.time_limit - (time.perf_counter() - t0)),
            target_exploitability=args.target_exploitability,
            on_certificate=record,
        )
    finally:
        if out is not None:
            out.close()
    cert = run.certificate
    low, high = -cert.best_response_values[1], cert.best_response_values[0]
    print(
        f"{run.status}: exploitability {cert.exploitability:.4e} chips; value of the game in "
        f"[{low:.6f}, {high:.6f}]; player 1's payoff {cert.payoffs[0]:.6f}",
        flush=True,
    )
    from equilibria.models.ordered_best_response import ordered_certificate

    t1 = time.perf_counter()
    full = ordered_certificate(report.filtered, run.behaviors)
    print(
        f"full game: exploitability {full.exploitability:.4e} chips (best responses over the betting template "
        f"and the cards, {time.perf_counter() - t1:.1f} s)",
        flush=True,
    )
    print(f"peak memory {_peak_mb():,.0f} MB")
    if args.plot:
        plot_curve(rows, args.plot, f"Rhode Island hold'em, {args.method} on the {args.rule} shrunk game")


def _lp(args: argparse.Namespace, t0: float) -> None:
    from equilibria.formulations import equilibrium_behaviors
    from equilibria.models.best_response import certify
    from equilibria.routes.shrink import shrink
    from equilibria.solvers import solve

    report = shrink(args.game, rule=args.rule)
    lp = report.lp
    assert lp is not None  # built by default
    print(
        f"shrunk LP: {lp.num_rows:,} rows, {lp.nnz:,} nonzeros, built in {time.perf_counter() - t0:.0f} s", flush=True
    )
    tol = args.tolerance
    options = {"primal_feasibility_tolerance": tol, "dual_feasibility_tolerance": tol}
    if args.method == "pdlp":
        options["pdlp_optimality_tolerance"] = tol
    elif args.method in ("ipm", "ipx"):
        options["ipm_optimality_tolerance"] = tol
    t1 = time.perf_counter()
    sol = solve(lp, "highs", method=args.method, time_limit=args.time_limit, verbose=True, options=options)
    print(f"{args.method}: {sol.status} after {time.perf_counter() - t1:.0f} s, objective {sol.objective}", flush=True)
    if sol.x is not None and sol.row_duals is not None:
        sf = report.filtered.sequence_form
        cert = certify(sf, equilibrium_behaviors(sf, lp, sol.x, sol.row_duals))
        print(f"certified exploitability {cert.exploitability:.3e}; payoffs {cert.payoffs}", flush=True)
    else:
        print("no strategies returned: nothing to certify")
    print(f"peak memory {_peak_mb():,.0f} MB")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--game", default="rhode_island")
    parser.add_argument("--rule", choices=("lossless", "published"), default="lossless")
    parser.add_argument("--method", default="cfr+", help="cfr+ (default), dcfr, mirror-prox, or a HiGHS LP method")
    parser.add_argument("--tolerance", type=float, default=1e-3, help="LP methods: HiGHS tolerances")
    parser.add_argument("--time-limit", type=float, default=3600.0, help="seconds in all (default 3600)")
    parser.add_argument("--target-exploitability", type=float, default=None)
    parser.add_argument("--curve-out", default=None, help="first-order methods: CSV of the certificates")
    parser.add_argument("--plot", default=None, help="first-order methods: PNG of the curve")
    args = parser.parse_args(argv)
    if args.plot and not args.curve_out and args.method not in FIRST_ORDER:
        parser.error("--plot draws a first-order method's curve")
    t0 = time.perf_counter()
    if args.method in FIRST_ORDER:
        _first_order(args, t0)
    else:
        _lp(args, t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
