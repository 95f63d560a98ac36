"""PDLP on torch: restarted primal-dual hybrid gradient for linear programs, on the CPU or
a CUDA GPU. Backend ``pdlp-torch`` (extra ``equilibria[gpu]``: torch).

The method is PDLP's (Applegate, Díaz, Hinder, Lubin, Lu, O'Donoghue and Schudy,
"Practical large-scale linear programming using primal-dual hybrid gradient", 2021) in the
form cuPDLP runs it on GPUs (Lu and Yang, "cuPDLP.jl: A GPU implementation of restarted
primal-dual hybrid gradient for linear programming in Julia", 2023). It solves

    min c'x  subject to  row_lower <= A x <= row_upper,  col_lower <= x <= col_upper

(a maximisation by minimising -c'x) as the saddle point of ``c'x - y'Ax + p(y)`` over the
box of ``x``, ``p(y) = sum(y+ row_lower - y- row_upper)``:

- **preconditioning**: :data:`RUIZ_PASSES` Ruiz equilibration passes (rows and columns
  divided by the square root of their largest entry), then one Pock-Chambolle scaling
  (alpha = 1: by the square root of their absolute sums); bounds and costs scaled with them;
- **steps**: PDLP's adaptive step size (a step is taken when it is at most
  ``|dz|_w^2 / (2 |dy' A dx|)``, else retried shorter), primal weight ``w`` (steps
  ``eta / w`` and ``eta * w``) set from the costs' and bounds' norms and moved at each
  restart halfway (in logarithms) towards ``|dy| / |dx|`` of the epoch;
- **restarts** on the KKT error (weighted by ``w``) of the candidate, the current iterate or
  the step-weighted average, whichever is lower: restart to it when its error fell below
  0.2 of the error at the last restart (sufficient), below 0.8 and rose since the last
  check (necessary, no progress), or when the epoch is 36% of all iterations (artificial);
- **termination** every ``check_every`` iterations on the problem as given (unscaled), at
  the current or the average iterate: primal residual at most ``tolerance * (1 + |b|)``,
  dual residual at most ``tolerance * (1 + |c|)`` and duality gap at most
  ``tolerance * (1 + |primal| + |dual|)`` (Euclidean norms; ``b`` the finite row bounds);
- **infeasibility**: the difference of the iterates over the last ``check_every``
  iterations is tested as a Farkas ray of the dual (the LP is infeasible) and as a ray of
  the primal (the dual is infeasible: infeasible or unbounded), to
  ``infeasibility_tolerance`` relative to the ray's objective;
- **the answer**: no feasibility polishing; the primal solution is clipped to the column
  bounds (which every iterate already satisfies up to the scaling's rounding), the rows
  hold to the tolerance. Row duals follow HiGHS's signs (``c - A'y`` are the reduced costs
  of the problem as stated, minimised or maximised), which the sequence-form LP reads the
  second player's strategy from.

Everything after the hand-over runs on the chosen device in float64 (``A`` and ``A'``
each a ``torch.sparse_csr_tensor``); only the scalars of each check and the final
vectors come back. A time limit counts from the call (torch's first import included) and
is checked between blocks of ``check_every`` iterations; at a time or iteration limit the
point with the lowest relative KKT error seen at a check is returned with status
TIME_LIMIT or ITERATION_LIMIT, never OPTIMAL.

Options (``options={...}``; anything else is refused naming the option):
``tolerance`` (default :data:`DEFAULT_TOLERANCE`), ``device`` (``auto``: CUDA when
``torch.cuda.is_available()``, else ``cpu``; or ``cpu``, ``cuda``, ``cuda:N``),
``check_every`` (64), ``iteration_limit`` (None: none), ``infeasibility_tolerance``
(1e-8), ``log_every`` (iterations between verbose lines on stderr, 1024).
"""

from __future__ import annotations

import logging
import math
import sys
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from ..models.errors import SolverError
from .base import Backend, Capabilities, register
from .results import Solution, Status

if TYPE_CHECKING:
    import torch

    from ..formulations.linear_program import LinearProgram

_log = logging.getLogger("equilibria.solvers")

