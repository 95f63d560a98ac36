"""The best response of an ordered game computed on the betting template and the cards
(no game tree) equals the one computed on the full tree, for strategies of every
abstraction, on every deck small enough to build the tree."""

from __future__ import annotations

import numpy as np
import pytest

from equilibria.instances.registry import describe
from equilibria.models.best_response import certify
from equilibria.models.efg import segment_ranges
from equilibria.models.filtered import filtered_sequence_form, lift_behavior
from equilibria.models.gameshrink import game_shrink, identity_filter, published_shrink
from equilibria.models.ordered import SignalSpace
from equilibria.models.ordered_best_response import ordered_certificate
from equilibria.models.sequence import SequenceForm

DECKS = [
    "kuhn",
    "generalized_kuhn:cards=7",
    "leduc",
    "leduc:ranks=5,suits=3",
    "rhode_island:ranks=3,suits=2",
    "rhode_island:ranks=4,suits=2",
]
FILTERS = {"lossless": game_shrink, "published": published_shrink, "none": identity_filter}


def random_behaviors(sequence_form: SequenceForm, rng: np.random.Generator) -> list[np.ndarray]:
    """Skewed random behaviour strategies: far from equilibrium, so best responses differ
    from the strategies they replace at many information sets."""
    out = []
    for ps in sequence_form.players:
        na = np.asarray(ps.infoset_num_actions, dtype=np.int64)
        draws = rng.random(int(na.sum())) ** 3
        sums = np.add.reduceat(draws, np.concatenate([[0], np.cumsum(na)[:-1]]))
        b = np.ones(ps.num_sequences)
        b[segment_ranges(np.asarray(ps.infoset_first_sequence), na)] = draws / np.repeat(sums, na)
        out.append(b)
    return out


@pytest.mark.parametrize("spec", DECKS)
def test_equals_the_tree_best_response_for_every_abstraction(spec: str) -> None:
    game = describe(spec).ordered()
    space = SignalSpace(game)
    tree = game.to_extensive()
    tree_sf = SequenceForm(tree)
    rng = np.random.default_rng(7)
    for name, make in FILTERS.items():
        fg = filtered_sequence_form(make(game, space))
        for _ in range(2):
            behaviors = random_behaviors(fg.sequence_form, rng)
            decomposed = ordered_certificate(fg, behaviors)
            expanded = certify(tree_sf, lift_behavior(fg, behaviors, tree, tree_sf))
            np.testing.assert_allclose(decomposed.best_response_values, expanded.best_response_values, atol=1e-9)
            np.testing.assert_allclose(decomposed.payoffs, expanded.payoffs, atol=1e-9)
            assert decomposed.exploitability == pytest.approx(expanded.exploitability, abs=1e-9), name
            assert decomposed.exploitability > 1e-3  # the strategies are far from equilibrium


def test_an_equilibrium_is_certified_in_the_full_game_with_the_published_value() -> None:
    """Kuhn poker's lossless equilibrium: value -1/18 (Kuhn, 1950) and exploitability 0."""
    from equilibria.routes.shrink import solve_shrunk

    answer = solve_shrunk("kuhn", lift=False)
    cert = ordered_certificate(answer.report.filtered, answer.behaviors)
    assert cert.payoffs[0] == pytest.approx(-1 / 18, abs=1e-12)
    assert cert.exploitability < 1e-12


def test_refuses_a_strategy_of_the_wrong_length() -> None:
    from equilibria.models.errors import GameError

    game = describe("leduc").ordered()
    fg = filtered_sequence_form(game_shrink(game, SignalSpace(game)))
    good = random_behaviors(fg.sequence_form, np.random.default_rng(0))
    with pytest.raises(GameError, match="player 2's strategy has shape"):
        ordered_certificate(fg, [good[0], good[1][:-1]])
