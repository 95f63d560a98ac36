"""The sequence-form LP route: a two-player zero-sum game in, an equilibrium with its
certificate out.

:func:`solve_sequence_form` is the LP core shared by every route that solves a sequence
form (the full game here, GameShrink's shrunk game in :mod:`equilibria.routes.shrink`): build the
LP, solve it (anytime with a time limit or a target exploitability), read both players'
strategies and certify them. :func:`solve_game` is the full-game route.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from ..core.answer import Answer
from ..core.anytime import Anytime
from ..core.skeleton import Outcome, Steps
from ..formulations import equilibrium_behaviors, sequence_form_lp
from ..formulations.linear_program import LinearProgram
from ..formulations.sequence_form_lp import check_two_player_zero_sum
from ..models import checks
from ..models.best_response import Exploitability, certify
from ..models.efg import ExtensiveGame
from ..models.errors import SolveFailed, SolverError
from ..models.progress import stage
from ..models.sequence import SequenceForm
from ..models.strategy import realization_from_behavior
from ..solvers import AUTO, Solution, Status, choose_backend, get_backend, solve
from .first_order import solve_first_order, treeplexes
from .options import LPOptions
from .refinement import refined_run
from .run import Attempt, CurvePoint, LPRun
from .selection import select_equilibrium

_log = logging.getLogger(__name__)

#: IPM optimality tolerances tried in turn by the anytime solve (crossover only on the last).
ANYTIME_TOLERANCES = (1e-2, 1e-4, 1e-6, 1e-8)


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
    device: str = "auto",
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

    ``algorithm`` ``double-oracle`` grows restricted LPs; a first-order method
    (:func:`solve_first_order`, its arrays on ``device``) builds no LP.

    ``eliminate_dominated`` removes dominated actions first, solves the reduced game and
    certifies its strategies, lifted back, on ``sf`` (``LPRun.dominance``: the LP's size
    before and after; a given ``lp`` is then not used).
    """
    _check_options(backend, method, time_limit, target_exploitability)
    times = times if times is not None else {}
    if eliminate_dominated:
        return _solve_without_dominated(
            sf,
            backend,
            times,
            method=method,
            time_limit=time_limit,
            target_exploitability=target_exploitability,
            verbose=verbose,
            both_lps=both_lps,
            algorithm=algorithm,
            iterations=iterations,
            device=device,
        )
    if algorithm == "double-oracle":
        return _solve_by_double_oracle(
            sf,
            backend,
            method=method,
            time_limit=time_limit,
            target_exploitability=target_exploitability,
            iterations=iterations,
            verbose=verbose,
            times=times,
        )
    if algorithm != "lp":
        return solve_first_order(
            sf,
            algorithm,
            time_limit=time_limit,
            target_exploitability=target_exploitability,
            iterations=iterations,
            times=times,
            device=device,
        )
    if iterations is not None:
        raise checks.OptionError(
            "iterations applies to a first-order algorithm (cfr+, pcfr+, dcfr, mirror-prox), not the LP"
        )
    chosen = backend == AUTO
    if not chosen:
        get_backend(backend)  # an unknown backend is bad input: say so before any work starts
    if chosen and lp is None and method is None and not both_lps and lp_out_of_reach(sf):
        return _first_order_instead(sf, time_limit, target_exploitability, times, device)
    if lp is None:
        lp = _build_lp(sf, times)
    anytime = time_limit is not None or target_exploitability is not None
    plan: list[str] = []
    if chosen:
        backend, why = _auto_backend(lp, method, anytime)
        plan.append(f"backend {backend}: {why}")
    if backend == "highs" and anytime:
        return _solve_anytime(sf, lp, method, time_limit, target_exploitability, verbose, times, plan)
    call, sol = _solve_plain(lp, _BackendCall(backend, method, time_limit, verbose), chosen, times, plan)
    x = _primal(sf, call.backend, sol)
    _add_seconds(times, sol)
    tolerance = optimality_tolerance(sf)
    behaviors, cert, solutions = _read_strategies(
        sf, lp, sol, x, call, both_lps=both_lps, tolerance=tolerance, times=times, plan=plan
    )
    status = _certified_status(solutions, cert, call.backend, tolerance)
    return _run(lp, sol, status, behaviors, cert, solutions, [], plan)


