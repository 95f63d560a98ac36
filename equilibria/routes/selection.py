"""Which equilibrium: the best or the worst of a two-player zero-sum game's equilibria for
a stated objective, by one LP over each player's optimal face
(:func:`~equilibria.formulations.optimal_face.optimal_face_lp`).

The objective is each player's payoff against a stated strategy of the opponent: the
opponent's strategy in a file (``against``, as ``--strategy-out`` writes them or any file
``certify`` reads), or uniform play where the file gives none or no file is named. ``best`` maximises it over
the player's maximin strategies, ``worst`` minimises it; either way the pair stays an
equilibrium, certified as every answer is. The objective at the LP's own vertex and at the
selected strategy is reported beside it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ..formulations.optimal_face import optimal_face_lp
from ..formulations.sequence_form_lp import realization_plan
from ..models.best_response import certify
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..models.strategy import behavior_from_realization, realization_from_behavior
from ..solvers import Status, solve
from .run import LPRun

#: The guarantee's slack below the value (relative), tried in turn: the value is a
#: solver's, and a face held at it to the last digits can be infeasible by them.
FACE_TOLERANCES = (1e-12, 1e-9)


@dataclass(frozen=True)
class Selected:
    """One player's selection: the objective at the LP's vertex and at the selected
    equilibrium strategy."""

    player: int
    against: str
    at_vertex: float
    selected: float


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
    module), certified again; the plan says what was selected and the objective's values."""
    if select not in ("best", "worst"):
        raise ValueError(f"select must be best or worst, not {select!r}")
    opponents = opponent_strategies(sf, against, game_name)
    values = (run.value, constant - run.value)
    behaviors, chosen = [], []
    for p in (0, 1):
        o = 1 - p
        plan_o = realization_from_behavior(sf.players[o], opponents[o][0])
        payoff = sf.payoff_matrix(p)
        objective = payoff @ plan_o if p == 0 else payoff.T @ plan_o
        for tolerance in FACE_TOLERANCES:
            lp = optimal_face_lp(sf, p, values[p], objective, maximize=select == "best", tolerance=tolerance)
            solution = solve(lp, backend if backend != "auto" else "highs", time_limit=time_limit)
            if solution.status != Status.INFEASIBLE:
                break
        if solution.status != Status.OPTIMAL or solution.x is None:
            raise SolveFailed(f"--select {select}: player {p + 1}'s optimal-face LP ended {solution.status}")
        plan = realization_plan(lp, solution.x)
        mine = realization_from_behavior(sf.players[p], run.behaviors[p])
        chosen.append(Selected(p, opponents[o][1], float(objective @ mine), float(objective @ plan)))
        behaviors.append(behavior_from_realization(sf.players[p], plan))
    lines = [
        f"{select} equilibrium for player {s.player + 1}'s payoff against {s.against}: {s.at_vertex:.6f} at the "
        f"LP's vertex, {s.selected:.6f} selected"
        for s in chosen
    ]
    return dataclasses.replace(run, behaviors=behaviors, certificate=certify(sf, behaviors), plan=[*run.plan, *lines])


__all__ = ["Selected", "opponent_strategies", "select_equilibrium"]
