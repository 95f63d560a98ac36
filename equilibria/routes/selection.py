"""Which equilibrium: the best or the worst of a two-player zero-sum game's equilibria for
a stated objective, by one LP over each player's optimal face
(:func:`~equilibria.formulations.optimal_face.optimal_face_lp`).

The objective is each player's payoff against a stated strategy of the opponent: the
opponent's strategy in a file (``against``, as ``--strategy-out`` writes them or any file
``certify`` reads), or uniform play where the file gives none or no file is named. ``best`` maximises it over
the player's maximin strategies, ``worst`` minimises it; either way the pair stays an
equilibrium, certified as every answer is. The objective at the LP's own vertex and at the
selected strategy is reported beside it.

For an abstraction's equilibrium the objective can be what its strategy guarantees in the
original game once lifted there (:func:`best_in_original`): the best or the worst of the
abstraction's equilibrium strategies for the original game, the range Ganzfried and
Sandholm's Figure 2 ("Computing equilibria by incorporating qualitative models", 2010)
needs. The best is one LP; the worst is no LP (a guarantee is a minimum over the
opponent's replies, concave in the strategy) but one MILP, which may stop at its time
limit with the range the worst lies in.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import scipy.sparse as sp

from ..formulations.linear_program import LinearProgram
from ..formulations.optimal_face import optimal_face_lp
from ..formulations.sequence_form_lp import best_abstract_equilibrium_lp, realization_plan
from ..models.best_response import certify
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..models.strategy import behavior_from_realization, realization_from_behavior
from ..solvers import Solution, Status, solve
from .run import LPRun

#: The guarantee's slack below the value (relative), tried in turn: the value is a
#: solver's, and a face held at it to the last digits can be infeasible by them.
FACE_TOLERANCES = (1e-12, 1e-9)


def opponent_strategies(sf: SequenceForm, against: str | None, game_name: str) -> list[tuple[np.ndarray, str]]:
    """Per player, the behaviour strategy the opponent's objective is measured against and
    what it is: the file ``against``'s, or the uniform strategy where the file gives none
    for that player (or no file is named)."""
    given = {}
    if against is not None:
        from ..models.strategy_files import read_strategy_file

        given = read_strategy_file(against, sf, game_name).behaviors
    return [
        (given[p], f"player {p + 1}'s strategy in {against}") if p in given else (ps.treeplex.uniform(), "uniform play")
        for p, ps in enumerate(sf.players)
    ]


def select_equilibrium(
    sf: SequenceForm,
    run: LPRun,
    select: str,
    against: str | None,
    backend: str,
    *,
    constant: float,
    game_name: str,
    time_limit: float | None = None,
) -> LPRun:
    """``run`` with each player's strategy replaced by the ``select`` (``best`` or
    ``worst``) of its equilibrium strategies for the payoff against ``against`` (see the
    module), certified again; the plan says what was selected and the objective's values.
    ``range``: both are solved, the plan gives the range of payoffs the equilibria span,
    and ``run``'s strategies stay."""
    if select not in ("best", "worst", "range"):
        raise ValueError(f"select must be best, worst or range, not {select!r}")
    if run.status != Status.OPTIMAL:
        return _not_selected(run, select)
    opponents = opponent_strategies(sf, against, game_name)
    values = (run.value, constant - run.value)
    behaviors, lines = [], []
    for p in (0, 1):
        o = 1 - p
        plan_o = realization_from_behavior(sf.players[o], opponents[o][0])
        payoff = sf.payoff_matrix(p)
        objective = payoff @ plan_o if p == 0 else payoff.T @ plan_o
        ends = {}
        for side in ("best", "worst") if select == "range" else (select,):
            ends[side] = _solved_plan(
                partial(optimal_face_lp, sf, p, values[p], objective, maximize=side == "best"),
                backend,
                time_limit,
                f"--select {select}: player {p + 1}'s optimal-face LP",
            )
        at_vertex = float(objective @ realization_from_behavior(sf.players[p], run.behaviors[p]))
        payoffs = {side: float(objective @ plan) for side, plan in ends.items()}
        what = f"player {p + 1}'s payoff against {opponents[o][1]}"
        lines.append(_selection_line(select, what, at_vertex, payoffs, lambda x: f"{x:.6f}"))
        behaviors.append(_chosen(sf, p, run, select, ends))
    return dataclasses.replace(run, behaviors=behaviors, certificate=certify(sf, behaviors), plan=[*run.plan, *lines])


def _not_selected(run: LPRun, select: str) -> LPRun:
    """``run`` as it is, its plan saying why: an LP stopped before its optimum (at a time
    limit) has no optimal face to select from."""
    return dataclasses.replace(
        run, plan=[*run.plan, f"--select {select} not applied: the LP ended {run.status} before its optimum"]
    )


