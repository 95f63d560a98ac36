"""Anytime solves: certified bounds, a target exploitability and a time limit."""

import time

import pytest

import equilibria
from equilibria.core.anytime import Anytime
from equilibria.core.deadline import DeadlineExpired, OutOfTime
from equilibria.routes.run import Attempt, CurvePoint
from equilibria.solvers import Status

LEDUC_VALUE = -0.085606424078


def test_target_exploitability_stops_early_with_certified_bounds(leduc):
    sol = equilibria.solve_game(leduc, target_exploitability=1e-3)
    assert sol.exploitability <= 1e-3
    low, high = sol.value_bounds
    assert low - 1e-12 <= LEDUC_VALUE <= high + 1e-12
    assert low - 1e-12 <= sol.value <= high + 1e-12
    assert sol.attempts and sol.attempts[-1].exploitability <= 1e-3
    assert sol.to_dict()["attempts"] == [a.row() for a in sol.attempts]


def test_anytime_records_print_as_the_plain_dicts_they_replaced():
    """An Attempt and a CurvePoint as the answer's JSON holds them: a key left out where
    the record has no value (no strategies to certify; no proven bound but mirror-prox's)."""
    assert Attempt(1e-6, "time_limit", 1.5).row() == {"tolerance": 1e-6, "status": "time_limit", "seconds": 1.5}
    certified = Attempt(1e-8, "optimal", 2.0, 3e-9).row()
    assert list(certified) == ["tolerance", "status", "seconds", "exploitability"]
    assert CurvePoint(7, 0.25, 0.01).row() == {"iterations": 7, "seconds": 0.25, "exploitability": 0.01}
    assert CurvePoint(7, 0.25, 0.01, 0.02).row()["proven_bound"] == 0.02


def test_tight_target_reaches_optimum(leduc):
    sol = equilibria.solve_game(leduc, target_exploitability=1e-9)
    assert sol.exploitability <= 1e-9
    assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-8)


def test_a_time_limit_before_any_certified_profile_is_no_answer():
    """A millisecond is over before Leduc's tree is built: no profile, so no answer (exit 1
    on the command line)."""
    with pytest.raises(OutOfTime, match="the time limit of 0.001 s was reached"):
        equilibria.solve_game("leduc:ranks=6", time_limit=1e-3)


def test_exact_solution_bounds_collapse(leduc_solution):
    low, high = leduc_solution.value_bounds
    assert high - low <= 1e-7
    assert low - 1e-9 <= LEDUC_VALUE <= high + 1e-9


# The driver every anytime loop runs on: its contract, checked on its own.


def _scores_run(scores, **limits):
    """An Anytime run offered ``scores`` in turn, one a round, stopping at its target."""
    run = Anytime(**limits)
    for index in run.rounds():
        if index > len(scores):
            run.stop(Status.STALLED)
            break
        run.keep(index, scores[index - 1])
        if run.meets(scores[index - 1]):
            run.stop(Status.OPTIMAL)
    return run


def test_anytime_keeps_the_best_and_says_why_it_stopped():
    run = _scores_run([0.5, 0.1, 0.3, 0.01], target=0.05)
    assert run.result(OutOfTime) == (4, Status.OPTIMAL)
    run = _scores_run([0.5, 0.1, 0.3, 0.01], max_rounds=3)
    assert run.result(OutOfTime) == (2, Status.ITERATION_LIMIT)
    run = _scores_run([0.5, 0.1, 0.3])
    assert run.result(OutOfTime) == (2, Status.STALLED)


def test_anytime_without_a_profile_raises_the_loops_own_error():
    run = _scores_run([0.5], deadline=time.perf_counter() - 1.0)
    assert run.started == 0
    with pytest.raises(OutOfTime, match="time_limit"):
        run.result(lambda status: OutOfTime(f"nothing held ({status})"))


def test_anytime_guard_ends_at_an_enforced_deadline_or_ctrl_c_with_the_profile_held():
    run = Anytime()
    for _ in run.rounds():
        with run.guard():
            run.keep("first", 1.0)
            raise DeadlineExpired
    assert run.result(OutOfTime) == ("first", Status.TIME_LIMIT) and run.started == 1
    run = Anytime()
    with pytest.raises(KeyboardInterrupt), run.guard(interrupt=True):
        raise KeyboardInterrupt  # nothing held: the interrupt propagates
    run.keep("held", 1.0)
    with run.guard(interrupt=True):
        raise KeyboardInterrupt
    assert run.result(OutOfTime) == ("held", Status.INTERRUPTED)


def test_anytime_ties_go_to_the_later_item_only_when_asked():
    run = Anytime()
    run.keep("early", 0.5)
    run.keep("late", 0.5)
    assert run.best == "early"
    run.keep("late", 0.5, ties_to_later=True)
    assert run.best == "late"
