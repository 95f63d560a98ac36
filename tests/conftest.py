"""Shared fixtures: games are generated once per session."""

import pytest

import equilibria


@pytest.fixture(scope="session")
def kuhn():
    return equilibria.load("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return equilibria.load("leduc")


@pytest.fixture(scope="session")
def kuhn_solution(kuhn):
    return equilibria.solve_game(kuhn)


@pytest.fixture(scope="session")
def leduc_solution(leduc):
    return equilibria.solve_game(leduc)
