"""The options of the built-in routes, one dataclass each (see :mod:`equilibria.core.options`).

Kept apart from the routes' code so that the command line builds each command's flags
from them without importing a solver: this module imports nothing numerical.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

from ..core.options import RouteOptions
from ..models.checks import MAX_BREAKPOINTS, MAX_CELLS, MAX_WORKERS, OptionError
from ..models.vocabulary import (
    Algorithm,
    Device,
    Indicators,
    Join,
    NashFormulation,
    Products,
    Refinement,
    Select,
    Selection,
    ShrinkRule,
    ThresholdCertificate,
)

#: Cells of the grid a continuous threshold answer is cross-checked on.
DEFAULT_CELLS = 4000

#: Covering vectors Lemke's enumeration starts from when ``starts`` is not given.
DEFAULT_STARTS = 20

#: How ``nash --all`` lists equilibria (:mod:`equilibria.routes.nash.enumeration`).
Enumeration = Literal["auto", "vertices", "supports", "lemke"]
#: Which LCP the lcp route pivots on.
LCPForm = Literal["sequence", "normal"]


@dataclass(kw_only=True)
class LPOptions(RouteOptions):
    """The ``lp`` route's options (see :func:`equilibria.routes.lp.solve_sequence_form`)."""

    backend: str = field(
        default="auto",
        metadata={
            "help": "the solver backend: highs, clarabel, scip, pyomo:NAME, ... (see 'equilibria backends'), or "
            "auto: chosen by the LP's size and printed"
        },
    )

    method: str | None = field(
        default=None,
        metadata={
            "help": "the backend's algorithm where it has several (HiGHS: simplex, ipx, ipm, pdlp, concurrent; "
            "OR-Tools: glop, pdlp, scip, cp_sat)"
        },
    )
    target_exploitability: float | None = field(
        default=None,
        metadata={"help": "stop once the certified exploitability is at most this (anytime)", "range": "positive"},
    )
    verbose: bool = field(default=False, metadata={"help": "the solver's own log on stderr"})
    both_lps: bool = field(default=False, metadata={"help": "solve player 2's LP too instead of reading duals"})
    algorithm: Algorithm = field(
        default="lp",
        metadata={
            "help": "the LP (solved exactly); double-oracle: restricted LPs grown by exact best responses; or a "
            "first-order method on the saddle point (anytime: needs target_exploitability, time_limit or iterations)"
        },
    )
    iterations: int | None = field(
        default=None, metadata={"help": "a first-order method's or the double oracle's iterations", "range": 1}
    )
    refine: Refinement | None = field(
        default=None,
        metadata={
            "help": "quasi-perfect: the limit of Miltersen and Sorensen's perturbed LP, taken exactly, checked "
            "for sequential best responses at every information set, reached or not; ef-perfect: the limit of "
            "Farina and Gatti's extensive-form perturbation, taken exactly, checked for best responses in the "
            "perturbed games at every information set"
        },
    )
    perturbation: float | None = field(
        default=None,
        metadata={
            "help": "with --refine: the equilibrium of the perturbed game at this eps (quasi-perfect: trembles of "
            "eps to a sequence's length; ef-perfect: of eps at every information set), not the limit; a sweep axis",
            "range": "positive",
        },
    )
    select: Selection | None = field(
        default=None,
        metadata={
            "help": "the best or the worst of the equilibria for each player's payoff against --against (default: "
            "the uniform strategy), by one more LP over the player's optimal face; with --shrink: by the "
            "guarantee in the original game (best: an LP; worst: a MILP, within the time limit or 60 s, "
            "stopped there with the range the worst lies in); range: both, reported beside the LP's own "
            "vertex, which is the answer; unset: the LP's own vertex"
        },
    )
    against: str | None = field(
        default=None,
        metadata={"help": "a strategy file (as --strategy-out writes) whose strategies --select plays against"},
    )
    device: Device = field(
        default="auto",
        metadata={
            "help": "where a first-order method runs: numpy, or torch on cpu or cuda (the gpu extra); auto: cuda "
            "for large games when torch sees one, numpy otherwise"
        },
    )
    eliminate_dominated: bool = field(
        default=False,
        metadata={
            "help": "remove dominated actions first (iterated); strategies are lifted back and certified in the game"
        },
    )

    def validate(self) -> None:
        if self.algorithm != "lp":
            # the double oracle solves LPs too: --method applies to them
            flags = (("--both-lps", "both_lps"),) + (
                (("--method", "method"),) if self.algorithm != "double-oracle" else ()
            )
            given = [flag for flag, name in flags if getattr(self, name)]
            if given:
                raise OptionError(f"{given[0]} applies to the LP, not to {self.algorithm}")
        if self.refine is not None and (self.algorithm != "lp" or self.eliminate_dominated or self.select):
            other = (
                "--select" if self.select else "--eliminate-dominated" if self.eliminate_dominated else "--algorithm"
            )
            raise OptionError(f"--refine is a form of the LP's answer: it does not combine with {other}")
        if self.perturbation is not None and (self.refine is None or self.perturbation >= 1):
            raise OptionError("--perturbation is the eps of --refine's perturbed LP: give --refine, and an eps below 1")
        if self.against is not None and self.select is None:
            raise OptionError("--against names what --select best|worst|range plays against: give --select too")
        if self.select is not None and self.target_exploitability is not None:
            raise OptionError(
                "--select works on the optimal face of the LP solved to its end: it does not combine with "
                "--target-exploitability"
            )
        if self.select is not None and (self.algorithm != "lp" or self.eliminate_dominated):
            raise OptionError(
                "--select works on the LP's optimal face: it combines with neither "
                f"{'--eliminate-dominated' if self.eliminate_dominated else '--algorithm ' + self.algorithm}"
            )
        if self.device != "auto" and self.algorithm in ("lp", "double-oracle"):
            raise OptionError(
                f"--device applies to a first-order algorithm (--algorithm cfr+, pcfr+, dcfr, mirror-prox), "
                f"not to {'the LP' if self.algorithm == 'lp' else self.algorithm}"
            )
        if self.device in ("cpu", "cuda"):
            from ..models.array_ops import array_ops

            try:  # torch missing, or no GPU: refused before any work
                array_ops(self.device)
            except RuntimeError as exc:
                raise OptionError(str(exc)) from None


