"""The reduced normal form against pygambit's reduced strategic form of the same ``.efg``:
plan counts and payoff tables, the ``.nfg`` export read by pygambit, Kuhn poker's value
through it, equilibria of the normal form mapped back to the tree and certified there,
exact counts from closed forms, and the refusal of a normal form that would not fit."""

from math import comb

import numpy as np
import pygambit as gbt
import pytest

import equilibria
from equilibria.models.efg_io import write_efg
from equilibria.models.nfg_io import read_nfg, write_nfg
from equilibria.models.reduced_normal_form import (
    NormalFormTooLarge,
    plan_count,
    reduced_normal_form,
)
from equilibria.models.sequence import SequenceForm
from tests.conftest import one_line_refusal, run_cli
from tests.gambit_compat import equilibrium, max_regret, mixed, payoffs
from tests.random_games import random_game

#: Bundled files, registry games and random trees (general-sum): ten two-player games.
GAMES = [
    "kuhn_poker",
    "small_poker",
    "slides_example",
    "matching_pennies_chance",
    "kuhn",
    "kuhn_rules:cards=4",
    "inspection_rules:periods=4,inspections=2",
    "sheriff:rounds=1",
    "random:0",
    "random:1",
]


def load(spec: str) -> equilibria.ExtensiveGame:
    """A registered game, or ``random:SEED`` for a random general-sum tree of depth 4."""
    if spec.startswith("random:"):
        return random_game(int(spec.split(":")[1]), max_depth=4, general_sum=True)
    return equilibria.load(spec)


def theirs(game: equilibria.ExtensiveGame, folder) -> gbt.Game:
    """pygambit's reading of the game written as ``.efg``."""
    path = folder / "game.efg"
    write_efg(game, path)
    return gbt.read_efg(str(path))


#: pygambit's payoff tables take about half a millisecond a cell: tables are compared
#: entry by entry up to this many cells, larger (zero-sum) games by their value.
TABLE_CELLS = 5_000


