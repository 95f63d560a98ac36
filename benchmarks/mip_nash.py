"""MIP Nash against game size, beside pygambit's enumeration and Lemke-Howson, in one run.

Games: random two-player normal-form games ``n x n`` (uniform and covariant with rho -0.5,
a few seeds per size), the paper's G_k, and random general-sum extensive-form games (the
test generator's trees). Per game and method, ``--repeat`` timed runs (min and median
wall seconds, whole call: program built, solved and certified for ours; the solver call
for pygambit's):

* ours: formulation 1 with ``any`` and ``welfare``, formulations 2, 3 and 4 (HiGHS);
* pygambit ``enummixed_solve`` (every extreme equilibrium; normal form only, up to
  ``--enum-max`` strategies) and ``lcp_solve`` (one equilibrium: ``stop_after=1`` on the
  strategic form for normal-form games, whose default follows every path it can reach;
  the sequence form for extensive-form games), floating point.

* OpenSpiel's ``mip_nash`` (formulation 1 with maximum social welfare, written with
  cvxpy and solved by cvxpy's HiGHS interface; normal form only), when ``open_spiel`` and
  ``cvxpy`` are importable.

Each row also has the sum of our regrets (exact) and, for welfare, the gap to the best
welfare enumeration finds. Prints a table of median seconds and the ratios to pygambit's
methods; writes every row to CSV.

    python benchmarks/mip_nash.py [--sizes 4,8,12,16] [--seeds 3] [--repeat 3]
        [--ks 2,3,4,5,6] [--trees 10] [--enum-max 12] [--out benchmarks/mip_nash.csv]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the tests' random tree generator


def timed(call, repeat: int) -> tuple[list[float], object]:
    seconds, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - t0)
    return seconds, result


def main() -> None:
    import pygambit as gbt

    from equilibria.instances.normal_form_games import mipnash_test, random_normal
    from equilibria.routes.nash.route import solve_nash
    from tests.random_games import random_game

    ap = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    ap.add_argument("--sizes", default="4,8,12,16")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ks", default="2,3,4,5,6")
    ap.add_argument("--trees", type=int, default=10)
    ap.add_argument(
        "--enum-max", type=int, default=12, help="largest strategy count given to enummixed (it grows exponentially)"
    )
    ap.add_argument("--out", default=str(HERE / "mip_nash.csv"))
    args = ap.parse_args()

    ours = {
        "F1 any": dict(formulation=1),
        "F1 welfare": dict(formulation=1, objective="welfare"),
        "F2": dict(formulation=2),
        "F3": dict(formulation=3),
        "F4": dict(formulation=4),
    }
    games = []
    for n in (int(v) for v in args.sizes.split(",")):
        for seed in range(args.seeds):
            games.append(("uniform", f"{n}x{n}", random_normal(n, n, seed=seed)))
            games.append(("covariant", f"{n}x{n}", random_normal(n, n, "covariant", rho=-0.5, seed=seed)))
    for k in (int(v) for v in args.ks.split(",")):
        g = mipnash_test(k)
        games.append(("G_k", f"{g.num_strategies[0]}x{g.num_strategies[1]}", g))
    for seed in range(args.trees):
        tree = random_game(seed, general_sum=True)
        games.append(("random tree", f"{tree.num_nodes} nodes", tree))

    try:
        import cvxpy  # noqa: F401
        import pyspiel
        from open_spiel.python.algorithms.mip_nash import mip_nash as openspiel_mip_nash
    except ImportError:
        openspiel_mip_nash = None
        print("OpenSpiel's mip_nash not run: it needs open_spiel and cvxpy")

    rows = []
    for family, size, game in games:
        normal = hasattr(game, "payoffs")
        if normal:
            theirs = (
                gbt.StrategicGame.from_arrays(*game.payoffs)
                if hasattr(gbt, "StrategicGame")
                else gbt.Game.from_arrays(*game.payoffs)
            )
        else:
            from equilibria.interop.gambit import to_pygambit

            theirs = to_pygambit(game)
        best_welfare = None
        if normal and max(game.num_strategies) <= args.enum_max:
            seconds, result = timed(lambda g=theirs: gbt.nash.enummixed_solve(g, rational=False), args.repeat)
            pays = [
                sum(float(v) for _label, v in eq.payoffs)
                if not hasattr(eq, "payoff")
                else sum(float(eq.payoff(p)) for p in eq.game.players)
                for eq in result.equilibria  # type: ignore[attr-defined]
            ]
            best_welfare = max(pays)
            rows.append(dict(family=family, size=size, method="gambit enummixed", seconds=seconds))
        use_strategic = normal
        seconds, _ = timed(
            lambda g=theirs, s=use_strategic: gbt.nash.lcp_solve(
                g, rational=False, use_strategic=s, stop_after=1 if s else None
            ),
            args.repeat,
        )
        rows.append(dict(family=family, size=size, method="gambit lcp", seconds=seconds))
        if normal and openspiel_mip_nash is not None:
            matrix = pyspiel.create_matrix_game(game.payoffs[0].tolist(), game.payoffs[1].tolist())
            seconds, profile = timed(
                lambda m=matrix: openspiel_mip_nash(m, "MAX_SOCIAL_WELFARE", solver="HIGHS"), args.repeat
            )
            row = dict(family=family, size=size, method="openspiel mip_nash", seconds=seconds)
            x, y = (np.asarray(v, dtype=float) for v in profile)  # type: ignore[misc]
            row["regret_sum"] = float(sum(game.regrets([x, y])))
            if best_welfare is not None:
                row["welfare_gap"] = best_welfare - float(x @ (game.payoffs[0] + game.payoffs[1]) @ y)
            rows.append(row)
        for name, options in ours.items():
            seconds, answer = timed(lambda g=game, o=options: solve_nash(g, **o), args.repeat)
            row = dict(family=family, size=size, method=f"ours {name}", seconds=seconds)
            row["regret_sum"] = sum(answer.regrets)  # type: ignore[attr-defined]
            if name == "F1 welfare" and best_welfare is not None:
                row["welfare_gap"] = best_welfare - sum(answer.payoffs)  # type: ignore[attr-defined]
            rows.append(row)
        print(f"{family:>12} {size:>10} done", flush=True)

    fields = ["family", "size", "method", "min_seconds", "median_seconds", "regret_sum", "welfare_gap"]
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for r in rows:
            writer.writerow(
                {
                    "family": r["family"],
                    "size": r["size"],
                    "method": r["method"],
                    "min_seconds": f"{min(r['seconds']):.6f}",
                    "median_seconds": f"{statistics.median(r['seconds']):.6f}",
                    "regret_sum": f"{r['regret_sum']:.3e}" if "regret_sum" in r else "",
                    "welfare_gap": f"{r['welfare_gap']:.3e}" if "welfare_gap" in r else "",
                }
            )
    # table: median seconds per (family, size) and method, medians over seeds
    methods = ["gambit enummixed", "gambit lcp", "openspiel mip_nash"] + [f"ours {n}" for n in ours]
    keys = list(dict.fromkeys((r["family"], r["size"]) for r in rows))
    print(f"\n{'family':>12} {'size':>10} " + " ".join(f"{m.replace('ours ', ''):>12}" for m in methods))
    for key in keys:
        cells = []
        for m in methods:
            values = [
                statistics.median(r["seconds"]) for r in rows if (r["family"], r["size"]) == key and r["method"] == m
            ]
            cells.append(f"{statistics.median(values):12.4f}" if values else f"{'-':>12}")
        print(f"{key[0]:>12} {key[1]:>10} " + " ".join(cells))
    for who, prefix in (("our answers", "ours"), ("OpenSpiel's mip_nash", "openspiel")):
        mine = [r for r in rows if r["method"].startswith(prefix)]
        if not mine:
            continue
        worst = max((r.get("regret_sum", 0.0) for r in mine), default=0.0)
        gaps = [abs(r["welfare_gap"]) for r in mine if "welfare_gap" in r]
        print(
            f"largest sum of regrets of {who} {worst:.3e}; "
            f"largest welfare gap to enumeration {max(gaps, default=0.0):.3e}"
        )
    for ours_name, peer in (
        ("ours F1 any", "gambit lcp"),
        ("ours F1 welfare", "gambit enummixed"),
        ("ours F1 welfare", "openspiel mip_nash"),
    ):
        ratios = []
        for key in keys:
            a = [
                statistics.median(r["seconds"])
                for r in rows
                if (r["family"], r["size"]) == key and r["method"] == ours_name
            ]
            b = [
                statistics.median(r["seconds"]) for r in rows if (r["family"], r["size"]) == key and r["method"] == peer
            ]
            if a and b:
                ratios.append(statistics.median(a) / statistics.median(b))
        if not ratios:
            continue
        print(
            f"{ours_name} / {peer}: median ratio {statistics.median(ratios):.2f} "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f})"
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
