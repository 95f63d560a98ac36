"""Solve GameShrink's shrunk Rhode Island hold'em LP with HiGHS and certify the result.

    python -m equilibria.scripts.rhode_island_solve [--method pdlp] [--tolerance 1e-3] [--time-limit 2400]

The shrunk LP has 5.5 million rows and 130 million nonzeros; expect 10 to 20 GB of
memory. If HiGHS returns strategies, their exploitability is computed exactly in the
shrunk game, which equals that of the lifted strategies in the full game (the
abstraction is lossless). HiGHS returns no iterate when it stops at the time limit.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    from ..formulations import equilibrium_behaviors
    from ..models.best_response import certify
    from ..shrink import shrink
    from ..solvers import solve

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="rhode_island")
    parser.add_argument("--method", default="pdlp")
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--time-limit", type=float, default=2400.0)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    report = shrink(args.game)
    lp = report.lp
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
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
