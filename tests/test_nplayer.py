"""Signal games with more than two players, checked against OpenSpiel and a published
equilibrium; the two-player path checked against its earlier output.

Information sets are mapped to OpenSpiel's explicitly, never through our code: ours are
labelled ``"signal:history"`` (signals ``1..k+1``, actions joined by ``-``), OpenSpiel's
``kuhn_poker`` information-state strings are the own card (``0..k``) followed by the
public actions, ``p`` for pass (check or fold) and ``b`` for bet (bet or call). So our
``"3:check-bet-fold"`` is OpenSpiel's ``"2pbp"``. Both games list the actions of every
information set in the order pass, bet (ours: check, bet or fold, call).
"""

import hashlib
import math

import numpy as np
import pytest

import equilibria
from equilibria.instances.registry import describe
from equilibria.models.bayesian import plans_from_behavior
from equilibria.models.best_response import exploitability
from equilibria.models.efg import TERMINAL
from equilibria.models.errors import EquilibriaError
from equilibria.models.sequence import SequenceForm
from equilibria.models.strategy import expected_payoffs, realization_from_behavior, uniform_behavior
from tests.conftest import behaviour_table, openspiel_key


def random_behavior(ps, rng):
    b = np.ones(ps.num_sequences)
    for i in range(ps.num_infosets):
        s = int(ps.infoset_first_sequence[i])
        b[s : s + int(ps.infoset_num_actions[i])] = rng.dirichlet(np.ones(int(ps.infoset_num_actions[i])))
    return b


@pytest.fixture(scope="module")
def kuhn3():
    game = describe("kuhn:players=3").extensive()
    return game, SequenceForm(game)


def test_labels_map_to_openspiel_keys(kuhn3):
    game, _ = kuhn3
    labels = [str(x) for x in game.infoset_labels]
    assert "3:check-bet-fold" in labels and openspiel_key("3:check-bet-fold") == "2pbp"
    assert openspiel_key("1:") == "0"


# ----------------------------------------------------------------------------- OpenSpiel
pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402
from open_spiel.python.algorithms.expected_game_score import policy_value  # noqa: E402


def openspiel_counts(os_game):
    """(nodes, terminals, chance nodes, information states per player) by a full walk."""
    counts = {"nodes": 0, "terminal": 0, "chance": 0}
    infostates = [set() for _ in range(os_game.num_players())]
    stack = [os_game.new_initial_state()]
    while stack:
        state = stack.pop()
        counts["nodes"] += 1
        if state.is_terminal():
            counts["terminal"] += 1
            continue
        if state.is_chance_node():
            counts["chance"] += 1
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        p = state.current_player()
        infostates[p].add(state.information_state_string(p))
        stack.extend(state.child(a) for a in state.legal_actions())
    return counts, [len(s) for s in infostates]


def openspiel_policy(os_game, table):
    pol = os_policy.TabularPolicy(os_game)
    for key, row in pol.state_lookup.items():
        pol.action_probability_array[row] = table[key]
    return pol


@pytest.mark.parametrize("players", [3, 4])
def test_counts_equal_openspiel(players):
    game = describe(f"kuhn:players={players}").extensive()
    os_game = pyspiel.load_game(f"kuhn_poker(players={players})")
    theirs, infostates = openspiel_counts(os_game)
    ours = game.counts()
    assert ours.terminal == theirs["terminal"]
    assert list(ours.infosets) == infostates
    assert ours.decision == theirs["nodes"] - theirs["terminal"] - theirs["chance"]
    # OpenSpiel deals one card per chance node (1 + 4 + 12 chance nodes for 3 players);
    # ours deals all cards at one chance node with one outcome per deal
    deals = math.perm(players + 1, players)
    assert ours.chance == 1 and game.num_children[0] == deals
    assert theirs["chance"] == sum(math.perm(players + 1, k) for k in range(players))
    assert ours.nodes == theirs["nodes"] - theirs["chance"] + 1
    if players == 3:
        assert (theirs["nodes"], ours.nodes, ours.terminal, ours.infosets) == (617, 601, 312, (16, 16, 16))


@pytest.mark.parametrize("players", [3, 4])
def test_payoffs_and_nash_conv_equal_openspiel(players):
    game = describe(f"kuhn:players={players}").extensive()
    sf = SequenceForm(game)
    os_game = pyspiel.load_game(f"kuhn_poker(players={players})")
    rng = np.random.default_rng(2024)
    profiles = {
        "uniform": [uniform_behavior(ps) for ps in sf.players],
        "random": [random_behavior(ps, rng) for ps in sf.players],
    }
    for name, behaviors in profiles.items():
        table = behaviour_table(game, sf, behaviors)
        pol = openspiel_policy(os_game, table)
        assert len(table) == len(pol.state_lookup) == game.num_infosets
        mine = exploitability(sf, behaviors)
        theirs = policy_value(os_game.new_initial_state(), [pol] * players)
        assert mine.payoffs == pytest.approx(theirs, abs=1e-9), name
        assert mine.nash_conv == pytest.approx(os_exploitability.nash_conv(os_game, pol), abs=1e-9), name
        assert mine.nash_conv > 0.01, name


