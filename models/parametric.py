"""Parametric (qualitative) models of an equilibrium: Definition 11 of Ganzfried and
Sandholm, "Computing equilibria by incorporating qualitative models" (2010).

A model says, per player, which plan is played in each region of the signal space, from
the lowest signals up (``Q_i``; the number of regions is ``T_i``), and how the thresholds
between regions are ordered across players (the partial order). Threshold ``"p.j"`` is
player ``p``'s boundary between regions ``j`` and ``j + 1`` (players and regions counted
from 1). At a boundary the lower region's plan is taken.

JSON form (plans name the action at every betting node the plan reaches)::

    {"name": "standard", "game": "kuhn_continuous",
     "players": [
        {"regions": [{"": "bet"}, {"": "check", "check-bet": "fold"}, ...]},
        {"regions": [{"check": "bet", "bet": "fold"}, ...]}],
     "order": ["2.1 <= 1.1 <= 2.2", "1.2 <= 2.3"]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .bayesian import BayesianGame
from .errors import EquilibriaError
from .output import write_text


class ModelError(EquilibriaError):
    """A parametric model is malformed or does not fit its game; the message says where."""


def _canonical(plan: dict) -> tuple:
    return tuple(sorted((str(k), str(v)) for k, v in plan.items()))


@dataclass
class ParametricModel:
    """Regions and plans per player plus the order of thresholds (Definition 11), for two
    or more players: ``regions[p]`` lists player ``p``'s plans from the lowest signals up,
    and ``order`` relates thresholds of any players (``"3.1" <= "1.2"``)."""

    name: str
    regions: tuple[list[dict], ...]
    order: list[tuple[str, str]] = field(default_factory=list)
    game: str = ""
    description: str = ""

    def __post_init__(self):
        if len(self.regions) < 2:
            raise ModelError(f"model '{self.name}': give regions for two or more players")
        for p, regs in enumerate(self.regions):
            if not regs:
                raise ModelError(f"model '{self.name}': player {p + 1} has no regions")
            for j in range(1, len(regs)):
                if _canonical(regs[j]) == _canonical(regs[j - 1]):
                    raise ModelError(
                        f"model '{self.name}': player {p + 1}'s regions {j} and {j + 1} play the "
                        "same plan; merge them (a threshold must separate different plans)"
                    )
        names = set(self.threshold_names)
        for a, b in self.order:
            for t in (a, b):
                if t not in names:
                    raise ModelError(
                        f"model '{self.name}': order mentions threshold '{t}'; thresholds are "
                        f"{', '.join(self.threshold_names) or '(none)'}"
                    )

    # ------------------------------------------------------------------ structure
    @property
    def T(self) -> tuple[int, ...]:
        """Number of regions per player."""
        return tuple(len(r) for r in self.regions)

    @property
    def num_players(self) -> int:
        """Number of players the model describes."""
        return len(self.regions)

    @property
    def Q(self) -> tuple[list[dict], ...]:
        """Plan per region per player, lowest signals first."""
        return self.regions

    @property
    def threshold_names(self) -> list[str]:
        """``"p.j"`` for every threshold, player 1's first."""
        return [f"{p + 1}.{j}" for p in range(self.num_players) for j in range(1, len(self.regions[p]))]

    def threshold_owner(self, name: str) -> tuple[int, int]:
        """(player, index from 1) of threshold ``name``."""
        p, j = name.split(".")
        return int(p) - 1, int(j)

    def order_closure(self) -> dict[tuple[str, str], bool]:
        """``closure[a, b]`` is True when ``a <= b`` follows from the order and the
        players' own region sequences."""
        names = self.threshold_names
        idx = {t: i for i, t in enumerate(names)}
        n = len(names)
        le = np.eye(n, dtype=bool)
        for p in range(self.num_players):
            for j in range(1, len(self.regions[p]) - 1):
                le[idx[f"{p + 1}.{j}"], idx[f"{p + 1}.{j + 1}"]] = True
        for a, b in self.order:
            le[idx[a], idx[b]] = True
        for k in range(n):
            le |= le[:, [k]] & le[[k], :]
        return {(a, b): bool(le[idx[a], idx[b]]) for a in names for b in names}

    # ------------------------------------------------------------------ refinement
    @staticmethod
    def _embeddings(coarse: list, fine: list) -> int:
        """Number of ways ``coarse`` is a (not necessarily contiguous) subsequence of ``fine``."""
        c = [_canonical(x) for x in coarse]
        f = [_canonical(x) for x in fine]
        ways = [1] + [0] * len(c)
        for item in f:
            for i in range(len(c), 0, -1):
                if c[i - 1] == item:
                    ways[i] += ways[i - 1]
        return ways[len(c)]

    def refines(self, other: ParametricModel) -> bool:
        """Definition 12: every player's plan sequence of ``other`` is a subsequence of ours."""
        return other.num_players == self.num_players and all(
            self._embeddings(other.regions[p], self.regions[p]) >= 1 for p in range(self.num_players)
        )

    def us_refines(self, other: ParametricModel) -> bool:
        """Definition 13: each of ``other``'s plan sequences is a *unique* subsequence of ours."""
        return other.num_players == self.num_players and all(
            self._embeddings(other.regions[p], self.regions[p]) == 1 for p in range(self.num_players)
        )

    # ------------------------------------------------------------------ binding
    def plan_indices(self, game: BayesianGame) -> tuple[list[int], ...]:
        """The region plans as indices into ``game.tree.plans``; ModelError if one is not a plan."""
        players = getattr(game, "num_players", 2)
        if players != self.num_players:
            raise ModelError(f"model '{self.name}' describes {self.num_players} players; '{game.name}' has {players}")
        out = []
        for p in range(self.num_players):
            idx = []
            for j, spec in enumerate(self.regions[p]):
                try:
                    idx.append(game.tree.plan_index(p, spec))
                except EquilibriaError as err:
                    raise ModelError(f"model '{self.name}', player {p + 1}, region {j + 1}: {err}") from None
            out.append(idx)
        return tuple(out)

    def region_text(self, game: BayesianGame, p: int) -> list[str]:
        """The regions of player ``p`` in words."""
        return [game.tree.plan_text(p, q) for q in self.plan_indices(game)[p]]

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """The readable JSON form (see the module docstring)."""
        return {
            "name": self.name,
            "game": self.game,
            "description": self.description,
            "players": [{"regions": [dict(r) for r in regs]} for regs in self.regions],
            "order": [f"{a} <= {b}" for a, b in self.order],
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2)
        if path is not None:
            write_text(path, text + "\n")
        return text

    @classmethod
    def from_dict(cls, data: dict, source: str = "model") -> ParametricModel:
        """Read the JSON form; ModelError names what is missing or malformed."""
        if not isinstance(data, dict) or "players" not in data:
            raise ModelError(f"{source}: expected an object with 'players' (and 'order', 'name')")
        players = data["players"]
        if not isinstance(players, list) or len(players) < 2:
            raise ModelError(f"{source}: 'players' must list two or more players")
        regions = []
        for p, entry in enumerate(players):
            regs = entry.get("regions") if isinstance(entry, dict) else None
            if not isinstance(regs, list) or not all(isinstance(r, dict) for r in regs):
                raise ModelError(f"{source}: player {p + 1} needs 'regions', a list of {{history: action}} objects")
            regions.append([{str(k): str(v) for k, v in r.items()} for r in regs])
        order: list[tuple[str, str]] = []
        for item in data.get("order", []):
            parts = [s.strip() for s in str(item).split("<=")]
            if len(parts) < 2 or not all(parts):
                raise ModelError(f"{source}: order entry '{item}' should read like '1.1 <= 2.1 <= 1.2'")
            order.extend(zip(parts[:-1], parts[1:]))
        return cls(
            name=str(data.get("name", source)),
            regions=tuple(regions),
            order=order,
            game=str(data.get("game", "")),
            description=str(data.get("description", "")),
        )

    @classmethod
    def from_json(cls, path: str | Path) -> ParametricModel:
        """Read a model file."""
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise ModelError(f"no such model file: {path}") from None
        except json.JSONDecodeError as err:
            raise ModelError(f"{path}: line {err.lineno}: {err.msg}") from None
        return cls.from_dict(data, source=str(path))


__all__ = ["ModelError", "ParametricModel"]
