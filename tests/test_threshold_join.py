"""Several qualitative models joined in one threshold program through a common
US-refinement (Ganzfried and Sandholm 2010, section 7.3), and the separate-programs route."""

import itertools
import json

import numpy as np
import pytest

from equilibria.instances import load_bayesian
from equilibria.instances.bayesian_games import (
    resolve_model,
    river_cdf_pairs,
    river_endgame,
    standard_models,
)
from equilibria.models.checks import OptionError
from equilibria.models.parametric import ModelError, ParametricModel, common_us_refinement
from equilibria.routes.threshold.route import (
    ModelInfeasible,
    satisfies_model,
    solve_threshold,
    solve_threshold_separately,
)
from tests.conftest import error_lines, run_cli

PAPER = ["standard", "shifted", "check_first"]


def embeddings_by_enumeration(coarse: list[dict], fine: list[dict]) -> int:
    """Definition 13 counted directly: index tuples of ``fine`` whose plans are ``coarse``'s."""
    return sum(
        all(fine[i] == plan for i, plan in zip(idx, coarse))
        for idx in itertools.combinations(range(len(fine)), len(coarse))
    )


def plans(*names: str) -> list[dict]:
    return [{"": n} for n in names]


def model(name: str, p1: list[dict], p2: list[dict]) -> ParametricModel:
    return ParametricModel(name, (p1, p2))


# ---------------------------------------------------------------- the refinement
def test_refinement_of_the_river_models_embeds_each_model_once():
    models = list(standard_models(river_endgame()).values())
    p0 = common_us_refinement(models)
    for m in models:
        for p in range(2):
            assert embeddings_by_enumeration(m.regions[p], p0.regions[p]) == 1, (m.name, p)
    # the paper's first model refines the other two and is returned as it is
    assert common_us_refinement([standard_models(river_endgame())[n] for n in PAPER]).name == "standard"


@pytest.mark.parametrize(
    "sequences",
    [
        [plans("a", "b"), plans("b", "a")],
        [plans("a", "b", "c"), plans("a", "c"), plans("c", "d")],
        [plans("a", "b", "a", "b"), plans("b", "a", "b", "a")],
        [plans("a", "c", "b"), plans("b", "c", "a", "c")],
    ],
)
def test_refinement_found_is_a_shortest_unique_supersequence(sequences):
    models = [model(f"m{i}", s, plans("x")) for i, s in enumerate(sequences)]
    p0 = common_us_refinement(models)
    found = p0.regions[0]
    assert all(embeddings_by_enumeration(s, found) == 1 for s in sequences)
    # no shorter sequence over the same plans does it (Definition 13, by brute force)
    alphabet = [dict(t) for t in {tuple(sorted(d.items())) for s in sequences for d in s}]
    for length in range(max(map(len, sequences)), len(found)):
        for cand in itertools.product(alphabet, repeat=length):
            if any(cand[i] == cand[i + 1] for i in range(length - 1)):
                continue
            assert not all(embeddings_by_enumeration(s, list(cand)) == 1 for s in sequences), cand


def test_models_without_a_common_refinement_are_refused_by_name():
    # a plan played once by one model and twice by another: every sequence with both
    # holds the first model's twice
    one = model("once", plans("a"), plans("x"))
    twice = model("twice", plans("a", "b", "a"), plans("x"))
    other = model("other", plans("b"), plans("x"))
    with pytest.raises(ModelError, match="models 'once' and 'twice' have no common US-refinement: .*player 1"):
        common_us_refinement([other, one, twice])


def test_a_given_refinement_must_refine_every_model():
    with pytest.raises(ModelError, match="no US-refinement of model 'bluff_raise_middle': player 2"):
        solve_threshold("river_endgame", models=["standard", "bluff_raise_middle"], refinement="standard")


# ---------------------------------------------------------------- the joined program
def test_a_join_of_one_model_is_that_models_program():
    single = solve_threshold("river_endgame", "standard", select="lowest")
    joined = solve_threshold("river_endgame", models=["standard"], select="lowest")
    for a, b in zip(single.thresholds, joined.thresholds):
        assert np.allclose(a, b, atol=1e-7)
    assert joined.join["holds"] == "standard" and joined.exploitability <= 1e-6


def test_finite_signals_join_omitting_a_region():
    # G_10's player 1 may or may not bluff: the model without the bluffing region omits
    # the refinement's first region, so its threshold sits at the low end
    game = load_bayesian("generalized_kuhn:cards=10")
    standard = resolve_model(game, "standard")
    no_bluff = ParametricModel("no_bluff", (standard.regions[0][1:], standard.regions[1]), order=[])
    answer = solve_threshold(game, models=[no_bluff, standard])
    assert answer.join["holds"] == "standard"  # G_10's equilibria bluff
    assert answer.exploitability <= 1e-9  # exact, in the extensive form
    assert abs(answer.value - solve_threshold(game, "standard").value) <= 1e-9


@pytest.mark.parametrize(("backend", "indicators"), [("highs", "bigm"), ("highs", "hull"), ("scip", "native")])
def test_the_join_on_every_backend_answers_the_same_certified_equilibrium(backend, indicators):
    answer = solve_threshold("river_endgame", models=PAPER, backend=backend, indicators=indicators, select="lowest")
    reference = solve_threshold("river_endgame", models=PAPER, select="lowest")
    assert answer.exploitability <= 1e-6 and answer.is_equilibrium
    assert answer.join["holds"] == reference.join["holds"]
    for a, b in zip(answer.thresholds, reference.thresholds):
        assert np.allclose(a, b, atol=1e-6)


