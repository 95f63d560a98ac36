"""Threshold MILFPs from qualitative models (Ganzfried and Sandholm, "Computing equilibria
by incorporating qualitative models", 2010), checked against closed forms, the
sequence-form LP of the same games, and exact best responses in the extensive form."""

import json

import numpy as np
import pytest

from equilibria import load, solve_game
from equilibria.instances import load_bayesian
from equilibria.instances.bayesian_games import standard_models
from equilibria.instances.betting import kuhn_betting
from equilibria.models.bayesian import BayesianGame, SignalDistribution
from equilibria.models.best_response import exploitability
from equilibria.models.parametric import ModelError, ParametricModel
from equilibria.models.sequence import SequenceForm
from equilibria.routes.threshold.route import ModelInfeasible, project, solve_threshold
from equilibria.scripts.cli import main


# ----------------------------------------------------------------------------- one street
@pytest.mark.parametrize("rho", [0.5, 1.0, 2.0, 5.0])
def test_one_street_thresholds_satisfy_their_indifference_equations(rho):
    sol = solve_threshold(f"one_street:pot={rho}")
    (x1, x1b), (x2,) = sol.thresholds
    # Ganzfried and Sandholm 2010, section 3: betting vs checking at x1 gives x2 = 2 x1
    assert x2 == pytest.approx(2 * x1, abs=1e-6)
    # each indifference written out by hand (payoffs counted as in the paper: pot won)
    bet = (1 - x2) * rho + (x2 - x1) * (rho + 1) - x1
    check = rho * (1 - x1)
    assert bet == pytest.approx(check, abs=1e-6)
    # player 1 at x1b: check (wins against higher signals) vs bluff (called by x2 and lower)
    assert rho * (1 - x1b) == pytest.approx((1 - x2) * rho - x2 * 1, abs=1e-6)
    # player 2 at x2 facing a bet from [0, x1] u [x1b, 1]: call vs fold
    call = -x1 * 1 + (1 - x1b) * (rho + 1)
    fold = 0.0
    assert call == pytest.approx(fold, abs=1e-6)
    assert x1 == pytest.approx(rho * (rho + 1) / (rho + 2 * (rho + 1) ** 2), abs=1e-9)
    assert sol.exploitability < 1e-6


# ----------------------------------------------------------------------------- G_n
@pytest.mark.parametrize("n", [3, 10, pytest.param(50, marks=pytest.mark.slow)])
def test_generalized_kuhn_threshold_program_matches_the_sequence_form_lp(n):
    sol = solve_threshold(f"generalized_kuhn:cards={n}")
    lp = solve_game(load(f"generalized_kuhn:cards={n}"))
    assert sol.exploitability <= 1e-6
    assert sol.value == pytest.approx(lp.value, abs=1e-6)
    assert sol.verification["method"].startswith("exact, in the equivalent extensive-form game")


def test_kuhn_value_and_player_two_strategy():
    sol = solve_threshold("kuhn")
    assert sol.value == pytest.approx(-1 / 18, abs=1e-9)
    # player 2's unique strategy: with J bluff 1/3 after a check, with Q call a bet 1/3
    tree = sol.game.tree
    sigma2 = sol.strategies[1]
    bluff = [q for q, plan in enumerate(tree.plans[1]) if tree.plan_text(1, q) == "bet after check, fold after bet"][0]
    qcall = [q for q, plan in enumerate(tree.plans[1]) if tree.plan_text(1, q) == "check after check, call after bet"][
        0
    ]
    assert sigma2[0, bluff] == pytest.approx(1 / 3, abs=1e-9)
    assert sigma2[1, qcall] == pytest.approx(1 / 3, abs=1e-9)


@pytest.mark.parametrize("n", [3, pytest.param(10, marks=pytest.mark.slow)])
def test_highs_bigm_scip_native_and_hull_agree(n):
    # G_n has a family of equilibria for player 1: select one by the objective
    spec = f"generalized_kuhn:cards={n}"
    a = solve_threshold(spec, backend="highs", indicators="bigm", select="lowest")
    b = solve_threshold(spec, backend="scip", indicators="native", select="lowest")
    others = [b]
    if n <= 3:  # the hull reformulation is much slower; one small game shows it agrees
        others.append(solve_threshold(spec, backend="highs", indicators="hull", select="lowest"))
    for other in others:
        for p in (0, 1):
            np.testing.assert_allclose(other.thresholds[p], a.thresholds[p], atol=1e-6)
    assert all(o.exploitability < 1e-6 for o in others)


