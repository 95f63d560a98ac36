"""First-order solvers: time to a certified exploitability, beside OpenSpiel's C++ CFR+ and
LiteEFG's PCFR+ in the same run.

For each game and target, each of the project's algorithms (``cfr+``, ``pcfr+``, ``dcfr``,
``mirror-prox``) iterates until the exploitability of its average strategy is at most the
target; so do OpenSpiel's ``CFRPlusSolver`` and, when the LiteEFG package is installed
(``pip install --no-deps LiteEFG``, as ``make bench`` does), LiteEFG's PCFR+ (Liu, Farina
and Ozdaglar's C++ library, the same predictive CFR+ as ours, linearly averaged). Peers are
checked after the same growing iteration counts (x1.25); only iteration time is counted
(the game is built, and the exploitability measured, outside the clock), so the figures
compare the solvers, not their set-up.

The targets per game are those of the question asked of predictive CFR+ (Leduc to 1e-4,
Liar's dice to 1e-3) and a tighter one (1e-6), where the prediction pays on Leduc.

Prints per solver the iterations and seconds to the target (min and median over
``--repeat`` runs; the slow solvers, the peers and mirror-prox, run ``--slow-repeat`` times)
and the peers' seconds over ours; writes every run to CSV. A run is capped at
``--max-seconds`` of iteration time; a solver stopped there is reported with the
exploitability it reached.

    python benchmarks/first_order.py [--repeat 3] [--out benchmarks/first_order.csv]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
GAMES = [
    # (label, our spec, OpenSpiel game, targets)
    ("Leduc hold'em", "leduc", "leduc_poker", (1e-4, 1e-6)),
    ("Liar's dice, 6 sides", "liars_dice:sides=6", "liars_dice(numdice=1,dice_sides=6)", (1e-3, 1e-6)),
]
GROWTH = 1.25
MAX_SECONDS = 600.0  # per run; a solver that needs more is reported with what it reached


def ours(spec: str, algorithm: str, target: float) -> tuple[int, float, float]:
    """Iterations and iteration seconds to ``target``, and the exploitability reached."""
    from equilibria.instances import load
    from equilibria.models.sequence import SequenceForm
    from equilibria.routes.first_order import solve_first_order

    sf = SequenceForm(load(spec))
    run = solve_first_order(sf, algorithm, target_exploitability=target, time_limit=MAX_SECONDS)
    hit = next((c for c in run.curve if c.exploitability <= target), run.curve[-1])
    return hit.iterations, hit.seconds, hit.exploitability


def on_schedule(step, exploitability, target: float) -> tuple[int, float, float]:
    """Iterations and iteration seconds of a peer to ``target``, and the exploitability
    reached: ``step()`` runs one iteration, ``exploitability()`` measures the average
    after the iteration counts growing by :data:`GROWTH` that ours are checked after."""
    done, seconds, check = 0, 0.0, 1
    while True:
        t0 = time.perf_counter()
        while done < check:
            step()
            done += 1
        seconds += time.perf_counter() - t0
        expl = exploitability()
        if expl <= target or seconds >= MAX_SECONDS:
            return done, seconds, expl
        check = max(done + 1, int(done * GROWTH))


def openspiel_cfr_plus(name: str, target: float) -> tuple[int, float, float]:
    """The same for OpenSpiel's C++ CFR+ (``CFRPlusSolver``)."""
    import pyspiel

    game = pyspiel.load_game(name)
    solver = pyspiel.CFRPlusSolver(game)
    return on_schedule(
        solver.evaluate_and_update_policy, lambda: pyspiel.exploitability(game, solver.average_policy()), target
    )