@dataclass(kw_only=True)
class ShrinkOptions(LPOptions):
    """The ``shrink`` route's options: the LP's, and GameShrink's own."""

    threshold: float = field(
        default=0.0,
        metadata={
            "help": "lossy GameShrink: the matching cost per opponent card up to which signals merge (0: lossless)",
            "range": "nonnegative",
        },
    )
    rule: ShrinkRule = field(
        default="lossless",
        metadata={
            "help": "the merge rule: lossless (matched opponent cards in one opponent class), published (the "
            "paper's Algorithm 1 per player: merges more, not lossless) or none (the full game from its signals)"
        },
    )
    lift: bool = field(
        default=False,
        metadata={"help": "build the full tree, lift the strategies onto it and certify them there"},
    )
    compact: bool | Literal["auto"] = field(
        default=False,
        metadata={
            "help": "with rule none: the LP with fold and showdown payoffs through sums (O(k) nonzeros per "
            "betting terminal instead of O(k^2)); auto: when lossless GameShrink merges nothing"
        },
    )

    def validate(self) -> None:
        super().validate()
        if self.refine is not None:
            raise OptionError("--refine works on the full game's LP: use the lp route (solve --no-shrink)")
        if self.select is not None:
            # on an abstraction --select chooses by the guarantee in the original game
            if self.against is not None:
                raise OptionError(
                    "on the shrink route --select best|worst|range picks each player's equilibrium of the abstraction "
                    "that guarantees most or least in the original game: no --against; for the payoff against "
                    "a strategy use --no-shrink"
                )
            if not self.lift:
                raise OptionError(
                    f"--select {self.select} on the shrink route needs the original game built: pass lift=True"
                )
        if self.compact is True and (self.algorithm != "lp" or self.eliminate_dominated):
            raise OptionError(
                "compact is a form of the LP: it combines with neither a first-order algorithm nor eliminate_dominated"
            )


