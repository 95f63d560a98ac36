"""Games and strategies exchanged with OpenSpiel and pygambit.

The peers are the oracles: counts come from OpenSpiel's own state enumeration, values
from published figures or from pygambit's solvers, exploitability and NashConv from
OpenSpiel's best responses.
"""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import equilibria
from equilibria.models.best_response import exploitability
from equilibria.models.efg import CHANCE, TERMINAL, GameBuilder
from equilibria.models.efg_io import read_efg
from equilibria.models.errors import EquilibriaError
from equilibria.models.sequence import SequenceForm
from equilibria.models.strategy import uniform_behavior

from .gambit_compat import equilibrium, first_payoff
from .random_games import random_game

INSTANCES = Path(__file__).resolve().parent.parent / "instances"

SMALL_LIARS_DICE = "liars_dice(numdice=1,dice_sides=3)"
TWO_PLAYER = ["kuhn_poker", "leduc_poker", SMALL_LIARS_DICE]
ALL_GAMES = TWO_PLAYER + ["liars_dice", "kuhn_poker(players=3)", "first_sealed_auction"]


def random_behavior(ps, rng):
    """A behaviour strategy with Dirichlet(1) probabilities at every information set."""
    b = np.ones(ps.num_sequences)
    for i in range(ps.num_infosets):
        s = int(ps.infoset_first_sequence[i])
        b[s : s + int(ps.infoset_num_actions[i])] = rng.dirichlet(np.ones(int(ps.infoset_num_actions[i])))
    return b


def deterministic_behavior(ps):
    """Always the last action: a pure strategy far from uniform."""
    b = np.zeros(ps.num_sequences)
    b[0] = 1.0
    b[ps.infoset_first_sequence + ps.infoset_num_actions - 1] = 1.0
    return b


# ----------------------------------------------------------------------------- OpenSpiel
@pytest.fixture(scope="module")
def pyspiel():
    return pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def openspiel_games(pyspiel):
    from equilibria.interop.openspiel import from_openspiel

    cache = {}

    def get(name):
        if name not in cache:
            os_game = pyspiel.load_game(name)
            cache[name] = (os_game, from_openspiel(os_game))
        return cache[name]

    return get


def openspiel_census(os_game):
    """Node, terminal and chance counts and each player's information-state strings,
    from OpenSpiel's own enumeration of all histories."""
    from open_spiel.python.algorithms import get_all_states

    states = get_all_states.get_all_states(os_game, depth_limit=-1, include_terminals=True, include_chance_states=True)
    infosets = [set() for _ in range(os_game.num_players())]
    actions = {}
    terminal = chance = 0
    for state in states.values():
        if state.is_terminal():
            terminal += 1
        elif state.is_chance_node():
            chance += 1
        else:
            p = state.current_player()
            key = state.information_state_string(p)
            infosets[p].add(key)
            actions[(p, key)] = state.legal_actions()
    return len(states), terminal, chance, infosets, actions


@pytest.mark.parametrize(
    "name", [pytest.param(g, marks=pytest.mark.slow) if g == "liars_dice" else g for g in ALL_GAMES]
)  # OpenSpiel's Liar's dice tree walked state by state in Python (about 6 s): make test-slow
def test_tree_matches_openspiel_enumeration(name, openspiel_games):
    os_game, game = openspiel_games(name)
    nodes, terminal, chance, infosets, actions = openspiel_census(os_game)
    counts = game.counts()
    assert (counts.nodes, counts.terminal, counts.chance) == (nodes, terminal, chance)
    assert counts.infosets == tuple(len(s) for s in infosets)
    source = game.openspiel
    for k in range(game.num_infosets):
        p = int(game.infoset_player[k])
        assert str(game.infoset_labels[k]) == source.infoset_strings[k]
        assert source.actions_of(game, k).tolist() == actions[(p, source.infoset_strings[k])]


