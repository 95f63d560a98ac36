"""The sequence-form LP route: a two-player zero-sum game in, an equilibrium with its
certificate out.

:func:`solve_sequence_form` is the LP core shared by every route that solves a sequence
form (the full game here, GameShrink's shrunk game in :mod:`equilibria.routes.shrink`): build the
LP, solve it (anytime with a time limit or a target exploitability), read both players'
strategies and certify them. :func:`solve_game` is the full-game route.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..core.answer import Answer
from ..core.skeleton import Outcome, Steps
from ..formulations import equilibrium_behaviors, sequence_form_lp
from ..formulations.linear_program import LinearProgram
from ..formulations.sequence_form_lp import check_two_player_zero_sum
from ..models import checks
from ..models.best_response import Exploitability, certify, saddle_point_exploitability
from ..models.efg import ExtensiveGame
from ..models.errors import SolveFailed, SolverError
from ..models.progress import stage
from ..models.sequence import SequenceForm
from ..models.strategy import realization_from_behavior
from ..models.treeplex import Treeplex
from ..solvers import AUTO, Solution, Status, choose_backend, get_backend, solve
from ..solvers.first_order import ALGORITHMS, MirrorProxSolver, make_solver
from .options import LPOptions

_log = logging.getLogger(__name__)

#: IPM optimality tolerances tried in turn by the anytime solve (crossover only on the last).
ANYTIME_TOLERANCES = (1e-2, 1e-4, 1e-6, 1e-8)


@dataclass
class LPRun:
    """One solved sequence-form LP: the LP, both players' behaviour strategies on the
    solved sequence form, their certificate there, the value and the solver's reports."""

    lp: LinearProgram | None  # None when a first-order algorithm solved the saddle point
    behaviors: list[np.ndarray]
    certificate: Exploitability
    status: Status
    value: float
    backend: str | None  # None for a first-order algorithm: no solver behind it
    method: str | None
    solutions: list[Solution] = field(default_factory=list)
    attempts: list[dict] = field(default_factory=list)
    curve: list[dict] = field(default_factory=list)
    problem_sizes: dict = field(default_factory=dict)
    dominance: dict = field(default_factory=dict)
    algorithm: str = "lp"
    plan: list[str] = field(default_factory=list)  # what backend="auto" chose, and why

    def answer_fields(self) -> dict[str, Any]:
        """What an answer takes from the run: status, backend or algorithm, the value, the
        program's size and the anytime or first-order record."""
        return {
            "status": self.status,
            "backend": self.backend,
            "algorithm": self.algorithm,
            "method": self.method,
            "value": self.value,
            "sizes": self.sizes,
            "attempts": self.attempts,
            "curve": self.curve,
            "dominance": self.dominance,
            "plan": self.plan,
        }

    @property
    def sizes(self) -> dict:
        """Rows, columns and nonzeros of player 1's LP (for a first-order algorithm: the
        players' sequences and the payoff matrix's nonzeros)."""
        if self.lp is None:
            return dict(self.problem_sizes)
        return {"rows": self.lp.num_rows, "columns": self.lp.num_cols, "nonzeros": self.lp.nnz}


def _add_seconds(times: dict, sol: Solution) -> None:
    for key, value in sol.seconds.items():
        times[key] = times.get(key, 0.0) + value


