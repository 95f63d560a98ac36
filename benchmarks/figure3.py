"""Figure 3 of Koller and Pfeffer, "Generating and solving imperfect information games"
(1995): solving through the reduced normal form against the sequence form, as the game
grows, on simplified poker with k cards and on an inspection game.

    python benchmarks/figure3.py [--repeat 3] [--cap 20] [--plot docs/img/figure3.png]

Both games are zero-sum, so both ways solve an LP with HiGHS (the backend's own rule
picks simplex or interior point from the LP's shape):

* normal form: the reduced normal form (``models.reduced_normal_form``: plans counted,
  enumerated, payoffs ``P_1 A P_2^T``), then its matrix-game LP built directly as a
  ``LinearProgram`` (max v subject to A'x >= v, x a probability vector; player 2's mix is
  the duals of the ``A'x >= v`` rows), the two mixes mapped back to behaviour strategies
  and certified in the tree;
* sequence form: ``routes.lp.solve_sequence_form`` (the LP of Koller, Megiddo and von
  Stengel, 1996), certified in the tree.

Each is timed from the built tree to the certified profile, min and median of
``--repeat`` calls (one call once a call takes over 10 s). The normal-form column stops at
the first size whose reduced normal form and LP would not fit in the memory available,
or whose time, extrapolated linearly in cells from the last size solved (an optimistic
guess: the LP grows faster), would pass ``--cap`` seconds. The values of the two ways
must agree to 1e-6. Prints one row per game, writes ``benchmarks/figure3.csv`` and the
log-scale plot.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import equilibria  # noqa: E402
from benchmarks.mip_nash import timed  # noqa: E402
from benchmarks.tables import write_csv  # noqa: E402
from equilibria.formulations.linear_program import Block, LinearProgram  # noqa: E402
from equilibria.instances.registry import available_memory  # noqa: E402
from equilibria.models.reduced_normal_form import (  # noqa: E402
    NormalFormTooLarge,
    ReducedNormalForm,
    check_fits,
    reduced_normal_form,
    reduced_size,
)
from equilibria.models.sequence import SequenceForm  # noqa: E402
from equilibria.routes.lp import solve_sequence_form  # noqa: E402
from equilibria.solvers import get_backend  # noqa: E402

HERE = Path(__file__).resolve().parent
T = TypeVar("T")
#: (series, game spec with {} for the parameter, the parameter's name, its values)
SERIES = [
    ("simplified poker", "kuhn_rules:cards={}", "cards", [3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64]),
    ("inspection, 1 inspection", "inspection_rules:periods={},inspections=1", "periods", [*range(2, 13), 16, 20, 24]),
    ("inspection, 2 inspections", "inspection_rules:periods={},inspections=2", "periods", [*range(2, 9), 12, 16, 20]),
]
#: Bytes HiGHS and the LP's CSC arrays hold per nonzero of the matrix-game LP (the table is
#: dense: one nonzero per cell), beside the reduced normal form's own estimate.
LP_BYTES_PER_NONZERO = 64
#: A call longer than this is not repeated.
LONG = 10.0


def matrix_game_lp(payoff: np.ndarray) -> LinearProgram:
    """Player 1's LP of the zero-sum matrix game ``payoff`` (plans of player 1 by plans of
    player 2): max v subject to payoff'x - v >= 0 and sum x = 1, x >= 0."""
    m1, m2 = payoff.shape
    # column j of the matrix: plan j's payoffs against each plan of player 2 (the table's
    # row j, zeros dropped), then its 1 in the simplex row; the last column is -v's
    plan, against = np.nonzero(payoff)  # row-major: each plan's entries together, in order
    per_column = np.r_[np.bincount(plan, minlength=m1) + 1, m2]
    indptr = np.r_[0, np.cumsum(per_column)]
    simplex_entries = indptr[1 : m1 + 1] - 1
    indices = np.empty(int(indptr[-1]), dtype=np.int64)
    data = np.empty(int(indptr[-1]))
    table_entries = np.ones(indptr[m1], dtype=bool)
    table_entries[simplex_entries] = False
    indices[: indptr[m1]][table_entries] = against
    data[: indptr[m1]][table_entries] = payoff[plan, against]
    indices[simplex_entries], data[simplex_entries] = m2, 1.0
    indices[indptr[m1] :], data[indptr[m1] :] = np.arange(m2), -1.0
    return LinearProgram(
        name="matrix game",
        c=np.r_[np.zeros(m1), 1.0],
        A=sp.csc_matrix((data, indices, indptr), shape=(m2 + 1, m1 + 1)),
        row_lower=np.r_[np.zeros(m2), 1.0],
        row_upper=np.r_[np.full(m2, np.inf), 1.0],
        col_lower=np.r_[np.zeros(m1), -np.inf],
        col_upper=np.full(m1 + 1, np.inf),
        maximize=True,
        col_blocks=[Block("x", 0, m1, "player 1's mix over plans"), Block("v", m1, m1 + 1, "the value")],
        row_blocks=[Block("best_response", 0, m2, "each plan of player 2"), Block("simplex", m2, m2 + 1)],
    )


def through_normal_form(game: equilibria.ExtensiveGame) -> tuple[float, float, float, ReducedNormalForm]:
    """The game solved through its reduced normal form: (value, exploitability in the
    tree, seconds to build the normal form and its LP, the normal form)."""
    t0 = time.perf_counter()
    reduced = reduced_normal_form(SequenceForm(game), memory=available_memory(), labels=False)
    lp = matrix_game_lp(reduced.game.payoffs[0])
    built = time.perf_counter() - t0
    solution = get_backend("highs").solve_lp(lp, duals=True)
    m1 = reduced.game.num_strategies[0]
    x = np.maximum(solution.x[:m1], 0.0)
    y = np.abs(solution.row_duals[: reduced.game.num_strategies[1]])
    certificate = reduced.certify([x / x.sum(), y / y.sum()])
    return float(certificate.payoffs[0]), certificate.exploitability, built, reduced


