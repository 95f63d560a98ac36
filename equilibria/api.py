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

    ``value`` is player 1's LP value; ``exploitability`` is computed from the recovered
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

    @property
    def exploitability(self) -> float:
        """Certified exploitability of the returned strategies."""
        return self.certificate.exploitability

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
            "payoffs": self.certificate.payoffs.tolist(),
            "status": self.status,
            "backend": self.backend,
            "method": self.method,
            "rows": self.rows,
            "columns": self.columns,
            "nonzeros": self.nonzeros,
            "seconds": self.seconds,
        }


def solve_game(
    game: ExtensiveGame,
    backend: str = "highs",
    *,
    method: str | None = None,
    time_limit: float | None = None,
    verbose: bool = False,
    both_lps: bool = False,
    seconds: dict | None = None,
) -> GameSolution:
    """Solve a two-player zero-sum game by the sequence-form LP and certify the result.

    Player 1's LP is solved; player 2's strategy comes from its duals, or from player
    2's own LP when the backend returns no duals or ``both_lps`` is set. Raises
    SolverError when the backend returns no primal solution.
    """
    times = dict(seconds or {})
    t0 = time.perf_counter()
    sf = SequenceForm(game)
    t1 = time.perf_counter()
    lp = sequence_form_lp(sf, 0)
    t2 = time.perf_counter()
    times["sequence_form"] = t1 - t0
    times["lp_build"] = t2 - t1
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
    behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(2)]
    cert = exploitability(sf, behaviors)
    times["certify"] = time.perf_counter() - t4
    status = sol.status if all(s.status == sol.status for s in solutions) else "/".join(s.status for s in solutions)
    return GameSolution(
        game=game,
        sequence_form=sf,
        value=float(sol.objective),
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
    )