def solve_sequence_form(
    sf: SequenceForm,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    target_exploitability: float | None = None,
    verbose: bool = False,
    both_lps: bool = False,
    times: dict | None = None,
    lp: LinearProgram | None = None,
    algorithm: str = "lp",
    iterations: int | None = None,
    eliminate_dominated: bool = False,
) -> LPRun:
    """Solve the sequence-form LP of ``sf`` (two players, zero-sum) and certify the result.

    Player 1's LP is solved; player 2's strategy comes from its duals, or from player 2's
    own LP when the backend returns no duals or ``both_lps`` is set. With ``time_limit`` or
    ``target_exploitability`` on HiGHS the solve is anytime: the interior-point method runs
    with the tolerances :data:`ANYTIME_TOLERANCES` in turn, each result is certified, and
    the best strategies so far are returned when the target is met or the time is up
    (status ``target_reached`` or ``time_limit``). Stage times (seconds) are added to
    ``times``; ``lp`` is player 1's LP when the caller has built it already. Raises
    SolveFailed when no strategies could be obtained, or when the backend calls a solution
    optimal whose strategies the exact certificate rejects (exploitability above
    :func:`optimality_tolerance`) even after player 2's own LP was solved.

    ``algorithm`` other than ``"lp"`` solves the saddle point ``max_x min_y x'Ay`` by a
    first-order method instead (:data:`~equilibria.solvers.first_order.ALGORITHMS`:
    ``cfr+``, ``dcfr``, ``mirror-prox``), no LP built: see :func:`solve_first_order`.

    ``eliminate_dominated`` first removes dominated actions
    (:func:`~equilibria.models.dominance.eliminate_dominated`), solves the reduced game,
    lifts its strategies back (removed actions never played) and certifies them on ``sf``;
    ``LPRun.dominance`` gives the LP's rows and columns before and after. A given ``lp``
    is then not used.
    """
    checks.name("backend", backend, optional=False)
    checks.name("method", method)
    checks.number("time_limit", time_limit, strict=True)
    checks.number("target_exploitability", target_exploitability)
    if eliminate_dominated:
        return _solve_without_dominated(
            sf,
            backend,
            times if times is not None else {},
            method=method,
            time_limit=time_limit,
            target_exploitability=target_exploitability,
            verbose=verbose,
            both_lps=both_lps,
            algorithm=algorithm,
            iterations=iterations,
        )
    if algorithm != "lp":
        return solve_first_order(
            sf,
            algorithm,
            time_limit=time_limit,
            target_exploitability=target_exploitability,
            iterations=iterations,
            times=times,
        )
    if iterations is not None:
        raise checks.OptionError(
            "iterations applies to a first-order algorithm (cfr+, pcfr+, dcfr, mirror-prox), not the LP"
        )
    chosen = backend == AUTO
    if not chosen:
        get_backend(backend)  # an unknown backend is bad input: say so before any work starts
    times = times if times is not None else {}
    if lp is None:
        t0 = time.perf_counter()
        with stage("building the sequence-form LP"):
            lp = sequence_form_lp(sf, 0)
        times["lp_build"] = times.get("lp_build", 0.0) + time.perf_counter() - t0
    anytime = time_limit is not None or target_exploitability is not None
    plan: list[str] = []
    if chosen:
        backend, why = _auto_backend(lp, method, anytime)
        plan.append(f"backend {backend}: {why}")
    if backend == "highs" and anytime:
        return _solve_anytime(sf, lp, method, time_limit, target_exploitability, verbose, times, plan)
    with stage(f"solving the LP ({lp.num_rows:,} rows, {lp.nnz:,} nonzeros) with {backend}"):
        sol = solve(lp, backend, method=method, time_limit=time_limit, verbose=verbose)
    if chosen and sol.x is None and backend != "highs":
        _add_seconds(times, sol)
        plan.append(f"{backend} stopped with status {sol.status} ({sol.message}); solved again by HiGHS")
        backend = "highs"
        with stage(f"solving the LP ({lp.num_rows:,} rows, {lp.nnz:,} nonzeros) with {backend}"):
            sol = solve(lp, backend, method=method, time_limit=time_limit, verbose=verbose)
    if sol.x is None:
        largest = float(np.abs(sf.terminal_payoffs).max(initial=0.0))
        hint = (
            f"; payoffs up to {largest:.3g} are beyond what floating-point LP solvers resolve: rescale them"
            if largest > 1e9
            else ""
        )
        failure = SolverError if hint else SolveFailed  # payoffs out of range are the input's fault
        raise failure(f"backend {backend} returned no solution (status {sol.status}: {sol.message}){hint}")
    _add_seconds(times, sol)
    solutions = [sol]
    tolerance = optimality_tolerance(sf)
    t1 = time.perf_counter()
    behaviors = cert = None
    if sol.row_duals is not None and not both_lps:
        behaviors = equilibrium_behaviors(sf, lp, sol.x, sol.row_duals)
        with stage("certifying by exact best responses"):
            cert = certify(sf, behaviors)
        if sol.status == Status.OPTIMAL and cert.exploitability > tolerance:
            # a backend's duals can be wrong while its primal is right (SCIP's on some
            # games with chance at the root): player 2's own LP does not depend on them
            plan.append(
                f"player 2 from its own LP: {backend}'s duals gave exploitability "
                f"{cert.exploitability:.3e} (tolerance {tolerance:.1e})"
            )
            behaviors = cert = None
    if behaviors is None:
        lp2, sol2 = _player_two_lp(sf, backend, times, method=method, time_limit=time_limit, verbose=verbose)
        solutions.append(sol2)
        t1 = time.perf_counter()
        behaviors = equilibrium_behaviors(sf, lp, sol.x, opponent_lp=lp2, opponent_x=sol2.x)
        with stage("certifying by exact best responses"):
            cert = certify(sf, behaviors)
    assert cert is not None
    times["certify"] = times.get("certify", 0.0) + time.perf_counter() - t1
    # both players' LPs: the answer is as good as the worse of the two runs
    status = next((s.status for s in solutions if s.status != Status.OPTIMAL), Status.OPTIMAL)
    if status == Status.OPTIMAL and cert.exploitability > tolerance:
        raise SolveFailed(
            f"backend {backend} called its solution optimal, but the strategies read from it are "
            f"{cert.exploitability:.3e} exploitable (tolerance {tolerance:.1e}): no equilibrium; "
            "try another backend or method"
        )
    return _run(lp, sol, status, behaviors, cert, solutions, [], plan)


