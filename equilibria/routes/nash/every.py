"""Every equilibrium of a game as one answer: :class:`NashEquilibria`, the list ``equilibria
nash GAME --all`` prints (how it is found: :mod:`equilibria.routes.nash.enumeration`).

Each listed :class:`Equilibrium` carries its own certificate by exact best responses
(:func:`equilibria.models.best_response.certify`); the answer's ``certificate`` is the
largest of them, so that what is read of any answer (``nash_conv``, ``is_equilibrium``)
holds for every profile listed. Profiles are listed once: two whose realization plans
differ by at most :data:`DUPLICATE_TOLERANCE` are one.

>>> from equilibria.routes.nash.every import all_equilibria
>>> answer = all_equilibria("random_normal:rows=3,cols=3,seed=0")
>>> len(answer.equilibria), answer.complete
(3, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...core.answer import EQUILIBRIUM_TOLERANCE, Answer
from ...models.best_response import Exploitability, certify
from ...models.normal_form import NormalFormGame
from ...models.sequence import SequenceForm
from ...models.strategy import realization_from_behavior, strategy_table
from ...models.wording import fixed, plural
from ...solvers.vertex_enumeration import maximal_nash_subsets

if TYPE_CHECKING:
    import pandas as pd

#: A strategy or sequence is in the support when its weight is above this.
SUPPORT_TOLERANCE = 1e-9

#: Two profiles whose realization plans differ by at most this everywhere are one.
DUPLICATE_TOLERANCE = 1e-6

#: Games with at most this many sequences in all have every listed profile printed.
PRINTED_SEQUENCES = 40


@dataclass(frozen=True)
class Equilibrium:
    """One listed profile: behaviour strategies on the answer's sequence form, their
    realization plans, the mixed strategies when the game is in normal form, its
    certificate, and, from vertex enumeration, its two vertices (row player's, column
    player's, numbered in the order their polytopes' searches found them)."""

    behaviors: list[np.ndarray]
    plans: list[np.ndarray]
    certificate: Exploitability
    mixed: list[np.ndarray] | None = None
    vertices: tuple[int, int] | None = None

    @property
    def payoffs(self) -> list[float]:
        """Each player's expected payoff."""
        return [float(v) for v in self.certificate.payoffs]

    @property
    def regrets(self) -> list[float]:
        """Each player's gain by an exact best response."""
        gaps = self.certificate.best_response_values - self.certificate.payoffs
        return [float(v) for v in np.maximum(gaps, 0.0)]

    @property
    def nash_conv(self) -> float:
        """The sum of the regrets."""
        return float(self.certificate.nash_conv)

    def supports(self) -> list[np.ndarray]:
        """Per player, what is played: the strategies with positive probability (normal
        form), else the sequences with positive realization weight (the empty one left out)."""
        if self.mixed is not None:
            return [np.flatnonzero(m > SUPPORT_TOLERANCE) for m in self.mixed]
        return [np.flatnonzero(plan[1:] > SUPPORT_TOLERANCE) + 1 for plan in self.plans]

    def support_sizes(self) -> list[int]:
        """How many strategies (or sequences) each player plays."""
        return [len(s) for s in self.supports()]


def certified_equilibrium(
    sf: SequenceForm,
    behaviors: list[np.ndarray],
    *,
    mixed: list[np.ndarray] | None = None,
    vertices: tuple[int, int] | None = None,
) -> Equilibrium:
    """The profile ``behaviors`` with its realization plans and its certificate by exact
    best responses."""
    plans = [realization_from_behavior(ps, b) for ps, b in zip(sf.players, behaviors, strict=True)]
    return Equilibrium(behaviors, plans, certify(sf, behaviors), mixed=mixed, vertices=vertices)


def mixed_strategies(
    normal: NormalFormGame | None, sf: SequenceForm, behaviors: list[np.ndarray]
) -> list[np.ndarray] | None:
    """Each player's mixed strategy when the game was given in normal form (its strategies
    are the actions at the player's one information set), else None."""
    if normal is None:
        return None
    mixed = []
    for p in range(sf.num_players):
        first = int(sf.players[p].infoset_first_sequence[0])
        mixed.append(np.asarray(behaviors[p][first : first + normal.num_strategies[p]], dtype=float).copy())
    return mixed


