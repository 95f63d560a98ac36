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

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .bayesian import BayesianGame, FiniteSignalGame, plans_from_thresholds
from .efg import ExtensiveGame, segment_ranges
from .errors import EquilibriaError, NoAnswerError
from .inputs import read_input_text
from .output import write_text
from .sequence import SequenceForm


class ModelError(EquilibriaError):
    """A parametric model is malformed or does not fit its game; the message says where."""


class ModelInfeasible(ModelError, NoAnswerError):
    """No equilibrium conforms to the parametric model (its threshold program is infeasible)."""


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

    @staticmethod
    def embedding(coarse: list, fine: list) -> tuple[int, ...] | None:
        """The positions in ``fine`` of ``coarse``'s regions when ``coarse`` is a unique
        subsequence of ``fine`` (Definition 13), else None."""
        if ParametricModel._embeddings(coarse, fine) != 1:
            return None
        c = [_canonical(x) for x in coarse]
        f = [_canonical(x) for x in fine]
        # the unique embedding: match each region at the first place that still leaves
        # room for the rest (with one embedding, the greedy match is it)
        out, j = [], 0
        for item in c:
            while f[j] != item:
                j += 1
            out.append(j)
            j += 1
        return tuple(out)

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
        listed = data.get("order", [])
        if not isinstance(listed, list):
            raise ModelError(f"{source}: 'order' must be a list such as [\"1.1 <= 2.1\"], not {listed!r:.40}")
        for item in listed:
            if not isinstance(item, str):
                raise ModelError(f"{source}: order entry {item!r:.40} should be text like '1.1 <= 2.1 <= 1.2'")
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
        text = read_input_text(path, "model file", ModelError)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ModelError(f"{path}: line {err.lineno}: {err.msg}") from None
        except (ValueError, RecursionError) as err:  # a 5,000-digit number, or nesting too deep
            raise ModelError(f"{path}: not a model: {' '.join(str(err).split())[:120]}") from None
        return cls.from_dict(data, source=str(path))


def _unique_supersequence(seqs: list[list[tuple]]) -> list[tuple] | None:
    """A shortest sequence that contains each of ``seqs`` as a unique subsequence and
    repeats no item twice in a row, or None when there is none.

    Breadth-first over states (how far the greedy match of each sequence has got, and the
    number of embeddings of each of its prefixes, capped at 2). Every step appends the next
    item of some sequence, so lengths are bounded by the sum of the lengths and the search
    is complete: an item that advances no sequence can be dropped without adding
    embeddings. A state in which a sequence's matched prefix already embeds twice is dead,
    because its unmatched rest must come later and extends both embeddings.
    """
    start = (tuple(0 for _ in seqs), tuple((1,) + (0,) * len(q) for q in seqs))
    parent: dict[tuple, tuple | None] = {start: None}
    level = [start]
    for _ in range(sum(len(q) for q in seqs)):
        nxt = []
        for state in level:
            pos, ways = state
            for item in dict.fromkeys(q[i] for q, i in zip(seqs, pos) if i < len(q)):
                new_pos, new_ways = [], []
                for q, i, w in zip(seqs, pos, ways):
                    w2 = list(w)
                    for k in range(len(q), 0, -1):
                        if q[k - 1] == item:
                            w2[k] = min(2, w2[k] + w2[k - 1])
                    i2 = i + 1 if i < len(q) and q[i] == item else i
                    if w2[i2] >= 2:
                        break
                    new_pos.append(i2)
                    new_ways.append(tuple(w2))
                else:
                    child = (tuple(new_pos), tuple(new_ways))
                    if child not in parent:
                        parent[child] = (state, item)
                        nxt.append(child)
                        if all(i == len(q) for q, i in zip(seqs, child[0])):
                            out = []
                            node: tuple | None = child
                            while parent[node] is not None:  # type: ignore[index]
                                node, it = parent[node]  # type: ignore[index, misc]
                                out.append(it)
                            return out[::-1]
        level = nxt
    return None


