"""The published equilibrium family of three-player Kuhn poker (Szafron, Gibson and
Sturtevant, AAMAS 2013) against OpenSpiel: every member sampled from each of its three
sub-families has NashConv 0 by OpenSpiel's ``nash_conv``, a profile just outside any one of
the family's conditions does not, and the MIP Nash answer is placed in the family (or the
failing condition named) beside its payoffs."""

import json
import subprocess
import sys

import numpy as np
import pytest

from equilibria.instances.registry import describe
from equilibria.models import kuhn3_family as family
from equilibria.models.sequence import SequenceForm
from tests.conftest import behaviour_table

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402
from open_spiel.python.algorithms.expected_game_score import policy_value  # noqa: E402

OS_GAME = pyspiel.load_game("kuhn_poker(players=3)")


@pytest.fixture(scope="module")
def kuhn3():
    return SequenceForm(describe("kuhn:players=3").extensive())


def openspiel(sf, behaviors):
    """OpenSpiel's NashConv and expected payoffs of our behaviour profile."""
    pol = os_policy.TabularPolicy(OS_GAME)
    for key, probs in behaviour_table(sf.game, sf, behaviors).items():
        pol.policy_for_key(key)[:] = probs
    return os_exploitability.nash_conv(OS_GAME, pol), policy_value(OS_GAME.new_initial_state(), [pol] * 3)


def sample_member(rng, kind):
    """Parameters drawn uniformly inside the bounds of one sub-family."""
    b11 = rng.uniform(0, 0.25)
    if kind == "c11 = 0":
        c11, b21 = 0.0, rng.uniform(b11, 0.25)
    elif kind == "0 < c11 < 1/2":
        b21 = b11
        c11 = rng.uniform(0.01, 0.49 if b11 <= 1 / 6 else (2 - b11) / (3 + 4 * b11))
    else:
        c11, b21 = 0.5, rng.uniform(0, max(0.0, min(b11, 0.5 - 2 * b11)))
    spread = 0.75 * (b11 + b21) + max(b11, b21) / 4
    b23 = rng.uniform(0, max(0.0, (b11 - b21) / (2 * (1 - b21))))
    b32 = rng.uniform(0, min(1.0, 0.5 + spread))
    c33 = rng.uniform(max(0.0, 0.5 - b32), min(1.0, 0.5 - b32 + spread))
    return dict(c11=c11, b11=b11, b21=b21, b23=b23, b32=b32, c33=c33, c34=rng.uniform(0, 1))


@pytest.mark.parametrize("kind", ["c11 = 0", "0 < c11 < 1/2", "c11 = 1/2"])
def test_members_are_equilibria_by_openspiel_and_are_recognised(kuhn3, kind):
    rng = np.random.default_rng(len(kind))
    for _ in range(8):
        params = sample_member(rng, kind)
        assert family.violated_condition(params) is None
        behaviors = family.member_behaviors(kuhn3, family.family_profile(params))
        nash_conv, payoffs = openspiel(kuhn3, behaviors)
        assert nash_conv <= 1e-9
        assert payoffs[1] == pytest.approx(-1 / 48, abs=1e-12)
        assert -1 / 32 - 1e-12 <= payoffs[0] <= -1 / 48 + 1e-12
        found = family.membership(kuhn3, behaviors)
        assert found is not None and found.member and found.subfamily == kind
        for name, value in params.items():
            # b23 is read where player 2 calls with Q after checking, reached when b21 < 1
            assert found.parameters[name] == pytest.approx(value, abs=1e-12), name
        assert found.family_payoffs == pytest.approx(list(payoffs), abs=1e-12)