@dataclass(kw_only=True)
class LCPOptions(RouteOptions):
    """The ``lcp`` route's options (see :mod:`equilibria.routes.lcp`)."""

    backend: str = field(
        default="lemke",
        metadata={"help": "lemke: the route's own complementary pivoting (no solver backend runs an LCP)"},
    )
    exact: bool = field(
        default=False,
        metadata={
            "help": "solve the final basis again in rational arithmetic and check the equilibrium exactly "
            "(regret exactly 0; games of at most a few thousand sequences)"
        },
    )
    seed: int | None = field(
        default=None,
        metadata={
            "help": "start from a random prior drawn with this seed instead of the uniform one: another path "
            "of pivots, often another equilibrium",
            "range": 0,
        },
    )
    max_pivots: int | None = field(default=None, metadata={"help": "the most pivots", "range": 1})
    form: LCPForm = field(
        default="sequence",
        metadata={
            "help": "sequence: the sequence form's LCP; normal: the reduced normal form's (Lemke-Howson's "
            "problem over plans, counted first and refused when it would not fit), its equilibrium mapped "
            "back to the tree"
        },
    )

    def validate(self) -> None:
        if self.backend != "lemke":
            raise OptionError(f"the lcp route pivots itself (backend lemke); backend {self.backend!r} solves no LCP")


@dataclass(kw_only=True)
class DoubleOracleOptions(RouteOptions):
    """The ``double-oracle`` route's options (see :mod:`equilibria.routes.double_oracle`)."""

    method: str | None = field(
        default=None, metadata={"help": "the backend's LP algorithm where it has several (HiGHS: simplex, ipx, ...)"}
    )
    target_exploitability: float | None = field(
        default=None,
        metadata={
            "help": "stop once the certified exploitability is at most this (default: grow until no best "
            "response adds a sequence)",
            "range": "positive",
        },
    )
    iterations: int | None = field(default=None, metadata={"help": "the most iterations", "range": 1})
    verbose: bool = field(default=False, metadata={"help": "the solver's own log on stderr"})


def check_products(epsilon: float | None, breakpoints: int | None, products: str | None) -> None:
    """Exact products have no grid: neither breakpoints nor an approximation bound."""
    if products == "exact" and (breakpoints is not None or epsilon is not None):
        raise OptionError("exact products have no breakpoints and no approximation: drop --breakpoints and --epsilon")


