"""First-order methods on the saddle point of a two-player zero-sum game's sequence form
(CFR+, predictive CFR+, discounted CFR, mirror prox): anytime, certified as they go, no LP
built."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..core.anytime import Anytime
from ..formulations.sequence_form_lp import check_two_player_zero_sum
from ..models import checks
from ..models.array_ops import array_ops, choose_device
from ..models.best_response import Exploitability, saddle_point_exploitability
from ..models.errors import SolveFailed
from ..models.progress import stage
from ..models.sequence import SequenceForm
from ..models.treeplex import Treeplex
from ..solvers import Status
from ..solvers.first_order import ALGORITHMS, MirrorProxSolver, SaddlePointSolver, make_solver
from .run import CurvePoint, LPRun

_log = logging.getLogger(__name__)


def treeplexes(sf: SequenceForm) -> tuple[Treeplex, Treeplex]:
    """Both players' strategy polytopes of a two-player sequence form, for the
    first-order solvers."""
    return sf.players[0].treeplex, sf.players[1].treeplex


#: Growth of the iteration count between two certificates of a first-order solve.
CERTIFY_GROWTH = 1.25

#: A first-order solve with a target stops as ``stalled`` once it has run
#: :data:`STALL_AFTER` iterations and, at the rate its exploitability fell over the last
#: :data:`STALL_SPAN`-fold of iterations, the target would take :data:`STALL_FACTOR` times
#: the iterations run (CFR+ on Kuhn poker with a target of 1e-17 ran for ever).
STALL_AFTER = 10_000
STALL_SPAN = 8.0
STALL_FACTOR = 1000.0


def _out_of_reach(curve: list[CurvePoint], target: float | None) -> bool:
    """True when, at the rate of the certificates' last :data:`STALL_SPAN`-fold of
    iterations (exploitability ~ iterations**-rate), ``target`` needs more than
    :data:`STALL_FACTOR` times the iterations run so far."""
    if target is None or not curve:
        return False
    now = curve[-1]
    earlier = [p for p in curve if p.iterations * STALL_SPAN <= now.iterations]
    if not earlier:
        return False
    best_now = min(p.exploitability for p in curve)
    best_then = min(p.exploitability for p in earlier)
    if best_now <= target:
        return False
    if best_now >= best_then:
        return True  # no progress at all over the span
    rate = math.log(best_then / best_now) / math.log(now.iterations / earlier[-1].iterations)
    return (best_now / target) ** (1.0 / rate) > STALL_FACTOR


def solve_first_order(
    sf: SequenceForm,
    algorithm: str,
    *,
    time_limit: float | None = None,
    target_exploitability: float | None = None,
    iterations: int | None = None,
    times: dict | None = None,
    on_certificate: Callable[[CurvePoint], None] | None = None,
    device: str = "auto",
) -> LPRun:
    """Solve a two-player zero-sum sequence form by a first-order method, anytime.

    The average strategies are certified by exact best responses after iteration counts
    growing by :data:`CERTIFY_GROWTH` (fixed counts, so that a run does not depend on the
    machine's load; a certificate costs about one iteration, by the solver's own payoff
    matrices); the run stops when the certified exploitability is at most
    ``target_exploitability`` (status ``target_reached``), when ``time_limit``
    seconds have passed (``time_limit``), after ``iterations`` (``iteration_limit``), or
    when the exploitability stops falling (``stalled``, see :data:`STALL_AFTER`),
    and returns the best certified strategies. At least one of the three is required.
    Ctrl-C (KeyboardInterrupt) once a certificate exists stops the run too, with the best
    certified strategies and status ``interrupted``; before that it propagates.
    ``LPRun.curve`` lists each certificate as a :class:`~equilibria.routes.run.CurvePoint`:
    iterations, seconds, exploitability (and for mirror-prox the proven bound on the
    exploitability, half its bound on the duality gap); ``on_certificate`` is called with
    each point as it is made (to save a long run's curve; ``CurvePoint.row()`` gives it as a
    plain dict).

    ``device`` says where the iterations and certificates run: ``numpy``; ``cpu`` or
    ``cuda``, torch on that device (the matrices and index arrays moved there once, only
    the answer brought back; the same iterates as numpy on the CPU); ``auto``, CUDA for a
    payoff matrix of :data:`~equilibria.models.array_ops.AUTO_CUDA_NONZEROS` or more when
    torch sees one, numpy otherwise.
    """
    iterations = _check_options(algorithm, time_limit, target_exploitability, iterations)
    constant = check_two_player_zero_sum(sf, algorithm)
    times = times if times is not None else {}
    called = time.perf_counter()  # the time limit counts the solver's build (about 10 s on Rhode Island)
    solver = _build_solver(sf, algorithm, times, device)
    start = time.perf_counter()
    run: Anytime[tuple[list[np.ndarray], Exploitability]] = Anytime(
        deadline=None if time_limit is None else called + time_limit, target=target_exploitability
    )
    progress = _Progress(algorithm, start)
    _run_until_stopped(solver, constant, _Limits(iterations), run, progress, on_certificate)
    times["solve"] = times.get("solve", 0.0) + progress.solving
    times["certify"] = times.get("certify", 0.0) + progress.certifying
    # a run stops only after a certificate, or raises
    (behaviors, cert), status = run.result(lambda status: SolveFailed(f"{algorithm}: no certificate ({status})"))
    return LPRun(
        None,
        behaviors,
        cert,
        status,
        float(cert.payoffs[0]),
        None,
        None,
        curve=progress.curve,
        problem_sizes=_problem_sizes(solver),
        algorithm=algorithm,
    )


def _check_options(
    algorithm: str, time_limit: float | None, target: float | None, iterations: int | None
) -> int | None:
    """The iteration limit, checked (None for none); OptionError for an option of the wrong
    type or range, an unknown algorithm, or no stopping rule at all."""
    checks.number("time_limit", time_limit, strict=True)
    checks.number("target_exploitability", target)
    if iterations is not None:
        iterations = checks.count("iterations", iterations)
    if algorithm not in ALGORITHMS:
        raise checks.OptionError(f"algorithm must be lp or one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    if time_limit is None and target is None and iterations is None:
        raise checks.OptionError(
            f"{algorithm} runs until a target exploitability, a time limit or an iteration count: give one"
        )
    return iterations


def _build_solver(sf: SequenceForm, algorithm: str, times: dict, device: str) -> SaddlePointSolver:
    """The first-order solver of ``algorithm`` on ``sf``'s saddle point, its arrays on
    ``device``, its build time added to ``times["build"]``."""
    t0 = time.perf_counter()
    entries = sf.payoff_entries(0)
    try:  # a device that is not there is refused before any work (entries: at least the nonzeros)
        ops = array_ops(choose_device(device, int(entries.values.shape[0])))
    except (RuntimeError, ValueError) as exc:
        raise checks.OptionError(str(exc)) from None
    with stage(f"building the payoff matrix for {algorithm}"):
        # a GPU converts the entries itself; on the host they are converted here and let
        # go before the transpose is made (Rhode Island: a gigabyte less at the peak)
        payoff = entries if ops.device == "cuda" else entries.csr()
        del entries
        solver = make_solver(algorithm, payoff, treeplexes(sf), ops)
    times["build"] = times.get("build", 0.0) + time.perf_counter() - t0
    return solver


#: Iterations between two waits for a GPU (whose calls return before the work is done).
SYNC_EVERY = 32


def _next_check(iterations: int) -> int:
    """The iteration count of the next certificate after one at ``iterations``: at least one
    more, else :data:`CERTIFY_GROWTH` times as many."""
    return max(iterations + 1, int(iterations * CERTIFY_GROWTH))


@dataclass(frozen=True)
class _Limits:
    """The iteration count a first-order solve stops at (None: none); the target and the
    deadline are the :class:`Anytime` run's."""

    iterations: int | None

    def iterations_left(self, done: int) -> bool:
        """True when the iteration count allows another iteration after ``done``."""
        return self.iterations is None or done < self.iterations

    def stop(self, run: Anytime, done: int, exploitability: float, curve: list[CurvePoint]) -> Status | None:
        """The status to stop with after a certificate of ``exploitability`` at ``done``
        iterations, tested in this order: target reached, time up, iterations done, the
        target out of reach (``curve`` so far); None to go on."""
        if run.meets(exploitability):
            return Status.TARGET_REACHED
        if run.out_of_time():
            return Status.TIME_LIMIT
        if not self.iterations_left(done):
            return Status.ITERATION_LIMIT
        if done >= STALL_AFTER and _out_of_reach(curve, run.target):
            # at the rate of the last iterations the target would take more than
            # STALL_FACTOR times as many: it is below what the method reaches here (or
            # what floating point resolves), and waiting for it would never end
            return Status.STALLED
        return None


