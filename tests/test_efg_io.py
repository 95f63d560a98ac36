"""Gambit .efg reading and writing, validation errors, and pygambit as an oracle."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import equilibria
from equilibria.models.efg_io import parse_efg, write_efg
from equilibria.models.errors import FileFormatError, GameError

from .efg_samples import IMPERFECT_RECALL
from .gambit_compat import equilibrium, first_payoff

TWO_CARD = """EFG 2 R "two cards" { "Alice" "Bob" }
"a small game with fractional and decimal chance probabilities"

c "deal" 1 "" { "high" 1/3 "low" 0.6666666666666666666666666667 } 0
p "" 1 1 "A high" { "raise" "check" } 0
p "" 2 1 "B" { "call" "fold" } 0
t "" 1 "win big" { 2, -2 }
t "" 2 "win" { 1, -1 }
t "" 3 "show" { 1, -1 }
p "" 1 2 "A low" { "raise" "check" } 0
p "" 2 1 0
t "" 4 "lose big" { -2, 2 }
t "" 2
t "" 5 "lose" { -1, 1 }
"""


def test_reads_fractions_and_decimals_exactly():
    g = parse_efg(TWO_CARD)
    kids = np.flatnonzero(g.parent == 0)
    assert Fraction(str(g.chance_text[kids[0]])) == Fraction(1, 3)
    # the decimal is kept exactly, not as the float nearest it
    assert Fraction(str(g.chance_text[kids[1]])) == Fraction(6666666666666666666666666667, 10**28)
    assert g.chance_prob[kids[0]] == 1 / 3
    assert g.counts().infosets == (2, 1)


def test_round_trip_is_exact():
    g = parse_efg(TWO_CARD)
    text = write_efg(g)
    again = write_efg(parse_efg(text))
    assert text == again
    assert "1/3" in text and "0.6666666666666666666666666667" in text


def test_round_trip_of_generated_games(leduc):
    text = write_efg(leduc)
    g2 = parse_efg(text)
    assert g2.counts() == leduc.counts()
    assert write_efg(g2) == text
    assert equilibria.solve_game(g2).value == pytest.approx(-0.085606424078, abs=1e-8)


@pytest.mark.parametrize(
    "text, line, words",
    [
        (
            'EFG 2 R "x" { "A" "B" }\n""\np "" 1 1 "i" { "a" "b" } 0\nt "" 1 "o" { 1 -1 }\nt "" 2 "o2" { 1 }\n',
            5,
            "payoffs",
        ),
        ('EFG 2 R "x" { "A" "B" }\n""\np "" 3 1 "i" { "a" } 0\nt "" 1 "o" { 1 -1 }\n', 3, "player 3"),
        ('EFG 2 R "x" { "A" "B" }\n""\np "" 1 1 "i" { "a" "b" } 0\nt "" 1 "o" { 1 -1 }\n', 4, "ends"),
        ('EFG 2 R "x" { "A" "B" }\n""\nq "" 1 1 "i" { "a" } 0\n', 3, "node type"),
        ('EFG 2 R "x" { "A" "B" }\n""\nc "" 1 "" { "a" 1/2 "b" x } 0\n', 3, "number"),
        ('EFG 3 R "x" { "A" }\n', 1, "version"),
    ],
)
def test_malformed_file_names_the_line(text, line, words):
    with pytest.raises(FileFormatError) as err:
        parse_efg(text, source="bad.efg")
    assert f"bad.efg, line {line}" in str(err.value)
    assert words in str(err.value)


def test_probabilities_not_summing_to_one_name_the_node():
    text = TWO_CARD.replace("0.6666666666666666666666666667", "0.5")
    with pytest.raises(GameError, match=r"line 4: .*chance probabilities at node 0 'deal'.* sum to"):
        parse_efg(text, source="bad.efg")


def test_imperfect_recall_names_the_information_set():
    with pytest.raises(GameError, match="imperfect recall at player 1 information set 2 'second'"):
        parse_efg(IMPERFECT_RECALL)


def test_builder_rejects_mismatched_action_sets():
    b = equilibria.GameBuilder(["A", "B"])
    x, y = b.chance(b.root, [("x", 0.5), ("y", 0.5)])
    b.decision(x, 1, "I", ["l", "r"])
    with pytest.raises(GameError, match="information set 'I' of player 2"):
        b.decision(y, 1, "I", ["l", "r", "m"])


def test_builder_rejects_one_infoset_for_two_players():
    # the same label for different players makes two information sets; a game whose
    # arrays put two players in one information set is rejected by name
    g = parse_efg(TWO_CARD)
    bad_player = g.player.copy()
    node = int(np.flatnonzero(g.player == 1)[0])
    bad_player[node] = 0
    with pytest.raises(GameError, match="information set 1 'B'.*one player"):
        equilibria.ExtensiveGame.from_arrays(
            parent=g.parent,
            player=bad_player,
            infoset=g.infoset,
            action=g.action,
            chance_prob=g.chance_prob,
            outcome=g.outcome,
            outcome_payoffs=g.outcome_payoffs,
            infoset_player=g.infoset_player,
            infoset_num_actions=g.infoset_num_actions,
            infoset_labels=g.infoset_labels,
            player_names=g.player_names,
        )


def test_bundled_efg_files_load_and_solve():
    from equilibria.instances import bundled_files

    files = bundled_files()
    assert len(files) >= 3
    for name in files:
        g = equilibria.load(name)
        if g.num_players == 2:
            sol = equilibria.solve_game(g)
            assert sol.exploitability <= 1e-7


# ---------------------------------------------------------------- pygambit as oracle
gbt = pytest.importorskip("pygambit")


def gambit_value(path_or_text: str | Path) -> float:
    game = gbt.read_efg(str(path_or_text))
    return first_payoff(equilibrium(gbt.nash.lp_solve(game, rational=False)), game)


@pytest.mark.parametrize("spec", ["kuhn", "generalized_kuhn:cards=8", "liars_dice:sides=2"])
def test_our_files_load_in_gambit_to_the_same_value(spec, tmp_path):
    g = equilibria.load(spec)
    path = tmp_path / "game.efg"
    write_efg(g, path)
    assert gambit_value(path) == pytest.approx(equilibria.solve_game(g).value, abs=1e-9)


def test_gambit_files_load_here_to_the_same_value(tmp_path):
    path = tmp_path / "ours.efg"
    write_efg(equilibria.load("generalized_kuhn:cards=6"), path)
    gg = gbt.read_efg(str(path))
    back = tmp_path / "theirs.efg"
    back.write_text(gg.to_efg())
    ours = equilibria.read_efg(back)
    assert equilibria.solve_game(ours).value == pytest.approx(gambit_value(back), abs=1e-9)
    assert ours.counts() == equilibria.load("generalized_kuhn:cards=6").counts()


def _respaced(text: str, rng) -> str:
    """``text`` with its tokens separated by other white space and commas (which the
    format skips), and some letters of its names escaped (which it unescapes)."""
    import re

    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[{}]|,|[^\s{}",]+', text)
    separators = [" ", "  ", "\n", "\t", " , ", ",", "\r\n", "\u00a0", "\u2003"]
    out = []
    for token in tokens:
        if token.startswith('"') and rng.random() < 0.3:
            token = '"' + token[1:-1].replace("a", "\\a") + '"'
        out.append(token + separators[rng.integers(len(separators))])
    return "".join(out)


def test_the_line_reader_takes_from_a_file_what_the_token_reader_takes():
    """Files in Gambit's layout are read a node a match; every other file, and every bad
    one, by tokens. On the bundled and random games, however their tokens are spaced,
    both readers take the same nodes, sets, labels and payoffs; on damaged files the
    line reader never accepts what the token reader refuses."""
    import dataclasses

    from equilibria.models.efg_io import _read_plain, _read_tokens, decode_text

    from .fuzz.mutate import corpus, seed_games

    rng = np.random.default_rng(7)
    games = [text for _, text in seed_games()] + [write_efg(equilibria.load("leduc"))]
    for i in range(120):
        text = _respaced(games[i % len(games)], rng)
        plain = _read_plain(text)
        assert plain is not None
        assert dataclasses.asdict(plain) == dataclasses.asdict(_read_tokens(text, "f"))
    accepted = 0
    for _, data in corpus(400):
        try:
            text = decode_text(data).removeprefix("\ufeff")
        except FileFormatError:
            continue
        plain = _read_plain(text)
        try:
            tokens = _read_tokens(text, "f")
        except FileFormatError:
            assert plain is None
            continue
        if plain is not None:
            accepted += 1
            assert dataclasses.asdict(plain) == dataclasses.asdict(tokens)
    assert accepted > 20