@pytest.mark.slow
def test_highs_and_scip_agree_on_g50():
    a = solve_threshold("generalized_kuhn:cards=50", backend="highs", indicators="bigm", select="lowest")
    b = solve_threshold("generalized_kuhn:cards=50", backend="scip", indicators="native", select="lowest")
    for p in (0, 1):
        np.testing.assert_allclose(b.thresholds[p], a.thresholds[p], atol=1e-6)


def test_g_infinity_equilibrium_verified_on_a_fine_discretisation():
    sol = solve_threshold("kuhn_continuous", cells=4000, certificate="cells")
    assert sol.verification["cells"] == 4000
    assert sol.exploitability < 1e-6
    # G-infinity's value lies where v(G_n) converges (Ganzfried and Sandholm 2010, Figure 1: -0.0560 at n=250)
    assert sol.value == pytest.approx(-0.0560, abs=6e-4)


def test_a_wrong_model_is_reported_infeasible_naming_the_model():
    game = load_bayesian("kuhn_continuous")
    std = standard_models(game)["standard"]
    wrong = ParametricModel("reversed", std.regions, order=[("1.2", "2.1"), ("2.2", "1.3"), ("1.3", "2.3")])
    with pytest.raises(ModelInfeasible, match="model 'reversed'.*order"):
        solve_threshold(game, wrong)


def test_a_degenerate_answer_is_flagged_by_its_exploitability(capsys):
    # with every threshold of player 1 below player 2's, the program is feasible only
    # with empty regions: the indifferences hold vacuously and the strategies are exploitable
    game = load_bayesian("kuhn_continuous")
    std = standard_models(game)["standard"]
    chain = ParametricModel("all-low", std.regions, order=[("1.3", "2.1")])
    sol = solve_threshold(game, chain)
    assert sol.exploitability > 0.1
    assert not sol.is_equilibrium


def test_continuous_program_needs_the_cross_player_order():
    game = load_bayesian("one_street")
    std = standard_models(game)["standard"]
    loose = ParametricModel("loose", std.regions, order=[])
    with pytest.raises(ModelError, match="does not place threshold"):
        solve_threshold(game, loose)


# ----------------------------------------------------------------------------- models
def test_model_json_round_trip_and_refinement(tmp_path):
    std = standard_models(load_bayesian("kuhn"))["standard"]
    path = tmp_path / "m.json"
    std.to_json(path)
    back = ParametricModel.from_json(path)
    assert back.regions == std.regions and back.order == std.order
    # Definition 13's example: Q' = (1, 2) inside Q = (1, 2, 3, 2) is a refinement but not a
    # US-refinement; inside (1, 2, 3) it is both
    a, b, c = {"": "a"}, {"": "b"}, {"": "c"}
    coarse = ParametricModel("P'", ([a, b], [a]))
    fine = ParametricModel("P", ([a, b, c, b], [a]))
    assert fine.refines(coarse) and not fine.us_refines(coarse)
    assert ParametricModel("Q", ([a, b, c], [a])).us_refines(coarse)


def test_model_errors_name_the_region(tmp_path):
    game = load_bayesian("kuhn")
    bad = ParametricModel(
        "bad", ([{"": "raise"}, {"": "check", "check-bet": "call"}], [{"bet": "call"}, {"bet": "fold"}])
    )
    with pytest.raises(ModelError, match="player 1, region 1.*offers"):
        solve_threshold(game, bad)
    path = tmp_path / "broken.json"
    path.write_text('{"players": [')
    with pytest.raises(ModelError, match="broken.json: line 1"):
        ParametricModel.from_json(path)


# ----------------------------------------------------------------------------- games
@pytest.mark.parametrize("n", [3, 6])
def test_finite_signal_game_is_generalized_kuhn(n):
    ours = load_bayesian(f"generalized_kuhn:cards={n}").finite_game().to_extensive()
    assert solve_game(ours).value == pytest.approx(solve_game(load(f"generalized_kuhn:cards={n}")).value, abs=1e-12)


