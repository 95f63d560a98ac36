"""The MIP Nash route: an equilibrium of a two-player general-sum game by mixed-integer
programming (Sandholm, Gilpin and Conitzer, "Mixed-integer programming methods for
finding Nash equilibria", 2005), for normal-form and extensive-form games alike.

>>> from equilibria.routes.nash.route import solve_nash
>>> answer = solve_nash("mipnash_test:k=3", objective="welfare")
>>> [round(p, 9) for p in answer.payoffs]
[3.0, 3.0]

The game's sequence form gives the program (:mod:`equilibria.formulations.mip_nash`; a
normal-form game is read as the extensive form in which the players choose without seeing
each other), a backend solves it, and the profile is certified by each player's exact best
response, whatever the formulation: the regrets printed are measured, not promised.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import numpy as np

from ...core.answer import Answer
from ...core.anytime import rounds_lines, rounds_table
from ...core.deadline import OutOfTime
from ...core.skeleton import Steps
from ...formulations.mip_nash import (
    DEFAULT_EPSILON,
    DEFAULT_PRODUCTS,
    MipNashProgram,
    check_objective,
    mip_nash,
    nash_model,
    read_profile,
)
from ...models import kuhn3_family
from ...models.best_response import Exploitability, certify
from ...models.checks import OptionError
from ...models.constant_sum import is_zero_sum
from ...models.dominance import dominated_sequences
from ...models.efg import ExtensiveGame
from ...models.errors import SolveFailed, SolverError
from ...models.kuhn3_family import FamilyMembership
from ...models.normal_form import NormalFormGame
from ...models.progress import stage
from ...models.sequence import SequenceForm
from ...models.strategy import behavior_from_realization
from ...models.wording import fixed
from ...solvers import Solution, Status
from ..options import NashOptions
from .enumeration import enumerate_equilibria
from .every import NashEquilibria, mixed_strategies, profile_entries, profile_lines
from .program import build_program, num_products, program_size, solve_program
from .rounds import NashRounds, solve_rounds


@dataclass(kw_only=True)
class NashSolution(Answer):
    """An equilibrium (or, stopped early, the best profile found) of a general-sum game.

    ``regrets`` are each player's exact best-response gain; ``normal_form`` is the game
    when it was given in normal form, with ``mixed`` its mixed strategies. For
    formulations 2-4, ``proven_bound`` is what the program's objective proves about the
    sum of the regrets of the returned profile (exact ones are in ``regrets``).
    """

    formulation: int
    objective: str
    regrets: list[float]
    mixed: list[np.ndarray] | None = None
    normal_form: NormalFormGame | None = None
    objective_value: float | None = None
    best_bound: float | None = None
    proven_bound: float | None = None
    products: str = "none"
    num_products: int = 0
    breakpoints: int | None = None
    promised_nash_conv: float = 0.0
    curve: list[dict] | None = None  # the rounds run (approximate products with epsilon)
    bound_at_answer: float | None = None  # NashConv bound the program proves at its solution
    problem: Any = None  # the LinearProgram (two players) or Pyomo model solved, for MPS/LP export
    published_family: FamilyMembership | None = None  # three-player Kuhn poker only
    #: True when the answer is the rounds' CFR+ seed: it met epsilon and no round's
    #: program gave a profile as good
    from_seed: bool = False
    #: the game's MIP Nash program over every profile at the answer's epsilon, built on
    #: demand (rounds solve boxed programs; this is the one to export); None: ``problem``
    whole_program: Callable[[], Any] | None = field(default=None, repr=False)
    #: why the rounds stopped above epsilon (status time_limit or iteration_limit), if so
    reason: str = ""

    def program_to_export(self) -> tuple[Any, str]:
        """The program ``nash --write`` writes and what it is: the game's program, not a
        round's (a round's is boxed around the incumbent and holds no other equilibrium)."""
        if self.whole_program is None:
            return self.problem, "the program solved"
        return self.whole_program(), (
            "the game's MIP Nash program over every profile (the rounds solved it boxed around the incumbent)"
        )

    @property
    def is_equilibrium(self) -> bool:
        """True when no player gains more than 1e-6 by deviating."""
        return max(self.regrets) <= 1e-6

    def profile(self) -> list[dict]:
        """Per player, per information set (numbered from 1 in the game's order, with its
        label) the action probabilities in the game's action order."""
        assert self.sequence_form is not None and self.behaviors is not None
        return profile_entries(self.sequence_form, self.behaviors)

    def report_lines(self) -> list[str]:
        """The answer as ``equilibria nash`` prints it: the profile, payoffs, exact regrets,
        the rounds, what the program promised and proved, its size and the seconds."""
        lines = [f"game            {self.game_name}" + ("" if not self.zero_sum else "  (zero-sum)")]
        lines.append(f"program         MIP Nash formulation {self.formulation}, objective {self.objective}")
        lines += self._profile_lines()
        lines.append("payoffs         " + ", ".join(f"{fixed(v, 9)}" for v in self.payoffs or []))
        regrets = ", ".join(f"{r:.3e}" for r in self.regrets)
        lines.append(f"regrets         {regrets}  (exact best responses; NashConv {self.nash_conv:.3e})")
        if self.published_family is not None:
            first, second = self.published_family.lines()
            lines += [f"family          {first}", f"                {second}"]
        lines += rounds_lines(self.curve or [])
        if self.from_seed:
            lines.append("answer          the CFR+ seed: it met epsilon, and no round's program gave a profile as good")
        lines += self._bound_lines()
        sizes = self.sizes
        lines.append(
            f"program size    {sizes['rows']} rows, {sizes['columns']} columns, {sizes['binaries']} binaries"
            + (f", {sizes['sos2']} SOS2 sets" if sizes.get("sos2") else "")
        )
        lines.append(f"status          {self.status} ({self.backend})")
        lines.extend(f"{'plan' if i == 0 else '':16}{reason}" for i, reason in enumerate(self.plan))
        if self.reason:
            lines.append(f"stopped         {self.reason}")
        lines.append("seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in self.seconds.items()))
        return lines

    def _profile_lines(self) -> list[str]:
        assert self.sequence_form is not None and self.behaviors is not None
        normal = self.normal_form if self.mixed is not None else None
        return profile_lines(self.sequence_form, self.behaviors, normal, "")

    def _bound_lines(self) -> list[str]:
        lines = []
        if self.num_products:
            detail = (
                "exact (bilinear)" if self.products == "exact" else f"{self.products}, {self.breakpoints} breakpoints"
            )
            at_answer = "" if self.bound_at_answer is None else f", proven at the answer <= {self.bound_at_answer:.3e}"
            lines.append(
                f"products        {self.num_products} of the others' weights, {detail}; "
                f"promised NashConv <= {self.promised_nash_conv:.3e}{at_answer}"
            )
        if self.formulation == 1 and self.objective != "any" and self.objective_value is not None:
            bound = "" if self.best_bound is None else f"; the solver's bound on it {fixed(self.best_bound, 9)}"
            lines.append(f"objective       {self.objective} {fixed(self.objective_value, 9)}{bound}")
        if self.proven_bound is not None:
            lines.append(
                f"proven bound    sum of regrets <= {self.proven_bound:.3e} (from the objective "
                f"{self.objective_value:.3e}"
                + (f" and the products' {self.promised_nash_conv:.3e})" if self.promised_nash_conv else ")")
            )
        return lines

    def details(self) -> dict:
        """Formulation, objective, regrets, bounds and the profile (JSON)."""
        out: dict[str, Any] = {
            "formulation": self.formulation,
            "objective": self.objective,
            "regrets": [float(r) for r in self.regrets],
            "is_equilibrium": self.is_equilibrium,
            "objective_value": self.objective_value,
            "best_bound": self.best_bound,
            "proven_bound": self.proven_bound,
            "products": self.products,
            "num_products": self.num_products,
            "breakpoints": self.breakpoints,
            "promised_nash_conv": self.promised_nash_conv,
            "profile": self.profile(),
        }
        if self.num_products:
            # the names threshold answers use, so that a sweep's columns mean one thing
            out["promised_epsilon"] = self.promised_nash_conv
            out["certified_epsilon"] = max((float(r) for r in self.regrets), default=0.0)
        if self.curve is not None:
            out["curve"] = self.curve
            out["rounds_run"] = len(self.curve)
        if self.bound_at_answer is not None:
            out["bound_at_answer"] = self.bound_at_answer
        if self.curve is not None:
            out["from_seed"] = self.from_seed
        if self.mixed is not None:
            out["mixed"] = [[float(v) for v in m] for m in self.mixed]
        if self.published_family is not None:
            out["published_family"] = self.published_family.to_dict()
        if self.reason:
            out["reason"] = self.reason
        return out


def solve_nash(game: Any, **options: Any) -> NashSolution:
    """Solve the MIP Nash program of ``formulation`` (1-4) with ``objective`` for the game
    ``game`` (a NormalFormGame, an ExtensiveGame, or anything the registry resolves) and
    certify the profile by exact best responses.

    Games of three or more players need products of the other players' realization
    weights: ``products`` names their representation (default ``log``; ``exact`` is
    bilinear, for a backend with the ``bilinear`` capability such as ``scip``), and
    ``breakpoints`` per square or, when it is not given, ``epsilon`` (the NashConv the
    approximation may cost, default 0.05) sets their precision. ``promised_nash_conv`` of
    the answer is that bound; the certificate measures the real NashConv.

    ``prune`` forbids the actions removed by iterated elimination of actions dominated at
    every node of their information set (:mod:`equilibria.models.dominance`): every
    equilibrium of the reduced game is one of the full game, and the certificate is
    computed in the full game. ``linearize`` writes the products' own sequence-form
    equations (:func:`equilibria.formulations.mip_nash.mip_nash`), a tighter relaxation.

    With approximate products, formulation 1 and objective ``any``, unless ``breakpoints``
    is given without ``epsilon`` (one program on that grid, as a sweep over breakpoints
    wants), the route runs rounds (:mod:`equilibria.routes.nash.rounds`): a CFR+ seed, then
    programs boxed ever closer around the incumbent, until the certified NashConv is at
    most ``epsilon`` (default 0.05); ``rounds`` caps them and ``time_limit`` bounds the
    whole call. ``curve`` lists the rounds and ``bound_at_answer`` is the NashConv the
    program proves at its solution.

    ``method`` picks among the backend's solvers (OR-Tools: ``scip`` or ``cp_sat``).

    ``all=True`` (or ``count``) lists every equilibrium instead, as a
    :class:`~equilibria.routes.nash.every.NashEquilibria` (the methods:
    :mod:`equilibria.routes.nash.enumeration`; :func:`~equilibria.routes.nash.every.all_equilibria`
    is that call).

    Runs through the route skeleton (:func:`equilibria.core.skeleton.solve`); raises
    OptionError for a bad option and SolveFailed when the backend returns no
    profile (with formulation 1 and a time limit, it may find none in time; formulations
    2-4 always have one to return).
    """
    from ...core.skeleton import solve as solve_route

    return cast(NashSolution, solve_route(game, "nash", **options))


class MipNash(Steps):
    """The ``nash`` route's steps: the game's sequence form, MIP Nash (in rounds for
    approximate products of three or more players), the profile certified; with ``all``
    or ``count``, every equilibrium the chosen method lists, each certified."""

    Options = NashOptions
    build_key = "sequence_form"
    build_message = "building the sequence form"

    def build(self, view: NormalFormGame | ExtensiveGame, options: NashOptions) -> tuple[Any, ExtensiveGame, Any]:
        normal = view if isinstance(view, NormalFormGame) else None
        extensive = view.to_extensive() if isinstance(view, NormalFormGame) else view
        check_objective(options.objective, options.formulation, extensive.num_players)
        return normal, extensive, SequenceForm(extensive)

    def solve(
        self, problem: tuple[Any, ExtensiveGame, SequenceForm], options: NashOptions, deadline: float | None
    ) -> NashSolution | NashEquilibria:
        if options.enumerates:
            return enumerate_equilibria(*problem, options, deadline)
        return _solve_nash(*problem, options, deadline)


@dataclass(frozen=True)
class _Solved:
    """The MIP Nash program solved and what came of it: ``model`` is its Pyomo model (None
    for a program without products), ``values`` the column values read from the backend's
    solution (None: it gave none), ``rounds`` the rounds' outcome when the program ran in
    rounds, and ``whole_program`` then builds the game's program over every profile."""

    lp: MipNashProgram
    model: Any
    solution: Solution
    values: np.ndarray | None
    representation: str
    size: dict[str, int]
    seconds: dict[str, float]
    rounds: NashRounds | None = None
    whole_program: Callable[[], Any] | None = None


@dataclass(frozen=True)
class _Certified:
    """The profile read from the solution as behaviour strategies, its exact certificate,
    and the seconds taken from the solve's end to the certificate."""

    behaviors: list[np.ndarray]
    certificate: Exploitability
    seconds: float


def _solve_nash(
    normal: NormalFormGame | None,
    extensive: ExtensiveGame,
    sf: SequenceForm,
    options: NashOptions,
    deadline: float | None,
) -> NashSolution:
    """The NashSolution of the game's MIP Nash program, solved once or in rounds, with its
    profile certified by exact best responses (:func:`solve_nash` says what it raises)."""
    time_limit = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
    representation = options.products or DEFAULT_PRODUCTS
    if _uses_rounds(options, extensive.num_players, representation):
        solved = _solve_in_rounds(extensive, sf, options, representation, deadline)
    else:
        solved = _solve_one_program(extensive, sf, options, representation, time_limit)
    certified = _certify_profile(solved, sf, options.backend, time_limit)
    return _nash_solution(normal, sf, options, solved, certified)


def _uses_rounds(options: NashOptions, players: int, representation: str) -> bool:
    """True when the route runs rounds: approximate products of three or more players,
    formulation 1 and objective any, unless ``breakpoints`` without ``epsilon`` asks for
    one program on that grid. Raises OptionError when ``rounds`` is given otherwise."""
    use_rounds = (
        players >= 3
        and representation != "exact"
        and options.formulation == 1
        and options.objective == "any"
        and not (options.breakpoints is not None and options.epsilon is None)
    )
    if options.rounds is not None and not use_rounds:
        raise OptionError(
            "--rounds refines approximate products of three or more players with formulation 1, "
            "objective any and --epsilon; this call solves one program"
        )
    return use_rounds


def _solve_in_rounds(
    extensive: ExtensiveGame, sf: SequenceForm, options: NashOptions, representation: str, deadline: float | None
) -> _Solved:
    """The best round's program and solution (:func:`~equilibria.routes.nash.rounds.solve_rounds`),
    with the rounds' outcome; the rounds build and solve in turn, so their seconds are one
    figure."""
    t1 = time.perf_counter()
    forbidden = dominated_sequences(extensive, sf) if options.prunes else None
    target = DEFAULT_EPSILON if options.epsilon is None else float(options.epsilon)
    outcome = solve_rounds(
        sf,
        backend=options.backend,
        representation=representation,
        target=target,
        breakpoints=options.breakpoints,
        forbidden=forbidden,
        linearize=options.linearize,
        rounds=options.rounds,
        deadline=deadline,
        verbose=options.verbose,
        method=options.method,
    )
    return _Solved(
        lp=outcome.lp,
        model=outcome.model,
        solution=outcome.solution,
        values=outcome.values,
        representation=representation,
        size=program_size(outcome.lp, outcome.model),
        seconds={"rounds": time.perf_counter() - t1},
        rounds=outcome,
        whole_program=partial(_whole_program, sf, target, representation, forbidden, options.linearize),
    )


def _solve_one_program(
    extensive: ExtensiveGame, sf: SequenceForm, options: NashOptions, representation: str, time_limit: float | None
) -> _Solved:
    """The game's MIP Nash program of the options' formulation and objective, solved once
    within ``time_limit`` seconds (the products, if any, in a Pyomo model)."""
    t1 = time.perf_counter()
    with stage(f"building MIP Nash (formulation {options.formulation})"):
        forbidden = dominated_sequences(extensive, sf) if options.prunes else None
        lp, model = build_program(sf, options, representation, forbidden)
    t2 = time.perf_counter()
    size = program_size(lp, model)
    with stage(f"solving MIP Nash ({size['rows']:,} rows, {size['columns']:,} columns) with {options.backend}"):
        solved = solve_program(lp, model, options, time_limit)
        sol, x = solved.solution, solved.values
    seconds = {"build": t2 - t1, "solve": time.perf_counter() - t2}
    return _Solved(
        lp=lp, model=model, solution=sol, values=x, representation=representation, size=size, seconds=seconds
    )


def _profile_values(solved: _Solved, sf: SequenceForm, backend: str, time_limit: float | None) -> np.ndarray:
    """The column values of the backend's solution, checked to hold a profile. Raises
    SolverError or SolveFailed when the backend found the program without solution, and
    OutOfTime or SolveFailed when it returned no finite profile."""
    sol, x = solved.solution, solved.values
    if sol.status in (Status.INFEASIBLE, Status.INFEASIBLE_OR_UNBOUNDED, Status.UNBOUNDED, Status.ERROR):
        # a point a backend leaves behind with such a status is no profile of the program;
        # and every finite game has an equilibrium, so infeasibility is the program's fault
        largest = float(np.abs(sf.terminal_payoffs).max(initial=0.0))
        if largest > 1e9:  # as for the LP: payoffs beyond what a floating-point solver resolves
            raise SolverError(
                f"MIP Nash: backend {backend} found the program {sol.status}; payoffs up to {largest:.3g} are "
                "beyond what floating-point solvers resolve: rescale them"
            )
        raise SolveFailed(
            f"MIP Nash: backend {backend} found the program {sol.status}, which no game's program is "
            f"(every finite game has an equilibrium): no answer ({sol.message})"
        )
    if x is None or not np.all(np.isfinite(x[: solved.lp.layout.offset["w"]])):
        if sol.status == Status.TIME_LIMIT:
            limit = "its time limit" if time_limit is None else f"the time limit of {time_limit:g} s"
            raise OutOfTime(f"MIP Nash: backend {backend} found no profile within {limit}")
        raise SolveFailed(f"MIP Nash: backend {backend} returned no profile (status {sol.status}: {sol.message})")
    return x


def _certify_profile(solved: _Solved, sf: SequenceForm, backend: str, time_limit: float | None) -> _Certified:
    """The solution's profile (the rounds' CFR+ seed when that is their answer) as behaviour
    strategies, certified by exact best responses; raises as :func:`_profile_values`."""
    t3 = time.perf_counter()
    x = _profile_values(solved, sf, backend, time_limit)
    outcome = solved.rounds
    plans = outcome.plans if outcome is not None and outcome.from_seed else read_profile(solved.lp, x)[0]
    behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(sf.num_players)]
    with stage("certifying by exact best responses"):
        cert = certify(sf, behaviors)
    return _Certified(behaviors, cert, time.perf_counter() - t3)