def _check_options(backend: str, method: str | None, time_limit: float | None, target: float | None) -> None:
    """Returns None; raises OptionError, before any work starts, when an option of
    :func:`solve_sequence_form` has the wrong type or range."""
    checks.name("backend", backend, optional=False)
    checks.name("method", method)
    checks.number("time_limit", time_limit, strict=True)
    checks.number("target_exploitability", target)


def _solve_by_double_oracle(
    sf: SequenceForm,
    backend: str,
    *,
    method: str | None,
    time_limit: float | None,
    target_exploitability: float | None,
    iterations: int | None,
    verbose: bool,
    times: dict,
) -> LPRun:
    """The double oracle on ``sf`` (:func:`equilibria.routes.double_oracle.double_oracle`),
    its best certified pair as a run of the LP family; ``auto`` runs its LPs on HiGHS."""
    from .double_oracle import double_oracle

    backend = "highs" if backend == AUTO else backend
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    run = double_oracle(
        sf,
        backend,
        method=method,
        target_exploitability=target_exploitability,
        iterations=iterations,
        deadline=deadline,
        verbose=verbose,
    )
    times["solve"] = times.get("solve", 0.0) + time.perf_counter() - t0
    last = run.history[-1]
    return LPRun(
        None,
        run.behaviors,
        run.certificate,
        run.status,
        float(run.certificate.payoffs[0]),
        backend,
        method,
        curve=[CurvePoint(it.iteration, it.seconds, it.exploitability) for it in run.history],
        problem_sizes=dict(zip(("rows", "columns", "nonzeros"), last.lp)),
        algorithm="double-oracle",
    )


def _build_lp(sf: SequenceForm, times: dict) -> LinearProgram:
    """Player 1's sequence-form LP, its build time added to ``times["lp_build"]``."""
    t0 = time.perf_counter()
    with stage("building the sequence-form LP"):
        lp = sequence_form_lp(sf, 0)
    times["lp_build"] = times.get("lp_build", 0.0) + time.perf_counter() - t0
    return lp


@dataclass(frozen=True)
class _BackendCall:
    """A backend and the options that every LP of one solve is passed to it with."""

    backend: str
    method: str | None
    time_limit: float | None
    verbose: bool

    def solve(self, lp: LinearProgram, what: str) -> Solution:
        """The backend's solution of ``lp``, under a progress stage that names it ``what``."""
        with stage(f"solving {what} with {self.backend}"):
            return solve(lp, self.backend, method=self.method, time_limit=self.time_limit, verbose=self.verbose)


def _lp_size(lp: LinearProgram) -> str:
    """The LP named by its size, for progress stages."""
    return f"the LP ({lp.num_rows:,} rows, {lp.nnz:,} nonzeros)"


def _solve_plain(
    lp: LinearProgram, call: _BackendCall, chosen: bool, times: dict, plan: list[str]
) -> tuple[_BackendCall, Solution]:
    """Player 1's LP solved once (no tolerance ladder): the call that solved it and its
    solution. A backend chosen by ``backend="auto"`` that returns no solution is followed by
    HiGHS (said in ``plan``; the first try's seconds added to ``times``)."""
    sol = call.solve(lp, _lp_size(lp))
    if chosen and sol.x is None and call.backend != "highs":
        _add_seconds(times, sol)
        plan.append(f"{call.backend} stopped with status {sol.status} ({sol.message}); solved again by HiGHS")
        call = replace(call, backend="highs")
        sol = call.solve(lp, _lp_size(lp))
    return call, sol