def is_listed(equilibrium: Equilibrium, listed: Sequence[Equilibrium]) -> bool:
    """True when a profile of ``listed`` has the same realization plans to
    :data:`DUPLICATE_TOLERANCE`."""
    return any(
        all(np.abs(a - b).max(initial=0.0) <= DUPLICATE_TOLERANCE for a, b in zip(equilibrium.plans, other.plans))
        for other in listed
    )


def _objective_key(objective: str) -> Any:
    """The sort key that lists the best equilibrium by ``objective`` first (None: the
    order found). The objectives are formulation 1's (:mod:`equilibria.formulations.mip_nash`)."""
    kind, _, who = objective.partition(":")
    keys = {
        "welfare": lambda e: -sum(e.payoffs),
        "maxmin": lambda e: -min(e.payoffs),
        "envy": lambda e: max(e.payoffs) - min(e.payoffs),
        "min-support": lambda e: sum(e.support_sizes()),
        "max-support": lambda e: -sum(e.support_sizes()),
    }
    if kind == "best":
        return lambda e: -e.payoffs[int(who) - 1]
    if kind == "worst":
        return lambda e: e.payoffs[int(who) - 1]
    return keys.get(objective)


def ordered(equilibria: list[Equilibrium], objective: str) -> list[Equilibrium]:
    """``equilibria`` best first by ``objective`` (stable: ties keep the order found)."""
    key = _objective_key(objective)
    return list(equilibria) if key is None else sorted(equilibria, key=key)


def profile_entries(sf: SequenceForm, behaviors: list[np.ndarray]) -> list[dict]:
    """Per player, per information set (numbered from 1 in the game's order, with its
    label) the action probabilities in the game's action order."""
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
                    "probabilities": [float(v) for v in behaviors[p][first : first + count]],
                }
            )
        out.append({"player": p + 1, "name": game.player_names[p], "infosets": infosets})
    return out


def profile_lines(
    sf: SequenceForm, behaviors: list[np.ndarray], normal: NormalFormGame | None, indent: str
) -> list[str]:
    """The profile as the ``nash`` command prints it: each player's mixed strategy (its
    strategies played) for a normal-form game, else each information set's action
    probabilities."""
    lines = []
    for entry in profile_entries(sf, behaviors):
        p = entry["player"] - 1
        if normal is not None:
            first = int(sf.players[p].infoset_first_sequence[0])
            weights = behaviors[p][first : first + normal.num_strategies[p]]
            parts = [f"{n} {w:.6f}" for n, w in zip(normal.strategy_names[p], weights) if w > SUPPORT_TOLERANCE]
            lines.append(f"{indent}player {p + 1} ({entry['name']}): " + ", ".join(parts))
            continue
        lines.append(f"{indent}player {p + 1} ({entry['name']})")
        for info in entry["infosets"]:
            line = ", ".join(f"{a} {w:.6f}" for a, w in zip(info["actions"], info["probabilities"]))
            lines.append(f"{indent}  {info['infoset']:>4}  {info['label']}: {line}")
    return lines


