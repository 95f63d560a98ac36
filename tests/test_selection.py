"""--select best|worst|range: the best or the worst equilibrium for each player's payoff
against a stated strategy, by one LP over the player's optimal face, or the range of
payoffs they span.

Kuhn poker's first player has a one-parameter family of equilibrium strategies (Kuhn,
"A simplified two-person poker", 1950): bet the jack with probability a in [0, 1/3], the
king with 3a, call a bet with the queen with a + 1/3, never bet the queen. Against a
uniform second player (every action with probability 1/2) the first player earns
1/18 + a/3 (worked out by hand: -1 + a/2 with the jack, a/2 - 1/3 with the queen, 3/2
with the king), so the best equilibrium is a = 1/3 (1/6) and the worst a = 0 (1/18).
Against a second player who never bets and always folds to a bet the first player earns
2a/3: best 2/9, worst 0.
"""

import subprocess
import sys

import numpy as np
import pytest

import equilibria
from equilibria.models.sequence import SequenceForm
from equilibria.models.strategy import realization_from_behavior

KUHN_VALUE = -1 / 18
LEDUC_VALUE = -0.085606424078  # the published value of Leduc hold'em


def _run(*args, check=True):
    done = subprocess.run([sys.executable, "-m", "equilibria", *args], capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _probability(answer, player, infoset, action):
    rows = answer.strategy_table()
    hit = rows[(rows.player == player) & (rows.infoset == infoset) & (rows.action == action)]
    assert len(hit) == 1, (infoset, action)
    return float(hit.probability.iloc[0])


@pytest.mark.parametrize("select, bluff, payoff", [("best", 1 / 3, 1 / 6), ("worst", 0.0, 1 / 18)])
def test_kuhn_selection_against_the_uniform_player_is_kuhns_family_end(select, bluff, payoff):
    answer = equilibria.solve("kuhn", "lp", select=select)
    assert answer.exploitability <= 1e-9
    assert answer.value == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert _probability(answer, 1, "J:", "bet") == pytest.approx(bluff, abs=1e-9)
    assert _probability(answer, 1, "K:", "bet") == pytest.approx(3 * bluff, abs=1e-9)
    assert _probability(answer, 1, "Q:cr", "call") == pytest.approx(bluff + 1 / 3, abs=1e-9)
    # the objective itself: player 1's payoff against the uniform player 2
    sf = SequenceForm(answer.game)
    x = realization_from_behavior(sf.players[0], answer.behaviors[0])
    y = realization_from_behavior(sf.players[1], sf.players[1].treeplex.uniform())
    assert float(x @ sf.payoff_matrix(0) @ y) == pytest.approx(payoff, abs=1e-9)
    assert f"{select} equilibrium for player 1's payoff against uniform play" in "\n".join(answer.plan)


@pytest.mark.parametrize("backend", ["highs", "scip", "clarabel"])
def test_the_selected_kuhn_strategy_is_the_same_on_every_backend(backend):
    pytest.importorskip({"highs": "highspy", "scip": "pyscipopt", "clarabel": "clarabel"}[backend])
    answer = equilibria.solve("kuhn", "lp", backend=backend, select="best")
    assert answer.exploitability <= 1e-7
    assert _probability(answer, 1, "J:", "bet") == pytest.approx(1 / 3, abs=1e-6)


def test_against_a_strategy_file(tmp_path):
    vertex = tmp_path / "vertex.csv"
    _run("solve", "kuhn", "--no-shrink", "--quiet", "--strategy-out", str(vertex))
    lines = vertex.read_text().splitlines()
    # player 2 never bets and folds to every bet
    passive = {"check": 1.0, "bet": 0.0, "fold": 1.0, "call": 0.0}
    out = [lines[0]]
    for line in lines[1:]:
        player, infoset, action, _, reach = line.split(",")
        out.append(line if player == "1" else f"{player},{infoset},{action},{passive[action]},{reach}")
    against = tmp_path / "passive.csv"
    against.write_text("\n".join(out) + "\n")
    for select, expected in (("best", 2 / 9), ("worst", 0.0)):
        answer = equilibria.solve("kuhn", "lp", select=select, against=str(against))
        assert answer.exploitability <= 1e-9
        sf = SequenceForm(answer.game)
        x = realization_from_behavior(sf.players[0], answer.behaviors[0])
        line = next(text for text in answer.plan if "player 1's payoff against player 2's strategy in" in text)
        assert line.endswith(f"{expected:.6f} selected"), line
        assert float(x @ sf.payoff_matrix(0) @ realization_from_behavior(sf.players[1], _passive(sf))) == (
            pytest.approx(expected, abs=1e-9)
        )


def _passive(sf):
    """Player 2's behaviour strategy that checks and folds everywhere, by action label."""
    game = sf.game
    labels = sf.sequence_labels(1)
    b = np.ones(sf.players[1].num_sequences)
    for s, label in enumerate(labels[1:], start=1):
        b[s] = 1.0 if label.endswith(("check", "fold")) else 0.0
    assert game is not None
    return b


def test_leduc_selection_keeps_the_published_value_and_orders_the_objective():
    vertex = equilibria.solve("leduc", "lp")
    sf = SequenceForm(vertex.game)
    uniform = [realization_from_behavior(ps, ps.treeplex.uniform()) for ps in sf.players]

    def payoffs(answer):
        x, y = (realization_from_behavior(ps, b) for ps, b in zip(sf.players, answer.behaviors))
        return float(x @ sf.payoff_matrix(0) @ uniform[1]), float(uniform[0] @ sf.payoff_matrix(1) @ y)

    best, worst = (equilibria.solve("leduc", "lp", select=s) for s in ("best", "worst"))
    for answer in (best, worst):
        assert answer.value == pytest.approx(LEDUC_VALUE, abs=1e-9)
        assert answer.exploitability <= 1e-9
    for p in (0, 1):
        assert payoffs(worst)[p] <= payoffs(vertex)[p] + 1e-9 <= payoffs(best)[p] + 2e-9
    assert payoffs(best)[0] - payoffs(worst)[0] > 0.1  # Leduc's equilibria differ widely off the value


@pytest.mark.parametrize(
    "args, message",
    [
        (["kuhn", "--against", "x.csv"], "--against names what --select best|worst|range plays against"),
        (["kuhn", "--select", "best", "--algorithm", "cfr+", "--iterations", "5"], "--select works on the LP"),
        (["kuhn", "--select", "best", "--eliminate-dominated"], "--select works on the LP"),
        (["kuhn", "--select", "best", "--against", "no-such-file.csv"], "no-such-file.csv"),
        (["kuhn", "--select", "middle"], "--select"),
        (
            ["kuhn", "--select", "best", "--target-exploitability", "0.1"],
            "does not combine with --target-exploitability",
        ),
    ],
)
def test_bad_selections_are_refused_in_one_line(args, message):
    done = _run("solve", *args, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


@pytest.mark.parametrize("threshold", [0.5, 2.0])
def test_on_an_abstraction_select_best_guarantees_most_in_the_original_game(threshold):
    # lossy GameShrink merges cards that differ, so the abstraction's equilibria guarantee
    # different amounts in the full game. The selected ones guarantee more than the LP's
    # vertex here, stay equilibria of the abstraction, and the full game's own certificate
    # (best responses over its tree) gives exactly the guarantees the selection reports.
    vertex = equilibria.solve("leduc:ranks=6", "shrink", threshold=threshold, lift=True)
    best = equilibria.solve("leduc:ranks=6", "shrink", threshold=threshold, lift=True, select="best")
    assert best.abstract_exploitability <= 1e-9
    (low_v, high_v), (low_b, high_b) = vertex.value_bounds, best.value_bounds
    assert low_b >= low_v + 1e-3 and high_b <= high_v - 1e-3
    reported = [float(line.split(", ")[1].split()[0]) for line in best.plan if "in the original game" in line]
    assert reported == pytest.approx([low_b, -high_b], abs=1e-6)


def test_on_a_lossless_abstraction_every_selected_equilibrium_guarantees_the_value():
    best = equilibria.solve("leduc", "shrink", lift=True, select="best")
    assert best.value_bounds == pytest.approx((LEDUC_VALUE, LEDUC_VALUE), abs=1e-9)


def _worst_by_enumeration(answer, p):
    """Player ``p``'s worst guarantee in the original game over the abstraction's optimal
    face, by brute force: for every pure plan of the opponent in the original game, the
    least the face's lifted strategies earn against it (an LP that scipy solves over the
    face written out here from the sequence forms), and the least of those."""
    import itertools

    import scipy.sparse as sp
    from scipy.optimize import linprog

    from equilibria.models.filtered import lift_matrix

    fg, o = answer.report.filtered, 1 - p
    sf = fg.sequence_form
    game = answer.report.game.to_extensive()
    osf = SequenceForm(game)
    lift = lift_matrix(fg, game, osf, p)
    payoff, original_payoff = sf.payoff_matrix(p), osf.payoff_matrix(p)  # rows: player 1's
    per_reply = (payoff.T if p == 0 else payoff).tocsr()
    lifted = ((original_payoff.T if p == 0 else original_payoff) @ lift).toarray()
    E, Eo = sf.players[p].constraint_matrix, sf.players[o].constraint_matrix
    n_r, n_v = E.shape[1], Eo.shape[0]
    value = answer.value if p == 0 else -answer.value
    # the face: E r = e, 0 <= r <= 1, the abstract replies' rows E_o' v <= A' r, v(root) >= value
    a_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], n_v))])
    root = np.zeros(n_r + n_v)
    root[n_r] = -1.0
    a_ub = sp.vstack([sp.hstack([-per_reply, Eo.T]), sp.csr_matrix(root)])
    b_ub = np.concatenate([np.zeros(per_reply.shape[0]), [-(value - 1e-9)]])
    bounds = [(0, 1)] * n_r + [(None, None)] * n_v
    tp = osf.players[o].treeplex
    worst = np.inf
    for choice in itertools.product(*[range(int(k)) for k in tp.num_actions]):
        behavior = np.zeros(tp.num_sequences)
        behavior[0] = 1.0
        behavior[tp.first_sequence + np.array(choice)] = 1.0
        reply = realization_from_behavior(osf.players[o], behavior)
        c = np.concatenate([lifted.T @ reply, np.zeros(n_v)])
        res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=sf.players[p].constraint_rhs, bounds=bounds)
        assert res.status == 0, res.message
        worst = min(worst, res.fun)
    return worst


