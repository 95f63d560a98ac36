"""The Liapunov descent and Newton's method on the support (solvers/liapunov.py), which take
CFR+'s profile of a game with three or more players to an equilibrium exact to rounding:
the gradient against the function's own differences, and the equilibria against
OpenSpiel's NashConv and this project's exact best responses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from equilibria.core.anytime import seed_profile
from equilibria.instances.registry import load
from equilibria.models.best_response import certify
from equilibria.models.sequence import SequenceForm
from equilibria.models.strategy import behavior_from_realization
from equilibria.solvers.liapunov import LiapunovFunction
from tests.conftest import run_cli


def _liapunov(sf: SequenceForm) -> LiapunovFunction:
    return LiapunovFunction(
        sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs, [ps.treeplex for ps in sf.players]
    )


def _behaviors(sf: SequenceForm, plans: list[np.ndarray]) -> list[np.ndarray]:
    return [behavior_from_realization(ps, r) for ps, r in zip(sf.players, plans)]


@pytest.mark.parametrize("spec", ["kuhn:players=3", "generalized_kuhn:players=3,cards=6", "kuhn:players=4", "leduc"])
def test_the_gradient_is_the_functions_own_slope(spec):
    sf = SequenceForm(load(spec))
    liapunov = _liapunov(sf)
    rng = np.random.default_rng(7)
    z = rng.normal(size=sum(ps.num_sequences - 1 for ps in sf.players))
    value, gradient = liapunov.value_and_gradient(z)
    assert value > 0  # uniform-ish random play is no equilibrium of these games
    for _ in range(3):
        d = rng.normal(size=z.shape)
        h = 1e-6
        slope = (liapunov.value_and_gradient(z + h * d)[0] - liapunov.value_and_gradient(z - h * d)[0]) / (2 * h)
        assert gradient @ d == pytest.approx(slope, rel=1e-6, abs=1e-9)


def test_the_function_vanishes_where_no_action_gains_and_only_there():
    """At the polished equilibrium each action's counterfactual value is at most its
    information set's, where the player's own play never arrives too: the function is
    zero to rounding; one probability moved makes it positive."""
    sf = SequenceForm(load("generalized_kuhn:players=3,cards=6"))
    seed = seed_profile(sf, target=1e-12, seconds=30)
    assert seed.nash_conv <= 1e-12, seed.how
    liapunov = _liapunov(sf)
    behaviors = seed.behaviors
    z = liapunov.logits_of(behaviors)
    assert liapunov.value_and_gradient(z)[0] <= 1e-20
    moved = [b.copy() for b in behaviors]
    moved[0][1:3] = [0.5, 0.5]  # the first information set's two actions, evenly
    assert liapunov.value_and_gradient(liapunov.logits_of(moved))[0] > 1e-8


@pytest.mark.parametrize("players", [3, 4])
def test_kuhn_poker_equilibria_exact_by_openspiels_nash_conv(players):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from equilibria.interop.openspiel import from_openspiel, to_tabular_policy

    os_game = pyspiel.load_game(f"kuhn_poker(players={players})")
    game = from_openspiel(os_game)
    sf = SequenceForm(game)
    seed = seed_profile(sf, target=1e-12, seconds=30)
    theirs = os_exploitability.nash_conv(os_game, to_tabular_policy(os_game, game, _behaviors(sf, seed.plans)))
    assert theirs <= 1e-12 and seed.nash_conv == pytest.approx(theirs, abs=1e-12)
    assert "Newton" in seed.how  # CFR+ alone is far from 1e-12 in these seconds


@pytest.mark.parametrize("cards", [6, 8])
def test_generalized_kuhn_three_players_exact_where_cfr_stalls(cards):
    """CFR+ stalls near NashConv 3e-3 on three-player G_6; the descent and Newton's method
    reach an equilibrium exact to rounding, whose payoffs sum to zero (the game's own)."""
    sf = SequenceForm(load(f"generalized_kuhn:players=3,cards={cards}"))
    seed = seed_profile(sf, target=1e-12, seconds=30)
    cert = certify(sf, _behaviors(sf, seed.plans))
    assert cert.nash_conv <= 1e-12 and seed.nash_conv == pytest.approx(cert.nash_conv, abs=1e-15)
    assert abs(sum(cert.payoffs)) <= 1e-12


def test_a_wrong_support_gives_no_answer_rather_than_a_wrong_one():
    """Newton's method with every action kept (the support of a uniform profile, which is
    no equilibrium's of G_6) either fails or leaves the simplex: it gives None."""
    sf = SequenceForm(load("generalized_kuhn:players=3,cards=6"))
    uniform = [ps.treeplex.uniform() for ps in sf.players]
    out = _liapunov(sf).newton(uniform, played=0.0)
    assert out is None or certify(sf, out).nash_conv <= 1e-9


@pytest.mark.slow  # about a minute: the shipped model's rounds come first
def test_threshold_on_three_player_g6_meets_a_thousandth():
    res = run_cli("threshold", "generalized_kuhn:players=3,cards=6", "--epsilon", "0.001", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    answer = json.loads(res.stdout)
    assert answer["nash_conv"] <= 1e-3 and answer["rows"] > 0
    assert answer["discovery"]["chosen"].startswith("found")
