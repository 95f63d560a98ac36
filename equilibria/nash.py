"""The MIP Nash route: an equilibrium of a two-player general-sum game by mixed-integer
programming (Sandholm, Gilpin and Conitzer, "Mixed-integer programming methods for
finding Nash equilibria", 2005), for normal-form and extensive-form games alike.

>>> from equilibria.nash import solve_nash
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
from dataclasses import dataclass
from typing import Any

import numpy as np

from .answer import Answer
from .formulations.mip_nash import check_objective, mip_nash, read_profile
from .models import checks
from .models.best_response import certify
from .models.efg import ExtensiveGame
from .models.errors import GameError, SolverError
from .models.normal_form import NormalFormGame
from .models.progress import stage
from .models.sequence import SequenceForm
from .models.strategy import behavior_from_realization
from .solvers import solve


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
    problem: Any = None  # the LinearProgram solved (for MPS/LP export)

    @property
    def is_equilibrium(self) -> bool:
        """True when no player gains more than 1e-6 by deviating."""
        return max(self.regrets) <= 1e-6

    def profile(self) -> list[dict]:
        """Per player, per information set (numbered from 1 in the game's order, with its
        label) the action probabilities in the game's action order."""
        sf = self.sequence_form
        assert sf is not None and self.behaviors is not None
        game = sf.game
        out = []
        for p, ps in enumerate(sf.players):
            infosets = []
            for i in range(ps.num_infosets):
                k = int(ps.infoset_global[i])
                first = int(ps.infoset_first_sequence[i])
                count = int(ps.infoset_num_actions[i])
                numbers = game.infoset_numbers
                infosets.append(
                    {
                        "infoset": int(numbers[k]) if numbers is not None else i + 1,
                        "label": game.infoset_label(k),
                        "actions": [game.action_label(k, a) for a in range(count)],
                        "probabilities": [float(v) for v in self.behaviors[p][first : first + count]],
                    }
                )
            out.append({"player": p + 1, "name": game.player_names[p], "infosets": infosets})
        return out

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
            "profile": self.profile(),
        }
        if self.mixed is not None:
            out["mixed"] = [[float(v) for v in m] for m in self.mixed]
        return out


def solve_nash(
    game: Any,
    *,
    formulation: int = 1,
    objective: str = "any",
    backend: str = "highs",
    time_limit: float | None = None,
    verbose: bool = False,
) -> NashSolution:
    """Solve the MIP Nash program of ``formulation`` (1-4) with ``objective`` for the
    two-player game ``game`` (a NormalFormGame, an ExtensiveGame, or anything the
    registry resolves) and certify the profile by exact best responses.

    Raises GameError for a game that is not two-player, OptionError for a bad option and
    SolverError when the backend returns no profile (with formulation 1 and a time
    limit, it may find none in time; formulations 2-4 always have one to return).
    """
    checks.name("backend", backend, optional=False)
    checks.number("time_limit", time_limit, strict=True)
    check_objective(objective, formulation)
    t0 = time.perf_counter()
    normal: NormalFormGame | None = None
    if isinstance(game, NormalFormGame):
        normal = game
        extensive = game.to_extensive()
    elif isinstance(game, ExtensiveGame):
        extensive = game
    else:
        from .instances.registry import describe

        view = describe(game).first_view("normal|extensive", "the MIP Nash route")
        return solve_nash(
            view, formulation=formulation, objective=objective, backend=backend, time_limit=time_limit, verbose=verbose
        )
    if extensive.num_players != 2:
        raise GameError(
            f"MIP Nash is written here for two players; '{extensive.title or 'the game'}' has {extensive.num_players}"
        )
    sf = SequenceForm(extensive)
    t1 = time.perf_counter()
    with stage(f"building MIP Nash (formulation {formulation})"):
        lp = mip_nash(sf, formulation, objective)
    t2 = time.perf_counter()
    with stage(f"solving MIP Nash ({lp.num_rows:,} rows, {lp.num_cols:,} columns) with {backend}"):
        sol = solve(lp, backend, time_limit=time_limit, verbose=verbose)
    t3 = time.perf_counter()
    if sol.x is None:
        raise SolverError(f"MIP Nash: backend {backend} returned no profile (status {sol.status}: {sol.message})")
    plans, _ = read_profile(lp, sol.x)
    behaviors = [behavior_from_realization(sf.players[p], plans[p]) for p in range(2)]
    with stage("certifying by exact best responses"):
        cert = certify(sf, behaviors)
    regrets = [float(v) for v in np.maximum(cert.best_response_values - cert.payoffs, 0.0)]
    mixed = None
    if normal is not None:
        mixed = []
        for p in range(2):
            first = int(sf.players[p].infoset_first_sequence[0])
            mixed.append(behaviors[p][first : first + normal.num_strategies[p]].copy())
    objective_value = None if sol.objective is None else float(sol.objective)
    factor = lp.meta["bound_factor"]
    proven = None if formulation == 1 or objective_value is None else factor * max(objective_value, 0.0)
    t4 = time.perf_counter()
    return NashSolution(
        route="nash",
        game_name=extensive.title or (normal.title if normal else "game"),
        status=str(sol.status),
        backend=backend,
        method=None,
        value=float(cert.payoffs[0]),
        certificate=cert,
        certified_in="the game",
        sequence_form=sf,
        behaviors=behaviors,
        sizes={
            "rows": lp.num_rows,
            "columns": lp.num_cols,
            "nonzeros": lp.nnz,
            "binaries": int(np.count_nonzero(lp.integrality)) if lp.integrality is not None else 0,
        },
        seconds={"sequence_form": t1 - t0, "build": t2 - t1, "solve": t3 - t2, "verify": t4 - t3},
        zero_sum=bool(np.allclose(sf.terminal_payoffs.sum(axis=1), 0.0, atol=1e-12)),
        formulation=formulation,
        objective=objective,
        regrets=regrets,
        mixed=mixed,
        normal_form=normal,
        objective_value=objective_value,
        best_bound=None if sol.dual_objective is None else float(sol.dual_objective),
        proven_bound=proven,
        problem=lp,
    )


__all__ = ["NashSolution", "solve_nash"]
