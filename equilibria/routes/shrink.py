"""GameShrink end to end: an ordered game in, the shrunk LP, its solution, the lifted
strategy and its certificate in the original game out.

>>> from equilibria.routes.shrink import shrink, solve_shrunk
>>> report = shrink("leduc")
>>> report.infosets_after
[144, 144]
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..core.answer import Answer
from ..core.skeleton import Steps
from ..formulations import sequence_form_lp
from ..formulations.linear_program import LinearProgram
from ..formulations.sequence_form_lp import check_two_player_zero_sum
from ..models import checks
from ..models.best_response import certify
from ..models.filtered import (
    FilteredGame,
    abstract_infosets,
    filtered_labels,
    filtered_sequence_form,
    lift_behavior,
    lift_matrix,
)
from ..models.gameshrink import game_shrink, identity_filter, published_shrink
from ..models.ordered import OrderedGame, SignalSpace
from ..models.ordered_best_response import ordered_certificate
from ..models.progress import stage
from ..models.sequence import SequenceForm
from ..models.vocabulary import SHRINK_RULES
from ..solvers import AUTO
from . import lp as lp_route
from .lp import solve_sequence_form, solved_lines
from .options import ShrinkOptions
from .run import Attempt, CurvePoint
from .selection import best_in_original

#: The merge rules: the project's lossless one, and the paper's as published (not lossless).
RULES = SHRINK_RULES


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


@dataclass
class ShrinkReport:
    """What GameShrink did: signal tree, classes per round, LP sizes before and after."""

    game: OrderedGame
    filtered: FilteredGame
    lp: LinearProgram | None  # None when it was not built (first-order solvers)
    threshold: float
    signal_tree_nodes: int
    rule: str
    classes: dict
    rows_before: int
    columns_before: int
    infosets_before: list
    infosets_after: list
    seconds: dict = field(default_factory=dict)
    peak_mb: float = 0.0

    @property
    def lp_size(self) -> dict:
        """Rows, columns and nonzeros of player 1's shrunk LP; when the LP was not built,
        rows and columns from the sequence form (``1 + I_1 + S_2`` and ``1 + I_2 + S_1``)
        and nonzeros None."""
        if self.lp is not None:
            return {"rows": self.lp.num_rows, "columns": self.lp.num_cols, "nonzeros": self.lp.nnz}
        return self.filtered.sequence_form.lp_size() | {"nonzeros": None}

    def report_lines(self) -> list[str]:
        """What GameShrink did, as ``equilibria shrink`` prints it."""
        d = self.to_dict()
        if self.threshold:
            kind = f"lossy, threshold {self.threshold:g}"
        elif self.rule == "published":
            kind = "published rule: not lossless"
        elif self.rule == "none":
            compact_lp = self.lp is not None and self.lp.compact
            kind = "no merging, compact LP" if compact_lp else "no merging"
        else:
            kind = "lossless"
        lines = [f"game             {self.game.name}  ({kind})", f"signal tree      {d['signal_tree_nodes']:,} nodes"]
        for p in (1, 2):
            rounds = d["classes"][f"player{p}"]
            parts = ", ".join(f"round {c['round']}: {c['views']:,} -> {c['classes']:,}" for c in rounds)
            lines.append(f"player {p} views   {parts}")
        lines.append(f"infosets         {d['infosets_before'][0]:,} -> {d['infosets_after'][0]:,} per player")
        lines.append(f"LP rows          {d['rows_before']:,} -> {d['rows_after']:,}")
        lines.append(f"LP columns       {d['columns_before']:,} -> {d['columns_after']:,}")
        if d["nonzeros_after"] is not None:
            shrunk = " (shrunk)" if d.get("rule", "lossless") != "none" else ""
            lines.append(f"LP nonzeros      {d['nonzeros_after']:,}" + shrunk)
        lines.append("seconds          " + ", ".join(f"{k} {v:.3f}" for k, v in d["seconds"].items()))
        lines.append(f"peak memory      {d['peak_mb']:,.0f} MB")
        return lines

    def to_dict(self) -> dict:
        """The JSON of ``equilibria shrink``."""
        size = self.lp_size
        return {
            "game": self.game.name,
            "rule": self.rule,
            "threshold": self.threshold,
            "signal_tree_nodes": self.signal_tree_nodes,
            "classes": self.classes,
            "rows_before": self.rows_before,
            "columns_before": self.columns_before,
            "infosets_before": self.infosets_before,
            "infosets_after": self.infosets_after,
            "rows_after": size["rows"],
            "columns_after": size["columns"],
            "nonzeros_after": size["nonzeros"],
            "seconds": self.seconds,
            "peak_mb": self.peak_mb,
        }


def shrink(
    game: Any,
    threshold: float = 0.0,
    progress: bool = False,
    rule: str = "lossless",
    build_lp: bool = True,
    compact: bool | str = False,
    lp_limit: int | None = None,
) -> ShrinkReport:
    """Run GameShrink and build the shrunk LP.

    ``rule`` is ``"lossless"`` (the project's rule: matched opponent cards must also lie
    in the same opponent class; with ``threshold`` > 0 the lossy variant on top of it) or
    ``"published"`` (Gilpin and Sandholm's Algorithm 1 per player on the own tree, which
    merges more and is not lossless: :func:`~equilibria.models.gameshrink.published_shrink`).
    ``game`` is an OrderedGame or anything the registry resolves to one. The report's
    ``lp`` is None with ``build_lp`` False (first-order solvers need none) or beyond
    ``lp_limit`` payoff entries (:data:`~equilibria.routes.lp.LP_ENTRY_LIMIT`).
    ``rule="none"`` merges nothing (the full game, from its signals); with it ``compact``
    builds the LP with fold and showdown payoffs through sums
    (:func:`~equilibria.formulations.compact_lp.compact_sequence_form_lp`), and
    ``compact="auto"`` (lossless rule) does so when GameShrink merges nothing and the
    compact LP is the smaller (the report's ``rule`` is then ``"none"``)."""
    checks.number("threshold", threshold, optional=False)
    if rule not in RULES:
        raise checks.OptionError(f"rule must be one of {', '.join(RULES)}, not {rule!r}")
    if rule != "lossless" and threshold > 0:
        raise checks.OptionError(f"threshold (lossy GameShrink) applies to the lossless rule, not to rule {rule!r}")
    # "auto": the compact LP when lossless GameShrink merges nothing (G_n: 14x fewer nonzeros)
    auto_compact = compact == "auto"
    chosen = False  # the compact LP chosen by "auto", kept only where it is the smaller
    if auto_compact and (rule != "lossless" or threshold > 0):
        raise checks.OptionError("compact 'auto' applies to the lossless rule without a threshold")
    if compact is True and rule != "none":
        raise checks.OptionError(
            "the compact LP (sum and prefix-sum payoffs) is written for the game without abstraction: "
            "use rule 'none' (merged classes do not keep the structure it relies on)"
        )
    if not isinstance(game, OrderedGame):
        from ..instances.registry import describe

        game = describe(game).view("ordered", "GameShrink needs a game with ordered signals")
    t0 = time.perf_counter()
    with stage("building the signal tree"):
        space = SignalSpace(game)
    t1 = time.perf_counter()
    with stage(f"GameShrink ({rule} rule)"):
        if rule == "published":
            filt = published_shrink(game, space)
        elif rule == "none":
            filt = identity_filter(game, space)
        else:
            filt = game_shrink(game, space, threshold=threshold, progress=progress)
            if (
                auto_compact
                and build_lp
                and all(
                    filt.num_classes(i, r) == space.view_codes[i][r].shape[0]
                    for i in (0, 1)
                    for r in range(game.rounds)
                )
            ):
                filt, rule, compact, chosen = identity_filter(game, space), "none", True, True
    compact = compact is True
    t2 = time.perf_counter()
    with stage("building the shrunk sequence form" + (" and LP" if build_lp and lp_limit is None else "")):
        fg = filtered_sequence_form(filt)
        t3 = time.perf_counter()
        if not build_lp or (lp_limit is not None and fg.sequence_form.terminal_sequences.shape[0] > lp_limit):
            lp = None
        elif compact:
            from ..formulations.compact_lp import compact_sequence_form_lp

            lp = compact_sequence_form_lp(fg)
            if chosen:
                # its sums pay off from a few cards on (G_300: 10,792 nonzeros against
                # 452,102); on Kuhn's three cards they cost more than they save
                direct = sequence_form_lp(fg.sequence_form, 0)
                if direct.nnz <= lp.nnz:
                    lp, rule = direct, "lossless"
        else:
            lp = sequence_form_lp(fg.sequence_form, 0)
    t4 = time.perf_counter()
    before = game.unabstracted_lp_size()
    return ShrinkReport(
        game=game,
        filtered=fg,
        lp=lp,
        threshold=threshold,
        rule=rule,
        signal_tree_nodes=game.signal_tree_nodes(),
        classes=filt.summary(),
        rows_before=before["rows"],
        columns_before=before["columns"],
        infosets_before=before["infosets"],
        infosets_after=[p.num_infosets for p in fg.sequence_form.players],
        seconds={"signal_tree": t1 - t0, "game_shrink": t2 - t1, "sequence_form": t3 - t2}
        | ({"lp_build": t4 - t3} if build_lp else {}),
        peak_mb=_peak_mb(),
    )


@dataclass(kw_only=True)
class ShrunkSolution(Answer):
    """The shrunk LP's value and strategies, certified in the full game. By default the
    certificate comes from exact best responses over the betting template and the cards
    (:func:`~equilibria.models.ordered_best_response.ordered_certificate`, no game tree)
    and ``behaviors`` are the shrunk game's, played in the full game through the classes
    of the views. With ``lift`` the full tree is built, ``behaviors`` are lifted onto it
    (one row per full information set) and certified there. ``abstract_exploitability``
    is the shrunk game's own certificate; ``certified_in`` is ``"the game"`` either way.
    """

    report: ShrinkReport
    abstract_exploitability: float
    original_nodes: int | None = None
    attempts: list[Attempt] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)
    dominance: dict = field(default_factory=dict)

    @property
    def lifted(self) -> bool:
        """True when the strategies were lifted to the original game and certified there."""
        return self.original_nodes is not None

    def report_lines(self) -> list[str]:
        """The answer as ``equilibria solve --shrink`` prints it: GameShrink's report, the
        certificate in the shrunk game, where the strategies were lifted, then the rest."""
        lines = self.report.report_lines()
        lines.append(f"exploitability   {self.abstract_exploitability:.3e} in the shrunk game (exact best responses)")
        if self.lifted:
            lines.append(f"original game    {self.original_nodes:,} nodes; strategies lifted")
        else:
            lines.append("full game        certified by best responses over the betting template and the cards")
        return lines + solved_lines(self)

    def sequence_labels(self, p: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The shrunk game's information sets named by betting history and the cards of
        their class; a lifted answer's come from the full game's tree."""
        if self.lifted:
            return None
        return filtered_labels(self.report.filtered, p)

    def details(self) -> dict:
        """GameShrink's report, the shrunk game's certificate and the original tree's size."""
        out = self.report.to_dict()
        out.pop("game", None)
        out.pop("seconds", None)
        out.update(
            abstract_exploitability=self.abstract_exploitability,
            original_nodes=self.original_nodes,
            lifted=self.lifted,
            attempts=[a.row() for a in self.attempts],
            curve=[p.row() for p in self.curve],
            dominance=self.dominance,
        )
        return out


def solve_shrunk(game: Any, threshold: float = 0.0, **options: Any) -> ShrunkSolution:
    """Shrink, solve the shrunk LP (anytime with ``time_limit`` / ``target_exploitability``,
    as the full LP), certify in the shrunk game and in the full game: by best responses
    over the betting template and the cards, or, with ``lift``, by building the full tree,
    lifting the strategies onto it and certifying them there (Gilpin and Sandholm,
    "Lossless abstraction of imperfect information games", 2007: lossless shrinking keeps
    equilibria; the published rule does not, and the full-game certificate says by how
    much). The ``shrink`` route through the skeleton; ``options`` are
    :class:`~equilibria.routes.options.ShrinkOptions`.

    ``algorithm`` ``cfr+``, ``dcfr`` or ``mirror-prox`` solves the shrunk game by a
    first-order method, without building the LP
    (:func:`~equilibria.routes.first_order.solve_first_order`); ``eliminate_dominated``
    removes dominated actions from the shrunk game before solving it (the step Gilpin and
    Sandholm took after GameShrink); ``rule="none"`` with ``compact`` solves the full game
    through the compact LP (:func:`~equilibria.formulations.compact_lp.compact_sequence_form_lp`);
    ``compact="auto"`` does so when lossless GameShrink merges nothing (see :func:`shrink`)."""
    from ..core.skeleton import solve

    return cast(ShrunkSolution, solve(game, "shrink", threshold=threshold, **options))


class GameShrinkLP(Steps):
    """The ``shrink`` route's steps: GameShrink on the ordered game (no tree built), the
    shrunk game's LP or first-order method, the strategies certified in the full game."""

    Options = ShrinkOptions
    build_key = "shrink"
    build_message = "GameShrink"

    def build(self, view: OrderedGame, options: ShrinkOptions) -> ShrinkReport:
        first_order = options.algorithm != "lp"
        compact = options.compact
        if compact == "auto" and (
            first_order or options.eliminate_dominated or options.rule != "lossless" or options.threshold > 0
        ):
            compact = False  # the compact LP is an LP of the unabstracted game: nothing to choose
        return shrink(
            view,
            options.threshold,
            progress=options.verbose,
            rule=options.rule,
            build_lp=not (first_order or options.eliminate_dominated),
            lp_limit=lp_route.LP_ENTRY_LIMIT if options.backend == AUTO and options.method is None else None,
            compact=compact,
        )

    def solve(self, report: ShrinkReport, options: ShrinkOptions, deadline: float | None) -> ShrunkSolution:
        fg = report.filtered
        sf = fg.sequence_form
        times: dict[str, float] = {}  # GameShrink's own stages are in the report and the build's time
        rest = {k: v for k, v in vars(options).items() if k in _LP_KEYWORDS}
        time_limit = None
        if deadline is not None:
            # leave the certificate in the full game its time within the limit
            left = deadline - time.perf_counter()
            reserve = 0.0 if options.lift else min(0.5 * left, FULL_CERTIFICATE_SECONDS * report.infosets_before[0])
            time_limit = max(left - reserve, 1e-3)
        run = solve_sequence_form(
            sf,
            options.backend,
            time_limit=time_limit,
            times=times,
            lp=report.lp,
            **rest,
        )
        original = None
        if options.select is not None:  # validated: with lift
            original = _original(report, times)
            remaining = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
            run = _best_in_original(fg, run, original, options, times, remaining)
        if options.lift:
            behaviors, cert, answer_sf, nodes = _lifted(fg, report, run.behaviors, times, original)
        else:
            t0 = time.perf_counter()
            with stage("certifying in the full game (best responses over the betting template and the cards)"):
                cert = ordered_certificate(fg, run.behaviors)
            times["full_game_certify"] = time.perf_counter() - t0
            behaviors, answer_sf, nodes = run.behaviors, sf, None
        return ShrunkSolution(
            route="shrink",
            game_name=report.game.name,
            **run.answer_fields(),
            certificate=cert,
            certified_in="the game",
            sequence_form=answer_sf,
            behaviors=behaviors,
            seconds=times,
            report=report,
            abstract_exploitability=float(run.certificate.exploitability),
            original_nodes=nodes,
        )


#: Seconds the certificate in the full game takes per information set of a player of the
#: full game (measured 0.43 microseconds on Rhode Island's 26.1 million, 11.2 s, and 0.39
#: on Leduc's with 100 ranks, 597,600; a margin added): a time limit keeps them for it.
FULL_CERTIFICATE_SECONDS = 0.6e-6


#: The LP's own options, passed on to :func:`~equilibria.routes.lp.solve_sequence_form`.
_LP_KEYWORDS = (
    "method",
    "target_exploitability",
    "verbose",
    "algorithm",
    "iterations",
    "eliminate_dominated",
    "device",
)


def _original(report: ShrinkReport, times: dict) -> tuple[Any, SequenceForm]:
    """The full game's tree and sequence form, built (timed as ``original_game``)."""
    t0 = time.perf_counter()
    with stage("building the original game to certify in it"):
        original = report.game.to_extensive()
        osf = SequenceForm(original)
    times["original_game"] = time.perf_counter() - t0
    return original, osf


def _best_in_original(
    fg: FilteredGame,
    run: Any,
    original: tuple[Any, SequenceForm],
    options: ShrinkOptions,
    times: dict,
    time_limit: float | None,
) -> Any:
    """``run`` with each player's strategy the shrunk game's equilibrium strategy that
    guarantees most (``--select best``) or least (``worst``) in the full game, or ``run``
    with the range of guarantees its equilibria span (``range``) (timed as ``select``;
    each program within ``time_limit``)."""
    game, osf = original
    sf = fg.sequence_form
    t0 = time.perf_counter()
    what = {"best": "equilibrium that guarantees most", "worst": "equilibrium that guarantees least"}
    with stage(
        f"finding each player's {what.get(options.select or 'best', 'range of guarantees')} in the original game"
    ):
        abstract = abstract_infosets(fg, game, osf)  # one map for both players
        lifts = [lift_matrix(fg, game, osf, p, abstract) for p in (0, 1)]
        run = best_in_original(
            sf,
            run,
            osf,
            lifts,
            options.backend,
            constant=check_two_player_zero_sum(sf, "--select"),
            original_constant=check_two_player_zero_sum(osf, "--select"),
            time_limit=time_limit,
            select=options.select or "best",
        )
    times["select"] = time.perf_counter() - t0
    return run


def _lifted(
    fg: FilteredGame, report: ShrinkReport, behaviors: list, times: dict, original: tuple | None = None
) -> tuple[list, Any, SequenceForm, int]:
    """The shrunk game's strategies lifted onto the full tree (built for it, unless given
    as ``original``) and certified there."""
    game, osf = original if original is not None else _original(report, times)
    t1 = time.perf_counter()
    with stage("lifting and certifying in the original game"):
        lifted = lift_behavior(fg, behaviors, game, osf)
        cert = certify(osf, lifted)
    times["lift_and_certify"] = time.perf_counter() - t1
    return lifted, cert, osf, game.num_nodes


__all__ = ["RULES", "GameShrinkLP", "ShrinkReport", "ShrunkSolution", "shrink", "solve_shrunk"]
