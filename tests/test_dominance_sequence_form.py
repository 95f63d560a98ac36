"""Iterated elimination of dominated actions on the sequence form: the reduced game keeps
the value (published values, pygambit on random games) and its equilibria, lifted back,
are equilibria of the unreduced game."""

import numpy as np
import pytest

import equilibria
from equilibria.models.best_response import certify
from equilibria.models.dominance import eliminate_dominated
from equilibria.models.efg_io import write_efg
from equilibria.models.sequence import SequenceForm
from equilibria.routes.lp import solve_sequence_form
from equilibria.routes.shrink import solve_shrunk
from tests.conftest import run_cli

from .gambit_compat import equilibrium, first_payoff, is_behavior_profile
from .random_games import random_game

PUBLISHED = {"kuhn": -1 / 18, "leduc": -0.085606424078, "liars_dice:sides=6": -7 / 258}


def test_kuhn_loses_the_four_obviously_bad_actions():
    """Folding the king and calling with the jack, for each player facing a bet (after
    check-raise for player 1, after a raise for player 2), and nothing else."""
    sf = SequenceForm(equilibria.load("kuhn"))
    reduced = eliminate_dominated(sf)
    removed = [{label for label, kept in zip(sf.sequence_labels(p), reduced.kept[p]) if not kept} for p in (0, 1)]
    assert removed == [{"K:cr:fold", "J:cr:call"}, {"K:r:fold", "J:r:call"}]


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n.startswith("liars") else n for n in sorted(PUBLISHED)]
)
def test_reduced_game_keeps_the_published_value(name):
    sf = SequenceForm(equilibria.load(name))
    reduced = eliminate_dominated(sf)
    size = reduced.lp_size()
    assert size["rows_after"] < size["rows_before"] and size["columns_after"] < size["columns_before"]
    run = solve_sequence_form(reduced.sequence_form)
    assert run.value == pytest.approx(PUBLISHED[name], abs=1e-8)
    assert certify(sf, reduced.lift(run.behaviors)).exploitability <= 1e-9


def test_random_games_keep_pygambits_value(tmp_path):
    gbt = pytest.importorskip("pygambit")
    reduced_games = 0
    for seed in range(20):
        game = random_game(seed, max_depth=5)
        sf = SequenceForm(game)
        reduced = eliminate_dominated(sf)
        if all(k.all() for k in reduced.kept):
            continue
        reduced_games += 1
        path = tmp_path / f"g{seed}.efg"
        write_efg(game, path)
        gg = gbt.read_efg(str(path))
        theirs = equilibrium(gbt.nash.lp_solve(gg, rational=False))
        if not is_behavior_profile(theirs, gg):
            theirs = equilibrium(gbt.nash.lcp_solve(gg, rational=True))
        run = solve_sequence_form(reduced.sequence_form)
        assert run.value == pytest.approx(first_payoff(theirs, gg), abs=1e-6), seed
        assert certify(sf, reduced.lift(run.behaviors)).exploitability <= 1e-7, seed
    assert reduced_games >= 15


def test_solve_options_certify_in_the_unreduced_game():
    answer = equilibria.solve("leduc", eliminate_dominated=True)
    assert answer.value == pytest.approx(PUBLISHED["leduc"], abs=1e-8)
    assert answer.exploitability <= 1e-9
    assert answer.dominance["rows_after"] < answer.dominance["rows_before"]
    assert len(answer.behaviors[0]) == answer.sequence_form.players[0].num_sequences
    shrunk = solve_shrunk("leduc:ranks=4", eliminate_dominated=True, lift=True)
    assert shrunk.lifted and shrunk.exploitability <= 1e-9
    first_order = equilibria.solve("kuhn", eliminate_dominated=True, algorithm="cfr+", target_exploitability=1e-3)
    low, high = first_order.value_bounds
    assert low <= PUBLISHED["kuhn"] <= high


def test_lifted_strategies_never_play_removed_actions():
    sf = SequenceForm(equilibria.load("leduc:ranks=4"))
    reduced = eliminate_dominated(sf)
    run = solve_sequence_form(reduced.sequence_form)
    for ps, b, kept in zip(sf.players, reduced.lift(run.behaviors), reduced.kept):
        # removed where play can reach: the information set's own sequence is kept
        reachable = kept[ps.infoset_parent_sequence[ps.sequence_infoset[1:]]]
        assert (reachable & ~kept[1:]).any()
        assert np.all(b[1:][reachable & ~kept[1:]] == 0)


def test_cli_prints_the_counts():
    res = run_cli("shrink", "leduc", "--eliminate-dominated")
    assert res.returncode == 0, res.stderr
    assert "dominated        removed: LP rows 482 -> " in res.stdout


@pytest.mark.parametrize("name", ["leduc:ranks=6", "rhode_island:ranks=4,suits=1"])
def test_same_removals_as_the_nodewise_test_on_the_tree(name):
    """Poker's dominated actions depend on the own cards only, so taking the extremes over
    the whole information set loses nothing against the test node by node."""
    from equilibria.models.dominance import dominated_sequences

    game = equilibria.load(name)
    sf = SequenceForm(game)
    reduced = eliminate_dominated(sf)
    assert [np.array_equal(~kept, tree) for kept, tree in zip(reduced.kept, dominated_sequences(game, sf))] == [
        True,
        True,
    ]
