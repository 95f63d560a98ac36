"""End-to-end use: a game in, an equilibrium with its certificate out.

This module joins the layers (instances -> models -> formulations -> solvers) for the
common case; each step is also available on its own.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .formulations import opponent_realization_plan, realization_plan, sequence_form_lp
from .models.best_response import Exploitability, exploitability
from .models.efg import ExtensiveGame
from .models.errors import SolverError
from .models.sequence import SequenceForm
from .models.strategy import behavior_from_realization, realization_from_behavior, strategy_table
from .solvers import Solution, solve


@dataclass
class GameSolution:
    """An equilibrium of a two-player zero-sum game and its certificate.

    ``value`` is player 1's LP value (at a non-optimal stop: the payoff of the returned
    profile); ``exploitability`` is computed from the recovered
    behaviour strategies by exact best responses (OpenSpiel's convention: the mean over
    players of best-response value minus own payoff). ``seconds`` splits wall time into
    ``game``, ``sequence_form``, ``lp_build``, the backend's ``build``/``transfer``/``solve``
    and ``certify``.
    """

    game: ExtensiveGame
    sequence_form: SequenceForm
    value: float
    status: str
    behaviors: list[np.ndarray]
    realization_plans: list[np.ndarray]
    certificate: Exploitability
    backend: str
    method: str | None
    rows: int
    columns: int
    nonzeros: int
    seconds: dict = field(default_factory=dict)
    solutions: list[Solution] = field(default_factory=list)
    attempts: list[dict] = field(default_factory=list)

    @property
    def exploitability(self) -> float:
        """Certified exploitability of the returned strategies."""
        return self.certificate.exploitability

    @property
    def value_bounds(self) -> tuple[float, float]:
        """Certified bounds on the game value for player 1: what player 1's strategy
        guarantees against a best response, and what player 2's strategy concedes to one.
        Their difference is the NashConv of the returned profile."""
        br = self.certificate.best_response_values
        return float(-br[1]), float(br[0])

    def strategy_table(self):
        """Both players' behaviour strategies as one DataFrame (one row per infoset and action)."""
        import pandas as pd

        return pd.concat(
            [
                strategy_table(self.sequence_form, p, self.behaviors[p], self.realization_plans[p])
                for p in range(2)
            ],
            ignore_index=True,
        )

    def to_dict(self) -> dict:
        """The figures printed by ``equilibria solve --json``."""
        return {
            "game": self.game.title,
            "value": self.value,
            "exploitability": self.exploitability,
            "nash_conv": self.certificate.nash_conv,
            "value_bounds": list(self.value_bounds),
            "attempts": self.attempts,
            "payoffs": self.certificate.payoffs.tolist(),
            "status": self.status,
            "backend": self.backend,
            "method": self.method,
            "rows": self.rows,
            "columns": self.columns,
            "nonzeros": self.nonzeros,
            "seconds": self.seconds,
        }


#: IPM optimality tolerances tried in turn by the anytime solve (crossover only on the last).
ANYTIME_TOLERANCES = (1e-2, 1e-4, 1e-6, 1e-8)


def _certify(sf: SequenceForm, plans: list[np.ndarray]):
    behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(2)]
    return behaviors, exploitability(sf, behaviors)


