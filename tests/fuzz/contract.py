"""The command line's contract on bad input, checked for one run.

A run either succeeds (exit 0, and what it printed is a correct answer) or is refused: exit
status 2, exactly one line on stderr starting with ``equilibria``, no traceback, nothing on
stdout and no file left behind. Anything else (another status, a signal, a hang, a
traceback, a partial output, an uncertified answer) is a violation; :func:`violations`
lists them for one run.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

#: Seconds one command may take in the subprocess form before it counts as a hang.
TIMEOUT = 60.0

#: Largest certified exploitability accepted from a successful solve.
EXPLOITABILITY = 1e-6

#: Characters that end a line for str.splitlines (or move a terminal's cursor to another
#: line): an error message holding one of them is not one line.
LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass
class Run:
    """What one command did: exit status (negative: killed by that signal; None: timed
    out), its stdout and stderr, seconds and the files it left in the scratch folder."""

    argv: list[str]
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    new_files: list[str] = field(default_factory=list)
    exception: str = ""

    def command(self) -> str:
        return "equilibria " + " ".join(_shell_quote(a) for a in self.argv)


def _shell_quote(arg: str) -> str:
    if arg and all(c.isalnum() or c in "-_=.,:/+" for c in arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"


def listing(folder: Path) -> set[str]:
    """Every path under ``folder`` (relative), hidden ones included."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def run_inprocess(argv: list[str], scratch: Path) -> Run:
    """``equilibria.scripts.cli.main(argv)`` in this process, output captured."""
    from equilibria.scripts.cli import main

    before = listing(scratch)
    out, err = io.StringIO(), io.StringIO()
    exception = ""
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status: int | None = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors leave through SystemExit
            status = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # noqa: BLE001  (any escape is a violation)
            import traceback

            status = 1
            exception = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            err.write("Traceback (most recent call last):\n" + exception + "\n")
    seconds = time.perf_counter() - t0
    new_files = sorted(listing(scratch) - before)
    return Run(list(argv), status, out.getvalue(), err.getvalue(), seconds, new_files, exception)


def command_prefix() -> list[str]:
    """The installed console command, or ``python -m equilibria.scripts.cli``."""
    script = Path(sys.executable).with_name("equilibria")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "equilibria.scripts.cli"]


def run_subprocess(argv: list[str], scratch: Path, timeout: float = TIMEOUT) -> Run:
    """The command in a process of its own, run in ``scratch``."""
    before = listing(scratch)
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            command_prefix() + list(argv),
            cwd=scratch,
            capture_output=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        status: int | None = proc.returncode
        stdout, stderr = proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        status = None
        stdout, stderr = exc.stdout or b"", exc.stderr or b""
    seconds = time.perf_counter() - t0
    return Run(
        list(argv),
        status,
        stdout.decode("utf-8", errors="replace"),
        stderr.decode("utf-8", errors="replace"),
        seconds,
        sorted(listing(scratch) - before),
    )


def _error_line_problems(run: Run) -> list[str]:
    problems = []
    err = run.stderr
    if "Traceback" in err:
        problems.append("traceback on stderr")
    if not err.endswith("\n") or err.count("\n") != 1:
        problems.append(f"{err.count(chr(10))} lines on stderr (one expected)")
    elif any(c in err[:-1] for c in LINE_BREAKS):
        problems.append("the error line holds a line-break control character")
    if not err.startswith("equilibria"):
        problems.append("stderr does not start with 'equilibria'")
    if run.stdout:
        problems.append("output on stdout although the command failed")
    return problems


def violations(run: Run, *, must_fail: bool = False, kind: str = "") -> list[str]:
    """The ways ``run`` breaks the contract (empty: it keeps it).

    ``must_fail``: the input is bad, so only a refusal (exit 2) is right; otherwise a run
    may also end without an answer (exit 1: no model holds, a time limit, a solver
    failure), one line as a refusal is. ``kind`` names the
    command for checking a success: ``solve-json`` (certified exploitability at most
    :data:`EXPLOITABILITY`) or ``info`` (the counts printed).
    """
    problems: list[str] = []
    if run.exception:
        problems.append(f"exception escaped main(): {run.exception}")
    if run.status is None:
        return problems + [f"no answer within {run.seconds:.0f} s (hang)"]
    if run.status < 0:
        problems.append(f"killed by signal {-run.status}")
    elif run.status == 0:
        if must_fail:
            problems.append("exit 0 for bad input")
        problems += _success_problems(run, kind)
    elif run.status == 2 or (run.status == 1 and not must_fail):
        problems += _error_line_problems(run)
        if run.new_files:
            problems.append(f"files left behind: {run.new_files}")
    elif run.status == 1:
        problems.append("exit 1 (no answer) for bad input, which is refused with exit 2")
    else:
        problems.append(f"exit status {run.status} (0, 1 or 2 expected)")
        if "Traceback" in run.stderr:
            problems.append("traceback on stderr")
    return problems


def _success_problems(run: Run, kind: str) -> list[str]:
    if "Traceback" in run.stderr:
        return ["traceback on stderr of a successful run"]
    if kind == "solve-json":
        try:
            answer = json.loads(run.stdout)
        except ValueError:
            return ["exit 0 but stdout is not JSON"]
        expl = answer.get("exploitability") if isinstance(answer, dict) else None
        if not isinstance(expl, int | float) or not math.isfinite(expl):
            return [f"exit 0 without a finite certified exploitability ({expl!r})"]
        if expl > EXPLOITABILITY:
            return [f"exit 0 with exploitability {expl:.3e} > {EXPLOITABILITY:g} (status {answer.get('status')})"]
        value = answer.get("value")
        if not isinstance(value, int | float) or not math.isfinite(value):
            return [f"exit 0 with value {value!r}"]
    elif kind == "info":
        if "nodes" not in run.stdout:
            return ["exit 0 but info printed no node counts"]
    return []


def describe(run: Run, problems: list[str]) -> str:
    """A report of one violation: the command, what went wrong, and what it printed."""
    status = "timeout" if run.status is None else run.status
    return (
        f"$ {run.command()}\n  status {status} after {run.seconds:.1f} s: {'; '.join(problems)}\n"
        f"  stdout: {run.stdout[:300]!r}\n  stderr: {run.stderr[-1200:]!r}"
    )
