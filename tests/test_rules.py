"""Games written as rules: the shipped rules files reproduce the array generators, an
unshipped game matches pygambit built independently, and bad rules are named by line."""

import subprocess
import sys
import textwrap
from math import comb

import numpy as np
import pytest

import equilibria
from equilibria.instances import load
from equilibria.models.rules import RulesError, generate
from tests.conftest import one_line_refusal, run_cli

RULES = {
    "kuhn_rules:cards=3": "generalized_kuhn:cards=3",
    "kuhn_rules:cards=13": "generalized_kuhn:cards=13",
    "leduc_rules": "leduc",
    "leduc_rules:ranks=4,suits=2": "leduc:ranks=4,suits=2",
    "liars_dice_rules:sides=3": "liars_dice:sides=3",
}


@pytest.mark.parametrize("rules_spec", sorted(RULES))
def test_shipped_rules_reproduce_the_generator(rules_spec):
    ours, theirs = load(rules_spec), load(RULES[rules_spec])
    assert ours.counts() == theirs.counts()
    assert np.allclose(np.sort(ours.terminal_payoffs(), axis=0), np.sort(theirs.terminal_payoffs(), axis=0))
    a, b = equilibria.solve(ours), equilibria.solve(theirs)
    assert a.value == pytest.approx(b.value, abs=1e-9)
    assert a.exploitability <= 1e-9


def test_liars_dice_with_six_sides_has_the_generators_tree():
    ours, theirs = load("liars_dice_rules:sides=6"), load("liars_dice:sides=6")
    assert ours.counts() == theirs.counts()
    assert ours.counts().sequences == (24571, 24571)
    assert np.allclose(np.sort(ours.terminal_payoffs(), axis=0), np.sort(theirs.terminal_payoffs(), axis=0))


def test_leduc_and_kuhn_values_are_the_published_ones():
    # Kuhn poker -1/18 (Kuhn 1950); Leduc hold'em -0.0856 for player 1
    assert equilibria.solve("kuhn_rules").value == pytest.approx(-1 / 18, abs=1e-9)
    assert equilibria.solve("leduc_rules").value == pytest.approx(-0.085606424078, abs=1e-9)


@pytest.mark.parametrize("periods,inspections", [(2, 1), (3, 1), (4, 2), (5, 2), (6, 3)])
def test_inspection_game_value_is_dreshers_closed_form(periods, inspections):
    violator = comb(periods - 1, inspections) / sum(comb(periods, i) for i in range(inspections + 1))
    answer = equilibria.solve(f"inspection_rules:periods={periods},inspections={inspections}")
    assert answer.value == pytest.approx(-violator, abs=1e-9)  # the inspector is player 1


def test_three_player_kuhn_rules_equal_the_generator_and_openspiel():
    ours, theirs = load("kuhn3_rules"), load("kuhn:players=3")
    assert ours.counts() == theirs.counts()
    assert np.allclose(np.sort(ours.terminal_payoffs(), axis=0), np.sort(theirs.terminal_payoffs(), axis=0))
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("kuhn_poker", {"players": 3})
    assert ours.counts().terminal == _openspiel_terminals(game.new_initial_state())


def _openspiel_terminals(state):
    if state.is_terminal():
        return 1
    if state.is_chance_node():
        return sum(_openspiel_terminals(state.child(a)) for a, _ in state.chance_outcomes())
    return sum(_openspiel_terminals(state.child(a)) for a in state.legal_actions())


@pytest.mark.parametrize("size", [(3, 3, 1), (3, 5, 2)])
def test_sheriff_rules_have_the_published_sizes(size):
    max_bribe, max_items, rounds = size
    spec = f"max_bribe={max_bribe},max_items={max_items},rounds={rounds}"
    ours, theirs = load(f"sheriff_rules:{spec}"), load(f"sheriff:{spec}")
    assert ours.counts() == theirs.counts()
    # Farina et al.'s sizes as OpenSpiel builds them (sequences, information sets, terminals)
    published = {(3, 3, 1): ((21, 9), (5, 4), 32), (3, 5, 2): ((223, 73), (55, 36), 384)}[size]
    assert (ours.counts().sequences, ours.counts().infosets, ours.counts().terminal) == published
    assert np.allclose(np.sort(ours.terminal_payoffs(), axis=0), np.sort(theirs.terminal_payoffs(), axis=0))


PEEK_RULES = '''
"""Peek poker: a test game the project does not ship."""
PLAYERS = ("Alice", "Bob")


def rules(g):
    card = g.chance(["red", "black"], probs=["1/3", "2/3"])
    g.reveal("Alice", card)
    if g.choose("Alice", ["bet", "check"]) == "bet":
        if g.choose("Bob", ["call", "fold"]) == "fold":
            return g.outcome([1, -1])
        return g.outcome([2, -2] if card == "red" else [-2, 2])
    if g.choose("Bob", ["peek", "pass"]) == "pass":
        return g.outcome([1, -1] if card == "red" else [-1, 1])
    g.reveal("Bob", card)
    if g.choose("Bob", ["double", "stay"]) == "double":
        return g.outcome([3.5, -3.5] if card == "red" else [-2.5, 2.5])
    g.outcome([0.5, -0.5] if card == "red" else [-1.5, 1.5])
'''


