"""What users hit when they run every workflow: each test runs the command as a user types
it (a subprocess, so the exit status, standard output and standard error are the real
ones) and holds it to the command-line contract: an answer with exit 0, or one line on
standard error and exit 2, never a traceback."""

import subprocess
import sys

import pytest

from equilibria.solvers import available_backends


def run_cli(*args, timeout=300, env=None):
    return subprocess.run(
        [sys.executable, "-m", "equilibria.scripts.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def run_python(code: str, timeout=300):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)


def one_line_refusal(res) -> str:
    """The single error line of a refused command (asserting the contract)."""
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stdout == ""
    return lines[0]


# ---------------------------------------------------------------- backends and their licenses
@pytest.mark.parametrize("backend", ["xpress", "pyomo:xpress_direct", "gurobi", "pyomo:gurobi_direct"])
def test_a_game_beyond_a_free_license_is_refused_in_one_line(backend):
    if backend not in available_backends():
        pytest.skip(f"{backend} is not installed here")
    line = one_line_refusal(run_cli("solve", "leduc:ranks=4", "--backend", backend))
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
