"""Models found from the game (``--model auto``) on generated river endgames.

Over ``--count`` river endgames with realistic signal CDFs
(:func:`equilibria.instances.bayesian_games.river_cdf_pairs`, the instances of
``benchmarks/river_join.py``), per instance: whether :func:`equilibria.routes.threshold.route.discover_model`
answers with a certified equilibrium, its exploitability (exact best responses), the
programs it solved, the signals of the discretisation it read, the seconds of the whole
search, and how the found model relates to each shipped model (equal, refines, coarser,
neither). Also the three river endgames with the default CDFs at pots 1.5, 2 and 3, which
no shipped model (nor their join) answers.

Prints the counts, the median and 95th percentile seconds, and writes one CSV row per
instance.

With ``--three-players``: ``kuhn_continuous:players=3`` (no shipped model), the model read
from CFR+ on cells, repaired by its indifference equations and answered by its threshold
program near their solution: every step's regions and exact NashConv, and the payoffs, beside the
payoffs of ``generalized_kuhn:players=3,cards=N`` (CFR+ on the game itself, NashConv
certified) for growing N, whose equilibria approach the continuous game's.

    python benchmarks/model_discovery.py [--count 100] [--seed 0] [--out benchmarks/model_discovery.csv]
    python benchmarks/model_discovery.py --three-players [--out benchmarks/model_discovery_3p.csv]
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
    from equilibria.routes.threshold.route import discover_model

    ap = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--three-players", action="store_true")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the progress lines of every program
    if args.three_players:
        three_players(args.out or str(HERE / "model_discovery_3p.csv"))
        return
    args.out = args.out or str(HERE / "model_discovery.csv")

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


def three_players(out: str) -> None:
    from equilibria import load
    from equilibria.core.anytime import seed_profile
    from equilibria.models.best_response import certify
    from equilibria.models.sequence import SequenceForm
    from equilibria.models.strategy import behavior_from_realization
    from equilibria.routes.threshold.route import discover_model

    rows = []
    t = time.perf_counter()
    found = discover_model("kuhn_continuous:players=3")
    seconds = time.perf_counter() - t
    answer = found.answer
    for attempt in found.attempts:
        measured = f"exact NashConv {attempt['nash_conv']:.3e}" if "nash_conv" in attempt else attempt["outcome"]
        print(
            f"kuhn_continuous 3 players: CFR+ on {attempt['signals']} cells ({attempt['cfr_iterations']} iterations, "
            f"NashConv there {attempt['cfr_nash_conv']:.1e}), {attempt['change']}: "
            f"{'/'.join(map(str, attempt['regions']))} regions, {measured}",
            flush=True,
        )
    if answer is not None:
        print(f"  found in {seconds:.1f} s; payoffs {', '.join(f'{v:.5f}' for v in answer.payoffs)}")
        for p, values in enumerate(answer.thresholds):
            print(f"  player {p + 1}: {len(values)} thresholds, first {', '.join(f'{v:.4f}' for v in values[:6])}")
        rows.append(
            {
                "game": "kuhn_continuous:players=3 (auto)",
                "nash_conv": f"{answer.nash_conv:.3e}",
                "payoffs": " ".join(f"{v:.6f}" for v in answer.payoffs),
                "regions": "/".join(str(len(r)) for r in answer.model.regions),
                "seconds": f"{seconds:.2f}",
            }
        )
    for cards in (6, 12, 24, 48):
        spec = f"generalized_kuhn:players=3,cards={cards}"
        t = time.perf_counter()
        sf = SequenceForm(load(spec))
        seed = seed_profile(sf, target=1e-5, seconds=60.0)
        plans, nash_conv = seed.plans, seed.nash_conv
        payoffs = certify(sf, [behavior_from_realization(ps, r) for ps, r in zip(sf.players, plans)]).payoffs
        seconds = time.perf_counter() - t
        print(
            f"{spec}: {seed.how}, NashConv {nash_conv:.1e}, payoffs "
            f"{', '.join(f'{v:.5f}' for v in payoffs)} ({seconds:.1f} s)",
            flush=True,
        )
        rows.append(
            {
                "game": spec,
                "nash_conv": f"{nash_conv:.3e}",
                "payoffs": " ".join(f"{v:.6f}" for v in payoffs),
                "regions": "",
                "seconds": f"{seconds:.2f}",
            }
        )
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
