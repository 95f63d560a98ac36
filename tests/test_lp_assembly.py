"""The sequence-form LP matrix, assembled in chunks, equals scipy's block construction for
any chunk size; a game that pays nothing has value 0."""

import sys

import numpy as np
import pytest
import scipy.sparse as sp

import equilibria
from equilibria.formulations import sequence_form_lp
from equilibria.models.sequence import SequenceForm

ALL_ZERO = (
    'EFG 2 R "pays nothing" { "A" "B" }\n""\n'
    'p "" 1 1 "a" { "l" "r" } 0\np "" 2 1 "b" { "x" "y" } 0\nt "" 1 "o1" { 0, 0 }\nt "" 2 "o2" { 0, 0 }\n'
    'p "" 2 1 "b" { "x" "y" } 0\nt "" 3 "o3" { 0, 0 }\nt "" 4 "o4" { 0, 0 }\n'
)


@pytest.mark.parametrize("chunk", [1, 2, 7, 1000])
@pytest.mark.parametrize("player", [0, 1])
def test_chunked_assembly_equals_scipy_blocks(monkeypatch, chunk, player):
    module = sys.modules["equilibria.formulations.sequence_form_lp"]
    monkeypatch.setattr(module, "ASSEMBLY_CHUNK", chunk)
    sf = SequenceForm(equilibria.load("leduc"))  # ties pay 0: chunks with no entry at all
    lp = sequence_form_lp(sf, player)
    ep = sf.players[player].constraint_matrix
    eo = sf.players[1 - player].constraint_matrix
    a = sf.payoff_matrix(player)
    a_p = a if player == 0 else a.T
    expected = sp.bmat([[ep, None], [a_p.T, -eo.T]]).tocsc()
    assert lp.A.shape == expected.shape
    assert abs(lp.A - expected).max() == 0.0
    assert lp.nnz == expected.count_nonzero()


def test_a_game_that_pays_nothing_has_value_zero(tmp_path):
    path = tmp_path / "zero.efg"
    path.write_text(ALL_ZERO)
    answer = equilibria.solve(str(path))
    assert answer.value == 0.0 and answer.exploitability == 0.0
    assert np.all(np.isfinite(answer.behaviors[0]))