@dataclass(kw_only=True)
class NashEquilibria(Answer):
    """Every equilibrium a method lists (``nash --all``, ``--count K``), each certified.

    ``enumeration`` names the method (``vertices``, ``supports`` or ``lemke``) and
    ``reason`` why it was chosen; ``complete`` is True when the method's search ran to its
    end (every extreme equilibrium for ``vertices``, one equilibrium per support for
    ``supports``; ``lemke`` is never complete) and ``stopped`` says in words why the list
    ends. ``equilibria`` are ordered by ``objective`` (``any``: as found). ``nash_subsets``
    (vertex enumeration) lists, by position in ``equilibria``, the maximal Nash subsets of
    more than one extreme equilibrium: the row player's strategies among them mixed in any
    way against the column player's among them are all equilibria. ``behaviors`` and
    ``certificate`` are those of the listed profile with the largest NashConv.
    """

    equilibria: list[Equilibrium]
    enumeration: str
    reason: str
    complete: bool
    stopped: str
    objective: str = "any"
    count: int | None = None
    normal_form: NormalFormGame | None = None
    nash_subsets: list[list[int]] = field(default_factory=list)

    @classmethod
    def of(cls, equilibria: list[Equilibrium], sf: SequenceForm, **fields: Any) -> NashEquilibria:
        """The answer holding ``equilibria`` (at least one) on ``sf``, the others' fields as given."""
        worst = max(equilibria, key=lambda e: e.nash_conv)
        subsets = _nash_subsets(equilibria)
        return cls(
            route="nash",
            game_name=sf.game.title or "game",
            certificate=worst.certificate,
            certified_in="the game",
            sequence_form=sf,
            behaviors=worst.behaviors,
            zero_sum=False,
            equilibria=equilibria,
            nash_subsets=subsets,
            **fields,
        )

    def report_lines(self) -> list[str]:
        """The list as ``equilibria nash --all`` prints it: how it was found, one row per
        equilibrium (payoffs, support sizes, certificate), the profiles of a small game,
        the maximal Nash subsets, the status and the seconds."""
        lines = [f"game            {self.game_name}", f"enumeration     {self.enumeration}: {self.reason}"]
        lines.append(f"equilibria      {plural(len(self.equilibria), 'profile')} listed, {self.stopped}")
        lines += self._table_lines()
        sf = self.sequence_form
        assert sf is not None
        if sum(ps.num_sequences for ps in sf.players) <= PRINTED_SEQUENCES:
            for index, equilibrium in enumerate(self.equilibria, start=1):
                lines.append(f"profile {index}")
                lines += profile_lines(sf, equilibrium.behaviors, self.normal_form, "  ")
        else:
            lines.append("profiles        in --json and --strategy-out (one block of rows per equilibrium)")
        for subset in self.nash_subsets:
            named = ", ".join(str(i + 1) for i in subset)
            lines.append(
                f"convex set      equilibria {named}: any mixture of their row strategies against any "
                "mixture of their column strategies is an equilibrium"
            )
        by = f"{self.backend}" if self.backend else f"{self.enumeration}"
        lines.append(f"status          {self.status} ({by})")
        lines.extend(f"{'plan' if i == 0 else '':16}{reason}" for i, reason in enumerate(self.plan))
        lines.append(self.seconds_line())
        return lines

    def _table_lines(self) -> list[str]:
        """The table: index, each player's payoff, support sizes, NashConv."""
        players = len(self.equilibria[0].payoffs)
        header = ["#", *(f"payoff {p + 1}" for p in range(players)), "support", "NashConv"]
        rows = [
            [
                str(index),
                *(fixed(v, 9) for v in e.payoffs),
                "x".join(str(s) for s in e.support_sizes()),
                f"{e.nash_conv:.3e}",
            ]
            for index, e in enumerate(self.equilibria, start=1)
        ]
        widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
        return ["  " + "  ".join(text.rjust(w) for text, w in zip(r, widths)) for r in [header, *rows]]

    def table(self) -> pd.DataFrame:
        """One row per equilibrium: its number, each player's payoff, regret and support
        size, the NashConv, and for a normal-form game each strategy's probability
        (columns ``p1:NAME``); the table ``nash --all --csv`` writes."""
        import pandas as pd

        records = []
        for index, e in enumerate(self.equilibria, start=1):
            row: dict[str, Any] = {"equilibrium": index}
            sizes = e.support_sizes()
            for p, (payoff, regret) in enumerate(zip(e.payoffs, e.regrets)):
                row[f"payoff_{p + 1}"] = payoff
                row[f"regret_{p + 1}"] = regret
                row[f"support_{p + 1}"] = sizes[p]
            row["nash_conv"] = e.nash_conv
            if self.normal_form is not None and e.mixed is not None:
                for p, names in enumerate(self.normal_form.strategy_names):
                    row.update({f"p{p + 1}:{name}": float(w) for name, w in zip(names, e.mixed[p])})
            records.append(row)
        return pd.DataFrame.from_records(records)

    def strategy_table(self) -> pd.DataFrame:
        """Every listed profile's behaviour strategies, one block of rows per equilibrium
        (column ``equilibrium``, from 1) in :meth:`Answer.strategy_table`'s columns."""
        import pandas as pd

        sf = self.sequence_form
        assert sf is not None
        blocks = []
        for index, e in enumerate(self.equilibria, start=1):
            for p in range(sf.num_players):
                block = strategy_table(sf, p, e.behaviors[p], e.plans[p])
                block.insert(0, "equilibrium", index)
                blocks.append(block)
        return pd.concat(blocks, ignore_index=True)

    @property
    def payoffs(self) -> list[float] | None:
        """None: a list of profiles has no one payoff vector (each equilibrium's are its own)."""
        return None

    def details(self) -> dict:
        """How the list was made and each equilibrium (payoffs, regrets, NashConv, support
        sizes; the mixed strategies and supports of a normal-form game, else the profile),
        beside the fields every answer's JSON has (``nash_conv`` and ``exploitability``
        the largest of the list; ``strategies`` every listed profile's, by ``equilibrium``)."""
        return {
            "enumeration": self.enumeration,
            "reason": self.reason,
            "complete": self.complete,
            "stopped": self.stopped,
            "objective": self.objective,
            "count": self.count,
            "number": len(self.equilibria),
            "equilibria": [self._record(i, e) for i, e in enumerate(self.equilibria, start=1)],
            "nash_subsets": [[i + 1 for i in subset] for subset in self.nash_subsets],
        }

    def _record(self, index: int, e: Equilibrium) -> dict[str, Any]:
        sf = self.sequence_form
        assert sf is not None
        largest = float(np.abs(sf.terminal_payoffs).max(initial=0.0))
        record: dict[str, Any] = {
            "equilibrium": index,
            "payoffs": e.payoffs,
            "regrets": e.regrets,
            "nash_conv": e.nash_conv,
            "is_equilibrium": e.nash_conv <= EQUILIBRIUM_TOLERANCE * max(1.0, largest),
            "support_sizes": e.support_sizes(),
        }
        if e.mixed is not None and self.normal_form is not None:
            record["mixed"] = [[float(w) for w in m] for m in e.mixed]
            record["supports"] = [
                [self.normal_form.strategy_names[p][int(s)] for s in support] for p, support in enumerate(e.supports())
            ]
        else:
            record["profile"] = profile_entries(sf, e.behaviors)
        return record