def through_sequence_form(game: equilibria.ExtensiveGame) -> tuple[float, float]:
    """The game solved by its sequence-form LP: (value, exploitability in the tree)."""
    run = solve_sequence_form(SequenceForm(game), "highs")
    return float(run.certificate.payoffs[0]), run.certificate.exploitability


def count(n: int) -> str:
    """An exact count, or its leading digits and exponent beyond 15 digits."""
    digits = str(n)
    return digits if len(digits) <= 15 else f"{digits[0]}.{digits[1:3]}e{len(digits) - 1}"


def repeated(call: Callable[[], T], repeat: int) -> tuple[list[float], T]:
    """``timed``, repeated only while one call is short."""
    seconds, result = timed(call, 1)
    if seconds[0] < LONG and repeat > 1:
        more, result = timed(call, repeat - 1)
        seconds += more
    return seconds, cast(T, result)


def normal_form_refusal(sf: SequenceForm, last: tuple[int, float] | None, cap: float) -> str:
    """Why the normal form is not solved at this size ('' when it is): it would not fit, or
    the last size's seconds, scaled by the cells, pass the cap."""
    size = reduced_size(sf)
    try:
        check_fits(sf, available_memory() - size.cells * LP_BYTES_PER_NONZERO)
    except NormalFormTooLarge:
        return f"would not fit: {size.describe()}"
    if last is not None and last[1] * size.cells / last[0] > cap:
        return f"over {cap:g} s by extrapolation: {size.describe()}"
    return ""


def measure(series: str, spec: str, value: int, repeat: int, state: dict, cap: float) -> dict:
    """One row: the game at this size, both ways (the normal form while it is allowed)."""
    game = equilibria.load(spec)
    sf = SequenceForm(game)
    size = reduced_size(sf)
    sf_seconds, (sf_value, sf_exploitability) = repeated(lambda: through_sequence_form(game), repeat)
    row = {
        "series": series,
        "game": spec,
        "size": value,
        "nodes": game.num_nodes,
        "sequences": "x".join(str(ps.num_sequences) for ps in sf.players),
        "plans": " x ".join(count(m) for m in size.plans),
        "cells": count(size.cells),
        "sf_min_s": round(min(sf_seconds), 4),
        "sf_median_s": round(statistics.median(sf_seconds), 4),
        "sf_value": sf_value,
        "sf_exploitability": sf_exploitability,
        "nf_build_s": float("nan"),
        "nf_min_s": float("nan"),
        "nf_median_s": float("nan"),
        "nf_value": float("nan"),
        "nf_exploitability": float("nan"),
        "note": state.get("stopped", ""),
    }
    if not row["note"]:
        row["note"] = normal_form_refusal(sf, state.get("last"), cap)
    if row["note"]:
        state["stopped"] = "normal form stopped at a smaller size"
        return row
    nf_seconds, (nf_value, nf_exploitability, built, _) = repeated(lambda: through_normal_form(game), repeat)
    if abs(nf_value - sf_value) > 1e-6:
        raise SystemExit(f"{spec}: the normal form's value {nf_value!r} is not the sequence form's {sf_value!r}")
    state["last"] = (size.cells, statistics.median(nf_seconds))
    row.update(
        nf_build_s=round(built, 4),
        nf_min_s=round(min(nf_seconds), 4),
        nf_median_s=round(statistics.median(nf_seconds), 4),
        nf_value=nf_value,
        nf_exploitability=nf_exploitability,
    )
    return row


def plot(rows: list[dict], path: Path) -> None:
    """One panel per series: median seconds of both ways against the size, log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["series"] for r in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
    for ax, name in zip(axes[0], names):
        mine = [r for r in rows if r["series"] == name]
        x = [r["size"] for r in mine]
        ax.plot(x, [r["sf_median_s"] for r in mine], "o-", label="sequence form (LP)")
        nf = [(r["size"], r["nf_median_s"]) for r in mine if not np.isnan(r["nf_median_s"])]
        ax.plot([a for a, _ in nf], [b for _, b in nf], "s-", label="reduced normal form (LP)")
        refused = [r["size"] for r in mine if np.isnan(r["nf_median_s"])]
        if refused:
            ax.axvline(refused[0], color="grey", linestyle=":", label="normal form not solved from here")
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("cards" if "poker" in name else "periods")
        ax.set_ylabel("seconds (median)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cap", type=float, default=20.0, help="seconds a normal-form solve may be expected to take")
    parser.add_argument("--out", default=str(HERE / "figure3.csv"))
    parser.add_argument("--plot", default=str(HERE.parent / "docs" / "img" / "figure3.png"))
    args = parser.parse_args()
    rows = []
    for series, template, _, values in SERIES:
        state: dict = {}
        for value in values:
            row = measure(series, template.format(value), value, args.repeat, state, args.cap)
            rows.append(row)
            print(
                f"{row['game']:45} plans {row['plans']:>24}  sequence form {row['sf_median_s']:8.4f} s  "
                f"normal form {row['nf_median_s']:8.4f} s  values {row['sf_value']:.9f} {row['nf_value']:.9f}  "
                f"{row['note']}",
                flush=True,
            )
    write_csv(rows, args.out)
    plot(rows, Path(args.plot))
    print(f"written to {args.plot}")


if __name__ == "__main__":
    main()
