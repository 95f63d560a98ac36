"""Time ``LinearProgram.to_pyomo()`` against the direct path on the same LPs.

Direct: the LP's sparse arrays handed to HiGHS (``passModel``). Pyomo: building the
``ConcreteModel`` with ``to_pyomo()``, and, for reference, handing that model to HiGHS
through Pyomo's ``appsi_highs`` interface. Prints a table and writes CSV.

    python benchmarks/pyomo_build.py [--games "leduc:ranks=8;liars_dice:sides=6"]
"""
from __future__ import annotations

import argparse
import csv
import gc
import sys
import time
from pathlib import Path

import highspy

import equilibria
from equilibria.formulations import sequence_form_lp
from equilibria.models.sequence import SequenceForm
from equilibria.solvers.highs import _arrays

HERE = Path(__file__).resolve().parent
GAMES = ["leduc:ranks=6", "leduc:ranks=8", "liars_dice:sides=6", "generalized_kuhn:cards=400"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default=";".join(GAMES))
    parser.add_argument("--out", default=str(HERE / "pyomo_build.csv"))
    parser.add_argument("--no-appsi", action="store_true", help="skip loading the Pyomo model into HiGHS")
    args = parser.parse_args(argv)
    rows = []
    print("| game | nonzeros | direct s | to_pyomo s | ratio | to_pyomo + appsi_highs load s |")
    print("|---|---:|---:|---:|---:|---:|")
    for game in filter(None, args.games.split(";")):
        g = equilibria.load(game)
        t0 = time.perf_counter()
        lp = sequence_form_lp(SequenceForm(g), 0)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.passModel(*_arrays(lp))
        direct = time.perf_counter() - t0
        gc.collect()
        t1 = time.perf_counter()
        model = lp.to_pyomo()
        pyomo_build = time.perf_counter() - t1
        load = float("nan")
        if not args.no_appsi:
            from pyomo.contrib.appsi.solvers.highs import Highs as AppsiHighs

            t2 = time.perf_counter()
            AppsiHighs().set_instance(model)
            load = time.perf_counter() - t2
        row = {"game": game, "nonzeros": lp.nnz, "direct_seconds": direct, "to_pyomo_seconds": pyomo_build,
               "ratio": pyomo_build / direct, "appsi_load_seconds": load}
        rows.append(row)
        print(f"| {game} | {lp.nnz:,} | {direct:.3f} | {pyomo_build:.3f} | {row['ratio']:.1f}x | {load:.2f} |", flush=True)
        del model
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