def _player_two_lp(
    sf: SequenceForm, backend: str, times: dict, *, method: str | None, time_limit: float | None, verbose: bool
) -> tuple[LinearProgram, Solution]:
    """Player 2's own sequence-form LP, built and solved (its stage times added to
    ``times``); SolveFailed when the backend returns no solution."""
    t0 = time.perf_counter()
    lp2 = sequence_form_lp(sf, 1)
    times["lp_build"] = times.get("lp_build", 0.0) + time.perf_counter() - t0
    with stage(f"solving player 2's LP with {backend}"):
        sol2 = solve(lp2, backend, method=method, time_limit=time_limit, verbose=verbose)
    if sol2.x is None:
        raise SolveFailed(f"backend {backend} returned no solution for player 2 (status {sol2.status})")
    _add_seconds(times, sol2)
    return lp2, sol2


#: Largest exploitability, relative to the largest payoff (at least 1), of strategies
#: that an LP backend's optimal solution may give: above it the answer is no equilibrium.
OPTIMALITY_TOLERANCE = 1e-9


def optimality_tolerance(sf: SequenceForm) -> float:
    """The exploitability above which strategies from an "optimal" LP solution are
    rejected: :data:`OPTIMALITY_TOLERANCE` times the largest payoff (at least 1), since a
    floating-point solver resolves payoffs relative to their size."""
    largest = float(np.abs(sf.terminal_payoffs).max(initial=0.0))
    return OPTIMALITY_TOLERANCE * max(1.0, largest)


def _auto_backend(lp: LinearProgram, method: str | None, anytime: bool) -> tuple[str, str]:
    """The backend for ``backend="auto"`` and why: HiGHS when a HiGHS method is named or
    the solve is anytime (its interior point certifies at each tolerance), else the rule
    on the LP's size (:func:`~equilibria.solvers.choose_backend`)."""
    if method is not None:
        return "highs", f"method {method} is HiGHS's"
    if anytime:
        return "highs", "a time limit or target: HiGHS's interior point, certified at each tolerance"
    return choose_backend(lp)


def _solve_without_dominated(sf: SequenceForm, backend: str, times: dict, **options: Any) -> LPRun:
    from ..models.dominance import eliminate_dominated

    if options["algorithm"] == "lp" and backend != AUTO:
        get_backend(backend)
    t0 = time.perf_counter()
    with stage("eliminating dominated actions"):
        reduced = eliminate_dominated(sf)
    times["dominance"] = times.get("dominance", 0.0) + time.perf_counter() - t0
    run = solve_sequence_form(reduced.sequence_form, backend, times=times, **options)
    t1 = time.perf_counter()
    with stage("lifting and certifying in the unreduced game"):
        run.behaviors = reduced.lift(run.behaviors)
        run.certificate = certify(sf, run.behaviors)
    times["certify"] = times.get("certify", 0.0) + time.perf_counter() - t1
    if run.status != "optimal":
        run.value = float(run.certificate.payoffs[0])
    run.dominance = reduced.report()
    return run


def _run(
    lp: LinearProgram,
    sol: Solution,
    status: Status,
    behaviors: list[np.ndarray],
    cert: Exploitability,
    solutions: list[Solution],
    attempts: list[dict],
    plan: list[str] | None = None,
) -> LPRun:
    # an LP objective is a game value only at an optimum; otherwise report the profile's
    # own payoff, which lies inside the certified bounds
    # (an optimal solution carries its objective)
    value = float(cast(float, sol.objective)) if sol.status == "optimal" else float(cert.payoffs[0])
    return LPRun(lp, behaviors, cert, status, value, sol.backend, sol.method, solutions, attempts, plan=plan or [])


