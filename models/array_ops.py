"""The array operations of the treeplex sweeps, the first-order solvers and their
certificates, on numpy arrays or on torch tensors on any device.

The solvers are written once against :class:`ArrayOps`: :class:`NumpyOps` is numpy and
scipy as they always were, :class:`TorchOps` the same operations on float64 tensors on a
torch device (``cpu`` or ``cuda``), sparse products by ``torch.sparse_csr_tensor`` and the
level sweeps by ``index_add_`` and ``scatter_reduce_``. A treeplex's index arrays and the
payoff matrices are moved once (:meth:`ArrayOps.indices`, :meth:`ArrayOps.matrix`); the
iterations then run on the device and only answers come back (:meth:`ArrayOps.numpy`).

torch is imported only when a :class:`TorchOps` is made.
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .vocabulary import DEVICES

#: ``auto`` runs on CUDA from this many payoff nonzeros on. On one H200 against the
#: project's CPU solver on 16 cores, torch took 2.4 ms an iteration at 21,536 nonzeros
#: (0.2 times the CPU's speed), 1.5 ms at 95,056 (0.4 times) and 3.7 ms at 15.1 million
#: (28 times): the GPU's time is flat (one kernel launch per level) and the CPU's grows by
#: about 7 ns a nonzero, so they meet near 300,000.
AUTO_CUDA_NONZEROS = 300_000

#: On CUDA a first-order iteration is recorded once as a CUDA graph and then replayed:
#: its few hundred small kernels (a handful per treeplex level) launched by one call.
CUDA_GRAPHS = True
#: Eager calls of a replayed step before it is recorded (lazy initialisation done).
GRAPH_WARMUP = 2

#: Matrices with at least this many nonzeros are multiplied by row blocks on several
#: threads (scipy's sparse products release the GIL); below it a thread costs more than
#: it saves.
PARALLEL_NONZEROS = 1 << 21


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class RowBlocks:
    """A CSR matrix multiplied by row blocks of about equal nonzeros, one thread each.

    The blocks are views of the matrix's arrays (only their row pointers are copied), and
    ``blocks @ x`` equals ``matrix @ x`` exactly: every row is summed by one thread, in
    the same order."""

    def __init__(self, matrix: sp.csr_matrix, threads: int):
        self.shape = matrix.shape
        nnz = matrix.indptr[-1]
        cuts = np.searchsorted(matrix.indptr, np.linspace(0, nnz, threads + 1)[1:-1])
        bounds = [0, *sorted(set(int(c) for c in cuts) - {0, matrix.shape[0]}), matrix.shape[0]]
        self.blocks = []
        for r0, r1 in zip(bounds[:-1], bounds[1:]):
            a0, a1 = matrix.indptr[r0], matrix.indptr[r1]
            # an empty matrix of the block's shape given the slices afterwards: scipy's
            # constructor copies a slice shorter than half its array, which would double
            # the memory of a matrix of a hundred million entries
            block = sp.csr_matrix((r1 - r0, matrix.shape[1]), dtype=matrix.dtype)
            block.indptr = (matrix.indptr[r0 : r1 + 1] - a0).astype(matrix.indices.dtype)
            block.indices, block.data = matrix.indices[a0:a1], matrix.data[a0:a1]
            self.blocks.append(block)
        self._pool = ThreadPoolExecutor(len(self.blocks), thread_name_prefix="sparse-product")

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return np.concatenate(list(self._pool.map(lambda block: block @ x, self.blocks)))


def products(matrix: sp.csr_matrix, threads: int | None = None) -> sp.csr_matrix | RowBlocks:
    """What a solver multiplies by: ``matrix`` itself, or :class:`RowBlocks` of it when it
    is large enough to share among the usable cores (``threads``: how many; default all)."""
    threads = usable_cores() if threads is None else threads
    if threads < 2 or matrix.nnz < PARALLEL_NONZEROS or matrix.shape[0] < threads:
        return matrix
    return RowBlocks(matrix, threads)


@dataclass(frozen=True)
class PayoffEntries:
    """A payoff matrix of ``shape`` as its entries ``values[k]`` at ``(rows[k],
    columns[k])``: one per terminal of a sequence form, several at one pair of sequences
    (summed) and zeros among them (dropped) when converted."""

    rows: np.ndarray
    columns: np.ndarray
    values: np.ndarray
    shape: tuple[int, int]

    def csr(self) -> sp.csr_matrix:
        """The matrix, duplicates summed and zeros dropped."""
        # the conversion sums entries at the same pair of sequences; zeros (ties at a
        # showdown, entries that cancel) go after it, in one pass, rather than by masking
        # the entries before it (on Rhode Island that copy cost more than the conversion)
        out = sp.coo_matrix((self.values, (self.rows, self.columns)), shape=self.shape).tocsr()
        out.sum_duplicates()
        out.eliminate_zeros()
        return out


@dataclass(frozen=True)
class PayoffProducts:
    """What a first-order solver multiplies by: ``times @ y`` is ``A y`` and
    ``times_transposed @ x`` is ``A' x``, on the solver's kind of array; ``A``'s shape,
    nonzeros and largest absolute entry."""

    times: Any
    times_transposed: Any
    shape: tuple[int, int]
    nonzeros: int
    largest: float


class ArrayOps:
    """The operations a solver needs, on one kind of array. ``offsets``/``owner`` describe
    segments (an information set's actions): ``offsets`` where each starts, ``owner`` the
    segment of each entry."""

    #: what ``--device`` called it
    device = ""

    def vector(self, values: Any) -> Any:
        """A new float64 vector holding ``values`` (a numpy array or this kind's array)."""
        raise NotImplementedError

    def indices(self, values: np.ndarray) -> Any:
        """An index array of this kind holding ``values`` (made once, then reused)."""
        raise NotImplementedError

    def matrix(self, matrix: sp.csr_matrix) -> Any:
        """What multiplies a vector by ``matrix`` with ``@`` on this kind of array."""
        raise NotImplementedError

    def payoff_products(self, payoff: sp.spmatrix | PayoffEntries) -> PayoffProducts:
        """The products by a payoff matrix and its transpose, given as a matrix or as its
        entries: both converted on the host, then placed by :meth:`matrix`."""
        a = sp.csr_matrix(payoff.csr() if isinstance(payoff, PayoffEntries) else payoff, dtype=np.float64)
        largest = float(np.abs(a.data).max(initial=0.0))
        return PayoffProducts(self.matrix(a), self.matrix(a.T.tocsr()), a.shape, int(a.nnz), largest)

    def zeros(self, n: int) -> Any:
        raise NotImplementedError

    def full(self, n: int, value: float) -> Any:
        raise NotImplementedError

    def segment_sum(self, values: Any, offsets: Any, owner: Any, count: int) -> Any:
        """Per segment, the sum of its entries (summed in order, from zero)."""
        raise NotImplementedError

    def segment_max(self, values: Any, offsets: Any, owner: Any, count: int) -> Any:
        """Per segment, its largest entry."""
        raise NotImplementedError

    def grouped_sum(self, group: Any, weights: Any, count: int) -> Any:
        """Per group ``0..count-1``, the sum of the ``weights`` whose ``group`` it is."""
        raise NotImplementedError

    def positive(self, values: Any, out: Any = None) -> Any:
        """``max(values, 0)`` entrywise (into ``out`` when given)."""
        raise NotImplementedError

    def where(self, condition: Any, yes: Any, no: Any) -> Any:
        raise NotImplementedError

    def exp(self, values: Any) -> Any:
        raise NotImplementedError

    def log(self, values: Any) -> Any:
        raise NotImplementedError

    def divide(self, numerator: Any, denominator: Any, out: Any, where: Any) -> None:
        """``out[where] = numerator[where] / denominator[where]``, the rest of ``out`` kept."""
        raise NotImplementedError

    def replayable(self, step: Any) -> Any:
        """``step`` (a function of no arguments that updates arrays of this kind in place,
        of shapes that never change) as something cheaper to call over and over, or None
        where there is nothing cheaper: on CUDA, recorded once as a CUDA graph."""
        return None

    def synchronize(self) -> None:
        """Wait until the device has done the work queued so far (a clock read after it
        times the work, not its queueing)."""

    def dot(self, a: Any, b: Any) -> float:
        """``a'b`` as a Python float."""
        return float(a @ b)

    def numpy(self, values: Any) -> np.ndarray:
        """``values`` as a numpy array on the host (the answer)."""
        raise NotImplementedError


class NumpyOps(ArrayOps):
    """numpy and scipy: the solvers as they run without torch."""

    device = "numpy"

    def vector(self, values: Any) -> np.ndarray:
        return np.array(values, dtype=np.float64)

    def indices(self, values: np.ndarray) -> np.ndarray:
        return values

    def matrix(self, matrix: sp.csr_matrix) -> Any:
        # large matrices multiplied on every usable core
        return products(matrix)

    def zeros(self, n: int) -> np.ndarray:
        return np.zeros(n)

    def full(self, n: int, value: float) -> np.ndarray:
        return np.full(n, value, dtype=np.float64)

    def segment_sum(self, values: np.ndarray, offsets: np.ndarray, owner: np.ndarray, count: int) -> np.ndarray:
        # summed one entry after another from zero, as torch's index_add_ sums: the same
        # digits on both (np.add.reduceat adds a segment's first entry last)
        return np.bincount(owner, weights=values, minlength=count)

    def segment_max(self, values: np.ndarray, offsets: np.ndarray, owner: np.ndarray, count: int) -> np.ndarray:
        return np.maximum.reduceat(values, offsets) if values.size else values[:0]

    def grouped_sum(self, group: np.ndarray, weights: np.ndarray, count: int) -> np.ndarray:
        return np.bincount(group, weights=weights, minlength=count)

    def positive(self, values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        return np.maximum(values, 0.0, out=out)

    def where(self, condition: np.ndarray, yes: Any, no: Any) -> np.ndarray:
        return np.where(condition, yes, no)

    def exp(self, values: np.ndarray) -> np.ndarray:
        return np.exp(values)

    def log(self, values: np.ndarray) -> np.ndarray:
        return np.log(values)

    def divide(self, numerator: np.ndarray, denominator: np.ndarray, out: np.ndarray, where: np.ndarray) -> None:
        np.divide(numerator, denominator, out=out, where=where)

    def numpy(self, values: np.ndarray) -> np.ndarray:
        return np.asarray(values)


class TorchOps(ArrayOps):
    """float64 torch tensors on ``device`` (``cpu`` or ``cuda``)."""

    def __init__(self, device: str = "cpu"):
        import torch

        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("device cuda: torch sees no CUDA device")
        self.torch = torch
        self.device = device
        self._device = torch.device(device)

    def vector(self, values: Any) -> Any:
        torch = self.torch
        if isinstance(values, torch.Tensor):
            return values.to(dtype=torch.float64, device=self._device, copy=True)
        return torch.tensor(np.asarray(values, dtype=np.float64), device=self._device)

    def indices(self, values: np.ndarray) -> Any:
        return self.torch.as_tensor(np.asarray(values, dtype=np.int64), device=self._device)

    def matrix(self, matrix: sp.csr_matrix) -> Any:
        torch = self.torch
        m = sp.csr_matrix(matrix, dtype=np.float64)
        if self.device == "cpu":
            return _RowOrderProduct(m, self)
        with warnings.catch_warnings():
            # torch calls its sparse CSR support beta: the products used here are stable
            warnings.filterwarnings("ignore", message=".*[Ss]parse.*")
            return torch.sparse_csr_tensor(
                torch.as_tensor(m.indptr.astype(np.int64), device=self._device),
                torch.as_tensor(m.indices.astype(np.int64), device=self._device),
                torch.as_tensor(m.data, device=self._device),
                size=m.shape,
                check_invariants=False,
            )

    def payoff_products(self, payoff: sp.spmatrix | PayoffEntries) -> PayoffProducts:
        # on the CPU the host's conversion, so that the products follow numpy's digits;
        # elsewhere the entries go over as they are and the device sorts them (on Rhode
        # Island the host's conversion and transpose took 9 s, the device's a second)
        if self.device == "cpu" or not isinstance(payoff, PayoffEntries):
            return super().payoff_products(payoff)
        return _device_products(self, payoff)

    def replayable(self, step: Any) -> Any:
        return _Replay(self.torch, step) if self.device == "cuda" and CUDA_GRAPHS else None

    def synchronize(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def zeros(self, n: int) -> Any:
        return self.torch.zeros(n, dtype=self.torch.float64, device=self._device)

    def full(self, n: int, value: float) -> Any:
        return self.torch.full((n,), value, dtype=self.torch.float64, device=self._device)

    def segment_sum(self, values: Any, offsets: Any, owner: Any, count: int) -> Any:
        return self.zeros(count).index_add_(0, owner, values)

    def segment_max(self, values: Any, offsets: Any, owner: Any, count: int) -> Any:
        out = self.full(count, -np.inf)
        return out.scatter_reduce_(0, owner, values, reduce="amax", include_self=False)

    def grouped_sum(self, group: Any, weights: Any, count: int) -> Any:
        return self.zeros(count).index_add_(0, group, weights)

    def positive(self, values: Any, out: Any = None) -> Any:
        if out is None:
            return values.clamp_min(0.0)
        return self.torch.clamp_min(values, 0.0, out=out)

    def where(self, condition: Any, yes: Any, no: Any) -> Any:
        # Python numbers as float64 tensors: torch would make them its default float32
        yes, no = (self.torch.as_tensor(v, dtype=self.torch.float64, device=self._device) for v in (yes, no))
        return self.torch.where(condition, yes, no)

    def exp(self, values: Any) -> Any:
        return self.torch.exp(values)

    def log(self, values: Any) -> Any:
        return self.torch.log(values)

    def divide(self, numerator: Any, denominator: Any, out: Any, where: Any) -> None:
        # by where, not a boolean index: that would wait for the device to count the entries
        out.copy_(self.torch.where(where, numerator / denominator, out))

    def numpy(self, values: Any) -> np.ndarray:
        return values.detach().cpu().numpy()


class _RowOrderProduct:
    """A CSR matrix times a vector on torch's CPU, each row summed in the order of its
    entries, as scipy sums it: the same products to the last digit, so that regret
    matching (which jumps where a regret crosses zero) follows numpy's iterates. torch's
    own CSR product on the CPU differs in the last digits, and discounted CFR's iterates
    on Leduc then part by 0.18 within 100 iterations."""

    def __init__(self, matrix: sp.csr_matrix, ops: TorchOps):
        self.shape = matrix.shape
        self.ops = ops
        self.rows = ops.indices(np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr)))
        self.columns = ops.indices(matrix.indices)
        self.data = ops.vector(matrix.data)

    def __matmul__(self, x: Any) -> Any:
        return self.ops.zeros(self.shape[0]).index_add_(0, self.rows, self.data * x[self.columns])


class _Replay:
    """A step run eagerly :data:`GRAPH_WARMUP` times (on a side stream, as torch asks
    before a capture), then recorded as a CUDA graph and replayed. Where recording fails
    (an operation that cannot be captured) the step runs eagerly from then on."""

    def __init__(self, torch: Any, step: Any):
        self.torch, self.step = torch, step
        self.graph: Any = None
        self.side: Any = None  # the stream eager calls run on, made once
        self.eager_calls = 0
        self.failed: str | None = None

    def __call__(self) -> None:
        if self.graph is not None:
            self.graph.replay()
            return
        if self.failed is not None or self.eager_calls < GRAPH_WARMUP:
            self._eager()
            return
        graph = self.torch.cuda.CUDAGraph()
        try:
            with self.torch.cuda.graph(graph):
                self.step()
        except RuntimeError as exc:  # recorded nothing: the step has not run
            self.failed = str(exc).splitlines()[0]
            warnings.warn(f"CUDA graph not recorded, iterating without: {self.failed}", RuntimeWarning, stacklevel=2)
            self._eager()
            return
        self.graph = graph
        graph.replay()

    def _eager(self) -> None:
        cuda = self.torch.cuda
        if self.side is None:
            self.side = cuda.Stream()
        self.side.wait_stream(cuda.current_stream())
        with cuda.stream(self.side):
            self.step()
        cuda.current_stream().wait_stream(self.side)
        self.eager_calls += 1


def _device_products(ops: TorchOps, entries: PayoffEntries) -> PayoffProducts:
    """:meth:`TorchOps.payoff_products` on a GPU: the entries sorted by (row, column) on
    the device, duplicates summed, zeros dropped, and the transpose sorted from them."""
    torch, device = ops.torch, ops._device
    m, n = entries.shape
    key = torch.as_tensor(entries.rows, device=device).long() * n
    key += torch.as_tensor(entries.columns, device=device).long()
    key, order = torch.sort(key, stable=True)
    values = torch.as_tensor(np.ascontiguousarray(entries.values, dtype=np.float64), device=device)[order]
    del order
    key, group = torch.unique_consecutive(key, return_inverse=True)
    values = torch.zeros(key.shape[0], dtype=torch.float64, device=device).index_add_(0, group, values)
    del group
    kept = values != 0
    key, values = key[kept], values[kept]
    rows, columns = torch.div(key, n, rounding_mode="floor"), torch.remainder(key, n)
    del key, kept
    times = _csr(torch, rows, columns, values, (m, n))
    columns, order = torch.sort(columns, stable=True)  # rows stay in order within a column
    times_transposed = _csr(torch, columns, rows[order], values[order], (n, m))
    largest = float(values.abs().max()) if values.numel() else 0.0
    return PayoffProducts(times, times_transposed, (m, n), int(values.numel()), largest)


def _csr(torch: Any, rows: Any, columns: Any, values: Any, shape: tuple[int, int]) -> Any:
    """A ``torch.sparse_csr_tensor`` of entries sorted by row (and column within a row)."""
    pointers = torch.zeros(shape[0] + 1, dtype=torch.int64, device=values.device)
    pointers[1:] = torch.bincount(rows, minlength=shape[0]).cumsum(0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*[Ss]parse.*")
        return torch.sparse_csr_tensor(pointers, columns, values, size=shape, check_invariants=False)


#: The numpy operations (the default everywhere).
NUMPY = NumpyOps()


def torch_available() -> bool:
    """True when torch can be imported (without importing it)."""
    import importlib.util
    import sys

    if "torch" in sys.modules:  # imported already, or blocked (None)
        return sys.modules["torch"] is not None
    return importlib.util.find_spec("torch") is not None


def choose_device(device: str, nonzeros: int) -> str:
    """The device ``auto`` means for a payoff matrix of ``nonzeros``: cuda where torch sees
    one and the matrix has at least :data:`AUTO_CUDA_NONZEROS`, numpy otherwise; any other
    name is returned as it is."""
    if device != "auto":
        return device
    if nonzeros < AUTO_CUDA_NONZEROS or not torch_available():
        return "numpy"
    import torch

    return "cuda" if torch.cuda.is_available() else "numpy"


def array_ops(device: str) -> ArrayOps:
    """The operations for ``device`` (numpy, cpu or cuda; see :func:`choose_device` for
    auto). ValueError for another name; RuntimeError when torch is missing or sees no CUDA."""
    if device == "numpy":
        return NUMPY
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {device!r}")
    if not torch_available():
        raise RuntimeError(f"device {device} runs on torch, which is not installed (pip install 'equilibria[gpu]')")
    return TorchOps(device)


__all__ = [
    "AUTO_CUDA_NONZEROS",
    "CUDA_GRAPHS",
    "DEVICES",
    "NUMPY",
    "ArrayOps",
    "NumpyOps",
    "PayoffEntries",
    "PayoffProducts",
    "RowBlocks",
    "TorchOps",
    "array_ops",
    "choose_device",
    "products",
    "torch_available",
]
