"""Benchmark equilibria's sequence-form LP against OpenSpiel and pygambit on the same games.

Each (game, tool) runs in a fresh process (``worker.py``) under a wall-clock limit and an
address-space limit; a tool that passes a limit is recorded as such, and is not run on the
larger games of the same family. Results go to a CSV file; a table with our speed-up per
game is printed, and a plot of time against tree size is saved.

    python benchmarks/run.py [--games kuhn,leduc:ranks=8] [--tools equilibria,openspiel,gambit]
                             [--time-limit 600] [--memory-gb 16] [--out benchmarks/results.csv]
                             [--plot benchmarks/time_vs_size.png]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

GAMES = [
    "kuhn",
    "leduc:ranks=3",
    "leduc:ranks=4",
    "leduc:ranks=6",
    "leduc:ranks=8",
    "leduc:ranks=10",
    "leduc:ranks=13",
    "liars_dice:sides=3",
    "liars_dice:sides=4",
    "liars_dice:sides=5",
    "liars_dice:sides=6",
    "generalized_kuhn:cards=50",
    "generalized_kuhn:cards=100",
    "generalized_kuhn:cards=1000",
    "generalized_kuhn:cards=10000",
]
TOOLS = ["equilibria", "equilibria_shrink", "openspiel", "gambit"]
#: games with ordered signals, which GameShrink (equilibria_shrink) applies to
ORDERED = ("kuhn", "leduc", "generalized_kuhn")
FIELDS = [
    "game",
    "tool",
    "status",
    "nodes",
    "value",
    "exploitability",
    "seconds_game",
    "seconds_lp_build",
    "seconds_transfer",
    "seconds_solve",
    "seconds_certify",
    "seconds_total",
    "peak_mb",
    "rows",
    "columns",
    "nonzeros",
    "method",
    "note",
]


def family(game: str) -> str:
    return game.split(":")[0]


def tree_size(game: str) -> int | None:
    """Number of nodes, computed from the rules without building the tree."""
    name, _, params = game.partition(":")
    kv = dict(item.split("=") for item in params.split(",") if item)
    if name == "kuhn":
        return 58
    if name == "generalized_kuhn":
        n = int(kv["cards"])
        return 1 + n + n * (n - 1) * 9
    if name == "leduc":
        d = int(kv.get("ranks", 3)) * int(kv.get("suits", 2))
        return 1 + d + d * (d - 1) * (15 + 5 * (1 + (d - 2) * 15)) - d * (d - 1) * 5
    if name == "liars_dice":
        s = int(kv.get("sides", 6))
        return 1 + s + s * s * (2 ** (2 * s + 1) - 1)
    return None


def limit_memory(gb: float):
    def apply():
        limit = int(gb * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.setsid()

    return apply


def run_one(tool: str, game: str, efg_dir: Path, time_limit: float, memory_gb: float, method: str | None) -> dict:
    row = {"game": game, "tool": tool, "nodes": tree_size(game)}
    target = game
    if tool == "gambit":
        path = efg_dir / (game.replace(":", "_").replace(",", "_").replace("=", "") + ".efg")
        if not path.exists():
            # writing the file is set-up, not part of Gambit's time
            code = f"import equilibria; equilibria.write_efg(equilibria.load({game!r}), {str(path)!r})"
            done = subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                timeout=time_limit,
                preexec_fn=limit_memory(memory_gb),
            )
            if done.returncode != 0:
                row.update(status="error", note="could not write the .efg file")
                return row
        target = str(path)
    cmd = [sys.executable, str(HERE / "worker.py"), tool, target]
    if method and tool == "equilibria":
        cmd += ["--method", method]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit_memory(memory_gb)
    )
    try:
        out, err = proc.communicate(timeout=time_limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        row.update(status="time limit", note=f"> {time_limit:.0f} s")
        return row
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        memory = "MemoryError" in err or "bad_alloc" in err or "Cannot allocate" in err or proc.returncode in (-9, 137)
        row.update(
            status="memory limit" if memory else "error",
            note=(
                f"> {memory_gb:g} GB"
                if memory
                else err.strip().splitlines()[-1][:120]
                if err.strip()
                else f"exit {proc.returncode}"
            ),
        )
        return row
    data = json.loads(out.strip().splitlines()[-1])
    row.update(data)
    stages = ["seconds_game", "seconds_lp_build", "seconds_transfer", "seconds_solve", "seconds_certify"]
    row["seconds_total"] = sum(float(row.get(k) or 0.0) for k in stages)
    row["note"] = f"process wall {wall:.2f} s"
    return row


def fmt_seconds(row: dict | None) -> str:
    if row is None:
        return "n/a"
    if row.get("status") not in ("optimal", "unknown", "time_limit"):
        return row.get("status", "?") + (f" ({row['note']})" if row.get("note", "").startswith(">") else "")
    return f"{float(row['seconds_total']):.3f}"


def print_table(rows: list[dict]) -> str:
    by = {(r["game"], r["tool"]): r for r in rows}
    games = list(dict.fromkeys(r["game"] for r in rows))
    lines = [
        "| game | nodes | equilibria s | equilibria --shrink s | OpenSpiel s | pygambit s | vs OpenSpiel | "
        "--shrink vs OpenSpiel | vs pygambit | exploitability | peak MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in games:
        ours = by.get((g, "equilibria"))
        cells = [g, f"{tree_size(g):,}" if tree_size(g) else "?"]
        cells += [fmt_seconds(by.get((g, t))) if (g, t) in by else "n/a" for t in TOOLS]
        shrunk = by.get((g, "equilibria_shrink"))
        for mine, t in ((ours, "openspiel"), (shrunk, "openspiel"), (ours, "gambit")):
            peer = by.get((g, t))

            def ok(r):
                return r is not None and r.get("status") in ("optimal", "unknown") and r.get("seconds_total")

            if ok(mine) and ok(peer):
                ratio = float(peer["seconds_total"]) / float(mine["seconds_total"])
                cells.append(f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x")
            elif ok(mine) and peer is not None and peer.get("status") in ("time limit", "memory limit", "skipped"):
                cells.append(f"> {peer.get('status')}")
            else:
                cells.append("")
        cells.append(f"{float(ours['exploitability']):.1e}" if ok(ours) else "")
        cells.append(f"{float(ours['peak_mb']):.0f}" if ok(ours) else "")
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    print(text)
    return text


def plot(rows: list[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for tool, marker in zip(TOOLS, "o^sd"):
        pts = sorted(
            (float(r["nodes"]), float(r["seconds_total"]))
            for r in rows
            if r["tool"] == tool
            and r.get("status") in ("optimal", "unknown")
            and r.get("nodes")
            and r.get("seconds_total")
        )
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle="", label=tool)
    top = ax.get_ylim()[1]  # runs that passed a limit are marked along the top
    for tool, color in zip(TOOLS, ("C0", "C3", "C1", "C2")):
        failed = [
            float(r["nodes"])
            for r in rows
            if r["tool"] == tool and r.get("status") in ("time limit", "memory limit") and r.get("nodes")
        ]
        if failed:
            ax.scatter(failed, [top] * len(failed), marker="x", color=color, label=f"{tool}: passed a limit")
    ax.set_xlabel("game tree nodes")
    ax.set_ylabel("seconds, end to end (game, LP, solve, certify)")
    ax.set_title("Sequence-form LP: time against tree size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot written to {path}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=" ".join((__doc__ or "").split("\n\n")[0].split()))
    parser.add_argument(
        "--games", default=",".join(GAMES).replace(",", ";"), help="games separated by ';' (default: the standard list)"
    )
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per game and tool")
    parser.add_argument("--memory-gb", type=float, default=16.0, help="address-space limit per process")
    parser.add_argument("--method", default=None, help="HiGHS method for equilibria")
    parser.add_argument("--out", default=str(HERE / "results.csv"))
    parser.add_argument("--plot", default=str(HERE / "time_vs_size.png"))
    parser.add_argument("--from-csv", metavar="CSV", help="print the table and plot of an earlier run, run nothing")
    args = parser.parse_args(argv)
    if args.from_csv:
        with open(args.from_csv, newline="") as fh:
            rows = list(csv.DictReader(fh))
        for r in rows:
            r["nodes"] = int(r["nodes"]) if r.get("nodes") else None
        print_table(rows)
        if args.plot:
            plot(rows, Path(args.plot))
        return 0
    games = [g for g in args.games.split(";") if g]
    tools = [t for t in args.tools.split(",") if t]
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 1024**3:.0f} GB; "
        f"Python {platform.python_version()}; "
        f"limits {args.time_limit:.0f} s and {args.memory_gb:g} GB per run",
        flush=True,
    )
    failed_family: dict[tuple[str, str], str] = {}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            for tool in tools:
                if tool == "openspiel" and family(game) == "generalized_kuhn":
                    continue  # OpenSpiel has no generalized Kuhn poker
                if tool == "equilibria_shrink" and family(game) not in ORDERED:
                    continue  # GameShrink needs ordered signals
                key = (tool, family(game))
                if key in failed_family:
                    row = {
                        "game": game,
                        "tool": tool,
                        "nodes": tree_size(game),
                        "status": "skipped",
                        "note": f"passed a limit on {failed_family[key]}",
                    }
                else:
                    row = run_one(tool, game, Path(tmp), args.time_limit, args.memory_gb, args.method)
                    if row.get("status") in ("time limit", "memory limit"):
                        failed_family[key] = game
                rows.append(row)
                shown = fmt_seconds(row)
                print(
                    f"{game:32} {tool:11} {row.get('status', '?'):13} {shown:>10}  "
                    f"peak {row.get('peak_mb', float('nan')):.0f} MB",
                    flush=True,
                )
    with open(args.out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    print(f"results written to {args.out}\n")
    print_table(rows)
    if args.plot:
        plot(rows, Path(args.plot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
