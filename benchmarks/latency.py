"""How quickly the command line reacts: how long a game that cannot fit takes to be refused,
how long after Ctrl-C (SIGTERM, SIGHUP) a command ends, and how far past its time limit a
command that cannot answer in time ends. The whole command, from the shell, interpreter
start included (but for the refusals timed in the process, the command line imported).

    python benchmarks/latency.py [--repeat 3]

The tests check what these stand for without a clock (tests/test_robustness.py,
tests/test_user_workflows.py, tests/test_fuzz.py, tests/test_threshold_located.py): a
refusal builds nothing, an interrupted command unwinds by its own handling (not the
console's last-resort exit, which ends one that cannot 0.8 s after the signal) and
cancels its solve, a time limit ends the command with no answer in one line. The
seconds are measured here, where they were once asserted: a refusal within 5 s, an
interrupt within a second, a time limit within its 10% and 5 s.

Each row is one measurement run ``--repeat`` times (min and median seconds), with the
bound the tests once asserted, and the exit status and standard error's last line of the
last run. Rows go to ``benchmarks/latency.csv``.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tables import write_csv

HERE = Path(__file__).resolve().parent
EQUILIBRIA = [sys.executable, "-m", "equilibria"]

#: Games that cannot fit, refused from their estimated size: seconds from start to exit.
REFUSED = [
    ["solve", "generalized_kuhn:cards=100000000"],
    ["solve", "rhode_island"],
    ["solve", "leduc:ranks=100"],
    ["solve", "liars_dice:sides=12"],
]

#: Refusals timed inside the process, the command line imported (as tests/test_fuzz.py ran them).
REFUSED_IN_PROCESS = [
    ["solve", "generalized_kuhn:cards=100000000"],
    ["solve", "kuhn_rules:cards=100000"],
    ["info", "liars_dice_rules:sides=15"],
    ["sweep", "--game", "leduc:ranks=3..1000000", "-o", "r"],
    ["sweep", "--game", "leduc:ranks=3..400", "--option", "time_limit=1..400", "-o", "r"],
]

#: Timing one refusal in a fresh process once ``equilibria.scripts.cli`` is imported.
IN_PROCESS = """
import sys, time
from equilibria.scripts.cli import main
t0 = time.perf_counter()
code = main(sys.argv[1:])
print(time.perf_counter() - t0, code)
"""

#: (what, signal, seconds after the start it is sent, arguments): seconds from the signal
#: to the exit. The moments put the signal inside the solve on the machine the tests ran on.
INTERRUPTED = [
    ("Ctrl-C, HiGHS solving", signal.SIGINT, 2.0, ["solve", "leduc:ranks=10", "--no-shrink", "--quiet"]),
    ("SIGTERM, HiGHS solving", signal.SIGTERM, 2.0, ["solve", "leduc:ranks=10", "--no-shrink", "--quiet"]),
    ("SIGHUP, HiGHS solving", signal.SIGHUP, 2.0, ["solve", "leduc:ranks=10", "--no-shrink", "--quiet"]),
    (
        "Ctrl-C, Clarabel solving",
        signal.SIGINT,
        2.5,
        ["solve", "leduc:ranks=8", "--no-shrink", "--backend", "clarabel", "--quiet"],
    ),
    (
        "Ctrl-C, threshold with SCIP",
        signal.SIGINT,
        3.0,
        ["threshold", "kuhn:players=3", "--backend", "scip", "--epsilon", "1e-6", "--quiet"],
    ),
    (
        "Ctrl-C, started with SIGINT ignored",
        signal.SIGINT,
        3.0,
        ["threshold", "kuhn:players=3", "--epsilon", "1e-6", "--quiet"],
    ),
    (
        "Ctrl-C, sweep of two workers",
        signal.SIGINT,
        3.0,
        ["sweep", "--route", "threshold", "--game", "kuhn:players=3", "--option", "breakpoints=3,4,5"]
        + ["--workers", "2", "-o", "{scratch}/sweep", "--quiet"],
    ),
]

#: (time limit, arguments): a command no round of which can answer within the limit.
LIMITED = [(4.0, ["threshold", "kuhn:players=3", "--epsilon", "1e-12", "--quiet"])]


def last_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[-1][:160]


def refusal(argv: list[str]) -> tuple[float, int, str]:
    """(seconds from start to exit, exit status, stderr's last line)."""
    with tempfile.TemporaryDirectory() as scratch:
        t0 = time.perf_counter()
        done = subprocess.run([*EQUILIBRIA, *argv, "--quiet"], capture_output=True, text=True, cwd=scratch)
        return time.perf_counter() - t0, done.returncode, last_line(done.stderr)


def refusal_in_process(argv: list[str]) -> tuple[float, int, str]:
    """(seconds from calling the command line to its return, exit status, stderr's last line)."""
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            [sys.executable, "-c", IN_PROCESS, *argv, "--quiet"], capture_output=True, text=True, cwd=scratch
        )
        seconds, code = done.stdout.split()
        return float(seconds), int(code), last_line(done.stderr)


