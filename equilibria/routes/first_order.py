"""First-order methods on the saddle point of a two-player zero-sum game's sequence form
(CFR+, predictive CFR+, discounted CFR, mirror prox): anytime, certified as they go, no LP
built."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

import numpy as np

from ..formulations.sequence_form_lp import check_two_player_zero_sum
from ..models import checks
from ..models.best_response import Exploitability, saddle_point_exploitability
from ..models.progress import stage
from ..models.sequence import SequenceForm
from ..models.treeplex import Treeplex
from ..solvers import Status
from ..solvers.first_order import ALGORITHMS, MirrorProxSolver, make_solver
from .run import LPRun

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


def _out_of_reach(curve: list[dict], target: float | None) -> bool:
    """True when, at the rate of the certificates' last :data:`STALL_SPAN`-fold of
    iterations (exploitability ~ iterations**-rate), ``target`` needs more than
    :data:`STALL_FACTOR` times the iterations run so far."""
    if target is None or not curve:
        return False
    now = curve[-1]
    earlier = [p for p in curve if p["iterations"] * STALL_SPAN <= now["iterations"]]
    if not earlier:
        return False
    best_now = min(p["exploitability"] for p in curve)
    best_then = min(p["exploitability"] for p in earlier)
    if best_now <= target:
        return False
    if best_now >= best_then:
        return True  # no progress at all over the span
    rate = math.log(best_then / best_now) / math.log(now["iterations"] / earlier[-1]["iterations"])
    return (best_now / target) ** (1.0 / rate) > STALL_FACTOR


def solve_first_order(
    sf: SequenceForm,
    algorithm: str,
    *,
    time_limit: float | None = None,
    target_exploitability: float | None = None,
    iterations: int | None = None,
    times: dict | None = None,
    on_certificate: Callable[[dict], None] | None = None,
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
    ``LPRun.curve`` lists each certificate: iterations, seconds, exploitability (and for
    mirror-prox the proven bound on the exploitability, half its bound on the duality gap);
    ``on_certificate`` is called with each entry as it is made (to save a long run's curve).
    """
    checks.number("time_limit", time_limit, strict=True)
    checks.number("target_exploitability", target_exploitability)
    if iterations is not None:
        iterations = checks.count("iterations", iterations)
    if algorithm not in ALGORITHMS:
        raise checks.OptionError(f"algorithm must be lp or one of {', '.join(ALGORITHMS)}, not {algorithm!r}")
    if time_limit is None and target_exploitability is None and iterations is None:
        raise checks.OptionError(
            f"{algorithm} runs until a target exploitability, a time limit or an iteration count: give one"
        )
    constant = check_two_player_zero_sum(sf, algorithm)
    times = times if times is not None else {}
    t0 = time.perf_counter()
    with stage(f"building the payoff matrix for {algorithm}"):
        solver = make_solver(algorithm, sf.payoff_matrix(0), treeplexes(sf))
    times["build"] = times.get("build", 0.0) + time.perf_counter() - t0
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    solving = certifying = 0.0
    curve: list[dict] = []
    best: tuple[list[np.ndarray], Exploitability] | None = None
    status = Status.ITERATION_LIMIT
    next_check = 1
    last_told = start
    with stage(f"iterating {algorithm}"):
        try:
            while True:
                t1 = time.perf_counter()
                out_of_time = False
                while solver.iterations < next_check and (iterations is None or solver.iterations < iterations):
                    solver.iterate(1)
                    if deadline is not None and time.perf_counter() >= deadline:
                        out_of_time = True
                        break
                t2 = time.perf_counter()
                solving += t2 - t1
                behaviors = solver.average_behaviors()
                # the best responses by the solver's own two matrices: one iteration's cost,
                # where a pass over every payoff entry of the sequence form costs ten or more
                cert = saddle_point_exploitability(
                    solver.times, solver.times_transposed, solver.treeplexes, behaviors, constant
                )
                certifying += time.perf_counter() - t2
                point = {
                    "iterations": solver.iterations,
                    "seconds": solving,
                    "exploitability": float(cert.exploitability),
                }
                if isinstance(solver, MirrorProxSolver):
                    point["proven_bound"] = solver.gap_bound / 2
                curve.append(point)
                if on_certificate is not None:
                    on_certificate(point)
                if best is None or cert.exploitability <= best[1].exploitability:
                    best = (behaviors, cert)
                now = time.perf_counter()
                if now - last_told >= 10.0:
                    _log.info(
                        "%s: %s iterations, exploitability %.3e after %.0f s",
                        algorithm,
                        f"{solver.iterations:,}",
                        cert.exploitability,
                        now - start,
                    )
                    last_told = now
                if target_exploitability is not None and cert.exploitability <= target_exploitability:
                    status = Status.TARGET_REACHED
                    break
                if out_of_time or (deadline is not None and now >= deadline):
                    status = Status.TIME_LIMIT
                    break
                if iterations is not None and solver.iterations >= iterations:
                    break
                if solver.iterations >= STALL_AFTER and _out_of_reach(curve, target_exploitability):
                    # at the rate of the last iterations the target would take more than
                    # STALL_FACTOR times as many: it is below what the method reaches here (or
                    # what floating point resolves), and waiting for it would never end
                    status = Status.STALLED
                    break
                next_check = max(solver.iterations + 1, int(solver.iterations * CERTIFY_GROWTH))
        except KeyboardInterrupt:
            if best is None:
                raise
            # the strategies certified so far are an answer: the caller shows it, then
            # ends as an interrupt does
            status = Status.INTERRUPTED
    times["solve"] = times.get("solve", 0.0) + solving
    times["certify"] = times.get("certify", 0.0) + certifying
    behaviors, cert = best
    sizes = {
        "sequences": [tp.num_sequences for tp in solver.treeplexes],
        "nonzeros": int(solver.A.nnz),
        "iterations": solver.iterations,
    }
    return LPRun(
        None,
        behaviors,
        cert,
        status,
        float(cert.payoffs[0]),
        None,
        None,
        curve=curve,
        problem_sizes=sizes,
        algorithm=algorithm,
    )


#: Gilpin and Sandholm's LP for Rhode Island hold'em after GameShrink and iterated
#: elimination of dominated strategies ("Lossless abstraction of imperfect information
#: games", 2007, section 1.3), printed beside ours.


__all__ = ["CERTIFY_GROWTH", "solve_first_order", "treeplexes"]
