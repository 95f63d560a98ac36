"""Three-player Kuhn poker: time to a certified NashConv, MIP Nash beside OpenSpiel's CFR.

Ours: MIP Nash (formulation 1, exact bilinear products on SCIP), whole call (program
built, solved, certified by exact best responses), in four variants: with and without the
products' sequence-form equations and the removal of nodewise-dominated actions. Its
answer is an equilibrium up to SCIP's tolerances; the certified NashConv is in the table.

OpenSpiel: C++ CFR and CFR+ (``pyspiel.CFRSolver``, ``pyspiel.CFRPlusSolver``), timed
over iterations only (NashConv of the average policy evaluated at checkpoints, outside
the clock). CFR's average strategy has no convergence guarantee to a Nash equilibrium
with three players (it converges to a coarse correlated equilibrium); the table gives
the time it took to reach each NashConv, or ``not reached`` within ``--cfr-seconds``.

SCIP's path depends on the order of rows and columns: ``--seeds N`` also solves the
program with and without pruning under N permutation seeds (program solved by SCIP only,
``--seed-limit`` seconds each), which is where pruning shows its worth.

Prints seconds (min and median over ``--repeat`` runs) and, per NashConv target, the ratio
of CFR's time to ours; writes every row to CSV.

    python benchmarks/kuhn3_nash.py [--repeat 3] [--cfr-seconds 120] [--time-limit 600]
        [--out benchmarks/kuhn3_nash.csv]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-9)
VARIANTS = {
    "equations and pruning": dict(linearize=True, prune=True),
    "equations": dict(linearize=True, prune=False),
    "pruning": dict(linearize=False, prune=True),
    "neither": dict(linearize=False, prune=False),
}


def run_ours(variant: dict, time_limit: float) -> tuple[float, float | None, str]:
    from equilibria.models.errors import SolverError
    from equilibria.routes.nash.route import solve_nash

    t0 = time.perf_counter()
    try:
        answer = solve_nash("kuhn:players=3", backend="scip", products="exact", time_limit=time_limit, **variant)
    except SolverError:
        return time.perf_counter() - t0, None, "no profile in the time limit"
    return time.perf_counter() - t0, answer.nash_conv, answer.status


def run_cfr(kind: str, budget: float) -> dict[float, float]:
    """Seconds of iterations until the average policy's NashConv first reaches each target."""
    import pyspiel

    game = pyspiel.load_game("kuhn_poker(players=3)")
    solver = pyspiel.CFRPlusSolver(game) if kind == "CFR+" else pyspiel.CFRSolver(game)
    reached: dict[float, float] = {}
    clock, batch = 0.0, 10
    while clock < budget and len(reached) < len(TARGETS):
        t0 = time.perf_counter()
        for _ in range(batch):
            solver.evaluate_and_update_policy()
        clock += time.perf_counter() - t0
        conv = pyspiel.nash_conv(game, solver.average_policy())
        for target in TARGETS:
            if conv <= target and target not in reached:
                reached[target] = clock
        batch = min(batch * 2, 20000)
    return reached


def run_seeds(seeds: int, limit: float) -> list[dict]:
    """SCIP alone on the program with and without pruning, under permutation seeds."""
    from equilibria.formulations.mip_nash import mip_nash, nash_model
    from equilibria.instances.registry import load
    from equilibria.models.dominance import dominated_sequences
    from equilibria.models.sequence import SequenceForm
    from equilibria.solvers.scip import build_native_scip

    game = load("kuhn:players=3")
    sf = SequenceForm(game)
    rows = []
    for prune in (True, False):
        for seed in range(seeds):
            lp = mip_nash(sf, 1, "any", exact=True, forbidden=dominated_sequences(game, sf) if prune else None)
            scip, _, _ = build_native_scip(nash_model(lp, representation="exact"))
            scip.setParam("randomization/randomseedshift", seed)
            scip.setParam("randomization/permutationseed", seed)
            scip.setParam("randomization/permuteconss", seed > 0)
            scip.setParam("randomization/permutevars", seed > 0)
            scip.setParam("limits/time", float(limit))
            t0 = time.perf_counter()
            scip.optimize()
            seconds = time.perf_counter() - t0
            solved = scip.getNSols() > 0
            label = "equations and pruning" if prune else "equations"
            rows.append(
                {
                    "method": f"SCIP on MIP Nash ({label}), seed {seed}",
                    "target": "",
                    "nash_conv": "",
                    "min_s": f"{seconds:.3f}",
                    "median_s": f"{seconds:.3f}",
                    "runs_solved": int(solved),
                    "note": "equilibrium found" if solved else f"none in {limit:g} s",
                }
            )
            print(f"{rows[-1]['method']:52} {rows[-1]['min_s']:>9}  {rows[-1]['note']}")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cfr-seconds", type=float, default=120.0)
    ap.add_argument("--time-limit", type=float, default=600.0, help="SCIP's limit per MIP Nash run")
    ap.add_argument("--seeds", type=int, default=0, help="also solve under this many SCIP permutation seeds")
    ap.add_argument("--seed-limit", type=float, default=60.0)
    ap.add_argument("--out", default=str(HERE / "kuhn3_nash.csv"))
    args = ap.parse_args()

    rows = []
    ours_best: dict[str, float] = {}
    for label, variant in VARIANTS.items():
        seconds, convs, status = [], [], ""
        for _ in range(args.repeat):
            s, conv, status = run_ours(variant, args.time_limit)
            seconds.append(s)
            convs.append(conv)
        solved = [c for c in convs if c is not None]
        nash_conv = max(solved) if solved else None
        rows.append(
            {
                "method": f"MIP Nash ({label})",
                "target": "",
                "nash_conv": "" if nash_conv is None else f"{nash_conv:.3e}",
                "min_s": f"{min(seconds):.3f}",
                "median_s": f"{statistics.median(seconds):.3f}",
                "runs_solved": len(solved),
                "note": status if not solved else "certified by exact best responses",
            }
        )
        if len(solved) == len(convs):
            ours_best[label] = statistics.median(seconds)
        print(
            f"{rows[-1]['method']:42} {rows[-1]['min_s']:>9} {rows[-1]['median_s']:>9}"
            f"  NashConv {rows[-1]['nash_conv']}"
        )

    reference = ours_best.get("equations and pruning") or (min(ours_best.values()) if ours_best else None)
    for kind in ("CFR", "CFR+"):
        runs = [run_cfr(kind, args.cfr_seconds) for _ in range(args.repeat)]
        for target in TARGETS:
            times = [r[target] for r in runs if target in r]
            reached = len(times) == len(runs)
            median = statistics.median(times) if reached else None
            ratio = f"{median / reference:.2f}" if reached and reference else ""
            rows.append(
                {
                    "method": f"OpenSpiel C++ {kind}",
                    "target": f"{target:g}",
                    "nash_conv": "",
                    "min_s": f"{min(times):.3f}" if reached else "",
                    "median_s": f"{median:.3f}" if reached else "",
                    "runs_solved": len(times),
                    "note": (
                        f"CFR time / MIP Nash time {ratio}; no guarantee with three players"
                        if reached
                        else f"not reached in {args.cfr_seconds:g} s; no guarantee with three players"
                    ),
                }
            )
            print(
                f"{rows[-1]['method']:24} NashConv <= {target:<8g} {rows[-1]['median_s'] or '-':>9}  {rows[-1]['note']}"
            )

    if args.seeds:
        rows += run_seeds(args.seeds, args.seed_limit)

    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
