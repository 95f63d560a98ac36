"""Models found from the game (--model auto): river endgames no shipped model answers are
answered with certified equilibria, the value agrees with the sequence-form LP of a fine
discretisation, and a found model is written and read back."""

import json

import numpy as np
import pytest

from equilibria.instances.bayesian_games import river_endgame
from equilibria.routes.threshold.route import ModelInfeasible, discover_model, solve_threshold
from tests.conftest import one_line_refusal, run_cli


@pytest.mark.parametrize(
    "pot", [pytest.param(1.5, marks=pytest.mark.slow), pytest.param(2.0, marks=pytest.mark.slow), 3.0]
)
def test_river_endgames_are_answered_by_a_found_model(pot):
    game = river_endgame(pot=pot)
    found = discover_model(game)
    assert found.answer is not None, found.attempts
    assert found.answer.exploitability <= 1e-6
    # the value of the continuous game against the LP of its discretisation on 400 cells,
    # whose equilibria converge to the continuous game's (error of the order of a cell)
    from equilibria.models.sequence import SequenceForm
    from equilibria.routes.lp import solve_sequence_form

    finite = game.discretize(400)
    run = solve_sequence_form(SequenceForm(finite.to_extensive()))
    assert found.answer.value == pytest.approx(run.value, abs=2 / 400)


def test_the_shipped_models_do_not_answer_the_pot_of_two():
    """What --model auto is for: every shipped model's program is infeasible at pot 2."""
    with pytest.raises(ModelInfeasible):
        solve_threshold(river_endgame(pot=2.0), join="one-program")


