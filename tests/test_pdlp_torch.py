"""The ``pdlp-torch`` backend (restarted PDHG on torch): games solved through the public
API and certified by exact best responses, an LP's primal, objective and row duals against
HiGHS's, option errors, limits and infeasibility. Skipped where torch is not installed."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("torch")

import equilibria  # noqa: E402
from equilibria.formulations import sequence_form_lp  # noqa: E402
from equilibria.formulations.linear_program import Block, LinearProgram  # noqa: E402
from equilibria.models.errors import SolverError  # noqa: E402
from equilibria.models.sequence import SequenceForm  # noqa: E402
from equilibria.solvers import Status, available_backends, solve  # noqa: E402
from tests.conftest import run_cli  # noqa: E402

KUHN = -1 / 18  # Kuhn, "A simplified two-person poker" (1950)
LEDUC = -0.085606424078  # Leduc hold'em's value for player 1, as published


@pytest.fixture(scope="module")
def kuhn_lp():
    return sequence_form_lp(SequenceForm(equilibria.load("kuhn")), 0)


def mixed_lp() -> LinearProgram:
    """max 3a + 2b + c - d subject to a + b <= 4, -10 <= 2a - b <= 4, a - b - c = 0 with
    a in [0, 3], b in [-1, 2], c free, d in [1, 5] (in no row): c = a - b makes the
    objective 4a + b - d, whose optimum a = 8/3, b = 4/3, c = 4/3, d = 1 (value 11) has
    both inequality rows active with duals 2 and 1."""
    A = sp.csc_matrix(np.array([[1.0, 1.0, 0.0, 0.0], [2.0, -1.0, 0.0, 0.0], [1.0, -1.0, -1.0, 0.0]]))
    return LinearProgram(
        name="mixed",
        c=np.array([3.0, 2.0, 1.0, -1.0]),
        A=A,
        row_lower=np.array([-np.inf, -10.0, 0.0]),
        row_upper=np.array([4.0, 4.0, 0.0]),
        col_lower=np.array([0.0, -1.0, -np.inf, 1.0]),
        col_upper=np.array([3.0, 2.0, np.inf, 5.0]),
        maximize=True,
        col_blocks=[Block("x", 0, 4)],
        row_blocks=[Block("row", 0, 3)],
    )


def test_backend_is_listed_and_registered_without_importing_torch():
    assert "pdlp-torch" in available_backends()
    code = "import sys, equilibria.solvers as s; s.registered()['pdlp-torch']; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    listing = run_cli("backends", "--names")
    assert listing.returncode == 0 and "pdlp-torch" in listing.stdout.split()


def test_kuhn_through_the_public_api_is_certified():
    answer = equilibria.solve("kuhn", "lp", backend="pdlp-torch")
    assert answer.status == "optimal" and answer.backend == "pdlp-torch"
    assert answer.exploitability <= 1e-6
    assert answer.value == pytest.approx(KUHN, abs=1e-6)
    assert len(answer.solutions) == 1  # player 2 read from the row duals


def test_kuhn_from_the_command_line():
    res = run_cli("solve", "kuhn", "--no-shrink", "--backend", "pdlp-torch", "--json")
    assert res.returncode == 0, res.stderr
    import json

    out = json.loads(res.stdout)
    assert out["value"] == pytest.approx(KUHN, abs=1e-6) and out["exploitability"] <= 1e-6


def test_an_lp_with_every_kind_of_row_and_column_matches_highs():
    problem = mixed_lp()
    ours = solve(problem, "pdlp-torch")
    theirs = solve(problem, "highs")
    assert theirs.status == "optimal" and theirs.objective == pytest.approx(11.0)
    assert ours.status == Status.OPTIMAL
    assert ours.objective == pytest.approx(theirs.objective, abs=1e-7)
    assert ours.x == pytest.approx(theirs.x, abs=1e-7)
    assert ours.x == pytest.approx([8 / 3, 4 / 3, 4 / 3, 1.0], abs=1e-7)
    assert ours.row_duals == pytest.approx(theirs.row_duals, abs=1e-7)
    assert abs(theirs.row_duals[:2]) == pytest.approx([2.0, 1.0])
    # the same program minimised (costs negated): the same point, the duals' signs flipped
    flipped = mixed_lp()
    flipped.c, flipped.maximize = -flipped.c, False
    ours_min, theirs_min = solve(flipped, "pdlp-torch"), solve(flipped, "highs")
    assert ours_min.objective == pytest.approx(-11.0, abs=1e-7)
    assert ours_min.row_duals == pytest.approx(theirs_min.row_duals, abs=1e-7)
    assert ours_min.row_duals == pytest.approx(-ours.row_duals, abs=1e-7)


def test_primal_solution_lies_within_its_column_bounds(kuhn_lp):
    sol = solve(kuhn_lp, "pdlp-torch", options={"tolerance": 1e-6})
    assert sol.status == "optimal" and sol.objective == pytest.approx(KUHN, abs=1e-5)
    assert np.all(sol.x >= kuhn_lp.col_lower) and np.all(sol.x <= kuhn_lp.col_upper)


def test_a_warm_start_is_taken(kuhn_lp):
    """A primal starting point (the duals start at zero, so it need not save iterations)."""
    start = solve(kuhn_lp, "highs")
    warm = equilibria.solvers.get_backend("pdlp-torch").solve_lp(kuhn_lp, warm_start=start.x)
    assert warm.status == "optimal" and warm.objective == pytest.approx(KUHN, abs=1e-8)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"tolerence": 1e-6}, "no option 'tolerence'"),
        ({"tolerance": -1.0}, "option tolerance must be a number between 0 and 1"),
        ({"tolerance": "tight"}, "option tolerance"),
        ({"check_every": 0}, "option check_every must be a positive integer"),
        ({"iteration_limit": 2.5}, "option iteration_limit"),
        ({"device": "tpu"}, "option device must be"),
    ],
)
def test_a_bad_option_is_named(kuhn_lp, options, words):
    with pytest.raises(SolverError, match=words):
        solve(kuhn_lp, "pdlp-torch", options=options)


def test_cuda_asked_for_without_a_gpu_is_refused(kuhn_lp):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(SolverError, match="device='cuda'.*no CUDA device"):
        solve(kuhn_lp, "pdlp-torch", options={"device": "cuda"})


def test_a_tiny_time_limit_claims_no_optimum(kuhn_lp):
    sol = solve(kuhn_lp, "pdlp-torch", time_limit=1e-9)
    assert sol.status == Status.TIME_LIMIT and not sol.optimal
    assert sol.solution_status == "feasible"  # a point comes back, called no optimum


def test_a_route_time_limit_counts_the_first_torch_import():
    """In a fresh process the import of torch (a second or more) is inside the time limit:
    the LP route ends at it with a certified point, not past its grace with no answer.
    The limit leaves room for a loaded machine; a fast one may solve Leduc within it."""
    code = (
        "import equilibria; a = equilibria.solve('leduc', 'lp', backend='pdlp-torch', time_limit=20); "
        "print(a.status, a.exploitability)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    status, exploitability = done.stdout.split()
    assert status in ("time_limit", "optimal") and 0 <= float(exploitability) < 1


def test_an_iteration_limit_claims_no_optimum(kuhn_lp):
    sol = solve(kuhn_lp, "pdlp-torch", options={"iteration_limit": 64})
    assert sol.status == Status.ITERATION_LIMIT and "64 iterations" in sol.message


def lp(c, A, lo, hi, col_lo, col_hi, maximize=False) -> LinearProgram:
    A = sp.csc_matrix(np.asarray(A, dtype=float))
    m, n = A.shape
    return LinearProgram(
        "small",
        np.asarray(c, float),
        A,
        np.asarray(lo, float),
        np.asarray(hi, float),
        np.asarray(col_lo, float),
        np.asarray(col_hi, float),
        maximize,
        [Block("x", 0, n)],
        [Block("row", 0, m)],
    )


def test_infeasible_and_unbounded_lps_are_detected():
    infeasible = lp([1, 1], [[1, 1]], [-np.inf], [-1], [0, 0], [np.inf, np.inf])
    assert solve(infeasible, "pdlp-torch").status == Status.INFEASIBLE
    # x1 + x2 = 1 and x1 + x2 >= 2, free columns (the dual is feasible: y = (1, 0))
    clash = lp([1, 1], [[1, 1], [1, 1]], [1, 2], [1, np.inf], [-np.inf, -np.inf], [np.inf, np.inf])
    assert solve(clash, "pdlp-torch").status == Status.INFEASIBLE
    unbounded = lp([1, 1], [[1, -1]], [-np.inf], [1], [0, 0], [np.inf, np.inf], maximize=True)
    sol = solve(unbounded, "pdlp-torch")
    assert sol.status == Status.INFEASIBLE_OR_UNBOUNDED and sol.objective is None


def test_verbose_prints_iteration_lines_on_stderr(kuhn_lp, capsys):
    solve(kuhn_lp, "pdlp-torch", verbose=True, options={"log_every": 128})
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("pdlp-torch iteration")]
    assert len(lines) >= 3 and "relative primal residual" in lines[0] and lines[-1].endswith(" s")


@pytest.mark.slow
@pytest.mark.parametrize(
    "game, value",
    [("leduc", LEDUC), ("generalized_kuhn:cards=100", None)],
)
def test_larger_games_are_certified(game, value):
    """Leduc (about 92,000 iterations, 20 s here) and G_100 (about 160,000, 3 minutes)."""
    answer = equilibria.solve(game, "lp", backend="pdlp-torch")
    expected = value if value is not None else equilibria.solve(game, "lp", backend="highs").value
    assert answer.status == "optimal" and answer.exploitability <= 1e-6
    assert answer.value == pytest.approx(expected, abs=1e-6)