@pytest.mark.parametrize(
    "spec", ["generalized_kuhn:cards=5", "one_street:pot=2,cards=4,deal=independent", "river_endgame:cards=4"]
)
def test_plan_best_responses_equal_sequence_form_best_responses(spec):
    fg = load_bayesian(spec).finite_game()
    eg = fg.to_extensive()
    sf = SequenceForm(eg)
    rng = np.random.default_rng(7)
    sig = [rng.dirichlet(np.ones(k), size=fg.sizes[p]) for p, k in enumerate(fg.num_plans)]
    ours = fg.exploitability(sig)
    ref = exploitability(sf, fg.behavior_from_plans(sig, eg, sf))
    np.testing.assert_allclose(ours["payoffs"], ref.payoffs, atol=1e-12)
    np.testing.assert_allclose(ours["best_response_values"], ref.best_response_values, atol=1e-12)


def test_nonuniform_finite_signals_with_ties():
    sig = SignalDistribution.discrete([0.5, 0.3, 0.2])
    game = BayesianGame(
        "kuhn betting, skewed", kuhn_betting(), (sig, sig), winner="higher", parameters={"kind": "kuhn"}
    )
    sol = solve_threshold(game, "standard")
    lp = solve_game(game.finite_game().to_extensive())
    assert sol.exploitability < 1e-6
    assert sol.value == pytest.approx(lp.value, abs=1e-6)


def test_projection_of_g_infinity_onto_g_n_is_a_strategy():
    g_inf = load_bayesian("kuhn_continuous")
    sol = solve_threshold(g_inf)
    target = load_bayesian("generalized_kuhn:cards=7").finite_game()
    sigmas = project(g_inf, sol.model, sol.thresholds, target, edges=np.linspace(0, 1, 8))
    for s in sigmas:
        np.testing.assert_allclose(s.sum(axis=1), 1.0)