def common_us_refinement(models: list[ParametricModel]) -> ParametricModel:
    """The coarsest common US-refinement of ``models`` (Definitions 12 and 13 of Ganzfried
    and Sandholm 2010): per player, a shortest plan sequence in which every model's
    sequence is a unique subsequence. A model that is itself one of the shortest is
    returned as it is (with its order). ModelError names two models that conflict, and
    the player whose plans do, when there is none."""
    if not models:
        raise ModelError("a join needs at least one model")
    players = {m.num_players for m in models}
    if len(players) != 1:
        raise ModelError(
            "models for different numbers of players cannot be joined: "
            + ", ".join(f"'{m.name}' {m.num_players}" for m in models)
        )
    plans: dict[tuple, dict] = {}
    per_player = []
    for p in range(models[0].num_players):
        seqs = []
        for m in models:
            seqs.append([_canonical(r) for r in m.regions[p]])
            plans.update({_canonical(r): dict(r) for r in m.regions[p]})
        found = _unique_supersequence(seqs)
        if found is None:
            for a, b in itertools.combinations(range(len(models)), 2):
                if _unique_supersequence([seqs[a], seqs[b]]) is None:
                    raise ModelError(
                        f"models '{models[a].name}' and '{models[b].name}' have no common US-refinement: "
                        f"no sequence of player {p + 1}'s plans contains both models' region sequences "
                        "as unique subsequences (Definition 13); join them with others, or solve them "
                        "separately"
                    )
            raise ModelError(
                f"models {', '.join(repr(m.name) for m in models)} have no common US-refinement: no "
                f"sequence of player {p + 1}'s plans contains all their region sequences as unique "
                "subsequences (Definition 13), although every two of them have one"
            )
        per_player.append(found)
    for m in models:
        if all(len(m.regions[p]) == len(per_player[p]) for p in range(m.num_players)) and all(
            m.us_refines(o) for o in models
        ):
            return m
    return ParametricModel(
        "refinement",
        tuple([plans[item] for item in seq] for seq in per_player),
        game=models[0].game,
        description="common US-refinement of " + ", ".join(m.name for m in models),
    )


def project(
    game: BayesianGame,
    model: ParametricModel,
    thresholds: Sequence[Sequence[float]],
    target: FiniteSignalGame,
    edges: np.ndarray | None = None,
) -> list[np.ndarray]:
    """Threshold strategies as plan probabilities on the finite game ``target``.

    ``edges`` are the signal-space edges of ``target``'s signals (default: ``target``'s
    cell edges, or ``0..n`` for finite games). A signal whose interval a threshold cuts
    mixes the two plans in proportion to the overlap measured by the player's CDF
    (Ganzfried and Sandholm 2010, section 6.2); projecting G-infinity onto G_n uses edges ``i/n``.
    """
    plans = model.plan_indices(game)
    if edges is None:
        edges = target.cell_edges if target.cell_edges is not None else np.arange(target.sizes[0] + 1.0)
    out = []
    for p in range(game.num_players):
        F = game.signals[p]
        bounds = np.concatenate([[F.cdf[0]], F(np.asarray(thresholds[p], dtype=float)), [F.cdf[-1]]])
        out.append(plans_from_thresholds(F(edges), bounds, plans[p], target.num_plans[p]))
    return out


