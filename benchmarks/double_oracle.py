"""The double oracle (route ``double-oracle``) against the full sequence-form LP and DCFR, in
one run: per game, seconds to an exploitability of 1e-6 (or the certified exploitability
when the time limit stopped it first), peak memory, and the restricted game's share of the
full one.

    python benchmarks/double_oracle.py [--limit 120] [--only GAME ...]

Rhode Island hold'em runs on its lossless shrunk game (``solve --shrink``, certified in the
full game); the others on their full sequence form. Each method runs as its own
``equilibria`` command in a fresh process (peak memory is that
process's maximum resident set, read from ``wait4``), once: the double oracle and DCFR
with ``--target-exploitability 1e-6``, the LP solved to optimality. Prints one row per game
and method and writes ``benchmarks/double_oracle.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1e-6

GAMES = [
    "leduc",
    "leduc:ranks=5",
    "leduc:ranks=9",
    "leduc:ranks=13",
    "liars_dice:sides=4",
    "liars_dice:sides=5",
    "liars_dice:sides=6",
    "one_street:cards=100",
    "river_endgame:cards=200",
    "rhode_island:ranks=4",
]

#: Games whose full tree is out of reach: every method runs on the lossless shrunk game
#: (``solve --shrink``), certified in the full game.
SHRUNK = ("rhode_island",)

METHODS = {
    "double-oracle": ["double-oracle", "{game}", "--target-exploitability", str(TARGET)],
    "lp": ["solve", "{game}", "--no-shrink"],
    "dcfr": ["solve", "{game}", "--no-shrink", "--algorithm", "dcfr", "--target-exploitability", str(TARGET)],
}


#: The same methods on the shrunk game.
METHODS_SHRUNK = {
    "double-oracle": [
        "solve",
        "{game}",
        "--shrink",
        "--algorithm",
        "double-oracle",
        "--target-exploitability",
        str(TARGET),
    ],
    "lp": ["solve", "{game}", "--shrink"],
    "dcfr": ["solve", "{game}", "--shrink", "--algorithm", "dcfr", "--target-exploitability", str(TARGET)],
}


def run(method: str, game: str, limit: float) -> dict:
    """One command's answer (JSON), wall seconds and peak memory in MB."""
    methods = METHODS_SHRUNK if game.startswith(SHRUNK) else METHODS
    argv = [sys.executable, "-m", "equilibria"] + [a.format(game=game) for a in methods[method]]
    argv += ["--time-limit", str(limit), "--json"]
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=stdout, stderr=stderr, text=True)
        # reaped here, not by Popen.wait, so that its resource usage is this child's alone
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        stdout.seek(0)
        stderr.seek(0)
        out, err = stdout.read(), stderr.read()
    code = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss / 1024  # kilobytes on Linux
    row: dict = {"game": game, "method": method, "seconds": round(seconds, 2), "exit": code}
    if code == 0:
        answer = json.loads(out)
        row.update(
            value=answer.get("value"),
            exploitability=answer.get("exploitability"),
            status=answer.get("status"),
        )
        if method == "double-oracle" and "iterations" in answer.get("details", answer):
            details = answer.get("details", answer)
            kept = details.get("restricted_sequences") or [None, None]
            full = details.get("full_sequences") or [None, None]
            row.update(
                iterations=len(details.get("iterations") or []),
                restricted=f"{kept[0]}+{kept[1]} of {full[0]}+{full[1]}",
                restricted_share=round((kept[0] + kept[1]) / (full[0] + full[1]), 3) if kept[0] else None,
            )
    else:
        row["status"] = (err.strip().splitlines() or [""])[-1][:120]
    row["peak_mb"] = round(peak, 1)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per command")
    parser.add_argument("--only", nargs="*", help="these games alone, their rows replacing theirs in the CSV")
    args = parser.parse_args()
    out = Path(__file__).with_name("double_oracle.csv")
    rows: list[dict] = []
    games = args.only or GAMES
    if args.only and out.exists():
        with out.open() as f:
            rows = [r for r in csv.DictReader(f) if r["game"] not in games]
    fields = [
        "game",
        "method",
        "seconds",
        "peak_mb",
        "exit",
        "status",
        "value",
        "exploitability",
        "iterations",
        "restricted",
        "restricted_share",
    ]
    for game in games:
        for method in METHODS:
            row = run(method, game, args.limit)
            rows.append(row)
            print("  ".join(f"{k}={row.get(k)}" for k in fields if row.get(k) is not None), flush=True)
            with out.open("w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=fields)
                writer.writeheader()
                writer.writerows(rows)


if __name__ == "__main__":
    main()
