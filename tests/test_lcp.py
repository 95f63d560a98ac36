"""The ``lcp`` route: Lemke's method on the sequence form's LCP.

Oracles: pygambit's own regret of our profile (its best responses, not ours), pygambit's
``lcp_solve`` where the equilibria it lists are one, the published value of Kuhn poker
(-1/18), the sequence-form LP on zero-sum games, and exact rational arithmetic."""

import json
from fractions import Fraction

import numpy as np
import pytest

import equilibria
from equilibria.formulations.sequence_form_lcp import sequence_form_lcp, tracing_start
from equilibria.models.errors import SolveFailed
from equilibria.models.sequence import SequenceForm
from equilibria.routes.lcp import exact_check, priors
from tests.conftest import run_cli
from tests.gambit_compat import max_regret, payoffs
from tests.random_games import random_game


def _large_random_seeds(count: int = 50, nodes: int = 200) -> list[int]:
    """The first ``count`` seeds whose random general-sum game (depth up to 7) has at least
    ``nodes`` nodes."""
    seeds, seed = [], 0
    while len(seeds) < count:
        if random_game(seed, max_depth=7, general_sum=True).num_nodes >= nodes:
            seeds.append(seed)
        seed += 1
    return seeds


LARGE_SEEDS = _large_random_seeds()


@pytest.fixture(scope="module")
def gbt():
    return pytest.importorskip("pygambit")


@pytest.mark.parametrize("seed", LARGE_SEEDS)
def test_random_general_sum_games_are_equilibria_by_pygambits_regret_and_exactly(gbt, seed):
    game = random_game(seed, max_depth=7, general_sum=True)
    answer = equilibria.solve(game, "lcp", exact=True)
    assert answer.status == "optimal" and answer.exact is True  # the rational check held
    assert answer.nash_conv <= 1e-9
    assert max_regret(game, answer.sequence_form, answer.behaviors) <= 1e-9


def test_where_every_equilibrium_pygambit_enumerates_pays_alike_ours_pays_that(gbt):
    """pygambit's ``enummixed_solve`` lists every extreme equilibrium of the strategic form;
    where they all pay the same, every equilibrium does (payoffs are bilinear on each
    convex set of equilibria), so Lemke's must. Random games with at most 16 strategies
    per player, of the first 60."""
    from equilibria.interop.gambit import to_pygambit

    compared = 0
    for seed in range(60):
        game = random_game(seed, general_sum=True)
        theirs = to_pygambit(game)
        if max(len(theirs.get_strategies(p)) for p in theirs.players) > 16:
            continue
        values = {
            tuple(round(v, 9) for v in payoffs(eq))
            for eq in gbt.nash.enummixed_solve(theirs, rational=False).equilibria
        }
        if len(values) != 1:
            continue
        answer = equilibria.solve(game, "lcp")
        assert list(answer.certificate.payoffs) == pytest.approx(list(values.pop()), abs=1e-9), seed
        compared += 1
    assert compared >= 5


@pytest.mark.parametrize("spec", ["sheriff:rounds=1", "sheriff:rounds=2", "sheriff:rounds=3"])
def test_sheriff_variants(gbt, spec):
    answer = equilibria.solve(spec, "lcp")
    assert answer.nash_conv <= 1e-9
    assert max_regret(answer.sequence_form.game, answer.sequence_form, answer.behaviors) <= 1e-9


def test_zero_sum_games_give_the_value_of_kuhn_poker_and_of_the_lp():
    answer = equilibria.solve("kuhn", "lcp", exact=True)
    assert answer.exact is True and answer.value == pytest.approx(-1 / 18, abs=1e-12)
    for seed in range(5):
        game = random_game(seed, max_depth=6)
        lcp = equilibria.solve(game, "lcp")
        lp = equilibria.solve(game, "lp", backend="highs")
        assert lcp.exploitability <= 1e-9 and lcp.value == pytest.approx(lp.value, abs=1e-9)


def test_other_covering_vectors_give_certified_equilibria():
    game = random_game(LARGE_SEEDS[0], max_depth=7, general_sum=True)
    for seed in range(4):
        answer = equilibria.solve(game, "lcp", seed=seed)
        assert answer.nash_conv <= 1e-9 and answer.covering == f"random prior, seed {seed}"


