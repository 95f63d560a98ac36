"""What users hit when they run every workflow: each test runs the command as a user types
it (a subprocess, so the exit status, standard output and standard error are the real
ones) and holds it to the command-line contract: an answer with exit 0, or one line on
standard error and exit 2, never a traceback."""

import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from equilibria.solvers import available_backends
from tests.conftest import error_lines, one_line_refusal, run_cli, run_python
from tests.test_robustness import HANG, INSTRUMENTED_CONSOLE, instrumented_env, read_notes, start_instrumented


# ---------------------------------------------------------------- backends and their licenses
@pytest.mark.parametrize("backend", ["xpress", "pyomo:xpress_direct", "gurobi", "pyomo:gurobi_direct"])
def test_a_game_beyond_a_free_license_is_refused_in_one_line(backend):
    if backend not in available_backends():
        pytest.skip(f"{backend} is not installed here")
    line = one_line_refusal(run_cli("solve", "leduc:ranks=4", "--no-shrink", "--backend", backend))
    assert "license" in line


def test_openspiel_games_without_open_spiel_installed_say_how_to_install_it():
    """With open_spiel absent (hidden from the import system here) the command says which
    extra installs it, in one line."""
    code = (
        "import sys; sys.modules['pyspiel'] = None; sys.modules['open_spiel'] = None\n"
        "from equilibria.scripts.console import entry\n"
        "sys.argv = ['equilibria', 'solve', 'openspiel:kuhn_poker']\n"
        "entry()\n"
    )
    line = one_line_refusal(run_python(code))
    assert "equilibria[openspiel]" in line


# ---------------------------------------------------------------- interrupts and progress
EQUILIBRIA = str(Path(sys.executable).with_name("equilibria"))


def interrupted_after(delay: float, *args, until: str | None = None, timeout: float = 120.0):
    """Start the ``equilibria`` console command, instrumented (tests/test_robustness.py:
    its notes say whether the watcher's last-resort exit ended it), send SIGINT ``delay``
    seconds in (or once ``until`` appears on its standard error), and return (exit status,
    standard error, the notes)."""
    with tempfile.TemporaryDirectory() as scratch:
        notes = Path(scratch) / "notes"
        proc = start_instrumented(list(args), notes)
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.extend(proc.stderr), daemon=True)
        reader.start()
        start = time.monotonic()
        while time.monotonic() < start + timeout:
            if proc.poll() is not None:
                break
            if (until is None and time.monotonic() >= start + delay) or (until is not None and until in "".join(said)):
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        status = proc.wait(timeout=HANG)
        reader.join(5)
        return status, "".join(said), read_notes(notes)


def assert_clean_interrupt(status, stderr, notes):
    """Exit 130 and the one line, by the command's own unwinding: the watcher's
    last-resort exit (which ends a command that cannot unwind) never came."""
    assert status == 130, (status, stderr)
    assert "last-resort exit" not in notes, (notes, stderr)
    assert stderr.strip().splitlines()[-1] == "equilibria: interrupted"
    assert "Traceback" not in stderr and "Warning" not in stderr and "ERROR" not in stderr, stderr


@pytest.mark.parametrize("delay", [1, 3, pytest.param(10, marks=pytest.mark.slow)])
@pytest.mark.parametrize(
    "command",
    [
        # four-player Kuhn: each command runs for minutes, so the signal always comes
        # mid-run however fast the machine (three players end in about 3 s on some)
        ("threshold", "kuhn:players=4", "--backend", "scip", "--epsilon", "1e-6"),
        ("nash", "kuhn:players=4", "--products", "exact", "--backend", "scip"),
        ("nash", "kuhn:players=4", "--products", "log", "--backend", "scip", "--epsilon", "1e-6"),
    ],
    ids=["threshold-scip", "nash-exact-scip", "nash-log-scip"],
)
def test_ctrl_c_during_a_scip_solve_exits_130_by_unwinding(command, delay):
    """Ctrl-C 1, 3 or 10 s in, whatever the command is doing then (starting, building,
    SCIP solving): exit 130 and one line, by the command's own unwinding."""
    assert_clean_interrupt(*interrupted_after(delay, *command))


def test_ctrl_c_started_in_the_background_still_unwinds_at_once(tmp_path):
    """A shell starts background commands with SIGINT ignored; the command still unwinds
    by its own handling, not through its last-resort exit (the instrumented console notes
    that exit, which ends a command that cannot unwind)."""
    console = tmp_path / "console.py"
    console.write_text(INSTRUMENTED_CONSOLE)
    notes = tmp_path / "notes"
    script = tmp_path / "run.sh"
    script.write_text(
        f'"{sys.executable}" "{console}" threshold kuhn:players=4 --epsilon 1e-6 2> "{tmp_path}/err" &\n'
        "pid=$!\nsleep 3\nkill -INT $pid\nwait $pid\necho $?\n"
    )
    res = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, timeout=HANG, env=instrumented_env(notes)
    )
    assert res.stdout.strip() == "130"
    assert (tmp_path / "err").read_text().strip().splitlines()[-1] == "equilibria: interrupted"
    assert "last-resort exit" not in read_notes(notes)


def test_a_sweep_says_which_cells_run_and_stops_at_once_without_warnings(tmp_path):
    status, stderr, notes = interrupted_after(
        0,
        "sweep", "--route", "threshold", "--game", "kuhn:players=3", "--option", "breakpoints=3,4",
        "--workers", "2", "-o", str(tmp_path / "sweep"),
        until="running kuhn:players=3 breakpoints=",
    )  # fmt: skip
    assert_clean_interrupt(status, stderr, notes)
    assert "running kuhn:players=3 breakpoints=3 (" in stderr