def solve_game(
    game: ExtensiveGame,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    target_exploitability: float | None = None,
    verbose: bool = False,
    both_lps: bool = False,
    seconds: dict | None = None,
) -> GameSolution:
    """Solve a two-player zero-sum game by the sequence-form LP and certify the result.

    Player 1's LP is solved; player 2's strategy comes from its duals, or from player
    2's own LP when the backend returns no duals or ``both_lps`` is set.

    With ``time_limit`` or ``target_exploitability`` (HiGHS only) the solve is anytime:
    the interior-point method runs with tolerances :data:`ANYTIME_TOLERANCES` in turn,
    each result is certified by exact best responses, and the best strategies so far are
    returned when the target is met or the time is up (status ``target_reached`` or
    ``time_limit``). Raises SolverError when no strategies could be obtained.
    """
    times = dict(seconds or {})
    t0 = time.perf_counter()
    sf = SequenceForm(game)
    t1 = time.perf_counter()
    lp = sequence_form_lp(sf, 0)
    t2 = time.perf_counter()
    times["sequence_form"] = t1 - t0
    times["lp_build"] = t2 - t1
    anytime = backend == "highs" and (time_limit is not None or target_exploitability is not None)
    if anytime:
        return _solve_anytime(game, sf, lp, method, time_limit, target_exploitability, verbose, times)
    sol = solve(lp, backend, method=method, time_limit=time_limit, verbose=verbose)
    if sol.x is None:
        raise SolverError(f"backend {backend} returned no solution (status {sol.status}: {sol.message})")
    solutions = [sol]
    for key, value in sol.seconds.items():
        times[key] = value
    plans = [realization_plan(lp, sol.x), None]
    if sol.row_duals is not None and not both_lps:
        plans[1] = opponent_realization_plan(lp, sol.row_duals)
    else:
        t3 = time.perf_counter()
        lp2 = sequence_form_lp(sf, 1)
        times["lp_build"] += time.perf_counter() - t3
        sol2 = solve(lp2, backend, method=method, time_limit=time_limit, verbose=verbose)
        if sol2.x is None:
            raise SolverError(f"backend {backend} returned no solution for player 2 (status {sol2.status})")
        for key, value in sol2.seconds.items():
            times[key] = times.get(key, 0.0) + value
        plans[1] = realization_plan(lp2, sol2.x)
        solutions.append(sol2)
    t4 = time.perf_counter()
    behaviors, cert = _certify(sf, plans)
    times["certify"] = time.perf_counter() - t4
    status = sol.status if all(s.status == sol.status for s in solutions) else "/".join(s.status for s in solutions)
    return _result(game, sf, lp, sol, status, behaviors, cert, times, solutions, [])


def _result(game, sf, lp, sol, status, behaviors, cert, times, solutions, attempts) -> GameSolution:
    # an LP objective is a game value only at an optimum; otherwise report the profile's
    # own payoff, which lies inside the certified bounds
    value = float(sol.objective) if sol.status == "optimal" else float(cert.payoffs[0])
    return GameSolution(
        game=game,
        sequence_form=sf,
        value=value,
        status=status,
        behaviors=behaviors,
        realization_plans=[realization_from_behavior(sf.players[p], behaviors[p]) for p in range(2)],
        certificate=cert,
        backend=sol.backend,
        method=sol.method,
        rows=lp.num_rows,
        columns=lp.num_cols,
        nonzeros=lp.nnz,
        seconds=times,
        solutions=solutions,
        attempts=attempts,
    )


def _solve_anytime(game, sf, lp, method, time_limit, target, verbose, times) -> GameSolution:
    start = time.perf_counter()
    best = None
    attempts: list[dict] = []
    status = "optimal"
    for i, tol in enumerate(ANYTIME_TOLERANCES):
        last = i == len(ANYTIME_TOLERANCES) - 1
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if remaining is not None and remaining <= 0:
            status = "time_limit"
            break
        options = {"ipm_optimality_tolerance": tol, "run_crossover": "on" if last else "off"}
        sol = solve(lp, "highs", method=method if method not in (None, "concurrent") else "ipx",
                    time_limit=remaining, verbose=verbose, options=options)
        for key, value in sol.seconds.items():
            times[key] = times.get(key, 0.0) + value
        if sol.x is None or sol.row_duals is None:
            status = sol.status if sol.status != "optimal" else "unknown"
            attempts.append({"tolerance": tol, "status": sol.status, "seconds": sum(sol.seconds.values())})
            break
        t = time.perf_counter()
        behaviors, cert = _certify(sf, [realization_plan(lp, sol.x), opponent_realization_plan(lp, sol.row_duals)])
        times["certify"] = times.get("certify", 0.0) + time.perf_counter() - t
        attempts.append({"tolerance": tol, "status": sol.status, "seconds": sum(sol.seconds.values()),
                         "exploitability": cert.exploitability})
        if best is None or cert.exploitability < best[2].exploitability:
            best = (sol, behaviors, cert)
        if target is not None and cert.exploitability <= target:
            status = "target_reached" if sol.status != "optimal" else "optimal"
            break
        status = sol.status
    if best is None:
        raise SolverError(f"no strategies within the limits (status {status}); allow more time")
    sol, behaviors, cert = best
    return _result(game, sf, lp, sol, status, behaviors, cert, times, [sol], attempts)