def test_select_worst_on_an_abstraction_is_the_worst_guarantee_of_its_equilibria():
    # Kuhn poker with the jack and the queen merged (threshold 1): the abstraction's
    # equilibria guarantee from -1/3 to 0 in the full game. The worst-equilibrium MILP's
    # answer is what enumerating the opponent's pure plans finds, for both players.
    worst = equilibria.solve("kuhn", "shrink", threshold=1.0, lift=True, select="worst")
    assert worst.abstract_exploitability <= 1e-9
    lines = [line for line in worst.plan if "in the original game" in line]
    reported = [float(line.split(", ")[1].split()[0]) for line in lines]
    vertex = [float(line.split(": ")[1].split()[0]) for line in lines]
    expected = [_worst_by_enumeration(worst, p) for p in (0, 1)]
    assert reported == pytest.approx(expected, abs=1e-6)  # printed to six places
    low, high = worst.value_bounds
    assert (low, -high) == pytest.approx(expected, abs=1e-7)  # the full game's own certificate
    assert all(r <= v + 1e-9 for r, v in zip(reported, vertex)) and "time limit" not in "\n".join(lines)
    best = equilibria.solve("kuhn", "shrink", threshold=1.0, lift=True, select="best")
    low_b, high_b = best.value_bounds
    assert -high_b - reported[1] > 0.3  # player 2's equilibria span a third of a chip