def _peek_poker_in_pygambit():
    """The same game built by hand with pygambit's own tree API."""
    gbt = pytest.importorskip("pygambit")
    from fractions import Fraction

    from pygambit import H

    g = gbt.ExtensiveGame(["Alice", "Bob"], title="peek poker")
    g.append_event(H.path(), {"red": Fraction(1, 3), "black": Fraction(2, 3)})
    for card in ("red", "black"):
        g.append_move(H.path(card), "Alice", ["bet", "check"])
    g.append_move(H.path("red", "bet"), "Bob", ["call", "fold"])
    g.append_infoset(H.path("black", "bet"), H.path("red", "bet"))
    g.append_move(H.path("red", "check"), "Bob", ["peek", "pass"])
    g.append_infoset(H.path("black", "check"), H.path("red", "check"))
    for card in ("red", "black"):  # after a peek Bob knows the card: one information set each
        g.append_move(H.path(card, "check", "peek"), "Bob", ["double", "stay"])
    pay = {
        ("bet", "fold"): (1, 1),
        ("bet", "call"): (2, -2),
        ("check", "pass"): (1, -1),
        ("check", "peek", "double"): (3.5, -2.5),
        ("check", "peek", "stay"): (0.5, -1.5),
    }
    for moves, (red, black) in pay.items():
        for card, alice in (("red", red), ("black", black)):
            g.make_outcome(H.path(card, *moves), {"Alice": alice, "Bob": -alice}, label=f"{card} {' '.join(moves)}")
    return g


def test_a_game_the_project_does_not_ship_matches_pygambit(tmp_path):
    path = tmp_path / "peek.py"
    path.write_text(PEEK_RULES)
    gg = _peek_poker_in_pygambit()
    gbt = pytest.importorskip("pygambit")
    from .gambit_compat import equilibrium, first_payoff

    theirs = first_payoff(equilibrium(gbt.nash.lcp_solve(gg, rational=True)), gg)
    ours = equilibria.solve(str(path))
    assert ours.value == pytest.approx(theirs, abs=1e-9)
    assert ours.exploitability <= 1e-9
    # the same tree: pygambit's own .efg of its game has our counts
    efg = tmp_path / "peek.efg"
    efg.write_text(gg.to_efg())
    assert generate(path).counts() == load(str(efg)).counts()


def test_a_rules_file_takes_its_parameters_by_path(tmp_path):
    path = tmp_path / "deck.py"
    path.write_text(_shipped("kuhn_rules"))
    assert load(f"{path}:cards=5").counts() == load("generalized_kuhn:cards=5").counts()


def _shipped(name):
    from equilibria.instances.registry import rules_files

    return rules_files()[name].read_text()