#: Seconds between two progress messages of a first-order solve.
PROGRESS_EVERY = 10.0


@dataclass
class _Progress:
    """A first-order solve so far: seconds spent iterating and certifying, the certificates
    (``curve``), and when it started and last logged."""

    algorithm: str
    start: float
    solving: float = 0.0
    certifying: float = 0.0
    curve: list[CurvePoint] = field(default_factory=list)
    last_told: float = field(init=False)

    def __post_init__(self) -> None:
        self.last_told = self.start

    def tell(self, iterations: int, exploitability: float, now: float) -> None:
        """Returns None; logs the iterations and exploitability so far when
        :data:`PROGRESS_EVERY` seconds have passed since the last message."""
        if now - self.last_told >= PROGRESS_EVERY:
            _log.info(
                "%s: %s iterations, exploitability %.3e after %.0f s",
                self.algorithm,
                f"{iterations:,}",
                exploitability,
                now - self.start,
            )
            self.last_told = now


def _run_until_stopped(
    solver: SaddlePointSolver,
    constant: float,
    limits: _Limits,
    run: Anytime[tuple[list[np.ndarray], Exploitability]],
    progress: _Progress,
    on_certificate: Callable[[CurvePoint], None] | None,
) -> None:
    """Iterate and certify in turn (each certificate is a round of ``run``, recorded in
    ``progress``) until ``limits`` or ``run`` say stop; the status is ``run``'s. Ctrl-C
    gives ``interrupted`` once a certificate exists; before that it propagates."""
    next_check = 1
    with stage(f"iterating {progress.algorithm}"), run.guard(interrupt=True):
        for _ in run.rounds():
            _iterate_to(solver, next_check, limits, run, progress)
            cert = _certify_average(solver, constant, run, progress, on_certificate)
            progress.tell(solver.iterations, cert.exploitability, time.perf_counter())
            status = limits.stop(run, solver.iterations, cert.exploitability, progress.curve)
            if status is not None:
                run.stop(status)
            next_check = _next_check(solver.iterations)