def _face_solution(
    build: Callable[..., LinearProgram], backend: str, time_limit: float | None, scale: float = 1.0
) -> tuple[LinearProgram, Solution]:
    """The program ``build(tolerance=...)`` and its solution, the tolerances of
    :data:`FACE_TOLERANCES` (times ``scale``) tried in turn while it is infeasible."""
    for tolerance in FACE_TOLERANCES:
        program = build(tolerance=tolerance * scale)
        solution = solve(program, backend if backend != "auto" else "highs", time_limit=time_limit)
        if solution.status != Status.INFEASIBLE:
            break
    return program, solution


def _solved_plan(
    build: Callable[..., LinearProgram], backend: str, time_limit: float | None, what: str, scale: float = 1.0
) -> np.ndarray:
    """The realization plan solving ``build(tolerance=...)`` (:func:`_face_solution`);
    SolveFailed naming ``what`` when none is solved."""
    lp, solution = _face_solution(build, backend, time_limit, scale)
    if solution.status != Status.OPTIMAL or solution.x is None:
        raise SolveFailed(f"{what} ended {solution.status}")
    return realization_plan(lp, solution.x)


#: Seconds each player's worst-equilibrium MILP may take when the run has no time limit:
#: the worst guarantee is a concave minimisation, and its MILP's bound closes slowly
#: (Ganzfried and Sandholm's G_250 in 2 buckets: within 5e-3 of the worst in 30 s, not
#: closed in 120 s). Stopped there, the answer is the worst strategy found, with the range
#: the worst lies in.
WORST_SECONDS = 60.0
#: The share of a run's remaining time limit the two worst-equilibrium MILPs take.
WORST_SHARE = 0.9


def best_in_original(
    sf: SequenceForm,
    run: LPRun,
    original_sf: SequenceForm,
    lifts: Sequence[sp.spmatrix],
    backend: str,
    *,
    constant: float,
    original_constant: float,
    time_limit: float | None = None,
    select: str = "best",
) -> LPRun:
    """``run``, an equilibrium of the abstraction ``sf``, with each player's strategy
    replaced by the abstraction's equilibrium strategy whose lift to ``original_sf``
    guarantees most there (``select="best"``: one LP,
    :func:`~equilibria.formulations.sequence_form_lp.best_abstract_equilibrium_lp`) or
    least (``"worst"``: one MILP,
    :func:`~equilibria.formulations.worst_abstract_equilibrium.worst_abstract_equilibrium_milp`,
    within ``time_limit`` or :data:`WORST_SECONDS`; stopped there, the worst strategy it
    found, and the range the worst guarantee lies in); ``"range"``: both, the plan giving
    the range of guarantees the abstraction's equilibria span, ``run``'s strategies kept;
    ``lifts[p]`` takes player ``p``'s
    realization plans of ``sf`` to the original's. Certified again in the abstraction.
    The plan gives each player's guarantee in the original game at the LP's vertex and at
    the selected strategy, measured by exact best responses there; ``constant`` and
    ``original_constant`` are what the payoffs add up to in each game."""
    if select not in ("best", "worst", "range"):
        raise ValueError(f"select must be best, worst or range, not {select!r}")
    if run.status != Status.OPTIMAL:
        return _not_selected(run, select)
    values = (run.value, constant - run.value)
    behaviors, lines = [], []
    # the worst MILPs share the time (a tenth kept for the certificates after them)
    ends = None if time_limit is None else time.perf_counter() + WORST_SHARE * time_limit
    for p in (0, 1):

        def guarantee(plan: np.ndarray, p: int = p) -> float:
            return _guarantee(original_sf, p, lifts[p] @ plan, original_constant)

        vertex = realization_from_behavior(sf.players[p], run.behaviors[p])
        at_vertex = guarantee(vertex)
        plans: dict[str, np.ndarray] = {}
        guarantees: dict[str, float] = {}
        milp = ""
        if select in ("best", "range"):
            plans["best"] = _solved_plan(
                partial(best_abstract_equilibrium_lp, sf, original_sf, lifts[p], values[p], player=p),
                backend,
                time_limit,
                f"--select {select}: player {p + 1}'s best-equilibrium LP",
                scale=max(1.0, abs(values[p])),  # its tolerance is absolute
            )
            guarantees["best"] = guarantee(plans["best"])
        if select in ("worst", "range"):
            share = None if ends is None else max((ends - time.perf_counter()) / (2 - p), 1e-3)
            plans["worst"], guarantees["worst"], how = _worst_against_vertex(
                _worst_plan(sf, original_sf, lifts[p], values[p], p, backend, share), vertex, at_vertex, guarantee
            )
            milp = f" ({'the worst by ' if select == 'range' else ''}a MILP {how})"
        lines.append(
            _selection_line(select, f"player {p + 1}'s guarantee in the original game", at_vertex, guarantees, _six)
            + milp
        )
        behaviors.append(_chosen(sf, p, run, select, plans))
    return dataclasses.replace(run, behaviors=behaviors, certificate=certify(sf, behaviors), plan=[*run.plan, *lines])


