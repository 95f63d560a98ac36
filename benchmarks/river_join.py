"""Several qualitative models of the river endgame: how often each model, and their join,
describes an equilibrium, and how long the joined program takes on HiGHS and on SCIP.

Over ``--count`` river endgames with realistic signal CDFs
(:func:`equilibria.instances.bayesian_games.river_cdf_pairs`), per instance:

* every shipped river model alone: its own program (``single_*``) and its program inside
  the join, i.e. the joined program with that model only, over the refinement of all the
  shipped models (``joined_*``): ``equilibrium``, ``exploitable`` (feasible, but the
  certificate finds a gain) or ``infeasible``;
* the join of the paper's three models (``--models paper``) on each backend: the model that
  holds, its certified exploitability on the discretisation, whether its thresholds satisfy
  that model's own program (:func:`equilibria.routes.threshold.route.satisfies_model`), the wall
  seconds of the whole solve and of the solver alone;
* the join of every shipped model, and the same models as separate programs in worker
  processes over the same refinement (``first=False``: every model's outcome), and whether
  the two routes agree on which models hold.

Prints the counts and the median and 95th percentile seconds; writes one CSV row per
instance.

    python benchmarks/river_join.py [--count 100] [--seed 0] [--backends highs,scip]
        [--out benchmarks/river_join.csv] [--no-separate]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def outcome(call) -> tuple[str, object]:
    """(``equilibrium`` | ``exploitable`` | ``infeasible``, the answer or None)."""
    from equilibria.routes.threshold.route import ModelInfeasible

    try:
        answer = call()
    except ModelInfeasible:
        return "infeasible", None
    return ("equilibrium" if answer.is_equilibrium else "exploitable"), answer


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation; nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def main() -> None:
    from equilibria.instances.bayesian_games import MODEL_SETS, river_cdf_pairs, river_endgame, standard_models
    from equilibria.models.parametric import common_us_refinement
    from equilibria.routes.threshold.route import satisfies_model, solve_threshold, solve_threshold_separately

    ap = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backends", default="highs,scip")
    ap.add_argument("--out", default=str(HERE / "river_join.csv"))
    ap.add_argument("--no-separate", action="store_true", help="skip the separate-programs route")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]

    instances = river_cdf_pairs(args.count, seed=args.seed)
    shipped = standard_models(river_endgame())
    names = list(shipped)
    paper = MODEL_SETS["river"]["paper"]
    refinement = common_us_refinement(list(shipped.values()))
    rows = []
    for n, params in enumerate(instances):
        game = river_endgame(**params)
        row: dict = {"instance": n, **params}
        for name in names:
            row[f"single_{name}"] = outcome(lambda: solve_threshold(game, name))[0]  # noqa: B023
            row[f"joined_{name}"] = outcome(
                lambda: solve_threshold(game, models=[name], refinement=refinement)  # noqa: B023
            )[0]
        for backend in backends:
            t0 = time.perf_counter()
            result, answer = outcome(lambda: solve_threshold(game, models=paper, backend=backend))  # noqa: B023
            row[f"paper_{backend}_seconds"] = time.perf_counter() - t0
            row[f"paper_{backend}_holds"] = answer.model.name if answer is not None else result
            if answer is not None:
                row[f"paper_{backend}_solver_seconds"] = answer.seconds["solve"]
                row[f"paper_{backend}_exploitability"] = answer.exploitability
                row[f"paper_{backend}_conforms"] = satisfies_model(game, answer.model, answer.thresholds)
        result, answer = outcome(lambda: solve_threshold(game, join="one-program"))  # noqa: B023
        row["all_holds"] = answer.model.name if answer is not None else result
        if answer is not None:
            row["all_exploitability"] = answer.exploitability
        if not args.no_separate:
            t0 = time.perf_counter()
            # each model's program over the same refinement, in worker processes
            _, separate = solve_threshold_separately(game, names, first=False, refinement=refinement)
            row["separate_seconds"] = time.perf_counter() - t0
            for name in names:
                row[f"separate_{name}"] = separate[name]
            # the routes agree when the models that hold are the same in both
            holds_join = {m for m in names if row[f"joined_{m}"] == "equilibrium"}
            holds_separate = {m for m in names if separate[m] == "feasible"}
            row["routes_agree"] = holds_join == holds_separate
        rows.append(row)
        print(
            f"{n:3d} pot {params['pot']:4g}  "
            + " ".join(f"{m}:{row[f'single_{m}'][:3]}/{row[f'joined_{m}'][:3]}" for m in names)
            + "  paper: "
            + " ".join(f"{b} {row[f'paper_{b}_holds']} {row[f'paper_{b}_seconds']:.3f}s" for b in backends),
            flush=True,
        )

    fields: list[str] = []
    for row in rows:
        fields += [k for k in row if k not in fields]
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)

    count = len(rows)
    print(f"\n{count} river endgames (seed {args.seed}); models: {', '.join(names)}; paper set: {', '.join(paper)}")
    print("model                 alone: infeasible / exploitable / equilibrium    in the join's program")
    for name in names:
        alone = [sum(r[f"single_{name}"] == k for r in rows) for k in ("infeasible", "exploitable", "equilibrium")]
        joined = [sum(r[f"joined_{name}"] == k for r in rows) for k in ("infeasible", "exploitable", "equilibrium")]
        print(
            f"  {name:20s} {' / '.join(f'{v:4d}' for v in alone)}              {' / '.join(f'{v:4d}' for v in joined)}"
        )
    for backend in backends:
        held = [r for r in rows if r[f"paper_{backend}_holds"] not in ("infeasible", "exploitable")]
        seconds = [r[f"paper_{backend}_seconds"] for r in rows]
        solver = [r[f"paper_{backend}_solver_seconds"] for r in held]
        worst = max((r[f"paper_{backend}_exploitability"] for r in held), default=float("nan"))
        conform = sum(bool(r[f"paper_{backend}_conforms"]) for r in held)
        print(
            f"paper join on {backend}: infeasible {count - len(held)} of {count}; answers {len(held)}, largest "
            f"exploitability {worst:.2e}, conforming to the chosen model's own program {conform} of {len(held)}; "
            f"wall seconds median {statistics.median(seconds):.3f} p95 {percentile(seconds, 0.95):.3f}; "
            f"solver seconds median {statistics.median(solver) if solver else float('nan'):.3f} "
            f"p95 {percentile(solver, 0.95):.3f}"
        )
    all_infeasible = sum(r["all_holds"] == "infeasible" for r in rows)
    print(f"join of every shipped model: infeasible {all_infeasible} of {count}")
    if not args.no_separate:
        agree = sum(bool(r["routes_agree"]) for r in rows)
        sep = [r["separate_seconds"] for r in rows]
        print(
            f"separate programs: routes agree on the models that hold in {agree} of {count}; wall seconds "
            f"median {statistics.median(sep):.3f} p95 {percentile(sep, 0.95):.3f}"
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