def matrix_game_value(a: np.ndarray) -> float:
    """The row player's value of the zero-sum matrix game ``a``, by HiGHS through scipy:
    max v subject to a'x >= v, x a probability vector."""
    from scipy.optimize import linprog

    m, n = a.shape
    result = linprog(
        c=np.r_[np.zeros(m), -1.0],
        A_ub=np.hstack([-a.T, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    assert result.status == 0
    return float(-result.fun)


@pytest.mark.parametrize("spec", GAMES)
def test_plans_and_payoffs_equal_pygambits_reduced_strategic_form(spec, tmp_path):
    """Per player, as many plans as pygambit's reduced strategic form of the same ``.efg``
    has strategies; the ``.nfg`` written, read by pygambit, has as many. In the same order,
    both payoff tables equal pygambit's entry by entry (up to :data:`TABLE_CELLS` cells);
    a zero-sum game's matrix value is pygambit's LP value of the tree."""
    game = load(spec)
    reduced = reduced_normal_form(game, memory=1 << 30)
    gambit = theirs(game, tmp_path)
    counts = [len(gambit.get_strategies(p)) for p in gambit.players]
    assert list(reduced.game.num_strategies) == counts
    assert [plan_count(ps) for ps in reduced.sequence_form.players] == counts
    path = tmp_path / "game.nfg"
    write_nfg(reduced.game, path)
    read = gbt.read_nfg(str(path))
    assert [len(read.get_strategies(p)) for p in read.players] == counts
    assert read_nfg(path).strategy_names == reduced.game.strategy_names
    if np.prod(counts) <= TABLE_CELLS:
        for mine, table in zip(reduced.game.payoffs, gambit.to_arrays(dtype=float)):
            np.testing.assert_allclose(mine, np.asarray(table, dtype=float), atol=1e-12)
    if reduced.game.zero_sum:
        value = payoffs(equilibrium(gbt.nash.lp_solve(gambit, rational=False)))[0]
        assert matrix_game_value(reduced.game.payoffs[0]) == pytest.approx(value, abs=1e-9)


def test_three_players_payoff_tensor_equals_pygambits(tmp_path):
    """A random three-player tree: counts and every player's payoff tensor as pygambit's."""
    game = random_game(5, max_depth=4, players=3)
    reduced = reduced_normal_form(game, memory=1 << 30)
    gambit = theirs(game, tmp_path)
    assert list(reduced.game.num_strategies) == [len(gambit.get_strategies(p)) for p in gambit.players]
    for mine, table in zip(reduced.game.payoffs, gambit.to_arrays(dtype=float)):
        np.testing.assert_allclose(mine, np.asarray(table, dtype=float), atol=1e-12)


def test_kuhn_through_the_exported_nfg_is_worth_minus_one_eighteenth_and_certifies_in_the_tree(tmp_path):
    """``export kuhn --format nfg``: pygambit reads 27 x 64 strategies; its LP on the file
    gives player 1 the value -1/18 (Kuhn 1950); its equilibrium over plans, mapped back to
    behaviour strategies, is an equilibrium of the tree by our exact best responses and by
    pygambit's regrets."""
    path = tmp_path / "kuhn.nfg"
    res = run_cli("export", "kuhn", "--format", "nfg", "-o", path)
    assert res.returncode == 0, res.stderr
    assert "27 x 64 plans" in res.stdout
    read = gbt.read_nfg(str(path))
    assert [len(read.get_strategies(p)) for p in read.players] == [27, 64]
    eq = equilibrium(gbt.nash.lp_solve(read, rational=False))
    assert payoffs(eq)[0] == pytest.approx(-1 / 18, abs=1e-12)
    game = equilibria.load("kuhn")
    reduced = reduced_normal_form(game)
    profile = [np.array(q) for q in mixed(eq)]
    certificate = reduced.certify(profile)
    assert certificate.payoffs[0] == pytest.approx(-1 / 18, abs=1e-12)
    assert certificate.exploitability <= 1e-12
    assert max_regret(game, reduced.sequence_form, reduced.behaviors(profile)) <= 1e-12


def test_a_general_sum_equilibrium_of_the_normal_form_certifies_in_the_tree(tmp_path):
    """Sheriff with one round: pygambit's Lemke on the exported ``.nfg``, mapped back, has
    NashConv 0 in the tree and pays what pygambit says."""
    path = tmp_path / "sheriff.nfg"
    assert run_cli("export", "sheriff:rounds=1", "-o", path).returncode == 0
    read = gbt.read_nfg(str(path))
    eq = equilibrium(gbt.nash.lcp_solve(read, rational=False))
    reduced = reduced_normal_form(equilibria.load("sheriff:rounds=1"))
    certificate = reduced.certify([np.array(q) for q in mixed(eq)])
    assert certificate.nash_conv <= 1e-9
    np.testing.assert_allclose(certificate.payoffs, payoffs(eq), atol=1e-9)


def test_labels_name_each_plans_action_per_information_set_and_mark_the_excluded():
    """Kuhn poker's player 1: a card's bet excludes its information set after check-bet,
    which the label marks ``*``; every pure strategy of Gambit's reduced form is one label."""
    reduced = reduced_normal_form(equilibria.load("kuhn"))
    names = reduced.game.strategy_names[0]
    assert len(set(names)) == 27 and "bet bet bet * * *" in names and "check check check call call call" in names
    for label, row in zip(names, reduced.choices[0]):
        assert [word == "*" for word in label.split()] == list(row < 0)


@pytest.mark.parametrize("cards", [3, 5, 12])
def test_simplified_poker_counts_are_three_and_four_to_the_cards(cards):
    """Kuhn poker with k cards: player 1 bets or checks and then folds or calls with each
    card (3^k plans), player 2 answers a check and a bet with each card (4^k plans);
    counted exactly, 12 cards included (8.9e12 cells, never built)."""
    sf = SequenceForm(equilibria.load(f"kuhn_rules:cards={cards}"))
    assert [plan_count(ps) for ps in sf.players] == [3**cards, 4**cards]


@pytest.mark.parametrize("periods, inspections", [(3, 1), (4, 2), (9, 3)])
def test_the_inspectors_plans_are_the_sets_of_at_most_so_many_periods(periods, inspections):
    """The inspector's plans are its sets of inspected periods, of at most ``inspections``
    elements: sum over j of C(periods, j) (130 for 9 periods and 3 inspections, where the
    violator has about 2.8e41 plans)."""
    sf = SequenceForm(equilibria.load(f"inspection_rules:periods={periods},inspections={inspections}"))
    assert plan_count(sf.players[0]) == sum(comb(periods, j) for j in range(inspections + 1))


def test_a_normal_form_beyond_memory_is_refused_with_its_size_before_it_is_built():
    """9 periods and 3 inspections: 130 x 2.77e41 plans, refused with the counts by the
    estimate (building it would exhaust any machine)."""
    game = equilibria.load("inspection_rules:periods=9,inspections=3")
    with pytest.raises(NormalFormTooLarge, match=r"130 x 2\.77e41 plans = 3\.60e43 cells"):
        reduced_normal_form(game, memory=1 << 40)


def test_export_refuses_a_normal_form_too_large_for_the_memory_and_leaves_the_file(tmp_path, monkeypatch):
    """With 1 MB available, Kuhn's 1,728 cells (and the transient blocks of the products)
    do not fit: exit 2, one line with the counts, the existing file untouched."""
    from equilibria.instances import registry

    path = tmp_path / "kuhn.nfg"
    path.write_text("before")
    monkeypatch.setattr(registry, "available_memory", lambda: 1_000_000)
    line = one_line_refusal(run_cli("export", "kuhn", "-o", path))
    assert "27 x 64 plans = 1,728 cells" in line and "1 MB available" in line
    assert path.read_text() == "before"
