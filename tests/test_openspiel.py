"""Our exploitability of a strategy equals OpenSpiel's for the same strategy.

The two trees are walked in lock step (chance outcomes and legal actions in ascending
order), checking probabilities and payoffs on the way and mapping OpenSpiel's
information-state strings to our information sets.
"""

import numpy as np
import pytest

import equilibria
from equilibria.models.best_response import exploitability
from equilibria.models.efg import CHANCE, TERMINAL
from equilibria.models.strategy import uniform_behavior

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402


def lockstep_infoset_map(game, os_game):
    """OpenSpiel information-state string -> our global information set."""
    payoff = dict(zip(game.terminals.tolist(), game.terminal_payoffs().tolist()))
    mapping = {}

    def walk(state, node):
        kids = range(int(game.first_child[node]), int(game.first_child[node] + game.num_children[node]))
        if state.is_terminal():
            assert game.player[node] == TERMINAL
            assert state.returns() == pytest.approx(payoff[node], abs=1e-12)
            return
        if state.is_chance_node():
            assert game.player[node] == CHANCE
            outcomes = sorted(state.chance_outcomes())
            assert len(outcomes) == len(kids)
            for (a, p), kid in zip(outcomes, kids):
                assert p == pytest.approx(game.chance_prob[kid], abs=1e-15)
                walk(state.child(a), kid)
            return
        p = state.current_player()
        assert game.player[node] == p
        key = state.information_state_string(p)
        assert mapping.setdefault(key, int(game.infoset[node])) == game.infoset[node]
        legal = sorted(state.legal_actions())
        assert len(legal) == len(kids)
        for a, kid in zip(legal, kids):
            walk(state.child(a), kid)

    walk(os_game.new_initial_state(), 0)
    return mapping


def to_openspiel_policy(game, sf, behaviors, os_game, mapping):
    pol = os_policy.TabularPolicy(os_game)
    local, _ = game.local_infoset_numbering()
    for key, row in pol.state_lookup.items():
        k = mapping[key]
        p = int(game.infoset_player[k])
        ps = sf.players[p]
        i = int(local[k])
        first = int(ps.infoset_first_sequence[i])
        probs = behaviors[p][first : first + int(ps.infoset_num_actions[i])]
        legal = np.flatnonzero(pol.legal_actions_mask[row])
        pol.action_probability_array[row] = 0.0
        pol.action_probability_array[row, legal] = probs
    return pol


def random_behavior(ps, rng):
    b = np.ones(ps.num_sequences)
    for i in range(ps.num_infosets):
        s = int(ps.infoset_first_sequence[i])
        b[s : s + int(ps.infoset_num_actions[i])] = rng.dirichlet(np.ones(int(ps.infoset_num_actions[i])))
    return b


@pytest.mark.parametrize("ours, theirs", [("kuhn", "kuhn_poker"), ("leduc", "leduc_poker")])
def test_exploitability_equals_openspiel(ours, theirs):
    game = equilibria.load(ours)
    os_game = pyspiel.load_game(theirs)
    mapping = lockstep_infoset_map(game, os_game)
    assert len(mapping) == game.num_infosets
    sol = equilibria.solve_game(game)
    sf = sol.sequence_form
    rng = np.random.default_rng(7)
    profiles = {
        "equilibrium": sol.behaviors,
        "uniform": [uniform_behavior(ps) for ps in sf.players],
        "random": [random_behavior(ps, rng) for ps in sf.players],
        "equilibrium vs random": [sol.behaviors[0], random_behavior(sf.players[1], rng)],
    }
    for name, behaviors in profiles.items():
        mine = exploitability(sf, behaviors).exploitability
        pol = to_openspiel_policy(game, sf, behaviors, os_game, mapping)
        assert mine == pytest.approx(os_exploitability.exploitability(os_game, pol), abs=1e-9), name
    assert exploitability(sf, profiles["uniform"]).exploitability > 0.1