#: The relative tolerance of the termination criteria unless ``tolerance`` is given.
#: PDLP's 1e-8 leaves sequence-form strategies read from the duals above the 1e-9
#: exploitability the LP route accepts from an optimal solution (Kuhn's LP: 1.0e-8 in 768
#: iterations); at 1e-10 they are within it (3.2e-11 in 960 iterations).
DEFAULT_TOLERANCE = 1e-10
#: Ruiz equilibration passes before the Pock-Chambolle scaling.
RUIZ_PASSES = 10
#: cuPDLP's restart criteria: sufficient and necessary decay of the KKT error, and the
#: share of all iterations after which an epoch is restarted anyway.
SUFFICIENT, NECESSARY, ARTIFICIAL = 0.2, 0.8, 0.36
#: How far a restart moves the primal weight towards the epoch's ratio (in logarithms).
WEIGHT_SMOOTHING = 0.5
#: Seconds between progress records on the logger ``equilibria.solvers``.
PROGRESS_EVERY = 5.0

#: option -> default
OPTIONS: dict[str, Any] = {
    "tolerance": DEFAULT_TOLERANCE,
    "device": "auto",
    "check_every": 64,
    "iteration_limit": None,
    "infeasibility_tolerance": 1e-8,
    "log_every": 1024,
}


def _settings(options: dict[str, Any]) -> dict[str, Any]:
    """The options merged over :data:`OPTIONS`; SolverError naming a bad one."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise SolverError(f"pdlp-torch has no option '{unknown[0]}'; its options: {', '.join(OPTIONS)}")
    out = {**OPTIONS, **options}
    for key in ("tolerance", "infeasibility_tolerance"):
        value = out[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise SolverError(f"pdlp-torch option {key} must be a number between 0 and 1, not {value!r}")
        out[key] = float(value)
    for key in ("check_every", "log_every", "iteration_limit"):
        value = out[key]
        if value is None and key == "iteration_limit":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise SolverError(f"pdlp-torch option {key} must be a positive integer, not {value!r}")
        out[key] = int(value)
    device = out["device"]
    if not isinstance(device, str) or not (device in ("auto", "cpu", "cuda") or device.startswith("cuda:")):
        raise SolverError(f"pdlp-torch option device must be 'auto', 'cpu', 'cuda' or 'cuda:N', not {device!r}")
    return out


def _device(name: str) -> torch.device:
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise SolverError(
            f"pdlp-torch option device={name!r}: torch sees no CUDA device here (torch {torch.__version__}); "
            "use device='cpu' or 'auto'"
        )
    try:
        return torch.device(name)
    except RuntimeError as exc:
        raise SolverError(f"pdlp-torch option device={name!r}: {exc}") from None


@dataclass
class _Side:
    """The LP's data in one scaling (the scaled problem the iterations run on, or the
    problem as given, which termination is measured on)."""

    c: torch.Tensor
    row_lower: torch.Tensor
    row_upper: torch.Tensor
    col_lower: torch.Tensor
    col_upper: torch.Tensor
    #: the bounds with infinities replaced by 0, for objective terms
    row_lower0: torch.Tensor
    row_upper0: torch.Tensor
    col_lower0: torch.Tensor
    col_upper0: torch.Tensor
    has_col_lower: torch.Tensor
    has_col_upper: torch.Tensor
    c_norm: float
    b_norm: float


def _side(torch: Any, c: Any, rl: Any, ru: Any, cl: Any, cu: Any) -> _Side:
    def finite0(v: Any) -> Any:
        return torch.where(torch.isfinite(v), v, torch.zeros_like(v))

    rl0, ru0 = finite0(rl), finite0(ru)
    b = torch.maximum(rl0.abs(), ru0.abs())
    return _Side(
        c,
        rl,
        ru,
        cl,
        cu,
        rl0,
        ru0,
        finite0(cl),
        finite0(cu),
        torch.isfinite(cl),
        torch.isfinite(cu),
        float(torch.linalg.vector_norm(c)),
        float(torch.linalg.vector_norm(b)),
    )


def _measures(torch: Any, s: _Side, x: Any, y: Any, ax: Any, aty: Any) -> Any:
    """Primal residual, dual residual (Euclidean), primal and dual objective of ``(x, y)``
    with ``ax = A x`` and ``aty = A'y`` in the scaling of ``s``, as one tensor of four."""
    primal = torch.linalg.vector_norm(ax - torch.clamp(ax, s.row_lower, s.row_upper))
    r = s.c - aty
    # the part of the reduced costs that the column bounds can carry; the rest is residual
    lam = torch.where(r > 0, r * s.has_col_lower, r * s.has_col_upper)
    dual = torch.linalg.vector_norm(r - lam)
    pobj = torch.dot(s.c, x)
    dobj = (
        torch.where(y > 0, y * s.row_lower0, y * s.row_upper0).sum()
        + torch.where(lam > 0, lam * s.col_lower0, lam * s.col_upper0).sum()
    )
    return torch.stack([primal, dual, pobj, dobj])