def _solve_anytime(
    sf: SequenceForm,
    lp: LinearProgram,
    method: str | None,
    time_limit: float | None,
    target: float | None,
    verbose: bool,
    times: dict,
    plan: list[str] | None = None,
) -> LPRun:
    start = time.perf_counter()
    best = None
    attempts: list[dict] = []
    status = Status.OPTIMAL
    for i, tol in enumerate(ANYTIME_TOLERANCES):
        last = i == len(ANYTIME_TOLERANCES) - 1
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if remaining is not None and remaining <= 0:
            status = Status.TIME_LIMIT
            break
        options = {"ipm_optimality_tolerance": tol, "run_crossover": "on" if last else "off"}
        sol = solve(
            lp,
            "highs",
            method=method if method not in (None, "concurrent") else "ipx",
            time_limit=remaining,
            verbose=verbose,
            options=options,
        )
        _add_seconds(times, sol)
        if sol.x is None or sol.row_duals is None:
            status = sol.status if sol.status != Status.OPTIMAL else Status.UNKNOWN
            attempts.append({"tolerance": tol, "status": str(sol.status), "seconds": sum(sol.seconds.values())})
            break
        t = time.perf_counter()
        behaviors = equilibrium_behaviors(sf, lp, sol.x, sol.row_duals)
        cert = certify(sf, behaviors)
        times["certify"] = times.get("certify", 0.0) + time.perf_counter() - t
        attempts.append(
            {
                "tolerance": tol,
                "status": str(sol.status),
                "seconds": sum(sol.seconds.values()),
                "exploitability": cert.exploitability,
            }
        )
        if best is None or cert.exploitability < best[2].exploitability:
            best = (sol, behaviors, cert)
        exact = sol.status == Status.OPTIMAL and cert.exploitability <= optimality_tolerance(sf)
        if target is not None and cert.exploitability <= target:
            # an interior point stopped at a loose tolerance calls its point optimal: the
            # answer is an equilibrium only if the certificate says so
            status = Status.OPTIMAL if exact else Status.TARGET_REACHED
            break
        status = sol.status
    if best is None:
        raise SolveFailed(f"no strategies within the limits (status {status}); allow more time")
    sol, behaviors, cert = best
    if status == Status.OPTIMAL and cert.exploitability > optimality_tolerance(sf):
        raise SolveFailed(
            f"HiGHS called its solution optimal, but the strategies read from it are {cert.exploitability:.3e} "
            f"exploitable (tolerance {optimality_tolerance(sf):.1e}): no equilibrium; try another method"
        )
    return _run(lp, sol, status, behaviors, cert, [sol], attempts, plan)


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
PAPER_RHODE_ISLAND_DOMINANCE = (1_190_443, 1_181_084)


def dominance_lines(d: dict, game_name: str) -> list[str]:
    """What removing dominated actions did to the LP (``ReducedGame.report()``)."""
    lines = [
        f"dominated        removed: LP rows {d['rows_before']:,} -> {d['rows_after']:,}, "
        f"columns {d['columns_before']:,} -> {d['columns_after']:,} ({d['passes']} passes)"
    ]
    if game_name == "rhode_island":
        rows, cols = PAPER_RHODE_ISLAND_DOMINANCE
        paper = f"Gilpin and Sandholm (2007): {rows:,} rows, {cols:,} columns after their elimination"
        lines.append(f"                 {paper}")
    return lines


def solved_lines(answer: Any) -> list[str]:
    """A sequence-form answer's lines after its header: the certificate, the iterations of
    a first-order method or the LP's size, dominated actions removed, the seconds."""
    lines = answer.certificate_lines()
    if answer.curve:
        last = answer.curve[-1]
        bound = f"; proven exploitability bound {last['proven_bound']:.3e}" if "proven_bound" in last else ""
        runs = f"{last['iterations']:,} in {last['seconds']:.2f} s, certified {len(answer.curve)} times"
        lines.append(f"iterations      {runs}{bound}")
        seqs = answer.sizes["sequences"]
        lines.append(
            f"saddle point    {seqs[0]:,} x {seqs[1]:,} sequences, {answer.nonzeros:,} payoff nonzeros (no LP built)"
        )
    else:
        lines.append(f"LP              {answer.rows} rows, {answer.columns} columns, {answer.nonzeros} nonzeros")
    if answer.dominance:
        lines.extend(dominance_lines(answer.dominance, answer.game_name))
    lines.append(answer.seconds_line())
    return lines