@dataclass(kw_only=True)
class NashOptions(RouteOptions):
    """The ``nash`` route's options (see :func:`equilibria.routes.nash.route.solve_nash`)."""

    formulation: NashFormulation = field(
        default=1,
        metadata={"help": "1: feasibility with an objective; 2-4: minimise a regret penalty (anytime bounds)"},
    )
    objective: str = field(
        default="any",
        metadata={"help": "formulation 1: any, welfare, maxmin, envy, min-support, max-support, best:P, worst:P"},
    )
    method: str | None = field(
        default=None, metadata={"help": "one of the backend's solvers where it has several (OR-Tools: scip or cp_sat)"}
    )
    epsilon: float | None = field(
        default=None,
        metadata={
            "help": "three or more players: the certified NashConv to reach (formulation 1, objective any: rounds "
            "refine the answer until the exact certificate meets it; otherwise the bound the products' "
            "approximation may cost); default 0.05 unless breakpoints is given alone",
            "range": "positive",
        },
    )
    breakpoints: int | None = field(
        default=None,
        metadata={
            "help": "points per piecewise-linear square (at least 2; default: the fewest that keep epsilon)",
            "range": 2,
            "maximum": MAX_BREAKPOINTS,
        },
    )
    products: Products | None = field(
        default=None,
        metadata={"help": "how products of the other players' weights are written (default log; exact: bilinear)"},
    )
    prune: bool | None = field(
        default=None,
        metadata={
            "help": "keep actions dominated at every node of their information set (by default removed for one "
            "equilibrium, which never needs them, and kept with all or count, whose lists hold the equilibria "
            "that play them where play does not reach)",
            "flag": "--keep-dominated",
            "negates": True,
        },
    )
    linearize: bool = field(
        default=True, metadata={"help": "write the products' own sequence-form equations (a tighter relaxation)"}
    )
    rounds: int | None = field(
        default=None,
        metadata={
            "help": "three or more players, formulation 1, objective any: the most rounds of refinement towards "
            "epsilon (default 40; 1 with breakpoints alone)",
            "range": 1,
        },
    )
    verbose: bool = field(default=False, metadata={"help": "the solver's own log on stderr"})
    all: bool = field(
        default=False,
        metadata={
            "help": "every equilibrium, listed with its certificate (the method: see enumeration; objective "
            "orders the list)"
        },
    )
    count: int | None = field(
        default=None,
        metadata={"help": "list at most this many equilibria (enumerates as all does)", "range": 1},
    )
    enumeration: Enumeration = field(
        default="auto",
        metadata={
            "help": "how all and count list equilibria: vertices (two-player normal form: every extreme "
            "equilibrium), supports (MIP Nash with a no-good cut per support found: one equilibrium per "
            "support), lemke (two players: Lemke's method from several covering vectors, a fast partial list), "
            "auto (vertices where they apply, else supports)"
        },
    )
    starts: int | None = field(
        default=None,
        metadata={
            "help": f"enumeration lemke: the covering vectors to start from (default {DEFAULT_STARTS}: the "
            "default one, then random ones drawn with seeds 0, 1, ...)",
            "range": 1,
        },
    )

    @property
    def enumerates(self) -> bool:
        """True when the run lists equilibria (``all`` or ``count``) instead of finding one."""
        return self.all or self.count is not None

    @property
    def prunes(self) -> bool:
        """Whether dominated actions are removed: ``prune`` where given, else only when one
        equilibrium is sought (the lists of ``all`` keep the equilibria that play them)."""
        return (not self.enumerates) if self.prune is None else self.prune

    def validate(self) -> None:
        check_products(self.epsilon, self.breakpoints, self.products)
        if not self.enumerates:
            given = [name for name in ("enumeration", "starts") if getattr(self, name) not in ("auto", None)]
            if given:
                raise OptionError(f"{given[0]} says how all or count list equilibria: add all (--all) or count")
            return
        if self.starts is not None and self.enumeration != "lemke":
            raise OptionError("starts counts the covering vectors of enumeration lemke; add --enumeration lemke")
        if self.formulation != 1:
            raise OptionError(
                f"all and count list the equilibria of formulation 1's program; formulation {self.formulation} "
                "minimises a penalty and never runs out of answers (drop formulation)"
            )
        if self.rounds is not None:
            raise OptionError(
                "rounds refine one equilibrium; all and count solve one program per support (drop rounds)"
            )
        if self.enumeration in ("vertices", "lemke"):
            program = [
                name for name in ("epsilon", "breakpoints", "products", "method") if getattr(self, name) is not None
            ]
            if program:
                raise OptionError(
                    f"{program[0]} sets MIP Nash's program; enumeration {self.enumeration} solves none "
                    "(drop it, or use enumeration supports)"
                )


