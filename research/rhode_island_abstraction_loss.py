"""What GameShrink's published rule loses in full Rhode Island hold'em.

    python -m research.rhode_island_abstraction_loss [--seconds 300] [--algorithm cfr+]
        [--rules published,lossless] [--out benchmarks/rhode_island_abstraction_loss.csv]

For each rule the game is shrunk (no LP built), solved by a first-order method for the
same wall time, and its average strategies are certified twice: in the shrunk game
(exact best responses there) and in the full game, by best responses over the betting
template and the cards (:func:`equilibria.models.ordered_best_response.ordered_certificate`;
the 6.7-billion-node tree is never built). The published rule (Gilpin and Sandholm,
"Lossless abstraction of imperfect information games", 2007, as they ran it) is not
lossless: an equilibrium of its shrunk game can be exploited in the full game by more than
its shrunk-game exploitability, and the difference is what the abstraction loses. The
lossless rule's two certificates agree.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Sequence
from pathlib import Path

from ._report import write_rows


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(game: str, rule: str, algorithm: str, seconds: float) -> dict:
    """Shrink ``game`` by ``rule``, run ``algorithm`` for ``seconds`` and certify its
    strategies in the shrunk and in the full game."""
    from equilibria.models.ordered_best_response import ordered_certificate
    from equilibria.routes.first_order import solve_first_order
    from equilibria.routes.shrink import shrink

    t0 = time.perf_counter()
    report = shrink(game, rule=rule, build_lp=False)
    sf = report.filtered.sequence_form
    built = time.perf_counter() - t0
    print(f"{rule}: shrunk game built in {built:.0f} s ({len(sf.terminal_chance):,} payoff entries)", flush=True)
    run = solve_first_order(sf, algorithm, time_limit=seconds)
    t1 = time.perf_counter()
    full = ordered_certificate(report.filtered, run.behaviors)
    full_seconds = time.perf_counter() - t1
    row = {
        "game": game,
        "rule": rule,
        "algorithm": algorithm,
        "iterations": run.curve[-1].iterations if run.curve else None,
        "solve_seconds": round(seconds, 1),
        "shrunk_game_exploitability": run.certificate.exploitability,
        "full_game_exploitability": full.exploitability,
        "full_game_payoff_player1": float(full.payoffs[0]),
        "full_game_value_low": float(-full.best_response_values[1]),
        "full_game_value_high": float(full.best_response_values[0]),
        "full_game_certify_seconds": round(full_seconds, 2),
        "peak_mb": round(_peak_mb()),
    }
    print(
        f"{rule}: {row['iterations']} iterations of {algorithm}; "
        f"exploitability {row['shrunk_game_exploitability']:.4e} "
        f"chips in the shrunk game, {row['full_game_exploitability']:.4e} in the full game "
        f"(certified in {full_seconds:.1f} s)",
        flush=True,
    )
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--game", default="rhode_island")
    parser.add_argument("--rules", default="published,lossless")
    parser.add_argument("--algorithm", default="cfr+")
    parser.add_argument("--seconds", type=float, default=300.0, help="first-order wall time per rule")
    parser.add_argument("--out", default="benchmarks/rhode_island_abstraction_loss.csv")
    args = parser.parse_args(argv)
    rows = [measure(args.game, rule, args.algorithm, args.seconds) for rule in args.rules.split(",")]
    write_rows(rows, Path(args.out))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