def _kkt(weight: float, m: list[float]) -> float:
    """The weighted KKT error of measures ``m`` (see :func:`_measures`)."""
    primal, dual, pobj, dobj = m
    return math.sqrt(weight**2 * primal**2 + dual**2 / weight**2 + (pobj - dobj) ** 2)


def _relative(m: list[float], s: _Side) -> tuple[float, float, float]:
    """Primal residual, dual residual and gap of measures ``m`` relative to the problem's
    size, each to be compared with the tolerance."""
    primal, dual, pobj, dobj = m
    return (
        primal / (1 + s.b_norm),
        dual / (1 + s.c_norm),
        abs(pobj - dobj) / (1 + abs(pobj) + abs(dobj)),
    )


def _scaling(torch: Any, rows: Any, cols: Any, vals: Any, m: int, n: int) -> tuple[Any, Any]:
    """Row and column scaling factors: Ruiz passes, then Pock-Chambolle with alpha = 1."""
    dt, dev = vals.dtype, vals.device
    row_scale = torch.ones(m, dtype=dt, device=dev)
    col_scale = torch.ones(n, dtype=dt, device=dev)

    def safe(v: Any) -> Any:
        return torch.where(v > 0, v, torch.ones_like(v))

    for _ in range(RUIZ_PASSES):
        a = vals.abs() * row_scale[rows] * col_scale[cols]
        row_max = torch.zeros(m, dtype=dt, device=dev).scatter_reduce(0, rows, a, "amax")
        col_max = torch.zeros(n, dtype=dt, device=dev).scatter_reduce(0, cols, a, "amax")
        row_scale = row_scale / torch.sqrt(safe(row_max))
        col_scale = col_scale / torch.sqrt(safe(col_max))
    a = vals.abs() * row_scale[rows] * col_scale[cols]
    row_sum = torch.zeros(m, dtype=dt, device=dev).index_add(0, rows, a)
    col_sum = torch.zeros(n, dtype=dt, device=dev).index_add(0, cols, a)
    return row_scale / torch.sqrt(safe(row_sum)), col_scale / torch.sqrt(safe(col_sum))


class _Csr(NamedTuple):
    """A sparse matrix's CSR parts on the device."""

    crow: Any  # row pointers
    col: Any  # column index of each entry
    row: Any  # row index of each entry
    vals: Any
    shape: tuple[int, int]


def _tensor(torch: Any, values: Any, dev: Any) -> Any:
    """``values`` as a float64 tensor on ``dev``."""
    return torch.as_tensor(np.ascontiguousarray(values, dtype=np.float64), device=dev)


def _csr(torch: Any, matrix: sp.csr_matrix, dev: Any) -> _Csr:
    """The CSR parts of a scipy CSR matrix, on ``dev``."""
    crow = torch.as_tensor(matrix.indptr.astype(np.int64), device=dev)
    col = torch.as_tensor(matrix.indices.astype(np.int64), device=dev)
    counts = crow[1:] - crow[:-1]
    row = torch.repeat_interleave(torch.arange(matrix.shape[0], device=dev), counts)
    return _Csr(crow, col, row, _tensor(torch, matrix.data, dev), (int(matrix.shape[0]), int(matrix.shape[1])))


def _amax(v: Any) -> float:
    """The largest entry of ``v`` (0 when empty)."""
    return float(v.max()) if v.numel() else 0.0


