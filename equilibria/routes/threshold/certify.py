"""A threshold program solved elsewhere, certified: ``equilibria certify GAME FILE --model
MODEL`` reads the thresholds from a solver's solution of the program that ``threshold
--write`` wrote, and certifies the model's strategies at those thresholds by exact best
responses, as the route certifies its own answers.

The program names each threshold's position ``t[k]``; in the MPS and LP files it is
written as Pyomo writes that name, ``t(_1_2_)`` for threshold ``1.2`` (player 1's second).
Every threshold of the model must be in the files, once; the program's other columns are
passed over.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from ...instances.bayesian_games import resolve_model
from ...models.errors import StrategyFileError
from ...models.parametric import ParametricModel
from ...models.strategy_files import read_solution_values, solution_value
from .answer import ThresholdSolution


def threshold_column(name: str) -> str:
    """The column name of threshold ``name`` (``1.2``) in a written threshold program."""
    return "t(_" + name.replace(".", "_") + "_)"


def certify_threshold_files(
    spec: Any, paths: Sequence[str | os.PathLike], model: str | ParametricModel | None, *, cells: int | None = None
) -> ThresholdSolution:
    """Certify ``model``'s strategies on the signal game ``spec`` at the thresholds that the
    solution files at ``paths`` hold. Raises
    :class:`~equilibria.models.errors.StrategyFileError` naming the first fault: a threshold
    missing or given twice, a value that is no finite number, a player's thresholds out of
    order."""
    from ..options import DEFAULT_CELLS
    from .route import _certified, _signal_game

    t0 = time.perf_counter()
    game = _signal_game(spec, "exact")
    parametric = resolve_model(game, model)
    wanted = {threshold_column(k): k for k in parametric.threshold_names}
    found: dict[str, tuple[float, str, int]] = {}
    kinds = []
    for path in paths:
        kind, entries = read_solution_values(path)
        kinds.append(f"{path} ({kind})")
        for name, text, number in entries:
            k = wanted.get(name)
            if k is None:
                continue
            if k in found:
                first = found[k]
                raise StrategyFileError(
                    f"{path}, line {number}: threshold {k} ('{name}') again (first in {first[1]}, line {first[2]})"
                )
            found[k] = (solution_value(str(path), number, name, text), str(path), number)
    missing = [k for k in parametric.threshold_names if k not in found]
    if missing:
        raise StrategyFileError(
            f"threshold {missing[0]} ('{threshold_column(missing[0])}') is in none of the files: they hold no "
            f"solution of model '{parametric.name}''s program for {game.name} (another model, or truncated?)"
        )
    thresholds = tuple(
        [found[k][0] for k in parametric.threshold_names if parametric.threshold_owner(k)[0] == p]
        for p in range(game.num_players)
    )
    for p, own in enumerate(thresholds):
        for a, b in zip(own, own[1:]):
            if b < a - 1e-6:
                raise StrategyFileError(
                    f"player {p + 1}'s thresholds descend ({a:.9g} then {b:.9g}): not a solution of the program"
                )
    t1 = time.perf_counter()
    answer = _certified(
        game,
        parametric,
        None,
        thresholds,
        backend="none",
        indicators="none",
        cells=cells or DEFAULT_CELLS,
        extensive_check=True,
        seconds={"read": t1 - t0},
    )
    answer.read_from = "; ".join(kinds)
    return answer


__all__ = ["certify_threshold_files", "threshold_column"]