def test_the_answer_satisfies_the_chosen_models_own_program_and_no_other():
    # an instance where 'standard' admits no equilibrium, 'shifted' does
    game = river_endgame(**river_cdf_pairs(1, seed=1)[0])
    with pytest.raises(ModelInfeasible):
        solve_threshold(game, "standard")
    answer = solve_threshold(game, models=["standard", "shifted"])
    assert answer.join["holds"] == "shifted" and answer.join["zeta"] == {"standard": 0.0, "shifted": 1.0}
    assert answer.exploitability <= 1e-6
    assert satisfies_model(game, "shifted", answer.thresholds)
    assert not satisfies_model(game, "standard", answer.thresholds)  # the orders differ


def test_player_one_only_checks_where_the_other_models_fail():
    # small pots: player 1 checks every signal first, which neither betting model allows
    game = river_endgame(**river_cdf_pairs(13, seed=1)[12])
    for name in ("standard", "shifted"):
        with pytest.raises(ModelInfeasible):
            solve_threshold(game, name)
    answer = solve_threshold(game, models=PAPER)
    assert answer.join["holds"] == "check_first" and answer.exploitability <= 1e-6
    bets = [q for q in range(len(game.tree.plans[0])) if game.tree.plan_text(0, q).startswith("bet")]
    assert np.all(answer.strategies[0][:, bets] == 0)


def test_join_and_separate_programs_agree_on_the_models_that_hold():
    models = list(standard_models(river_endgame()).values())
    p0 = common_us_refinement(models)
    names = [m.name for m in models]
    for params in river_cdf_pairs(3, seed=1):
        game = river_endgame(**params)
        holds = set()
        for name in names:
            try:
                if solve_threshold(game, models=[name], refinement=p0).is_equilibrium:
                    holds.add(name)
            except ModelInfeasible:
                pass
        _, separate = solve_threshold_separately(game, names, first=False, refinement=p0)
        assert holds == {n for n, v in separate.items() if v == "feasible"}, (params, separate)
        try:
            answer = solve_threshold(game, models=names)
            assert answer.join["holds"] in holds and answer.is_equilibrium
        except ModelInfeasible:
            assert not holds


def test_separate_route_checks_omitted_plans_over_the_common_refinement_by_default():
    # check_first omits player 1's bets: alone, its program admits a point where betting pays
    game = river_endgame(**river_cdf_pairs(13, seed=1)[12])
    alone, outcome = solve_threshold_separately(game, ["check_first"], first=False)
    assert alone is None and outcome["check_first"] == "feasible, exploitable"
    answer = solve_threshold(game, models=PAPER, join="separate")
    assert answer.join["refinement"] == "standard" and answer.join["holds"] == "check_first"
    assert answer.exploitability <= 1e-6


def test_join_refuses_more_than_two_players_and_product_options():
    with pytest.raises(ModelError, match="two players"):
        solve_threshold("kuhn:players=3", models=["standard"])
    with pytest.raises(OptionError, match="takes no epsilon"):
        solve_threshold("river_endgame", models=PAPER, epsilon=0.1)
    with pytest.raises(ModelError, match="not both"):
        solve_threshold("river_endgame", "standard", models=PAPER)


# ---------------------------------------------------------------- command line
def test_cli_joins_models_and_names_the_one_that_holds():
    res = run_cli("threshold", "river_endgame", "--model", "paper", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    details = out["details"] if "details" in out else out
    join = details["join"]
    assert join["join"] == "one-program" and join["holds"] in PAPER and sum(join["zeta"].values()) == 1
    assert out["exploitability"] <= 1e-6
    res = run_cli("threshold", "river_endgame", "--model", "standard", "--model", "shifted")
    assert res.returncode == 0 and "join            one program" in res.stdout and "exploitability" in res.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--model", "standard", "--model", "nope"], "has no model 'nope'"),
        (["--refinement", "standard"], "--refinement needs several --model or --join"),
        (["--join", "one-program", "--epsilon", "0.1"], "takes no epsilon"),
    ],
)
def test_cli_bad_join_input_is_one_line(args, words):
    res = run_cli("threshold", "river_endgame", *args)
    assert res.returncode == 2 and "Traceback" not in res.stderr and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], res.stderr


def test_cli_no_model_holds_is_one_line():
    res = run_cli("threshold", "river_endgame:pot=2", "--join", "separate", "--model", "standard", "--model", "shifted")
    assert res.returncode == 1 and res.stdout == ""  # no model holds: no answer
    lines = error_lines(res.stderr)
    assert len(lines) == 1 and "standard: infeasible; shifted: infeasible" in lines[0], res.stderr


@pytest.mark.slow
def test_one_hundred_river_endgames_every_answer_certified_and_conforming():
    models = list(standard_models(river_endgame()).values())
    p0 = common_us_refinement(models)
    answered = 0
    for params in river_cdf_pairs(100, seed=0):
        game = river_endgame(**params)
        holds = set()
        for m in models:
            try:
                if solve_threshold(game, models=[m], refinement=p0).is_equilibrium:
                    holds.add(m.name)
            except ModelInfeasible:
                pass
        try:
            answer = solve_threshold(game, models=models, refinement=p0)
        except ModelInfeasible:
            assert not holds, params
            continue
        answered += 1
        assert answer.exploitability <= 1e-6 and answer.join["holds"] in holds, params
        assert satisfies_model(game, answer.model, answer.thresholds), params
    assert answered > 0
