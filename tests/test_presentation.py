"""The presenter (beliefs, values, plot) and play in a real terminal."""

import json
import os
import pty
import select
import subprocess
import sys
import time

import numpy as np
import pytest

import equilibria
from equilibria.presentation import belief_report, present, strategy_report


def _cli(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "equilibria.scripts.cli", *args], capture_output=True, text=True, timeout=300, **kw
    )


@pytest.fixture(scope="module")
def kuhn():
    answer = equilibria.solve("kuhn_rules")
    return answer, present(answer.sequence_form.game, answer.behaviors)


def test_beliefs_sum_to_one_and_follow_bayes_rule(kuhn):
    answer, pres = kuhn
    table = answer.strategy_table()
    prob = {(r.infoset, r.action): r.probability for r in table.itertuples()}
    beliefs = belief_report(pres)
    assert np.allclose(beliefs.groupby(["player", "infoset"])["belief"].sum(), 1.0)
    checked = 0
    for label, rows in beliefs.groupby("label"):
        own = int(label.split(";")[0].split()[1])
        others = [int(h.split()[-1]) for h in rows["hidden"]]
        # Bayes' rule by hand: each other card is dealt alike; weigh it by the probability
        # that the opponent's strategy produced the public history
        if label == f"card {own}":
            weights = [1.0 for _ in others]
        elif label.endswith("Gambler check"):
            weights = [prob[(f"card {x}", "check")] for x in others]
        elif label.endswith("Gambler bet"):
            weights = [prob[(f"card {x}", "bet")] for x in others]
        else:  # the gambler after checking and facing the dealer's bet
            weights = [prob[(f"card {y}; Gambler check", "bet")] for y in others]
        total = sum(weights)
        if total == 0:
            continue  # no strategy reaches it: the presenter falls back to chance alone
        assert rows["belief"].to_numpy() == pytest.approx(np.array(weights) / total, abs=1e-12)
        checked += 1
    assert checked >= 8


def test_action_values_add_up_to_the_game_value(kuhn):
    answer, pres = kuhn
    table = strategy_report(pres)
    first = table[(table["player"] == 1) & ~table["label"].str.contains(";")]
    per_card = (first["probability"] * first["value"]).groupby(first["label"]).sum()
    assert per_card.mean() == pytest.approx(answer.value, abs=1e-9)  # each card is dealt with 1/3


def test_show_prints_beliefs_and_draws_the_plot(tmp_path):
    png = tmp_path / "kuhn.png"
    run = _cli("show", "kuhn_rules:cards=4", "--beliefs", "--infoset", "^card 1", "--plot", str(png))
    assert run.returncode == 0, run.stderr
    assert "beliefs: the dealer's card 2" in run.stdout and "NashConv" in run.stdout
    assert png.stat().st_size > 10_000
    data = json.loads(_cli("show", "kuhn_rules", "--json", "--beliefs").stdout)
    assert len(data["strategies"]) == 24 and len(data["beliefs"]) == 24
    bad = _cli("show", "kuhn_rules", "--infoset", "no such thing")
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1


def _drive(args, answers, timeout=240):
    """Run the command in a pseudo-terminal, answering each '> ' prompt in turn."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-m", "equilibria.scripts.cli", *args])
    out, i, deadline = b"", 0, time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if fd not in ready:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        if out.endswith(b"> "):
            os.write(fd, answers[i % len(answers)].encode() + b"\n")
            i += 1
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace").replace("\r\n", "\n")


def test_play_three_hands_in_a_terminal():
    code, out = _drive(["play", "kuhn", "--seed", "1", "--hands", "3"], ["1", "call", "2"])
    assert code == 0, out
    assert "--- hand 3 of 3 ---" in out
    assert out.count("; score ") == 3
    assert "score " in out and "decisions; against the equilibrium they" in out


def test_play_as_the_second_player_of_a_rules_game():
    code, out = _drive(["play", "kuhn_rules", "--as", "Dealer", "--seed", "4", "--hands", "2"], ["2"])
    assert code == 0, out
    assert "you are Dealer (player 2)" in out and "--- hand 2 of 2 ---" in out


def test_play_with_input_ended_still_sums_up_the_hands_played():
    run = _cli("play", "kuhn", "--seed", "1", "--hands", "3", stdin=subprocess.DEVNULL)
    assert run.returncode == 0 and run.stderr == ""
    assert "(the input ended during hand 1, which does not count)" in run.stdout
    assert "score           +0 over 0 hands" in run.stdout