@pytest.mark.parametrize("name", ["kuhn_poker", SMALL_LIARS_DICE, "kuhn_poker(players=3)"])
def test_probabilities_and_payoffs_follow_openspiel(name, openspiel_games):
    """Walk OpenSpiel's tree and ours in lock step: chance probabilities, returns, owners."""
    os_game, game = openspiel_games(name)
    payoff = dict(zip(game.terminals.tolist(), game.terminal_payoffs().tolist()))
    source = game.openspiel

    def walk(state, node):
        kids = range(int(game.first_child[node]), int(game.first_child[node] + game.num_children[node]))
        if state.is_terminal():
            assert game.player[node] == TERMINAL
            assert payoff[node] == pytest.approx(state.returns(), abs=1e-12)
        elif state.is_chance_node():
            assert game.player[node] == CHANCE
            outcomes = sorted(state.chance_outcomes())
            assert len(outcomes) == len(kids)
            for (a, p), kid in zip(outcomes, kids):
                assert game.chance_prob[kid] == p
                walk(state.child(a), kid)
        else:
            p = state.current_player()
            k = int(game.infoset[node])
            assert game.player[node] == p
            assert source.infoset_strings[k] == state.information_state_string(p)
            ids = source.actions_of(game, k).tolist()
            assert [game.action_label(k, a) for a in range(len(ids))] == [state.action_to_string(p, a) for a in ids]
            for a, kid in zip(ids, kids):
                walk(state.child(a), kid)

    walk(os_game.new_initial_state(), 0)


@pytest.mark.parametrize("name, published", [("kuhn_poker", -1 / 18), ("leduc_poker", -0.085606424078)])
def test_game_value_is_published_value(name, published, openspiel_games):
    # Kuhn: H. W. Kuhn, "A simplified two-person poker", 1950. Leduc: the value reported
    # for Leduc hold'em by OpenSpiel's sequence-form LP test, to 12 digits.
    _, game = openspiel_games(name)
    assert equilibria.solve_game(game).value == pytest.approx(published, abs=1e-11)


def _assert_exploitability_matches(name, openspiel_games):
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from equilibria.interop.openspiel import from_tabular_policy, to_tabular_policy

    os_game, game = openspiel_games(name)
    sol = equilibria.solve_game(game)
    sf = sol.sequence_form
    rng = np.random.default_rng(11)
    profiles = {
        "LP answer": sol.behaviors,
        "uniform": [uniform_behavior(ps) for ps in sf.players],
        "random": [random_behavior(ps, rng) for ps in sf.players],
    }
    for label, behaviors in profiles.items():
        policy = to_tabular_policy(os_game, game, behaviors)
        ours = exploitability(sf, behaviors)
        assert ours.exploitability == pytest.approx(os_exploitability.exploitability(os_game, policy), abs=1e-9), label
        assert ours.nash_conv == pytest.approx(os_exploitability.nash_conv(os_game, policy), abs=1e-9), label
        for mine, back in zip(behaviors, from_tabular_policy(policy, game)):
            np.testing.assert_allclose(back, mine, atol=1e-15)
    assert exploitability(sf, profiles["uniform"]).exploitability > 0.1
    assert exploitability(sf, profiles["LP answer"]).exploitability < 1e-9


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_exploitability_equals_openspiel(name, openspiel_games):
    _assert_exploitability_matches(name, openspiel_games)


@pytest.mark.slow
def test_exploitability_equals_openspiel_full_liars_dice(openspiel_games):
    # loading takes about 1 s; OpenSpiel's exploitability about 6 s per policy
    _assert_exploitability_matches("liars_dice", openspiel_games)


@pytest.mark.parametrize("name", ["kuhn_poker(players=3)", "first_sealed_auction"])
def test_nash_conv_equals_openspiel_n_players_general_sum(name, openspiel_games):
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from equilibria.interop.openspiel import to_tabular_policy

    os_game, game = openspiel_games(name)
    sf = SequenceForm(game)
    rng = np.random.default_rng(5)
    profiles = {
        "uniform": [uniform_behavior(ps) for ps in sf.players],
        "random": [random_behavior(ps, rng) for ps in sf.players],
        "last action": [deterministic_behavior(ps) for ps in sf.players],
    }
    for label, behaviors in profiles.items():
        theirs = os_exploitability.nash_conv(os_game, to_tabular_policy(os_game, game, behaviors))
        assert exploitability(sf, behaviors).nash_conv == pytest.approx(theirs, abs=1e-9), label
        assert theirs > 1e-3, label  # none of these profiles is an equilibrium


