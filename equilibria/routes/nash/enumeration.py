"""How ``equilibria nash GAME --all`` (and ``--count K``) lists equilibria, and why.

Three methods, chosen per game by ``enumeration`` (``auto``: the first that applies of
the first two), each an anytime loop on :class:`~equilibria.core.anytime.Anytime`, so that
the time limit and Ctrl-C end it with the equilibria found so far:

* ``vertices`` (two-player games in normal form): every extreme equilibrium, as the
  completely labelled vertex pairs of the two best-response polytopes
  (:mod:`equilibria.solvers.vertex_enumeration`; von Stengel, "Computing equilibria for
  two-person games", 2002; Avis, Rosenberg, Savani and von Stengel, "Enumeration of Nash
  equilibria for two-player games", 2010), what Gambit's ``enummixed`` lists. Complete:
  every equilibrium of the game is a convex combination of listed ones within one of the
  maximal Nash subsets the answer names.
* ``supports`` (any game, extensive or normal form, any number of players): MIP Nash
  (formulation 1) solved again and again, each time with a no-good row cutting off the
  supports found (Sandholm, Gilpin and Conitzer, "Mixed-integer programming methods for
  finding Nash equilibria", 2005), until the program is infeasible. Every sequence the
  program lets be played has realization weight at least
  :data:`~equilibria.routes.nash.program.SUPPORT_FLOOR`, so a program's binaries are its
  profile's support and each cut removes that support alone: the list holds one
  equilibrium per support on which the game has one (an equilibrium playing a sequence
  with less weight is not listed; a support holding a continuum of equilibria gives one of
  them). With three or more players and approximate products, the programs' points are
  the epsilon-equilibria their products allow: each listed profile's certificate says
  how far it is from an equilibrium.
* ``lemke`` (two players, either form): Lemke's method on the sequence form's LCP
  (:mod:`equilibria.routes.lcp`) from ``starts`` covering vectors, the default one and then
  random ones; each path ends at an equilibrium, often one already listed. Fast and
  partial: never complete.

``objective`` orders the list (best first; formulation 1's objectives): for ``supports``
it is the programs' objective, so that ``count`` K gives the K best supports; the other
methods sort what they found (with ``count``, ``vertices`` lists every extreme
equilibrium first, then keeps the K best).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.anytime import Anytime
from ...core.deadline import OutOfTime
from ...formulations.mip_nash import DEFAULT_PRODUCTS, MipNashProgram, nash_model, read_profile
from ...models.checks import OptionError
from ...models.dominance import dominated_sequences
from ...models.efg import ExtensiveGame
from ...models.errors import NoAnswerError, SolveFailed
from ...models.normal_form import NormalFormGame
from ...models.progress import stage
from ...models.sequence import SequenceForm
from ...models.strategy import behavior_from_realization
from ...models.wording import plural
from ...solvers import Status
from ...solvers.vertex_enumeration import ExtremeEquilibria
from ..options import DEFAULT_STARTS, NashOptions
from .every import Equilibrium, NashEquilibria, certified_equilibrium, is_listed, mixed_strategies, ordered
from .program import SUPPORT_FLOOR, build_program, centred, program_size, read_binaries, solve_program

_log = logging.getLogger(__name__)

#: Seconds into an enumeration before it logs how many it has listed, and between two such lines.
SAY_AFTER = 2.0
SAY_EVERY = 5.0

#: Why each method lists what it lists, as the answer says it.
REASONS = {
    "vertices": "two-player normal form: every extreme equilibrium, the completely labelled vertex pairs of the "
    "best-response polytopes (as Gambit's enummixed)",
    "supports": "MIP Nash solved again with a no-good cut on each support found: one equilibrium per support, "
    f"each played sequence with weight at least {SUPPORT_FLOOR:g}",
    "lemke": "Lemke's method from several covering vectors: a fast, partial list",
}


def choose(normal: NormalFormGame | None, players: int, enumeration: str) -> tuple[str, str]:
    """The method (``vertices``, ``supports`` or ``lemke``) for a game given in normal form
    (``normal``) or not, with ``players`` players, and the reason; OptionError naming
    ``enumeration`` when the game is not one the method takes."""
    two_normal = normal is not None and players == 2
    if enumeration == "auto":
        method = "vertices" if two_normal else "supports"
        why = "" if two_normal else ("; vertex enumeration takes two-player games in normal form")
        return method, REASONS[method] + why
    if enumeration == "vertices" and not two_normal:
        form = "normal" if normal is not None else "extensive"
        raise OptionError(
            f"enumeration vertices takes two-player games in normal form; this one has {players} players in "
            f"{form} form (use enumeration supports or lemke)"
        )
    if enumeration == "lemke" and players != 2:
        raise OptionError(
            f"enumeration lemke takes two-player games; this one has {players} (use enumeration supports)"
        )
    return enumeration, REASONS[enumeration]


@dataclass
class _Listing:
    """One enumeration under way: the game, the options, the driver, the equilibria listed
    so far and what the method reports beside them."""

    method: str
    normal: NormalFormGame | None
    extensive: ExtensiveGame
    sf: SequenceForm
    options: NashOptions
    run: Anytime[list[Equilibrium]]
    found: list[Equilibrium] = field(default_factory=list)
    backend: str | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    #: what the list is when the method ran to its end, in words
    finished: str = ""
    started: float = field(default_factory=time.perf_counter)
    said: float = -math.inf

    def offer(self, behaviors: list[np.ndarray], vertices: tuple[int, int] | None = None) -> None:
        """Certify a profile and list it unless it is listed; end the run with
        ``solution_limit`` once ``count`` are listed, unless the list is to be sorted
        first (``sort_all``)."""
        mixed = mixed_strategies(self.normal, self.sf, behaviors)
        equilibrium = certified_equilibrium(self.sf, behaviors, mixed=mixed, vertices=vertices)
        if not is_listed(equilibrium, self.found):
            self.found.append(equilibrium)
            self.run.keep(self.found, -float(len(self.found)))  # holds a profile: Ctrl-C answers
            self._say()
        count = self.options.count
        if count is not None and len(self.found) >= count and not self.sort_all:
            self.run.stop(Status.SOLUTION_LIMIT)

    def _say(self) -> None:
        """Log how many are listed, once the run is :data:`SAY_AFTER` seconds old and at
        most every :data:`SAY_EVERY` seconds (a short run says nothing)."""
        now = time.perf_counter()
        if now - self.started >= SAY_AFTER and now - self.said >= SAY_EVERY:
            self.said = now
            _log.info("%s listed so far", plural(len(self.found), "equilibrium", "equilibria"))

    @property
    def sort_all(self) -> bool:
        """True when the list is sorted after it is complete: an objective, and a method
        whose order is not the objective's (the programs of ``supports`` find the best
        remaining support first)."""
        return self.options.objective != "any" and self.method != "supports"


def enumerate_equilibria(
    normal: NormalFormGame | None,
    extensive: ExtensiveGame,
    sf: SequenceForm,
    options: NashOptions,
    deadline: float | None,
) -> NashEquilibria:
    """Every equilibrium the chosen method lists (module docstring), ordered by the
    objective and at most ``count``, each certified. Raises OutOfTime when the time limit
    comes before the first, SolveFailed when the method found none otherwise, and
    KeyboardInterrupt on Ctrl-C before the first (after it, the list is the answer, status
    ``interrupted``)."""
    method, reason = choose(normal, sf.num_players, options.enumeration)
    t0 = time.perf_counter()
    listing = _Listing(method, normal, extensive, sf, options, Anytime(deadline=deadline))
    run = {"vertices": _by_vertices, "supports": _by_supports, "lemke": _by_lemke}[method]
    run(listing)
    found, status = listing.run.result(_no_profile(method))
    listed = ordered(found, options.objective)
    if options.count is not None and len(listed) > options.count:
        listed, status = listed[: options.count], Status.SOLUTION_LIMIT
    stopped = _stopped(status, listing, len(found), len(listed))
    if len(found) == len(listed) > 1 and options.objective != "any":
        stopped += f"; ordered by {options.objective}"
    return NashEquilibria.of(
        listed,
        sf,
        status=status,
        backend=listing.backend,
        sizes=listing.sizes,
        seconds={"enumerate": time.perf_counter() - t0},
        enumeration=method,
        reason=reason,
        complete=status in (Status.OPTIMAL,) and method != "lemke",
        stopped=stopped,
        objective=options.objective,
        count=options.count,
        normal_form=normal,
    )


def _no_profile(method: str) -> Callable[[Status], NoAnswerError]:
    """The error of a run that listed nothing, by why it stopped."""

    def error(status: Status) -> NoAnswerError:
        if status == Status.TIME_LIMIT:
            return OutOfTime(f"enumeration {method}: the time limit was reached before the first equilibrium")
        if method == "lemke":
            return SolveFailed("enumeration lemke: no covering vector's path ended at an equilibrium (more starts)")
        return SolveFailed(
            f"enumeration {method}: no equilibrium was found (with supports: none plays every sequence of its "
            f"support with weight {SUPPORT_FLOOR:g} or more)"
        )

    return error


def _stopped(status: Status, listing: _Listing, found: int, listed: int) -> str:
    """Why the list ends, in words."""
    if status == Status.SOLUTION_LIMIT:
        if found > listed:
            return f"the {listed} best by {listing.options.objective} of the {found} found"
        return f"count {listing.options.count} reached: there may be more"
    if status == Status.TIME_LIMIT:
        return "stopped at the time limit: there may be more"
    if status == Status.INTERRUPTED:
        return "interrupted: there may be more"
    return listing.finished


def _by_vertices(listing: _Listing) -> None:
    """Vertex enumeration of the two best-response polytopes (module docstring)."""
    normal, run = listing.normal, listing.run
    assert normal is not None
    search = ExtremeEquilibria(normal.payoffs[0], normal.payoffs[1], stop=run.out_of_time)
    with stage("enumerating the vertices of both best-response polytopes"), run.guard(interrupt=True):
        for extreme in search:
            profile = [extreme.row, extreme.column]
            listing.offer(normal.behaviors(profile, listing.sf), (extreme.row_vertex, extreme.column_vertex))
            if run.status is not None:
                break
    listing.sizes = {"row_vertices": search.row_vertices, "column_vertices": search.column_vertices}
    listing.finished = "every extreme equilibrium (both polytopes' vertices searched to the end)"
    if run.status is None:
        run.stop(Status.OPTIMAL if search.complete else Status.TIME_LIMIT)


def _by_supports(listing: _Listing) -> None:
    """MIP Nash with a no-good cut per support found, until infeasible (module docstring)."""
    sf, options, run = listing.sf, listing.options, listing.run
    representation = options.products or DEFAULT_PRODUCTS
    forbidden = dominated_sequences(listing.extensive, sf) if options.prunes else None
    listing.backend = options.backend
    listing.finished = "one per support: with every support found cut off, the program is infeasible"
    cuts: list[list[np.ndarray]] = []
    for _ in run.rounds():
        with run.guard(interrupt=True):
            with stage(f"MIP Nash with {plural(len(cuts), 'support')} cut off ({options.backend})"):
                lp, model = build_program(sf, options, representation, forbidden, excluded=cuts, floor=SUPPORT_FLOOR)
                left = run.time_left()
                solved = solve_program(lp, model, options, None if left is None else max(left, 1e-3))
            listing.sizes = program_size(lp, model)
            status, x = solved.solution.status, solved.values
            if status in (Status.INFEASIBLE, Status.INFEASIBLE_OR_UNBOUNDED):
                run.stop(Status.OPTIMAL)
                continue
            if x is None or not np.all(np.isfinite(x[: lp.layout.offset["w"]])):
                if status == Status.TIME_LIMIT:
                    run.stop(Status.TIME_LIMIT)
                    continue
                raise SolveFailed(f"MIP Nash: backend {options.backend} returned no profile ({status})")
            binaries = read_binaries(lp, x)
            cuts.append(binaries)
            # no objective to keep and exact payoffs: the support's central profile (with
            # approximate products the centre of the region they allow is no closer to an equilibrium)
            central = options.objective == "any" and (model is None or representation == "exact")
            centre = _centre(lp, model, binaries, options, run) if central else None
            x = x if centre is None else centre
            if not _plays(lp, x, binaries):
                continue  # its binaries held within the solver's tolerances only: not this support's profile
            plans = read_profile(lp, x)[0]
            listing.offer([behavior_from_realization(ps, plan) for ps, plan in zip(sf.players, plans, strict=True)])


def _plays(lp: MipNashProgram, x: np.ndarray, binaries: list[np.ndarray]) -> bool:
    """True when the solution plays every sequence its binaries allow with at least half
    the floor (the empty sequence aside)."""
    offset, sizes = lp.layout.offset, lp.layout.sizes
    for p, n in enumerate(sizes):
        weights = x[offset[f"x{p}"] : offset[f"x{p}"] + n]
        if np.any(weights[1:][binaries[p][1:] < 0.5] < 0.5 * SUPPORT_FLOOR):
            return False
    return True


def _centre(
    lp: MipNashProgram, model: Any, binaries: list[np.ndarray], options: NashOptions, run: Anytime[Any]
) -> np.ndarray | None:
    """The column values of the support's profile whose least played weight is largest
    (:func:`~equilibria.routes.nash.program.centred`), or None when the time left gave
    none."""
    program = centred(lp, binaries)
    products = None if model is None else nash_model(program, representation=options.products or DEFAULT_PRODUCTS)
    left = run.time_left()
    solved = solve_program(program, products, options, None if left is None else max(left, 1e-3))
    x = solved.values
    if x is None or solved.solution.status != Status.OPTIMAL or not np.all(np.isfinite(x[: lp.num_cols])):
        return None
    return x[: lp.num_cols]


def _by_lemke(listing: _Listing) -> None:
    """Lemke's method from ``starts`` covering vectors (module docstring)."""
    from ..lcp import LemkeLCP  # imported by the one method that pivots
    from ..options import LCPOptions

    options, run = listing.options, listing.run
    starts = options.starts or DEFAULT_STARTS
    run.max_rounds = starts
    steps = LemkeLCP()
    problem = steps.build(listing.extensive, LCPOptions())
    listing.backend = "lemke"
    failed = 0
    for index in run.rounds():
        seed = None if index == 1 else index - 2  # the default covering vector, then seeds 0, 1, ...
        with run.guard(interrupt=True):
            try:
                outcome: Any = steps.solve(problem, LCPOptions(seed=seed), run.deadline)
            except OutOfTime:
                run.stop(Status.TIME_LIMIT)
                continue
            except (SolveFailed, ValueError):  # a ray, a singular basis, a vector that mends no start
                failed += 1
                continue
            listing.offer(list(outcome.behaviors))
    listing.sizes = {"starts": run.started, "failed_paths": failed}
    listing.finished = f"what {plural(run.started, 'covering vector')} led to: a partial list"


__all__ = ["REASONS", "choose", "enumerate_equilibria"]
