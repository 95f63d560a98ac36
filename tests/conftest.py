"""Shared fixtures (games are generated once per session) and the helpers several test
modules use: running the command line, the one-line refusal contract, peers' views of a
profile."""

import contextlib
import io
import re
import subprocess
import sys

import numpy as np
import pytest

import equilibria


@pytest.fixture(scope="session")
def kuhn():
    return equilibria.load("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return equilibria.load("leduc")


@pytest.fixture(scope="session")
def kuhn_solution(kuhn):
    return equilibria.solve_game(kuhn)


@pytest.fixture(scope="session")
def leduc_solution(leduc):
    return equilibria.solve_game(leduc)


# ------------------------------------------------------------------ the command line


def run_cli(*args, timeout=300, env=None, in_process=True):
    """``equilibria ARGS`` as a CompletedProcess. In this process (``main(argv)``, its
    output captured) unless ``env`` is given or ``in_process`` is False: then in a process
    of its own, through the console entry a user's shell starts."""
    if env is not None or not in_process:
        return subprocess.run(
            [sys.executable, "-m", "equilibria.scripts.cli", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    from equilibria.scripts.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit:  # argparse: --help, --version and usage errors
            code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def run_python(code: str, timeout=300):
    """Python ``code`` in a process of its own."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)


#: A progress line of a stage that took a while ("equilibria: building ... 2 s", "...: done in 2.6 s").
PROGRESS_LINE = re.compile(r"^equilibria: .*( \.\.\. [0-9.]+ s|: done in [0-9.]+ s)$")


def error_lines(stderr: str) -> list[str]:
    """Standard error's lines but the progress of long stages."""
    return [line for line in stderr.strip().splitlines() if not PROGRESS_LINE.match(line)]


def one_line_refusal(res) -> str:
    """The single error line of a refused command (asserting the contract)."""
    lines = error_lines(res.stderr)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stdout == ""
    return lines[0]


# ------------------------------------------------------------------ peers


#: Our Kuhn poker actions as OpenSpiel's history letters.
TOKEN = {"check": "p", "fold": "p", "bet": "b", "call": "b"}


def openspiel_key(label: str) -> str:
    """Our information-set label -> OpenSpiel's kuhn_poker information-state string."""
    signal, _, history = label.partition(":")
    return str(int(signal) - 1) + "".join(TOKEN[a] for a in history.split("-") if a)


def behaviour_table(game, sf, behaviors):
    """{OpenSpiel information state: action probabilities} of a behaviour profile."""
    local, _ = game.local_infoset_numbering()
    out = {}
    for k in range(game.num_infosets):
        p = int(game.infoset_player[k])
        ps = sf.players[p]
        first = int(ps.infoset_first_sequence[int(local[k])])
        out[openspiel_key(str(game.infoset_labels[k]))] = np.asarray(
            behaviors[p][first : first + int(game.infoset_num_actions[k])]
        )
    return out


def openspiel_nash_conv(sol, players):
    """OpenSpiel's NashConv of an answer's profile on its k-player Kuhn poker."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability as os_exploitability

    sf = sol.sequence_form
    table = behaviour_table(sf.game, sf, sol.behaviors)
    os_game = pyspiel.load_game(f"kuhn_poker(players={players})")
    pol = os_policy.TabularPolicy(os_game)
    for key, row in pol.state_lookup.items():
        pol.action_probability_array[row] = table[key]
    return os_exploitability.nash_conv(os_game, pol)


def gambit_value(game, tmp_path) -> float:
    """Player 1's value of a two-player zero-sum game by Gambit's LP (its exact LCP where
    the LP's profile is no behaviour profile)."""
    gbt = pytest.importorskip("pygambit")
    from equilibria.models.efg_io import write_efg

    from .gambit_compat import equilibrium, first_payoff, is_behavior_profile

    path = tmp_path / "game.efg"
    write_efg(game, path)
    gg = gbt.read_efg(str(path))
    theirs = equilibrium(gbt.nash.lp_solve(gg, rational=False))
    if not is_behavior_profile(theirs, gg):
        theirs = equilibrium(gbt.nash.lcp_solve(gg, rational=True))
    return first_payoff(theirs, gg)


def assert_value_matches_gambit(game, tmp_path):
    """Our value equals Gambit's LP value (its exact LCP where the LP profile is invalid)."""
    theirs = gambit_value(game, tmp_path)
    ours = equilibria.solve_game(game)
    assert ours.value == pytest.approx(theirs, abs=1e-6)
    assert ours.exploitability <= 1e-7