def test_openspiel_policy_is_read_back(openspiel_games):
    """A policy written in OpenSpiel's table is judged the same by both sides."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from equilibria.interop.openspiel import from_tabular_policy

    os_game, game = openspiel_games("leduc_poker")
    policy = os_policy.TabularPolicy(os_game)
    rng = np.random.default_rng(3)
    table = rng.random(policy.action_probability_array.shape) * policy.legal_actions_mask
    policy.action_probability_array = table / table.sum(axis=1, keepdims=True)
    behaviors = from_tabular_policy(policy, game)
    assert exploitability(SequenceForm(game), behaviors).exploitability == pytest.approx(
        os_exploitability.exploitability(os_game, policy), abs=1e-9
    )


def test_openspiel_refusals_name_game_and_reason(pyspiel):
    from equilibria.interop.openspiel import OpenSpielError, from_openspiel

    with pytest.raises(OpenSpielError, match=r"goofspiel.*too large.*estimated"):
        from_openspiel("goofspiel")  # 13 cards, played in turn: far too many nodes
    with pytest.raises(OpenSpielError, match=r"leduc_poker.*too large.*max_nodes=5000"):
        from_openspiel("leduc_poker", max_nodes=5000)  # stopped while expanding
    with pytest.raises(OpenSpielError, match=r"tic_tac_toe.*too large.*estimated"):
        from_openspiel("tic_tac_toe", max_nodes=1000)  # refused from the size estimate
    with pytest.raises(OpenSpielError, match="no_such_game"):
        from_openspiel("no_such_game")
    # 199,998 dice dealt before the first bid: the estimate stops once past the limit
    with pytest.raises(OpenSpielError, match=r"liars_dice.*too large.*or more are estimated"):
        from_openspiel("liars_dice(numdice=99999)")
    assert issubclass(OpenSpielError, EquilibriaError)


GOOFSPIEL = "goofspiel(num_cards=4,imp_info=True,points_order=descending)"


def test_a_simultaneous_move_game_is_played_in_turn_and_certified_by_openspiel(pyspiel):
    """Goofspiel's simultaneous bids go through OpenSpiel's turn-based conversion (said
    in the title); the answer's NashConv by OpenSpiel's own best responses on that game
    is 0, and the value is 0 by symmetry."""
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from equilibria.interop.openspiel import to_openspiel_policy

    answer = equilibria.solve(f"openspiel:{GOOFSPIEL}")
    game = answer.sequence_form.game
    assert "in turn" in game.title and answer.value == pytest.approx(0.0, abs=1e-9)
    os_game = pyspiel.load_game(game.openspiel.game_string)
    assert os_game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    policy = to_openspiel_policy(os_game, game, answer.behaviors)
    assert os_exploitability.nash_conv(os_game, policy) == pytest.approx(0.0, abs=1e-9)
    assert answer.nash_conv == pytest.approx(os_exploitability.nash_conv(os_game, policy), abs=1e-9)


def _best_response_value(state, policy, responder):
    """What ``responder`` gets against ``policy`` by a best response, walked on
    OpenSpiel's own states (perfect information: a best response is a maximum at each
    of the responder's states)."""
    if state.is_terminal():
        return state.returns()[responder]
    if state.is_chance_node():
        return sum(p * _best_response_value(state.child(a), policy, responder) for a, p in state.chance_outcomes())
    if state.current_player() == responder:
        return max(_best_response_value(state.child(a), policy, responder) for a in state.legal_actions())
    probs = policy.action_probabilities(state)
    return sum(p * _best_response_value(state.child(a), policy, responder) for a, p in probs.items() if p > 0)