def fit_thresholds(
    game: BayesianGame,
    model: ParametricModel,
    finite: FiniteSignalGame,
    efg: ExtensiveGame,
    sf: SequenceForm,
    plans: Sequence[np.ndarray],
) -> dict[str, float]:
    """The thresholds of ``model`` that describe a profile of the finite game best.

    ``plans`` are realization plans of ``efg`` (``finite``'s extensive form, sequences of
    ``sf``). A threshold profile plays, at each signal, a mixture of consecutive regions'
    plans (the regions its interval overlaps); so per player the signals are walked from
    the lowest up, each taking a run of regions that starts where the last one ended, with
    weights fitted to the signal's realization plan (nonnegative least squares, weights
    summing to one; a region's plan realizes a sequence when it takes that action there).
    Each sequence's misfit counts with the probability that chance and the other players
    bring the player to its information set (:func:`counterfactual_reach`), so choices
    nobody reaches do not pull the fit. The runs minimising the total misfit are found by
    dynamic programming over (signal, region).

    Returns each threshold's position in signal units counted from the lowest signal's
    start (``0..J``): the integer part counts the signals wholly below the threshold, the
    rest is the fraction of the next signal below it.
    """
    from scipy.optimize import nnls

    from .strategy import counterfactual_reach

    region_plans = model.plan_indices(game)
    lift = finite.lift_map(efg)
    positions: dict[str, float] = {}
    for p in range(game.num_players):
        ps = sf.players[p]
        g = np.asarray(ps.infoset_global, dtype=np.int64)
        na = np.asarray(ps.infoset_num_actions, dtype=np.int64)
        seq_signal = np.repeat(lift.signal[g], na)
        seq_node = np.repeat(lift.node[g], na)
        seq_action = segment_ranges(np.zeros_like(na), na)
        seq_index = segment_ranges(np.asarray(ps.infoset_first_sequence, dtype=np.int64), na)
        acts = finite.tree.plan_actions(p)[np.asarray(region_plans[p])]  # (regions, nodes)
        reach = counterfactual_reach(sf, p, plans)
        scale = np.sqrt(np.repeat(reach / max(float(reach.max()), 1e-300), na)) + 1e-6
        takes = (acts[:, seq_node] == seq_action[None, :]).T * scale[:, None]  # (sequences, regions)
        target = np.asarray(plans[p], dtype=float)[seq_index] * scale
        regions, signals = len(region_plans[p]), finite.sizes[p]
        # fit[s][a, b]: misfit and weights of signal s playing regions a..b
        cost = np.full((signals, regions, regions), np.inf)
        fitted: dict[tuple[int, int, int], np.ndarray] = {}
        for s in range(signals):
            rows = seq_signal == s
            for a in range(regions):
                for b in range(a, regions):
                    weight = 1e3 * max(1.0, float(np.abs(takes[rows]).max(initial=0.0)))
                    lhs = np.vstack([takes[rows][:, a : b + 1], np.full((1, b - a + 1), weight)])
                    w, residual = nnls(lhs, np.concatenate([target[rows], [weight]]))
                    cost[s, a, b] = residual**2
                    fitted[s, a, b] = w / max(float(w.sum()), 1e-12)
        # best[s, b]: least misfit of signals 0..s with signal s ending in region b
        best = np.full((signals, regions), np.inf)
        came = np.zeros((signals, regions), dtype=np.int64)
        best[0] = cost[0, 0]
        for s in range(1, signals):
            total = best[s - 1][:, None] + cost[s]  # (a, b): previous signal ended in a
            came[s] = np.argmin(total, axis=0)
            best[s] = total[came[s], np.arange(regions)]
        b = int(np.argmin(best[-1]))
        runs = []
        for s in range(signals - 1, -1, -1):
            a = int(came[s, b]) if s > 0 else 0
            runs.append((s, a, b))
            b = a
        position = np.full(regions - 1, float(signals))  # thresholds above every run: at the top
        for s, a, b in runs:
            cumulative = np.cumsum(fitted[s, a, b])
            for r in range(a, b):
                position[r] = s + float(cumulative[r - a])
        for r in range(regions - 1):
            positions[f"{p + 1}.{r + 1}"] = float(position[r])
    return positions


__all__ = [
    "ModelError",
    "ModelInfeasible",
    "ParametricModel",
    "common_us_refinement",
    "fit_thresholds",
    "project",
]