def _primal(sf: SequenceForm, backend: str, sol: Solution) -> np.ndarray:
    """The primal solution ``sol.x``. Without one: SolverError when the payoffs are too large
    for a floating-point LP solver (the input's fault, with a hint to rescale), else
    SolveFailed."""
    if sol.x is not None:
        return sol.x
    largest = float(np.abs(sf.terminal_payoffs).max(initial=0.0))
    hint = (
        f"; payoffs up to {largest:.3g} are beyond what floating-point LP solvers resolve: rescale them"
        if largest > 1e9
        else ""
    )
    failure = SolverError if hint else SolveFailed  # payoffs out of range are the input's fault
    raise failure(f"backend {backend} returned no solution (status {sol.status}: {sol.message}){hint}")


def _certified(sf: SequenceForm, behaviors: list[np.ndarray]) -> Exploitability:
    """The exact best-response certificate of ``behaviors``, under a progress stage."""
    with stage("certifying by exact best responses"):
        return certify(sf, behaviors)


def _read_strategies(
    sf: SequenceForm,
    lp: LinearProgram,
    sol: Solution,
    x: np.ndarray,
    call: _BackendCall,
    *,
    both_lps: bool,
    tolerance: float,
    times: dict,
    plan: list[str],
) -> tuple[list[np.ndarray], Exploitability, list[Solution]]:
    """Both players' behaviour strategies from player 1's solution ``sol`` (primal ``x``),
    their certificate and the solutions they came from (player 1's, then player 2's own
    when solved).

    Player 2 plays the duals unless there are none, ``both_lps`` is set, or they fail the
    certificate of an optimal solution: then player 2's own LP is solved. The time to read
    and certify the strategies kept is added to ``times["certify"]``.
    """
    solutions = [sol]
    t1 = time.perf_counter()
    read = None
    if sol.row_duals is not None and not both_lps:
        behaviors = equilibrium_behaviors(sf, lp, x, sol.row_duals)
        cert = _certified(sf, behaviors)
        if not _duals_rejected(sol, cert, call.backend, tolerance, plan):
            read = behaviors, cert
    if read is None:
        lp2, sol2 = _player_two_lp(sf, call, times)
        solutions.append(sol2)
        t1 = time.perf_counter()
        behaviors = equilibrium_behaviors(sf, lp, x, opponent_lp=lp2, opponent_x=sol2.x)
        read = behaviors, _certified(sf, behaviors)
    times["certify"] = times.get("certify", 0.0) + time.perf_counter() - t1
    return read[0], read[1], solutions


def _duals_rejected(sol: Solution, cert: Exploitability, backend: str, tolerance: float, plan: list[str]) -> bool:
    """True (said in ``plan``) when ``sol`` is called optimal but the strategies read with
    its duals are more than ``tolerance`` exploitable."""
    if sol.status == Status.OPTIMAL and cert.exploitability > tolerance:
        # a backend's duals can be wrong while its primal is right (SCIP's on some
        # games with chance at the root): player 2's own LP does not depend on them
        plan.append(
            f"player 2 from its own LP: {backend}'s duals gave exploitability "
            f"{cert.exploitability:.3e} (tolerance {tolerance:.1e})"
        )
        return True
    return False


def _certified_status(solutions: list[Solution], cert: Exploitability, backend: str, tolerance: float) -> Status:
    """The answer's status: the first non-optimal status among ``solutions``, else optimal.
    SolveFailed when that is optimal but the certificate exceeds ``tolerance``."""
    # both players' LPs: the answer is as good as the worse of the two runs
    status = next((s.status for s in solutions if s.status != Status.OPTIMAL), Status.OPTIMAL)
    if status == Status.OPTIMAL and cert.exploitability > tolerance:
        raise SolveFailed(
            f"backend {backend} called its solution optimal, but the strategies read from it are "
            f"{cert.exploitability:.3e} exploitable (tolerance {tolerance:.1e}): no equilibrium; "
            "try another backend or method"
        )
    return status


def _player_two_lp(sf: SequenceForm, call: _BackendCall, times: dict) -> tuple[LinearProgram, Solution]:
    """Player 2's own sequence-form LP, built and solved (its stage times added to
    ``times``); SolveFailed when the backend returns no solution."""
    t0 = time.perf_counter()
    lp2 = sequence_form_lp(sf, 1)
    times["lp_build"] = times.get("lp_build", 0.0) + time.perf_counter() - t0
    sol2 = call.solve(lp2, "player 2's LP")
    if sol2.x is None:
        raise SolveFailed(f"backend {call.backend} returned no solution for player 2 (status {sol2.status})")
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