def _nash_subsets(equilibria: list[Equilibrium]) -> list[list[int]]:
    """The maximal Nash subsets of more than one listed extreme equilibrium, as positions
    in ``equilibria`` (vertex enumeration only: the others have no vertices)."""
    pairs = [e.vertices for e in equilibria if e.vertices is not None]
    if len(pairs) < len(equilibria) or len(pairs) < 2:
        return []
    position = {pair: i for i, pair in enumerate(pairs)}
    subsets = []
    for rows, columns in maximal_nash_subsets(pairs):
        members = sorted(position[(x, y)] for x in rows for y in columns)
        if len(members) > 1:
            subsets.append(members)
    return sorted(subsets)


def all_equilibria(game: Any, **options: Any) -> NashEquilibria:
    """Every equilibrium of ``game`` (anything :func:`equilibria.solve` takes), as
    ``equilibria.solve(game, "nash", all=True, **options)``: ``count`` lists at most that
    many, ``enumeration`` picks the method (:mod:`equilibria.routes.nash.enumeration`),
    ``objective`` orders the list, ``time_limit`` bounds the run."""
    from ...core.skeleton import solve

    return cast(NashEquilibria, solve(game, "nash", **({"all": True} | options)))


__all__ = [
    "DUPLICATE_TOLERANCE",
    "SUPPORT_TOLERANCE",
    "Equilibrium",
    "NashEquilibria",
    "all_equilibria",
    "certified_equilibrium",
    "is_listed",
    "mixed_strategies",
    "ordered",
    "profile_entries",
    "profile_lines",
]