def test_a_perfect_information_game_has_an_information_set_per_node(pyspiel):
    """Breakthrough gives OpenSpiel no information-state strings: every node is its own
    information set. The answer's NashConv, from best responses over OpenSpiel's states,
    is 0; its value is what OpenSpiel's alpha-beta search finds."""
    from open_spiel.python.algorithms import minimax

    from equilibria.interop.openspiel import to_openspiel_policy

    spec = "breakthrough(rows=3,columns=3)"
    answer = equilibria.solve(f"openspiel:{spec}")
    game = answer.sequence_form.game
    assert sum(game.counts().infosets) == game.counts().decision
    os_game = pyspiel.load_game(spec)
    policy = to_openspiel_policy(os_game, game, answer.behaviors)
    root = os_game.new_initial_state()
    nash_conv = sum(_best_response_value(root, policy, p) for p in range(2))  # zero-sum: the payoffs cancel
    assert nash_conv == pytest.approx(0.0, abs=1e-9)
    value, _ = minimax.alpha_beta_search(os_game, maximizing_player_id=0)
    assert answer.value == pytest.approx(value, abs=1e-9)


def test_a_game_of_another_kind_is_refused_before_its_tree_is_walked(pyspiel):
    """colored_trails (three players, general-sum, about 1.7 million nodes) walked for
    minutes before the LP route refused it; OpenSpiel's game type says so at once."""
    from equilibria.instances.registry import describe
    from equilibria.models.errors import GameError

    description = describe("openspiel:colored_trails")
    with pytest.raises(GameError, match="3 players, general-sum payoffs.*equilibria nash"):
        equilibria.solve(description, "lp")
    assert "extensive" not in description._built  # nothing was walked


def test_export_refuses_a_game_not_from_openspiel(pyspiel):
    from equilibria.interop.openspiel import OpenSpielError, to_tabular_policy

    game = equilibria.load("kuhn")
    sf = SequenceForm(game)
    with pytest.raises(OpenSpielError, match="from_openspiel"):
        to_tabular_policy("kuhn_poker", game, [uniform_behavior(ps) for ps in sf.players])


# ----------------------------------------------------------------------------- pygambit
@pytest.fixture(scope="module")
def gbt():
    return pytest.importorskip("pygambit")


def efg_games():
    return [read_efg(path) for path in sorted(INSTANCES.glob("*.efg"))]


def same_infoset_partition(a, b) -> bool:
    """The decision nodes are grouped alike (information sets may be numbered apart)."""
    dec = np.flatnonzero(a.player >= 0)
    pairs = set(zip(a.infoset[dec].tolist(), b.infoset[dec].tolist()))
    return len(pairs) == a.num_infosets == b.num_infosets


def assert_same_game(a, b):
    assert a.counts() == b.counts()
    assert b.player_names == a.player_names
    for name in ("parent", "player", "action"):
        np.testing.assert_array_equal(getattr(b, name), getattr(a, name), err_msg=name)
    np.testing.assert_array_equal(b.chance_prob, a.chance_prob)
    np.testing.assert_array_equal(b.terminal_payoffs(), a.terminal_payoffs())
    assert same_infoset_partition(a, b)
    np.testing.assert_array_equal(b.infoset_player[b.infoset[a.player >= 0]], a.player[a.player >= 0])


def action_labels_by_node(game) -> list:
    """The action labels offered at every decision node, in node order."""
    return [
        [game.action_label(int(game.infoset[v]), a) for a in range(int(game.num_children[v]))]
        for v in np.flatnonzero(game.player >= 0).tolist()
    ]


def gambit_value(gbt, gg) -> float:
    """Player 1's payoff in the equilibrium found by Gambit's sequence-form LCP."""
    return first_payoff(equilibrium(gbt.nash.lcp_solve(gg, rational=False)), gg)


