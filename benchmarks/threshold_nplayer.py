"""Games with three and four players: the threshold and nash commands' certified NashConv per
product representation and backend, beside OpenSpiel's CFR and CFR+.

Threshold cells: ``equilibria threshold GAME --epsilon 0.01 --time-limit L --json`` for
three-player Kuhn, generalized Kuhn with three players and 4, 6 and 8 cards, and
four-player Kuhn, with the products on the default (log on HiGHS), sos2, log and exact on
SCIP, and exact on Gurobi when ``gurobipy`` imports; on the games whose shipped model holds
also cc, incremental and dlog on HiGHS and cc on SCIP. MIP Nash cells: ``equilibria nash GAME
--epsilon 0.01`` with log products on HiGHS, sos2 on SCIP and exact on SCIP (no epsilon).
Each cell is one run of the command in a process of its own under ``nice -n 19``, killed
``--grace`` seconds after its time limit, so a solver that stops responding or takes the
process down costs one row. A cell's status is
``answered`` (exit 0: the certified NashConv is at most epsilon, or ``exact``'s single
round ended), ``time limit`` (the best NashConv certified by then and the rounds run are
read from the error line), ``infeasible``, ``error`` (another error line) or ``crashed``
(killed by a signal, or a solver library's abort message, even when the process then hangs
and is killed); the seconds are the process's wall time, start-up included.

OpenSpiel cells: its Python CFR and CFR+ (``open_spiel.python.algorithms.cfr``) on three-
and four-player Kuhn poker, NashConv of the average policy after 1, 2, 5, 10, 20 and 40
seconds of iterations (the NashConv evaluations are outside the clock). With more than two
players CFR's average strategy has no guarantee of converging to a Nash equilibrium; the
rows show where it got. Generalized Kuhn has no OpenSpiel counterpart.

Beside them, a cited figure, not run: S. Ganzfried, "Quadratic Programming Approach for Nash
Equilibrium Computation in Multiplayer Imperfect-Information Games" (2025), solves
three-player Kuhn poker in under 3 s with Gurobi after removing dominated actions, and not
within 24 hours without that removal.

Cells run one at a time. When the cells left could overrun ``--budget`` minutes (the worst
case: every threshold cell killed at its limit), generalized Kuhn with 8 cards is dropped.

    python benchmarks/threshold_nplayer.py [--quick] [--time-limit 60] [--time-limit-4p 120]
        [--budget 40] [--out benchmarks/threshold_nplayer.csv] [--games "G1;G2"] [--no-openspiel]

``--quick``: three-player Kuhn with the default products only, and CFR+ for 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
CLI = Path(sys.executable).with_name("equilibria")
EPSILON = 0.01
GAMES = (
    "kuhn:players=3",
    "generalized_kuhn:players=3,cards=4",
    "generalized_kuhn:players=3,cards=6",
    "generalized_kuhn:players=3,cards=8",
    "kuhn:players=4",
)
DROPPED_FIRST = "generalized_kuhn:players=3,cards=8"
SETTINGS = (  # (products, backend); None: the command's defaults, no flags
    (None, None),
    ("sos2", "scip"),
    ("log", "scip"),
    ("exact", "scip"),
)
# the other representations, on the games whose model holds (elsewhere every setting runs
# into the limit: the shipped model holds no equilibrium of those games)
MORE_SETTINGS = (("cc", "highs"), ("incremental", "highs"), ("dlog", "highs"), ("cc", "scip"))
MODEL_HOLDS = ("kuhn:players=3", "generalized_kuhn:players=3,cards=4")
# MIP Nash needs no model: its rounds on every game
NASH_SETTINGS = (("log", "highs"), ("sos2", "scip"), ("exact", "scip"))
OPENSPIEL = {"kuhn:players=3": "kuhn_poker(players=3)", "kuhn:players=4": "kuhn_poker(players=4)"}
CHECKPOINTS = (1.0, 2.0, 5.0, 10.0, 20.0, 40.0)
FIELDS = [
    "game",
    "solver",
    "products",
    "backend",
    "status",
    "nash_conv",
    "promised_epsilon",
    "rounds",
    "binaries",
    "seconds",
    "iterations",
    "note",
]
# what glibc, C++ runtimes and the interpreter print when a solver library brings the
# process down without a signal reaching the parent as one
CRASH_MARKERS = (
    "free():",
    "double free",
    "corrupted",
    "invalid pointer",
    "Segmentation fault",
    "Aborted",
    "terminate called",
)
LIMIT = re.compile(r"best certified NashConv ([-+.e\d]+) after (\d+) round")
NO_ANSWER = re.compile(r"no answer after (\d+) round")
PUBLISHED = {
    "game": "kuhn:players=3",
    "solver": "Ganzfried (2025), QP on Gurobi",
    "products": "",
    "backend": "gurobi",
    "status": "cited, not run",
    "note": (
        'S. Ganzfried, "Quadratic Programming Approach for Nash Equilibrium Computation in Multiplayer '
        'Imperfect-Information Games" (2025): under 3 s after removing dominated actions; '
        "not solved in 24 h without"
    ),
}


def run(cmd: list[str], timeout: float) -> tuple[int | None, str, str, float]:
    """Exit status (None if killed at ``timeout``), stdout, stderr and wall seconds of ``cmd``
    under ``nice -n 19``, in a session of its own so that a kill reaches its children too."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        ["nice", "-n", "19", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    return code, out, err, time.perf_counter() - start


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def threshold_cell(
    game: str, products: str | None, backend: str | None, limit: float, grace: float, route: str = "threshold"
) -> dict:
    cmd = [str(CLI), route, game, "--time-limit", f"{limit:g}", "--json"]
    if products != "exact":  # exact products have no epsilon: one program, certified
        cmd += ["--epsilon", str(EPSILON)]
    if products is not None:
        cmd += ["--products", products, "--backend", backend]
    row = {
        "game": game,
        "solver": f"equilibria {route}",
        "products": products or "log (default)",
        "backend": backend or "highs (default)",
    }
    code, out, err, wall = run(cmd, limit + grace)
    row["seconds"] = f"{wall:.1f}"
    line = last_line(err)
    if code is None:
        # glibc's heap checks can leave the process hung after their message rather than aborted
        hung = any(marker in err for marker in CRASH_MARKERS)
        note = f"killed: no exit within {limit + grace:g} s; last: {line}"
        return {**row, "status": "crashed" if hung else "time limit", "note": note}
    crashed = code < 0 or any(marker in err for marker in CRASH_MARKERS)
    if code == 0 and not crashed:
        try:
            answer = json.loads(out)
        except ValueError:
            return {**row, "status": "error", "note": "exit 0 without JSON"}
        nash_conv = answer.get("nash_conv")
        note = f"exit 0; limit {limit:g} s"
        if nash_conv is not None and nash_conv > EPSILON:
            note += f"; NashConv above epsilon {EPSILON:g}"  # exact products stop after one round
        return {
            **row,
            "status": "answered",
            "nash_conv": f"{nash_conv:.3e}" if nash_conv is not None else "",
            # threshold answers name it promised_epsilon, nash answers promised_nash_conv
            "promised_epsilon": next(
                (f"{answer[k]:.4g}" for k in ("promised_epsilon", "promised_nash_conv") if answer.get(k)), ""
            ),
            "rounds": len(answer.get("curve") or []),
            "binaries": answer.get("binaries", ""),
            "note": note,
        }
    exit_text = f"exit {code}" + (f" ({signal.Signals(-code).name})" if code < 0 else "")
    # the error line without its prefix and its advice on what to try next
    message = line.removeprefix("equilibria: error: ").split("; give ")[0]
    row["note"] = f"{exit_text}: {message}"[:200]
    if crashed:
        return {**row, "status": "crashed"}
    if match := LIMIT.search(err):
        return {**row, "status": "time limit", "nash_conv": f"{float(match[1]):.3e}", "rounds": int(match[2])}
    if match := NO_ANSWER.search(err):
        return {**row, "status": "time limit", "rounds": int(match[1])}
    status = "infeasible" if "infeasible" in line.lower() else "time limit" if "time limit" in line else "error"
    return {**row, "status": status}


