"""The first-order solvers' and PDLP's checks on a GPU, as whole commands, in one run.

1. The iterates: each regret-matching algorithm and mirror prox, 100 iterations on numpy
   and on ``--device`` (Kuhn, Leduc, Liar's dice with 4 sides); the largest difference
   of the average strategies, and whether the iteration was replayed as a recorded CUDA
   graph.
2. ``equilibria solve GAME --algorithm dcfr --device DEVICE --target-exploitability T``
   for each target, ``--repeat`` times, timed from outside as a user's shell would:
   seconds of the whole command (min and median), the certified exploitability, the
   iterations and the route's own stage seconds.
3. With ``--pdlp SECONDS``: the published-rule LP of GAME (``--shrink --rule published
   --backend pdlp-torch --time-limit SECONDS``), its status and exploitability in the
   abstract game and in the full game.

    python benchmarks/gpu_acceptance.py [--game rhode_island] [--device cuda]
        [--targets 1e-3,1e-4] [--repeat 3] [--pdlp 200] [--out benchmarks/gpu_acceptance.csv]

Without a CUDA device, ``--device cpu --game rhode_island:ranks=4`` runs the same
checks on torch's CPU build, to try the script.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from first_order_devices import card, usable
from tables import write_csv

HERE = Path(__file__).resolve().parent
ITERATE_GAMES = ("kuhn", "leduc", "liars_dice:sides=4")
ALGORITHMS = ("cfr+", "pcfr+", "dcfr", "mirror-prox")


def iterates(device: str) -> list[dict]:
    """Per game and algorithm: the largest difference between numpy's and ``device``'s
    average strategies after 100 iterations, and whether a CUDA graph was recorded."""
    import numpy as np

    import equilibria
    from equilibria.models.array_ops import array_ops
    from equilibria.models.sequence import SequenceForm
    from equilibria.routes.first_order import treeplexes
    from equilibria.solvers.first_order import make_solver

    rows = []
    for game in ITERATE_GAMES:
        sf = SequenceForm(equilibria.load(game))
        for algorithm in ALGORITHMS:
            ours = make_solver(algorithm, sf.payoff_matrix(0), treeplexes(sf))
            theirs = make_solver(algorithm, sf.payoff_entries(0), treeplexes(sf), array_ops(device))
            ours.iterate(100)
            theirs.iterate(100)
            gap = max(np.abs(a - b).max() for a, b in zip(ours.average_behaviors(), theirs.average_behaviors()))
            replay = getattr(theirs, "_replay", None)
            recorded = replay is not None and replay.graph is not None
            print(f"  {game:20} {algorithm:12} largest difference {gap:.1e}  graph recorded: {recorded}")
            rows.append(
                {"check": "iterates", "game": game, "algorithm": algorithm, "difference": gap, "graph": recorded}
            )
    return rows


#: The answer's lines read back: the certified exploitability, the iterations, the stages.
FIELDS = {
    "exploitability": re.compile(r"^exploitability\s+([0-9.e+-]+)\s+\(exact best responses in the game", re.M),
    "abstract_exploitability": re.compile(r"^exploitability\s+([0-9.e+-]+) in the shrunk game", re.M),
    "iterations": re.compile(r"^iterations\s+([\d,]+) in", re.M),
    "status": re.compile(r"^status\s+(\S+)", re.M),
    "stages": re.compile(r"^seconds\s+(game .*)$", re.M),
}


def command(args: list[str], timeout: float) -> tuple[float, int, str]:
    """Seconds, exit status and standard output of ``equilibria ARGS`` as a process."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "equilibria", *args, "--quiet"], capture_output=True, text=True, timeout=timeout
    )
    return time.perf_counter() - t0, done.returncode, done.stdout + done.stderr


def read_answer(text: str) -> dict:
    """The fields of :data:`FIELDS` found in an answer's text."""
    out = {}
    for name, pattern in FIELDS.items():
        found = pattern.search(text)
        if found:
            out[name] = found.group(1).replace(",", "") if name == "iterations" else found.group(1)
    return out


def targets(game: str, device: str, goals: list[float], repeat: int) -> list[dict]:
    """Whole commands to each target, ``repeat`` times each."""
    rows = []
    for goal in goals:
        args = ["solve", game, "--algorithm", "dcfr", "--device", device, "--target-exploitability", f"{goal:g}"]
        runs = [command(args, timeout=900) for _ in range(repeat)]
        seconds = [s for s, code, _ in runs if code == 0]
        last = read_answer(runs[-1][2])
        if not seconds:
            print(f"  to {goal:g}: failed: {runs[-1][2].strip().splitlines()[-1:]}")
        else:
            print(
                f"  to {goal:g}: {min(seconds):.1f} s min, {statistics.median(seconds):.1f} s median over "
                f"{len(seconds)}; exploitability {last.get('exploitability')}, {last.get('iterations')} iterations"
            )
            print(f"    stages: {last.get('stages')}")
        rows.append(
            {
                "check": "target",
                "game": game,
                "algorithm": "dcfr",
                "target": goal,
                "seconds_min": round(min(seconds), 2) if seconds else "",
                "seconds_median": round(statistics.median(seconds), 2) if seconds else "",
                "runs": len(seconds),
                **{k: last.get(k, "") for k in ("exploitability", "iterations", "status", "stages")},
            }
        )
    return rows


def pdlp(game: str, time_limit: float) -> dict:
    """The published-rule LP of ``game`` by pdlp-torch within ``time_limit`` seconds."""
    args = [
        "solve",
        game,
        "--shrink",
        "--rule",
        "published",
        "--backend",
        "pdlp-torch",
        "--time-limit",
        f"{time_limit:g}",
    ]
    seconds, code, text = command(args, timeout=time_limit * 2 + 120)
    found = read_answer(text)
    print(
        f"  pdlp-torch, published rule: exit {code} in {seconds:.1f} s; status {found.get('status')}, "
        f"exploitability {found.get('abstract_exploitability')} in the abstract game, "
        f"{found.get('exploitability')} in the full game"
    )
    return {
        "check": "pdlp",
        "game": f"{game}/published",
        "algorithm": "pdlp-torch",
        "seconds_min": round(seconds, 2),
    } | {k: found.get(k, "") for k in ("status", "exploitability", "abstract_exploitability", "stages")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="rhode_island")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--targets", default="1e-3,1e-4")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pdlp", type=float, default=None, help="seconds for the published-rule LP by pdlp-torch")
    parser.add_argument("--out", default=str(HERE / "gpu_acceptance.csv"))
    args = parser.parse_args()
    why = usable(args.device)
    if why:
        print(f"{args.device}: skipped ({why})")
        return
    where = card(args.device)
    print(f"iterates, numpy against {args.device} ({where}):")
    rows = iterates(args.device)
    print(f"\n{args.game}, whole commands on {args.device}:")
    rows += targets(args.game, args.device, [float(t) for t in args.targets.split(",") if t], args.repeat)
    if args.pdlp:
        rows.append(pdlp(args.game, args.pdlp))
    rows = [{"device": args.device, "card": where} | row for row in rows]
    columns = list(dict.fromkeys(k for row in rows for k in row))  # each check has its own
    write_csv([{k: row.get(k, "") for k in columns} for row in rows], args.out)


if __name__ == "__main__":
    main()
