"""How fast can the sequence-form LP of a game be solved at all? Times each LP algorithm
on the same LP (the direct LP and the compact one), to show where the end-to-end time of
``equilibria solve`` goes and what bounds its ratio to OpenSpiel's LP.

HiGHS: dual simplex, primal simplex, IPX with and without crossover, PDLP (each single
threaded, as in a concurrent race; PDLP once, stopped at 60 s); Clarabel (the ``clarabel`` backend, when
installed) on the same LP. Only solver time is measured (the LP is built
once); min and median over ``--repeat`` runs.

    python benchmarks/lp_solver_floor.py [--game leduc:ranks=8] [--repeat 3] [--csv FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from pathlib import Path

import highspy
from tables import write_csv

from equilibria.formulations.compact_lp import compact_sequence_form_lp
from equilibria.formulations.sequence_form_lp import sequence_form_lp
from equilibria.instances.registry import describe
from equilibria.models.sequence import SequenceForm
from equilibria.routes.shrink import shrink
from equilibria.solvers.clarabel import solve_clarabel
from equilibria.solvers.highs import _arrays

HIGHS = {
    "dual simplex": {"solver": "simplex", "simplex_strategy": 1},
    "primal simplex": {"solver": "simplex", "simplex_strategy": 4},
    "ipx": {"solver": "ipx"},
    "ipx, no crossover": {"solver": "ipx", "run_crossover": "off"},
    "pdlp (60 s limit)": {"solver": "pdlp", "time_limit": 60.0},
}


def run_highs(lp, options: dict) -> tuple[float, float]:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    for key, value in options.items():
        h.setOptionValue(key, value)
    h.passModel(*_arrays(lp))
    t = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - t
    return seconds, float(h.getInfo().objective_function_value)


def run_clarabel(lp) -> tuple[float, float] | None:
    """The ``clarabel`` backend's solve time and objective, or None when not installed."""
    if importlib.util.find_spec("clarabel") is None:
        return None
    solution = solve_clarabel(lp)
    return solution.seconds["solve"], float(solution.objective)


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--game", default="leduc:ranks=8")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--csv", default=str(Path(__file__).with_name("lp_solver_floor.csv")))
    args = parser.parse_args()
    lps = {
        "direct": sequence_form_lp(SequenceForm(describe(args.game).extensive())),
        "compact": compact_sequence_form_lp(shrink(args.game, rule="none", build_lp=False).filtered),
    }
    rows = []
    print(f"{'LP':<8} {'rows':>7} {'nonzeros':>9}  {'algorithm':<18} {'min s':>7} {'median s':>8}  value")
    for kind, lp in lps.items():
        runs: dict[str, list[tuple[float, float]]] = {}
        for repeat in range(args.repeat):
            for name, options in HIGHS.items():
                if name.startswith("pdlp") and repeat:
                    continue  # it does not finish: once is enough to show it
                runs.setdefault(f"highs {name}", []).append(run_highs(lp, options))
            clarabel_run = run_clarabel(lp)
            if clarabel_run is not None:
                runs.setdefault("clarabel", []).append(clarabel_run)
        for name, results in runs.items():
            seconds = [s for s, _ in results]
            row = {
                "game": args.game,
                "lp": kind,
                "rows": lp.num_rows,
                "nonzeros": lp.nnz,
                "algorithm": name,
                "min_seconds": min(seconds),
                "median_seconds": statistics.median(seconds),
                "value": results[-1][1],
            }
            rows.append(row)
            print(
                f"{kind:<8} {lp.num_rows:>7,} {lp.nnz:>9,}  {name:<18} {row['min_seconds']:>7.2f} "
                f"{row['median_seconds']:>8.2f}  {row['value']:.9f}",
                flush=True,
            )
    write_csv(rows, args.csv)


if __name__ == "__main__":
    main()
