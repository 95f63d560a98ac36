"""The seed of the rounds with three or more players: CFR+ alone against CFR+ followed by the
Liapunov descent and Newton's method on the support (``equilibria.core.anytime.seed_profile``),
with OpenSpiel's CFR+ in the same run on the games it has.

Per game and repeat, each method gets the same seconds (``--seconds``) and aims at NashConv
1e-12; the table gives the certified NashConv each reached (exact best responses; OpenSpiel's
own ``nash_conv`` for its solver) and the seconds it took, min and median over ``--repeat``,
and how the seed got there.

    python benchmarks/multiplayer_seed.py [--seconds 30] [--repeat 3] [--out benchmarks/multiplayer_seed.csv]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

GAMES = {
    "kuhn:players=3": "kuhn_poker(players=3)",
    "kuhn:players=4": "kuhn_poker(players=4)",
    "generalized_kuhn:players=3,cards=6": None,
    "generalized_kuhn:players=3,cards=8": None,
    "generalized_kuhn:players=3,cards=10": None,
}


def cfr_alone(sf, seconds: float) -> float:
    """CFR+ for ``seconds``: the lowest certified NashConv of its average."""
    from equilibria.models.best_response import certify
    from equilibria.solvers.first_order import MultiplayerCFR

    cfr = MultiplayerCFR(
        sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs, [ps.treeplex for ps in sf.players]
    )
    stop, best, batch = time.perf_counter() + seconds, float("inf"), 10
    while time.perf_counter() < stop:
        cfr.iterate(batch)
        best = min(best, float(certify(sf, cfr.average_behaviors()).nash_conv))
        batch = min(2 * batch, 1000)
    return best


def openspiel_cfr_plus(name: str, seconds: float) -> float | None:
    """OpenSpiel's CFR+ on its own game for ``seconds``: its ``nash_conv`` at the end."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import cfr, exploitability
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    solver = cfr.CFRPlusSolver(game)
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        solver.evaluate_and_update_policy()
    return float(exploitability.nash_conv(game, solver.average_policy()))


def main() -> None:
    from equilibria.core.anytime import seed_profile
    from equilibria.instances.registry import load
    from equilibria.models.sequence import SequenceForm

    ap = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated game specs")
    ap.add_argument("--out", default=str(HERE / "multiplayer_seed.csv"))
    args = ap.parse_args()
    rows = []
    for spec in _split(args.games):
        sf = SequenceForm(load(spec))
        seeds, times, hows = [], [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            seed = seed_profile(sf, target=1e-12, seconds=args.seconds)
            times.append(time.perf_counter() - t)
            seeds.append(seed.nash_conv)
            hows.append(seed.how)
        alone = cfr_alone(sf, args.seconds)
        peer = openspiel_cfr_plus(GAMES[spec], args.seconds) if GAMES.get(spec) else None
        row = {
            "game": spec,
            "seconds_given": args.seconds,
            "cfr_plus_alone": f"{alone:.2e}",
            "openspiel_cfr_plus": "" if peer is None else f"{peer:.2e}",
            "seed_min": f"{min(seeds):.2e}",
            "seed_median": f"{statistics.median(seeds):.2e}",
            "seconds_min": f"{min(times):.1f}",
            "seconds_median": f"{statistics.median(times):.1f}",
            "how": hows[times.index(min(times))],
        }
        print(" | ".join(f"{k} {v}" for k, v in row.items()), flush=True)
        rows.append(row)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")


def _split(games: str) -> list[str]:
    """Game specs separated by commas, where a spec's own options also hold commas: a new
    spec starts at each name (a part with ':' in it, or one without '=')."""
    out: list[str] = []
    for part in games.split(","):
        if out and "=" in part and ":" not in part:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


if __name__ == "__main__":
    main()
