"""GameShrink on games with ordered signals (Gilpin and Sandholm, "Finding equilibria in
large sequential games of imperfect information", 2006): published sizes, values equal to the
unshrunk LP's, lifted strategies certified in the original game."""

import json
from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
import pytest

from equilibria import load, solve_game
from equilibria.instances import load_ordered
from equilibria.instances.hands import three_card
from equilibria.models.gameshrink import UnionFind, game_shrink, ordered_game_isomorphic
from equilibria.models.ordered import SignalSpace, colex_index
from equilibria.routes.shrink import shrink, solve_shrunk
from equilibria.scripts.cli import main


def test_leduc_merges_the_suits_and_keeps_the_value():
    sol = solve_shrunk("leduc")
    assert sol.report.infosets_before == [468, 468]
    assert sol.report.infosets_after == [144, 144]
    assert sol.value == pytest.approx(-0.085606424078, abs=1e-8)  # published value
    assert sol.exploitability <= 1e-7


@pytest.mark.parametrize(
    "ranks", [4, 5, 6, pytest.param(7, marks=pytest.mark.slow), pytest.param(8, marks=pytest.mark.slow)]
)
def test_leduc_shrunk_value_equals_unshrunk(ranks):
    sol = solve_shrunk(f"leduc:ranks={ranks}")
    full = solve_game(load(f"leduc:ranks={ranks}"))
    assert sol.value == pytest.approx(full.value, abs=1e-8)
    assert sol.exploitability <= 1e-7
    assert sol.report.infosets_after[0] < sol.report.infosets_before[0]


@pytest.mark.parametrize("deck", [(2, 2), (4, 1)])
def test_rhode_island_small_decks(deck):
    ranks, suits = deck
    spec = f"rhode_island:ranks={ranks},suits={suits}"
    sol = solve_shrunk(spec)
    full = solve_game(load(spec))
    assert sol.value == pytest.approx(full.value, abs=1e-8)
    assert sol.exploitability <= 1e-7


@pytest.mark.slow
def test_rhode_island_three_ranks_two_suits():
    spec = "rhode_island:ranks=3,suits=2"
    sol = solve_shrunk(spec)
    full = solve_game(load(spec))
    assert sol.value == pytest.approx(full.value, abs=1e-8)
    assert sol.exploitability <= 1e-7


def test_generalized_kuhn_has_no_lossless_merge_and_the_lossy_sweep_runs():
    report = shrink("generalized_kuhn:cards=30")
    assert report.infosets_after == report.infosets_before
    sizes = [shrink("generalized_kuhn:cards=30", t).lp.num_rows for t in (0.1, 0.3, 1.0)]
    assert sizes[0] < report.lp.num_rows and sizes == sorted(sizes, reverse=True)
    lossy = solve_shrunk("generalized_kuhn:cards=30", 0.1)
    assert lossy.exploitability > 0  # lossy: the guarantee is measured, not promised


def test_rhode_island_sizes_without_building_anything():
    game = load_ordered("rhode_island")
    assert game.signal_tree_nodes() == 6_632_705  # published by Gilpin and Sandholm 2006
    size = game.unabstracted_lp_size()
    assert size["rows"] == 91_224_226 and size["columns"] == 91_224_226


def test_three_card_hand_frequencies():
    # the standard counts of 3-card poker hands from a 52-card deck
    hands = np.array(list(combinations(range(52), 3)))
    strength = three_card(13, 4)(hands[:, 0], hands[:, 1:])
    category = strength // 16**3
    counts = np.bincount(category, minlength=6)
    # high card, pair, flush, straight, three of a kind, straight flush
    assert counts.tolist() == [16440, 3744, 1096, 720, 52, 48]


