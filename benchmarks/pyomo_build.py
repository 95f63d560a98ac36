"""Time the Pyomo model of the sequence-form LP against the direct path on the same LPs.

Direct: sequence form, LP arrays, and the arrays handed to HiGHS (``passModel``).
Pyomo, on the LP the direct path built:
  * ``to_pyomo()``: matrix-backed rows (the default), the time to get the model;
  * ``to_pyomo(expanded=True)``: one ``LinearExpression`` per row;
  * into HiGHS through Pyomo's fastest route measured here, ``LinearStandardFormCompiler``
    on the default model then ``passModel``; and, optionally, ``appsi_highs.set_instance``;
  * into HiGHS the way ``equilibria.solve_pyomo`` goes: ``standard_form`` (matrix rows as
    arrays, the rest through Pyomo's compiler) then ``passModel``.
Pyomo is imported before any timing (its import time is printed once). Prints a table and
writes CSV.

    python benchmarks/pyomo_build.py [--games "leduc:ranks=8;liars_dice:sides=6"] [--appsi]
"""

from __future__ import annotations

import argparse
import csv
import gc
import sys
import time
from pathlib import Path

import highspy
import numpy as np

import equilibria
from equilibria.formulations import sequence_form_lp
from equilibria.models.sequence import SequenceForm
from equilibria.solvers.highs import _arrays

HERE = Path(__file__).resolve().parent
GAMES = ["leduc:ranks=6", "leduc:ranks=8", "leduc:ranks=13", "liars_dice:sides=6", "generalized_kuhn:cards=400"]


def _timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _highs_from_standard_form(model):
    """Pyomo's own compiler to (c, A, bounds), then the arrays into HiGHS."""
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    form = LinearStandardFormCompiler().write(model, mixed_form=True)
    A = form.A.tocsc()
    n = A.shape[1]
    lower = np.array([v.lb if v.lb is not None else -np.inf for v in form.columns])
    upper = np.array([v.ub if v.ub is not None else np.inf for v in form.columns])
    # mixed form: rows come with a sense (1 <=, -1 >=, 0 ==) and one right-hand side
    rhs, sense = np.asarray(form.rhs, float), np.asarray([s for _, s in form.rows])
    row_lower = np.where(sense <= 0, rhs, -np.inf)
    row_upper = np.where(sense >= 0, rhs, np.inf)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, A.shape[0]
    lp.col_cost_ = np.asarray(form.c.toarray()).ravel() if hasattr(form.c, "toarray") else np.asarray(form.c).ravel()
    lp.col_lower_, lp.col_upper_ = lower, upper
    lp.row_lower_, lp.row_upper_ = row_lower, row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    h.passModel(lp)
    return h


def _highs_from_equilibria_form(model):
    """``standard_form`` (what ``equilibria.solve_pyomo`` compiles), then into HiGHS."""
    from equilibria.formulations.linear_program import standard_form

    lp, _ = standard_form(model)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(*_arrays(lp))
    return h


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=";".join(GAMES))
    parser.add_argument("--out", default=str(HERE / "pyomo_build.csv"))
    parser.add_argument("--appsi", action="store_true", help="also time appsi_highs.set_instance (slow)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    import pyomo.environ  # noqa: F401

    from equilibria.formulations import pyomo_matrix  # noqa: F401

    print(f"importing Pyomo: {time.perf_counter() - t0:.2f} s (not counted below)")
    rows = []
    print(
        "| game | nonzeros | direct s | to_pyomo() s | ratio | expanded s | ratio | Pyomo into HiGHS s | ratio "
        "| solve_pyomo into HiGHS s | ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for game in filter(None, args.games.split(";")):
        g = equilibria.load(game)

        def direct(g=g):
            lp = sequence_form_lp(SequenceForm(g), 0)
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.passModel(*_arrays(lp))
            return lp

        lp, direct_s = _timed(direct)
        model, matrix_s = _timed(lp.to_pyomo)
        _, into_highs_s = _timed(lambda m=model: _highs_from_standard_form(m))
        _, ours_s = _timed(lambda m=model: _highs_from_equilibria_form(m))
        appsi_s = float("nan")
        if args.appsi:
            from pyomo.contrib.appsi.solvers.highs import Highs as AppsiHighs

            _, appsi_s = _timed(lambda m=model: AppsiHighs().set_instance(m))
        del model
        expanded, expanded_s = _timed(lambda lp=lp: lp.to_pyomo(expanded=True))
        del expanded
        row = {
            "game": game,
            "nonzeros": lp.nnz,
            "direct_seconds": direct_s,
            "to_pyomo_seconds": matrix_s,
            "to_pyomo_ratio": matrix_s / direct_s,
            "expanded_seconds": expanded_s,
            "expanded_ratio": expanded_s / direct_s,
            "pyomo_into_highs_seconds": matrix_s + into_highs_s,
            "pyomo_into_highs_ratio": (matrix_s + into_highs_s) / direct_s,
            "solve_pyomo_into_highs_seconds": matrix_s + ours_s,
            "solve_pyomo_into_highs_ratio": (matrix_s + ours_s) / direct_s,
            "appsi_set_instance_seconds": appsi_s,
        }
        rows.append(row)
        print(
            f"| {game} | {lp.nnz:,} | {direct_s:.3f} | {matrix_s:.3f} | {row['to_pyomo_ratio']:.1f}x | "
            f"{expanded_s:.2f} | {row['expanded_ratio']:.0f}x | {row['pyomo_into_highs_seconds']:.2f} | "
            f"{row['pyomo_into_highs_ratio']:.0f}x | {row['solve_pyomo_into_highs_seconds']:.3f} | "
            f"{row['solve_pyomo_into_highs_ratio']:.1f}x |",
            flush=True,
        )
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