def _infeasibility(torch: Any, s: _Side, dx: Any, dy: Any, adx: Any, atdy: Any, eps: float) -> Status | None:
    """INFEASIBLE when ``dy`` (with ``atdy = A'dy``) is a Farkas ray of the problem in
    scaling ``s``; INFEASIBLE_OR_UNBOUNDED when ``dx`` (``adx = A dx``) is a primal ray of
    decrease; None otherwise. Both are tested to ``eps`` relative to the ray's objective."""
    # dual ray: y of the rows' signs, -A'y carried by the column bounds, positive objective
    scale = float(dy.abs().max()) if dy.numel() else 0.0
    if scale > 0:
        y = dy / scale
        y = torch.where(y > 0, y * torch.isfinite(s.row_lower), y * torch.isfinite(s.row_upper))
        r = -atdy / scale
        lam = torch.where(r > 0, r * s.has_col_lower, r * s.has_col_upper)
        objective = float(
            torch.where(y > 0, y * s.row_lower0, y * s.row_upper0).sum()
            + torch.where(lam > 0, lam * s.col_lower0, lam * s.col_upper0).sum()
        )
        # r - lam is what the bounds cannot carry; y's own sign violations were dropped
        if objective > 0 and _amax((r - lam).abs()) <= eps * objective:
            return Status.INFEASIBLE
    scale = float(dx.abs().max()) if dx.numel() else 0.0
    if scale > 0:
        d = dx / scale
        keep = torch.where(d > 0, ~s.has_col_upper, ~s.has_col_lower)
        d = d * keep
        decrease = -float(torch.dot(s.c, d))
        if decrease > 0 and bool(keep.all()):
            ad = adx / scale
            over = torch.where(torch.isfinite(s.row_upper), torch.clamp(ad, min=0), torch.zeros_like(ad))
            under = torch.where(torch.isfinite(s.row_lower), torch.clamp(-ad, min=0), torch.zeros_like(ad))
            if _amax(torch.maximum(over, under)) <= eps * decrease:
                return Status.INFEASIBLE_OR_UNBOUNDED
    return None


def _upload(torch: Any, problem: LinearProgram, dev: Any) -> tuple[_Csr, _Csr, _Side, float]:
    """``A`` and ``A'`` and the problem as given (a maximisation's costs negated) on
    ``dev``, and the sign the costs were multiplied by."""
    sign = -1.0 if problem.maximize else 1.0
    A = sp.csr_matrix(problem.A, dtype=np.float64)
    A.sum_duplicates()
    AT = sp.csr_matrix(A.T)
    given = _side(
        torch,
        _tensor(torch, sign * np.asarray(problem.c, dtype=np.float64), dev),
        _tensor(torch, problem.row_lower, dev),
        _tensor(torch, problem.row_upper, dev),
        _tensor(torch, problem.col_lower, dev),
        _tensor(torch, problem.col_upper, dev),
    )
    return _csr(torch, A, dev), _csr(torch, AT, dev), given, sign


@dataclass
class _Scaled:
    """The preconditioned LP on the device: ``A~ = R A C`` and its transpose (CSR
    tensors), ``x = C x~`` and ``y = R y~``, the data as given and as scaled."""

    A: Any
    AT: Any
    R: Any
    C: Any
    given: _Side
    scaled: _Side
    sign: float
    nnz: int
    dev: Any


def _precondition(torch: Any, a: _Csr, at: _Csr, given: _Side, sign: float) -> _Scaled:
    """The LP scaled by :func:`_scaling`'s factors."""
    m, n = a.shape
    f64 = torch.float64
    R, C = _scaling(torch, a.row, a.col, a.vals, m, n)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*[Ss]parse.*")
        Ak = torch.sparse_csr_tensor(
            a.crow, a.col, a.vals * R[a.row] * C[a.col], (m, n), dtype=f64, check_invariants=False
        )
        ATk = torch.sparse_csr_tensor(
            at.crow, at.col, at.vals * C[at.row] * R[at.col], (n, m), dtype=f64, check_invariants=False
        )
    scaled = _side(
        torch,
        given.c * C,
        given.row_lower * R,
        given.row_upper * R,
        given.col_lower / C,
        given.col_upper / C,
    )
    return _Scaled(Ak, ATk, R, C, given, scaled, sign, int(a.vals.numel()), a.vals.device)


@dataclass
class _Check:
    """What a check measured: the scaled measures of the current iterate and of the
    average, the average ``(x, y, Ax, A'y)``, and the relative errors shown in progress."""

    cur_scaled: list[float]
    avg_scaled: list[float]
    avg: tuple[Any, Any, Any, Any]
    shown: tuple[float, float, float]


