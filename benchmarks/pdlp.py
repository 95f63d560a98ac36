"""PDLP on torch beside HiGHS on full games' sequence-form LPs, in the same run.

Per game: the ``lp`` route (player 1's sequence-form LP, player 2 read from its row
duals, the answer certified by exact best responses in the game; no GameShrink) run by
``pdlp-torch`` on each device present (torch on the CPU; CUDA when torch sees one, the
card named) and by HiGHS (``highs``; with a time limit the route runs its anytime
interior point), each with ``--time-limit`` seconds for the whole route. Recorded per
solver and device: seconds of the whole route and of the backend's solve (min and median
over ``--repeat`` runs), PDLP's iterations and restarts, the status, player 1's value and
the certified exploitability, all but the seconds from the last run. A run that reaches
its time limit is recorded with what it reached: its status and the exploitability of
the strategies it returned, or status ``out_of_time`` when the route gave none back.

``GAME/published`` in ``--games`` is GAME's LP shrunk by the published GameShrink rule
(Gilpin and Sandholm, "Lossless abstraction of imperfect information games", 2007),
solved through the ``shrink`` route with ``rule="published"`` and certified in the full
game. ``rhode_island/published`` is their Rhode Island Hold'em LP (1,237,238 rows, about
50 million nonzeros): it is opt-in and meant for a GPU session (PDLP on a few CPU cores
would spend its whole time limit far from an answer).

    python benchmarks/pdlp.py [--games leduc:ranks=13,liars_dice:sides=6] [--devices cpu,cuda]
        [--solvers pdlp-torch,highs] [--time-limit 600] [--repeat 1] [--out benchmarks/pdlp.csv]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

from first_order_devices import card, usable
from tables import write_csv

HERE = Path(__file__).resolve().parent
GAMES = ["leduc:ranks=13", "liars_dice:sides=6"]
PUBLISHED = "/published"


def route_of(spec: str) -> tuple[str, str, dict]:
    """The game, the route and the route's own options for a ``--games`` entry."""
    if spec.endswith(PUBLISHED):
        return spec[: -len(PUBLISHED)], "shrink", {"rule": "published"}
    return spec, "lp", {}


#: pdlp-torch's solutions of the current run, player 1's LP first (kept by :func:`setup`)
SOLUTIONS: list = []


def setup(threads: int | None) -> None:
    """Keep each pdlp-torch solution in :data:`SOLUTIONS` (the shrink route's answer holds
    no backend message), and set torch's CPU threads when ``threads`` is given."""
    import torch

    from equilibria.solvers import pdlp_torch

    solve = pdlp_torch.solve_pdlp_torch

    def kept(*args, **kwargs):
        SOLUTIONS.append(solve(*args, **kwargs))
        return SOLUTIONS[-1]

    pdlp_torch.solve_pdlp_torch = kept
    if threads is not None:
        torch.set_num_threads(threads)


def on_device(device: str) -> None:
    """Make ``device`` pdlp-torch's default (the routes pass it no options of its own)."""
    from equilibria.solvers import pdlp_torch

    pdlp_torch.OPTIONS["device"] = device


def counts() -> tuple[int | str, int | str]:
    """PDLP's iterations and restarts on player 1's LP, read from its solution's message
    ('' for other backends)."""
    message = SOLUTIONS[0].message if SOLUTIONS else ""
    found = re.search(r"([\d,]+) iterations, (\d+) restarts", message or "")
    if found is None:
        return "", ""
    return int(found.group(1).replace(",", "")), int(found.group(2))


def run_once(spec: str, solver: str, time_limit: float) -> dict:
    """One run of the route: its seconds and what it reached."""
    import equilibria
    from equilibria.models.errors import NoAnswerError

    game, route, options = route_of(spec)
    SOLUTIONS.clear()
    t0 = time.perf_counter()
    try:
        answer = equilibria.solve(game, route, backend=solver, time_limit=time_limit, **options)
    except NoAnswerError as exc:
        print(f"    no answer: {exc}")
        seconds = time.perf_counter() - t0
        return {"seconds": seconds, "solve_seconds": seconds, "status": "out_of_time"}
    seconds = time.perf_counter() - t0
    iterations, restarts = counts()
    return {
        "seconds": seconds,
        "solve_seconds": answer.seconds.get("solve", seconds),
        "status": str(answer.status),
        "method": answer.method,
        "rows": answer.rows,
        "columns": answer.columns,
        "nonzeros": answer.nonzeros,
        "iterations": iterations,
        "restarts": restarts,
        "value": answer.value,
        "exploitability": answer.exploitability,
    }


def threads() -> int:
    """torch's CPU threads."""
    import torch

    return torch.get_num_threads()


def measured(spec: str, solver: str, device: str, time_limit: float, repeat: int) -> dict:
    """``repeat`` runs of one solver on one device, as a CSV row."""
    runs = [run_once(spec, solver, time_limit) for _ in range(repeat)]
    last = runs[-1]
    totals = [r["seconds"] for r in runs]
    solves = [r["solve_seconds"] for r in runs]
    return {
        "game": spec,
        "route": route_of(spec)[1],
        "rows": last.get("rows", ""),
        "columns": last.get("columns", ""),
        "nonzeros": last.get("nonzeros", ""),
        "solver": solver,
        "method": last.get("method", ""),
        "device": device,
        "card": card(device),
        "torch_threads": threads() if solver == "pdlp-torch" else "",
        "time_limit_s": time_limit,
        "repeat": repeat,
        "seconds_min": round(min(totals), 3),
        "seconds_median": round(statistics.median(totals), 3),
        "solve_seconds_min": round(min(solves), 3),
        "solve_seconds_median": round(statistics.median(solves), 3),
        "iterations": last.get("iterations", ""),
        "restarts": last.get("restarts", ""),
        "status": last["status"],
        "value": last.get("value", ""),
        "exploitability": last.get("exploitability", ""),
    }


def present(names: str) -> list[str]:
    """The devices among ``names`` (comma list) that run here; the others said and left out."""
    out = []
    for device in names.split(","):
        why = usable(device) if device in ("cpu", "cuda") else "not a torch device"
        if why is None:
            out.append(device)
        else:
            print(f"{device}: skipped ({why})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument("--games", default=",".join(GAMES), help="game specs; GAME/published: the published-rule LP")
    parser.add_argument("--devices", default="cpu,cuda", help="pdlp-torch's devices (those missing are skipped)")
    parser.add_argument("--solvers", default="pdlp-torch,highs")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per run of a route")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--torch-threads", type=int, help="torch's CPU threads (default: torch's own)")
    parser.add_argument("--out", default=str(HERE / "pdlp.csv"))
    args = parser.parse_args()
    setup(args.torch_threads)
    devices = present(args.devices)
    rows = []
    for spec in args.games.split(","):
        print(f"\n{spec} ({route_of(spec)[1]} route, time limit {args.time_limit:g} s)")
        for solver in args.solvers.split(","):
            for device in devices if solver == "pdlp-torch" else ["cpu"]:
                if solver == "pdlp-torch":
                    on_device(device)
                row = measured(spec, solver, device, args.time_limit, args.repeat)
                print(
                    f"  {solver:10} {device:4} {row['seconds_min']:9.2f} s min "
                    f"({row['solve_seconds_min']:.2f} s solve), {row['status']}, "
                    f"iterations {row['iterations'] or '-'}, value {row['value']}, "
                    f"exploitability {row['exploitability']}"
                )
                rows.append(row)
    write_csv(rows, args.out)


if __name__ == "__main__":
    main()
