"""The ``support`` route's steps: one feasibility LP per pair of equal-size supports,
solved by the chosen backend. Everything else (options, backend check, view, certificate,
command line, sweeps) comes from the route skeleton."""

from __future__ import annotations

import time
from itertools import combinations
from typing import Any

import numpy as np
import scipy.sparse as sp

from equilibria.core.skeleton import Outcome, RouteError, Steps
from equilibria.formulations.linear_program import Block, LinearProgram
from equilibria.solvers import solve

from .options import SupportOptions


def _support_lp(payoff: np.ndarray, rows: tuple, cols: tuple) -> LinearProgram:
    """Columns: the opponent's mix y over ``cols`` and the value u. Rows: each row of
    ``rows`` earns u, every other row at most u, and y sums to 1."""
    m, k = payoff.shape[0], len(cols)
    block = sp.csr_matrix(np.hstack([payoff[:, cols], -np.ones((m, 1))]))
    total = sp.csr_matrix(np.hstack([np.ones((1, k)), np.zeros((1, 1))]))
    A = sp.vstack([block, total]).tocsc()
    upper = np.zeros(m + 1)
    lower = np.full(m + 1, -np.inf)
    lower[list(rows)] = 0.0
    lower[m] = upper[m] = 1.0
    return LinearProgram(
        name="support",
        c=np.zeros(k + 1),
        A=A,
        row_lower=lower,
        row_upper=upper,
        col_lower=np.r_[np.zeros(k), -np.inf],
        col_upper=np.r_[np.ones(k), np.inf],
        maximize=False,
        col_blocks=[Block("y", 0, k), Block("u", k, k + 1)],
        row_blocks=[Block("payoff", 0, m), Block("total", m, m + 1)],
    )


class SupportEnumeration(Steps):
    Options = SupportOptions

    def build(self, view: Any, options: SupportOptions) -> Any:
        if view.num_players != 2:
            raise RouteError(f"support enumeration takes two players, not {view.num_players}")
        A, B = view.payoffs[0], view.payoffs[1]
        sizes = range(1, min(A.shape) + 1)
        if options.largest is not None:
            sizes = range(1, min(options.largest, min(A.shape)) + 1)
        if options.order == "large-first":
            sizes = reversed(sizes)
        return A, B, list(sizes)

    def solve(self, problem: Any, options: SupportOptions, deadline: float | None) -> Outcome:
        A, B, sizes = problem
        tried = 0
        for k in sizes:
            for rows in combinations(range(A.shape[0]), k):
                for cols in combinations(range(A.shape[1]), k):
                    if deadline is not None and time.perf_counter() > deadline:
                        return Outcome("time_limit", options.backend, sizes={"supports_tried": tried})
                    tried += 1
                    y = solve(_support_lp(A, rows, cols), options.backend)
                    if y.x is None:
                        continue
                    x = solve(_support_lp(B.T, cols, rows), options.backend)
                    if x.x is None:
                        continue
                    px = np.zeros(A.shape[0])
                    px[list(rows)] = x.x[:k]
                    py = np.zeros(A.shape[1])
                    py[list(cols)] = y.x[:k]
                    return Outcome("optimal", options.backend, profile=[px, py], sizes={"supports_tried": tried})
        raise RouteError("no pair of equal-size supports holds an equilibrium (a degenerate game)")