def test_the_exact_check_rejects_a_basis_that_is_not_a_solution():
    """The rational check can fail: the first basis of Lemke's path (each player's pure
    best response to the other's prior) is complementary but not feasible, since those
    pure plans are no equilibrium of Kuhn poker."""
    sf = SequenceForm(equilibria.load("kuhn"))
    lcp = sequence_form_lcp(sf)
    with pytest.raises(SolveFailed, match="not feasible"):
        exact_check(sf, lcp, tracing_start(lcp, sf, priors(sf, 0))[1])
    # and the exact plans of a solution are realization plans: the root is exactly 1
    answer = equilibria.solve("kuhn", "lcp", exact=True)
    z = exact_check(sf, lcp, _final_basis(sf, lcp))
    assert z[lcp.offsets[0]] == Fraction(1) and z[lcp.offsets[1]] == Fraction(1)
    assert answer.exact is True


def _final_basis(sf, lcp):
    from equilibria.routes.lcp import _pivots

    return _pivots(sf, lcp, None)[0].basis


def test_the_command_answers_and_refuses_in_one_line():
    ran = run_cli("lcp", "sheriff:rounds=2", "--json", "--quiet")
    assert ran.returncode == 0, ran.stderr
    printed = json.loads(ran.stdout)
    assert printed["route"] == "lcp" and printed["status"] == "optimal" and printed["nash_conv"] <= 1e-9
    for argv, words in [
        (("lcp", "kuhn:players=3"), "two-player games"),
        (("lcp", "kuhn", "--backend", "highs"), "solves no LCP"),
        (("lcp", "kuhn", "--seed", "-1"), "seed"),
    ]:
        ran = run_cli(*argv)
        assert ran.returncode == 2 and ran.stdout == "", ran.stderr
        assert len(ran.stderr.strip().splitlines()) == 1 and words in ran.stderr


def test_the_pivot_limit_ends_without_an_answer():
    ran = run_cli("lcp", "sheriff:rounds=2", "--max-pivots", "5")
    assert ran.returncode == 1 and ran.stdout == ""
    assert "no solution within 5 pivots" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1


def test_plans_of_the_answer_are_realization_plans():
    answer = equilibria.solve("sheriff:rounds=2", "lcp")
    for p, behavior in enumerate(answer.behaviors):
        ps = answer.sequence_form.players[p]
        plan = ps.treeplex.realization(behavior)
        assert np.allclose(ps.constraint_matrix @ plan, ps.constraint_rhs)


def _small_normal_forms(count: int = 10, cells: tuple[int, int] = (1_000, 200_000)) -> list[int]:
    """The first ``count`` seeds whose random general-sum game (depth up to 6) has a reduced
    normal form of between ``cells`` cells."""
    from equilibria.models.reduced_normal_form import reduced_size

    seeds, seed = [], 0
    while len(seeds) < count:
        size = reduced_size(SequenceForm(random_game(seed, max_depth=6, general_sum=True))).cells
        if cells[0] <= size <= cells[1]:
            seeds.append(seed)
        seed += 1
    return seeds


@pytest.mark.parametrize("seed", _small_normal_forms())
def test_lemke_on_the_reduced_normal_form_is_an_equilibrium_of_the_tree(gbt, seed):
    """Lemke-Howson's problem over plans: its equilibrium, mapped back by realization
    equivalence, has no regret in the tree by pygambit's count."""
    game = random_game(seed, max_depth=6, general_sum=True)
    answer = equilibria.solve(game, "lcp", form="normal")
    assert answer.sequence_form.game is game
    assert max_regret(game, answer.sequence_form, answer.behaviors) <= 1e-9


def test_kuhn_poker_through_its_normal_form_has_its_value_and_the_too_large_is_refused():
    answer = equilibria.solve("kuhn", "lcp", form="normal", exact=True)
    assert answer.value == pytest.approx(-1 / 18, abs=1e-12) and answer.exploitability <= 1e-12
    for spec, words in [("kuhn_rules:cards=12", "531,441 x 16,777,216 plans"), ("kuhn_rules:cards=8", "at most")]:
        ran = run_cli("lcp", spec, "--form", "normal")
        assert ran.returncode == 2 and ran.stdout == "" and len(ran.stderr.strip().splitlines()) == 1
        assert words in ran.stderr


@pytest.mark.slow
def test_the_default_sheriff_is_answered(gbt):
    """18,729 complementary pairs, about 5,000 pivots."""
    answer = equilibria.solve("sheriff", "lcp")
    assert answer.nash_conv <= 1e-9
    assert max_regret(answer.sequence_form.game, answer.sequence_form, answer.behaviors) <= 1e-9
