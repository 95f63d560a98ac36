"""Anytime runs: the one driver every route that solves in rounds runs on, and what the
programs with three or more players share besides.

:class:`Anytime` holds one run's deadline, its most rounds, its target, the best certified
profile so far and the :class:`~equilibria.solvers.results.Status` it stopped with. Four
loops run on it: the LP's tolerance ladder (:mod:`equilibria.routes.lp`), the first-order
methods' certificates (:mod:`equilibria.routes.first_order`), MIP Nash's rounds
(:mod:`equilibria.routes.nash.rounds`) and the located threshold rounds
(:mod:`equilibria.routes.threshold.located`). A loop decides what one round does and when a
round ends the run; the driver decides the rest, and gives all four one contract: the best
certified profile comes back with its status (``time_limit``, ``iteration_limit``,
``stalled``, ``interrupted`` or the route's own success), and an error is raised only when
no profile exists.

Both the located threshold program and MIP Nash solve in rounds until the exact certificate
meets epsilon; each round's :class:`Round` goes into the answer's ``curve``, and a CFR+
profile (:func:`seed_profile`) tells the first round where to look.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from ..models.best_response import certify
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..solvers.first_order import MultiplayerCFR
from ..solvers.results import Status
from .deadline import DeadlineExpired

#: The seed's share of the time limit, and its most seconds.
SEED_SHARE = 0.1
SEED_SECONDS = 2.0

#: The seed stops early once its certified NashConv is this fraction of epsilon.
SEED_TARGET = 0.01


T = TypeVar("T")


@dataclass
class Anytime(Generic[T]):
    """One anytime run: its deadline (a ``time.perf_counter()`` instant), its most rounds
    and its target score (each None when not given), the best certified item so far with
    its score (lower is better: an exploitability or a NashConv), and the status it
    stopped with (None while it runs).

    A loop runs ``for index in run.rounds():``, offers each certified item to
    :meth:`keep`, and ends the run with :meth:`stop`; :meth:`rounds` ends it at the deadline
    or after the most rounds, and :meth:`guard` at a deadline enforced inside a step or at
    Ctrl-C once a profile is held. :meth:`result` then gives the best item and the status,
    or raises the loop's own error when no item was certified.
    """

    deadline: float | None = None
    max_rounds: int | None = None
    target: float | None = None
    best: T | None = None
    score: float = math.inf
    status: Status | None = None
    #: rounds started so far
    started: int = 0

    def time_left(self) -> float | None:
        """Seconds until the deadline (negative once past), or None without one."""
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def out_of_time(self) -> bool:
        """True once the deadline has passed."""
        left = self.time_left()
        return left is not None and left <= 0

    def rounds(self) -> Iterator[int]:
        """Round numbers 1, 2, ... while the run goes on. The loop ends when a round stopped
        the run, when the deadline has passed (status ``time_limit``) or after the most
        rounds (``iteration_limit``)."""
        while self.status is None:
            if self.max_rounds is not None and self.started >= self.max_rounds:
                self.status = Status.ITERATION_LIMIT
                return
            if self.out_of_time():
                self.status = Status.TIME_LIMIT
                return
            self.started += 1
            yield self.started

    def keep(self, item: T, score: float, *, ties_to_later: bool = False) -> bool:
        """True when ``item``, certified at ``score``, is now the best: it beats the best so
        far (or ties with it, with ``ties_to_later``, for a longer run's average)."""
        better = score < self.score or (ties_to_later and score <= self.score) or self.best is None
        if better:
            self.best, self.score = item, score
        return better

    def meets(self, score: float) -> bool:
        """True when ``score`` is at or below the target (never without one)."""
        return self.target is not None and score <= self.target

    def stop(self, status: Status) -> None:
        """End the run with ``status``: no further round starts."""
        self.status = status

    @contextmanager
    def guard(self, *, interrupt: bool = False) -> Iterator[None]:
        """Around a round's work: a deadline enforced inside it (:class:`DeadlineExpired`)
        ends the run at its time limit, with the best profile held; with ``interrupt``,
        Ctrl-C ends it with status ``interrupted`` once a profile is held (before that it
        propagates)."""
        try:
            yield
        except DeadlineExpired:
            self.stop(Status.TIME_LIMIT)
        except KeyboardInterrupt:
            if not interrupt or self.best is None:
                raise
            # the profile certified so far is an answer: the caller shows it, then ends
            # as an interrupt does
            self.stop(Status.INTERRUPTED)

    def result(self, no_profile: Callable[[Status], BaseException]) -> tuple[T, Status]:
        """The best item and the status the run stopped with (``iteration_limit`` when
        the loop ended without saying). Raises ``no_profile(status)`` when no item was
        certified."""
        status = self.status if self.status is not None else Status.ITERATION_LIMIT
        if self.best is None:
            raise no_profile(status)
        return self.best, status


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


@dataclass(frozen=True)
class SeedProfile:
    """A seed: the realization plans, their certified NashConv, CFR+'s iterations, how the
    profile was reached, in words, and its behaviour strategies (which also say what is
    played where a player's own play never arrives)."""

    plans: list[np.ndarray]
    nash_conv: float
    iterations: int
    how: str
    behaviors: list[np.ndarray]


def seed_profile(sf: SequenceForm, *, target: float, seconds: float, polish: bool = True) -> SeedProfile:
    """The best certified profile that CFR+ and, when that stalls above ``target``, the
    Liapunov descent and Newton's method on the support
    (:class:`~equilibria.solvers.liapunov.LiapunovFunction`) reach within ``seconds``.

    CFR+ runs for at most :data:`CFR_SHARE` of the time (all of it with two players, where
    it converges); with three or more players the rest goes to the local methods, started
    from CFR+'s average. Every profile is certified by exact best responses and only a
    lower certificate replaces the one held. ``polish=False``: CFR+ alone, for all the time."""
    start = time.perf_counter()
    stop = start + seconds
    treeplexes = [ps.treeplex for ps in sf.players]
    cfr = MultiplayerCFR(sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs, treeplexes)
    local = polish and sf.num_players > 2
    cfr_stop = start + CFR_SHARE * seconds if local else stop
    best_behaviors = cfr.average_behaviors()
    best = float(certify(sf, best_behaviors).nash_conv)
    batch = 10
    trail: list[tuple[float, float]] = []  # (seconds in, best so far)
    while best > target and time.perf_counter() < cfr_stop:
        cfr.iterate(batch)
        behaviors = cfr.average_behaviors()
        value = float(certify(sf, behaviors).nash_conv)
        if value < best:
            best, best_behaviors = value, behaviors
        batch = min(2 * batch, 1000)
        trail.append((time.perf_counter() - start, best))
        if local and _stalled(trail):
            break
    how = f"CFR+, {cfr.iterations} iterations"
    if best > target and local and time.perf_counter() < stop:
        polished, value, steps = _polish(sf, treeplexes, best_behaviors, target=target, deadline=stop)
        if value < best:
            best, best_behaviors = value, polished
            how += f", then {steps}"
    plans = [tp.realization(b) for tp, b in zip(treeplexes, best_behaviors)]
    return SeedProfile(plans, best, cfr.iterations, how, best_behaviors)


#: Share of a seed's seconds that CFR+ may take with three or more players.
CFR_SHARE = 0.5

#: With three or more players CFR+ stops after this many seconds once its best NashConv
#: has not halved over the second half of its run (it often stalls: three-player G_6 sits
#: near 3e-3 from its first seconds), leaving the time to the local methods.
CFR_STALL_SECONDS = 1.0


def _stalled(trail: list[tuple[float, float]]) -> bool:
    """True when CFR+ has run :data:`CFR_STALL_SECONDS` and its best NashConv at half its
    time is less than twice the best now."""
    now, best = trail[-1]
    if now < CFR_STALL_SECONDS:
        return False
    halfway = next(value for at, value in trail if at >= now / 2)
    return halfway < 2.0 * best


#: L-BFGS steps on the Liapunov function between two attempts of Newton's method.
DESCENT_CHUNK = 300

#: The thresholds above which an action counts as played when Newton's method fixes the
#: support (tried in turn: a wrong support fails, and the next is tried).
SUPPORT_THRESHOLDS = (1e-2, 1e-3, 1e-4)


def _polish(
    sf: SequenceForm, treeplexes: list, behaviors: list[np.ndarray], *, target: float, deadline: float
) -> tuple[list[np.ndarray], float, str]:
    """Newton's method on the support of ``behaviors``, then descent on the Liapunov
    function in chunks with Newton after each, until the certified NashConv is at most
    ``target`` or ``deadline`` passes: the best certified profile, its NashConv, and what
    produced it in words."""
    from ..solvers.liapunov import LiapunovFunction

    liapunov = LiapunovFunction(sf.terminal_sequences, sf.terminal_chance, sf.terminal_payoffs, treeplexes)
    best, best_value, how = behaviors, math.inf, ""
    current, descended = behaviors, 0

    def offer(candidate: list[np.ndarray] | None, words: str) -> None:
        nonlocal best, best_value, how
        if candidate is None:
            return
        value = float(certify(sf, candidate).nash_conv)
        if value < best_value:
            best, best_value, how = candidate, value, words

    while True:
        for played in SUPPORT_THRESHOLDS:
            if time.perf_counter() >= deadline:
                break
            after = f"{descended} Liapunov descent evaluations and " if descended else ""
            offer(liapunov.newton(current, played=played, deadline=deadline), f"{after}Newton's method on the support")
        if best_value <= target or time.perf_counter() >= deadline:
            break
        current, steps = liapunov.descend(current, iterations=DESCENT_CHUNK, deadline=deadline)
        descended += steps
        offer(current, f"{descended} Liapunov descent evaluations")
        if steps <= 1:  # the descent is stuck (a stationary point, or the deadline)
            break
    return best, best_value, how or "no change"


__all__ = [
    "Anytime",
    "SEED_SECONDS",
    "SEED_SHARE",
    "SEED_TARGET",
    "Round",
    "TimeLimitReached",
    "first_box",
    "rounds_lines",
    "rounds_table",
    "SeedProfile",
    "seed_profile",
]