def openspiel_cell(game: str, algorithm: str, checkpoints: tuple[float, ...]) -> list[dict]:
    """CFR or CFR+ in a process of its own: one row per checkpoint reached (a process killed
    at its limit keeps the rows it printed)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--openspiel-cell", OPENSPIEL[game], algorithm]
    cmd += ["--checkpoints", ",".join(f"{c:g}" for c in checkpoints)]
    timeout = 2 * max(checkpoints) + 60.0  # the evaluations are outside the iterations' clock
    code, out, err, _ = run(cmd, timeout)
    base = {"game": game, "solver": f"OpenSpiel {algorithm} (Python)"}
    rows = []
    for line in out.splitlines():
        point = json.loads(line)
        rows.append(
            {
                **base,
                "status": "ran",
                "nash_conv": f"{point['nash_conv']:.3e}",
                "seconds": f"{point['seconds']:.1f}",
                "iterations": point["iterations"],
                "note": f"checkpoint {point['checkpoint']:g} s of iterations; no Nash guarantee with 3+ players",
            }
        )
    if code != 0:
        what = f"killed after {timeout:g} s" if code is None else f"exit {code}: {last_line(err)}"
        rows.append({**base, "status": "crashed" if code is not None and code < 0 else "error", "note": what})
    return rows


def openspiel_child(name: str, algorithm: str, checkpoints: list[float]) -> None:
    """Iterate until each checkpoint of iteration seconds; print a JSON line per checkpoint."""
    import pyspiel
    from open_spiel.python.algorithms import cfr, exploitability

    game = pyspiel.load_game(name)
    solver = cfr.CFRPlusSolver(game) if algorithm == "CFR+" else cfr.CFRSolver(game)
    iterations, seconds = 0, 0.0
    for checkpoint in checkpoints:
        t0 = time.perf_counter()
        while seconds + (time.perf_counter() - t0) < checkpoint:
            solver.evaluate_and_update_policy()
            iterations += 1
        seconds += time.perf_counter() - t0
        nash_conv = exploitability.nash_conv(game, solver.average_policy())
        point = {"checkpoint": checkpoint, "iterations": iterations, "seconds": seconds, "nash_conv": nash_conv}
        print(json.dumps(point), flush=True)


def gurobi_available() -> bool:
    try:
        import gurobipy  # noqa: F401
    except ImportError:
        return False
    return True


def print_row(row: dict) -> None:
    widths = {"game": 34, "solver": 30, "products": 13, "backend": 15, "status": 14}
    cells = [f"{str(row.get(f, ''))[: widths.get(f, 10)]:{widths.get(f, 10)}}" for f in FIELDS[:-1]]
    print(" ".join(cells), row.get("note", ""), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--quick", action="store_true", help="three-player Kuhn, default products; CFR+ for 5 s")
    parser.add_argument("--time-limit", type=float, default=60.0, help="the command's --time-limit, seconds")
    parser.add_argument("--time-limit-4p", type=float, default=120.0, help="the same for four-player games")
    parser.add_argument("--grace", type=float, default=30.0, help="seconds past the time limit before a kill")
    parser.add_argument("--budget", type=float, default=40.0, help="minutes; over it, drop " + DROPPED_FIRST)
    parser.add_argument("--out", default=None, help="CSV (default benchmarks/threshold_nplayer[_quick].csv)")
    parser.add_argument("--games", default=None, help="games to run, separated by ; (default: all of GAMES)")
    parser.add_argument("--no-openspiel", action="store_true", help="threshold cells only")
    parser.add_argument("--openspiel-cell", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--checkpoints", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.openspiel_cell:
        openspiel_child(*args.openspiel_cell, [float(c) for c in args.checkpoints.split(",")])
        return

    gurobi = gurobi_available()
    settings = list(SETTINGS) + ([("exact", "gurobi")] if gurobi else [])
    if args.quick:
        games, settings, checkpoints, algorithms = GAMES[:1], settings[:1], (1.0, 2.0, 5.0), ("CFR+",)
    else:
        games, checkpoints, algorithms = GAMES, CHECKPOINTS, ("CFR", "CFR+")
    if args.games:
        games = tuple(g for g in GAMES if g in args.games.split(";"))
    if args.no_openspiel:
        algorithms = ()
    limits = {game: args.time_limit_4p if "players=4" in game else args.time_limit for game in games}
    openspiel_games = [game for game in games if game in OPENSPIEL]
    # a CFR cell takes its last checkpoint plus start-up and the evaluations
    openspiel_worst = len(openspiel_games) * len(algorithms) * (max(checkpoints) + 20.0)

    start = time.perf_counter()
    rows: list[dict] = []
    print(" ".join(f"{f:{w}}" for f, w in zip(FIELDS[:-1], (34, 30, 13, 15, 14, 10, 10, 10, 10, 10, 10))), "note")
    for index, game in enumerate(games):
        if game == DROPPED_FIRST:
            left = games[index:]
            cells = len(settings) + len(NASH_SETTINGS)
            worst = sum(cells * (limits[g] + args.grace) for g in left) + openspiel_worst
            if time.perf_counter() - start + worst > 60.0 * args.budget:
                row = {"game": game, "solver": "equilibria threshold", "status": "skipped"}
                row["note"] = f"dropped: the cells left could overrun --budget {args.budget:g} min"
                rows.append(row)
                print_row(row)
                continue
        extra = MORE_SETTINGS if game in MODEL_HOLDS and not args.quick else ()
        for products, backend in [*settings, *extra]:
            rows.append(threshold_cell(game, products, backend, limits[game], args.grace))
            print_row(rows[-1])
        for products, backend in NASH_SETTINGS if not args.quick else NASH_SETTINGS[:1]:
            rows.append(threshold_cell(game, products, backend, limits[game], args.grace, route="nash"))
            print_row(rows[-1])
    if not gurobi:
        row = {"game": "(every game)", "solver": "equilibria threshold", "products": "exact", "backend": "gurobi"}
        row.update(status="skipped", note="gurobipy does not import in this environment")
        rows.append(row)
        print_row(row)
    for game in openspiel_games:
        for algorithm in algorithms:
            for row in openspiel_cell(game, algorithm, checkpoints):
                rows.append(row)
                print_row(row)
    rows.append(PUBLISHED)
    print_row(PUBLISHED)
    print(f"total {time.perf_counter() - start:.0f} s")
    out = args.out or str(HERE / ("threshold_nplayer_quick.csv" if args.quick else "threshold_nplayer.csv"))
    write_csv([{f: row.get(f, "") for f in FIELDS} for row in rows], out)


if __name__ == "__main__":
    main()
