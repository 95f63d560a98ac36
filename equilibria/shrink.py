"""GameShrink end to end: an ordered game in, the shrunk LP, its solution, the lifted
strategy and its certificate in the original game out.

>>> from equilibria.shrink import shrink, solve_shrunk
>>> report = shrink("leduc")
>>> report.infosets_after
[144, 144]
"""
from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field


from .formulations import opponent_realization_plan, realization_plan, sequence_form_lp
from .instances.ordered_games import load_ordered
from .models.best_response import exploitability
from .models.errors import SolverError
from .models.filtered import FilteredGame, filtered_sequence_form, lift_behavior
from .models.gameshrink import game_shrink
from .models.ordered import OrderedGame, SignalSpace
from .models.sequence import SequenceForm
from .models.strategy import behavior_from_realization
from .solvers import solve

#: Largest original game (information sets per player) lifted and certified by default.
LIFT_LIMIT = 2_000_000


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


@dataclass
class ShrinkReport:
    """What GameShrink did: signal tree, classes per round, LP sizes before and after."""

    game: OrderedGame
    filtered: FilteredGame
    lp: object
    threshold: float
    signal_tree_nodes: int
    classes: dict
    rows_before: int
    columns_before: int
    infosets_before: list
    infosets_after: list
    seconds: dict = field(default_factory=dict)
    peak_mb: float = 0.0

    def to_dict(self) -> dict:
        """The JSON of ``equilibria shrink``."""
        return {
            "game": self.game.name,
            "threshold": self.threshold,
            "signal_tree_nodes": self.signal_tree_nodes,
            "classes": self.classes,
            "rows_before": self.rows_before,
            "columns_before": self.columns_before,
            "infosets_before": self.infosets_before,
            "infosets_after": self.infosets_after,
            "rows_after": self.lp.num_rows,
            "columns_after": self.lp.num_cols,
            "nonzeros_after": self.lp.nnz,
            "seconds": self.seconds,
            "peak_mb": self.peak_mb,
        }


def shrink(game: str | OrderedGame, threshold: float = 0.0, progress: bool = False) -> ShrinkReport:
    """Run GameShrink (lossless, or lossy with ``threshold``) and build the shrunk LP."""
    if isinstance(game, str):
        game = load_ordered(game)
    t0 = time.perf_counter()
    space = SignalSpace(game)
    t1 = time.perf_counter()
    filt = game_shrink(game, space, threshold=threshold, progress=progress)
    t2 = time.perf_counter()
    fg = filtered_sequence_form(filt)
    t3 = time.perf_counter()
    lp = sequence_form_lp(fg.sequence_form, 0)
    t4 = time.perf_counter()
    before = game.unabstracted_lp_size()
    return ShrinkReport(
        game=game, filtered=fg, lp=lp, threshold=threshold,
        signal_tree_nodes=game.signal_tree_nodes(),
        classes=filt.summary(),
        rows_before=before["rows"], columns_before=before["columns"],
        infosets_before=before["infosets"],
        infosets_after=[p.num_infosets for p in fg.sequence_form.players],
        seconds={"signal_tree": t1 - t0, "game_shrink": t2 - t1, "sequence_form": t3 - t2, "lp_build": t4 - t3},
        peak_mb=_peak_mb(),
    )


@dataclass
class ShrunkSolution:
    """The shrunk LP's value and strategies, and (when the original game fits) the lifted
    strategies' exploitability in the original game."""

    report: ShrinkReport
    value: float
    status: str
    abstract_exploitability: float
    exploitability: float | None
    original_nodes: int | None
    seconds: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON summary."""
        out = self.report.to_dict()
        out.update(value=self.value, status=self.status, abstract_exploitability=self.abstract_exploitability,
                   exploitability=self.exploitability, original_nodes=self.original_nodes)
        out["seconds"] = {**out["seconds"], **self.seconds}
        return out


def solve_shrunk(game: str | OrderedGame, threshold: float = 0.0, backend: str = "highs",
                 method: str | None = None, lift: bool | None = None, progress: bool = False) -> ShrunkSolution:
    """Shrink, solve the shrunk LP, certify in the abstract game and, if the original game
    has at most :data:`LIFT_LIMIT` information sets per player (or ``lift`` is True),
    lift the strategies back (seed 000's main theorem) and certify them there."""
    report = shrink(game, threshold, progress=progress)
    fg, lp = report.filtered, report.lp
    sf = fg.sequence_form
    t0 = time.perf_counter()
    sol = solve(lp, backend, method=method)
    t1 = time.perf_counter()
    if sol.x is None or sol.row_duals is None:
        raise SolverError(f"shrunk LP not solved: {sol.status} ({sol.message})")
    behaviors = [
        behavior_from_realization(sf.players[0], realization_plan(lp, sol.x)),
        behavior_from_realization(sf.players[1], opponent_realization_plan(lp, sol.row_duals)),
    ]
    abstract = exploitability(sf, behaviors).exploitability
    if lift is None:
        lift = max(report.infosets_before) <= LIFT_LIMIT
    expl, nodes = None, None
    t2 = time.perf_counter()
    if lift:
        original = report.game.to_extensive()
        osf = SequenceForm(original)
        lifted = lift_behavior(fg, behaviors, original, osf)
        expl = exploitability(osf, lifted).exploitability
        nodes = original.num_nodes
    t3 = time.perf_counter()
    return ShrunkSolution(report, float(sol.objective), sol.status, float(abstract), expl, nodes,
                          seconds={"solve": t1 - t0, "certify_abstract": t2 - t1, "lift_and_certify": t3 - t2})


__all__ = ["LIFT_LIMIT", "ShrinkReport", "ShrunkSolution", "shrink", "solve_shrunk"]