class _Pdhg:
    """Restarted PDHG's state on a scaled LP: the iterate ``(x, y)`` with ``Ax`` and
    ``A'y``, step size ``eta``, primal weight, the epoch (its start, the step-weighted sums
    of its average), the best point seen at a check, and the status once one is known."""

    def __init__(self, torch: Any, lp: _Scaled, warm_start: np.ndarray | None) -> None:
        self.torch, self.lp = torch, lp
        s = lp.scaled
        n, m = lp.C.numel(), lp.R.numel()
        x = torch.zeros(n, dtype=torch.float64, device=lp.dev)
        if warm_start is not None:
            x = _tensor(torch, warm_start, lp.dev) / lp.C
        self.x = torch.clamp(x, s.col_lower, s.col_upper)
        self.y = torch.zeros(m, dtype=torch.float64, device=lp.dev)
        self.ax, self.aty = self.matvec(lp.A, self.x), self.matvec(lp.AT, self.y)
        largest = float(lp.A.values().abs().max()) if lp.nnz else 1.0
        self.eta = 1.0 / largest if largest > 0 else 1.0
        self.weight = s.c_norm / s.b_norm if s.c_norm > 1e-10 and s.b_norm > 1e-10 else 1.0
        self.iterations = self.attempts = self.restarts = 0
        self.status = Status.UNKNOWN
        self.answer: tuple[Any, Any] | None = None
        self.best: tuple[float, Any, Any] | None = None
        self.sum_x, self.sum_y = torch.zeros_like(self.x), torch.zeros_like(self.y)
        self.sum_ax, self.sum_aty = torch.zeros_like(self.ax), torch.zeros_like(self.aty)
        self._new_epoch(self.measures(self.x, self.y, self.ax, self.aty)[0])

    @property
    def finished(self) -> bool:
        return self.answer is not None or self.status != Status.UNKNOWN

    def matvec(self, M: Any, v: Any) -> Any:
        if v.numel():
            return self.torch.mv(M, v)
        return self.torch.zeros(M.shape[0], dtype=self.torch.float64, device=self.lp.dev)

    def measures(self, x: Any, y: Any, ax: Any, aty: Any) -> tuple[list[float], list[float]]:
        """Measures in the scaled problem and in the problem as given, with one transfer."""
        torch, lp = self.torch, self.lp
        both = torch.cat(
            [
                _measures(torch, lp.scaled, x, y, ax, aty),
                _measures(torch, lp.given, x * lp.C, y * lp.R, ax / lp.R, aty / lp.C),
            ]
        ).tolist()
        return both[:4], both[4:]

    def _new_epoch(self, candidate: list[float]) -> None:
        """Start an epoch at the current iterate, whose scaled measures are ``candidate``."""
        self.kkt_last = _kkt(self.weight, candidate)
        self.kkt_candidate_before = math.inf
        self.last_x, self.last_y = self.x.clone(), self.y.clone()
        self.epoch_start = self.iterations
        for total in (self.sum_x, self.sum_y, self.sum_ax, self.sum_aty):
            total.zero_()
        self.sum_w = 0.0
        self.prev = (self.x, self.y, self.ax, self.aty)

    def step(self) -> None:
        """One iteration with PDLP's adaptive step: shortened until admissible, then
        added to the epoch's average with the step as its weight."""
        torch, s = self.torch, self.lp.scaled
        x, y, ax, aty, eta, weight = self.x, self.y, self.ax, self.aty, self.eta, self.weight
        while True:
            self.attempts += 1
            tau, sigma = eta / weight, eta * weight
            x_new = torch.clamp(x - tau * (s.c - aty), s.col_lower, s.col_upper)
            ax_new = self.matvec(self.lp.A, x_new)
            v = y - sigma * (2 * ax_new - ax)
            y_new = v + sigma * torch.clamp(-v / sigma, s.row_lower, s.row_upper)
            aty_new = self.matvec(self.lp.AT, y_new)
            dx, dy = x_new - x, y_new - y
            movement, interaction = torch.stack(
                [
                    0.5 * weight * torch.dot(dx, dx) + 0.5 / weight * torch.dot(dy, dy),
                    torch.dot(dy, ax_new - ax).abs(),
                ]
            ).tolist()
            limit_eta = movement / interaction if interaction > 0 else math.inf
            n = self.attempts + 1
            next_eta = min((1 - n**-0.3) * limit_eta, (1 + n**-0.6) * eta)
            if eta <= limit_eta:
                break
            eta = next_eta
        self.x, self.y, self.ax, self.aty = x_new, y_new, ax_new, aty_new
        self.sum_x.add_(x_new, alpha=eta)
        self.sum_y.add_(y_new, alpha=eta)
        self.sum_ax.add_(ax_new, alpha=eta)
        self.sum_aty.add_(aty_new, alpha=eta)
        self.sum_w += eta
        self.eta = next_eta
        self.iterations += 1

    def check(self, tolerance: float, eps_infeasible: float) -> _Check:
        """Termination at the current iterate or the average (the problem as given), else
        the best point kept and the infeasibility test since the last check."""
        w = self.sum_w
        avg = (self.sum_x / w, self.sum_y / w, self.sum_ax / w, self.sum_aty / w)
        cur_scaled, cur_given = self.measures(self.x, self.y, self.ax, self.aty)
        avg_scaled, avg_given = self.measures(*avg)
        rel_cur, rel_avg = _relative(cur_given, self.lp.given), _relative(avg_given, self.lp.given)
        points = ((rel_cur, (self.x, self.y)), (rel_avg, avg[:2]))
        for rel, point in points:
            if max(rel) <= tolerance:
                self.status, self.answer = Status.OPTIMAL, point
                break
        if self.answer is None:
            for rel, point in points:
                if self.best is None or max(rel) < self.best[0]:
                    self.best = (max(rel), point[0], point[1])
            found = self.infeasibility(eps_infeasible)
            if found is not None:
                self.status = found
        shown = rel_cur if max(rel_cur) <= max(rel_avg) else rel_avg
        return _Check(cur_scaled, avg_scaled, avg, shown)

    def infeasibility(self, eps: float) -> Status | None:
        """:func:`_infeasibility` of the iterates' difference since the last check."""
        x0, y0, ax0, aty0 = self.prev
        dx, dy = self.x - x0, self.y - y0
        return _infeasibility(self.torch, self.lp.scaled, dx, dy, self.ax - ax0, self.aty - aty0, eps)

    def restart_if_due(self, check: _Check) -> None:
        """Restart to the current iterate or the average, whichever is nearer optimal,
        when a criterion holds; the primal weight moves at a restart."""
        self.prev = (self.x, self.y, self.ax, self.aty)
        kkt_cur, kkt_avg = _kkt(self.weight, check.cur_scaled), _kkt(self.weight, check.avg_scaled)
        use_avg = kkt_avg < kkt_cur
        kkt_candidate = kkt_avg if use_avg else kkt_cur
        restart = (
            kkt_candidate <= SUFFICIENT * self.kkt_last
            or (kkt_candidate <= NECESSARY * self.kkt_last and kkt_candidate > self.kkt_candidate_before)
            or self.iterations - self.epoch_start >= ARTIFICIAL * self.iterations
        )
        if not restart:
            self.kkt_candidate_before = kkt_candidate
            return
        self.restarts += 1
        if use_avg:
            self.x, self.y, self.ax, self.aty = check.avg
        moved_x = float(self.torch.linalg.vector_norm(self.x - self.last_x))
        moved_y = float(self.torch.linalg.vector_norm(self.y - self.last_y))
        if moved_x > 1e-10 and moved_y > 1e-10:
            self.weight = math.exp(
                WEIGHT_SMOOTHING * math.log(moved_y / moved_x) + (1 - WEIGHT_SMOOTHING) * math.log(self.weight)
            )
        self._new_epoch(check.avg_scaled if use_avg else check.cur_scaled)

    def unscaled(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The answer in the problem as given: the primal (clipped to the column bounds)
        and the row duals in HiGHS's signs; at a limit the best point seen; else None."""
        answer = self.answer
        if answer is None and self.status in (Status.TIME_LIMIT, Status.ITERATION_LIMIT) and self.best is not None:
            answer = (self.best[1], self.best[2])
        if answer is None:
            return None, None
        lp = self.lp
        x_given = self.torch.clamp(answer[0] * lp.C, lp.given.col_lower, lp.given.col_upper)
        return x_given.cpu().numpy(), lp.sign * (answer[1] * lp.R).cpu().numpy()


class _Progress:
    """Progress lines: on stderr when verbose (every ``log_every`` iterations and at the
    end), and on the logger every :data:`PROGRESS_EVERY` seconds."""

    def __init__(self, where: str, verbose: bool, log_every: int, start: float) -> None:
        self.where, self.verbose, self.log_every = where, verbose, log_every
        self.next_report = start + PROGRESS_EVERY
        self.next_log = 0

    def header(self, lp: _Scaled, tolerance: float) -> None:
        if self.verbose:
            (m, n), nnz = lp.A.shape, lp.nnz
            print(
                f"pdlp-torch on {self.where}: {m:,} rows, {n:,} columns, {nnz:,} nonzeros, tolerance {tolerance:.1e}",
                file=sys.stderr,
                flush=True,
            )

    def report(self, pdhg: _Pdhg, shown: tuple[float, float, float], now: float, elapsed: float) -> None:
        line = (
            f"iteration {pdhg.iterations:,}: relative primal residual {shown[0]:.2e}, "
            f"dual residual {shown[1]:.2e}, gap {shown[2]:.2e}; step {pdhg.eta:.2e}, "
            f"primal weight {pdhg.weight:.2e}, {pdhg.restarts} restarts, {elapsed:.1f} s"
        )
        if self.verbose and (pdhg.iterations >= self.next_log or pdhg.finished):
            self.next_log = pdhg.iterations + self.log_every
            print(f"pdlp-torch {line}", file=sys.stderr, flush=True)
        if now >= self.next_report:
            self.next_report = now + PROGRESS_EVERY
            _log.info("PDLP (torch, %s): %s", self.where, line)


def solve_pdlp_torch(
    problem: LinearProgram,
    time_limit: float | None = None,
    verbose: bool = False,
    options: dict | None = None,
    warm_start: np.ndarray | None = None,
) -> Solution:
    """Solve an LP by restarted PDHG on torch; returns the Solution (row duals included).
    See the module's docstring for the method and its options."""
    called = time.perf_counter()  # the time limit counts torch's first import (about a second)
    settings = _settings(dict(options or {}))
    import torch

    t0 = time.perf_counter()
    deadline = None if time_limit is None else called + float(time_limit)
    dev = _device(settings["device"])
    a, at, given, sign = _upload(torch, problem, dev)
    t1 = time.perf_counter()
    lp = _precondition(torch, a, at, given, sign)
    pdhg = _Pdhg(torch, lp, warm_start)
    tol, every, limit = settings["tolerance"], settings["check_every"], settings["iteration_limit"]
    where = f"{dev.type}" + (f":{dev.index}" if dev.index is not None else "")
    progress = _Progress(where, verbose, settings["log_every"], t1)
    progress.header(lp, tol)

    t2 = time.perf_counter()
    while True:
        for _ in range(every):
            pdhg.step()
            if deadline is not None and time.perf_counter() >= deadline:
                break  # a large LP on a few cores takes seconds an iteration: not a block past the limit
        check = pdhg.check(tol, settings["infeasibility_tolerance"])
        now = time.perf_counter()
        progress.report(pdhg, check.shown, now, now - t2)
        if pdhg.finished:
            break
        if deadline is not None and now >= deadline:
            pdhg.status = Status.TIME_LIMIT
            break
        if limit is not None and pdhg.iterations >= limit:
            pdhg.status = Status.ITERATION_LIMIT
            break
        pdhg.restart_if_due(check)

    t3 = time.perf_counter()
    x_out, duals = pdhg.unscaled()
    objective = None if x_out is None else float(np.dot(problem.c, x_out))
    message = f"PDLP on torch ({where}): {pdhg.status}, {pdhg.iterations:,} iterations, {pdhg.restarts} restarts"
    return Solution(
        status=pdhg.status,
        objective=objective,
        x=x_out,
        row_duals=duals,
        backend="pdlp-torch",
        method=f"pdhg:{where}",
        seconds={"build": t1 - t0, "transfer": t2 - t1, "solve": time.perf_counter() - t2},
        message=message + f" in {t3 - t2:.2f} s",
    )


@register
class PdlpTorchBackend(Backend):
    """PDLP (restarted primal-dual hybrid gradient) on torch, CPU or CUDA: LPs with duals
    to a relative tolerance; no integers. For very large LPs and for GPUs."""

    name = "pdlp-torch"
    module = "torch"
    install = "equilibria[gpu]"
    capabilities = Capabilities(lp=True, duals=True, time_limit=True, warm_start=True)

    def _solve_lp(
        self,
        problem: LinearProgram,
        *,
        method: str | None,
        time_limit: float | None,
        verbose: bool,
        options: dict[str, Any],
        warm_start: np.ndarray | None,
    ) -> Solution:
        return solve_pdlp_torch(problem, time_limit=time_limit, verbose=verbose, options=options, warm_start=warm_start)
