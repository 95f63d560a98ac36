"""The ``double-oracle`` route: a two-player zero-sum game solved by growing a restricted
game until it holds an equilibrium of the whole (Bošanský, Kiekintveld, Lisý and
Pěchouček, "An exact double-oracle algorithm for zero-sum extensive-form games with
imperfect information", 2014).

Each iteration solves the restricted game's sequence-form LP
(:mod:`equilibria.formulations.restricted_sequence_form`) on any LP backend, extends its
equilibrium to the full game by the default play, and computes both players' exact best
responses in the full game against it. Those give certified bounds on the game's value:
player 1's best response against player 2's strategy bounds it from above, player 2's from
below, and the strategies' exploitability is half the gap. Each best response's sequences
join the restricted game; the run stops when the bounds meet the target, when no best
response brings a new sequence (then the restricted equilibrium is one of the full game),
at the time limit or after the most iterations, with the best certified pair it holds.

Where an equilibrium is supported on few sequences, the restricted LP stays far smaller
than the full one; the best responses still take the full payoff matrix, once per
iteration.
"""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.answer import Answer
from ..core.anytime import Anytime
from ..core.steps import Outcome, Steps
from ..formulations.restricted_sequence_form import Restriction, restricted_lp
from ..formulations.sequence_form_lp import check_two_player_zero_sum, opponent_realization_plan, realization_plan
from ..models.best_response import Exploitability, saddle_point_best_responses
from ..models.errors import SolveFailed
from ..models.progress import stage
from ..models.sequence import SequenceForm
from ..solvers import Status, get_backend
from .options import DoubleOracleOptions

_log = logging.getLogger(__name__)


