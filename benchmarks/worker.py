"""Run one tool on one game and print one JSON line of timings (seconds) and peak memory.

    python benchmarks/worker.py equilibria leduc:ranks=8 [--method ipm]
    python benchmarks/worker.py equilibria_shrink leduc:ranks=8
    python benchmarks/worker.py equilibria_warm leduc:ranks=8 [--repeat 5]
    python benchmarks/worker.py openspiel leduc:ranks=8
    python benchmarks/worker.py gambit path/to/game.efg

Every tool runs the same pipeline: build the game, build the LP, solve, certify the
returned strategies with the tool's own exact best response. Run by ``run.py`` in a fresh
process per game and tool.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_equilibria(spec: str, method: str | None) -> dict:
    import equilibria
    from equilibria.models.sequence import SequenceForm
    from equilibria.routes.lp import solve_sequence_form

    t0 = time.perf_counter()
    game = equilibria.load(spec)
    t1 = time.perf_counter()
    sf = SequenceForm(game)
    times = {"sequence_form": time.perf_counter() - t1}
    run = solve_sequence_form(sf, "highs", method=method, times=times)
    sol = run.solutions[0]
    return {
        "nodes": game.num_nodes,
        "value": sol.objective,
        "exploitability": run.certificate.exploitability,
        "status": str(sol.status),
        "seconds_game": t1 - t0,
        # the backend's own array preparation belongs to building the LP
        "seconds_lp_build": times["sequence_form"] + times["lp_build"] + times["build"],
        "seconds_transfer": times["transfer"],
        "seconds_solve": times["solve"],
        "seconds_certify": times["certify"],
        "rows": run.lp.num_rows,
        "columns": run.lp.num_cols,
        "nonzeros": run.lp.nnz,
        "method": sol.method,
        "game_bytes": game.nbytes(),
    }


def run_equilibria_shrink(spec: str, method: str | None) -> dict:
    """GameShrink's lossless shrunk LP, solved, its strategy lifted to the full game and
    certified there by exact best responses (building the full tree counts as certifying)."""
    from equilibria.instances import load_ordered
    from equilibria.routes.shrink import solve_shrunk

    t0 = time.perf_counter()
    game = load_ordered(spec)
    t1 = time.perf_counter()
    ans = solve_shrunk(game, method=method, lift=True)
    s = ans.seconds
    build = ("signal_tree", "game_shrink", "sequence_form", "lp_build", "build")
    return {
        "nodes": ans.original_nodes,
        "value": ans.value,
        "exploitability": ans.exploitability,
        "status": str(ans.status),
        "seconds_game": t1 - t0,
        "seconds_lp_build": sum(s.get(k, 0.0) for k in build),
        "seconds_transfer": s["transfer"],
        "seconds_solve": s["solve"],
        "seconds_certify": s["certify"] + s["original_game"] + s["lift_and_certify"],
        "rows": ans.rows,
        "columns": ans.columns,
        "nonzeros": ans.nonzeros,
        "method": ans.method,
    }


def openspiel_game(spec: str):
    import pyspiel

    name, _, params = spec.partition(":")
    kv = dict(item.split("=") for item in params.split(",") if item)
    if name == "kuhn":
        return pyspiel.load_game("kuhn_poker")
    if name == "leduc":
        ranks, suits = int(kv.get("ranks", 3)), int(kv.get("suits", 2))
        if (ranks, suits) == (3, 2):
            return pyspiel.load_game("leduc_poker")
        return pyspiel.load_game(
            "universal_poker",
            {
                "betting": "limit",
                "numPlayers": 2,
                "numRounds": 2,
                "blind": "1 1",
                "raiseSize": "2 4",
                "firstPlayer": "1 1",
                "maxRaises": "2 2",
                "numSuits": suits,
                "numRanks": ranks,
                "numHoleCards": 1,
                "numBoardCards": "0 1",
            },
        )
    if name == "liars_dice":
        return pyspiel.load_game(
            "liars_dice", {"numdice": int(kv.get("dice", 1)), "dice_sides": int(kv.get("sides", 6))}
        )
    raise KeyError(f"OpenSpiel has no game for {spec}")


def run_openspiel(spec: str) -> dict:
    import numpy as np
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability, sequence_form_lp

    t0 = time.perf_counter()
    game = openspiel_game(spec)
    t1 = time.perf_counter()
    v0, _v1, pol0, pol1 = sequence_form_lp.solve_zero_sum_game(game)
    t2 = time.perf_counter()
    # each returned policy fills its own player's rows; probabilities at rarely reached
    # information sets can leave [0, 1], so clip and renormalise before certifying
    merged = os_policy.TabularPolicy(game)
    for player, pol in ((0, pol0), (1, pol1)):
        rows = [merged.state_lookup[key] for key in merged.states_per_player[player]]
        merged.action_probability_array[rows] = pol.action_probability_array[rows]
    probs = np.clip(merged.action_probability_array, 0.0, None) * merged.legal_actions_mask
    sums = probs.sum(axis=1, keepdims=True)
    uniform = merged.legal_actions_mask / merged.legal_actions_mask.sum(axis=1, keepdims=True)
    merged.action_probability_array = np.where(sums > 0, probs / np.where(sums > 0, sums, 1), uniform)
    expl = exploitability.exploitability(game, merged)
    t3 = time.perf_counter()
    return {
        "value": float(v0),
        "exploitability": float(expl),
        "status": "optimal",
        "seconds_game": t1 - t0,
        "seconds_solve": t2 - t1,  # OpenSpiel builds and solves its LPs in one call
        "seconds_certify": t3 - t2,
    }


def run_equilibria_warm(spec: str, repeat: int) -> dict:
    """``equilibria.solve(spec, "auto")`` (what ``equilibria solve`` runs without flags)
    called ``repeat`` times after one warm-up call in this process: the in-process time,
    imports and Python's start-up excluded."""
    import statistics

    import equilibria

    equilibria.solve(spec, "auto")
    seconds = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        answer = equilibria.solve(spec, "auto")
        seconds.append(time.perf_counter() - t0)
    return {
        "min_s": min(seconds),
        "median_s": statistics.median(seconds),
        "exploitability": answer.exploitability,
        "rows": answer.rows,
        "nonzeros": answer.nonzeros,
        "plan": answer.plan,
    }


