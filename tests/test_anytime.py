"""Anytime solves: certified bounds, a target exploitability and a time limit."""

import pytest

import equilibria
from equilibria.core.deadline import OutOfTime

LEDUC_VALUE = -0.085606424078


def test_target_exploitability_stops_early_with_certified_bounds(leduc):
    sol = equilibria.solve_game(leduc, target_exploitability=1e-3)
    assert sol.exploitability <= 1e-3
    low, high = sol.value_bounds
    assert low - 1e-12 <= LEDUC_VALUE <= high + 1e-12
    assert low - 1e-12 <= sol.value <= high + 1e-12
    assert sol.attempts and sol.attempts[-1]["exploitability"] <= 1e-3


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