def _range(answer, what):
    """Per player, the (low, high, vertex) of a ``--select range`` line about ``what``."""
    out = []
    for line in (line for line in answer.plan if line.startswith("equilibria for") and what in line):
        low, high = line.split(": from ")[1].split(",")[0].split(" to ")
        out.append((float(low), float(high), float(line.split(", ")[1].split()[0])))
    return out


def test_select_range_spans_kuhns_family_and_keeps_the_vertex():
    # against the uniform player the first player's equilibria earn 1/18 + a/3, a in [0, 1/3]
    vertex = equilibria.solve("kuhn", "lp")
    spanned = equilibria.solve("kuhn", "lp", select="range")
    (low, high, at_vertex), _ = _range(spanned, "against uniform play")
    assert (low, high) == pytest.approx((1 / 18, 1 / 6), abs=1e-6)  # printed to six places
    assert low - 1e-6 <= at_vertex <= high + 1e-6
    for a, b in zip(vertex.behaviors, spanned.behaviors):
        np.testing.assert_array_equal(a, b)


def test_select_range_on_an_abstraction_is_the_worst_and_the_best_guarantee():
    # Kuhn poker with the jack and the queen merged: the ends are the worst MILP's (checked
    # against every opponent pure plan) and the best LP's, and the answer is the vertex
    spanned = equilibria.solve("kuhn", "shrink", threshold=1.0, lift=True, select="range")
    vertex = equilibria.solve("kuhn", "shrink", threshold=1.0, lift=True)
    best = equilibria.solve("kuhn", "shrink", threshold=1.0, lift=True, select="best")
    ends = _range(spanned, "in the original game")
    assert [low for low, _, _ in ends] == pytest.approx([_worst_by_enumeration(vertex, p) for p in (0, 1)], abs=1e-6)
    assert [high for _, high, _ in ends] == pytest.approx([best.value_bounds[0], -best.value_bounds[1]], abs=1e-6)
    assert ends[1][1] - ends[1][0] == pytest.approx(1 / 3, abs=1e-6)  # player 2: from -1/3 to 0
    assert spanned.value_bounds == pytest.approx(vertex.value_bounds, abs=1e-12)
    assert [v for _, _, v in ends] == pytest.approx([vertex.value_bounds[0], -vertex.value_bounds[1]], abs=1e-6)


