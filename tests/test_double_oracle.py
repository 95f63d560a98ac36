"""The double oracle (route ``double-oracle``): restricted sequence-form LPs grown by exact
best responses (Bošanský, Kiekintveld, Lisý and Pěchouček, 2014). Values against closed
forms, the published Leduc value and pygambit's LP; bounds checked at every iteration."""

import json

import numpy as np
import pytest

import equilibria
from equilibria.formulations.restricted_sequence_form import Restriction
from equilibria.models.sequence import SequenceForm
from tests.conftest import gambit_value, one_line_refusal, run_cli

from .random_games import random_game

#: Leduc hold'em's value to player 1 (Southey et al. 2005; the sequence-form LP's, 12 digits).
LEDUC_VALUE = -0.085606424078


def test_kuhn_is_answered_at_its_value():
    answer = equilibria.solve("kuhn", "double-oracle")
    assert answer.value == pytest.approx(-1 / 18, abs=1e-9)
    assert answer.exploitability <= 1e-9
    assert answer.status == "optimal"


def test_leduc_is_answered_to_1e9_of_its_value_and_every_iteration_bounds_it():
    answer = equilibria.solve("leduc", "double-oracle")
    assert answer.value == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert answer.exploitability <= 1e-9
    for it in answer.iterations:
        assert it.lower <= LEDUC_VALUE + 1e-9 and LEDUC_VALUE - 1e-9 <= it.upper
    # the restricted game grows and never exceeds the full one
    sizes = [sum(it.sequences) for it in answer.iterations]
    assert sizes == sorted(sizes) and sizes[-1] <= sum(answer.full_sequences)


def test_a_target_stops_it_with_the_bounds_that_meet_it():
    answer = equilibria.solve("leduc", "double-oracle", target_exploitability=1e-2)
    assert answer.status == "target_reached"
    assert answer.exploitability <= 1e-2
    last = answer.iterations[-1]
    assert (last.upper - last.lower) / 2 <= 1e-2
    assert last.lower - 1e-12 <= LEDUC_VALUE <= last.upper + 1e-12


def test_the_most_iterations_end_it_with_the_best_certified_pair():
    answer = equilibria.solve("leduc", "double-oracle", iterations=3)
    assert answer.status == "iteration_limit"
    assert len(answer.iterations) == 3
    assert answer.exploitability == pytest.approx(min(it.exploitability for it in answer.iterations), abs=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_random_zero_sum_games_get_pygambit_s_value(seed, tmp_path):
    game = random_game(seed, max_depth=5)
    theirs = gambit_value(game, tmp_path)
    answer = equilibria.solve(game, "double-oracle")
    assert answer.value == pytest.approx(theirs, abs=1e-6)
    assert answer.exploitability <= 1e-9


def test_a_restricted_plan_extended_by_the_default_play_is_a_plan_of_the_full_game():
    """A restricted plan (kept actions uniform) extended by the first action below the
    kept sequences is the realization of the behaviour that plays the kept actions
    uniformly and every other information set's first action, and meets the full
    treeplex's constraints ``E x = e``."""
    sf = SequenceForm(equilibria.load("leduc"))
    rng = np.random.default_rng(0)
    for p in range(2):
        tp = sf.players[p].treeplex
        restriction = Restriction.empty(tp)
        for _ in range(2):  # two random pure plans' sequences
            pure = np.zeros(tp.num_sequences)
            pure[0] = 1.0
            pure[tp.first_sequence + rng.integers(0, tp.num_actions)] = 1.0
            assert restriction.grow(tp.realization(pure)) > 0
        kept = restriction.kept[1:].astype(float)
        per_set = np.add.reduceat(kept, tp.first_sequence - 1)
        behavior = np.zeros(tp.num_sequences)
        behavior[0] = 1.0
        restricted = per_set > 0
        behavior[1:] = np.where(
            restricted[tp.sequence_infoset], kept / np.maximum(per_set, 1)[tp.sequence_infoset], 0.0
        )
        defaults = tp.first_sequence[~restricted]
        behavior[defaults] = 1.0
        x = tp.realization(behavior)
        r = x[restriction.index]
        E, e = restriction.constraints()
        assert np.allclose(E @ r, e)
        full = restriction.full_plan(r)
        assert np.allclose(full, x, atol=1e-15)
        assert np.allclose(sf.players[p].constraint_matrix @ full, sf.players[p].constraint_rhs)


def test_the_command_prints_the_restricted_size_beside_the_full_one():
    result = run_cli("double-oracle", "leduc", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    details = answer.get("details", answer)
    assert details["full_sequences"] == [1093, 1093]
    assert details["full_lp"]["rows"] > 0
    text = run_cli("double-oracle", "kuhn")
    assert "restricted" in text.stdout and "full LP" in text.stdout


def test_a_general_sum_game_is_refused_in_one_line():
    line = one_line_refusal(run_cli("double-oracle", "sheriff:rounds=1"))
    assert "zero-sum" in line


@pytest.mark.parametrize("route", ["lp", "shrink"])
def test_the_sequence_form_routes_take_it_as_their_algorithm(route):
    """``solve --algorithm double-oracle``: on the full game's sequence form, and after
    lossless GameShrink (certified in the full game) on Leduc at its value."""
    answer = equilibria.solve("leduc", route, algorithm="double-oracle", backend="highs")
    assert answer.value == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert answer.exploitability <= 1e-9
    assert answer.curve and answer.curve[-1].exploitability <= 1e-9
    result = run_cli("solve", "leduc", "--algorithm", "double-oracle", "--method", "simplex")
    assert result.returncode == 0, result.stderr
    assert "of the double oracle" in result.stdout