def _nash_solution(
    normal: NormalFormGame | None, sf: SequenceForm, options: NashOptions, solved: _Solved, certified: _Certified
) -> NashSolution:
    """The NashSolution of the certified profile: its exact regrets, the program's size,
    objective and bounds, and the rounds run, if any."""
    lp, sol, outcome = solved.lp, solved.solution, solved.rounds
    behaviors, cert = certified.behaviors, certified.certificate
    regrets = [float(v) for v in np.maximum(cert.best_response_values - cert.payoffs, 0.0)]
    objective_value = None if sol.objective is None else float(sol.objective)
    layout = lp.layout
    promised = float(layout.promised)
    proven = None
    if options.formulation != 1 and objective_value is not None:
        proven = layout.bound_factor * max(objective_value, 0.0) + promised
    # rounds that stopped above epsilon report why (time or rounds), not their best solve's status
    status = sol.status if outcome is None or outcome.status == Status.OPTIMAL else outcome.status
    products = num_products(lp)
    return NashSolution(
        route="nash",
        game_name=sf.game.title or (normal.title if normal else "game"),
        status=status,
        reason="" if outcome is None else outcome.reason,
        backend=options.backend,
        method=None,
        value=float(cert.payoffs[0]),
        certificate=cert,
        certified_in="the game",
        sequence_form=sf,
        behaviors=behaviors,
        sizes=solved.size,
        seconds=solved.seconds | {"verify": certified.seconds},
        zero_sum=is_zero_sum(sf.terminal_payoffs),
        formulation=options.formulation,
        objective=options.objective,
        regrets=regrets,
        mixed=mixed_strategies(normal, sf, behaviors),
        normal_form=normal,
        objective_value=objective_value,
        best_bound=None if sol.dual_objective is None else float(sol.dual_objective),
        proven_bound=proven,
        products="none" if not products else solved.representation,
        num_products=products,
        breakpoints=layout.breakpoints,
        promised_nash_conv=promised,
        curve=None if outcome is None else rounds_table(outcome.rounds),
        bound_at_answer=None if outcome is None or outcome.from_seed else outcome.bound,
        problem=lp if solved.model is None else solved.model,
        published_family=kuhn3_family.membership(sf, behaviors) if sf.num_players == 3 else None,
        from_seed=outcome is not None and outcome.from_seed,
        whole_program=solved.whole_program,
    )


def _whole_program(
    sf: SequenceForm, epsilon: float, representation: str, forbidden: list[np.ndarray] | None, linearize: bool
) -> Any:
    """The Pyomo model of the game's MIP Nash program (formulation 1, objective any) over
    every profile, its products approximated to ``epsilon``."""
    lp = mip_nash(sf, 1, "any", epsilon=epsilon, forbidden=forbidden, linearize=linearize)
    return nash_model(lp, representation=representation)


__all__ = ["MipNash", "NashSolution", "solve_nash"]
