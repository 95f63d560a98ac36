"""Output files all or nothing, interrupts, size refusals: the command line's contract.

Bad input or an unwritable target gives one line on stderr, exit status 2, no output and
no file; Ctrl-C gives exit status 130, the command unwinding at once: through its own
handling (not the console's last-resort exit), the solve cancelled rather than waited for.
How many seconds these take is measured in benchmarks/latency.py, not asserted here.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
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


def forbid_building(monkeypatch) -> list[str]:
    """Make building any view of any game fail (an AssertionError from its factory), for
    the length of a test; returns the list of what was attempted nonetheless (a caller
    that turns the AssertionError into an error line of its own cannot hide it)."""
    from equilibria.instances.registry import GameDescription

    attempted: list[str] = []
    made = GameDescription.__init__

    def forbidden(spec: str, view: str):
        def build():
            attempted.append(f"{spec} ({view})")
            raise AssertionError(f"the {view} form of {spec} was built before the size was checked")

        return build

    def without_building(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.factories = {view: forbidden(self.spec, view) for view in self.factories}

    monkeypatch.setattr(GameDescription, "__init__", without_building)
    return attempted


@pytest.mark.parametrize(
    "spec",
    ["generalized_kuhn:cards=100000000", "leduc:ranks=100000", "liars_dice:sides=12"],
)
def test_games_that_cannot_fit_are_refused_at_once_with_their_size(spec, monkeypatch):
    """At once: from the size estimate alone, nothing of the game built. (An ordered game
    too large for its tree but not for its signal tree, Rhode Island, goes through
    GameShrink instead: ``tests/test_plan.py``.)"""
    attempted = forbid_building(monkeypatch)
    res = run_cli("solve", spec)
    assert_refused(res, "is too large: about")
    assert "bytes available" in res.stderr
    assert attempted == []


def test_size_estimates_equal_the_built_trees():
    from equilibria import load
    from equilibria.instances import describe

    for spec in ("generalized_kuhn:cards=9", "leduc:ranks=4", "rhode_island:ranks=3,suits=2", "liars_dice:sides=5"):
        units, _ = describe(spec).estimate("extensive")
        assert units == load(spec).num_nodes, spec


# ------------------------------------------------------------------ interrupts, watched from inside

#: The instrumented console's grace before its last-resort exit (the console's own,
#: EXIT_GRACE, is 0.8 s): a command that can unwind does so long before it on any machine,
#: so a ``last-resort exit`` note says that the command could not unwind, however fast.
UNWIND_GRACE = 60.0

#: Seconds within which an interrupted command must end at all (a hang otherwise).
HANG = 300

#: ``equilibria`` as its console script runs it (``entry()`` of scripts/console.py), with
#: notes of what happens inside appended, one a line, to the file $EQUILIBRIA_TEST_NOTES:
#:
#: - ``last-resort exit``: the interrupt watcher ended the process itself, the command not
#:   having unwound within the grace ($EQUILIBRIA_TEST_GRACE seconds where set); the
#:   command's own handling runs in the main thread, the watcher in a thread of its own;
#: - ``THREAD started`` and ``THREAD ended STATUS`` around each HiGHS solve: THREAD the
#:   thread running it (``highs-ipx``), STATUS its model status (``kInterrupt``: cancelled);
#: - ``clarabel started`` and ``clarabel returned`` around Clarabel's solve;
#: - ``writing`` and ``written`` around HiGHS's model writer (in whichever process runs it).
#:
#: The solver libraries are hooked as they are first imported: nothing is imported before
#: ``entry()`` takes over the signals but what the console imports itself.
INSTRUMENTED_CONSOLE = r"""
import builtins, os, sys, threading
from equilibria.scripts import console

