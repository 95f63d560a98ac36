"""Refined equilibria of two-player zero-sum games as a step of the LP route: the LP's
answer replaced by the quasi-perfect equilibrium (:mod:`.quasi_perfect`) or the
extensive-form perfect one (:mod:`.extensive_form_perfect`), each the exact limit of its
perturbed LP, or by the perturbed game's equilibrium at one stated eps; certified again.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..formulations.extensive_form_perturbation import extensive_form_perturbed_lp, most_actions
from ..formulations.sequence_form_lp import realization_plan
from ..models.best_response import certify
from ..models.checks import OptionError
from ..models.errors import SolveFailed
from ..models.sequence import SequenceForm
from ..models.strategy import behavior_from_realization
from ..solvers import Status, solve
from .extensive_form_perfect import ExtensiveFormPerfect, extensive_form_perfect
from .quasi_perfect import QuasiPerfect, perturbed_lp, quasi_perfect
from .run import LPRun


def perturbed_equilibrium(
    sf: SequenceForm,
    eps: float,
    refinement: str = "quasi-perfect",
    backend: str = "highs",
    time_limit: float | None = None,
) -> list[np.ndarray]:
    """Both players' strategies in the equilibrium of the game perturbed at one ``eps``,
    each player's LP solved by ``backend``: Miltersen and Sørensen's perturbation
    (``quasi-perfect``, :func:`perturbed_lp`) or Farina and Gatti's (``ef-perfect``,
    :func:`~equilibria.formulations.extensive_form_perturbation.extensive_form_perturbed_lp`).
    Completely mixed, no equilibrium of the game: its exploitability grows with ``eps``."""
    widest = most_actions(sf)
    if refinement == "ef-perfect" and eps * widest >= 1:
        raise OptionError(
            f"--perturbation {eps:g} is too large for ef-perfect: an information set has {widest} actions, each "
            f"played with at least eps, so eps must be below 1/{widest}"
        )
    behaviors = []
    for p in (0, 1):
        if refinement == "ef-perfect":
            lp = extensive_form_perturbed_lp(sf, p, eps)
        else:
            lp = perturbed_lp(sf, p).at(eps)
        solution = solve(lp, backend, time_limit=time_limit)
        if solution.status != Status.OPTIMAL or solution.x is None:
            raise SolveFailed(f"player {p + 1}'s {refinement} perturbed LP at eps {eps:g} ended {solution.status}")
        behaviors.append(behavior_from_realization(sf.players[p], realization_plan(lp, solution.x)))
    return behaviors


#: What a perturbed answer's plan says of each perturbation.
PERTURBATIONS = {
    "quasi-perfect": "Miltersen and Sorensen's perturbed LP: the perturbed game's equilibrium, not the limit",
    "ef-perfect": "Farina and Gatti's extensive-form perturbation, every action at least eps at its information "
    "set: the perturbed game's equilibrium",
}


def refined_run(
    sf: SequenceForm,
    run: LPRun,
    time_limit: float | None = None,
    perturbation: float | None = None,
    refinement: str = "quasi-perfect",
) -> LPRun:
    """``run`` (the LP's answer) with both strategies replaced by the ``refinement``'s
    equilibrium (``quasi-perfect`` or ``ef-perfect``, the exact limit), certified again,
    the plan saying how it was found and checked. SolveFailed when its check fails (the
    answer would not be what it says). With ``perturbation``, the perturbed game's
    equilibrium at that eps instead (on the run's backend), which is no equilibrium of the
    game: its certificate says how far."""
    if perturbation is not None:
        backend = run.backend or "highs"
        behaviors = perturbed_equilibrium(sf, perturbation, refinement, backend, time_limit=time_limit)
        line = f"{refinement} perturbation at eps {perturbation:g} on {backend} ({PERTURBATIONS[refinement]})"
        return dataclasses.replace(run, behaviors=behaviors, certificate=certify(sf, behaviors), plan=[*run.plan, line])
    if refinement == "ef-perfect":
        found: QuasiPerfect | ExtensiveFormPerfect = extensive_form_perfect(sf, time_limit=time_limit)
        broken = "perturbed strategies are no best responses in the perturbed games"
        line = (
            "ef-perfect (the limit of Farina and Gatti's extensive-form perturbation, taken exactly): the simplex's "
            f"bases at eps {found.eps[0]:.3g} and {found.eps[1]:.3g}, optimal for every small enough eps; best "
            "responses in the perturbed games hold at all {infosets} information sets"
        )
    else:
        found = quasi_perfect(sf, time_limit=time_limit)
        broken = "limit strategy is no sequential best response"
        line = (
            "quasi-perfect (the limit of Miltersen and Sorensen's perturbed LP, taken exactly): stable bases from "
            f"eps {found.eps[0]:.3g} and {found.eps[1]:.3g} after {found.pivots[0]} and {found.pivots[1]} "
            "lexicographic pivots; sequential best responses hold at all {infosets} information sets"
        )
    for p, bad in enumerate(found.violations):
        if bad:
            raise SolveFailed(
                f"--refine {refinement}: player {p + 1}'s {broken} at {len(bad)} information sets ({bad[0]}, ...)"
            )
    line = line.format(infosets=sum(ps.num_infosets for ps in sf.players))
    return dataclasses.replace(
        run, behaviors=found.behaviors, certificate=certify(sf, found.behaviors), plan=[*run.plan, line]
    )


__all__ = ["PERTURBATIONS", "perturbed_equilibrium", "refined_run"]
