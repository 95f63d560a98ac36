"""Generating game trees from rules files: nodes per second, beside the array generators
and OpenSpiel in the same run.

For each game, the whole path from a name to a validated ExtensiveGame is timed:
``load(name)`` for a shipped rules file (the interpreter runs the rules once per
terminal, then builds the arrays), for the project's vectorised array generator of the
same game, and, where it has the game, for OpenSpiel (its C++ game expanded state by
state into the same arrays, ``openspiel:NAME``). Gala measured that generating the game,
not solving it, dominated its running time; the goal here is at least 100,000 nodes per
second from rules.

Prints seconds (min and median over ``--repeat`` runs), nodes per second (from the min)
and each peer's time over the rules' time; writes every row to CSV.

    python benchmarks/rules_generation.py [--repeat 5] [--out benchmarks/rules_generation.csv]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
GAMES = [
    # (label, rules file, array generator, OpenSpiel game or None)
    ("Leduc hold'em", "leduc_rules", "leduc", "openspiel:leduc_poker"),
    ("G_100 (Kuhn, 100 cards)", "kuhn_rules:cards=100", "generalized_kuhn:cards=100", None),
    ("Liar's dice, 6 sides", "liars_dice_rules:sides=6", "liars_dice:sides=6", "openspiel:liars_dice(numdice=1)"),
]


def timed(spec: str) -> tuple[float, int]:
    from equilibria.instances import load

    t0 = time.perf_counter()
    game = load(spec)
    return time.perf_counter() - t0, game.num_nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--openspiel-repeat", type=int, default=2, help="runs of the (slow) OpenSpiel expansion")
    parser.add_argument("--out", default=str(HERE / "rules_generation.csv"))
    args = parser.parse_args()
    try:
        import pyspiel  # noqa: F401

        have_openspiel = True
    except ImportError:
        have_openspiel = False
    rows = []
    for label, rules, generator, openspiel in GAMES:
        timed(rules)  # warm up: imports and the rules file's module
        measured = {}
        for source, spec, repeat in (
            ("rules", rules, args.repeat),
            ("array generator", generator, args.repeat),
            ("OpenSpiel", openspiel, args.openspiel_repeat),
        ):
            if spec is None or (source == "OpenSpiel" and not have_openspiel):
                continue
            runs = [timed(spec) for _ in range(repeat)]
            seconds = [s for s, _ in runs]
            nodes = runs[0][1]
            measured[source] = min(seconds)
            rows.append(
                {
                    "game": label,
                    "source": source,
                    "spec": spec,
                    "nodes": nodes,
                    "seconds_min": round(min(seconds), 4),
                    "seconds_median": round(statistics.median(seconds), 4),
                    "nodes_per_second": round(nodes / min(seconds)),
                    "time_over_rules": None,
                }
            )
        for row in rows:
            if row["game"] == label and row["source"] != "rules":
                row["time_over_rules"] = round(row["seconds_min"] / measured["rules"], 3)
    width = max(len(r["game"]) for r in rows)
    print(
        f"{'game':<{width}}  {'source':<15} {'nodes':>9} {'min s':>8} {'median s':>9} {'nodes/s':>10} {'vs rules':>9}"
    )
    for r in rows:
        ratio = "" if r["time_over_rules"] is None else f"{r['time_over_rules']:.2f}x"
        print(
            f"{r['game']:<{width}}  {r['source']:<15} {r['nodes']:>9,} {r['seconds_min']:>8.3f} "
            f"{r['seconds_median']:>9.3f} {r['nodes_per_second']:>10,} {ratio:>9}"
        )
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
