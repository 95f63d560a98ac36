"""Equilibria from qualitative models (Ganzfried and Sandholm, "Computing equilibria by
incorporating qualitative models", 2010): a signal game and a parametric model in,
thresholds, strategies and a certificate out.

>>> from equilibria.routes.threshold.route import solve_threshold
>>> sol = solve_threshold("one_street:pot=1")
>>> [round(v, 6) for v in sol.thresholds[0]], [round(v, 6) for v in sol.thresholds[1]]
([0.222222, 0.888889], [0.444444])
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ...core.processes import pool_deaf_to_ctrl_c, quiet_resource_tracker
from ...core.skeleton import Steps
from ...formulations.threshold_milfp import DEFAULT_EPSILON, ThresholdProgram, check_product_options, threshold_milfp
from ...instances.bayesian_games import model_sets, resolve_model, standard_models
from ...models import checks
from ...models.bayesian import BayesianGame
from ...models.best_response import Exploitability, certify
from ...models.errors import SolveFailed, SolverError
from ...models.parametric import ModelError, ModelInfeasible, ParametricModel, project
from ...models.progress import stage
from ...models.sequence import SequenceForm
from ...models.threshold_best_response import threshold_exploitability
from ...solvers import Status, default_indicators, get_backend, solve_model
from ..options import DEFAULT_CELLS, ThresholdOptions
from .answer import ThresholdSolution


def solve_threshold(spec: Any, model: str | ParametricModel | None = None, **options: Any) -> ThresholdSolution:
    """The threshold route through the skeleton: ``spec`` is a BayesianGame or anything the
    game registry resolves to one (``"one_street:pot=2"``), ``model`` the qualitative model
    and ``options`` those of :class:`~equilibria.routes.options.ThresholdOptions`; see
    :func:`threshold_answer`."""
    from ...core.skeleton import solve

    if model is not None:
        options["model"] = model
    return cast(ThresholdSolution, solve(spec, "threshold", **options))


class ThresholdPrograms(Steps):
    """The ``threshold`` route's steps: the program of the model (or models) on the signal
    game, solved and certified in the game."""

    Options = ThresholdOptions

    def solve(self, game: BayesianGame, options: ThresholdOptions, deadline: float | None) -> ThresholdSolution:
        keywords = vars(options) | {
            "time_limit": None if deadline is None else max(deadline - time.perf_counter(), 1e-3),
            "models": None if options.models is None else list(options.models),
        }
        return threshold_answer(game, **keywords)


@dataclass(frozen=True)
class _Settings:
    """How one call of :func:`threshold_answer` builds, solves and certifies its programs:
    the options every branch shares, checked when made."""

    backend: str
    cells: int
    certificate: str
    indicators: str | None = None
    select: str = "any"
    min_width: float = 0.0
    epsilon: float | None = None
    breakpoints: int | None = None
    products: str | None = None
    mccormick: bool = False
    every_signal: bool | None = None
    time_limit: float | None = None
    extensive_check: bool = True
    verbose: bool = False
    method: str | None = None

    def __post_init__(self) -> None:
        """Refuse an unknown or out-of-range option (:class:`checks.OptionError`)."""
        checks.name("backend", self.backend, optional=False)
        if self.certificate not in ("exact", "cells"):
            raise checks.OptionError(f"certificate must be exact or cells, not {self.certificate!r}")
        checks.name("indicators", self.indicators)
        checks.count("cells", self.cells, maximum=checks.MAX_CELLS)
        checks.number("min_width", self.min_width, optional=False)
        if self.min_width > 1.0:
            raise checks.OptionError(
                f"min_width {self.min_width:g} is wider than the signals' range [0, 1]: no region can be"
            )
        checks.number("time_limit", self.time_limit, strict=True)
        check_product_options(self.epsilon, self.breakpoints, self.products)
        if self.select not in ("any", "lowest", "highest"):
            raise checks.OptionError(f"select must be any, lowest or highest, not {self.select!r}")

    @property
    def shape(self) -> dict[str, Any]:
        """What the program is made of, the same for every program this call writes (keywords
        of :func:`threshold_milfp`)."""
        return dict(
            select=self.select,
            min_width=self.min_width,
            epsilon=self.epsilon,
            breakpoints=self.breakpoints,
            products=self.products,
            mccormick=self.mccormick,
        )

    def exact_equations(self, game: BayesianGame) -> bool:
        """True when the programs are the two-player ones with exact equations, whose rows a
        join of models (and their common refinement) is written in."""
        return game.num_players == 2 and not (
            self.min_width or self.epsilon or self.breakpoints or self.products or self.every_signal or self.mccormick
        )

    def not_for_one_program(self) -> list[str]:
        """The options given that a join of models in one program does not take."""
        unused = {
            "min_width": self.min_width,
            "epsilon": self.epsilon,
            "breakpoints": self.breakpoints,
            "products": self.products,
            "every_signal": self.every_signal,
        }
        return [k for k, v in unused.items() if v not in (None, 0.0)] + (["mccormick"] if self.mccormick else [])


def threshold_answer(
    spec: Any,
    model: str | ParametricModel | None = None,
    *,
    backend: str = "highs",
    indicators: str | None = None,
    cells: int = DEFAULT_CELLS,
    select: str = "any",
    min_width: float = 0.0,
    epsilon: float | None = None,
    breakpoints: int | None = None,
    products: str | None = None,
    mccormick: bool = False,
    every_signal: bool | None = None,
    time_limit: float | None = None,
    extensive_check: bool = True,
    verbose: bool = False,
    models: Sequence[str | ParametricModel] | None = None,
    join: str | None = None,
    refinement: str | ParametricModel | None = None,
    workers: int = 2,
    rounds: int | None = None,
    method: str | None = None,
    certificate: str = "exact",
) -> ThresholdSolution:
    """Build the threshold MILFP of ``model`` for a signal game, solve it, recover and verify.

    ``spec`` is a BayesianGame or anything the game registry resolves to one
    (``"one_street:pot=2"``).

    ``indicators``: ``native`` (SCIP's indicator constraints; the default with
    ``backend="scip"`` unless the program has SOS2 sets), ``bigm`` (default otherwise) or
    ``hull``. ``select``: ``any`` (feasibility, the paper's program), ``lowest`` or
    ``highest`` (the conforming equilibrium with the smallest / largest sum of thresholds;
    solver-independent).
    ``min_width``: every region at least this wide (signal units). Raises
    :class:`ModelInfeasible` when no equilibrium conforms to the model.

    Games of three or more players have products in their indifference equations:
    ``products`` (``log`` by default, ``sos2``, ``cc``, ``incremental``, ``dlog`` or
    ``exact``), ``breakpoints`` per square and ``epsilon``, the promised bound on the
    answer's NashConv when the model describes the game's best responses; see
    :mod:`equilibria.formulations.threshold_milfp`. ``mccormick`` adds envelope cuts;
    ``every_signal`` makes every finite signal prefer its side's plan at each threshold
    (default: on with three or more players).

    Several models (``models``, or every model the game ships when only ``join`` is
    given), of which one is known to hold: ``join="one-program"`` (the default with
    ``models``) joins them in one program through their common US-refinement
    (``refinement``, found when not given; :mod:`equilibria.formulations.threshold_join`),
    ``join="separate"`` solves each model's program in ``workers`` processes and answers
    with the first feasible (:func:`solve_threshold_separately`). The answer's ``model``
    is the model that holds and ``join`` says how it was found.

    Finite signals with three or more players are solved by the located program in
    rounds (:mod:`equilibria.routes.threshold.located`): ``epsilon`` is the certified NashConv to reach,
    ``breakpoints`` the first round's points per square, ``rounds`` the most rounds, and
    the answer's ``curve`` lists every round; with no model named, or ``auto``, a model
    read from CFR+'s profile takes over when the shipped one does not answer
    (:func:`_solve_finite_many`). ``time_limit`` bounds the whole call (build,
    every round's solve and certificate). ``method`` picks among a backend's MIP solvers
    (OR-Tools: ``scip`` or ``cp_sat``).

    Continuous answers are certified by exact best responses in the continuous game
    (``certificate="exact"``; :mod:`equilibria.models.threshold_best_response`), with the
    certificate on ``cells`` equal cells beside it for two players, or on the cells alone
    (``certificate="cells"``). Finite answers are certified in the finite game.
    """
    how = _Settings(
        backend=backend,
        indicators=indicators,
        cells=cells,
        certificate=certificate,
        select=select,
        min_width=min_width,
        epsilon=epsilon,
        breakpoints=breakpoints,
        products=products,
        mccormick=mccormick,
        every_signal=every_signal,
        time_limit=time_limit,
        extensive_check=extensive_check,
        verbose=verbose,
        method=method,
    )
    t0 = time.perf_counter()
    game = _signal_game(spec, certificate)
    if isinstance(model, str) and model == "auto" and not (game.finite and game.num_players > 2):
        return _solve_auto(
            game, backend=backend, cells=cells, time_limit=time_limit, t0=t0, certificate=certificate, epsilon=epsilon
        )
    if isinstance(model, str) and model in model_sets(game) and models is None:
        models, model = [model], None  # a shipped set of models names several
    if models is not None or join is not None:
        names = _models_to_join(game, model, models, join)
        if join == "separate":
            return _solve_separate_programs(game, names, refinement, workers, how, t0)
        return _solve_one_program(game, names, refinement, how, t0)
    return _one_model_or_found(game, model, rounds, how, t0)


def _one_model_or_found(
    game: BayesianGame, model: str | ParametricModel | None, rounds: int | None, how: _Settings, t0: float
) -> Any:
    """``model``'s answer (:func:`_solve_one_model`); with continuous signals, no model
    named and the shipped one unfit for the players, as with finite signals, a model found
    from the game (:func:`_solve_auto`), the shipped one listed in ``discovery``."""
    from ...core.anytime import TimeLimitReached

    try:
        return _solve_one_model(game, model, rounds, how, t0)
    except ShippedModelUnfit as exc:
        if game.finite:
            raise
        unfit = exc

    left = None if how.time_limit is None else how.time_limit - (time.perf_counter() - t0)
    if left is not None and left <= 0:
        raise TimeLimitReached(f"{unfit.reason}; no time was left to find a model from the game", [])
    try:
        answer = _solve_auto(
            game,
            backend=how.backend,
            cells=how.cells,
            time_limit=left,
            t0=t0,
            certificate=how.certificate,
            epsilon=how.epsilon,
        )
    except ModelInfeasible as none_found:
        raise ModelInfeasible(f"the shipped model {unfit.reason}; {none_found}") from None
    answer.discovery = {**answer.discovery, "shipped": {"model": unfit.model, "outcome": unfit.reason}}
    return answer


def _signal_game(spec: Any, certificate: str) -> BayesianGame:
    """The signal game ``spec`` is or names, once it is known to take ``certificate``."""
    if isinstance(spec, BayesianGame):
        game = spec
    else:  # a worker process, or a direct call, gives the game's name
        from ...instances.registry import describe

        game = describe(spec).view("signal", "threshold programs need private signals and a public betting tree")
    if certificate == "cells" and game.finite:
        raise checks.OptionError(
            f"{game.name} has finite signals, certified exactly in the finite game: the certificate on cells "
            "is for continuous signals"
        )
    return game


def _models_to_join(
    game: BayesianGame,
    model: str | ParametricModel | None,
    models: Sequence[str | ParametricModel] | None,
    join: str | None,
) -> list[str | ParametricModel]:
    """The models a join is over: ``models``, each shipped set among them standing for its
    members, or every model the game ships when none is given."""
    if model is not None:
        raise ModelError("give one model, or several models to join, not both")
    if join not in (None, "one-program", "separate"):
        raise checks.OptionError(f"join must be one-program or separate, not {join!r}")
    sets = model_sets(game)
    names: list[str | ParametricModel] = []
    for m in models if models is not None else list(standard_models(game).values()):
        names.extend(sets[m] if isinstance(m, str) and m in sets else [m])
    if not names:
        raise ModelError(f"'{game.name}' ships no models to join; give them")
    return names


def _solve_separate_programs(
    game: BayesianGame,
    names: list[str | ParametricModel],
    refinement: str | ParametricModel | None,
    workers: int,
    how: _Settings,
    t0: float,
) -> ThresholdSolution:
    """``join="separate"``: each model's program in ``workers`` processes
    (:func:`solve_threshold_separately`); returns the first feasible model's answer, whose
    ``join`` records every model's outcome."""
    if refinement is None and how.exact_equations(game):
        # a model that omits plans holds only where the omitted plans are no better,
        # rows its own program lacks: solve it over the models' common refinement
        from ...models.parametric import common_us_refinement

        try:
            refinement = common_us_refinement([resolve_model(game, m) for m in names])
        except ModelError:
            refinement = None  # no common refinement: each model's own program
    extra: dict[str, Any] = {"refinement": refinement} if refinement is not None else {}
    found, outcome = solve_threshold_separately(
        game,
        names,
        workers=workers,
        backend=how.backend,
        indicators=how.indicators,
        cells=how.cells,
        **how.shape,
        every_signal=how.every_signal,
        time_limit=how.time_limit,
        extensive_check=how.extensive_check,
        certificate=how.certificate,
        **extra,
    )
    if found is None:
        raise ModelInfeasible(
            f"no equilibrium of {game.name} conforms to any of the models (each program is "
            "infeasible or failed): " + "; ".join(f"{k}: {v}" for k, v in outcome.items())
        )
    found.join = {"join": "separate", "outcomes": outcome, "holds": found.model.name}
    if refinement is not None:
        found.join["refinement"] = resolve_model(game, refinement).name
    found.seconds = {"total": time.perf_counter() - t0, **found.seconds}
    return found


def _solve_one_program(
    game: BayesianGame,
    names: list[str | ParametricModel],
    refinement: str | ParametricModel | None,
    how: _Settings,
    t0: float,
) -> ThresholdSolution:
    """``join="one-program"``: the models joined in one program through their common
    US-refinement (:func:`_solve_joined`); returns the answer of the model that holds."""
    given = how.not_for_one_program()
    if given:
        raise checks.OptionError(f"a join of models in one program takes no {given[0]} (two players, exact equations)")
    return _solve_joined(
        game,
        [resolve_model(game, m) for m in names],
        refinement=None if refinement is None else resolve_model(game, refinement),
        backend=how.backend,
        indicators=how.indicators,
        cells=how.cells,
        select=how.select,
        time_limit=how.time_limit,
        extensive_check=how.extensive_check,
        verbose=how.verbose,
        t0=t0,
        certificate=how.certificate,
    )


def _solve_one_model(
    game: BayesianGame, model: str | ParametricModel | None, rounds: int | None, how: _Settings, t0: float
) -> ThresholdSolution:
    """One model's answer (the game's shipped model when ``model`` is None): the located
    program's rounds for finite signals with three or more players, else the model's
    threshold program, solved again with a best-response row per signal when a finite
    game's answer is exploitable without them."""
    defaulted = model is None
    get_backend(how.backend)  # an unknown backend is bad input: say so before any work starts
    if game.finite and game.num_players > 2:
        return _solve_finite_many(game, model, rounds, how, t0)
    model = resolve_model(game, model)
    if rounds is not None:
        raise checks.OptionError("rounds apply to finite signals with three or more players (the located program)")
    program = _threshold_program(game, model, how, defaulted)
    indicators = how.indicators or default_indicators(how.backend, program.model)
    answer = _solve_program(game, model, program, indicators, how, t0)
    if answer.is_equilibrium or not game.finite or program.every_signal:
        return answer
    return _solve_every_signal(game, model, answer, indicators, how, t0)


#: Finite signals, three or more players, no model named: the share of the time limit
#: (or the seconds, without one) the shipped model's rounds may take before a model is
#: read from the game instead.
SHIPPED_SHARE = 0.4
SHIPPED_SECONDS = 30.0


def _solve_finite_many(
    game: BayesianGame, model: str | ParametricModel | None, rounds: int | None, how: _Settings, t0: float
) -> ThresholdSolution:
    """Finite signals, three or more players: the located program's rounds. With no model
    named, the shipped model's rounds first, for :data:`SHIPPED_SHARE` of the time limit;
    when they end without an answer within epsilon, and with ``auto``, a model read from
    CFR+'s profile (:func:`~equilibria.routes.threshold.discovery.read_finite_start`),
    whose rounds start from its thresholds there. The answer's ``discovery`` says which
    model answered and what was tried."""
    from ...core.anytime import TimeLimitReached
    from .discovery import FOUND_BREAKPOINTS, read_finite_start

    deadline = None if how.time_limit is None else t0 + how.time_limit
    target = how.epsilon or DEFAULT_EPSILON
    located = functools.partial(
        _solve_located, game, backend=how.backend, rounds=rounds, verbose=how.verbose, t0=t0, method=how.method
    )
    if model is not None and model != "auto":
        return located(resolve_model(game, model), **how.shape, deadline=deadline)
    tried: list[dict] = []
    fallback = None
    if model is None:
        shipped = resolve_model(game, None)
        share = SHIPPED_SECONDS if how.time_limit is None else SHIPPED_SHARE * how.time_limit
        try:
            fallback = located(shipped, **how.shape, deadline=t0 + share)
            outcome = f"NashConv {float(fallback.nash_conv or 0.0):.1e}"
        except (TimeLimitReached, ModelInfeasible) as stopped:
            outcome = str(stopped)
        tried.append({"model": shipped.name, "change": "shipped", "outcome": outcome})
        if fallback is not None and fallback.nash_conv is not None and fallback.nash_conv <= target:
            fallback.discovery = {"attempts": tried, "relation": {}, "chosen": f"shipped ({shipped.name})"}
            return fallback
    left = None if deadline is None else deadline - time.perf_counter()
    chosen = read_finite_start(game, time_limit=left)
    shape = dict(how.shape)
    if how.breakpoints is None:
        shape["breakpoints"] = FOUND_BREAKPOINTS
    try:
        answer = located(chosen.model, **shape, deadline=deadline, start=(chosen.guess, chosen.source))
    except (TimeLimitReached, ModelInfeasible) as stopped:
        if fallback is None:
            # say what was tried: the shipped model's rounds, then the model read
            regions = ", ".join(str(len(r)) for r in chosen.model.regions)
            before = f"the shipped model gave none ({tried[0]['outcome']}); " if tried else ""
            message = f"{before}the model read from {chosen.source} ({regions} regions): {stopped}"
            if isinstance(stopped, TimeLimitReached):
                raise TimeLimitReached(message, stopped.rounds) from None
            raise ModelInfeasible(message) from None
        answer = fallback
    answer.discovery = {
        "attempts": tried + chosen.attempts,
        "relation": {},
        "chosen": f"found, {chosen.model.description}" if answer is not fallback else "shipped, above epsilon",
    }
    return answer


class ShippedModelUnfit(ModelError):
    """No model was named, and the game's shipped model does not fit its players
    (``reason``: why, in the model checker's words)."""

    def __init__(self, message: str, model: str, reason: str):
        super().__init__(message)
        self.model, self.reason = model, reason


def _threshold_program(game: BayesianGame, model: ParametricModel, how: _Settings, defaulted: bool) -> ThresholdProgram:
    """``model``'s threshold program on ``game``; ``defaulted`` when the model is the game's
    shipped one, not named, which the error then says."""
    with stage("building the threshold program"):
        try:
            return threshold_milfp(game, model, **how.shape, every_signal=how.every_signal)
        except ModelError as exc:
            if defaulted and game.num_players > 2:
                # no model was named: the shipped one does not fit this many players
                raise ShippedModelUnfit(
                    f"no model was given, and {game.name}'s shipped model '{model.name}' does not fit "
                    f"{game.num_players} players ({exc}); --model auto finds one from the game",
                    model=model.name,
                    reason=f"does not fit {game.num_players} players: {exc}",
                ) from None
            raise


def _solve_program(
    game: BayesianGame,
    model: ParametricModel,
    program: ThresholdProgram,
    indicators: str,
    how: _Settings,
    t0: float,
) -> ThresholdSolution:
    """The certified answer of ``model``'s solved ``program`` (built since ``t0``); raises
    :class:`ModelInfeasible` when the program is infeasible."""
    t1 = time.perf_counter()
    with stage(f"solving the threshold program with {how.backend}"):
        sol = solve_model(
            program.model,
            how.backend,
            indicators=indicators,
            time_limit=how.time_limit,
            verbose=how.verbose,
            method=how.method,
        )
    t2 = time.perf_counter()
    if sol.status == "infeasible":
        raise ModelInfeasible(
            f"no equilibrium of {game.name} conforms to model '{model.name}' (the threshold "
            "program is infeasible); check the order of the thresholds and the plan of each "
            "region (which actions each player takes where), or try another model"
        )
    if sol.status != "optimal":
        raise SolveFailed(f"threshold program not solved: {sol.status} ({sol.message})")
    import pyomo.environ as pyo

    m = program.model
    t = {k: pyo.value(m.t[k]) for k in program.thresholds}
    owner = {k: model.threshold_owner(k)[0] for k in program.thresholds}
    thresholds = tuple([float(t[k]) for k in program.thresholds if owner[k] == p] for p in range(game.num_players))
    return _certified(
        game,
        model,
        program,
        thresholds,
        backend=how.backend,
        indicators=indicators,
        cells=how.cells,
        extensive_check=how.extensive_check,
        seconds={"build": t1 - t0, "solve": t2 - t1, **{f"solver_{k}": v for k, v in sol.seconds.items()}},
        certificate=how.certificate,
    )


def _solve_every_signal(
    game: BayesianGame,
    model: ParametricModel,
    answer: ThresholdSolution,
    indicators: str,
    how: _Settings,
    t0: float,
) -> ThresholdSolution:
    """The answer of ``model``'s program with a best-response row per signal, in the time
    left since ``t0``, noting why: ``answer``, of the program without them, is exploitable."""
    # the program checks the thresholds, and a signal inside a region preferred another
    # plan: with a best-response row per signal a feasible answer is an equilibrium, or
    # the program is infeasible and no equilibrium follows the model
    left = None if how.time_limit is None else max(0.01, how.time_limit - (time.perf_counter() - t0))
    strict = threshold_answer(
        game,
        model,
        backend=how.backend,
        indicators=indicators,
        cells=how.cells,
        **how.shape,
        every_signal=True,
        time_limit=left,
        extensive_check=how.extensive_check,
        verbose=how.verbose,
        method=how.method,
        certificate=how.certificate,
    )
    strict.note = (
        f"the program without a best-response row per signal answered with exploitability "
        f"{answer.exploitability:.3e} ({answer.looseness()}); solved again with one (--every-signal)"
    )
    return strict


def discover_model(
    spec: Any,
    *,
    backend: str = "highs",
    cells: int = DEFAULT_CELLS,
    time_limit: float | None = None,
    discretisations: tuple[int, ...] | None = None,
    certificate: str = "exact",
    epsilon: float | None = None,
) -> Any:
    """A parametric model found from a signal game, with its certified answer: a
    :class:`equilibria.routes.threshold.discovery.Discovery` (``model``, ``answer`` or None, ``attempts``,
    ``relation`` to the shipped models). Two players: the answer of the model's threshold
    program (:func:`equilibria.routes.threshold.discovery.search`). Three or more, continuous signals: the
    thresholds read from CFR+ on a discretisation, finer until their exact NashConv is at
    most ``epsilon`` (default 1e-3; :func:`equilibria.routes.threshold.discovery.search_many`). See
    :mod:`equilibria.routes.threshold.discovery`; ``cells`` are those of the certificate's cross-check."""
    from .discovery import DISCRETISATIONS, MANY_PLAYER_EPSILON, search, search_many

    if isinstance(spec, BayesianGame):
        game = spec
    else:
        from ...instances.registry import describe

        game = describe(spec).view(
            "signal", "a model is found for games with private signals and a public betting tree"
        )
    if game.num_players > 2:
        return search_many(
            game,
            functools.partial(_read_answer, cells=cells, certificate=certificate),
            solve_near=functools.partial(_answer_near, backend=backend, cells=cells, certificate=certificate),
            epsilon=MANY_PLAYER_EPSILON if epsilon is None else epsilon,
            time_limit=time_limit,
        )
    return search(
        game,
        functools.partial(threshold_answer, certificate=certificate),
        backend=backend,
        cells=cells,
        time_limit=time_limit,
        discretisations=discretisations or DISCRETISATIONS,
    )


def _read_answer(
    game: BayesianGame,
    model: ParametricModel,
    thresholds: tuple[list[float], ...],
    target: float,
    *,
    cells: int,
    certificate: str = "exact",
) -> ThresholdSolution:
    """Thresholds read from a discretisation (no program solved), certified exactly (or
    on ``cells`` cells with ``certificate="cells"``); an equilibrium when the NashConv is
    at most ``target``."""
    answer = _certified(
        game,
        model,
        None,
        thresholds,
        backend="none",
        indicators="none",
        cells=cells,
        extensive_check=False,
        seconds={},
        certificate=certificate,
    )
    answer.target_nash_conv = target
    return answer


#: Half-width (signal units) of the first box around thresholds the equations give; it
#: narrows until the products need no binaries (two breakpoints, a chord per square).
NEAR_BOX = 1e-3
#: Most programs written while narrowing it.
NEAR_TRIES = 4


def _answer_near(
    game: BayesianGame,
    model: ParametricModel,
    thresholds: tuple[list[float], ...],
    target: float,
    *,
    backend: str,
    cells: int,
    certificate: str = "exact",
    time_limit: float | None = None,
) -> ThresholdSolution:
    """The certified answer of ``model``'s threshold program with epsilon ``target``, its
    thresholds confined to a box around ``thresholds`` (signal units, per player) that is
    narrowed until the program needs no binaries: near thresholds that solve the model's
    equations, the program is then a linear program (the finite games' located rounds
    start the same way). Raises :class:`ModelInfeasible` when the box holds no solution,
    :class:`SolveFailed` when the solver stops without one (``time_limit`` seconds)."""
    centre = {f"{p + 1}.{j + 1}": float(t) for p, ts in enumerate(thresholds) for j, t in enumerate(ts)}
    half = NEAR_BOX
    with stage("building the threshold program near the equations' solution"):
        for _ in range(NEAR_TRIES):
            box = {k: (c - half, c + half) for k, c in centre.items()}
            program = threshold_milfp(game, model, epsilon=target, box=box)
            if program.breakpoints is None or program.breakpoints <= 2:
                break
            # the products' error grows like the box's width squared, and falls like the
            # square of the segments per square
            half *= 0.9 / (program.breakpoints - 1)
    how = _Settings(
        backend=backend,
        cells=cells,
        certificate=certificate,
        epsilon=target,
        extensive_check=False,
        time_limit=time_limit,
    )
    t0 = time.perf_counter()
    answer = _solve_program(game, model, program, default_indicators(backend, program.model), how, t0)
    answer.target_nash_conv = target
    answer.note = (
        f"the program confined to a box of half-width {half:.1e} around thresholds that solve the model's "
        "indifference equations"
    )
    return answer


def _solve_auto(
    game: BayesianGame,
    *,
    backend: str,
    cells: int,
    time_limit: float | None,
    t0: float,
    certificate: str = "exact",
    epsilon: float | None = None,
) -> Any:
    """Model ``auto``: a model found from the game (:func:`discover_model`)."""
    found = discover_model(
        game, backend=backend, cells=cells, time_limit=time_limit, certificate=certificate, epsilon=epsilon
    )
    from .discovery import relation_to_shipped

    if found.answer is None and found.best is not None and time_limit is not None:
        # the time limit ended the search above epsilon: the best certified answer, as the
        # located rounds of finite games give theirs
        answer = found.best
        answer.status = Status.TIME_LIMIT
        answer.note = (
            f"the best certified NashConv {answer.nash_conv:.3e} within the time limit is above epsilon "
            f"{answer.target_nash_conv:g}; give more time or a larger --epsilon"
        )
        answer.discovery = {"attempts": found.attempts, "relation": relation_to_shipped(game, answer.model)}
        answer.seconds = {"total": time.perf_counter() - t0, **answer.seconds}
        return answer
    if found.answer is None:
        outcomes = [a["outcome"].split(":")[0] for a in found.attempts]
        signals = sorted({a["signals"] for a in found.attempts})
        counts = ", ".join(f"{outcomes.count(k)} {k}" for k in dict.fromkeys(outcomes))
        closest = [a["exploitability"] for a in found.attempts if "exploitability" in a]
        best = f" (least exploitability {min(closest):.1e})" if closest else ""
        raise ModelInfeasible(
            f"no model found for {game.name} that answers with an equilibrium: {len(outcomes)} programs "
            f"on {', '.join(map(str, signals)) or 'no'} signals read: {counts or 'none solved'}{best}"
        )
    answer = found.answer
    answer.discovery = {"attempts": found.attempts, "relation": found.relation}
    answer.seconds = {"total": time.perf_counter() - t0, **answer.seconds}
    return answer


def _solve_located(
    game: BayesianGame,
    model: ParametricModel,
    *,
    backend: str,
    select: str,
    min_width: float,
    epsilon: float | None,
    breakpoints: int | None,
    products: str | None,
    mccormick: bool,
    rounds: int | None,
    deadline: float | None,
    verbose: bool,
    t0: float,
    method: str | None = None,
    start: tuple[dict[str, float], str] | None = None,
) -> ThresholdSolution:
    """The located program's rounds (:mod:`equilibria.routes.threshold.located`), certified as any answer."""
    from ...core.anytime import rounds_table
    from .located import solve_located

    if rounds is not None:
        checks.count("rounds", rounds)
    representation, choice = choose_products(backend, products)
    outcome = solve_located(
        game,
        model,
        backend=backend,
        representation=representation,
        epsilon=epsilon,
        breakpoints=breakpoints,
        select=select,
        min_width=min_width,
        mccormick=mccormick,
        rounds=rounds,
        deadline=deadline,
        verbose=verbose,
        method=method,
        start=start,
    )
    t1 = time.perf_counter()
    answer = _certified(
        game,
        model,
        outcome.program,
        outcome.thresholds,
        backend=backend,
        indicators="bigm",
        cells=DEFAULT_CELLS,
        extensive_check=True,
        seconds={"rounds": t1 - t0},
    )
    answer.curve = rounds_table(outcome.rounds)
    answer.choice = choice
    answer.bound_at_answer = outcome.bound
    if outcome.status != Status.OPTIMAL:  # stopped above epsilon: the best certified answer
        answer.status, answer.note = outcome.status, outcome.reason
    return answer


def choose_products(backend: str, products: str | None) -> tuple[str, str]:
    """The products' representation for ``backend`` and a sentence saying why: the one
    asked for, else ``log`` (binaries grow like the logarithm of the breakpoints and every
    MILP backend takes it; SOS2 sets need SCIP or Gurobi, exact products a global solver)."""
    if products is not None:
        return products, f"products {products} as asked"
    known = get_backend(backend)
    if not known.capabilities.milp:
        raise checks.OptionError(f"backend '{backend}' solves no mixed-integer programs; use highs or scip")
    return "log", (
        "products log by default: logarithmically many binaries per product, which every MILP backend takes "
        "(--products sos2 needs SCIP or Gurobi, --products exact a global solver such as SCIP)"
    )


def _certified(
    game: BayesianGame,
    model: ParametricModel,
    program: ThresholdProgram | None,
    thresholds: tuple[list[float], ...],
    *,
    backend: str,
    indicators: str,
    cells: int,
    extensive_check: bool,
    seconds: dict,
    join: dict | None = None,
    certificate: str = "exact",
) -> ThresholdSolution:
    """The answer of ``model``'s ``thresholds``: strategies projected on the finite game
    (or a discretisation into ``cells``) and certified by exact best responses: in the
    finite game, or for continuous signals in the continuous game itself
    (``certificate="exact"``, with the cells' certificate beside it for two players) or on
    the cells (``certificate="cells"``)."""
    t2 = time.perf_counter()
    players = range(game.num_players)
    cdf = tuple([float(v) for v in game.signals[p](np.asarray(thresholds[p], dtype=float))] for p in players)
    if game.finite:
        verified = _finite_certificate(game, model, thresholds, extensive_check)
    else:
        verified = _continuous_certificate(game, model, thresholds, cells, certificate)
    t3 = time.perf_counter()
    return ThresholdSolution(
        route="threshold",
        game_name=game.name,
        status=Status.OPTIMAL,
        backend=backend,
        method=None,
        value=float(verified.cert.payoffs[0]),
        certificate=verified.cert,
        certified_in=verified.where,
        zero_sum=game.tree.zero_sum,
        sequence_form=verified.sequence_form,
        behaviors=verified.behaviors,
        sizes=_program_sizes(program) if program is not None else {},
        game=game,
        model=model,
        program=program,
        thresholds=thresholds,
        cdf=cdf,
        strategies=verified.strategies,
        verification=verified.verification,
        indicators=indicators,
        join=join,
        seconds={**seconds, "verify": t3 - t2},
    )


@dataclass
class _Verified:
    """Strategies projected on a finite game, their certificate, how it was made
    (``verification``) and ``where``; with the sequence form and behaviour strategies of
    the extensive form when certified there."""

    strategies: list[np.ndarray]
    cert: Exploitability
    verification: dict
    where: str
    sequence_form: SequenceForm | None = None
    behaviors: list[np.ndarray] | None = None


def _finite_certificate(
    game: BayesianGame, model: ParametricModel, thresholds: tuple[list[float], ...], extensive_check: bool
) -> _Verified:
    """The certificate of ``thresholds`` on finite signals: returns plan-level best
    responses (two players, or without ``extensive_check``) and, with ``extensive_check``,
    the certificate in the equivalent extensive-form game, which then answers."""
    verification: dict = {}
    sequence_form, behaviors, where = None, None, "the game's signal plans"
    target = game.finite_game()
    strategies = project(game, model, thresholds, target)
    # the plan-level check enumerates plan profiles, whose number grows like the
    # product of the players' plan counts: with more than two players the extensive
    # form certifies alone
    plan_level = game.num_players == 2 or not extensive_check
    if plan_level:
        ex = target.exploitability(strategies)
        verification.update(
            method="exact, plan best responses",
            cells=None,
            best_response_values=[float(v) for v in ex["best_response_values"]],
        )
        cert = _plan_certificate(ex)
    if extensive_check:
        eg = target.to_extensive()
        sequence_form = SequenceForm(eg)
        behaviors = target.behavior_from_plans(strategies, eg, sequence_form)
        verification.update(
            method="exact, in the equivalent extensive-form game", cells=None, extensive_nodes=eg.num_nodes
        )
        if plan_level:
            verification["plan_exploitability"] = float(ex["exploitability"])
        cert = certify(sequence_form, behaviors)
        verification["best_response_values"] = [float(v) for v in cert.best_response_values]
        where = "the equivalent extensive-form game"
    return _Verified(strategies, cert, verification, where, sequence_form, behaviors)


def _continuous_certificate(
    game: BayesianGame, model: ParametricModel, thresholds: tuple[list[float], ...], cells: int, certificate: str
) -> _Verified:
    """The certificate of ``thresholds`` on continuous signals, with strategies projected on
    ``cells`` equal cells: returns exact best responses in the continuous game
    (``certificate="exact"``, cross-checked on the cells for two players) or best responses
    on the cells (``certificate="cells"``)."""
    verification: dict = {}
    target = game.discretize(cells)
    strategies = project(game, model, thresholds, target)
    # the cell certificate enumerates cells ** players deals: with two players it is
    # cheap and cross-checks the exact one; with more it runs when asked for
    on_cells = target.exploitability(strategies) if certificate == "cells" or game.num_players == 2 else None
    if certificate == "exact":
        ex = threshold_exploitability(game, model.plan_indices(game), thresholds)
        where = "the continuous game (exact best responses)"
        verification.update(
            method="exact, best responses integrated piece by piece",
            cells=None,
            best_response_values=[float(v) for v in ex["best_response_values"]],
        )
        if on_cells is not None:
            verification["cells_check"] = {
                "cells": cells,
                "exploitability": float(on_cells["exploitability"]),
                "nash_conv": float(on_cells["nash_conv"]),
            }
    else:
        ex = cast(dict, on_cells)
        where = f"a discretisation into {cells} equal cells"
        verification.update(
            method=f"on a discretisation into {cells} equal cells (ties split)",
            cells=cells,
            best_response_values=[float(v) for v in ex["best_response_values"]],
        )
    return _Verified(strategies, _plan_certificate(ex), verification, where)


def _solve_joined(
    game: BayesianGame,
    models: list[ParametricModel],
    *,
    refinement: ParametricModel | None,
    backend: str,
    indicators: str | None,
    cells: int,
    select: str,
    time_limit: float | None,
    extensive_check: bool,
    verbose: bool,
    t0: float,
    certificate: str = "exact",
) -> ThresholdSolution:
    """One program for several models (:func:`threshold_join`); the answer is the model
    whose indicator is 1, with that model's thresholds, certified as a single model's
    answer. A model whose answer the certificate finds exploitable (its program checks
    the models' indifferences and the omitted plans at the thresholds only, not every
    signal) is dropped and the program solved again over the others, with the same
    refinement; ``join["rejected"]`` names the models dropped so."""
    import pyomo.environ as pyo

    from ...formulations.threshold_join import threshold_join
    from ...models.parametric import common_us_refinement

    get_backend(backend)
    refinement = refinement if refinement is not None else common_us_refinement(models)
    t0_build = time.perf_counter()
    remaining = list(models)
    rejected: dict[str, float] = {}
    seconds: dict[str, float] = {"build": 0.0, "solve": 0.0}
    while True:
        t1 = time.perf_counter()
        with stage("building the joined threshold program"):
            program = threshold_join(game, remaining, refinement, select=select)
        indicators = indicators or default_indicators(backend, program.model)
        t2 = time.perf_counter()
        with stage(f"solving the joined threshold program with {backend}"):
            sol = solve_model(program.model, backend, indicators=indicators, time_limit=time_limit, verbose=verbose)
        t3 = time.perf_counter()
        seconds["build"] += t2 - t1
        seconds["solve"] += t3 - t2
        names = ", ".join(f"'{m.name}'" for m in remaining)
        if sol.status == "infeasible":
            dropped = f"; dropped as exploitable: {', '.join(rejected)}" if rejected else ""
            raise ModelInfeasible(
                f"no equilibrium of {game.name} conforms to any of the models {names} (the joined "
                f"threshold program is infeasible){dropped}"
            )
        if sol.status != "optimal":
            raise SolveFailed(f"joined threshold program not solved: {sol.status} ({sol.message})")
        zeta = program.zeta()
        chosen = int(np.argmax(zeta))
        model = remaining[chosen]
        rep = program.representatives[chosen]
        t = {k: float(pyo.value(program.model.t[k])) for k in program.thresholds}
        thresholds = tuple(
            [t[rep[k]] for k in model.threshold_names if model.threshold_owner(k)[0] == p]
            for p in range(game.num_players)
        )
        join = {
            "join": "one-program",
            "holds": model.name,
            "zeta": {m.name: z for m, z in zip(remaining, zeta)},
            "rejected": dict(rejected),
            "refinement": refinement.name,
            "refinement_regions": {str(p + 1): refinement.region_text(game, p) for p in range(game.num_players)},
        }
        answer = _certified(
            game,
            model,
            program,
            thresholds,
            backend=backend,
            indicators=indicators,
            cells=cells,
            extensive_check=extensive_check,
            seconds={"game": t0_build - t0, **seconds},
            join=join,
            certificate=certificate,
        )
        if answer.is_equilibrium or len(remaining) == 1:
            return answer
        rejected[model.name] = float(answer.exploitability or 0.0)
        remaining.pop(chosen)


def _program_sizes(program: ThresholdProgram) -> dict:
    """Rows, columns, binaries and SOS2 sets of the program before any reformulation
    (disjuncts' rows and indicator binaries included, and the binaries of the products'
    piecewise-linear representation)."""
    import pyomo.environ as pyo
    from pyomo.gdp import Disjunct

    m = program.model
    blocks = (pyo.Block, Disjunct)
    rows = sum(1 for _ in m.component_data_objects(pyo.Constraint, active=True, descend_into=blocks))
    # a disjunct's indicator is a binary variable of the disjunct block, so it is counted here
    variables = [v for v in m.component_data_objects(pyo.Var, descend_into=blocks) if not v.fixed]
    integer = sum(1 for v in variables if v.is_binary() or v.is_integer())
    sos2 = sum(1 for c in m.component_data_objects(pyo.SOSConstraint, active=True, descend_into=blocks) if c.level == 2)
    return {
        "rows": rows,
        "columns": len(variables),
        "binaries": integer,
        "sos2": sos2,
        "products": program.num_products,
    }


def _plan_certificate(ex: dict) -> Exploitability:
    """A certificate from plan-level best responses (finite signal games)."""
    return Exploitability(
        exploitability=float(ex["exploitability"]),
        nash_conv=float(ex["nash_conv"]),
        payoffs=np.asarray(ex["payoffs"], dtype=float),
        best_response_values=np.asarray(ex["best_response_values"], dtype=float),
    )


def satisfies_model(
    game: BayesianGame, model: str | ParametricModel, thresholds: Sequence[Sequence[float]], backend: str = "highs"
) -> bool:
    """True when ``model``'s own threshold program (one model, as :func:`solve_threshold`
    builds it) is feasible with its thresholds fixed at ``thresholds`` (per player,
    ascending, in signal units): the check that a joined program's answer conforms to the
    model it names (to 1e-9 in each threshold)."""
    model = resolve_model(game, model)
    program = threshold_milfp(game, model)
    owner = [model.threshold_owner(k) for k in program.thresholds]
    for k, (p, j) in zip(program.thresholds, owner):
        # a window of 1e-9 rather than fixed values: a fixed order row the point breaks is
        # refused by Pyomo's compiler instead of being reported infeasible
        value = float(thresholds[p][j - 1])
        program.model.t[k].setlb(value - 1e-9)
        program.model.t[k].setub(value + 1e-9)
    sol = solve_model(program.model, backend, indicators=default_indicators(backend, program.model))
    if sol.status not in ("optimal", "infeasible"):
        raise SolveFailed(f"threshold program not solved: {sol.status} ({sol.message})")
    return sol.status == "optimal"


def _model_feasibility(job: tuple[int, Any, str | ParametricModel, dict]) -> tuple[int, str]:
    """Solve one model's program (in a worker process); (the model's index, outcome)."""
    index, spec, model, options = job
    try:
        if "refinement" in options:
            answer = threshold_answer(spec, models=[model], **options)
        else:
            answer = threshold_answer(spec, model, **options)
    except ModelInfeasible:
        return index, "infeasible"
    except (ModelError, SolverError) as exc:
        return index, "error: " + " ".join(str(exc).split())
    return index, "feasible" if answer.is_equilibrium else "feasible, exploitable"


def solve_threshold_separately(
    spec: Any,
    models: Sequence[str | ParametricModel],
    *,
    workers: int = 2,
    first: bool = True,
    **options: Any,
) -> tuple[ThresholdSolution | None, dict[str, str]]:
    """Solve each model's threshold program on its own, ``workers`` at a time in worker
    processes, rather than joining the models in one program.

    Ganzfried and Sandholm ("Computing equilibria by incorporating qualitative models",
    2010) name this as the alternative to one program over several models: when one of
    the models is known to hold, the first feasible program answers. With a
    ``refinement`` among the options each model's program is the joined program of that
    model alone over the refinement (the one program's rows with that model's ``zeta``
    fixed to 1, including the rows on the plans it omits), so both routes solve the same
    programs; without it, each model's own program. With ``first`` the
    remaining programs are stopped as soon as one is feasible; without it every model is
    tried (so that the outcome of each is known). ``options`` are those of
    :func:`solve_threshold`. Returns (the answer of the feasible model, re-solved in this
    process so that it carries its program and certificate, or None when none is
    feasible; ``{model name: "feasible" | "feasible, exploitable" | "infeasible" | "not run"
    | "error: ..."}``). A program whose answer the certificate finds exploitable (the model
    admits a point that is no equilibrium) does not answer; the others go on.
    """
    import gc
    import multiprocessing

    checks.count("workers", workers)
    if not models:
        raise ModelError("solve_threshold_separately needs at least one model")
    names = [m if isinstance(m, str) else m.name for m in models]
    if len(set(names)) != len(names):
        raise ModelError(f"models named twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
    outcome = dict.fromkeys(names, "not run")
    winner: int | None = None
    context = multiprocessing.get_context("spawn")
    quiet_resource_tracker()
    pool = pool_deaf_to_ctrl_c(context, min(workers, len(models)))
    finished = False
    try:
        jobs = [(i, spec, m, options) for i, m in enumerate(models)]
        for i, result in pool.imap_unordered(_model_feasibility, jobs):
            outcome[names[i]] = result
            if result == "feasible" and winner is None:
                winner = i
                if first:
                    break
        else:
            finished = True
    finally:
        if finished:
            pool.close()  # workers leave normally and release what they hold
        else:
            pool.terminate()
        pool.join()
        # collected now: the command line leaves by os._exit, before finalizers would run
        del pool
        gc.collect()
    if winner is None:
        return None, outcome
    if "refinement" in options:
        return threshold_answer(spec, models=[models[winner]], **options), outcome
    return threshold_answer(spec, models[winner], **options), outcome


__all__ = [
    "ModelInfeasible",
    "discover_model",
    "ThresholdSolution",
    "project",
    "solve_threshold",
    "threshold_answer",
    "ThresholdPrograms",
    "solve_threshold_separately",
    "satisfies_model",
    "DEFAULT_CELLS",
]