#: Payoff entries of a sequence form (about the nonzeros of its LP) beyond which
#: ``backend="auto"`` solves the saddle point by a first-order method instead of the LP.
#: Measured here: the largest LPs solved had 0.75 to 1.5 million nonzeros, in 47 to 54 s
#: (Leduc with 13 ranks on HiGHS's IPX, Rhode Island with 4 ranks and 2 suits on Clarabel);
#: at the interior point's growth of about the 1.5th power a 10 million nonzero LP takes
#: some 15 minutes, where DCFR brings lossless Rhode Island's shrunk game (130.6 million
#: LP nonzeros, 6.9 GB to build the LP alone) to exploitability 1e-3 in 13 minutes and
#: 7.1 GB (``benchmarks/rhode_island_dcfr.csv``).
LP_ENTRY_LIMIT = 10_000_000

#: The first-order method and the exploitability it stops at, without a time limit or a
#: target of the user's, when the LP is out of reach: DCFR reached 1e-3 on Rhode Island
#: 4.4 times sooner than CFR+ (``benchmarks/rhode_island_*.csv``).
FALLBACK_ALGORITHM = "dcfr"
FALLBACK_TARGET = 1e-3


def lp_out_of_reach(sf: SequenceForm) -> bool:
    """True when ``sf``'s LP is beyond :data:`LP_ENTRY_LIMIT` payoff entries."""
    return int(sf.terminal_sequences.shape[0]) > LP_ENTRY_LIMIT


