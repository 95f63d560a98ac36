"""Output files all or nothing, interrupts, size refusals: the command line's contract.

Bad input or an unwritable target gives one line on stderr, exit status 2, no output and
no file; Ctrl-C gives exit status 130 within a second.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from equilibria.scripts.cli import main
from tests.conftest import one_line_refusal, run_cli

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def assert_refused(res, words):
    assert res.returncode == 2, (res.returncode, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""


def listing(folder: Path):
    return sorted(p.name for p in folder.iterdir())


WRITERS = [
    ("export", "kuhn", "-o"),
    ("solve", "kuhn", "--strategy-out"),
    ("shrink", "kuhn", "--write"),
    ("threshold", "one_street:cards=3", "--write"),
]


@pytest.mark.parametrize("command, game, flag", WRITERS)
def test_missing_folder_directory_and_fifo_are_refused_and_left_alone(tmp_path, command, game, flag):
    fifo = tmp_path / "pipe.mps"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.mps"
    folder.mkdir()
    before = listing(tmp_path)
    for target, words in (
        (tmp_path / "missing" / "x.mps", "does not exist"),
        (folder, "is a directory"),
        (fifo, "not a regular file"),
    ):
        assert_refused(run_cli(command, game, flag, str(target), "--quiet"), words)
        assert listing(tmp_path) == before
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert listing(folder) == []


def test_a_file_is_replaced_only_when_the_new_one_is_complete(tmp_path):
    target = tmp_path / "kuhn.lp"
    target.write_text("old")
    assert main(["export", "kuhn", "-o", str(target), "--quiet"]) == 0
    assert "best_response" in target.read_text() and listing(tmp_path) == ["kuhn.lp"]


@pytest.fixture
def small_tmpfs(tmp_path):
    if not ROOT or sys.platform != "linux":
        pytest.skip("mounting a small file system needs root on Linux")
    mount = tmp_path / "mnt"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)]).returncode != 0:
        pytest.skip("tmpfs cannot be mounted here")
    yield mount
    subprocess.run(["umount", str(mount)])


@pytest.mark.parametrize("command, game, flag", [("export", "leduc", "-o"), ("solve", "leduc", "--strategy-out")])
def test_a_full_file_system_leaves_nothing(small_tmpfs, command, game, flag):
    res = run_cli(command, game, flag, str(small_tmpfs / "out.mps"), "--quiet")
    assert_refused(res, "cannot write")
    assert "space" in res.stderr.lower()
    assert listing(small_tmpfs) == []


def test_a_read_only_file_system_leaves_nothing(small_tmpfs):
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    assert_refused(run_cli("export", "kuhn", "-o", str(small_tmpfs / "k.mps")), "Read-only file system")
    assert listing(small_tmpfs) == []


@pytest.mark.parametrize(
    "spec",
    ["generalized_kuhn:cards=100000000", "rhode_island", "leduc:ranks=100", "liars_dice:sides=12"],
)
def test_games_that_cannot_fit_are_refused_at_once_with_their_size(spec):
    t0 = time.perf_counter()
    res = run_cli("solve", spec)
    assert time.perf_counter() - t0 < 5  # interpreter start included; the refusal itself takes milliseconds
    assert_refused(res, "is too large: about")
    assert "bytes available" in res.stderr


def test_size_estimates_equal_the_built_trees():
    from equilibria import load
    from equilibria.instances import describe

    for spec in ("generalized_kuhn:cards=9", "leduc:ranks=4", "rhode_island:ranks=3,suits=2", "liars_dice:sides=5"):
        units, _ = describe(spec).estimate("extensive")
        assert units == load(spec).num_nodes, spec


def interrupt_after(delay, *args, signum=signal.SIGINT, command="solve", group=False):
    """Start ``equilibria COMMAND ...`` (``solve``), send ``signum`` (SIGINT) after
    ``delay`` seconds, to its whole process group with ``group`` (as a terminal's Ctrl-C
    does); return the exit status, output, error and the seconds from the signal to the
    exit."""
    cmd = [str(Path(sys.executable).parent / "equilibria"), command, *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=group)
    time.sleep(delay)
    sent = time.perf_counter()
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    return proc.returncode, out, err, time.perf_counter() - sent


def test_ctrl_c_during_a_solve_exits_130_within_a_second(tmp_path):
    out_file = tmp_path / "s.csv"
    code, out, err, seconds = interrupt_after(
        2.0, "leduc:ranks=10", "--no-shrink", "--strategy-out", str(out_file), "--quiet"
    )
    assert code == 130 and err == "equilibria: interrupted\n" and out == ""
    assert seconds < 1.0
    assert listing(tmp_path) == []


@pytest.mark.parametrize(
    ("signum", "code", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")]
)
@pytest.mark.parametrize("delay", [0.5, 2.0, 5.0])
def test_sigterm_and_sighup_end_a_solve_as_ctrl_c_does(tmp_path, signum, code, word, delay):
    """Once the process died by the signal and left its temporary file beside the target."""
    out_file = tmp_path / "s.csv"
    got, out, err, seconds = interrupt_after(
        delay, "leduc:ranks=10", "--no-shrink", "--strategy-out", str(out_file), "--quiet", signum=signum
    )
    assert got == code and err == f"equilibria: {word}\n" and out == ""
    assert seconds < 1.0
    assert listing(tmp_path) == []


def test_ctrl_c_during_a_clarabel_solve_exits_130_within_a_second(tmp_path):
    """Clarabel (chosen by the default rule for mid-sized LPs) runs in Rust, outside
    Python's signal checks: the interrupt still ends the command at once."""
    out_file = tmp_path / "s.csv"
    code, out, err, seconds = interrupt_after(
        2.5, "leduc:ranks=8", "--no-shrink", "--backend", "clarabel", "--strategy-out", str(out_file), "--quiet"
    )
    assert code == 130 and err == "equilibria: interrupted\n" and out == ""
    assert seconds < 1.0
    assert listing(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("method", ["concurrent", "simplex", "ipx", "pdlp", "ipm"])
@pytest.mark.parametrize("delay", [0.2, 1.0, 3.0, 10.0])
def test_ctrl_c_at_any_moment_exits_130_within_a_second(method, delay, tmp_path):
    code, out, err, seconds = interrupt_after(delay, "leduc:ranks=10", "--no-shrink", "--method", method, "--json")
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "equilibria: interrupted" and out == ""
    assert seconds < 1.0


def test_payoffs_that_overflow_are_refused_in_one_line():
    """sheriff:item_value=1e308 overflows to inf: once numpy's warning added two lines and
    HiGHS failed; the game's validation now names the terminal."""
    refused = one_line_refusal(run_cli("solve", "sheriff:item_value=1e308"))
    assert "payoffs must be finite numbers" in refused and "node " in refused


@pytest.mark.parametrize(
    "command",
    [
        ["nash", "kuhn:players=3", "--products", "log", "--backend", "highs", "--epsilon", "0.01"],
        ["shrink", "leduc"],
        ["threshold", "kuhn_continuous"],
    ],
)
def test_an_unwritable_write_target_is_refused_before_the_work(command, monkeypatch):
    """nash once solved for 11 s before refusing --write /missing/x.lp."""
    from equilibria.core import skeleton

    def no_work(*args, **kwargs):
        raise AssertionError("the work started before the target was checked")

    monkeypatch.setattr(skeleton, "solve", no_work)
    monkeypatch.setattr("equilibria.routes.shrink.shrink", no_work)
    refused = one_line_refusal(run_cli(*command, "--write", "/missing/x.lp"))
    assert refused == "equilibria: error: cannot write /missing/x.lp: folder /missing does not exist"


def run_with_address_limit(limit: str, *argv: str, load: str = "sys") -> subprocess.CompletedProcess:
    """``equilibria ARGV`` in a process whose address space is limited to the bytes the
    Python expression ``limit`` gives, evaluated after importing ``load``."""
    code = (
        f"import os, resource, sys\nimport {load}\n"
        "from equilibria.scripts.console import entry\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, resource.RLIM_INFINITY))\n"
        f"sys.argv = ['equilibria', *{list(argv)!r}]\n"
        "entry()\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_a_process_memory_limit_counts_as_much_as_the_machine():
    """Under ``ulimit -v 8388608`` (8 GiB) Liar's dice with 9 sides (about 10.6 GB) once
    ran 18-88 s to 7.9 GB before failing: the size check read only the machine's memory."""
    refused = one_line_refusal(run_with_address_limit("8388608 * 1024", "solve", "liars_dice:sides=9"))
    assert "is too large" in refused and "ulimit" in refused


@pytest.mark.parametrize("delay", [1.0, 1.6, 2.2])
def test_ctrl_c_to_the_process_group_during_separate_joins_is_one_line(tmp_path, delay):
    """Ctrl-C reaches every process of the group: workers caught while starting once
    printed "Fatal Python error" or a traceback beside the command's one line."""
    args = ("river_endgame", "--model", "paper", "--join", "separate")
    code, out, err, _ = interrupt_after(delay, *args, command="threshold", group=True)
    if code == 0:  # it finished before the signal: nothing to check
        pytest.skip(f"the command ended within {delay} s")
    assert (code, err, out) == (130, "equilibria: interrupted\n", "")


@pytest.mark.slow
@pytest.mark.parametrize("delay", [8.0, 12.0])
def test_ctrl_c_during_the_writer_of_a_large_model_acts_at_once(tmp_path, delay):
    """HiGHS's writer holds Python's lock: Ctrl-C while it wrote Rhode Island's shrunk LP
    (8 ranks, 533 MB) acted after 6.7 s. Large models are written in a child process."""
    args = ("rhode_island:ranks=8", "--write", str(tmp_path / "r.lp"), "--quiet")
    code, out, err, seconds = interrupt_after(delay, *args, command="shrink")
    assert (code, err, out) == (130, "equilibria: interrupted\n", "")
    assert seconds < 1.0
    assert listing(tmp_path) == []


def test_an_openspiel_game_stops_where_the_process_memory_would():
    """openspiel:liars_dice(dice_sides=10) built until memory ran out: the random-play
    estimate (6e6 nodes) falls far short. Nodes are now counted as the tree is walked,
    against this process's memory (here a limit 300 MB above what it holds)."""
    pytest.importorskip("pyspiel")
    held = "int(open('/proc/self/statm').read().split()[0]) * os.sysconf('SC_PAGE_SIZE')"
    res = run_with_address_limit(f"{held} + 300 * 2**20", "info", "openspiel:liars_dice(dice_sides=10)", load="pyspiel")
    refused = one_line_refusal(res)
    assert "OpenSpiel game 'liars_dice(dice_sides=10)' is too large" in refused


def test_ctrl_c_on_a_first_order_run_prints_its_best_certified_strategies():
    """An anytime run holds certified strategies: Ctrl-C shows them (status interrupted),
    then ends as an interrupt does, exit 130 and one line saying so. The signal is sent
    once the run has logged a certificate, so the strategies exist whatever the speed."""
    cmd = [str(Path(sys.executable).parent / "equilibria"), "solve", "leduc:ranks=6", "--algorithm", "cfr+"]
    proc = subprocess.Popen(
        [*cmd, "--iterations", "1000000000", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    said = []
    for line in proc.stderr:  # the run logs each certificate it reports: "cfr+: N iterations, exploitability E"
        said.append(line)
        if "exploitability" in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (said, err)
    answer = json.loads(out)
    assert answer["status"] == "interrupted" and answer["algorithm"] == "cfr+"
    assert 0.0 <= answer["exploitability"] < 1.0  # Leduc's payoffs reach 13 chips: far below any blunder
    assert err.strip().splitlines()[-1].startswith("equilibria: interrupted; the best strategies certified")