@pytest.mark.parametrize("delay", [1, 3, pytest.param(10, marks=pytest.mark.slow)])
def test_an_interrupted_sweep_leaves_only_what_it_resumes_from(delay, tmp_path):
    """Ctrl-C 1, 3 or 10 s into a sweep: exit 130 by the sweep's own unwinding; a sweep
    stopped before any cell finished leaves nothing, one stopped later leaves its finished
    cells' records (and the tables rebuilt from them), from which the next run goes on;
    never a temporary file."""
    out = tmp_path / "sweep"
    status, stderr, notes = interrupted_after(
        delay,
        "sweep", "--route", "threshold", "--game", "kuhn:players=3", "--option", "breakpoints=3,4,5,6,7,8",
        "--workers", "2", "-o", str(out),
    )  # fmt: skip
    assert_clean_interrupt(status, stderr, notes)
    left = sorted(p.name for p in tmp_path.iterdir())
    records = sorted((tmp_path / "sweep.cells").glob("*")) if "sweep.cells" in left else []
    if not records:
        assert left == [], left
    else:
        assert left == ["sweep.cells", "sweep.csv", "sweep.parquet"], left
        for record in records:
            assert record.suffix == ".json" and json.loads(record.read_text())["status"] != "error"


@pytest.mark.parametrize(
    "backend,words", [("scip", "SCIP: 5 s, "), pytest.param("highs", "HiGHS: 5 s, ", marks=pytest.mark.slow)]
)
def test_a_mip_solve_reports_nodes_incumbent_and_bound_every_five_seconds(backend, words):
    res = run_cli(
        "threshold", "generalized_kuhn:players=3,cards=6", "--model", "standard", "--backend", backend,
        "--epsilon", "0.01", "--time-limit", "15",
    )  # fmt: skip
    line = next(line for line in res.stderr.splitlines() if words in line)
    assert " nodes, " in line and ("incumbent" in line)
    assert "choose" not in res.stderr


# ---------------------------------------------------------------- answers that say what ran
def test_a_hipo_request_runs_hipo_or_is_refused():
    """Wheels of highspy built without HiPO run simplex when HiPO is asked for and say so
    only in their log: the answer must not claim 'method hipo' then."""
    from equilibria.solvers.highs import hipo_missing

    res = run_cli("solve", "kuhn", "--method", "hipo")
    if hipo_missing() is None:
        assert res.returncode == 0 and "method hipo" in res.stdout
    else:
        assert "HiPO" in one_line_refusal(res)


# ---------------------------------------------------------------- files for other tools
@pytest.mark.parametrize("spec", ["kuhn_rules", "liars_dice_rules:sides=3", "leduc_rules"])
def test_efg_files_of_rules_games_load_in_pygambit_with_our_value(spec, tmp_path):
    """Chance nodes of rules games repeat their labels ("the dealer's card"), which
    pygambit refuses ("Node label must be unique"): the written file must load, and
    Gambit's LP must give our value."""
    gbt = pytest.importorskip("pygambit")
    from equilibria import load, solve_game
    from equilibria.models.efg_io import write_efg

    from .gambit_compat import equilibrium, first_payoff

    path = tmp_path / "game.efg"
    game = load(spec)
    write_efg(game, path)
    theirs = gbt.read_efg(str(path))
    if spec != "leduc_rules":  # Gambit's dense LP takes minutes on Leduc
        value = first_payoff(equilibrium(gbt.nash.lp_solve(theirs, rational=False)), theirs)
        assert solve_game(game).value == pytest.approx(value, abs=1e-9)


def test_export_goes_by_the_file_name_and_refuses_a_contradiction(tmp_path):
    res = run_cli("export", "kuhn", "-o", str(tmp_path / "k.efg"))
    assert res.returncode == 0 and (tmp_path / "k.efg").read_text().startswith("EFG 2 R")
    res = run_cli("export", "kuhn", "-o", str(tmp_path / "k.lp"))
    assert res.returncode == 0 and "max" in (tmp_path / "k.lp").read_text().splitlines()[:3]
    line = one_line_refusal(run_cli("export", "leduc", "--format", "lp", "-o", str(tmp_path / "x.mps")))
    assert "--format lp" in line and not (tmp_path / "x.mps").exists()
    res = run_cli("export", "kuhn", "--format", "efg", "-o", str(tmp_path / "game"))
    assert res.returncode == 0 and (tmp_path / "game").read_text().startswith("EFG 2 R")


# ---------------------------------------------------------------- constant-sum games
def kuhn_plus_16(folder: Path) -> Path:
    """The bundled Kuhn poker .efg with 16 added to every payoff of player 2 (constant-sum)."""
    import re

    from equilibria.instances import registry  # noqa: F401  (the bundled file's folder)

    source = (Path(registry.__file__).parent / "kuhn_poker.efg").read_text()
    shifted = re.sub(r"\{ *([-\d./]+)\s*,?\s*([-\d./]+) *\}", lambda m: f"{{ {m[1]}, {float(m[2]) + 16} }}", source)
    path = folder / "kuhn16.efg"
    path.write_text(shifted)
    return path