def interrupt(signum: int, delay: float, argv: list[str], ignore_sigint: bool) -> tuple[float, int, str]:
    """(seconds from the signal to the exit, exit status, stderr's last line)."""
    with tempfile.TemporaryDirectory() as scratch:
        args = [a.replace("{scratch}", scratch) for a in argv]
        # a shell starts background commands with SIGINT ignored
        before = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
        proc = subprocess.Popen(
            [*EQUILIBRIA, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=before
        )
        time.sleep(delay)
        sent = time.perf_counter()
        proc.send_signal(signum)
        _, err = proc.communicate()
        return time.perf_counter() - sent, proc.returncode, last_line(err)


def limited(limit: float, argv: list[str]) -> tuple[float, int, str]:
    """(seconds from start to exit, exit status, stderr's last line)."""
    t0 = time.perf_counter()
    done = subprocess.run([*EQUILIBRIA, *argv, "--time-limit", f"{limit:g}"], capture_output=True, text=True)
    return time.perf_counter() - t0, done.returncode, last_line(done.stderr)


def row(measure: str, argv: list[str], runs: list[tuple[float, int, str]], bound: float) -> dict:
    times = [r[0] for r in runs]
    out = {
        "measure": measure,
        "command": "equilibria " + " ".join(argv),
        "min_s": round(min(times), 3),
        "median_s": round(statistics.median(times), 3),
        "once_asserted_s": bound,
        "exit": runs[-1][1],
        "stderr": runs[-1][2],
    }
    print(
        f"{measure:<52} {out['min_s']:>7.2f} {out['median_s']:>7.2f} {bound:>7.1f}  exit {out['exit']:<4} "
        + " ".join(argv)[:60]
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.repeat
    print(f"{'measure':<52} {'min s':>7} {'median':>7} {'bound':>7}")
    rows = [row("refusal, start to exit", argv, [refusal(argv) for _ in range(n)], 5.0) for argv in REFUSED]
    for argv in REFUSED_IN_PROCESS:
        rows.append(row("refusal, in process", argv, [refusal_in_process(argv) for _ in range(n)], 1.0))
    for what, signum, delay, argv in INTERRUPTED:
        ignored = "ignored" in what
        runs = [interrupt(signum, delay, argv, ignored) for _ in range(n)]
        # started with SIGINT ignored, the whole command was to end within 3.7 s, the signal at 3 s
        rows.append(row(f"{what}, signal to exit", argv, runs, 0.7 if ignored else 1.0))
    for limit, argv in LIMITED:
        runs = [limited(limit, argv) for _ in range(n)]
        rows.append(row(f"--time-limit {limit:g}, start to exit", argv, runs, round(1.1 * limit + 5.0, 1)))
    start = [sys.executable, "-c", "import equilibria.scripts.cli"]
    t0 = time.perf_counter()
    subprocess.run(start, check=True)
    print(f"interpreter start and the command's import: {time.perf_counter() - t0:.2f} s")
    write_csv(rows, str(HERE / "latency.csv"))


if __name__ == "__main__":
    main()