def test_select_worst_stopped_at_its_time_limit_gives_the_range_of_the_worst():
    # Leduc with three ranks (GameShrink threshold 0.5): the MILP's bound closes slowly,
    # so within 6 s it answers the worst strategy found and the range the worst lies in;
    # the strategy found is still an equilibrium of the abstraction, certified there, and
    # never guarantees more than the LP's vertex, an equilibrium the MILP had to beat
    worst = equilibria.solve("leduc:ranks=3", "shrink", threshold=0.5, lift=True, select="worst", time_limit=6)
    assert worst.abstract_exploitability <= 1e-9
    for line in (line for line in worst.plan if "in the original game" in line):
        vertex = float(line.split(": ")[1].split()[0])
        found = float(line.split(", ")[1].split()[0])
        assert found <= vertex + 1e-6
        if "lies in [" not in line:  # a machine fast enough to finish the MILP: found is the worst
            continue
        low, high = (float(x) for x in line.split("lies in [")[1].split("]")[0].split(", "))
        assert low <= high == pytest.approx(found, abs=1e-6)


def test_select_worst_answers_even_when_its_milp_found_nothing_in_time():
    # a second: the MILPs on Leduc with six ranks may stop before any strategy or bound;
    # the LP's vertex is still an equilibrium of the abstraction, so it is the worst found
    done = _run("solve", "leduc:ranks=6", "--shrink", "--threshold", "2", "--select", "worst", "--time-limit", "1")
    lines = [line for line in done.stdout.splitlines() if "in the original game:" in line]
    assert len(lines) == 2
    for line in lines:
        vertex, found = float(line.split(": ")[1].split()[0]), float(line.split(", ")[1].split()[0])
        assert found <= vertex + 1e-6


def test_the_command_line_selects_on_an_abstraction():
    done = _run("solve", "leduc:ranks=6", "--shrink", "--threshold", "2", "--select", "best", "--quiet")
    lines = [line for line in done.stdout.splitlines() if "in the original game" in line]
    assert len(lines) == 2 and "selected" in lines[0]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"select": "best", "lift": True, "against": "x.csv"}, "no --against"),
        ({"select": "best"}, "lift=True"),
        ({"refine": "quasi-perfect"}, "use the lp route"),
    ],
)
def test_the_shrink_route_refuses_what_it_cannot_select(options, message):
    from equilibria.models.checks import OptionError

    with pytest.raises(OptionError, match=message):
        equilibria.solve("kuhn", "shrink", **options)


@pytest.mark.parametrize("flags", [["--shrink", "--select", "best"], ["--strategy-out", "never-written.csv"]])
def test_a_game_whose_tree_cannot_be_built_is_refused_before_lifting(flags, tmp_path):
    # Rhode Island's tree (6.7 billion nodes) never fits: lifting onto it is refused at once
    done = subprocess.run(
        [sys.executable, "-m", "equilibria", "solve", "rhode_island", *flags],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot be lifted onto its tree" in lines[0], done.stderr
    assert not (tmp_path / "never-written.csv").exists()


def test_an_lp_stopped_before_its_optimum_is_returned_unselected():
    # at a time limit the LP's strategies are not on the optimal face: there is nothing to
    # select from, and the answer says so rather than failing
    import dataclasses

    from equilibria.models.sequence import SequenceForm
    from equilibria.routes.lp import solve_sequence_form
    from equilibria.routes.selection import select_equilibrium
    from equilibria.solvers import Status

    sf = SequenceForm(equilibria.load("kuhn"))
    stopped = dataclasses.replace(solve_sequence_form(sf, "highs"), status=Status.TIME_LIMIT)
    run = select_equilibrium(sf, stopped, "best", None, "highs", constant=0.0, game_name="kuhn")
    assert all(np.array_equal(a, b) for a, b in zip(run.behaviors, stopped.behaviors))
    assert run.plan[-1] == "--select best not applied: the LP ended time_limit before its optimum"


def test_the_milps_bounds_are_each_rows_best_response_value():
    """``treeplex_best_values`` takes many payoff vectors at once: each is
    ``Treeplex.best_value`` of that vector (blocks smaller than the rows, to cross one)."""
    import scipy.sparse as sp

    from equilibria.formulations import worst_abstract_equilibrium as worst

    tp = SequenceForm(equilibria.load("leduc")).players[0].treeplex
    rows = sp.random(40, tp.num_sequences, density=0.2, random_state=7, format="csr") - 0.5 * sp.random(
        40, tp.num_sequences, density=0.2, random_state=8, format="csr"
    )
    saved, worst.BEST_VALUE_BLOCK = worst.BEST_VALUE_BLOCK, 16
    try:
        got = worst.treeplex_best_values(tp, rows)
    finally:
        worst.BEST_VALUE_BLOCK = saved
    assert got == pytest.approx([tp.best_value(rows[i].toarray().ravel()) for i in range(40)], abs=1e-12)