BASE = dict(c11=0.0, b11=0.1, b21=0.25, b23=0.0, b32=0.3, c33=0.4, c34=0.5)
JUST_OUTSIDE = {
    "b21 <= 1/4 when c11 = 0": dict(BASE, b21=0.27),
    "b11 <= b21 when c11 = 0": dict(BASE, b11=0.2, b21=0.15),
    "b21 = b11 when 0 < c11 < 1/2": dict(BASE, c11=0.2, b21=0.12),
    "c11 <= (2 - b11)/(3 + 4 b11) when b11 > 1/6": dict(BASE, c11=0.48, b11=0.24, b21=0.24),
    "b21 <= min(b11, 1/2 - 2 b11) when c11 = 1/2": dict(BASE, c11=0.5, b11=0.2, b21=0.12),
    "b23 <= max(0, (b11 - b21)/(2 (1 - b21)))": dict(BASE, c11=0.5, b11=0.2, b21=0.05, b23=0.2),
    "b32 <= 1/2 + 3/4 (b11 + b21) + max(b11, b21)/4": dict(BASE, b11=0.0, b21=0.0, b32=0.55, c33=0.0),
    "c33 >= 1/2 - b32": dict(BASE, c33=0.15),
    "c33 <= 1/2 - b32 + 3/4 (b11 + b21) + max(b11, b21)/4": dict(BASE, b11=0.0, b21=0.0, c33=0.25),
}
# b11 <= 1/4 cannot fail alone: where it binds, b41 = 2 (b11 + b21) or b21's bound fails first


@pytest.mark.parametrize("condition", sorted(JUST_OUTSIDE))
def test_each_condition_is_tight(kuhn3, condition):
    """Violating one condition a little makes a profile OpenSpiel can exploit, and the
    membership test names that condition."""
    params = JUST_OUTSIDE[condition]
    assert family.violated_condition(params) == condition
    behaviors = family.member_behaviors(kuhn3, family.family_profile(params))
    assert openspiel(kuhn3, behaviors)[0] > 5e-4
    found = family.membership(kuhn3, behaviors)
    assert found is not None and not found.member and found.reason == condition


def test_a_changed_constant_entry_is_named(kuhn3):
    table = family.family_profile(dict(BASE))
    table["pbp"][2] = 0.25  # player 1 calls with K after a bet and a fold: the family says 1/2
    found = family.membership(kuhn3, family.member_behaviors(kuhn3, table))
    assert not found.member and "player 1 with K after 'pbp'" in found.reason


@pytest.mark.parametrize("spec", ["generalized_kuhn:players=3,cards=3", "kuhn", "generalized_kuhn:players=3,cards=5"])
def test_other_games_are_not_compared(spec):
    sf = SequenceForm(describe(spec).extensive())
    assert not family.applies_to(sf)
    assert family.membership(sf, [np.ones(ps.num_sequences) for ps in sf.players]) is None


@pytest.mark.slow  # three-player MIP Nash on SCIP, about 30 s
def test_nash_places_its_answer_in_the_family():
    """The MIP's equilibrium, checked by OpenSpiel; when it is a member, the member built
    from the parameters read off it is an equilibrium with the same payoffs."""
    pytest.importorskip("pyscipopt")
    command = [sys.executable, "-m", "equilibria.scripts.cli", "nash", "kuhn:players=3", "--products", "exact"]
    command += ["--backend", "scip"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("family "))
    assert "published equilibrium family (Szafron, Gibson and Sturtevant 2013)" in line
    result = subprocess.run(command + ["--json"], capture_output=True, text=True, timeout=600)
    answer = json.loads(result.stdout)
    found = answer["published_family"]
    assert found["member"] == line.split()[1].startswith("member")
    if found["member"]:
        sf = SequenceForm(describe("kuhn:players=3").extensive())
        member = family.member_behaviors(sf, family.family_profile(found["parameters"]))
        nash_conv, payoffs = openspiel(sf, member)
        assert nash_conv <= 1e-9
        assert answer["payoffs"] == pytest.approx(list(payoffs), abs=1e-6)
        assert found["family_payoffs"] == pytest.approx(list(payoffs), abs=1e-9)
    else:
        assert found["reason"]