@pytest.mark.parametrize("game", efg_games(), ids=lambda g: g.title)
def test_efg_instances_round_trip_through_pygambit(game, gbt):
    from equilibria.interop.gambit import from_pygambit, to_pygambit

    gg = to_pygambit(game)
    back = from_pygambit(gg)
    assert_same_game(game, back)
    value = equilibria.solve_game(game).value
    assert equilibria.solve_game(back).value == pytest.approx(value, abs=1e-12)
    assert gambit_value(gbt, gg) == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_random_games_round_trip_through_pygambit(seed, gbt):
    from equilibria.interop.gambit import from_pygambit, to_pygambit

    game = random_game(seed)
    gg = to_pygambit(game)
    # pygambit holds the exact fractions the generator wrote
    chance_kids = np.flatnonzero(np.r_[False, game.player[game.parent[1:]] == CHANCE])
    back = from_pygambit(gg)
    assert_same_game(game, back)
    assert [Fraction(str(t)) for t in back.chance_text[chance_kids]] == [
        Fraction(str(t)) for t in game.chance_text[chance_kids]
    ]
    value = equilibria.solve_game(game).value
    assert equilibria.solve_game(back).value == pytest.approx(value, abs=1e-12)
    assert gambit_value(gbt, gg) == pytest.approx(value, abs=1e-9)


def test_pygambit_reads_exact_fractions_and_payoffs(gbt):
    from pygambit import H

    from equilibria.interop.gambit import to_pygambit

    b = GameBuilder(["Row", "Column"], title="fractions")
    x, y = b.chance(b.root, [("x", "1/3"), ("y", "2/3")])
    for kid, pays in ((x, [1.5, -1.5]), (y, [-2, 2])):
        b.terminal(kid, pays)
    gg = to_pygambit(b.build())
    assert gg.get_action_probs(H.path()) == {"x": Fraction(1, 3), "y": Fraction(2, 3)}
    assert float(gg.get_outcome_payoffs(gg.get_outcome(H.path("x")))["Row"]) == 1.5


def test_from_pygambit_reads_gambit_parsed_files(gbt):
    """pygambit's own parser builds the game; we read it back through its API."""
    from equilibria.interop.gambit import from_pygambit

    for path in sorted(INSTANCES.glob("*.efg")):
        ours = read_efg(path)
        theirs = from_pygambit(gbt.read_efg(str(path)))
        assert_same_game(ours, theirs)
        assert action_labels_by_node(theirs) == action_labels_by_node(ours)


def test_labels_gambit_refuses_are_replaced(gbt):
    from pygambit import H

    from equilibria.interop.gambit import from_pygambit, to_pygambit

    b = GameBuilder(["Chance", "Chance"], title="bad labels")
    kids = b.decision(b.root, 0, "I", ["", "go", "go"])
    for i, kid in enumerate(kids):
        b.terminal(kid, [i, -i])
    game = b.build()
    gg = to_pygambit(game)
    assert len(set(gg.players)) == 2 and "Chance" not in list(gg.players)
    actions = gg.get_actions(H.path())
    assert len(set(actions)) == 3 and all(a.strip() for a in actions)
    back = from_pygambit(gg)
    assert back.counts() == game.counts()
    np.testing.assert_array_equal(back.terminal_payoffs(), game.terminal_payoffs())


def test_openspiel_game_solved_by_pygambit(pyspiel, gbt):
    """OpenSpiel's Kuhn poker through pygambit: Gambit's LCP finds Kuhn's value -1/18."""
    from equilibria.interop.gambit import to_pygambit
    from equilibria.interop.openspiel import from_openspiel

    gg = to_pygambit(from_openspiel("kuhn_poker"))
    assert gambit_value(gbt, gg) == pytest.approx(-1 / 18, abs=1e-9)


def test_three_player_game_round_trips_through_pygambit(pyspiel, gbt):
    from equilibria.interop.gambit import from_pygambit, to_pygambit
    from equilibria.interop.openspiel import from_openspiel

    game = from_openspiel("kuhn_poker(players=3)")
    gg = to_pygambit(game)
    assert len(gg.players) == 3
    assert sum(len(gg.get_infosets(p)) for p in gg.players) == game.num_infosets
    back = from_pygambit(gg)
    assert_same_game(game, back)
