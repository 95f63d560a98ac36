"""The ``lcp`` route: an equilibrium of a two-player game, general-sum or zero-sum, by Lemke's
method on the linear complementarity problem of its sequence form (Koller, Megiddo and von
Stengel, "Efficient computation of equilibria for extensive two-person games", 1996; the
method Koller and Pfeffer's Gala used for general-sum games, "Generating and solving
imperfect information games", 1995).

The LCP (:mod:`equilibria.formulations.sequence_form_lcp`) is built sparse from the
sequence form, and solved by complementary pivoting on a sparse factorised basis with a
lexicographic ratio test (:mod:`equilibria.solvers.lemke`). The covering vector decides
the path: it starts from a prior pair of plans (uniform, or random with ``seed``, which
often ends at another equilibrium). With
``exact`` the final basis is solved again in rational arithmetic and the complementarity
conditions are checked exactly, so the equilibrium's regret is exactly 0; every answer is
also certified as any other, by exact best responses in floating point.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.answer import Answer
from ..core.deadline import OutOfTime
from ..core.steps import Outcome, Steps
from ..formulations.sequence_form_lcp import SequenceFormLCP, sequence_form_lcp, tracing_start
from ..models.checks import OptionError
from ..models.errors import SolveFailed
from ..models.progress import stage
from ..models.reduced_normal_form import NormalFormTooLarge, ReducedNormalForm, reduced_normal_form, reduced_size
from ..models.sequence import SequenceForm
from ..solvers import Status
from ..solvers.lemke import (
    LemkeResult,
    NumericalFailure,
    PivotLimit,
    RayTermination,
    StartNotCovered,
    exact_solution,
    lemke,
)
from .options import LCPOptions

_log = logging.getLogger(__name__)

#: Pivots between two progress messages.
PROGRESS_PIVOTS = 1000


def _tell(pivots: int) -> None:
    """Log the pivots so far every :data:`PROGRESS_PIVOTS`."""
    if pivots % PROGRESS_PIVOTS == 0:
        _log.info("Lemke: %s pivots", f"{pivots:,}")


#: The most complementary pairs ``exact`` takes: rational elimination on the final basis
#: grows with its fill, and beyond this it takes minutes.
EXACT_LIMIT = 5_000


@dataclass(kw_only=True)
class LCPSolution(Answer):
    """An equilibrium found by Lemke's method: its pivots, and with ``exact`` whether the
    rational check held (regret exactly 0)."""

    pivots: int = 0
    exact: bool | None = None
    covering: str = "uniform prior"

    def details(self) -> dict:
        """The pivots, the covering vector and the exact check."""
        return {"pivots": self.pivots, "covering": self.covering, "exact_check": self.exact}

    def report_lines(self) -> list[str]:
        """The answer as ``equilibria lcp`` prints it."""
        lines = super().report_lines()
        lines.append(f"pivots          {self.pivots:,} (from the {self.covering})")
        if self.exact is not None:
            lines.append("exact           rational check of the final basis: regret exactly 0 for both players")
        return lines


#: How far from uniform the prior's action weights move when the uniform prior's best
#: responses tie (then the first basis may be infeasible where no covering mends it).
TIE_BREAK = 1e-3


def priors(sf: SequenceForm, seed: int | None, spread: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """The prior plans Lemke's path starts from (the tracing procedure's prior): each
    player's uniform behaviour strategy, or with ``seed`` action weights drawn from
    ``[1 - spread, 1 + spread]`` at every information set (another prior often ends at
    another equilibrium)."""
    rng = None if seed is None else np.random.default_rng(seed)
    plans = []
    for p in range(2):
        tp = sf.players[p].treeplex
        behavior = tp.uniform()
        if rng is not None and tp.num_infosets:
            weights = rng.uniform(1.0 - spread, 1.0 + spread, tp.num_sequences - 1)
            totals = np.add.reduceat(weights, tp.first_sequence - 1)[tp.sequence_infoset]
            behavior[1:] = weights / totals
        plans.append(tp.realization(behavior))
    return plans[0], plans[1]


def _pivots(sf: SequenceForm, lcp: SequenceFormLCP, seed: int | None, **limits: Any) -> tuple[LemkeResult, str]:
    """Lemke's path from the prior ``seed`` names, and the prior's name. The uniform prior
    whose best responses tie so that no covering vector mends the first basis gives way
    to one a little off uniform (:data:`TIE_BREAK`)."""

    def run(draw: int | None, spread: float) -> LemkeResult:
        d, first = tracing_start(lcp, sf, priors(sf, draw, spread))
        return lemke(lcp.M, lcp.q, d, free=lcp.free, basis=first, **limits)

    if seed is not None:
        return run(seed, 0.5), f"random prior, seed {seed}"
    try:
        return run(None, 0.0), "uniform prior"
    except StartNotCovered:
        return run(0, TIE_BREAK), f"uniform prior moved by {TIE_BREAK:g} (its best responses tie)"


def exact_check(sf: SequenceForm, lcp: SequenceFormLCP, basis: list[int]) -> list[Fraction]:
    """The final basis solved in rationals; raises SolveFailed unless the solution meets
    every condition of the LCP exactly (``z >= 0`` and ``w = q + M z >= 0`` outside the
    free ``u`` and ``v``, ``w = 0`` on their equations, ``z'w = 0``), which makes both
    plans exact best responses. Returns ``z``."""
    artificial = 2 * lcp.size
    if artificial in basis:
        raise SolveFailed("the final basis still holds the artificial variable")
    columns = lcp.exact_columns(sf)
    q = lcp.exact_q()
    z, w = exact_solution(columns, q, basis)
    free = lcp.free.tolist()
    if any(v < 0 for v, f in zip(z, free, strict=True) if not f) or any(
        v < 0 for v, f in zip(w, free, strict=True) if not f
    ):
        raise SolveFailed("the final basis, solved exactly, is not feasible: the floating-point pivots went astray")
    if any(v != 0 for v, f in zip(w, free, strict=True) if f):
        raise SolveFailed("the final basis, solved exactly, breaks an equation of the plans")
    if any(a != 0 and b != 0 for a, b, f in zip(z, w, free, strict=True) if not f):
        raise SolveFailed("the final basis, solved exactly, is not complementary")
    # w as the basis gives it must be q + M z, the definition (a check of the elimination)
    total = list(q)
    for j, zj in enumerate(z):
        if zj:
            for i, v in columns[j].items():
                total[i] += v * zj
    if total != w:
        raise SolveFailed("the exact solution breaks a row of the LCP")
    return z


@dataclass(frozen=True)
class LCPProblem:
    """What the pivots run on: the LCP of ``pivoted`` (the game's sequence form, or with
    ``form`` normal the sequence form of its reduced normal form ``reduced``, a one-shot
    game whose LCP is the bimatrix game's)."""

    pivoted: SequenceForm
    lcp: SequenceFormLCP
    reduced: ReducedNormalForm | None


#: The most cells of a reduced normal form Lemke pivots on: its LCP holds both payoff
#: tables densely, and its one-shot tree a node per cell.
NORMAL_CELL_LIMIT = 5_000_000


def _reduced(sf: SequenceForm) -> ReducedNormalForm:
    """The reduced normal form of ``sf``'s game, refused as an option error (with its size)
    when it has more than :data:`NORMAL_CELL_LIMIT` cells or would not fit."""
    from ..instances.registry import available_memory

    size = reduced_size(sf)
    if size.cells > NORMAL_CELL_LIMIT:
        plans = " x ".join(f"{p:,}" for p in size.plans)
        raise OptionError(
            f"form normal: the reduced normal form has {plans} plans, {size.cells:,} cells; Lemke pivots on at "
            f"most {NORMAL_CELL_LIMIT:,} (use form sequence)"
        )
    try:
        with stage("the reduced normal form"):
            return reduced_normal_form(sf, memory=available_memory(), labels=False)
    except NormalFormTooLarge as large:
        raise OptionError(f"form normal: {large}") from None


class LemkeLCP(Steps):
    """The ``lcp`` route's steps: the sequence form's LCP, Lemke's pivots, the equilibrium
    read from the plans (and checked in rationals with ``exact``)."""

    Options = LCPOptions
    build_message = "the sequence form and its LCP"

    def build(self, view: Any, options: LCPOptions) -> LCPProblem:
        sf = SequenceForm(view)
        if sf.num_players != 2:
            raise OptionError(
                f"the lcp route solves two-player games; this one has {sf.num_players} players (equilibria nash)"
            )
        reduced = None
        if options.form == "normal":
            reduced = _reduced(sf)
            sf = SequenceForm(reduced.game.to_extensive())
        lcp = sequence_form_lcp(sf)
        if options.exact and lcp.size > EXACT_LIMIT:
            raise OptionError(
                f"exact takes LCPs of at most {EXACT_LIMIT:,} pairs; this game's has {lcp.size:,} (drop exact)"
            )
        return LCPProblem(sf, lcp, reduced)

    def solve(self, problem: LCPProblem, options: LCPOptions, deadline: float | None) -> LCPSolution | Outcome:
        sf, lcp = problem.pivoted, problem.lcp
        t0 = time.perf_counter()
        with stage(f"Lemke's pivots on {lcp.size:,} complementary pairs"):
            try:
                result, covering = _pivots(
                    sf, lcp, options.seed, max_pivots=options.max_pivots, deadline=deadline, on_pivot=_tell
                )
            except StartNotCovered:
                raise SolveFailed(
                    "the prior's best responses tie where no covering vector mends the first basis; try another "
                    "prior (seed)"
                ) from None
            except NumericalFailure as failure:
                raise SolveFailed(
                    f"Lemke's pivots reached a basis singular in floating point ({failure}); try another "
                    "covering vector (seed), or the nash route"
                ) from None
            except RayTermination as ray:
                raise SolveFailed(
                    f"Lemke's method ended in a ray ({ray}); try another covering vector (seed)"
                ) from None
            except PivotLimit as limit:
                if deadline is not None and time.perf_counter() >= deadline:
                    raise OutOfTime(f"the time limit was reached after {limit.pivots:,} pivots") from None
                raise SolveFailed(f"{limit}; allow more max_pivots") from None
        seconds = {"pivots": time.perf_counter() - t0}
        exact = None
        x, y = lcp.plans(result.z)
        if options.exact:
            t1 = time.perf_counter()
            with stage("checking the final basis in rational arithmetic"):
                z = exact_check(sf, lcp, result.basis)
            zx, zy = lcp.plans(np.array([float(v) for v in z]))
            x, y, exact = zx, zy, True
            seconds["exact_check"] = time.perf_counter() - t1
        plans = [np.maximum(x, 0.0), np.maximum(y, 0.0)]
        if problem.reduced is not None:  # plans' weights, mapped back to the tree
            mixed = [plan[1:] / max(plan[1:].sum(), 1e-300) for plan in plans]
            sf = problem.reduced.sequence_form
            behaviors = problem.reduced.behaviors(mixed)
        else:
            behaviors = [sf.players[p].treeplex.behavior(plans[p]) for p in range(2)]
        return Outcome(
            status=Status.OPTIMAL,
            backend="lemke",
            behaviors=behaviors,
            sequence_form=sf,
            sizes={"pairs": lcp.size, "nonzeros": int(lcp.M.nnz)},
            details={"pivots": result.pivots, "covering": covering, "exact": exact},
            seconds=seconds,
        )

    def answer(self, name: str, outcome: Outcome, options: LCPOptions) -> LCPSolution:
        from ..core.steps import _answer_fields

        return LCPSolution(
            **_answer_fields(name, outcome),
            pivots=outcome.details["pivots"],
            covering=outcome.details["covering"],
            exact=outcome.details["exact"],
        )


__all__ = ["EXACT_LIMIT", "NORMAL_CELL_LIMIT", "LCPProblem", "LCPSolution", "LemkeLCP", "exact_check", "priors"]