def test_a_found_model_is_written_and_read_back(tmp_path):
    path = tmp_path / "found.json"
    first = run_cli("threshold", "river_endgame:pot=3", "--model", "auto", "--write-model", str(path), "--json")
    assert first.returncode == 0, first.stderr
    answer = json.loads(first.stdout)
    assert answer["discovery"]["attempts"] and answer["found_model"]["players"]
    model = json.loads(path.read_text())
    assert len(model["players"]) == 2 and model["order"]
    again = run_cli("threshold", "river_endgame:pot=3", "--model", str(path), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["exploitability"] <= 1e-6


def test_auto_needs_a_signal_game_it_can_read():
    line = one_line_refusal(run_cli("threshold", "leduc", "--model", "auto"))
    assert "no signal form" in line


def test_a_model_read_from_cfr_answers_a_finite_three_player_game_through_its_program():
    """Finite signals, three players: the model read cell by cell from an equilibrium (CFR+'s
    profile, polished by Newton's method), its located program solved from the thresholds
    read, the answer certified in the game."""
    res = run_cli("threshold", "kuhn:players=3", "--model", "auto", "--epsilon", "0.01", "--json")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["nash_conv"] <= 0.01 and answer["rows"] > 0  # a program was solved
    assert answer["discovery"]["chosen"].startswith("found, read from the profile of CFR+")
    assert answer["found_model"]["players"] and answer["curve"][0]["phase"].startswith("seed (the profile of CFR+")


def test_a_generated_endgame_needing_removed_regions_is_answered():
    """Generated river endgame 26 (benchmarks/model_discovery.py): the model read from the
    LP alternates check-fold and check-call, its program answers exploitably, and the
    search removes regions until a certified equilibrium remains."""
    from equilibria.instances.bayesian_games import river_cdf_pairs

    params = list(river_cdf_pairs(27, 0))[26]
    found = discover_model(river_endgame(**params))
    assert found.answer is not None, found.attempts
    assert found.answer.exploitability <= 1e-6
    assert found.answer.verification["method"].startswith("exact")
    assert any(a["change"].startswith("removed") for a in found.attempts)


def test_removing_a_region_keeps_the_order_of_the_others():
    from equilibria.instances.bayesian_games import standard_models
    from equilibria.routes.threshold.discovery import _chain, without_region

    game = river_endgame(pot=3.0)
    model = standard_models(game)["standard"]
    before = _chain(model)
    for p in range(2):
        other = str(2 - p)  # the other player's number
        for j in range(len(model.regions[p])):
            for absorb in ("below", "above"):
                smaller = without_region(model, p, j, absorb)
                if smaller is None:
                    assert (absorb, j) in (("below", 0), ("above", len(model.regions[p]) - 1))
                    continue
                assert len(smaller.regions[p]) in (len(model.regions[p]) - 1, len(model.regions[p]) - 2)
                assert smaller.regions[1 - p] == model.regions[1 - p]
                after = _chain(smaller)
                # the other player's thresholds keep their places among themselves and
                # the removing player's thresholds keep their order
                assert [t for t in after if t.startswith(other)] == [t for t in before if t.startswith(other)]
                own = [int(t.split(".")[1]) for t in after if not t.startswith(other)]
                assert own == sorted(own)


def test_a_row_without_variables_that_cannot_hold_is_infeasible():
    """What a removed region can leave: an indifference whose two plans differ by a
    constant. The compiler finds it; the backend reports the model infeasible."""
    import pyomo.environ as pyo

    from equilibria.solvers import get_backend

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.x.fix(0.5)
    m.row = pyo.Constraint(expr=2 * m.x == 3)
    m.obj = pyo.Objective(expr=m.x)
    assert get_backend("highs").solve_model(m).status == "infeasible"


def test_three_players_a_model_is_found_and_its_program_answers_within_the_nash_conv_asked():
    """kuhn_continuous with three players ships no model: CFR+ on 20 cells, read band by
    band, repaired by its indifference equations, and its threshold program solved near
    their solution; the program's answer is certified by exact best responses (tested
    against quadrature and ever finer cells) within the NashConv asked."""
    found = discover_model("kuhn_continuous:players=3", epsilon=5e-3)
    assert found.answer is not None, found.attempts
    answer = found.answer
    assert answer.verification["method"].startswith("exact")
    assert answer.nash_conv <= 5e-3 and answer.is_equilibrium
    assert sum(answer.payoffs) == pytest.approx(0.0, abs=1e-12)  # no rake: zero-sum
    assert found.attempts[0]["signals"] == 20 and found.attempts[0]["change"] == "read band by band"
    # a band keeps each history's mixture in one piece: one region per plan change, where
    # the same profile read cell by cell alternates once per cell of every mixed band
    assert max(found.attempts[0]["regions"]) <= 10, found.attempts
    # the answer is a program's: products piecewise linear, epsilon as asked
    program = answer.program
    assert program is not None and program.num_products > 0 and program.epsilon == 5e-3
    assert found.attempts[-1]["change"].startswith("threshold program")
    assert any(a["change"].startswith("equations") for a in found.attempts)
    # its thresholds solve the model's equations to the program's tolerance
    from equilibria.models.threshold_best_response import indifference_residuals

    residuals = indifference_residuals(found.answer.game, answer.model.plan_indices(answer.game), answer.thresholds)
    budget = [program.tolerance[k, None] + program.approximation[k, None] for k in program.thresholds]
    assert np.all(np.abs(residuals) <= np.asarray(budget) + 1e-9)
    # a looser answer is no equilibrium at a tighter target
    answer.target_nash_conv = answer.nash_conv / 2
    assert not answer.is_equilibrium


def test_a_band_reading_keeps_each_history_s_mixed_mass():
    """Read band by band, a history's action masses over a band of mixed cells are those of
    the profile; only their order inside the band changes."""
    import numpy as np

    from equilibria.routes.threshold.discovery import _history_steps

    edges = np.linspace(0.0, 1.0, 5)
    # two plans at one history: plan 0 takes action 0, plan 1 action 1; cells 1 and 2 mix
    probs = np.array([[1.0, 0.0], [0.3, 0.7], [0.5, 0.5], [0.0, 1.0]])
    steps = _history_steps(probs, np.array([0, 1]), edges)
    assert [a for _, a in steps] == [0, 1]
    # action 0: all of cell 0 and 0.3 + 0.5 of a cell's width in the band
    assert steps[1][0] == pytest.approx(0.25 + 0.8 * 0.25)


@pytest.mark.slow
def test_three_player_kuhn_continuous_is_answered_within_one_thousandth():
    result = run_cli("threshold", "kuhn_continuous:players=3", "--model", "auto", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["nash_conv"] <= 1e-3
    assert answer["verification"]["method"].startswith("exact")
    assert answer["program"] is not None and answer["program"]["rows"] > 0  # a program's answer


def test_the_program_of_a_model_found_for_three_players_is_written(tmp_path):
    target = tmp_path / "p.lp"
    result = run_cli(
        "threshold", "kuhn_continuous:players=3", "--model", "auto", "--epsilon", "5e-3", "--write", str(target)
    )
    assert result.returncode == 0, result.stderr
    assert f"program         written to {target}" in result.stdout
    assert "indicator" in target.read_text() or target.stat().st_size > 1000


def test_no_model_on_a_continuous_three_player_game_finds_one():
    """Three-player continuous Kuhn poker's shipped model does not fit three players; with
    no model named the route says so among what it tried and finds one, as with finite
    signals, instead of refusing the command."""
    res = run_cli("threshold", "kuhn_continuous:players=3", "--epsilon", "0.01", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["nash_conv"] <= 0.01
    shipped = answer["discovery"]["shipped"]
    assert shipped["model"] == "standard" and shipped["outcome"].startswith("does not fit 3 players")
    text = run_cli("threshold", "kuhn_continuous:players=3", "--epsilon", "0.01", "--quiet")
    assert text.returncode == 0 and "shipped model   standard: does not fit 3 players" in text.stdout, text.stderr


def test_a_time_limit_ends_the_search_with_the_best_certified_answer():
    """Three players, continuous signals, an epsilon out of reach: the time limit ends the
    search, and the command answers with the best certified profile it holds, saying that
    it is above epsilon (as the located rounds of finite games do)."""
    res = run_cli(
        "threshold", "kuhn_continuous:players=3", "--epsilon", "1e-9", "--time-limit", "8", "--json", "--quiet"
    )
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["status"] == "time_limit" and 1e-9 < answer["nash_conv"] < 1e-2
    assert "above epsilon 1e-09" in answer["note"]
    assert answer["verification"]["method"].startswith("exact")