def test_a_constant_sum_game_is_solved_as_zero_sum_and_says_so(tmp_path):
    """Kuhn poker with 16 added to every payoff of player 2: the same equilibria, player 1's
    value -1/18 (Kuhn 1950) and player 2's payoff 16 + 1/18."""
    path = kuhn_plus_16(tmp_path)
    res = run_cli("solve", str(path), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["value"] == pytest.approx(-1 / 18, abs=1e-9) and out["payoff_sum"] == 16
    assert out["payoffs"] == pytest.approx([-1 / 18, 16 + 1 / 18], abs=1e-9)
    assert out["exploitability"] <= 1e-9 and out["value_bounds"] == pytest.approx([-1 / 18, -1 / 18], abs=1e-9)
    assert "constant sum" in run_cli("solve", str(path)).stdout


# ---------------------------------------------------------------- answers the certificate rejects
def test_a_finite_threshold_program_that_admits_a_non_equilibrium_is_solved_again_per_signal():
    """generalized_kuhn:cards=4 with its standard model: the program that checks only the
    thresholds answers with exploitability 1/4 (an empty region); the route solves again
    with a best-response row per signal and certifies that answer."""
    res = run_cli("threshold", "generalized_kuhn:cards=4", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["is_equilibrium"] and out["exploitability"] <= 1e-9
    assert "--every-signal" in out["note"] and "is empty" in out["note"]
    # the value of G_4 from the sequence-form LP on its extensive form
    lp = json.loads(run_cli("solve", "generalized_kuhn:cards=4", "--json").stdout)
    assert out["value"] == pytest.approx(lp["value"], abs=1e-9)


def test_a_continuous_answer_that_is_no_equilibrium_is_no_answer_exit_1():
    res = run_cli("threshold", "river_endgame", "--model", "check_first")
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 1 and res.stdout == "" and len(lines) == 1, res.stderr
    assert lines[0].startswith("equilibria: no answer: model 'check_first' gives no equilibrium")
    # every region has width here: what is left free is the inside of the regions
    assert "signals inside some region gain by another plan" in lines[0] and "empty" not in lines[0]
    assert run_cli("threshold", "river_endgame", "--model", "check_first", "--json").returncode == 1


# ---------------------------------------------------------------- messages
def test_backends_lists_every_pyomo_solver_and_how_to_get_the_missing_ones():
    res = run_cli("backends")
    rows = {line.split()[0]: line for line in res.stdout.splitlines()[1:]}
    assert {"pyomo:glpk", "pyomo:cbc", "pyomo:appsi_highs", "pyomo:scip_direct"} <= set(rows)
    if "pyomo:glpk" not in available_backends():
        assert "glpk-utils" in rows["pyomo:glpk"]
        line = one_line_refusal(run_cli("solve", "kuhn", "--backend", "pyomo:glpk"))
        assert "glpk-utils" in line and "NAME" not in line
    for name, row in rows.items():
        if " no " in row and not name.startswith("pyomo:"):
            assert "pip install 'equilibria[" in row  # quoted: zsh would expand the brackets


def test_version_and_help_say_what_each_argument_is():
    from importlib.metadata import version

    res = run_cli("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"equilibria {version('equilibria')}"
    for command in ("solve", "info", "export", "show", "play"):
        text = " ".join(run_cli(command, "--help").stdout.split())
        assert "game a game: a registered name" in text, command
    for command in ("threshold", "nash"):
        text = " ".join(run_cli(command, "--help").stdout.split())
        assert "--time-limit TIME_LIMIT seconds" in text, command
    sweep = " ".join(run_cli("sweep", "--help").stdout.split())
    assert "--x COLUMN with --plot" in sweep and "--series COLUMN with --plot" in sweep


@pytest.mark.parametrize(
    "script", ["qualitative_figure1", "qualitative_figure2", "gameshrink_sweep", "rhode_island_solve"]
)
def test_script_descriptions_are_whole_sentences(script):
    checkout = Path(__file__).resolve().parents[1]  # research/ runs from a checkout
    res = subprocess.run(
        [sys.executable, "-m", f"research.{script}", "--help"], capture_output=True, text=True, cwd=checkout
    )
    description = " ".join(res.stdout.split("\n\n")[1].split())
    assert res.returncode == 0 and description.endswith(".")


def test_an_unknown_openspiel_game_names_the_closest_ones():
    pytest.importorskip("pyspiel")
    line = one_line_refusal(run_cli("solve", "openspiel:kuhn_pokr"))
    assert "no game 'kuhn_pokr'" in line and "kuhn_poker" in line and "Available games are:" not in line


def test_a_sweep_runs_the_nash_route(tmp_path):
    res = run_cli(
        "sweep", "--route", "nash", "--game", "kuhn:players=3", "--option", "epsilon=0.01",
        "--workers", "0", "-o", str(tmp_path / "nash"),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    import pandas as pd

    row = pd.read_csv(tmp_path / "nash.csv").iloc[0]
    assert row["status"] == "optimal" and row["nash_conv"] <= 0.01
    assert row["certified_epsilon"] <= row["bound_at_answer"] <= row["promised_epsilon"]


def test_or_tools_methods_for_programs_with_continuous_columns():
    if "ortools" not in available_backends():
        pytest.skip("OR-Tools is not installed here")
    # CP-SAT would scale the program to integers and may call it infeasible: refused
    line = one_line_refusal(run_cli("threshold", "one_street:pot=2", "--backend", "ortools", "--method", "cp_sat"))
    assert "continuous columns" in line and "method 'scip'" in line
    res = run_cli("threshold", "one_street:pot=2", "--backend", "ortools", "--method", "scip", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["exploitability"] <= 1e-6


def test_plots_are_checked_before_the_work_and_follow_the_infoset_filter(tmp_path):
    for command in (
        ["show", "kuhn", "--plot", str(tmp_path / "k.mps")],
        ["sweep", "--game", "kuhn", "-o", str(tmp_path / "s"), "--plot", str(tmp_path / "s.out"), "--x", "spec",
         "--y", "seconds"],
        ["sweep", "--game", "kuhn", "-o", str(tmp_path / "s"), "--plot", str(tmp_path / "no" / "s.png"), "--x",
         "spec", "--y", "seconds"],
    ):  # fmt: skip
        one_line_refusal(run_cli(*command))
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no sweep ran, nothing written
    pytest.importorskip("matplotlib")
    import matplotlib

    from equilibria.presentation import plot_strategies, present
    from equilibria.scripts.play import equilibrium_for

    answer = equilibrium_for("kuhn")
    pres = present(answer.sequence_form.game, answer.behaviors)
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text as text, not glyph outlines
        plot_strategies(pres, str(tmp_path / "all.svg"))
        plot_strategies(pres, str(tmp_path / "k.svg"), pattern="^K")
    every, only_k = (tmp_path / "all.svg").read_text(), (tmp_path / "k.svg").read_text()
    assert ">J<" in every and ">J<" not in only_k and ">K<" in only_k


def test_yaml_grids_are_installed_with_the_sweep_extra():
    from importlib.metadata import requires

    assert any(r.startswith("pyyaml") and 'extra == "sweep"' in r for r in requires("equilibria"))


# ---------------------------------------------------------------- how numbers and counts read
def test_numbers_and_counts_read_as_words_do():
    from equilibria.models.wording import fixed, plural

    assert fixed(-1e-17, 9) == "0.000000000" and fixed(-0.5, 3) == "-0.500" and fixed(2.0, 2) == "2.00"
    assert (
        plural(1, "round") == "1 round" and plural(0, "error") == "0 errors" and plural(1234, "cell") == "1,234 cells"
    )


def test_cosmetics_of_info_shrink_and_show(tmp_path):
    game = tmp_path / "one.efg"
    game.write_text(
        'EFG 2 R "one" { "A" "B" }\n""\np "" 1 1 "a" { "x" "y" } 0\nt "" 1 "o1" { 1, -1 }\nt "" 2 "o2" { 0, 0 }\n'
    )
    info = run_cli("info", str(game)).stdout
    assert "1 information set, 3 sequences" in info and "0 information sets, 1 sequence" in info
    assert "(shrunk)" not in run_cli("shrink", "leduc", "--rule", "none").stdout
    assert "(shrunk)" in run_cli("shrink", "leduc").stdout
    shown = run_cli("show", str(game), "--beliefs").stdout
    assert "beliefs: nothing hidden" in shown and " - 1.0000" not in shown


def test_the_wheel_carries_the_rules_files_without_setuptools_warnings(tmp_path):
    import zipfile

    root = Path(__file__).resolve().parents[1]
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(root)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    assert "would be ignored" not in res.stdout + res.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "equilibria/instances/rules/kuhn_rules.py" in names and "equilibria/instances/kuhn_poker.efg" in names


# ---------------------------------------------------------------- standard output is the answer
@pytest.mark.parametrize(
    "command",
    [
        ("solve", "kuhn"),
        ("solve", "kuhn", "--backend", "scip"),
        ("nash", "mipnash_test:k=2"),
        ("threshold", "one_street"),
        ("shrink", "leduc"),
    ],
)
def test_verbose_json_keeps_the_solver_log_off_standard_output(command):
    res = run_cli(*command, "--verbose", "--json")
    assert res.returncode == 0, res.stderr
    json.loads(res.stdout)  # the JSON and nothing else


GOOD_RULES = 'def rules(g):\n    x = g.choose(0, ["a", "b"])\n    g.outcome([1, -1] if x == "a" else [-1, 1])\n'

RULES_FILES = {
    # what a rules file does, and the words of the one error line it gets (None: it solves)
    "prints": ('print("loading")\n' + GOOD_RULES.replace("    x =", '    print("playing")\n    x ='), None),
    "closes_stdout": ("import sys\n" + GOOD_RULES.replace("    x =", "    sys.stdout.close()\n    x ="), None),
    "bom": ("\ufeff" + GOOD_RULES, None),
    "latin1": ("# caf\u00e9\n" + GOOD_RULES, None),
    "exit_number": ("import sys\nsys.exit(7)\n", "sys.exit(7)"),
    "exit_text": ('def rules(g):\n    raise SystemExit("bye")\n', "sys.exit('bye')"),
    "a_class": ("class rules:\n    def __init__(self, g):\n        pass\n", "defines no function rules"),
    "a_builtin": ("rules = print\n", "defines no function rules"),
    "generator_exit": ("def rules(g):\n    raise GeneratorExit\n", "GeneratorExit"),
    "base_exception": ("def rules(g):\n    raise BaseException('odd')\n", "BaseException: odd"),
    "keyboard_interrupt": ("raise KeyboardInterrupt\n", "raised KeyboardInterrupt"),
}


@pytest.mark.parametrize("case", sorted(RULES_FILES))
def test_rules_files_that_misbehave_get_one_line_and_never_touch_the_answer(case, tmp_path):
    text, words = RULES_FILES[case]
    path = tmp_path / f"{case}.py"
    path.write_bytes(text.encode("latin-1" if case == "latin1" else "utf-8"))
    res = subprocess.run([EQUILIBRIA, "solve", str(path), "--json"], capture_output=True, text=True, timeout=120)
    if words is None:
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["value"] == 1.0  # the chooser takes a, which pays 1
    else:
        assert words in one_line_refusal(res)


def test_sweep_option_values_out_of_range_or_of_the_wrong_kind_are_bad_input(tmp_path):
    for route, option in (("lp", "time_limit=-1"), ("shrink", "threshold=-1"), ("threshold", "breakpoints=1")):
        game = "one_street" if route == "threshold" else "kuhn"
        args = ("sweep", "--route", route, "--game", game, "--option", option, "-o", str(tmp_path / "s"))
        assert option.split("=")[0] in one_line_refusal(run_cli(*args))
    grid = tmp_path / "dates.yaml"
    grid.write_text("route: lp\ngames: [kuhn]\noptions:\n  time_limit: 2024-01-01\n")
    assert "date" in one_line_refusal(run_cli("sweep", "--grid", str(grid), "-o", str(tmp_path / "s")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dates.yaml"]


# ---------------------------------------------------------------- commands that ran unbounded
def test_show_bounds_a_general_sum_search_when_no_time_limit_is_given():
    """show on a general-sum game used to run MIP Nash without a limit (sheriff: 46,821
    rows, no incumbent after minutes); without --time-limit it now stops the planned route
    (Lemke's pivots, for two players) after its default (3 s here instead of 60) with one
    line that says how to search longer, and exit 1: the run ended without the answer
    asked for."""
    code = (
        "import sys\n"
        "import equilibria.scripts.play as play\n"
        "play.DEFAULT_NASH_SECONDS = 3\n"
        "from equilibria.scripts.console import entry\n"
        "sys.argv = ['equilibria', 'show', 'sheriff', '--quiet']\n"
        "entry()\n"
    )
    run = run_python(code)
    lines = error_lines(run.stderr)
    assert run.returncode == 1 and run.stdout == "" and len(lines) == 1, run.stderr
    assert "no equilibrium found in 3 s" in lines[0] and "--time-limit" in lines[0]


def test_show_solves_a_constant_sum_game_by_the_lp(tmp_path):
    """Kuhn poker with 16 added to player 2's payoffs is constant-sum: show takes the
    sequence-form LP like solve (it ran MIP Nash on it) and shows player 1's value -1/18."""
    path = kuhn_plus_16(tmp_path)
    run = run_cli("show", str(path), "--json")
    assert run.returncode == 0, run.stderr
    shown = json.loads(run.stdout)
    assert shown["route"] == "lp"
    assert shown["payoffs"] == pytest.approx([-1 / 18, 16 + 1 / 18], abs=1e-9)  # Kuhn (1950)
    assert shown["nash_conv"] <= 1e-9


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("def rules(g):\n    while True:\n        pass\n", 2, "without a move"),
        (
            "def rules(g):\n    c = g.chance([1, 2])\n    while c == 2:\n        pass\n    g.outcome([1, -1])\n",
            3,
            "without a move",
        ),
        ("x = 0\nwhile True:\n    x += 1\n", 2, "top level ran"),
    ],
)
def test_an_endless_rules_file_is_stopped_with_its_line(text, line, words, tmp_path):
    """A rules file that loops without calling g (or never finishes loading) ran for ever:
    the move limit counts only moves. It is stopped after NO_MOVE_SECONDS (2 s here) with
    the line it was looping on."""
    path = tmp_path / "endless.py"
    path.write_text(text)
    code = (
        "import sys\n"
        "import equilibria.models.rules as rules\n"
        "rules.NO_MOVE_SECONDS = 2\n"
        "from equilibria.scripts.console import entry\n"
        f"sys.argv = ['equilibria', 'info', {str(path)!r}]\n"
        "entry()\n"
    )
    error = one_line_refusal(run_python(code, timeout=60))
    assert f"endless.py:{line}:" in error and words in error


def test_rules_games_beyond_the_machine_are_refused_before_building():
    """kuhn_rules with 100,000 cards has 1e10 deals: the estimate from random plays refuses
    it at once, naming its size (it used to build until stopped)."""
    error = one_line_refusal(run_cli("solve", "kuhn_rules:cards=100000", timeout=60))
    assert "too large" in error and "billion nodes" in error


@pytest.mark.parametrize("spec", ["kuhn_rules:cards=12", "leduc_rules", "sheriff_rules", "kuhn3_rules"])
def test_the_random_play_estimate_is_near_the_tree_built(spec):
    """Knuth's estimate (1975) from random plays against the node count of the tree the
    rules build: within a factor of two on the shipped rules."""
    from equilibria.instances import describe

    description = describe(spec)
    estimated, _ = description.estimate("extensive")
    built = description.extensive().num_nodes
    assert built / 2 <= estimated <= 2 * built, (estimated, built)


def test_a_rules_tree_stops_at_the_node_budget(tmp_path):
    from equilibria.models.rules import TreeTooLarge, generate

    path = tmp_path / "wide.py"
    path.write_text("def rules(g, n=100):\n    a = g.chance(range(n))\n    g.outcome([a, -a])\n")
    with pytest.raises(TreeTooLarge, match="beyond 50 nodes"):
        generate(path, max_nodes=50)
    assert generate(path, max_nodes=101).num_nodes == 101  # a root and its 100 outcomes


# ---------------------------------------------------------------- what is left behind
def test_export_writes_through_a_link_and_keeps_it(tmp_path):
    """A link as the target: the file it names gets the content (created if the link
    dangles), the link stays a link; a link into a missing folder is refused in one line."""
    import os

    (tmp_path / "old.mps").write_text("old")
    for link, real in (("to_old.mps", "old.mps"), ("dangling.mps", "new.mps")):
        os.symlink(real, tmp_path / link)
        run = run_cli("export", "kuhn", "-o", str(tmp_path / link), "--quiet")
        assert run.returncode == 0, run.stderr
        assert (tmp_path / link).is_symlink()
        assert (tmp_path / real).read_text().startswith("NAME")
    os.symlink("missing/x.mps", tmp_path / "into_missing.mps")
    line = one_line_refusal(run_cli("export", "kuhn", "-o", str(tmp_path / "into_missing.mps")))
    assert "whose folder does not exist" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dangling.mps", "into_missing.mps", "new.mps", "old.mps", "to_old.mps",
    ]  # fmt: skip


def test_a_sweep_that_fails_before_any_cell_leaves_nothing(tmp_path):
    """An unreachable Dask scheduler: one line, exit 2, and no store or table behind (the
    wait for the scheduler cut from 20 s to 3 here)."""
    code = (
        "import sys\n"
        "import equilibria.sweep.runners as sweep\n"
        "sweep.SCHEDULER_SECONDS = 3\n"
        "from equilibria.scripts.console import entry\n"
        f"sys.argv = ['equilibria', 'sweep', '--game', 'kuhn', '-o', {str(tmp_path / 'r')!r},\n"
        "            '--scheduler', 'tcp://127.0.0.1:9', '--quiet']\n"
        "entry()\n"
    )
    line = one_line_refusal(run_python(code))
    assert "scheduler" in line
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_whose_tables_cannot_be_written_keeps_its_records_and_says_so(tmp_path):
    """Files limited to 2 KB (a full disk as the writer meets it): the cells' records fit,
    the Parquet table does not; the error says where the records are, and the next run
    (without the limit) finishes from them without solving again."""
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    args = [EQUILIBRIA, "sweep", "--game", "kuhn", "--game", "leduc:ranks=3", "-o", str(tmp_path / "r"), "--quiet"]
    run = subprocess.run(args, capture_output=True, text=True, timeout=300, preexec_fn=small_files)
    line = one_line_refusal(run)
    assert "2 cells recorded in" in line and "run the sweep again" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.cells"]
    assert len(list((tmp_path / "r.cells").glob("*.json"))) == 2
    again = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "2 already recorded" in again.stdout, again.stderr


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_constant_sum_is_decided_a_chunk_at_a_time_as_on_the_whole(monkeypatch, chunk):
    """The payoff sums are checked a chunk of outcomes at a time (a shrunk Rhode Island
    hold'em has 1.2e8 of them); the verdict is the one of the sums over all outcomes."""
    from equilibria.models import constant_sum as cs

    monkeypatch.setattr(cs, "CHUNK", chunk)
    rng = np.random.default_rng(5)
    two = rng.integers(-8, 9, (11, 2)).astype(np.float32)
    two[:, 1] = -two[:, 0]
    assert cs.constant_sum(two) == 0.0 and cs.is_zero_sum(two)
    assert cs.constant_sum(two + np.float32([0, 16])) == 16.0
    off = two.astype(np.float64)
    off[-1, 1] += 1e-3  # a rake on the last outcome only
    assert cs.constant_sum(off) is None
    off[-1, 1] = -off[-1, 0] + 1e-12  # rounding, within the tolerance
    assert cs.constant_sum(off) == 0.0
    three = rng.random((7, 3))
    three[:, 2] = 1.0 - three[:, 0] - three[:, 1]
    assert cs.constant_sum(three) == pytest.approx(1.0)
    # a normal-form table, players along the first axis: 0.1 + 0.2 passes as 0.3
    table = np.stack([np.full((2, 3), 0.1), np.full((2, 3), 0.2)])
    assert cs.constant_sum(table, axis=0) == pytest.approx(0.3)
    table[1, 1, 2] = 0.25
    assert cs.constant_sum(table, axis=0) is None


# ---------------------------------------------------------------- what a new user hit
@pytest.mark.parametrize(
    "game, route, options",
    [
        ("kuhn", "shrink", {}),
        ("leduc", "shrink", {}),
        ("leduc", "auto", {}),
        ("leduc", "shrink", {"rule": "published"}),
        ("leduc", "shrink", {"algorithm": "cfr+", "iterations": 20}),
    ],
)
def test_strategy_table_of_a_shrunk_answer(game, route, options):
    """A shrunk game's strategies are named by betting history and the cards of their
    class; every information set's probabilities sum to 1, and the table has as many
    rows as the shrunk game has sequences (the empty one aside)."""
    import equilibria

    answer = equilibria.solve(game, route, **options)
    table = answer.strategy_table()
    sf = answer.sequence_form
    assert len(table) == sum(p.num_sequences - 1 for p in sf.players)
    sums = table.groupby(["player", "infoset"]).probability.sum()
    assert np.allclose(sums, 1.0)
    assert table.infoset.str.contains(r" \| ").all()


def test_kuhn_shrunk_strategy_table_names_the_cards():
    """Kuhn poker merges nothing: player 1's first decision holds one information set per
    card of Kuhn's deck, J, Q and K."""
    import equilibria

    table = equilibria.solve("kuhn", "shrink").strategy_table()
    first = table[(table.player == 1) & table.infoset.str.startswith("(root) |")]
    assert sorted(first.infoset.unique()) == ["(root) | J", "(root) | K", "(root) | Q"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("args", [("solve", "kuhn"), ("export", "leduc", "-o", "-"), ("info", "kuhn")])
def test_a_full_standard_output_is_one_line_and_exit_2(args):
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "equilibria.scripts.cli", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, res.stderr
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "No space left" in lines[0] and "wrote" not in res.stderr


def test_a_closed_pipe_on_standard_output_is_no_error():
    """``equilibria games | head -1``: the reader leaving is not an error of ours."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "equilibria.scripts.cli", "games"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and err == ""


@pytest.mark.parametrize("cdf", ["0:0/1:1", "0:0/0.5:0.35/1:1", "0:0/0.1:0.9/1:1"])
def test_river_endgame_cards_and_cdfs_together_are_refused(cdf):
    line = one_line_refusal(run_cli("solve", f"river_endgame:pot=3,cards=50,cdf1={cdf}"))
    assert "cdf1" in line and "cards" in line


def test_river_endgame_cdfs_change_the_game_and_its_name():
    from equilibria.instances.bayesian_games import river_endgame

    names = {river_endgame(pot=3, cdf1=c).name for c in ("0:0/1:1", "0:0/0.1:0.9/1:1")}
    assert len(names) == 2 and all("cdf1=" in n for n in names)
    assert river_endgame(pot=3, cards=50).name == "river_endgame(pot=3, cards=50)"
    assert river_endgame(pot=3).name == "river_endgame(pot=3)"


def test_a_parameter_given_twice_is_refused():
    line = one_line_refusal(run_cli("info", "leduc:ranks=3,ranks=4"))
    assert "ranks" in line and "twice" in line


def test_a_certificate_on_cells_for_finite_signals_is_refused_not_ignored():
    line = one_line_refusal(run_cli("threshold", "kuhn", "--certificate", "cells"))
    assert "finite signals" in line and "cells" in line


def test_an_error_message_prints_numbers_not_numpy_reprs(tmp_path):
    """A general-sum game's refusal named its payoff sums as np.float64(...)."""
    game = tmp_path / "general.efg"
    game.write_text(
        'EFG 2 R "g" { "A" "B" }\n""\n\np "" 1 1 "i" { "l" "r" } 0\nt "" 1 "x" { 1, 0 }\nt "" 2 "y" { 0, 2 }\n'
    )
    res = run_cli("solve", game, "--no-shrink")
    assert "np.float64" not in res.stderr and "np.float64" not in res.stdout


def test_info_of_rhode_island_counts_without_building_and_sets_the_paper_beside():
    """The published figures (Gilpin and Sandholm 2007): 6,632,705 signal-tree nodes and
    91,224,226 LP rows without abstraction; the paper's 'over 3.1 billion' tree nodes
    beside ours, each with what it counts."""
    res = run_cli("info", "rhode_island", "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["signal_tree_nodes"] == 6_632_705 and info["lp_rows"] == 91_224_226
    assert info["published_nodes"] == 3.1e9 and info["built"] is False
    assert info["nodes"] == info["terminal"] + info["chance"] + info["decision"]
    text = run_cli("info", "rhode_island").stdout
    assert "3.1 billion" in text and "one per card dealt" in text and "not built" in text


@pytest.mark.parametrize("spec", ["rhode_island:ranks=3,suits=2", "leduc:ranks=4", "kuhn"])
def test_tree_counts_without_building_equal_the_built_tree(spec):
    from equilibria.instances.registry import describe
    from equilibria.scripts.cli.games import info_without_tree

    description = describe(spec)
    counted = info_without_tree(description, "")
    built = description.view("extensive").counts()
    assert (counted["nodes"], counted["terminal"], counted["chance"], counted["decision"]) == (
        built.nodes,
        built.terminal,
        built.chance,
        built.decision,
    )


@pytest.mark.parametrize("spec", ["one_street", "kuhn_continuous:players=3"])
def test_info_of_a_continuous_game_describes_it_instead_of_refusing(spec):
    res = run_cli("info", spec)
    assert res.returncode == 0, res.stderr
    assert "continuous" in res.stdout and "not built" in res.stdout


def test_python_dash_m_equilibria_runs_the_command():
    res = subprocess.run(
        [sys.executable, "-m", "equilibria", "solve", "kuhn", "--json"], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["value"] == pytest.approx(-1 / 18, abs=1e-9)  # Kuhn poker's value


def test_backends_as_json():
    res = run_cli("backends", "--json")
    assert res.returncode == 0, res.stderr
    rows = {row["backend"]: row for row in json.loads(res.stdout)}
    assert rows["highs"]["available"] and "milp" in rows["highs"]["capabilities"]
    assert rows["clarabel"]["available"] and "milp" not in rows["clarabel"]["capabilities"]


@pytest.mark.parametrize(
    "args, decimals",
    [
        (("kuhn", "--backend", "highs"), 12),  # an exact simplex solution
        (("leduc", "--algorithm", "cfr+", "--target-exploitability", "1e-3"), 6),  # bounds about 1e-3 apart
    ],
)
def test_the_value_prints_the_decimals_its_certificate_vouches_for(args, decimals):
    res = run_cli("solve", *args)
    assert res.returncode == 0, res.stderr
    value = next(line for line in res.stdout.splitlines() if line.startswith("value (player 1)")).split()[-1]
    assert len(value.split(".")[1]) == decimals


def test_play_names_the_cards_chance_dealt():
    """A hand's record named Kuhn poker's deals 'chance 2'; it names the cards."""
    res = subprocess.run(
        [sys.executable, "-m", "equilibria", "play", "kuhn", "--seed", "1", "--hands", "1"],
        input="1\n1\n1\n1\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    record = next(line for line in res.stdout.splitlines() if "hand:" in line)
    dealt = [step.split()[-1] for step in record.split("hand:")[1].split(";") if step.strip().startswith("chance")]
    assert len(dealt) == 2 and set(dealt) <= {"J", "Q", "K"} and dealt[0] != dealt[1]


@pytest.mark.parametrize(
    "spec, route, words",
    [
        ("sheriff:rounds=1", "lcp", "Lemke"),
        ("kuhn:players=3", "nash", "MIP Nash"),
        ("openspiel:tiny_hanabi", "lcp", "Lemke"),
    ],
)
def test_solve_without_flags_answers_general_sum_and_n_player_games(spec, route, words):
    """`equilibria solve` refused every game that is not two-player zero-sum ('use
    equilibria nash'); without flags it now plans Lemke's method for two players and MIP
    Nash for more, says so, and answers as the route's own command does (the same
    NashConv)."""
    if spec.startswith("openspiel:"):
        pytest.importorskip("pyspiel")
    res = run_cli("solve", spec, "--json")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["route"] == route and answer["plan"][0].startswith(words)
    direct = json.loads(run_cli(route, spec, "--json").stdout)
    assert answer["nash_conv"] == pytest.approx(direct["nash_conv"], abs=1e-9)
    # what only the LP takes is refused for such a game, in one line
    line = one_line_refusal(run_cli("solve", spec, "--algorithm", "cfr+", "--iterations", "10"))
    assert "two-player zero-sum" in line


# ---------------------------------------------------------------- a fresh corpus's findings
def _run_equilibria(args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "equilibria", *args], capture_output=True, text=True, timeout=120, **kwargs
    )


@pytest.mark.parametrize("args", [("info", "kuhn"), ("export", "kuhn", "-o", "-"), ("info", "nosuchgame")])
def test_a_closed_standard_output_is_one_line_and_exit_2(args):
    res = subprocess.run(  # >&- : the command starts without a standard output
        [sys.executable, "-m", "equilibria", *args, "--quiet"],
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: __import__("os").close(1),
    )
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(
    "args, target",
    [
        (("export", "kuhn", "-o"), "k.mps"),
        (("solve", "kuhn", "--strategy-out"), "s.csv"),
        (("shrink", "kuhn", "--write"), "k.lp"),
    ],
)
def test_a_full_standard_output_leaves_the_files_it_would_write_untouched(args, target, tmp_path):
    """The answer could not be printed: the run failed, so the file it wrote is not put in
    place (an existing one stays as it was, a new one is not left)."""
    old = tmp_path / target
    old.write_text("ORIGINAL\n")
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "equilibria", *args, str(old), "--quiet"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert res.returncode == 2 and "No space left" in res.stderr
    assert old.read_text() == "ORIGINAL\n" and sorted(p.name for p in tmp_path.iterdir()) == [target]


def test_option_errors_start_like_every_other_error():
    res = run_cli("nash", "kuhn:players=3", "--epsilon", "0")
    assert res.returncode == 2 and res.stderr.startswith("equilibria: error: argument --epsilon")
    assert "(see equilibria nash --help)" in res.stderr


def test_play_takes_a_line_of_ten_million_digits_for_no_choice():
    res = _run_equilibria(["play", "kuhn", "--hands", "1", "--seed", "1", "--quiet"], input="1" * 10**7 + "\n1\n1\n1\n")
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-500:]


def test_a_sweep_with_an_unknown_backend_is_bad_input_before_any_cell(tmp_path):
    line = one_line_refusal(
        run_cli("sweep", "--game", "kuhn", "--option", "backend=nope", "--workers", "0", "-o", tmp_path / "o")
    )
    assert "nope" in line and list(tmp_path.iterdir()) == []


def test_a_sweep_solves_an_edited_game_file_again(tmp_path):
    """A rules file edited between two runs of one sweep was taken from the records: its
    cell's key now covers the file's content."""
    game = tmp_path / "pennies.py"
    source = Path(__file__).resolve().parents[1] / "instances" / "rules" / "kuhn_rules.py"
    game.write_text(source.read_text())
    args = ["sweep", "--game", str(game), "--workers", "0", "-o", str(tmp_path / "s"), "--quiet"]
    assert run_cli(*args).returncode == 0
    game.write_text(source.read_text() + "\n# edited\n")
    again = run_cli(*args)
    assert again.returncode == 0 and "1 solved" in again.stdout and "0 already recorded" in again.stdout


def test_certify_with_wrong_arguments_raises_the_library_error():
    import equilibria
    from equilibria.models.sequence import SequenceForm

    sf = SequenceForm(equilibria.load("kuhn"))
    for args in (("kuhn", [np.zeros(13)] * 2), (equilibria.load("kuhn"), [np.zeros(13)] * 2), (sf, None), (sf, "ab")):
        with pytest.raises(equilibria.EquilibriaError):
            equilibria.certify(*args)


@pytest.mark.parametrize("command", [("shrink", "kuhn"), ("nash", "sheriff:rounds=1")])
def test_a_program_written_under_another_format_s_name_is_refused(command, tmp_path):
    line = one_line_refusal(run_cli(*command, "--write", tmp_path / "x.efg.gz"))
    assert ".mps or .lp" in line and list(tmp_path.iterdir()) == []


def test_reading_and_writing_efg_with_wrong_arguments_raises_the_library_error(tmp_path):
    import equilibria

    with pytest.raises(equilibria.EquilibriaError):
        equilibria.read_efg(42)
    with pytest.raises(equilibria.EquilibriaError):
        equilibria.write_efg("kuhn", tmp_path / "x.efg")
    assert list(tmp_path.iterdir()) == []