def liteefg_pcfr_plus(name: str, target: float) -> tuple[int, float, float]:
    """The same for LiteEFG's PCFR+, whose average is linear over the strategies after each
    update; its announcements on standard output are dropped."""
    import contextlib
    import io
    import os
    import tempfile

    import LiteEFG as leg
    import pyspiel
    from LiteEFG.baselines import PCFR

    def step() -> None:
        graph.update_graph(env)
        env.update_strategy(graph.current_strategy(), update_best=False)

    def exploitability() -> float:
        return sum(env.exploitability(graph.current_strategy(), "linear-avg-iterate")) / 2

    with contextlib.redirect_stdout(io.StringIO()):
        home = os.environ.get("HOME")
        with tempfile.TemporaryDirectory() as scratch:
            os.environ["HOME"] = scratch  # LiteEFG writes its copy of the game under ~/game_instances
            try:
                graph = PCFR.graph()
                env = leg.OpenSpielEnv(pyspiel.load_game(name), traverse_type="Enumerate", regenerate=False)
                env.set_graph(graph)
            finally:
                if home is None:
                    del os.environ["HOME"]
                else:
                    os.environ["HOME"] = home
        return on_schedule(step, exploitability, target)


def have_liteefg() -> bool:
    try:
        import LiteEFG  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=",".join(spec for _, spec, _, _ in GAMES), help="a subset of the games")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slow-repeat", type=int, default=1, help="runs of the slow solvers (the peers, mirror-prox)")
    parser.add_argument("--algorithms", default="cfr+,pcfr+,dcfr,mirror-prox")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="iteration seconds per run at most")
    parser.add_argument("--out", default=str(HERE / "first_order.csv"))
    args = parser.parse_args()
    global MAX_SECONDS
    MAX_SECONDS = args.max_seconds
    rows = []
    liteefg = have_liteefg()
    if not liteefg:
        print("LiteEFG is not installed: its PCFR+ is left out (pip install --no-deps LiteEFG)")
    for label, spec, openspiel, targets in GAMES:
        if spec not in args.games.split(","):
            continue
        for target in targets:
            runs = {
                f"equilibria {a}": (lambda a=a, spec=spec, target=target: ours(spec, a, target))
                for a in args.algorithms.split(",")
            }
            runs["OpenSpiel C++ CFR+"] = lambda name=openspiel, target=target: openspiel_cfr_plus(name, target)
            if liteefg:
                runs["LiteEFG PCFR+"] = lambda name=openspiel, target=target: liteefg_pcfr_plus(name, target)
            rows += compare(label, target, runs, args)
    write_csv(rows, args.out)


PEERS = {"OpenSpiel C++ CFR+": "equilibria cfr+", "LiteEFG PCFR+": "equilibria pcfr+"}


def compare(label: str, target: float, runs: dict, args: argparse.Namespace) -> list[dict]:
    """Run every solver to ``target``; print each, and each peer's seconds over ours for the
    same algorithm and over our fastest."""
    rows, best = [], {}
    for solver, run in runs.items():
        slow = solver in PEERS or solver.endswith("mirror-prox")
        repeat = args.slow_repeat if slow else args.repeat
        results = [run() for _ in range(repeat)]
        secs = [r[1] for r in results]
        iters, _, expl = results[0]
        if expl <= target:
            best[solver] = min(secs)
        reached = "" if expl <= target else "  (target not reached)"
        print(
            f"{label:22s} {target:7.0e} {solver:24s} {iters:8,d} iterations  min {min(secs):9.3f} s  "
            f"median {statistics.median(secs):9.3f} s  exploitability {expl:.2e}{reached}",
            flush=True,
        )
        for i, (it, s, e) in enumerate(results):
            rows.append(
                {
                    "game": label,
                    "solver": solver,
                    "run": i,
                    "target": target,
                    "iterations": it,
                    "seconds": round(s, 4),
                    "exploitability": e,
                }
            )
    ours = {k: v for k, v in best.items() if k not in PEERS}
    fastest = min(ours, key=ours.get) if ours else None
    for peer, same in PEERS.items():
        if peer not in runs:
            continue
        for mine in dict.fromkeys(x for x in (same, fastest) if x in ours):
            if peer in best:
                print(f"{label:22s} {target:7.0e} {peer} / {mine}: {best[peer] / ours[mine]:.1f}x")
            else:  # the peer stopped at the cap without reaching the target
                print(f"{label:22s} {target:7.0e} {peer} / {mine}: more than {MAX_SECONDS / ours[mine]:.0f}x")
    return rows


if __name__ == "__main__":
    main()