def test_signal_space_tables_equal_evaluating_every_deal(monkeypatch):
    """The showdown outcomes looked up in a table of hands, and the views numbered through
    a dense table, equal two hand evaluations per deal and numpy's sorted unique codes."""
    from equilibria.models import ordered

    for name in ("leduc", "leduc:ranks=13", "rhode_island:ranks=4", "rhode_island:ranks=3,suits=2"):
        game = load_ordered(name)
        tabled = SignalSpace(game)
        final = tabled.states[-1].astype(np.int64)
        s1, s2 = game.strength(final[:, 0], final[:, 2:]), game.strength(final[:, 1], final[:, 2:])
        assert np.array_equal(tabled.outcome, np.sign(s1 - s2)), name
        for i in (0, 1):
            for r in range(game.rounds):
                code = np.zeros(tabled.states[r].shape[0], dtype=np.int64)
                for column in [i, *range(2, 2 + r)]:
                    code = code * game.deck + tabled.states[r][:, column]
                uniq, inverse = np.unique(code, return_inverse=True)
                assert np.array_equal(tabled.view_codes[i][r], uniq), (name, i, r)
                assert np.array_equal(tabled.view_index[i][r], inverse.reshape(-1)), (name, i, r)
        monkeypatch.setattr(ordered, "DENSE_LIMIT", 0)  # the sorting path gives the same
        sorted_space = SignalSpace(game)
        monkeypatch.undo()
        assert np.array_equal(sorted_space.outcome, tabled.outcome)
        assert all(
            np.array_equal(a, b) for i in (0, 1) for a, b in zip(sorted_space.view_index[i], tabled.view_index[i])
        )


def test_colex_index_is_a_bijection_onto_the_subsets():
    for n, k in ((7, 3), (10, 2)):
        subsets = np.array(list(combinations(range(n), k)))
        idx = colex_index(subsets[:, ::-1])  # order inside a row does not matter
        assert sorted(idx.tolist()) == list(range(comb(n, k)))


def test_hashing_classes_agree_with_the_matching_test():
    """Gilpin and Sandholm's (2006) recursive perfect-matching test on the explicit signal tree (player 1's
    card, player 2's card, board card; leaves = showdown outcome) merges the same player-1
    cards as GameShrink's hashed classes."""
    for spec in ("leduc", "leduc:ranks=3,suits=3", "generalized_kuhn:cards=5"):
        game = load_ordered(spec)
        space = SignalSpace(game)
        final = space.states[-1]
        children, leaf = {}, {}
        for row, out in zip(map(tuple, final), space.outcome):
            leaf[row] = int(out)
            for depth in range(1, len(row)):
                children.setdefault(row[:depth], set()).add(row[: depth + 1])
        tree = {node: [(1.0 / len(kids), kid) for kid in sorted(kids)] for node, kids in children.items()}
        classes = game_shrink(game, space).classes[0][0]
        cards = list(range(game.deck))
        for a in cards:
            for b in cards:
                iso = ordered_game_isomorphic(tree, leaf, (a,), (b,))
                assert iso == (classes[a] == classes[b]), (spec, a, b)


def test_union_find_groups():
    uf = UnionFind(6)
    uf.union_groups(np.array([3, 1, 3, 2, 1, 9]))
    c = uf.classes()
    assert c[0] == c[2] and c[1] == c[4] and len(set(c.tolist())) == 4