BAD = {
    "no options": ("def rules(g):\n    g.choose(0, [])\n", 2, "no options"),
    "probabilities": ("def rules(g):\n    g.chance('ab', probs=[0.5, 0.6])\n    g.outcome([0, 0])\n", 2, "sum to"),
    "payoff count": ("def rules(g):\n    x = g.chance([1, 2])\n    g.outcome([x])\n", 3, "1 payoffs for 2 players"),
    "never ends": (
        "def rules(g):\n    while True:\n        g.choose(0, ['on', 'off'])\n",
        3,
        "moves without an outcome",
    ),
    "after outcome": ("def rules(g):\n    g.outcome([1, -1])\n    g.choose(1, ['a', 'b'])\n", 3, "after outcome"),
    "imperfect recall": (
        "def rules(g):\n"
        "    x = g.chance(['a', 'b'])\n"
        "    g.choose(0, ['l', 'r'] if x == 'a' else ['l', 'm'])\n"
        "    g.choose(0, ['u', 'd'])\n"
        "    g.outcome([0, 0])\n",
        4,
        "imperfect recall",
    ),
    "no outcome": ("def rules(g):\n    g.choose(0, ['a', 'b'])\n", 1, "without outcome"),
    "unknown player": ("def rules(g):\n    g.choose('Carol', ['a'])\n", 2, "unknown player 'Carol'"),
    "an exception": ("def rules(g):\n    n = g.chance([0, 1])\n    g.outcome([1 / n, 0])\n", 3, "ZeroDivisionError"),
    "nan payoff": ("def rules(g):\n    g.outcome([float('nan'), 0])\n", 2, "finite"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_rules_name_the_file_and_line(case, tmp_path):
    text, line, words = BAD[case]
    path = tmp_path / "bad.py"
    path.write_text(text)
    with pytest.raises(RulesError) as err:
        generate(path, max_moves=500)
    assert f"{path}:{line}:" in str(err.value)
    assert words in str(err.value)


def test_bad_rules_on_the_command_line_give_one_line_and_exit_2(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD["probabilities"][0])
    run = subprocess.run(
        [sys.executable, "-m", "equilibria.scripts.cli", "solve", str(path)], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and f"{path}:2:" in run.stderr


def test_information_sets_are_what_gala_says(tmp_path):
    # the dealer's card is never revealed to the gambler: one information set per own card
    # and history, labelled in the rules' words
    game = load("kuhn_rules")
    labels = set(game.infoset_labels.tolist())
    assert "card 1" in labels and "card 3; Gambler check; Dealer bet" in labels
    # a secret choice is not seen: the inspector's inspections split nothing of the violator's
    inspection = load("inspection_rules:periods=2,inspections=1")
    assert inspection.counts().infosets == (2, 3)
    path = tmp_path / "textwrap.py"
    path.write_text(textwrap.dedent(PEEK_RULES))
    assert generate(path).counts().infosets == (2, 4)


def test_three_player_leduc_rules_deal_two_players_as_leduc(tmp_path):
    # the same rules with two seats are Leduc hold'em: the betting generalises
    text = _shipped("leduc3_rules").replace(
        'PLAYERS = ("Player 1", "Player 2", "Player 3")', 'PLAYERS = ("Player 1", "Player 2")'
    )
    path = tmp_path / "leduc2.py"
    path.write_text(text)
    ours, theirs = generate(path, ranks=3, suits=2), load("leduc")
    assert ours.counts() == theirs.counts()
    assert equilibria.solve(ours).value == pytest.approx(equilibria.solve(theirs).value, abs=1e-9)


def test_three_player_leduc_small_deck_is_certified():
    from equilibria.models.best_response import certify
    from equilibria.models.sequence import SequenceForm
    from equilibria.models.strategy import uniform_behavior

    game = load("leduc3_rules:ranks=2,suits=2")
    assert game.counts().sequences == (4277, 4277, 4277)
    assert np.allclose(game.terminal_payoffs().sum(axis=1), 0.0)
    sf = SequenceForm(game)
    cert = certify(sf, [uniform_behavior(ps) for ps in sf.players])
    assert cert.payoffs.sum() == pytest.approx(0.0, abs=1e-12)
    assert cert.nash_conv > 0


@pytest.mark.slow
def test_three_player_leduc_rules_are_openspiels_game():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import expected_game_score

    from equilibria.models.sequence import SequenceForm
    from equilibria.models.strategy import uniform_behavior
    from equilibria.presentation import present

    game = load("leduc3_rules")
    counts = game.counts()
    # OpenSpiel's leduc_poker(players=3), counted state by state
    assert (counts.nodes, counts.terminal, counts.chance) == (1831601, 1043952, 10481)
    assert counts.infosets == (8600, 8600, 8600) and counts.sequences == (19689, 19689, 19689)
    spiel = pyspiel.load_game("leduc_poker", {"players": 3})
    uniform = policy_lib.UniformRandomPolicy(spiel)
    theirs = expected_game_score.policy_value(spiel.new_initial_state(), [uniform] * 3)
    sf = SequenceForm(game)
    ours = present(game, [uniform_behavior(ps) for ps in sf.players]).values[0]
    assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.slow
def test_liars_dice_with_six_sides_has_the_generators_value():
    ours, theirs = equilibria.solve("liars_dice_rules:sides=6"), equilibria.solve("liars_dice:sides=6")
    assert ours.value == pytest.approx(theirs.value, abs=1e-9)
    assert ours.value == pytest.approx(-7 / 258, abs=1e-9)  # the game's known value for player 1
    assert ours.exploitability <= 1e-9


@pytest.mark.parametrize(("text", "value"), [("False", 0.0), ("0", 0.0), ("no", 0.0), ("true", 1.0), ("1", 1.0)])
def test_a_boolean_parameter_is_read_as_a_boolean(tmp_path, text, value):
    """``flag=False`` once reached the rules as the true string "False". Matching pennies
    has value 0; with player 2 forced to match, player 1 wins 1 by matching."""
    path = tmp_path / "forced.py"
    path.write_text(
        "PLAYERS = ('A', 'B')\n\n"
        "def rules(g, forced=False):\n"
        "    a = g.choose('A', ['heads', 'tails'], secret=True)\n"
        "    b = g.choose('B', ['heads'] if forced else ['heads', 'tails'])\n"
        "    g.outcome([1, -1] if a == b else [-1, 1])\n"
    )
    from equilibria import solve

    assert solve(f"{path}:forced={text}").value == pytest.approx(value, abs=1e-12)
    refused = one_line_refusal(run_cli("solve", f"{path}:forced=maybe"))
    assert "parameter forced must be true or false" in refused


def test_a_play_revealing_without_end_is_stopped_like_one_moving_without_end(tmp_path):
    """g.reveal in an endless loop did not count as a move: the tree's facts grew 3 GB in
    30 s. Now the 10,001st fact of one play stops it, naming the file and line."""
    path = tmp_path / "reveals.py"
    path.write_text(
        "PLAYERS = ('A', 'B')\n\ndef rules(g):\n    i = 0\n    while True:\n        g.reveal('A', i)\n        i += 1\n"
    )
    refused = one_line_refusal(run_cli("info", str(path)))
    assert "reveals.py:6: the play has revealed more than 10000 facts without an outcome" in refused