def _selection_line(
    select: str, who: str, at_vertex: float, values: dict[str, float], number: Callable[[float], str]
) -> str:
    """The plan's line for one player's selection (``select`` best, worst or range) of
    ``who``: its value at the LP's vertex and at the ends ``values``, as ``number`` writes them."""
    if select == "range":
        return (
            f"equilibria for {who}: from {number(values['worst'])} to {number(values['best'])}, "
            f"{number(at_vertex)} at the LP's vertex"
        )
    return f"{select} equilibrium for {who}: {number(at_vertex)} at the LP's vertex, {number(values[select])} selected"


def _chosen(sf: SequenceForm, p: int, run: LPRun, select: str, plans: dict[str, np.ndarray]) -> np.ndarray:
    """Player ``p``'s behaviour strategy after the selection: the LP's own for ``range``,
    else the selected plan's."""
    return run.behaviors[p] if select == "range" else behavior_from_realization(sf.players[p], plans[select])


def _worst_against_vertex(
    found: tuple[np.ndarray | None, float | None, str],
    vertex: np.ndarray,
    at_vertex: float,
    guarantee: Callable[[np.ndarray], float],
) -> tuple[np.ndarray, float, str]:
    """The worse of :func:`_worst_plan`'s answer ``found`` and the LP's ``vertex`` (an
    equilibrium the MILP had to beat, but a MILP stopped at its time limit may hold a
    worse incumbent) by ``guarantee`` (``at_vertex`` at the vertex), its guarantee, and
    what the plan says of the MILP."""
    found_plan, bound, engine = found
    worst = np.inf if found_plan is None else guarantee(found_plan)
    kept = found_plan is None or at_vertex < worst
    plan = vertex if kept or found_plan is None else found_plan
    worst = min(worst, at_vertex)
    stopped = "" if bound is None else f", stopped at its time limit: the worst lies in [{_six(bound)}, {_six(worst)}]"
    note = ""
    if kept:
        note = "; the LP's vertex guarantees less than the strategy it ended with"
        if found_plan is None:
            note = "; it had found no strategy then, so the LP's vertex is the worst found"
    return plan, worst, f"on {engine}{stopped}{note}"


def _worst_plan(
    sf: SequenceForm,
    original_sf: SequenceForm,
    lift: sp.spmatrix,
    value: float,
    p: int,
    backend: str,
    time_limit: float | None,
) -> tuple[np.ndarray | None, float | None, str]:
    """Player ``p``'s worst-equilibrium MILP solved (a MILP backend: HiGHS unless SCIP or
    Gurobi is named) within ``time_limit`` or :data:`WORST_SECONDS`: the plan it ends
    with (None when its time ran out before it found one), and None when it is the worst,
    else the MILP's bound on the worst guarantee (in
    player ``p``'s own payoffs of the original game, which are what it guarantees), and
    the backend that solved it."""
    from ..formulations.worst_abstract_equilibrium import worst_abstract_equilibrium_milp

    engine = backend if backend in ("scip", "gurobi") else "highs"
    milp, solution = _face_solution(
        partial(worst_abstract_equilibrium_milp, sf, original_sf, lift, value, player=p),
        engine,
        WORST_SECONDS if time_limit is None else time_limit,
        scale=max(1.0, abs(value)),  # its tolerance is absolute
    )
    what = f"--select worst: player {p + 1}'s worst-equilibrium MILP ended {solution.status}"
    if solution.x is None and solution.status != Status.TIME_LIMIT:
        raise SolveFailed(what + " without a strategy")
    plan = None if solution.x is None else realization_plan(milp, solution.x)
    if solution.status == Status.OPTIMAL:
        return plan, None, engine
    if solution.dual_objective is None and solution.status != Status.TIME_LIMIT:
        raise SolveFailed(what + " without a bound")
    # player p's own payoffs: its guarantee; stopped before any bound, the worst is unbounded below
    return plan, -np.inf if solution.dual_objective is None else float(solution.dual_objective), engine


def _six(x: float) -> str:
    """``x`` to six places, without the sign of a number that rounds to zero."""
    return f"{x:.6f}" if abs(x) >= 5e-7 else f"{0.0:.6f}"


def _guarantee(sf: SequenceForm, p: int, plan: np.ndarray, constant: float) -> float:
    """What player ``p``'s realization ``plan`` guarantees in ``sf``: the payoffs' constant
    less the opponent's best-response value against it."""
    o = 1 - p
    payoff = sf.payoff_matrix(o)  # rows: player 1's sequences
    values = payoff.T @ plan if p == 0 else payoff @ plan
    return constant - sf.players[o].treeplex.best_value(values)


__all__ = ["best_in_original", "opponent_strategies", "select_equilibrium"]
