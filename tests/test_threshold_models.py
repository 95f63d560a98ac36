"""Several qualitative models of one game solved as separate programs: the first feasible
answers, and each model's outcome is the one its own program gives."""

import pytest

from equilibria.models.checks import OptionError
from equilibria.models.parametric import ModelError
from equilibria.routes.threshold.route import ModelInfeasible, solve_threshold, solve_threshold_separately

MODELS = ["standard", "bluff_raise_middle"]


def test_every_model_tried_and_the_answer_certified():
    sol, outcome = solve_threshold_separately("river_endgame", MODELS, first=False)
    assert outcome == {"standard": "feasible", "bluff_raise_middle": "feasible"}
    assert sol is not None and sol.model.name in MODELS
    # an exact best response on the stated discretisation, not the program, certifies it
    assert sol.exploitability <= 1e-6 and sol.is_equilibrium


def test_first_feasible_stops_the_rest():
    # both models hold (first=False solves both, above); one worker takes them in order,
    # and the second is stopped once the first is feasible: its result is never read
    sol, outcome = solve_threshold_separately("river_endgame", MODELS, workers=1)
    assert sol is not None and sol.model.name == MODELS[0]
    assert outcome == {MODELS[0]: "feasible", MODELS[1]: "not run"}


def test_no_model_holds_at_pot_two():
    # at pot 2 neither shipped model describes an equilibrium (each program alone is infeasible)
    sol, outcome = solve_threshold_separately("river_endgame:pot=2", MODELS)
    assert sol is None and outcome == dict.fromkeys(MODELS, "infeasible")
    for name in MODELS:
        with pytest.raises(ModelInfeasible):
            solve_threshold("river_endgame:pot=2", name)


def test_bad_input_is_refused_before_any_worker_starts():
    with pytest.raises(ModelError, match="at least one model"):
        solve_threshold_separately("river_endgame", [])
    with pytest.raises(ModelError, match="named twice: standard"):
        solve_threshold_separately("river_endgame", ["standard", "standard"])
    with pytest.raises(OptionError, match="workers"):
        solve_threshold_separately("river_endgame", MODELS, workers=0)


def test_an_unknown_model_is_reported_not_raised():
    _, outcome = solve_threshold_separately("river_endgame", ["standard", "nope"], first=False)
    assert outcome["standard"] == "feasible" and outcome["nope"].startswith("error: ") and "nope" in outcome["nope"]


def test_the_command_ends_when_the_first_feasible_program_stops_the_others():
    """Through the console entry a shell starts, which blocks the ending signals outside
    its watching thread: the workers inherited that mask, ``terminate()`` never reached
    the one still solving, and the command waited for it forever."""
    from tests.conftest import run_cli

    res = run_cli("threshold", "river_endgame", "--model", "paper", "--join", "separate", in_process=False, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "join            separate programs" in res.stdout and "feasible" in res.stdout