def test_cli_shrink_json_and_solve_shrink(capsys):
    assert main(["shrink", "leduc", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"signal_tree_nodes", "rows_before", "rows_after", "columns_after", "nonzeros_after"} <= set(out)
    assert out["signal_tree_nodes"] == 1 + 6 + 30 + 120 and out["rows_before"] == 1562
    assert main(["solve", "leduc", "--shrink"]) == 0
    text = capsys.readouterr().out
    assert "-0.085606424078" in text and "certified by best responses over the betting template" in text
    assert "best responses in the game" in text


def test_solve_shrink_honours_every_solve_option(tmp_path, capsys):
    out = tmp_path / "leduc.csv"
    assert main(["solve", "leduc", "--shrink", "--strategy-out", str(out), "--time-limit", "60", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    # --strategy-out lifts the strategies onto the full tree
    assert answer["route"] == "shrink" and answer["certified_in"] == "the game" and answer["lifted"]
    assert answer["value"] == pytest.approx(-0.085606424078, abs=1e-7)  # published value
    assert answer["attempts"], "a time limit runs the anytime solve"
    assert answer["seconds"]["solve"] <= 60
    table = pd.read_csv(out)
    # the lifted strategies cover the full game: one row per action of its 468 + 468 information sets
    game = load("leduc")
    assert len(table) == int(game.infoset_num_actions.sum())
    assert table.groupby(["player", "infoset"])["probability"].sum().to_numpy() == pytest.approx(1.0)
    # a limit too short for any strategy: no answer, one line, exit 1, no file
    missing = tmp_path / "none.csv"
    assert main(["solve", "leduc:ranks=8", "--shrink", "--strategy-out", str(missing), "--time-limit", "1e-6"]) == 1
    # the deadline stops whichever step runs past it: the anytime solve, or the build
    err = capsys.readouterr().err
    assert "no strategies within the limits" in err or "time limit of 1e-06 s was reached" in err
    assert not missing.exists()


def test_cli_shrink_refuses_games_without_ordered_signals(capsys):
    assert main(["shrink", "liars_dice"]) == 2
    assert "games with one: generalized_kuhn, kuhn, leduc, rhode_island" in capsys.readouterr().err


def test_shrunk_lp_exports(tmp_path):
    import highspy

    path = tmp_path / "leduc_shrunk.mps"
    assert main(["shrink", "leduc", "--write", str(path)]) == 0
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(-0.085606424078, abs=1e-8)


@pytest.mark.parametrize("spec", ["leduc", "leduc:ranks=4,suits=3", "rhode_island:ranks=2,suits=2"])
def test_filtered_game_as_a_tree_matches_the_directly_built_lp(spec):
    from equilibria.models.filtered import filtered_extensive
    from equilibria.solvers import solve

    report = shrink(spec)
    tree = filtered_extensive(report.filtered)
    assert list(tree.counts().infosets) == report.infosets_after
    assert solve_game(tree).value == pytest.approx(solve(report.lp).objective, abs=1e-9)


def test_lossy_with_a_small_threshold_keeps_the_lossless_abstraction():
    sol = solve_shrunk("leduc", 0.1)
    assert sol.report.infosets_after == [144, 144]
    assert sol.exploitability <= 1e-7
    coarse = solve_shrunk("leduc", 0.9)
    assert coarse.report.infosets_after[0] < 144 and coarse.exploitability > 1e-3


def test_sweep_script_writes_its_table(tmp_path):
    from research import gameshrink_sweep

    rows = gameshrink_sweep.run("generalized_kuhn:cards=12", [0.3, 0], tmp_path, plot=False)
    assert rows[-1]["threshold"] == 0 and rows[-1]["exploitability"] <= 1e-9
    assert rows[0]["rows"] < rows[-1]["rows"]
    assert (tmp_path / "sweep_generalized_kuhn_cards12.csv").is_file()


@pytest.mark.parametrize("ranks", [4, 5, 6])
def test_lossy_gameshrink_on_larger_leduc_decks_packs_its_costs(ranks, tmp_path):
    """Lossy matching costs packed as integers overflowed int64 on Leduc with 4-8 ranks
    (OverflowError): the sweep must run, shrink more as the threshold grows, and at
    threshold 0 keep the value of the LP on the unabstracted game."""
    from research import gameshrink_sweep

    spec = f"leduc:ranks={ranks}"
    full = solve_game(spec)
    coarse, lossless = solve_shrunk(spec, 0.5), solve_shrunk(spec, 0.0)
    assert coarse.report.infosets_after[0] < lossless.report.infosets_after[0]
    assert lossless.value == pytest.approx(full.value, abs=1e-9) and lossless.exploitability <= 1e-7
    assert coarse.exploitability >= 0.0  # certified in the full game, whatever the abstraction lost
    rows = gameshrink_sweep.run(spec, [0.9, 0.5, 0], tmp_path, plot=False)
    assert [r["rows"] for r in rows] == sorted(r["rows"] for r in rows)


def test_cli_lossy_shrink_of_leduc_with_four_ranks_answers():
    assert main(["shrink", "leduc:ranks=4", "--threshold", "0.5", "--quiet"]) == 0