def _first_order_instead(
    sf: SequenceForm, time_limit: float | None, target: float | None, times: dict, device: str
) -> LPRun:
    """``sf`` solved by :data:`FALLBACK_ALGORITHM` for ``backend="auto"`` when its LP is
    out of reach, the reason in the run's plan."""
    entries = int(sf.terminal_sequences.shape[0])
    stop = []
    if target is None and time_limit is None:
        target = FALLBACK_TARGET
        stop.append(f"until exploitability {target:g} (--target-exploitability or --time-limit to choose)")
    run = solve_first_order(
        sf, FALLBACK_ALGORITHM, time_limit=time_limit, target_exploitability=target, times=times, device=device
    )
    run.plan = [
        f"{FALLBACK_ALGORITHM}, not the LP: {entries:,} payoff entries, beyond the {LP_ENTRY_LIMIT:,} an LP "
        "backend solves here in minutes; a first-order method certified as it goes" + (f", {stop[0]}" if stop else "")
    ]
    return run


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
    attempts: list[Attempt],
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
    run: Anytime[tuple[Solution, list[np.ndarray], Exploitability]] = Anytime(
        deadline=None if time_limit is None else time.perf_counter() + time_limit,
        max_rounds=len(ANYTIME_TOLERANCES),
        target=target,
    )
    attempts: list[Attempt] = []
    for index in run.rounds():
        tol = ANYTIME_TOLERANCES[index - 1]
        last = index == len(ANYTIME_TOLERANCES)
        options = {"ipm_optimality_tolerance": tol, "run_crossover": "on" if last else "off"}
        sol = solve(
            lp,
            "highs",
            method=method if method not in (None, "concurrent") else "ipx",
            time_limit=run.time_left(),
            verbose=verbose,
            options=options,
        )
        _add_seconds(times, sol)
        seconds = sum(sol.seconds.values())
        if sol.x is None or sol.row_duals is None:
            attempts.append(Attempt(tol, str(sol.status), seconds))  # no strategies: nothing certified
            run.stop(sol.status if sol.status != Status.OPTIMAL else Status.UNKNOWN)
            break
        t = time.perf_counter()
        behaviors = equilibrium_behaviors(sf, lp, sol.x, sol.row_duals)
        cert = certify(sf, behaviors)
        times["certify"] = times.get("certify", 0.0) + time.perf_counter() - t
        attempts.append(Attempt(tol, str(sol.status), seconds, cert.exploitability))
        run.keep((sol, behaviors, cert), cert.exploitability)
        exact = sol.status == Status.OPTIMAL and cert.exploitability <= optimality_tolerance(sf)
        if run.meets(cert.exploitability):
            # an interior point stopped at a loose tolerance calls its point optimal: the
            # answer is an equilibrium only if the certificate says so
            run.stop(Status.OPTIMAL if exact else Status.TARGET_REACHED)
        elif last:
            run.stop(sol.status)
    (sol, behaviors, cert), status = run.result(
        lambda status: SolveFailed(f"no strategies within the limits (status {status}); allow more time")
    )
    if status == Status.OPTIMAL and cert.exploitability > optimality_tolerance(sf):
        raise SolveFailed(
            f"HiGHS called its solution optimal, but the strategies read from it are {cert.exploitability:.3e} "
            f"exploitable (tolerance {optimality_tolerance(sf):.1e}): no equilibrium; try another method"
        )
    return _run(lp, sol, status, behaviors, cert, [sol], attempts, plan)


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
    if answer.curve and getattr(answer, "algorithm", None) == "double-oracle":
        last = answer.curve[-1]
        lines.append(f"iterations      {last.iterations:,} of the double oracle in {last.seconds:.2f} s")
        lines.append(
            f"restricted LP   {answer.rows} rows, {answer.columns} columns, {answer.nonzeros} nonzeros (the last one)"
        )
    elif answer.curve:
        last = answer.curve[-1]
        bound = f"; proven exploitability bound {last.proven_bound:.3e}" if last.proven_bound is not None else ""
        runs = f"{last.iterations:,} in {last.seconds:.2f} s, certified {len(answer.curve)} times"
        lines.append(f"iterations      {runs}{bound}")
        seqs = answer.sizes["sequences"]
        device = answer.sizes.get("device", "numpy")
        where = "" if device == "numpy" else f", on torch {device}"
        lines.append(
            f"saddle point    {seqs[0]:,} x {seqs[1]:,} sequences, {answer.nonzeros:,} payoff nonzeros "
            f"(no LP built{where})"
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
    attempts: list[Attempt] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)
    dominance: dict = field(default_factory=dict)

    @property
    def realization_plans(self) -> list[np.ndarray]:
        """Both players' realization plans (from the behaviour strategies)."""
        return [realization_from_behavior(ps, b) for ps, b in zip(self.sequence_form.players, self.behaviors)]

    def details(self) -> dict:
        """The anytime solve's attempts (LP) or certified curve (first-order algorithm)."""
        return {
            "attempts": [a.row() for a in self.attempts],
            "curve": [p.row() for p in self.curve],
            "dominance": self.dominance,
        }

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
        own = ("backend", "time_limit", "select", "against", "refine", "perturbation")
        rest = {k: v for k, v in vars(options).items() if k not in own}
        run = solve_sequence_form(sf, options.backend, time_limit=left, times=times, **rest)
        if options.select is not None:
            t0 = time.perf_counter()
            left = None if deadline is None else max(deadline - t0, 1e-3)
            with stage(f"selecting the {options.select} equilibrium on each player's optimal face"):
                run = select_equilibrium(
                    sf,
                    run,
                    options.select,
                    options.against,
                    run.backend or options.backend,
                    constant=constant,
                    game_name=sf.game.title or "game",
                    time_limit=left,
                )
            times["select"] = time.perf_counter() - t0
        if options.refine is not None:
            t0 = time.perf_counter()
            left = None if deadline is None else max(deadline - t0, 1e-3)
            what = "limit" if options.perturbation is None else f"equilibrium at eps {options.perturbation:g}"
            with stage(f"the {options.refine} equilibrium: the perturbed LP's {what}"):
                run = refined_run(
                    sf, run, time_limit=left, perturbation=options.perturbation, refinement=options.refine
                )
            times["refine"] = time.perf_counter() - t0
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