@dataclass(kw_only=True)
class GameSolution(Answer):
    """An equilibrium of a two-player zero-sum game from the full sequence-form LP.

    ``value`` is player 1's LP value (at a non-optimal stop: the payoff of the returned
    profile); the certificate comes from exact best responses (exploitability is the mean
    over players of best-response value minus own payoff, OpenSpiel's convention).
    ``seconds`` splits wall time into ``game``, ``sequence_form``, ``lp_build``, the
    backend's ``build``/``transfer``/``solve`` and ``certify``; ``attempts`` lists the
    anytime solve's tolerance ladder.
    """

    game: ExtensiveGame
    value: float
    sequence_form: SequenceForm
    behaviors: list[np.ndarray]
    certificate: Exploitability
    solutions: list[Solution] = field(default_factory=list)
    attempts: list[dict] = field(default_factory=list)
    curve: list[dict] = field(default_factory=list)
    dominance: dict = field(default_factory=dict)

    @property
    def realization_plans(self) -> list[np.ndarray]:
        """Both players' realization plans (from the behaviour strategies)."""
        return [realization_from_behavior(ps, b) for ps, b in zip(self.sequence_form.players, self.behaviors)]

    def details(self) -> dict:
        """The anytime solve's attempts (LP) or certified curve (first-order algorithm)."""
        return {"attempts": self.attempts, "curve": self.curve, "dominance": self.dominance}

    def report_lines(self) -> list[str]:
        """The answer as ``equilibria solve`` prints it."""
        return [f"game            {self.game_name}", *solved_lines(self)]


class SequenceFormLP(Steps):
    """The ``lp`` route: the sequence form of the full game, then its LP (or a first-order
    method), certified in the game itself."""

    Options = LPOptions
    build_key = "sequence_form"
    build_message = "building the sequence form"

    def build(self, view: ExtensiveGame, options: LPOptions) -> tuple[SequenceForm, float]:
        sf = SequenceForm(view)
        what = "the sequence-form LP" if options.algorithm == "lp" else options.algorithm
        return sf, check_two_player_zero_sum(sf, what)

    def solve(self, problem: tuple[SequenceForm, float], options: LPOptions, deadline: float | None) -> Outcome:
        sf, constant = problem
        times: dict[str, float] = {}
        left = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        rest = {k: v for k, v in vars(options).items() if k not in ("backend", "time_limit")}
        run = solve_sequence_form(sf, options.backend, time_limit=left, times=times, **rest)
        return Outcome(
            status=run.status,
            backend=run.backend,
            method=run.method,
            behaviors=run.behaviors,
            sequence_form=sf,
            value=run.value,
            certificate=run.certificate,
            sizes=run.sizes,
            seconds=times,
            details={"run": run, "payoff_sum": constant},
        )

    def answer(self, name: str, outcome: Outcome, options: LPOptions) -> GameSolution:
        run = outcome.details["run"]
        sf = cast(SequenceForm, outcome.sequence_form)
        return GameSolution(
            route=name,
            game_name=sf.game.title or "game",
            **run.answer_fields(),
            certificate=run.certificate,
            sequence_form=sf,
            behaviors=run.behaviors,
            game=sf.game,
            solutions=run.solutions,
            payoff_sum=outcome.details["payoff_sum"],
        )


def solve_game(game: Any, backend: str = "highs", **options: Any) -> GameSolution:
    """Solve a two-player zero-sum game by its sequence-form LP and certify the result: the
    ``lp`` route (:class:`SequenceFormLP`) through the route skeleton.

    ``game`` is an ExtensiveGame or anything the game registry resolves (a name such as
    ``"leduc:ranks=4"``, a ``.efg`` path, ``openspiel:GAME``). ``options`` are those of
    :class:`LPOptions` (``method``, ``time_limit``, ``target_exploitability``, ``verbose``,
    ``both_lps``, ``algorithm``, ``iterations``, ``eliminate_dominated``; see
    :func:`solve_sequence_form`), checked before any work: ``algorithm`` ``cfr+``, ``dcfr``
    or ``mirror-prox`` solves by a first-order method instead of the LP
    (:func:`solve_first_order`).
    """
    from ..core.skeleton import solve

    return cast(GameSolution, solve(game, "lp", backend=backend, **options))


__all__ = [
    "ANYTIME_TOLERANCES",
    "GameSolution",
    "LPOptions",
    "SequenceFormLP",
    "LPRun",
    "OPTIMALITY_TOLERANCE",
    "optimality_tolerance",
    "solve_first_order",
    "solve_game",
    "solve_sequence_form",
    "treeplexes",
]
