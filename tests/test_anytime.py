"""Anytime solves: certified bounds, a target exploitability and a time limit."""

import pytest

import equilibria
from equilibria.models.errors import SolverError

LEDUC_VALUE = -0.085606424078


def test_target_exploitability_stops_early_with_certified_bounds(leduc):
    sol = equilibria.solve_game(leduc, target_exploitability=1e-3)
    assert sol.exploitability <= 1e-3
    low, high = sol.value_bounds
    assert low - 1e-12 <= LEDUC_VALUE <= high + 1e-12
    assert high - low == pytest.approx(sol.certificate.nash_conv, abs=1e-12)
    assert low - 1e-12 <= sol.value <= high + 1e-12
    assert sol.attempts and sol.attempts[-1]["exploitability"] <= 1e-3


def test_tight_target_reaches_optimum(leduc):
    sol = equilibria.solve_game(leduc, target_exploitability=1e-9)
    assert sol.exploitability <= 1e-9
    assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-8)


def test_time_limit_returns_best_certified_so_far_or_says_why():
    game = equilibria.load("leduc:ranks=6")
    try:
        sol = equilibria.solve_game(game, time_limit=0.5)
    except SolverError as exc:
        assert "allow more time" in str(exc)
        return
    low, high = sol.value_bounds
    assert low <= high
    assert sol.status in ("time_limit", "optimal", "target_reached", "unknown")


def test_exact_solution_bounds_collapse(leduc_solution):
    low, high = leduc_solution.value_bounds
    assert high - low <= 1e-7
    assert low - 1e-9 <= LEDUC_VALUE <= high + 1e-9
