"""Models found from the game (``--model auto``) on generated river endgames.

Over ``--count`` river endgames with realistic signal CDFs
(:func:`equilibria.instances.bayesian_games.river_cdf_pairs`, the instances of
``benchmarks/river_join.py``), per instance: whether :func:`equilibria.qualitative.discover_model`
answers with a certified equilibrium, its exploitability (exact best responses), the
programs it solved, the signals of the discretisation it read, the seconds of the whole
search, and how the found model relates to each shipped model (equal, refines, coarser,
neither). Also the three river endgames with the default CDFs at pots 1.5, 2 and 3, which
no shipped model (nor their join) answers.

Prints the counts, the median and 95th percentile seconds, and writes one CSV row per
instance.

    python benchmarks/model_discovery.py [--count 100] [--seed 0] [--out benchmarks/model_discovery.csv]
"""

from __future__ import annotations

import argparse
import csv
import logging
import statistics
import time
from pathlib import Path

from river_join import percentile  # run as a script: this folder is on the path

HERE = Path(__file__).resolve().parent


def main() -> None:
    from equilibria.instances.bayesian_games import river_cdf_pairs, river_endgame
    from equilibria.qualitative import discover_model

    ap = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "model_discovery.csv"))
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the progress lines of every program

    cases = [(f"pot={pot:g} (default CDFs)", river_endgame(pot=pot)) for pot in (1.5, 2.0, 3.0)]
    cases += [
        (f"generated {n}", river_endgame(**params)) for n, params in enumerate(river_cdf_pairs(args.count, args.seed))
    ]
    rows = []
    for name, game in cases:
        t = time.perf_counter()
        found = discover_model(game)
        seconds = time.perf_counter() - t
        answer = found.answer
        last = found.attempts[-1] if found.attempts else {}
        rows.append(
            {
                "instance": name,
                "answered": answer is not None,
                "exploitability": "" if answer is None else f"{answer.exploitability:.3e}",
                "programs": len(found.attempts),
                "signals_read": last.get("signals", ""),
                "regions": "" if found.model is None else "/".join(str(len(r)) for r in found.model.regions),
                "equals": ",".join(k for k, v in found.relation.items() if v == "equal"),
                "refines": ",".join(k for k, v in found.relation.items() if v == "refines"),
                "seconds": f"{seconds:.3f}",
            }
        )
        r = rows[-1]
        print(
            f"{name:28s} {'answered' if r['answered'] else 'NOT answered':12s} {r['exploitability']:>10s} "
            f"{r['programs']:2d} programs {seconds:6.2f} s  equals [{r['equals']}] refines [{r['refines']}]",
            flush=True,
        )
    generated = [r for r in rows if r["instance"].startswith("generated")]
    times = [float(r["seconds"]) for r in generated]
    answered = sum(r["answered"] for r in generated)
    print(
        f"\ngenerated river endgames: {answered} of {len(generated)} answered; seconds median "
        f"{statistics.median(times):.2f}, 95th percentile {percentile(times, 0.95):.2f}, max {max(times):.2f}; "
        f"found model equal to a shipped one: {sum(bool(r['equals']) for r in generated)}, "
        f"a US-refinement of one: {sum(bool(r['refines']) for r in generated)}"
    )
    with open(args.out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