@dataclass
class Iteration:
    """One iteration: the restricted game's size, the certified bounds on the value, the
    sequences the best responses added and the seconds so far."""

    iteration: int
    sequences: tuple[int, int]
    lp: tuple[int, int, int]  # the restricted LP's rows, columns and nonzeros
    lower: float
    upper: float
    added: tuple[int, int]
    seconds: float

    @property
    def exploitability(self) -> float:
        """Half the gap between the bounds: the pair's certified exploitability."""
        return max(self.upper - self.lower, 0.0) / 2

    def row(self) -> dict[str, Any]:
        """The iteration as plain data."""
        return {
            "iteration": self.iteration,
            "sequences_player1": self.sequences[0],
            "sequences_player2": self.sequences[1],
            "lp_rows": self.lp[0],
            "lp_columns": self.lp[1],
            "lp_nonzeros": self.lp[2],
            "lower": self.lower,
            "upper": self.upper,
            "exploitability": self.exploitability,
            "added": list(self.added),
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class DoubleOracleProblem:
    """The full game's sequence form, its payoff matrix both ways and the constant its
    payoffs add up to."""

    sf: SequenceForm
    payoff: Any
    payoff_transposed: Any
    constant: float


@dataclass(kw_only=True)
class DoubleOracleSolution(Answer):
    """A double-oracle answer: every iteration's bounds and the restricted game's size
    beside the full game's."""

    iterations: list[Iteration] = field(default_factory=list)
    full_sequences: tuple[int, ...] = (0, 0)
    #: the full game's sequence-form LP (player 1's): rows, columns, nonzeros
    full_lp: tuple[int, int, int] = (0, 0, 0)

    def details(self) -> dict:
        """The iterations and sizes."""
        last = self.iterations[-1] if self.iterations else None
        return {
            "iterations": [it.row() for it in self.iterations],
            "restricted_sequences": list(last.sequences) if last else None,
            "full_sequences": list(self.full_sequences),
            "full_lp": dict(zip(("rows", "columns", "nonzeros"), self.full_lp)),
        }

    def report_lines(self) -> list[str]:
        """The answer as ``equilibria double-oracle`` prints it."""
        lines = super().report_lines()
        if self.iterations:
            last = self.iterations[-1]
            kept = " / ".join(f"{k:,} of {n:,}" for k, n in zip(last.sequences, self.full_sequences))
            lines.append(f"iterations      {last.iteration} (value within [{last.lower:.9f}, {last.upper:.9f}])")
            lines.append(f"restricted      {kept} sequences (player 1 / player 2)")
            rows, columns, nonzeros = self.full_lp
            lines.append(f"full LP         rows {rows:,}, columns {columns:,}, nonzeros {nonzeros:,} (not built)")
        return lines


class DoubleOracle(Steps):
    """The ``double-oracle`` route's steps: the full sequence form, then restricted LPs grown
    by exact best responses (module docstring)."""

    Options = DoubleOracleOptions
    build_message = "the sequence form"

    def build(self, view: Any, options: DoubleOracleOptions) -> DoubleOracleProblem:
        return problem_of(SequenceForm(view))

    def solve(self, problem: DoubleOracleProblem, options: DoubleOracleOptions, deadline: float | None) -> Outcome:
        run = double_oracle(
            problem,
            options.backend,
            method=options.method,
            target_exploitability=options.target_exploitability,
            iterations=options.iterations,
            deadline=deadline,
            verbose=options.verbose,
        )
        last = run.history[-1]
        return Outcome(
            status=run.status,
            backend=options.backend,
            behaviors=run.behaviors,
            sequence_form=problem.sf,
            certificate=run.certificate,
            sizes=dict(zip(("rows", "columns", "nonzeros"), last.lp)),
            details={"iterations": run.history, "full_lp": _full_lp(problem)},
        )

    def answer(self, name: str, outcome: Outcome, options: DoubleOracleOptions) -> DoubleOracleSolution:
        from ..core.steps import _answer_fields

        return DoubleOracleSolution(
            **_answer_fields(name, outcome),
            iterations=outcome.details["iterations"],
            full_sequences=tuple(_full(outcome.sequence_form)),
            full_lp=outcome.details["full_lp"],
        )


@dataclass
class DoubleOracleRun:
    """What :func:`double_oracle` ends with: the best certified pair, why it stopped and
    every iteration."""

    behaviors: list[np.ndarray]
    certificate: Exploitability
    status: Status
    history: list[Iteration]


def problem_of(sf: SequenceForm) -> DoubleOracleProblem:
    """The full game's sequence form with its payoff matrix both ways (refused unless two
    players, zero-sum)."""
    constant = check_two_player_zero_sum(sf, "the double oracle")
    payoff = sf.payoff_matrix(0).tocsr()
    return DoubleOracleProblem(sf, payoff, payoff.T.tocsr(), constant)


def double_oracle(
    problem: DoubleOracleProblem | SequenceForm,
    backend: str,
    *,
    method: str | None = None,
    target_exploitability: float | None = None,
    iterations: int | None = None,
    deadline: float | None = None,
    verbose: bool = False,
) -> DoubleOracleRun:
    """The double oracle on ``problem`` (module docstring): restricted LPs on ``backend``
    until the certified exploitability is at most ``target_exploitability`` or no best
    response adds a sequence (status ``optimal``, or ``target_reached`` with a target), or
    until ``deadline`` (a ``time.perf_counter()`` instant) or ``iterations``; the best
    certified pair it found. Ctrl-C once a pair is certified ends it with that pair."""
    if isinstance(problem, SequenceForm):
        problem = problem_of(problem)
    history: list[Iteration] = []
    run: Anytime[tuple[list[np.ndarray], Exploitability]] = Anytime(
        deadline=deadline, max_rounds=iterations, target=target_exploitability
    )
    start = time.perf_counter()
    sf = problem.sf
    restrictions = (Restriction.empty(sf.players[0].treeplex), Restriction.empty(sf.players[1].treeplex))
    solver = get_backend(backend)
    options = _LoopOptions(method, verbose)
    for index in run.rounds():
        with run.guard(interrupt=True):
            _iterate(problem, restrictions, solver, options, run, history, index, start, deadline)
    (behaviors, certificate), status = run.result(lambda s: SolveFailed(f"the double oracle stopped ({s})"))
    if status == Status.OPTIMAL and target_exploitability is not None:
        status = Status.TARGET_REACHED
    return DoubleOracleRun(behaviors, certificate, status, history)


@dataclass(frozen=True)
class _LoopOptions:
    """What each iteration's LP solve takes besides the backend."""

    method: str | None
    verbose: bool


def _full(sf: SequenceForm | None) -> list[int]:
    return [] if sf is None else [sf.players[p].num_sequences for p in range(2)]


def _full_lp(problem: DoubleOracleProblem) -> tuple[int, int, int]:
    """Rows, columns and nonzeros of player 1's sequence-form LP of the full game."""
    p1, p2 = problem.sf.players
    rows = 1 + p1.num_infosets + p2.num_sequences
    columns = p1.num_sequences + 1 + p2.num_infosets
    # E: the root's entry, each non-empty sequence in its set's row, each set's parent
    constraints = sum(p.num_sequences + p.num_infosets for p in (p1, p2))
    return rows, columns, constraints + int(problem.payoff.nnz)


def _iterate(
    problem: DoubleOracleProblem,
    restrictions: tuple[Restriction, ...],
    backend: Any,
    options: _LoopOptions,
    run: Anytime,
    history: list[Iteration],
    index: int,
    start: float,
    deadline: float | None,
) -> None:
    """Iteration ``index``: the restricted LP solved, its equilibrium extended and certified
    in the full game, the best responses' sequences added; ends ``run`` when the bounds
    meet the target or nothing new was added."""
    sf = problem.sf
    sizes = (restrictions[0].size, restrictions[1].size)
    with stage(f"double oracle, iteration {index}: restricted LP on {sizes[0]:,} + {sizes[1]:,} sequences"):
        lp = restricted_lp(sf, (restrictions[0], restrictions[1]))
        left = None if deadline is None else max(deadline - time.perf_counter(), 0.01)
        sol = backend.solve_lp(lp, method=options.method, time_limit=left, duals=True, verbose=options.verbose)
    if sol.status == Status.TIME_LIMIT:
        run.stop(Status.TIME_LIMIT)
        return
    if sol.status != Status.OPTIMAL or sol.x is None or sol.row_duals is None:
        raise SolveFailed(f"the restricted LP of iteration {index} was not solved: {sol.status}")
    plans = [
        restrictions[0].full_plan(realization_plan(lp, sol.x)),
        restrictions[1].full_plan(opponent_realization_plan(lp, sol.row_duals)),
    ]
    tps = (sf.players[0].treeplex, sf.players[1].treeplex)
    behaviors = [tps[p].behavior(plans[p]) for p in range(2)]
    certificate, best = saddle_point_best_responses(
        problem.payoff, problem.payoff_transposed, tps, behaviors, problem.constant
    )
    upper = float(certificate.best_response_values[0])
    lower = problem.constant - float(certificate.best_response_values[1])
    added = (restrictions[0].grow(tps[0].realization(best[0])), restrictions[1].grow(tps[1].realization(best[1])))
    shape = (lp.A.shape[0], lp.A.shape[1], int(lp.A.nnz))
    record = Iteration(index, sizes, shape, lower, upper, added, time.perf_counter() - start)
    history.append(record)
    _log.info(
        "double oracle: iteration %d, %s + %s sequences, value in [%.9g, %.9g], exploitability %.3e",
        index,
        f"{sizes[0]:,}",
        f"{sizes[1]:,}",
        lower,
        upper,
        record.exploitability,
    )
    run.keep((behaviors, certificate), float(certificate.exploitability))
    # a solver's object lives in a reference cycle with its callbacks until the collector
    # runs; collected each iteration, 160 iterations on Liar's dice hold 155 MB, not 560 MB
    gc.collect()
    if run.meets(float(certificate.exploitability)) or added == (0, 0):
        run.stop(Status.OPTIMAL)


__all__ = ["DoubleOracle", "DoubleOracleRun", "DoubleOracleSolution", "Iteration", "double_oracle"]
