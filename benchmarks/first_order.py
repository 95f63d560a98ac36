"""First-order solvers: time to a certified exploitability, beside OpenSpiel's C++ CFR+ in
the same run.

For each game, each of the project's algorithms (``cfr+``, ``pcfr+``, ``dcfr``, ``mirror-prox``) and
OpenSpiel's ``CFRPlusSolver`` iterate until the exploitability of the average strategy is
at most ``--target``. Both sides are checked after the same growing iteration counts
(x1.25); only iteration time is counted (the game is built, and the exploitability
measured, outside the clock), so the figures compare the solvers, not their set-up.

Prints per solver the iterations and seconds to the target (min and median over
``--repeat`` runs; the slow solvers, OpenSpiel's CFR+ and mirror-prox, run
``--slow-repeat`` times) and OpenSpiel's seconds over ours; writes every run to CSV. A
run is capped at ``--max-seconds`` of iteration time; a solver stopped there is reported
with the exploitability it reached.

    python benchmarks/first_order.py [--target 1e-4] [--repeat 3] [--out benchmarks/first_order.csv]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
GAMES = [
    # (label, our spec, OpenSpiel game)
    ("Leduc hold'em", "leduc", "leduc_poker"),
    ("Liar's dice, 6 sides", "liars_dice:sides=6", "liars_dice(numdice=1,dice_sides=6)"),
]
GROWTH = 1.25
MAX_SECONDS = 600.0  # per run; a solver that needs more is reported with what it reached


def ours(spec: str, algorithm: str, target: float) -> tuple[int, float, float]:
    """Iterations and iteration seconds to ``target``, and the exploitability reached."""
    from equilibria.api import solve_first_order
    from equilibria.instances import load
    from equilibria.models.sequence import SequenceForm

    sf = SequenceForm(load(spec))
    run = solve_first_order(sf, algorithm, target_exploitability=target, time_limit=MAX_SECONDS)
    hit = next((c for c in run.curve if c["exploitability"] <= target), run.curve[-1])
    return hit["iterations"], hit["seconds"], hit["exploitability"]


def openspiel_cfr_plus(name: str, target: float) -> tuple[int, float, float]:
    """The same for OpenSpiel's C++ CFR+ (``CFRPlusSolver``), checked on the same schedule."""
    import pyspiel

    game = pyspiel.load_game(name)
    solver = pyspiel.CFRPlusSolver(game)
    done, seconds, check = 0, 0.0, 1
    while True:
        t0 = time.perf_counter()
        while done < check:
            solver.evaluate_and_update_policy()
            done += 1
        seconds += time.perf_counter() - t0
        expl = pyspiel.exploitability(game, solver.average_policy())
        if expl <= target or seconds >= MAX_SECONDS:
            return done, seconds, expl
        check = max(done + 1, int(done * GROWTH))


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--target", type=float, default=1e-4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--slow-repeat", type=int, default=1, help="runs of the slow solvers (OpenSpiel's CFR+, mirror-prox)"
    )
    parser.add_argument("--algorithms", default="cfr+,pcfr+,dcfr,mirror-prox")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="iteration seconds per run at most")
    parser.add_argument("--out", default=str(HERE / "first_order.csv"))
    args = parser.parse_args()
    global MAX_SECONDS
    MAX_SECONDS = args.max_seconds
    rows = []
    for label, spec, openspiel in GAMES:
        runs = {
            f"equilibria {a}": (lambda a=a, spec=spec: ours(spec, a, args.target)) for a in args.algorithms.split(",")
        }
        runs["OpenSpiel C++ CFR+"] = lambda openspiel=openspiel: openspiel_cfr_plus(openspiel, args.target)
        best = {}
        for solver, run in runs.items():
            slow = solver.startswith("OpenSpiel") or solver.endswith("mirror-prox")
            repeat = args.slow_repeat if slow else args.repeat
            results = [run() for _ in range(repeat)]
            secs = [r[1] for r in results]
            iters, _, expl = results[0]
            if expl <= args.target:
                best[solver] = min(secs)
            reached = "" if expl <= args.target else "  (target not reached)"
            print(
                f"{label:22s} {solver:24s} {iters:7,d} iterations  min {min(secs):9.3f} s  "
                f"median {statistics.median(secs):9.3f} s  exploitability {expl:.2e}{reached}"
            )
            for i, (it, s, e) in enumerate(results):
                rows.append(
                    {
                        "game": label,
                        "solver": solver,
                        "run": i,
                        "target": args.target,
                        "iterations": it,
                        "seconds": round(s, 4),
                        "exploitability": e,
                    }
                )
        theirs = best.get("OpenSpiel C++ CFR+")
        for solver, secs in best.items():
            if solver.startswith("OpenSpiel"):
                continue
            if theirs is not None:
                print(f"{label:22s} OpenSpiel C++ CFR+ / {solver}: {theirs / secs:.1f}x")
            else:  # OpenSpiel stopped at the cap without reaching the target
                print(f"{label:22s} OpenSpiel C++ CFR+ / {solver}: more than {MAX_SECONDS / secs:.0f}x")
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