def run_gambit(path: str) -> dict:
    import pygambit as gbt

    t0 = time.perf_counter()
    game = gbt.read_efg(path)
    t1 = time.perf_counter()
    result = gbt.nash.lp_solve(game, rational=False)
    # pygambit 16.7 lists equilibria; 17.0 returns one
    eq = result.equilibria[0] if hasattr(result, "equilibria") else result.equilibrium
    t2 = time.perf_counter()
    # max_regret() builds the strategic form and exhausts memory from G_50 on; the agent
    # form's regret (one information set deviating at a time) is Gambit's affordable check
    regret = float(eq.agent_max_regret())
    t3 = time.perf_counter()
    value = eq.payoff(list(game.players)[0]) if hasattr(eq, "payoff") else list(eq.payoffs)[0][1]
    return {
        "value": float(value),
        "exploitability": regret,
        "status": "optimal",
        "seconds_game": t1 - t0,
        "seconds_solve": t2 - t1,  # pygambit builds and solves its LP in one call
        "seconds_certify": t3 - t2,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("tool", choices=("equilibria", "equilibria_shrink", "equilibria_warm", "openspiel", "gambit"))
    parser.add_argument("game")
    parser.add_argument("--method", default=None)
    parser.add_argument("--repeat", type=int, default=5, help="equilibria_warm: timed calls after the warm-up")
    args = parser.parse_args()
    if args.tool == "equilibria_warm":
        out = run_equilibria_warm(args.game, args.repeat)
    elif args.tool == "equilibria":
        out = run_equilibria(args.game, args.method)
    elif args.tool == "equilibria_shrink":
        out = run_equilibria_shrink(args.game, args.method)
    elif args.tool == "openspiel":
        out = run_openspiel(args.game)
    else:
        out = run_gambit(args.game)
    out["peak_mb"] = peak_mb()
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