# ----------------------------------------------------------------------------- CLI, export
def test_cli_threshold_json(capsys):
    assert main(["threshold", "generalized_kuhn:cards=4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"thresholds", "value", "exploitability"}
    assert list(out["thresholds"]) == ["1", "2"]
    assert all(a <= b for a, b in zip(out["thresholds"]["1"], out["thresholds"]["1"][1:]))


def test_cli_reports_infeasible_models(tmp_path, capsys):
    std = standard_models(load_bayesian("kuhn_continuous"))["standard"]
    path = tmp_path / "rev.json"
    ParametricModel("reversed", std.regions, order=[("1.2", "2.1"), ("2.2", "1.3"), ("1.3", "2.3")]).to_json(path)
    assert main(["threshold", "kuhn_continuous", "--model", str(path)]) == 1  # no model holds: no answer
    err = capsys.readouterr().err
    assert "model 'reversed'" in err and "infeasible" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("indicators,suffix", [("bigm", "mps"), ("hull", "lp"), ("native", "lp"), ("native", "mps")])
def test_exported_programs_solve_in_highs_and_scip(tmp_path, indicators, suffix):
    import highspy
    import pyscipopt

    path = tmp_path / f"kuhn.{suffix}"
    backend = "scip" if indicators == "native" else "highs"
    assert main(["threshold", "kuhn", "--backend", backend, "--indicators", indicators, "--write", str(path)]) == 0
    scip = pyscipopt.Model()
    scip.hideOutput()
    scip.readProblem(str(path))
    scip.optimize()
    assert scip.getStatus() == "optimal"
    if indicators != "native":
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.readModel(str(path))
        h.run()
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal


# ----------------------------------------------------------------------------- abstraction
def test_one_signal_per_bucket_is_the_game_itself():
    from equilibria.models.abstraction import uniform_buckets

    fg = load_bayesian("generalized_kuhn:cards=6").finite_game()
    abst = uniform_buckets(fg, 6)
    assert solve_game(abst.game.to_extensive()).value == pytest.approx(
        solve_game(load("generalized_kuhn:cards=6")).value, abs=1e-9
    )


def test_ordered_buckets_of_g_n_are_g_b():
    from equilibria.models.abstraction import uniform_buckets

    fg = load_bayesian("generalized_kuhn:cards=20").finite_game()
    abst = uniform_buckets(fg, 5, odds="ordered")
    assert solve_game(abst.game.to_extensive()).value == pytest.approx(
        solve_game(load("generalized_kuhn:cards=5")).value, abs=1e-9
    )


def test_exact_buckets_keep_the_deal_probabilities():
    from equilibria.models.abstraction import uniform_buckets

    fg = load_bayesian("generalized_kuhn:cards=12").finite_game()
    abst = uniform_buckets(fg, 3)
    win, tie, lose = abst.game.masses
    total = win + tie + lose
    assert total.sum() == pytest.approx(1.0)
    # a bucket of 4 cards meets itself with probability (4 * 3) / (12 * 11)
    assert total[0, 0] == pytest.approx(12 / 132)
    assert win[0, 0] == pytest.approx(lose[0, 0])


def test_best_abstract_equilibrium_beats_the_lp_vertex(tmp_path):
    from research import qualitative_figure2

    rows = qualitative_figure2.run(30, [3, 5], tmp_path, plot=False, vertices=5, worst_seconds=5)
    for r in rows:
        assert r["pi_worst_vertex_found"] - 1e-9 <= r["pi_lp_equilibrium"] <= r["pi_best_equilibrium"] + 1e-9
        # the worst-equilibrium MILP's bound lies below every equilibrium's guarantee, its
        # strategy's among them; solved to the end, its strategy is at most any vertex found
        found, bound = r["pi_worst_milp_found"], r["pi_worst_milp_bound"]
        assert bound - 1e-7 <= min(found, r["pi_worst_vertex_found"], r["pi_quasi_perfect"])
        if r["worst_milp_status"] == "optimal":
            assert found == pytest.approx(bound, abs=1e-7) and found <= r["pi_worst_vertex_found"] + 1e-7
        assert r["pi_best_equilibrium"] == pytest.approx(r["pi_best_lp_objective"], abs=1e-7)
        assert r["pi_best_equilibrium"] <= r["v_full"] + 1e-9
        # the quasi-perfect equilibrium is one of the abstraction's: the best bounds it
        assert r["pi_quasi_perfect"] <= r["pi_best_equilibrium"] + 1e-9
    assert (tmp_path / "figure2.csv").is_file()


def test_figure1_script_runs_and_pure_projection_matches_the_paper_at_n50(tmp_path):
    from research import qualitative_figure1

    rows = qualitative_figure1.run([50], tmp_path, plot=False)
    assert rows[0]["v_ours"] == pytest.approx(-0.0576, abs=5e-5)  # Ganzfried and Sandholm 2010, Figure 1
    assert rows[0]["pi_pure"] == pytest.approx(-0.0624, abs=5e-5)  # Ganzfried and Sandholm 2010, Figure 1
    assert rows[0]["v_ours"] - 1e-9 >= rows[0]["pi_ours"] >= rows[0]["pi_pure"]


def test_river_endgame_standard_model_is_an_equilibrium_with_its_default_cdfs():
    sol = solve_threshold("river_endgame")
    assert sol.is_equilibrium and sol.exploitability < 1e-6
    # the paper needed several models: with a smaller pot this one has no conforming equilibrium
    with pytest.raises(ModelInfeasible, match="model 'standard'"):
        solve_threshold("river_endgame:pot=2")


def test_thresholds_read_for_many_players_are_certified_on_cells_when_asked():
    """--model auto on three players reads thresholds from CFR+ and certifies them
    through _read_answer, which dropped certificate="cells"; the same reader on the
    two-player standard answer certifies on the cells asked for."""
    from equilibria.routes.threshold.route import _read_answer

    answer = solve_threshold("kuhn_continuous")
    on_cells = _read_answer(answer.game, answer.model, answer.thresholds, 1e-6, cells=500, certificate="cells")
    assert on_cells.verification["cells"] == 500 and "500 equal cells" in on_cells.certified_in
    exact = _read_answer(answer.game, answer.model, answer.thresholds, 1e-6, cells=500)
    assert exact.verification["cells"] is None
