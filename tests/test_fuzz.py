"""Fuzzing the command line: damaged .efg files and bad invocations must be refused by the
contract (exit 2, one line on stderr, no traceback, nothing on stdout, no file left) or
answered correctly (exit 0 with a certified exploitability of at most 1e-6, and the value
Gambit finds for the same file). Never another status, a signal or a hang.

The corpus is fixed by a seed (tests/fuzz/mutate.py, tests/fuzz/invocations.py). A subset
runs in this process with the default suite; the whole corpus runs as subprocesses, two at
a time, under ``-m slow``. Inputs that once broke the contract are kept in
tests/fuzz/regressions/ and replayed on every run.
"""

from __future__ import annotations

import json
import stat
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .fuzz.contract import Run, describe, run_inprocess, run_subprocess, violations
from .fuzz.invocations import MUST_BE_QUICK, invocations, materialise, prepare
from .fuzz.mutate import corpus
from .fuzz.oracle import gambit_value
from .test_robustness import forbid_building

SEED = 20240611
ALL_FILES = 1100
FAST_FILES = 150
FAST_INVOCATIONS = 120
CHUNK = 50
WORKERS = 2  # the machine the suite runs on may have only two cores

REGRESSIONS = Path(__file__).parent / "fuzz" / "regressions"


def _files() -> list[tuple[str, bytes]]:
    return corpus(ALL_FILES, SEED)


def _fast_files() -> list[tuple[str, bytes]]:
    return corpus(FAST_FILES, SEED)


def _fast_invocations() -> list[tuple[str, ...]]:
    # endless rules files wait NO_MOVE_SECONDS (30 s) before they are stopped: the corpus run
    # (slow) has them, and tests/test_user_workflows.py stops them after 2 s
    every = [argv for argv in invocations() if not any("@RULESLOOP" in a for a in argv)]
    step = len(every) / FAST_INVOCATIONS
    return [every[int(i * step)] for i in range(FAST_INVOCATIONS)]


# ---- one .efg file through info and solve ----


def check_file(data: bytes, scratch: Path, runner, oracle: bool = False) -> list[str]:
    """Violations of `info FILE` and `solve FILE --json --quiet` on ``data`` (empty: none)."""
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / "game.efg"
    path.write_bytes(data)
    reports = []
    info = runner(["info", str(path), "--quiet"], scratch)
    problems = violations(info, kind="info")
    if problems:
        reports.append(describe(info, problems))
    solve = runner(["solve", str(path), "--json", "--quiet"], scratch)
    problems = violations(solve, kind="solve-json")
    if not problems and (info.status == 0) != (solve.status == 0) and solve.status == 0:
        problems.append(f"info refused the file (exit {info.status}) that solve answered")
    if not problems and oracle and solve.status == 0:
        problems += _compare_with_gambit(solve, path)
    if problems:
        reports.append(describe(solve, problems))
    return reports


def _compare_with_gambit(solve: Run, path: Path) -> list[str]:
    gambit = gambit_value(path)
    if "values" not in gambit:
        return []
    value = json.loads(solve.stdout)["value"]
    if all(abs(value - v) > 1e-6 * gambit["scale"] for v in gambit["values"]):
        return [f"value {value!r} but Gambit reads the same file as a game of value {gambit['values']!r}"]
    return []


@pytest.mark.parametrize("case", _fast_files(), ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_mutated_efg_in_process(case, tmp_path):
    _, data = case
    reports = check_file(data, tmp_path, run_inprocess)
    assert not reports, "\n".join(reports)


def _chunks(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


@pytest.mark.slow
@pytest.mark.parametrize("chunk", _chunks(ALL_FILES, CHUNK), ids=lambda r: f"{r.start}-{r.stop - 1}")
def test_mutated_efg_corpus(chunk, tmp_path):
    files = _files()

    def one(i: int) -> list[str]:
        name, data = files[i]
        return [f"[{name}]\n{r}" for r in check_file(data, tmp_path / f"case{i}", run_subprocess, oracle=True)]

    with ThreadPoolExecutor(WORKERS) as pool:
        reports = [r for rs in pool.map(one, chunk) for r in rs]
    assert not reports, "\n".join(reports)


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("*.efg")), ids=lambda p: p.name)
def test_efg_regressions(path, tmp_path):
    # as subprocesses: some of these inputs once hung the reader
    def runner(argv: list[str], scratch: Path) -> Run:
        return run_subprocess(argv, scratch, timeout=10)

    reports = check_file(path.read_bytes(), tmp_path, runner)
    assert not reports, "\n".join(reports)


def test_corpus_is_reproducible():
    assert corpus(40, SEED) == corpus(40, SEED)
    assert len({name for name, _ in _files()}) == ALL_FILES
    assert len(invocations()) >= 300


# ---- bad invocations ----


def check_invocation(argv: tuple[str, ...], scratch: Path, runner) -> list[str]:
    """Violations of one bad invocation: it must be refused and leave the scratch folder
    as it was (the FIFO still a FIFO)."""
    mapping = prepare(scratch)
    run = runner(materialise(argv, mapping), scratch)
    problems = violations(run, must_fail=True)
    if not stat.S_ISFIFO((scratch / "fifo").stat().st_mode):
        problems.append("the FIFO was replaced")
    return [describe(run, problems)] if problems else []


@pytest.mark.parametrize("argv", _fast_invocations(), ids=lambda a: " ".join(a) or "(nothing)")
def test_bad_invocation_in_process(argv, tmp_path):
    reports = check_invocation(argv, tmp_path, run_inprocess)
    assert not reports, "\n".join(reports)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", _chunks(len(invocations()), CHUNK), ids=lambda r: f"{r.start}-{r.stop - 1}")
def test_bad_invocations_corpus(chunk, tmp_path):
    every = invocations()

    def one(i: int) -> list[str]:
        return check_invocation(every[i], tmp_path / f"case{i}", run_subprocess)

    with ThreadPoolExecutor(WORKERS) as pool:
        reports = [r for rs in pool.map(one, chunk) for r in rs]
    assert not reports, "\n".join(reports)


@pytest.mark.parametrize("argv", MUST_BE_QUICK, ids=" ".join)
def test_too_large_is_refused_at_once(argv, tmp_path, monkeypatch):
    """At once: before any work, from the size estimate or the number of cells alone; no
    view of a game is built, no sweep cell made, no sweep run."""
    attempted = forbid_building(monkeypatch)

    def forbidden(what):
        def work(*args, **kwargs):
            attempted.append(what)
            raise AssertionError(f"{what} before the size was checked")

        return work

    monkeypatch.setattr("equilibria.sweep.grid.Cell", forbidden("a sweep cell made"))
    monkeypatch.setattr("equilibria.sweep.run_sweep", forbidden("the sweep run"))
    run = run_inprocess(list(argv), tmp_path)
    assert not violations(run, must_fail=True), describe(run, violations(run, must_fail=True))
    assert attempted == [], describe(run, attempted)
    # the refusal names what it went by: the game's estimated size, or the sweep's cells
    assert ("cells; a sweep holds at most" if argv[0] == "sweep" else "is too large: about") in run.stderr
    if "generalized_kuhn" in argv[1]:
        assert "about" in run.stderr, "the refusal gives the estimated size"
