"""Deep, narrow trees (a chain of a million nodes) are summed up by pointer jumping rather
than level by level; both ways must give the same sequences, reach and recall verdict."""

import numpy as np
import pytest

import equilibria
import equilibria.models.efg as efg
from equilibria.models.efg_io import parse_efg
from equilibria.models.errors import GameError

from .efg_samples import IMPERFECT_RECALL


def _chain(depth: int) -> str:
    """Players alternate, each may stop (payoff 1, -1) or go on; between two decisions
    chance ends the game with probability 1/2 (payoff 0): the k-th stop is reached by
    chance with probability 2**-k."""
    lines = ['EFG 2 R "chain" { "A" "B" }', '""']
    for i in range(depth):
        lines.append(f'p "" {i % 2 + 1} {i + 1} "" {{ "stop" "go" }} 0')
        lines.append(f't "" {2 * i + 1} "" {{ 1, -1 }}')
        lines.append(f'c "" {i + 1} "" {{ "end" 1/2 "on" 1/2 }} 0')
        lines.append(f't "" {2 * i + 2} "" {{ 0, 0 }}')
    lines.append(f't "" {2 * depth + 1} "" {{ 0, 0 }}')
    return "\n".join(lines) + "\n"


def _summaries(game_text: str):
    by_levels = parse_efg(game_text)
    by_jumps = parse_efg(game_text)
    return by_levels._top_down(), by_jumps._top_down_by_jumps(), by_levels


@pytest.mark.parametrize("name", ["kuhn", "leduc", "liars_dice", "generalized_kuhn:players=3,cards=4"])
def test_both_ways_agree_on_registered_games(name):
    game = equilibria.load(name)
    a, b = game._top_down(), game._top_down_by_jumps()
    assert np.array_equal(a.terminal_nodes, b.terminal_nodes)
    assert np.array_equal(a.terminal_sequences, b.terminal_sequences)
    assert np.array_equal(a.infoset_parent_sequence, b.infoset_parent_sequence)
    assert np.allclose(a.terminal_chance, b.terminal_chance, rtol=1e-14, atol=0)


def test_a_chain_gets_its_closed_form_reach():
    depth = 3000  # beyond DEEP_LEVELS: read by pointer jumping
    game = parse_efg(_chain(depth))
    assert game.num_levels > efg.DEEP_LEVELS
    summary = game.path_summary()
    stops = game.outcome[summary.terminal_nodes] >= 0
    payoffs = game.outcome_payoffs[game.outcome[summary.terminal_nodes], 0]
    stop_reach = np.sort(summary.terminal_chance[stops & (payoffs == 1)])[::-1]
    assert np.allclose(stop_reach, 2.0 ** -np.arange(depth), rtol=1e-12, atol=0)
    a, b, _ = _summaries(_chain(50))
    assert np.array_equal(a.terminal_sequences, b.terminal_sequences)
    assert np.allclose(a.terminal_chance, b.terminal_chance, rtol=1e-14, atol=0)


def test_pointer_jumping_finds_imperfect_recall(monkeypatch):
    monkeypatch.setattr(efg, "DEEP_LEVELS", 0)
    monkeypatch.setattr(efg, "NARROW_WIDTH", 10**9)
    with pytest.raises(GameError, match="imperfect recall at player 1 information set 2 'second'"):
        parse_efg(IMPERFECT_RECALL)
