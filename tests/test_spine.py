"""One path for every route: registry -> view -> route -> Answer with a certificate."""

import json

import pytest

import equilibria
from equilibria.core.answer import Answer
from equilibria.core.skeleton import ROUTES, RouteError
from equilibria.instances import catalog, describe
from equilibria.instances.registry import ViewUnavailable
from equilibria.models.errors import EquilibriaError, UnknownInstanceError
from equilibria.scripts.cli import main

from .gambit_compat import equilibrium, first_payoff

KUHN = -1 / 18  # Kuhn's closed-form value for player 1
LEDUC = -0.085606424078  # published


@pytest.mark.parametrize("route", ["lp", "shrink", "threshold"])
def test_every_route_answers_kuhn_with_its_value_and_a_certificate(route):
    answer = equilibria.solve("kuhn", route)
    assert isinstance(answer, Answer) and answer.route == route
    assert answer.value == pytest.approx(KUHN, abs=1e-8)
    assert answer.exploitability <= 1e-8
    assert answer.payoffs[0] == pytest.approx(KUHN, abs=1e-8)
    shared = {
        "game",
        "route",
        "status",
        "backend",
        "value",
        "exploitability",
        "nash_conv",
        "payoffs",
        "certified_in",
        "rows",
        "columns",
        "seconds",
    }
    assert shared <= set(json.loads(answer.to_json()))


def test_one_name_one_description_with_views():
    assert describe("kuhn").views == ("extensive", "ordered", "signal")
    assert describe("leduc:ranks=4").views == ("extensive", "ordered")
    assert describe("liars_dice").views == ("extensive",)
    # the extensive and ordered views of one name are the same game
    ordered = describe("leduc:ranks=4").ordered().to_extensive()
    assert ordered.counts() == describe("leduc:ranks=4").extensive().counts()
    with pytest.raises(ViewUnavailable, match="no ordered form.*games with one: generalized_kuhn, kuhn, leduc"):
        describe("liars_dice").ordered()
    with pytest.raises(ViewUnavailable, match="continuous signals"):
        describe("kuhn_continuous").extensive()


@pytest.mark.parametrize(
    "spec, words",
    [
        ("leduc:ranks=abc", "ranks must be a whole number"),
        ("leduc:ranks=2.5", "ranks must be a whole number"),
        ("leduc:ranks=1e3", "ranks must be a whole number"),
        ("one_street:pot=nan", "pot must be a finite number"),
        ("one_street:pot=inf", "pot must be a finite number"),
        ("leduc:colour=red", "takes parameters ranks, suits"),
        ("kuhn_poker:x=1", "takes no parameters"),
    ],
)
def test_parameters_are_typed(spec, words):
    with pytest.raises(UnknownInstanceError, match=words):
        describe(spec)


def test_api_refuses_wrong_types_and_unknown_options():
    with pytest.raises(UnknownInstanceError, match="not int"):
        equilibria.solve(3)
    with pytest.raises(RouteError, match="takes no option 'colour'"):
        equilibria.solve("kuhn", "lp", colour="red")
    with pytest.raises(RouteError, match="unknown route 'cfr'"):
        equilibria.solve("kuhn", "cfr")


def test_catalog_lists_every_name_with_parameters_and_routes(capsys):
    rows = {r["name"]: r for r in catalog({name: route.view for name, route in ROUTES.items()})}
    assert rows["leduc"]["parameters"] == {"ranks": 3, "suits": 2}
    assert rows["leduc"]["routes"] == ["lp", "shrink", "nash", "lcp", "double-oracle"]
    assert rows["one_street"]["routes"] == ["lp", "nash", "lcp", "double-oracle", "threshold"]
    assert "nash" in rows["mipnash_test"]["routes"]  # a normal-form game
    assert set(rows) >= {"kuhn", "kuhn_poker", "small_poker", "river_endgame"}
    assert main(["games"]) == 0
    text = capsys.readouterr().out
    assert all(name in text for name in ROUTES) and "openspiel:" in text


def test_openspiel_games_load_through_the_registry_and_answers_export_as_policies():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms.exploitability import exploitability

    answer = equilibria.solve("openspiel:leduc_poker")
    assert answer.value == pytest.approx(LEDUC, abs=1e-9)
    policy = answer.to_tabular_policy()
    assert exploitability(pyspiel.load_game("leduc_poker"), policy) == pytest.approx(answer.exploitability, abs=1e-9)
    with pytest.raises(EquilibriaError, match="loaded from OpenSpiel"):
        equilibria.solve("kuhn").to_tabular_policy()


def test_pygambit_games_are_game_descriptions():
    gbt = pytest.importorskip("pygambit")
    from equilibria.interop.gambit import to_pygambit

    g = to_pygambit(equilibria.load("small_poker"))
    ours = equilibria.solve(g).value
    theirs = first_payoff(equilibrium(gbt.nash.lcp_solve(g, rational=False)), g)
    assert ours == pytest.approx(theirs, abs=1e-9)