# the published equilibrium family is checked in test_kuhn3_family.py


# ----------------------------------------------------------------------------- plan level
def test_plan_level_equals_extensive_form_three_players(kuhn3):
    game, sf = kuhn3
    signal_game = describe("kuhn:players=3").signal().finite_game()
    rng = np.random.default_rng(11)
    behaviors = [random_behavior(ps, rng) for ps in sf.players]
    sigmas = plans_from_behavior(signal_game, game, sf, behaviors)
    plan = signal_game.exploitability(sigmas)
    tree = exploitability(sf, behaviors)
    assert plan["payoffs"] == pytest.approx(tree.payoffs, abs=1e-12)
    assert plan["best_response_values"] == pytest.approx(tree.best_response_values, abs=1e-12)
    assert plan["nash_conv"] == pytest.approx(tree.nash_conv, abs=1e-12)
    # and back: behaviour from the plans realizes the same sequences
    back = signal_game.behavior_from_plans(sigmas, game, sf)
    for ps, a, b in zip(sf.players, back, behaviors):
        np.testing.assert_allclose(realization_from_behavior(ps, a), realization_from_behavior(ps, b), atol=1e-12)


def test_four_players_zero_sum_and_brute_force_payoffs():
    game = describe("kuhn:players=4").extensive()
    assert game.num_players == 4
    counts = game.counts()
    # 5 * 4 * 3 * 2 deals, each with the 65-node betting tree (33 terminals)
    assert (counts.nodes, counts.terminal, counts.infosets) == (1 + 120 * 65, 120 * 33, (40, 40, 40, 40))
    pay = game.terminal_payoffs()
    np.testing.assert_allclose(pay.sum(axis=1), 0.0, atol=1e-12)
    assert set(np.round(pay.ravel(), 9)) <= {-2.0, -1.0, 3.0, 4.0, 5.0, 6.0, 7.0}
    # uniform play by brute force over deals: every betting line of the tree written
    # out here, with the pot going to the best card among the players still in
    sf = SequenceForm(game)
    uniform = [uniform_behavior(ps) for ps in sf.players]
    ours = expected_payoffs(sf, [realization_from_behavior(ps, b) for ps, b in zip(sf.players, uniform)])
    expected = np.zeros(4)
    deals = [d for d in np.ndindex(5, 5, 5, 5) if len(set(d)) == 4]
    for cards in deals:
        for first_bet in range(5):  # 4: nobody bets
            reach = 0.5 ** min(first_bet + 1, 4)
            if first_bet == 4:
                chips = np.ones(4)
                lines = [((), 1.0)]
                bettor = None
            else:
                bettor = first_bet
                lines = [(calls, 0.5**3) for calls in np.ndindex(2, 2, 2)]
            for calls, w in lines:
                chips = np.ones(4)
                active = np.ones(4, dtype=bool)
                if bettor is not None:
                    chips[bettor] += 1
                    for j, c in enumerate(calls):
                        who = (bettor + 1 + j) % 4
                        chips[who] += c
                        active[who] = bool(c)
                best = max(cards[i] for i in range(4) if active[i])
                win = np.array([active[i] and cards[i] == best for i in range(4)])
                expected += reach * w / len(deals) * (win * chips.sum() / win.sum() - chips)
    np.testing.assert_allclose(ours, expected, atol=1e-12)


# ----------------------------------------------------------------------------- two players
def test_two_players_is_todays_kuhn():
    default, two = describe("kuhn").extensive(), describe("kuhn:players=2").extensive()
    for name in ("parent", "player", "infoset", "action", "chance_prob", "outcome_payoffs"):
        np.testing.assert_array_equal(getattr(default, name), getattr(two, name))
    assert equilibria.solve_game(two).value == pytest.approx(-1 / 18, abs=1e-9)
    assert describe("kuhn:players=2").views == ("extensive", "ordered", "signal")


def _digest(game) -> str:
    h = hashlib.sha256()
    for name in (
        "parent",
        "player",
        "infoset",
        "action",
        "chance_prob",
        "outcome",
        "outcome_payoffs",
        "infoset_player",
        "infoset_num_actions",
        "infoset_key",
    ):
        a = np.ascontiguousarray(getattr(game, name))
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(a.tobytes())
    for name in ("infoset_labels", "action_labels", "chance_labels", "player_names"):
        h.update(name.encode())
        h.update("\x1f".join(map(str, list(getattr(game, name)))).encode())
    h.update(game.title.encode())
    return h.hexdigest()


