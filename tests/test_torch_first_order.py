"""The first-order solvers on torch tensors (``--device cpu``, torch's CPU build here; the
same code runs on CUDA): the same iterates and certificates as the numpy solvers, the
command line's answers certified, and a clear refusal where torch or CUDA is missing."""

import subprocess
import sys

import numpy as np
import pytest

import equilibria
from equilibria.models.array_ops import NUMPY, TorchOps, _device_products, array_ops, choose_device
from equilibria.models.best_response import saddle_point_exploitability
from equilibria.models.sequence import SequenceForm
from equilibria.routes.first_order import treeplexes
from equilibria.solvers.first_order import MultiplayerCFR, make_solver

torch = pytest.importorskip("torch")

GAMES = ["kuhn", "leduc", "liars_dice:sides=4"]

#: Python that hides torch from the process that runs it, as if it were not installed:
#: every finder answers "not here" for it.
BLOCK_TORCH = """import sys
class _Hide:
    def __init__(self, inner):
        self.inner = inner
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            return None
        return self.inner.find_spec(name, path, target)
sys.meta_path[:] = [_Hide(f) if hasattr(f, "find_spec") else f for f in sys.meta_path]"""
ALGORITHMS = ["cfr+", "pcfr+", "dcfr", "mirror-prox"]


@pytest.fixture(scope="module")
def sequence_forms():
    return {game: SequenceForm(equilibria.load(game)) for game in GAMES}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_torch_iterates_equal_numpy_after_100_iterations(sequence_forms, game, algorithm):
    sf = sequence_forms[game]
    on_numpy = make_solver(algorithm, sf.payoff_matrix(0), treeplexes(sf))
    on_torch = make_solver(algorithm, sf.payoff_matrix(0), treeplexes(sf), array_ops("cpu"))
    on_numpy.iterate(100)
    on_torch.iterate(100)
    for ours, theirs in zip(on_numpy.average_behaviors(), on_torch.average_behaviors()):
        assert isinstance(theirs, np.ndarray)
        np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-9)
    # the current iterates too, not only their average
    current = "logb" if algorithm == "mirror-prox" else "current"
    for ours, theirs in zip(getattr(on_numpy, current), getattr(on_torch, current)):
        assert isinstance(theirs, torch.Tensor) and theirs.dtype == torch.float64
        np.testing.assert_allclose(theirs.numpy(), ours, rtol=0, atol=1e-9)
    # the certificate computed on torch equals numpy's, and the one by a pass over the tree
    cert_numpy = saddle_point_exploitability(
        on_numpy.times, on_numpy.times_transposed, on_numpy.placed, on_numpy.device_behaviors()
    )
    cert_torch = saddle_point_exploitability(
        on_torch.times, on_torch.times_transposed, on_torch.placed, on_torch.device_behaviors()
    )
    cert_tree = equilibria.certify(sf, on_numpy.average_behaviors())
    assert cert_torch.exploitability == pytest.approx(cert_numpy.exploitability, abs=1e-12)
    assert cert_torch.exploitability == pytest.approx(cert_tree.exploitability, abs=1e-12)
    np.testing.assert_allclose(cert_torch.best_response_values, cert_tree.best_response_values, atol=1e-12)


@pytest.mark.parametrize("game", GAMES)
def test_payoff_products_built_on_the_device_equal_scipys(sequence_forms, game):
    # what a GPU runs (the entries sorted, summed and transposed by torch), here on torch's
    # CPU: the same matrix as scipy's conversion, products to rounding
    sf = sequence_forms[game]
    matrix = sf.payoff_matrix(0)
    products = _device_products(TorchOps("cpu"), sf.payoff_entries(0))
    assert products.shape == matrix.shape and products.nonzeros == matrix.nnz
    assert products.largest == np.abs(matrix.data).max()
    rng = np.random.default_rng(0)
    x, y = rng.random(matrix.shape[1]), rng.random(matrix.shape[0])
    np.testing.assert_allclose((products.times @ torch.tensor(x)).numpy(), matrix @ x, rtol=0, atol=1e-15)
    np.testing.assert_allclose((products.times_transposed @ torch.tensor(y)).numpy(), matrix.T @ y, rtol=0, atol=1e-15)


