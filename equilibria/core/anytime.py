"""What the anytime programs with three or more players share: a record per round, the
error raised when the limits come before epsilon, and the CFR+ seed that tells the first
round where to look.

Both the located threshold program (:mod:`equilibria.routes.threshold.located`) and MIP Nash
(:mod:`equilibria.routes.nash.rounds`) solve in rounds until the exact certificate meets epsilon;
each round's certified NashConv goes into the answer's ``curve``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..models.best_response import certify
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..solvers.first_order import MultiplayerCFR

#: The seed's share of the time limit, and its most seconds.
SEED_SHARE = 0.1
SEED_SECONDS = 2.0

#: The seed stops early once its certified NashConv is this fraction of epsilon.
SEED_TARGET = 0.01


class TimeLimitReached(SolveFailed):
    """No answer met epsilon before the time limit, the rounds or the locations ran out
    (the message says which, and how close the best answer came); ``rounds`` lists the
    rounds run."""

    def __init__(self, message: str, rounds: list[Round] | None = None) -> None:
        super().__init__(message)
        self.rounds = list(rounds or [])


@dataclass
class Round:
    """One round: what was solved and what its answer is worth."""

    round: int
    phase: str
    breakpoints: int
    box: float | None
    status: str
    seconds: float
    nash_conv: float | None = None
    posterior: float | None = None
    promised: float | None = None
    binaries: int = 0

    @classmethod
    def seed(cls, phase: str, seconds: float, nash_conv: float) -> Round:
        """Round 0: the CFR+ profile a refinement starts from."""
        return cls(round=0, phase=phase, breakpoints=0, box=None, status="done", seconds=seconds, nash_conv=nash_conv)

    def row(self) -> dict:
        """The round as a plain dict (the answer's ``curve`` entries)."""
        return {
            "round": self.round,
            "phase": self.phase,
            "breakpoints": self.breakpoints,
            "box": self.box,
            "status": self.status,
            "seconds": self.seconds,
            "certified_nash_conv": self.nash_conv,
            "posterior_bound": self.posterior,
            "promised_epsilon": self.promised,
            "binaries": self.binaries,
        }


def rounds_table(rounds: list[Round]) -> list[dict]:
    """The rounds as rows (the answer's ``curve``)."""
    return [r.row() for r in rounds]


def rounds_lines(curve: list[dict]) -> list[str]:
    """One line per round of an anytime program: what it solved and what its answer is worth."""
    lines = []
    for entry in curve:
        got = entry["certified_nash_conv"]
        box = "" if entry["box"] is None else f", box +-{entry['box']:.2g}"
        grid = f" ({entry['breakpoints']} breakpoints{box})" if entry["breakpoints"] else ""
        result = entry["status"] if got is None else f"certified NashConv {got:.3e}"
        lines.append(f"round {entry['round']:<9} {entry['phase']}{grid}: {result}, {entry['seconds']:.2f} s")
    return lines


def first_box(nash_conv: float) -> float:
    """Half-width of the first box around a profile with this certified NashConv: a
    profile within ``d`` of an equilibrium loses about ``d`` (or ``d**2``), so the box
    starts at the square root, within [1e-3, 1/4]. (Four times the root was measured to
    cost a round more on generalized Kuhn with three players and 6 or 8 cards: the
    wider box's coarse answer is worse than the seed.)"""
    return min(0.25, max(1e-3, math.sqrt(max(nash_conv, 0.0))))


def seed_profile(sf: SequenceForm, *, target: float, seconds: float) -> tuple[list[np.ndarray], float, int]:
    """CFR+ for at most ``seconds`` or until the certified NashConv is at most ``target``:
    (the average realization plans, their certified NashConv, iterations)."""
    treeplexes = [ps.treeplex for ps in sf.players]
    cfr = MultiplayerCFR(sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs, treeplexes)
    stop = time.perf_counter() + seconds
    best_plans = cfr.average_plans()
    best = float(certify(sf, cfr.average_behaviors()).nash_conv)
    batch = 10
    while best > target and time.perf_counter() < stop:
        cfr.iterate(batch)
        value = float(certify(sf, cfr.average_behaviors()).nash_conv)
        if value < best:
            best, best_plans = value, cfr.average_plans()
        batch = min(2 * batch, 1000)
    return best_plans, best, cfr.iterations


__all__ = [
    "SEED_SECONDS",
    "SEED_SHARE",
    "SEED_TARGET",
    "Round",
    "TimeLimitReached",
    "first_box",
    "rounds_lines",
    "rounds_table",
    "seed_profile",
]