@pytest.mark.parametrize(
    "spec, nodes, digest",
    [
        # digests of the arrays FiniteSignalGame.to_extensive gave before it took n players
        ("one_street:cards=5", 101, "595498d3bafe6f33a814c11684d51848fd3a325cd450b6eeae53275271561da1"),
        ("generalized_kuhn:cards=6", 271, "305db60fd5a0c97f9f797fb844c47868ae72833579cb1ebfc338494d793dcdc9"),
        ("kuhn", 55, "45dcc2c693bfc3fbb289462519f2b25b1ca5eb91b267a69290e8fbd220e6ca59"),
        (
            "river_endgame:cards=4,deal=independent",
            193,
            "d5193d9a1135678cec4c339f47ad93f579578768496cbb7f204064036a83a9a0",  # the title names cards and deal,
        ),
    ],
)
def test_two_player_signal_games_unchanged(spec, nodes, digest):
    game = describe(spec).signal().finite_game().to_extensive()
    assert game.num_nodes == nodes
    assert _digest(game) == digest


# ----------------------------------------------------------------------------- registry
def test_new_games_and_parameters():
    assert describe("generalized_kuhn:players=3,cards=5").extensive().counts().infosets == (20, 20, 20)
    cont = describe("kuhn_continuous:players=3").signal()
    assert cont.num_players == 3 and not cont.finite
    assert describe("kuhn_continuous:players=3,cards=6").extensive().num_players == 3
    assert describe("kuhn:players=3").views == ("extensive", "signal")
    from equilibria.instances.registry import catalog

    rows = {r["name"]: r for r in catalog()}
    for name in ("kuhn", "generalized_kuhn", "kuhn_continuous"):
        assert rows[name]["parameters"]["players"] == 2


@pytest.mark.parametrize(
    "spec",
    ["kuhn:players=1", "kuhn:players=abc", "generalized_kuhn:players=3,cards=2", "kuhn_continuous:players=0"],
)
def test_bad_players_refused_naming_the_parameter(spec):
    with pytest.raises(EquilibriaError) as info:
        describe(spec).view("signal")
    message = str(info.value)
    assert "\n" not in message
    assert ("players" in message) or ("cards" in message and "cards=2" in spec)


def test_threshold_program_refuses_a_two_player_model_for_three_players():
    from equilibria.formulations.threshold_milfp import threshold_milfp
    from equilibria.instances.bayesian_games import standard_models

    game = describe("kuhn_continuous:players=3").signal()
    model = standard_models(describe("kuhn_continuous").signal())["standard"]
    with pytest.raises(EquilibriaError, match="3 players"):
        threshold_milfp(game, model)


def test_showdown_splits_among_players_still_in():
    tree = describe("kuhn:players=3").signal().tree
    # ties split the pot; folded players never win
    strength = np.array([[5.0, 5.0, 1.0]])
    pay = tree.showdown_payoffs(strength)[0]
    leaves = tree.terminals
    for i, v in enumerate(leaves):
        assert tree.kind[v] == TERMINAL
        folded = tree.folded[v]
        assert pay[i].sum() == pytest.approx(0.0)
        if not folded and tree.contributions[v].sum() == 3:
            assert pay[i] == pytest.approx([0.5, 0.5, -1.0])


def test_parametric_models_for_three_players_round_trip_and_order_across_players(tmp_path):
    from equilibria.models.parametric import ModelError, ParametricModel

    data = {
        "name": "three",
        "players": [
            {"regions": [{"": "bet"}, {"": "check"}]},
            {"regions": [{"check": "bet"}, {"check": "check"}]},
            {"regions": [{"check-check": "bet"}, {"check-check": "check"}]},
        ],
        "order": ["1.1 <= 3.1 <= 2.1"],
    }
    model = ParametricModel.from_dict(data)
    assert model.num_players == 3 and model.threshold_names == ["1.1", "2.1", "3.1"]
    closure = model.order_closure()
    # given: 1.1 <= 3.1 and 3.1 <= 2.1; implied by transitivity: 1.1 <= 2.1; nothing relates 2.1 below 1.1
    assert closure["1.1", "3.1"] and closure["3.1", "2.1"] and closure["1.1", "2.1"]
    assert not closure["2.1", "1.1"] and not closure["2.1", "3.1"]
    path = tmp_path / "three.json"
    model.to_json(path)
    again = ParametricModel.from_json(path)
    assert again.regions == model.regions and again.order == model.order
    assert again.us_refines(model) and not model.refines(ParametricModel("two", model.regions[:2]))
    with pytest.raises(ModelError, match="two or more players"):
        ParametricModel.from_dict({"players": data["players"][:1]})


def test_a_model_for_the_wrong_number_of_players_is_refused():
    from equilibria.instances import load_bayesian
    from equilibria.instances.bayesian_games import standard_models
    from equilibria.models.parametric import ModelError

    two_player_model = standard_models(load_bayesian("kuhn_continuous"))["standard"]
    three_player_game = load_bayesian("kuhn_continuous:players=3")
    with pytest.raises(ModelError, match="describes 2 players; .* has 3"):
        two_player_model.plan_indices(three_player_game)