@pytest.mark.parametrize("algorithm", ["cfr+", "pcfr+", "dcfr"])
def test_the_step_a_cuda_graph_records_equals_numpy(sequence_forms, monkeypatch, algorithm):
    # on CUDA an iteration is recorded once and replayed, reading the iteration number
    # from the device and writing its arrays in place; that step, run eagerly on torch's
    # CPU, follows numpy's iterates to the last digit
    from equilibria.models.array_ops import TorchOps

    monkeypatch.setattr(TorchOps, "replayable", lambda self, step: step)
    sf = sequence_forms["leduc"]
    on_numpy = make_solver(algorithm, sf.payoff_matrix(0), treeplexes(sf))
    recorded = make_solver(algorithm, sf.payoff_entries(0), treeplexes(sf), array_ops("cpu"))
    assert recorded._replay is not None
    on_numpy.iterate(100)
    recorded.iterate(100)
    for ours, theirs in zip(on_numpy.average_behaviors(), recorded.average_behaviors()):
        np.testing.assert_array_equal(theirs, ours)


def test_multiplayer_cfr_on_torch_equals_numpy():
    sf = SequenceForm(equilibria.load("kuhn:players=3"))
    args = (sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs, [ps.treeplex for ps in sf.players])
    on_numpy, on_torch = MultiplayerCFR(*args), MultiplayerCFR(*args, ops=array_ops("cpu"))
    on_numpy.iterate(100)
    on_torch.iterate(100)
    for ours, theirs in zip(on_numpy.average_plans(), on_torch.average_plans()):
        np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-9)
    nash_conv = equilibria.certify(sf, on_torch.average_behaviors()).nash_conv
    assert nash_conv == pytest.approx(equilibria.certify(sf, on_numpy.average_behaviors()).nash_conv, abs=1e-12)


def test_solve_on_torch_reaches_the_published_kuhn_value():
    answer = equilibria.solve("kuhn", "lp", algorithm="dcfr", device="cpu", target_exploitability=1e-4, backend="highs")
    assert answer.exploitability <= 1e-4
    # Kuhn's value is -1/18; an eps-equilibrium's value is within 2 eps of it
    assert abs(answer.value + 1 / 18) <= 2 * answer.exploitability + 1e-12
    assert answer.sizes["device"] == "cpu"


def test_command_line_on_torch_cpu_names_the_device():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "equilibria",
            "solve",
            "leduc",
            "--no-shrink",
            "--algorithm",
            "pcfr+",
            "--iterations",
            "300",
            "--device",
            "cpu",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "on torch cpu" in done.stdout
    assert done.stderr == ""


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_a_gpu_is_bad_input_in_one_line():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "equilibria",
            "solve",
            "kuhn",
            "--algorithm",
            "cfr+",
            "--iterations",
            "10",
            "--device",
            "cuda",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == ["equilibria: error: device cuda: torch sees no CUDA device"]


def test_without_torch_numpy_runs_and_torch_devices_are_refused():
    # torch blocked in a fresh interpreter: auto falls back to numpy, cpu is refused by name
    script = (
        BLOCK_TORCH + "\n"
        "from equilibria.models.array_ops import choose_device, array_ops\n"
        "print(choose_device('auto', 10**9))\n"
        "try:\n    array_ops('cpu')\nexcept RuntimeError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "numpy"
    assert "torch, which is not installed" in lines[1] and "equilibria[gpu]" in lines[1]


def test_auto_takes_numpy_below_the_size_rule_and_without_cuda():
    assert choose_device("auto", 10) == "numpy"
    if not torch.cuda.is_available():
        assert choose_device("auto", 10**9) == "numpy"
    assert array_ops("numpy") is NUMPY
    with pytest.raises(ValueError, match="device must be one of"):
        array_ops("tpu")