notes = os.open(os.environ["EQUILIBRIA_TEST_NOTES"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
if os.environ.get("EQUILIBRIA_TEST_GRACE"):
    console.EXIT_GRACE = float(os.environ["EQUILIBRIA_TEST_GRACE"])
unwound = console.interrupted


def interrupted(*args):
    if threading.current_thread() is not threading.main_thread():
        os.write(notes, b"last-resort exit\n")
    unwound(*args)


console.interrupted = interrupted


def hook_highspy(highspy):
    run, write = highspy.Highs.run, highspy.Highs.writeModel

    def watched_run(self):
        name = threading.current_thread().name
        os.write(notes, f"{name} started\n".encode())
        try:
            return run(self)
        finally:
            os.write(notes, f"{name} ended {self.getModelStatus().name}\n".encode())

    def watched_write(self, *args):
        os.write(notes, b"writing\n")
        status = write(self, *args)
        os.write(notes, b"written\n")
        return status

    highspy.Highs.run, highspy.Highs.writeModel = watched_run, watched_write


def hook_clarabel(clarabel):
    solver = clarabel.DefaultSolver

    class Watched:
        def __init__(self, *args):
            self.solver = solver(*args)

        def __getattr__(self, name):
            return getattr(self.solver, name)

        def solve(self):
            os.write(notes, b"clarabel started\n")
            try:
                return self.solver.solve()
            finally:  # os.write first: no Python call here may take a pending interrupt before it
                os.write(notes, b"clarabel returned\n")

    clarabel.DefaultSolver = Watched


HOOKS = {"highspy": ("Highs", hook_highspy), "clarabel": ("DefaultSolver", hook_clarabel)}
imported = builtins.__import__


def importing(*args, **kwargs):
    module = imported(*args, **kwargs)
    for name, (attribute, hook) in list(HOOKS.items()):
        if hasattr(sys.modules.get(name), attribute) and HOOKS.pop(name, None):
            hook(sys.modules[name])
    return module


builtins.__import__ = importing
sys.argv = ["equilibria", *sys.argv[1:]]
console.entry()
"""


def instrumented_env(notes: Path, grace: float | None = UNWIND_GRACE) -> dict[str, str]:
    """The environment of an instrumented console writing its notes to ``notes``, its
    last-resort exit after ``grace`` seconds (None: after the console's own)."""
    env = dict(os.environ, EQUILIBRIA_TEST_NOTES=str(notes))
    if grace is not None:
        env["EQUILIBRIA_TEST_GRACE"] = str(grace)
    return env


def start_instrumented(argv, notes: Path, grace: float | None = UNWIND_GRACE, **popen) -> subprocess.Popen:
    """``equilibria ARGV`` in the instrumented console, in a process of its own."""
    return subprocess.Popen(
        [sys.executable, "-c", INSTRUMENTED_CONSOLE, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=instrumented_env(notes, grace),
        **popen,
    )


def read_notes(notes: Path) -> list[str]:
    return notes.read_text().splitlines() if notes.exists() else []


def interrupt_after(delay, *args, signum=signal.SIGINT, command="solve", group=False, until=None, grace=UNWIND_GRACE):
    """Start ``equilibria COMMAND ...`` (``solve``) in the instrumented console, send
    ``signum`` (SIGINT) ``delay`` seconds in, or as soon as a note starting with ``until``
    is written, to its whole process group with ``group`` (as a terminal's Ctrl-C does);
    return the exit status, output, error and the notes. ``grace``: the seconds before the
    watcher's last-resort exit (None: the console's own)."""
    with tempfile.TemporaryDirectory() as scratch:
        notes = Path(scratch) / "notes"
        proc = start_instrumented([command, *args], notes, grace, start_new_session=group)
        if until is None:
            time.sleep(delay)
        else:
            waited = 0.0
            while proc.poll() is None and not any(n.startswith(until) for n in read_notes(notes)):
                assert waited < HANG, f"no note {until!r} after {HANG} s"
                time.sleep(0.02)
                waited += 0.02
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=HANG)
        return proc.returncode, out, err, read_notes(notes)


def highs_runs(notes: list[str]) -> list[str]:
    """The notes of HiGHS's solver threads (``highs-ipx started``, ``highs-ipx ended kInterrupt``)."""
    return [n for n in notes if n.startswith("highs-")]


def test_ctrl_c_during_a_solve_exits_130_and_cancels_it(tmp_path):
    """Sent as HiGHS starts: the command unwinds by its own handling, not the watcher's
    last-resort exit, and cancels the solve instead of waiting for it (no run ends with a
    status of its own)."""
    out_file = tmp_path / "s.csv"
    code, out, err, notes = interrupt_after(
        None, "leduc:ranks=10", "--no-shrink", "--strategy-out", str(out_file), "--quiet", until="highs-"
    )
    assert code == 130 and err == "equilibria: interrupted\n" and out == ""
    assert listing(tmp_path) == []
    assert "last-resort exit" not in notes, notes
    runs = highs_runs(notes)
    assert runs[0].endswith(" started"), notes
    assert all(n.endswith(" started") or n.endswith(" ended kInterrupt") for n in runs), notes


@pytest.mark.parametrize(
    ("signum", "code", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")]
)
@pytest.mark.parametrize("delay", [0.5, 2.0, 5.0])
def test_sigterm_and_sighup_end_a_solve_as_ctrl_c_does(tmp_path, signum, code, word, delay):
    """Once the process died by the signal and left its temporary file beside the target.
    Now it unwinds by its own handling, whenever the signal comes (start-up, building,
    solving), never through the watcher's last-resort exit."""
    out_file = tmp_path / "s.csv"
    got, out, err, notes = interrupt_after(
        delay, "leduc:ranks=10", "--no-shrink", "--strategy-out", str(out_file), "--quiet", signum=signum
    )
    assert got == code and err == f"equilibria: {word}\n" and out == ""
    assert "last-resort exit" not in notes, notes
    assert listing(tmp_path) == []


def test_ctrl_c_during_a_clarabel_solve_exits_130_while_clarabel_still_runs(tmp_path):
    """Clarabel (chosen by the default rule for mid-sized LPs) runs in Rust, outside
    Python's signal checks: the interrupt still ends the command at once, while Clarabel's
    solve has not returned (the watcher's grace shortened to 0.1 s here, so that this does
    not depend on how long Clarabel takes)."""
    out_file = tmp_path / "s.csv"
    code, out, err, notes = interrupt_after(
        None,
        *("leduc:ranks=8", "--no-shrink", "--backend", "clarabel", "--strategy-out", str(out_file), "--quiet"),
        until="clarabel started",
        grace=0.1,
    )
    assert code == 130 and err == "equilibria: interrupted\n" and out == ""
    assert listing(tmp_path) == []
    assert "clarabel started" in notes and "clarabel returned" not in notes, notes


@pytest.mark.slow
@pytest.mark.parametrize("method", ["concurrent", "simplex", "ipx", "pdlp", "ipm"])
@pytest.mark.parametrize("delay", [0.2, 1.0, 3.0, 10.0])
def test_ctrl_c_at_any_moment_exits_130_by_unwinding(method, delay, tmp_path):
    """Whatever the method and the moment: the command's own handling, never the watcher's
    last-resort exit."""
    code, out, err, notes = interrupt_after(delay, "leduc:ranks=10", "--no-shrink", "--method", method, "--json")
    assert code == 130, err
    assert err.strip().splitlines()[-1] == "equilibria: interrupted" and out == ""
    assert "last-resort exit" not in notes, notes


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
    code, out, err, _ = interrupt_after(delay, *args, command="threshold", group=True, grace=None)
    if code == 0:  # it finished before the signal: nothing to check
        pytest.skip(f"the command ended within {delay} s")
    assert (code, err, out) == (130, "equilibria: interrupted\n", "")


@pytest.mark.slow
def test_ctrl_c_during_the_writer_of_a_large_model_acts_at_once(tmp_path):
    """HiGHS's writer holds Python's lock: Ctrl-C while it wrote Rhode Island's shrunk LP
    (8 ranks, 533 MB) acted after 6.7 s. Large models are written in a child process:
    Ctrl-C as the writing starts unwinds the command by its own handling and the write
    never finishes (the child is killed, not waited for)."""
    args = ("rhode_island:ranks=8", "--write", str(tmp_path / "r.lp"), "--quiet")
    code, out, err, notes = interrupt_after(None, *args, command="shrink", until="writing")
    assert (code, err, out) == (130, "equilibria: interrupted\n", "")
    assert listing(tmp_path) == []
    assert "last-resort exit" not in notes and "written" not in notes, notes


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