@dataclass(kw_only=True)
class ThresholdOptions(RouteOptions):
    """The ``threshold`` route's options (see :func:`equilibria.routes.threshold.route.solve_threshold`)."""

    model: str | None = field(
        default=None,
        metadata={
            "help": "a model shipped with the game (default 'standard'), a .json file, or 'auto' (found from "
            "the game's discretised equilibrium, two players); give it again for several models of which one holds",
            "objects": "a ParametricModel",
        },
    )
    models: tuple[str, ...] | None = field(
        default=None,
        metadata={"help": "several models, one of which holds (joined by join)", "objects": "ParametricModels"},
    )
    join: Join | None = field(
        default=None,
        metadata={
            "help": "several models: one program through their common US-refinement (default), or each model's "
            "program in worker processes, the first feasible answering; without a model, every model the game ships"
        },
    )
    refinement: str | None = field(
        default=None,
        metadata={
            "help": "the models' common US-refinement (a model name or .json file; default: the coarsest, found)",
            "objects": "a ParametricModel",
        },
    )
    indicators: Indicators | None = field(
        default=None,
        metadata={
            "help": "how indicator constraints reach the solver (default: native for scip without SOS2 sets, else bigm)"
        },
    )
    cells: int = field(
        default=DEFAULT_CELLS,
        metadata={
            "help": "cells of the grid a continuous answer is cross-checked on",
            "range": 1,
            "maximum": MAX_CELLS,
        },
    )
    certificate: ThresholdCertificate = field(
        default="exact",
        metadata={"help": "continuous signals: exact best responses in the continuous game, or on the cells of cells"},
    )
    select: Select = field(
        default="any",
        metadata={
            "help": "which conforming equilibrium: any (feasibility), or the lowest / highest thresholds (the "
            "same answer from every solver)"
        },
    )
    min_width: float = field(
        default=0.0, metadata={"help": "every region at least this wide (signal units)", "range": "nonnegative"}
    )
    epsilon: float | None = field(
        default=None,
        metadata={
            "help": "three or more players: the certified NashConv to reach (finite signals: rounds refine the "
            "answer until the exact certificate meets it; continuous signals: the promised bound); default 0.05 "
            "unless breakpoints is given alone",
            "range": "positive",
        },
    )
    breakpoints: int | None = field(
        default=None,
        metadata={"help": "points per piecewise-linear square (at least 2)", "range": 2, "maximum": MAX_BREAKPOINTS},
    )
    products: Products | None = field(
        default=None,
        metadata={"help": "how products of the other players' probabilities are written (default log)"},
    )
    mccormick: bool = field(default=False, metadata={"help": "add McCormick envelope cuts to the products"})
    every_signal: bool | None = field(
        default=None,
        metadata={
            "help": "finite signals: every signal must prefer its region's plan to every other plan (a feasible "
            "answer is then an equilibrium whatever the model; default: on with three or more players)"
        },
    )
    extensive_check: bool = field(default=True, metadata={"help": "certify finite answers in the extensive form"})
    workers: int = field(
        default=2, metadata={"help": "processes for separate programs", "range": 1, "maximum": MAX_WORKERS}
    )
    rounds: int | None = field(
        default=None, metadata={"help": "finite signals, three players+: the most rounds of refinement", "range": 1}
    )
    method: str | None = field(
        default=None, metadata={"help": "one of the backend's MIP solvers where it has several (OR-Tools)"}
    )
    verbose: bool = field(default=False, metadata={"help": "the solver's own log on stderr"})

    def validate(self) -> None:
        if self.min_width > 1.0:
            raise OptionError(f"min_width {self.min_width:g} is wider than the signals' range [0, 1]: no region can be")
        if self.refinement is not None and self.models is None and self.join is None:
            raise OptionError("refinement needs several models or a join")


def shrink_only() -> tuple[str, ...]:
    """The options of GameShrink's route that the tree's LP does not take."""
    lp = {f.name for f in fields(LPOptions)}
    return tuple(f.name for f in fields(ShrinkOptions) if f.name not in lp)


__all__ = [
    "DEFAULT_CELLS",
    "DEFAULT_STARTS",
    "Enumeration",
    "LPOptions",
    "NashOptions",
    "ShrinkOptions",
    "ThresholdOptions",
    "check_products",
    "shrink_only",
]
