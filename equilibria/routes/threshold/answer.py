"""The threshold route's answer (:class:`ThresholdSolution`), and the words
``equilibria threshold`` prints of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.answer import Answer
from ...core.anytime import rounds_lines
from ...formulations.threshold_milfp import ThresholdProgram
from ...models.bayesian import BayesianGame
from ...models.parametric import ParametricModel
from ...models.wording import fixed, plural


@dataclass(kw_only=True)
class ThresholdSolution(Answer):
    """The answer of a threshold program and its certificate.

    ``thresholds[p]`` lists player p's thresholds ascending, in signal units (for finite
    signals ``1..n``, signal ``j`` spans ``[j-1, j]``); ``cdf[p]`` the same thresholds as
    player p's CDF values. ``strategies[p]`` is an array (signals or cells, plans) of plan
    probabilities. ``value`` is player 1's expected payoff; the certificate is exact for
    finite signals (computed in the equivalent extensive-form game, whose behaviour
    strategies are ``behaviors``) and, for continuous signals, exact in the continuous
    game (:mod:`equilibria.models.threshold_best_response`), or measured on
    ``verification["cells"]`` equal cells when that certificate was asked for.
    """

    game: BayesianGame
    model: ParametricModel
    program: ThresholdProgram | None  # None: thresholds read from a discretisation, no program solved
    thresholds: tuple[list[float], ...]
    cdf: tuple[list[float], ...]
    strategies: list[np.ndarray]
    verification: dict
    indicators: str
    join: dict | None = None
    curve: list[dict] | None = None
    choice: str | None = None
    bound_at_answer: float | None = None
    note: str | None = None  # how the answer came about, when not as asked
    discovery: dict | None = None  # model "auto": what was tried, and the shipped models' relation
    target_nash_conv: float | None = None  # thresholds read without a program: the NashConv aimed at
    read_from: str | None = None  # thresholds read from solution files of the program (certify --model)

    def looseness(self) -> str:
        """What a program that checks only its thresholds left free, in words: regions
        of width zero, or signals inside a region that gain by another plan."""
        empty = [row for row in self.region_table() if row["to"] - row["from"] <= 1e-9]
        if empty:
            row = empty[0]
            return f"player {row['player']}'s region {row['region']} ({row['plan']}) is empty"
        return "every region has width, but signals inside some region gain by another plan"

    @property
    def is_equilibrium(self) -> bool:
        """False when the verification finds the strategies exploitable (beyond 1e-6, or
        for a certificate on cells beyond the discretisation's own error): the model
        admitted a solution that is no equilibrium (typically with empty regions), so the
        model does not describe this game's equilibria."""
        cells = self.verification.get("cells")
        tolerance = 1e-6 if not cells else max(1e-6, 10.0 / cells**2)
        if self.program is None or self.target_nash_conv is not None:
            # thresholds read, or a program solved near them: the NashConv aimed at
            return self.nash_conv is not None and self.nash_conv <= (self.target_nash_conv or 0.0) + tolerance
        if self.program.num_products:
            # an approximate program promises NashConv within promised_epsilon
            return self.nash_conv is not None and self.nash_conv <= self.program.promised_epsilon + tolerance
        return self.exploitability is not None and self.exploitability <= tolerance

    def strategy_table(self) -> Any:
        """The behaviour strategies in the equivalent extensive-form game when the answer
        was certified there (finite signals); for continuous signals, whose strategies are
        functions of the signal, the regions as a DataFrame (:meth:`region_table`)."""
        if self.behaviors is not None:
            return super().strategy_table()
        import pandas as pd

        return pd.DataFrame(self.region_table())

    def region_table(self) -> list[dict]:
        """One row per player and region: plan in words and signal interval."""
        rows = []
        lo, hi = float(self.game.breakpoints[0]), float(self.game.breakpoints[-1])
        for p in range(self.game.num_players):
            bounds = [lo] + list(self.thresholds[p]) + [hi]
            for j, q in enumerate(self.model.plan_indices(self.game)[p]):
                rows.append(
                    {
                        "player": p + 1,
                        "region": j + 1,
                        "from": bounds[j],
                        "to": bounds[j + 1],
                        "plan": self.game.tree.plan_text(p, q),
                    }
                )
        return rows

    def report_lines(self) -> list[str]:
        """The answer as ``equilibria threshold`` prints it."""
        return report_lines(self)

    def details(self) -> dict:
        """Model, thresholds, regions and how the answer was verified."""
        players = range(self.game.num_players)
        program = self.program
        shape = (
            {
                "products": program.products,
                "breakpoints": program.breakpoints,
                "epsilon": program.epsilon,
                "promised_epsilon": program.promised_epsilon,
                "num_products": program.num_products,
            }
            if program is not None
            else {"target_nash_conv": self.target_nash_conv}
        )
        return {
            "model": self.model.name,
            "thresholds": {str(p + 1): list(map(float, self.thresholds[p])) for p in players},
            "cdf_at_thresholds": {str(p + 1): list(map(float, self.cdf[p])) for p in players},
            "regions": self.region_table(),
            "is_equilibrium": self.is_equilibrium,
            **({"note": self.note} if self.note else {}),
            "verification": self.verification,
            "indicators": self.indicators,
            **shape,
            # the program whose answer this is, with its size; None: thresholds read without one
            "program": {**shape, **self.sizes} if program is not None else None,
            "certified_epsilon": self.certified_epsilon,
            **({"join": self.join} if self.join else {}),
            **({"curve": self.curve, "rounds_run": len(self.curve)} if self.curve is not None else {}),
            **({"bound_at_answer": self.bound_at_answer} if self.bound_at_answer is not None else {}),
            **({"choice": self.choice} if self.choice else {}),
            **({"discovery": self.discovery, "found_model": self.model.to_dict()} if self.discovery else {}),
        }

    @property
    def certified_epsilon(self) -> float | None:
        """The largest gain of one player from deviating, by exact best responses (the
        epsilon of the epsilon-equilibrium the profile is)."""
        cert = self.certificate
        if cert is None:
            return None
        return float(np.max(np.asarray(cert.best_response_values) - np.asarray(cert.payoffs)))


def chain(order: list[tuple[str, str]]) -> list[str]:
    """Pairs a <= b of a chain as the chain's names in order."""
    if not order:
        return []
    return [order[0][0]] + [b for _, b in order]


def report_lines(sol: ThresholdSolution) -> list[str]:
    """The model, how it was found or joined, thresholds, regions, mixed signals, payoffs,
    the certificate, the program's products, size and seconds."""
    lines: list[str] = []
    game = sol.game
    lines.append(
        f"game            {game.name}  ({'finite' if game.finite else 'continuous'} signals, {game.winner} wins)"
    )
    lines.append(f"model           {sol.model.name}" + (f": {sol.model.description}" if sol.model.description else ""))
    lines += _discovery_lines(sol) + _join_lines(sol) + _strategy_lines(sol)
    if game.num_players == 2 and sol.zero_sum and sol.value is not None:
        lines.append(f"value (player 1) {fixed(sol.value, 12)}")
    else:
        lines.append("payoffs         " + ", ".join(f"{fixed(v, 9)}" for v in sol.payoffs or []))
    lines.append(
        f"exploitability  {sol.exploitability:.3e}  ({sol.verification['method']}; NashConv {sol.nash_conv:.3e})"
    )
    check = sol.verification.get("cells_check")
    if check:
        lines.append(
            f"  on {check['cells']} cells  {check['exploitability']:.3e}  (cross-check; differs by the cells' error)"
        )
    if sol.choice:
        lines.append(f"choice          {sol.choice}; backend {sol.backend}")
    lines += rounds_lines(sol.curve or []) + _program_lines(sol)
    lines.append("seconds         " + ", ".join(f"{k} {v:.3f}" for k, v in sol.seconds.items()))
    return lines


def _discovery_lines(sol: ThresholdSolution) -> list[str]:
    """How a model found from the game (``--model auto``) was found, and what it is."""
    lines: list[str] = []
    if sol.discovery and "chosen" in sol.discovery:  # finite signals, three or more players
        tried = "; ".join(
            f"{t['model']} ({t['change']}): "
            + (t["outcome"] if "outcome" in t else f"{', '.join(map(str, t['regions']))} regions")
            for t in sol.discovery["attempts"]
        )
        lines.append(f"model chosen    {sol.discovery['chosen']}")
        lines.append(f"  tried         {tried}")
        if not sol.discovery["chosen"].startswith("found"):
            return lines
    elif sol.discovery:
        shipped = sol.discovery.get("shipped")
        if shipped:  # no model named, and the shipped one did not fit
            lines.append(f"shipped model   {shipped['model']}: {shipped['outcome']}")
        tries = sol.discovery["attempts"]
        relation = ", ".join(f"{k} {v}" for k, v in sol.discovery["relation"].items()) or "no shipped models"
        if sol.program is None:
            read = ", ".join(str(t["signals"]) for t in tries)
            lines.append(
                f"found           after {plural(len(tries), 'reading')} (CFR+ on {read} cells); against the shipped "
                f"models: {relation}"
            )
        elif sol.game.num_players > 2:  # readings, models solved by their equations, programs near them
            read = ", ".join(dict.fromkeys(str(t["signals"]) for t in tries))
            solved = sum(t["change"].startswith("equations") for t in tries)
            programs = sum(t["change"].startswith("threshold program") for t in tries)
            lines.append(
                f"found           CFR+ on {read} cells read, {plural(solved, 'model')} solved by the indifference "
                f"equations, {plural(programs, 'program')}; against the shipped models: {relation}"
            )
        else:
            lines.append(
                f"found           after {plural(len(tries), 'program')} ({tries[-1]['signals']} signals read, "
                f"{plural(tries[-1]['repair'], 'repair')}); against the shipped models: {relation}"
            )
    if sol.discovery:
        for p in range(sol.game.num_players):
            plans = " | ".join(", ".join(f"{k or 'root'}: {v}" for k, v in r.items()) for r in sol.model.regions[p])
            lines.append(f"  player {p + 1} regions  {plans}")
        lines.append(f"  order           {' <= '.join(chain(sol.model.order))}")
    return lines


def _join_lines(sol: ThresholdSolution) -> list[str]:
    """How several models were joined, and which holds."""
    lines: list[str] = []
    if sol.join:
        if sol.join["join"] == "one-program":
            zeta = ", ".join(f"{k} {v:g}" for k, v in sol.join["zeta"].items())
            lines.append(
                f"join            one program over the common US-refinement '{sol.join['refinement']}'; zeta: {zeta}"
            )
        else:
            outcomes = ", ".join(f"{k} {v}" for k, v in sol.join["outcomes"].items())
            over = f" over the common US-refinement '{sol.join['refinement']}'" if "refinement" in sol.join else ""
            lines.append(f"join            separate programs{over}: {outcomes}")
    return lines


def _strategy_lines(sol: ThresholdSolution) -> list[str]:
    """Thresholds, regions, and the signals a threshold cuts (mixed there)."""
    lines: list[str] = []
    game = sol.game
    players = range(game.num_players)
    for p in players:
        ts = ", ".join(f"{t:.6f}" for t in sol.thresholds[p]) or "(none)"
        lines.append(f"player {p + 1} thresholds {ts}")
    lines.append("regions (signal interval: plan)")
    for row in sol.region_table():
        lines.append(f"  player {row['player']}  [{row['from']:.6f}, {row['to']:.6f}]  {row['plan']}")
    if game.finite:
        lines.append("mixed strategies at the signals a threshold cuts (section 6.2 overlap)")
        for p in players:
            sigma = sol.strategies[p]
            names = game.signals[p].names
            for s in range(sigma.shape[0]):
                mixed = [(q, w) for q, w in enumerate(sigma[s]) if w > 1e-12]
                if len(mixed) > 1:
                    parts = "; ".join(f"{w:.6f} {game.tree.plan_text(p, q)}" for q, w in mixed)
                    lines.append(f"  player {p + 1} signal {names[s]}: {parts}")
    return lines


def _program_lines(sol: ThresholdSolution) -> list[str]:
    """The program: its products and what they promise, its size, the solver."""
    lines: list[str] = []
    program = sol.program
    if program is None and sol.read_from:
        lines.append(f"thresholds      read from {sol.read_from}, a solution of the model's program")
    elif program is None:
        lines.append(
            f"thresholds      read from a discretisation, no program solved (NashConv target "
            f"{sol.target_nash_conv:.1e}, certified {sol.nash_conv:.3e})"
        )
    elif program.num_products:
        points = f"{program.breakpoints} breakpoints per square" if program.breakpoints else "bilinear, no breakpoints"
        lines.append(f"products        {program.num_products} ({program.products}, {points})")
        at_answer = "" if sol.bound_at_answer is None else f", proven at the answer {sol.bound_at_answer:.3e}"
        lines.append(
            f"epsilon         promised {program.promised_epsilon:.3e} (NashConv bound){at_answer}, "
            f"certified {sol.certified_epsilon:.3e} (largest gain of one player)"
        )
    sizes = sol.sizes
    if program is not None:
        lines.append(
            f"program         {sizes['rows']} rows, {sizes['columns']} columns, "
            f"{sizes['binaries']} binaries, {sizes['sos2']} SOS2"
        )
    if sol.note:
        lines.append(f"note            {sol.note}")
    if program is not None:
        lines.append(f"solver          {sol.backend}, indicators {sol.indicators}")
    return lines


__all__ = ["ThresholdSolution", "chain", "report_lines"]
