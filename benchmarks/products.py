"""Sizes and solve times of the product representations on a product-heavy program.

The program: maximise ``x0*x1 + x1*x2 + ... + x4*x5`` over six variables on the simplex
(``sum x = 1``, ``x >= 0``); its optimum is 1/4 (two neighbours at 1/2). Every product is
built by ``equilibria.formulations.products.add_product`` with each representation and
``k`` breakpoints per square, then solved by each backend that can take it (``sos2`` needs
SCIP or Gurobi, ``exact`` a backend with ``bilinear``). Each cell is solved ``--runs`` times;
the minimum and median wall seconds of ``solve_model`` (compile, transfer and solve) are
reported with the model's rows, columns, binaries and SOS2 sets.

    python benchmarks/products.py [--ks 5,9,17] [--backends highs,scip] [--runs 3]
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import statistics
import time
from pathlib import Path

import pyomo.environ as pyo

from equilibria.formulations.products import REPRESENTATIONS, add_product, model_size, product_error
from equilibria.models.errors import EquilibriaError
from equilibria.solvers import available_backends, get_backend, solve_model

HERE = Path(__file__).resolve().parent
KS = (5, 9, 17, 33, 65, 129)
BACKENDS = ("highs", "scip", "gurobi")
FIELDS = [
    "representation",
    "backend",
    "k",
    "rows",
    "columns",
    "binaries",
    "sos2",
    "status",
    "objective",
    "error_bound",
    "min_seconds",
    "median_seconds",
]
N = 6


def chain_program(representation: str, k: int) -> pyo.ConcreteModel:
    """The benchmark program with ``N - 1`` products; its true optimum is 1/4."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(N), bounds=(0, 1))
    m.simplex = pyo.Constraint(expr=sum(m.x[i] for i in range(N)) == 1)
    z = [
        add_product(m, m.x[i], m.x[i + 1], name=f"p{i}", breakpoints=k, representation=representation)
        for i in range(N - 1)
    ]
    m.obj = pyo.Objective(expr=sum(z), sense=pyo.maximize)
    return m


def can_take(backend: str, representation: str) -> bool:
    caps = get_backend(backend).capabilities
    if representation == "sos2":
        return caps.sos2
    if representation == "exact":
        return caps.bilinear
    return caps.milp


def run_cell(representation: str, backend: str, k: int, runs: int, time_limit: float) -> dict:
    m = chain_program(representation, k)
    size = model_size(m)
    row = {"representation": representation, "backend": backend, "k": k if representation != "exact" else ""}
    row.update(size)
    row["error_bound"] = 0.0 if representation == "exact" else (N - 1) * product_error(k)
    if not get_backend(backend).fits(size["rows"], size["columns"]):
        row.update(status="beyond license", objective="", min_seconds="", median_seconds="")
        return row
    seconds, sol = [], None
    for _ in range(runs):
        m = chain_program(representation, k)
        t0 = time.perf_counter()
        try:
            sol = solve_model(m, backend, time_limit=time_limit)
        except EquilibriaError as exc:
            row.update(status=f"refused: {exc}"[:80], objective="", min_seconds="", median_seconds="")
            return row
        seconds.append(time.perf_counter() - t0)
    assert sol is not None
    row.update(
        status=str(sol.status),
        objective="" if sol.objective is None else f"{sol.objective:.6f}",
        min_seconds=f"{min(seconds):.4f}",
        median_seconds=f"{statistics.median(seconds):.4f}",
    )
    return row


def run_isolated(representation: str, backend: str, k: int, runs: int, time_limit: float) -> dict:
    """:func:`run_cell` in a process of its own, so that a solver interface that stops
    responding (seen with Pyomo's scip_direct on SOS2 at k = 129) costs one row, not the run."""
    wall = runs * (time_limit + 30.0) + 30.0
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        job = pool.apply_async(run_cell, (representation, backend, k, runs, time_limit))
        try:
            return job.get(timeout=wall)
        except multiprocessing.TimeoutError:
            pool.terminate()
            row = {f: "" for f in FIELDS}
            row.update(representation=representation, backend=backend, k=k, status=f"no answer within {wall:.0f} s")
            return row


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--ks", default=",".join(map(str, KS)), help="breakpoints per square, comma separated")
    parser.add_argument("--backends", default=",".join(BACKENDS), help="backends to try (absent ones skipped)")
    parser.add_argument("--representations", default=",".join(REPRESENTATIONS))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--out", default=str(HERE / "products.csv"))
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",") if k]
    have = set(available_backends())
    backends = [b for b in args.backends.split(",") if b in have]
    rows = []
    print(" ".join(f"{f:>14}" for f in FIELDS))
    for representation in args.representations.split(","):
        for backend in backends:
            if not can_take(backend, representation):
                continue
            for k in ks if representation != "exact" else ks[:1]:
                row = run_isolated(representation, backend, k, args.runs, args.time_limit)
                rows.append(row)
                print(" ".join(f"{str(row[f])[:14]:>14}" for f in FIELDS), flush=True)
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