def _iterate_to(solver: SaddlePointSolver, next_check: int, limits: _Limits, run: Anytime, progress: _Progress) -> None:
    """Iterate up to ``next_check`` iterations (or the iteration limit), or until the
    deadline passes; the seconds are added to ``progress.solving``."""
    t1 = time.perf_counter()
    while solver.iterations < next_check and limits.iterations_left(solver.iterations):
        solver.iterate(1)
        if solver.iterations % SYNC_EVERY == 0:
            solver.ops.synchronize()  # a GPU's queue kept short: the deadline is read against work done
        if run.out_of_time():
            break
    solver.ops.synchronize()  # a GPU's iterations are timed as iterating, not as the certificate's wait
    progress.solving += time.perf_counter() - t1


def _certify_average(
    solver: SaddlePointSolver,
    constant: float,
    run: Anytime[tuple[list[np.ndarray], Exploitability]],
    progress: _Progress,
    on_certificate: Callable[[CurvePoint], None] | None,
) -> Exploitability:
    """The certificate of the solver's average strategies, added to ``progress`` (its
    seconds, a point of the curve passed to ``on_certificate``) and offered to ``run``
    (a tie goes to the later, longer-run strategies)."""
    t2 = time.perf_counter()
    on_device = solver.device_behaviors()
    # the best responses by the solver's own two matrices, where the solver runs: one
    # iteration's cost, where a pass over every payoff entry of the sequence form costs
    # ten or more; only the strategies come back
    cert = saddle_point_exploitability(solver.times, solver.times_transposed, solver.placed, on_device, constant)
    behaviors = [solver.ops.numpy(b) for b in on_device]
    progress.certifying += time.perf_counter() - t2
    point = CurvePoint(
        iterations=solver.iterations,
        seconds=progress.solving,
        exploitability=float(cert.exploitability),
        proven_bound=solver.gap_bound / 2 if isinstance(solver, MirrorProxSolver) else None,
    )
    progress.curve.append(point)
    if on_certificate is not None:
        on_certificate(point)
    run.keep((behaviors, cert), cert.exploitability, ties_to_later=True)
    return cert


def _problem_sizes(solver: SaddlePointSolver) -> dict:
    """Both players' sequence counts, the payoff matrix's nonzeros and the iterations run."""
    return {
        "sequences": [tp.num_sequences for tp in solver.treeplexes],
        "nonzeros": solver.payoff.nonzeros,
        "iterations": solver.iterations,
        "device": solver.ops.device,
    }


__all__ = ["CERTIFY_GROWTH", "solve_first_order", "treeplexes"]
