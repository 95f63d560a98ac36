"""Games with one private signal per player, followed by a public betting tree.

This is the setting of Ganzfried and Sandholm, "Computing equilibria by incorporating
qualitative models" (2010; continuous Bayesian games, section 4, and section 7.2 for
more than two players): each player receives a private signal, independently of the
others (or, for a finite deck, dealt without replacement), and the players then act in
a finite public betting tree. A terminal's payoff depends on the actions and on whose
signal wins the showdown ("lower wins" or "higher wins"; equal signals split). With more
than two players the showdown is among the players who have not folded: the best signal
takes the pot, equal best signals split it (:meth:`BettingTree.showdown_payoffs`).

The signal space is the interval ``[lo, hi]`` cut into *pieces* at breakpoints; both
players' CDFs are linear on every piece. A finite signal set ``1..n`` is the special case
where piece ``j`` is signal ``j`` (an interval of length 1 on which the CDF rises by the
probability of ``j``): a threshold inside that piece means "signal ``j`` mixes", which is
how the paper (section 6.2) reads mixed strategies off thresholds.

Strategies here are over *plans*: a plan of a player is one reduced pure strategy of the
betting tree (an action at every own decision node the plan reaches). A strategy of a
finite-signal game is an array ``(num_signals, num_plans)`` of plan probabilities.
:meth:`FiniteSignalGame.to_extensive` keys every information set by its signal and
betting node (:class:`SignalLiftMap`), which is how plan strategies and behaviour
strategies are converted and abstractions are lifted.

The betting trees of the named games are in :mod:`equilibria.instances.betting`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast, overload

import numpy as np
import numpy.typing as npt

from .betting import P1_WINS, P2_WINS, TIE, BettingTree
from .efg import CHANCE, TERMINAL, ExtensiveGame, segment_ranges
from .errors import GameError

if TYPE_CHECKING:
    from .sequence import SequenceForm


# ----------------------------------------------------------------------------- signals
@dataclass(frozen=True)
class SignalDistribution:
    """A signal distribution: a piecewise-linear CDF on an interval, or a finite pmf.

    ``breakpoints`` (ascending) and ``cdf`` (non-decreasing, from 0 to 1) define the CDF;
    finite distributions use breakpoints ``0..n`` with signal ``j`` on ``[j-1, j]``.
    """

    breakpoints: tuple[float, ...]
    cdf: tuple[float, ...]
    finite: bool = False
    names: tuple[str, ...] = ()

    def __post_init__(self):
        b = np.asarray(self.breakpoints, dtype=float)
        c = np.asarray(self.cdf, dtype=float)
        if b.shape != c.shape or b.shape[0] < 2:
            raise GameError("a signal CDF needs matching breakpoints and values (at least two)")
        if np.any(np.diff(b) <= 0):
            raise GameError(f"CDF breakpoints must increase strictly: {list(b)}")
        if np.any(np.diff(c) < -1e-12) or abs(c[0]) > 1e-9 or abs(c[-1] - 1) > 1e-9:
            raise GameError(f"CDF values must rise from 0 to 1: {list(c)}")

    @classmethod
    def uniform(cls, lo: float = 0.0, hi: float = 1.0) -> SignalDistribution:
        """Uniform on ``[lo, hi]``."""
        return cls((lo, hi), (0.0, 1.0))

    @classmethod
    def discrete(cls, pmf: npt.ArrayLike, names: Sequence[str] | None = None) -> SignalDistribution:
        """Finite signals ``1..n`` (weakest to strongest in the order given) with probabilities ``pmf``."""
        pmf = np.asarray(pmf, dtype=float)
        if np.any(pmf < 0) or abs(pmf.sum() - 1) > 1e-9:
            raise GameError(f"signal probabilities must be non-negative and sum to 1 (sum {pmf.sum()})")
        cdf = np.concatenate([[0.0], np.cumsum(pmf)])
        cdf[-1] = 1.0
        names = tuple(names) if names is not None else tuple(str(i + 1) for i in range(pmf.shape[0]))
        return cls(tuple(float(i) for i in range(pmf.shape[0] + 1)), tuple(cdf), True, names)

    @property
    def num_signals(self) -> int:
        """Number of finite signals (pieces of the CDF)."""
        return len(self.breakpoints) - 1

    @property
    def pmf(self) -> np.ndarray:
        """Probability of each piece (for finite distributions: of each signal)."""
        return np.diff(np.asarray(self.cdf))

    @overload
    def __call__(self, s: float) -> float: ...

    @overload
    def __call__(self, s: np.ndarray) -> np.ndarray: ...

    def __call__(self, s: float | np.ndarray) -> float | np.ndarray:
        """The CDF at ``s`` (vectorised)."""
        return np.interp(s, self.breakpoints, self.cdf)


def _check_joint(joint: npt.ArrayLike | None, players: int) -> np.ndarray:
    """``joint`` as a float array with one equal-length axis per player, non-negative and
    summing to one; GameError saying what is wrong otherwise."""
    table = np.asarray(joint, dtype=float)
    if table.ndim != players or len(set(table.shape)) != 1 or table.shape[0] < 2:
        raise GameError(
            f"a joint law of {players} players' signals needs {players} axes of one length "
            f"(at least 2), not shape {table.shape}"
        )
    if not np.all(np.isfinite(table)) or np.any(table < 0) or abs(table.sum() - 1.0) > 1e-9:
        raise GameError(f"a joint law needs finite non-negative probabilities summing to 1 (sum {table.sum():.12g})")
    return table


def _joint_of(deal: str, pmf: Sequence[np.ndarray], joint: np.ndarray | None) -> np.ndarray:
    """The joint table of a finite deal: the product of the marginals (independent), every
    tuple of distinct signals equally likely (without replacement), or ``joint``."""
    if deal == "joint":
        return cast(np.ndarray, joint)
    n = len(pmf)
    if deal == "independent":
        out = np.asarray(pmf[0], dtype=float)
        for f in pmf[1:]:
            out = np.multiply.outer(out, np.asarray(f, dtype=float))
        return out
    size = len(pmf[0])
    grid = np.indices((size,) * n).reshape(n, -1).T
    srt = np.sort(grid, axis=1)
    distinct = np.all(srt[:, 1:] != srt[:, :-1], axis=1)
    return (distinct / float(distinct.sum())).reshape((size,) * n)


def exploitability_summary(payoffs: npt.ArrayLike, best_response_values: npt.ArrayLike) -> dict:
    """Exploitability (OpenSpiel's convention: NashConv / players), NashConv, payoffs and
    best-response values, from each player's payoff and best-response value."""
    pay = np.asarray(payoffs, dtype=float)
    br = np.asarray(best_response_values, dtype=float)
    nash_conv = float((br - pay).sum())
    return {
        "exploitability": nash_conv / pay.shape[0],
        "nash_conv": nash_conv,
        "payoffs": pay,
        "best_response_values": br,
    }


# ----------------------------------------------------------------------------- games
@dataclass
class BayesianGame:
    """Two or more players, one private signal each, a public betting tree.

    ``signals`` has one distribution per player of ``tree``. ``winner`` is ``"higher"``
    or ``"lower"`` (whose signal wins a showdown). ``deal`` is ``"independent"``,
    ``"without_replacement"`` (finite signals only: the players are dealt distinct cards
    from one deck of equally likely cards, as in G_n) or ``"joint"`` (finite signals
    only: dependent signals with the joint law ``joint``, an array with one axis per
    player whose entry ``[s_1, ..., s_n]`` is the probability of that deal; ``signals``
    must be its marginals, see :meth:`from_joint`). Dealing from a deck with several
    cards of each rank (signal) is a joint law:
    :func:`equilibria.instances.bayesian_games.deck_joint`.
    """

    name: str
    tree: BettingTree
    signals: tuple[SignalDistribution, ...]  # one per player
    winner: str = "higher"
    deal: str = "independent"
    parameters: dict = field(default_factory=dict)
    joint: np.ndarray | None = None

    @classmethod
    def from_joint(
        cls,
        name: str,
        tree: BettingTree,
        joint: npt.ArrayLike,
        winner: str = "higher",
        names: Sequence[Sequence[str]] | None = None,
        parameters: dict | None = None,
    ) -> BayesianGame:
        """A game of dependent finite signals with joint law ``joint`` (one axis per
        player, entries summing to one); each player's signal distribution is its
        marginal."""
        table = _check_joint(joint, tree.num_players)
        n = table.ndim
        signals = tuple(
            SignalDistribution.discrete(
                table.sum(axis=tuple(o for o in range(n) if o != p)), None if names is None else names[p]
            )
            for p in range(n)
        )
        return cls(name, tree, signals, winner=winner, deal="joint", parameters=dict(parameters or {}), joint=table)

    def joint_table(self) -> np.ndarray:
        """The joint law of the finite signals, one axis per player, whatever the deal."""
        if not self.finite:
            raise GameError(f"'{self.name}' has continuous signals; a joint table is for finite signals")
        return _joint_of(self.deal, [s.pmf for s in self.signals], self.joint)

    def __post_init__(self):
        if self.winner not in ("higher", "lower"):
            raise GameError(f"winner must be 'higher' or 'lower', not '{self.winner}'")
        if self.deal not in ("independent", "without_replacement", "joint"):
            raise GameError(f"deal must be 'independent', 'without_replacement' or 'joint', not '{self.deal}'")
        if (self.joint is not None) != (self.deal == "joint"):
            raise GameError("a joint law of the signals goes with deal='joint' (and that deal needs one)")
        if len(self.signals) != self.tree.num_players:
            raise GameError(
                f"{len(self.signals)} signal distributions for a {self.tree.num_players}-player betting tree"
            )
        s1 = self.signals[0]
        if any(s.finite != s1.finite for s in self.signals):
            raise GameError("all players' signals must be finite, or all continuous")
        if s1.finite and any(s.num_signals != s1.num_signals for s in self.signals):
            raise GameError("finite signal sets must have the same size for all players")
        if self.deal == "without_replacement":
            if not s1.finite:
                raise GameError("dealing without replacement needs finite signals")
            n = s1.num_signals
            if not all(np.allclose(s.pmf, 1.0 / n) for s in self.signals):
                raise GameError("dealing without replacement needs equally likely signals")
            if n < max(2, len(self.signals)):
                raise GameError(f"dealing without replacement needs at least {max(2, len(self.signals))} signals")
        if self.deal == "joint":
            if not s1.finite:
                raise GameError("a joint law of the signals needs finite signals")
            self.joint = _check_joint(self.joint, len(self.signals))
            n = self.joint.ndim
            for p, s in enumerate(self.signals):
                marginal = self.joint.sum(axis=tuple(o for o in range(n) if o != p))
                if marginal.shape != s.pmf.shape or not np.allclose(marginal, s.pmf, atol=1e-9):
                    raise GameError(f"player {p + 1}'s signal distribution is not the marginal of the joint law")
        if not s1.finite:
            lo = {s.breakpoints[0] for s in self.signals}
            hi = {s.breakpoints[-1] for s in self.signals}
            if len(lo) != 1 or len(hi) != 1:
                raise GameError("all players' signals must live on the same interval")

    @property
    def num_players(self) -> int:
        """Number of players."""
        return len(self.signals)

    @property
    def finite(self) -> bool:
        """True for finite signal sets."""
        return self.signals[0].finite

    @property
    def breakpoints(self) -> np.ndarray:
        """Union of the CDFs' breakpoints: the pieces on which every CDF is linear."""
        out = np.asarray(self.signals[0].breakpoints, dtype=float)
        for s in self.signals[1:]:
            out = np.union1d(out, s.breakpoints)
        return out

    def finite_game(self) -> FiniteSignalGame:
        """The game itself as a :class:`FiniteSignalGame` (finite signals only)."""
        if not self.finite:
            raise GameError(f"'{self.name}' has continuous signals; use discretize(cells)")
        return FiniteSignalGame(
            self.tree,
            pmf=tuple(s.pmf for s in self.signals),
            winner=self.winner,
            deal=self.deal,
            names=tuple(s.names for s in self.signals),
            title=self.name,
            joint=self.joint,
        )

    def discretize(self, cells: int) -> FiniteSignalGame:
        """The continuous game on ``cells`` equal-width cells of the signal interval.

        Signals are independent; two signals in one cell tie (split the pot). The finite
        game's equilibria converge to the continuous game's as ``cells`` grows.
        """
        if self.finite:
            return self.finite_game()
        lo, hi = self.breakpoints[0], self.breakpoints[-1]
        edges = np.linspace(lo, hi, cells + 1)
        pmf = tuple(np.diff(s(edges)) for s in self.signals)
        return FiniteSignalGame(
            self.tree,
            pmf=pmf,
            winner=self.winner,
            deal="independent",
            names=None,
            title=f"{self.name} on {cells} cells",
            cell_edges=edges,
        )


class FiniteSignalGame:
    """A finite-signal game: per player a signal set, a joint deal, the betting tree.

    With two players the joint law of the signals and the showdown is held as three
    mass matrices ``(n1, n2)``: probability of the deal and player 1 winning, tying,
    losing. Ordered games (a winner by signal order) keep them implicit and use
    cumulative sums, so strategy evaluation costs O(n x plans^2); abstractions hold them
    densely. With more players the game is ordered (``pmf`` given) and the deals are
    enumerated (:meth:`deals`); the showdown follows from the signals and the pot.
    Ordered games deal ``"independent"``, ``"without_replacement"`` or ``"joint"`` (the
    joint law ``joint``, one axis per player, as in :class:`BayesianGame`).
    """

    def __init__(
        self,
        tree: BettingTree,
        *,
        pmf: Sequence[npt.ArrayLike] | None = None,
        winner: str = "higher",
        deal: str = "independent",
        masses: Sequence[npt.ArrayLike] | None = None,
        names: Sequence[Sequence[str]] | None = None,
        title: str = "",
        cell_edges: np.ndarray | None = None,
        joint: npt.ArrayLike | None = None,
    ):
        if CHANCE in tree.player:
            raise GameError(
                "a signal game's betting tree deals no cards (each player's signal is dealt once, before it)"
            )
        self.tree = tree
        self.title = title
        self.cell_edges = cell_edges
        self.num_players = tree.num_players
        if masses is not None and self.num_players != 2:
            raise GameError("showdown mass matrices describe two-player games; give pmf for more players")
        if masses is not None:
            self.masses = tuple(np.asarray(m, dtype=float) for m in masses)
            self.ordered = False
            self.sizes = self.masses[0].shape
        else:
            # without masses the game is ordered and pmf is given
            self.pmf = tuple(np.asarray(f, dtype=float) for f in cast(Sequence[npt.ArrayLike], pmf))
            self.winner = winner
            self.deal = deal
            self.ordered = True
            if len(self.pmf) != self.num_players:
                raise GameError(f"{len(self.pmf)} signal distributions for a {self.num_players}-player betting tree")
            self.sizes = tuple(f.shape[0] for f in self.pmf)
            if (joint is not None) != (deal == "joint"):
                raise GameError("a joint law of the signals goes with deal='joint' (and that deal needs one)")
            self.joint = None if joint is None else _check_joint(joint, self.num_players)
        if names is None:
            names = tuple(tuple(str(i + 1) for i in range(n)) for n in self.sizes)
        self.names = tuple(tuple(n) for n in names)

    @property
    def num_plans(self) -> tuple[int, ...]:
        """Number of reduced pure plans per player."""
        return tuple(len(p) for p in self.tree.plans)

    def deals(self) -> tuple[np.ndarray, np.ndarray]:
        """The deals of positive probability: an int array (deals, players) of signal
        indices, in lexicographic order (player 1's signal slowest), and their
        probabilities. Independent signals multiply their probabilities; without
        replacement every tuple of distinct signals is equally likely."""
        if self.num_players == 2:
            win, tie, lose = self.dense_masses()
            joint = win + tie + lose
            d1, d2 = np.nonzero(joint > 0)
            return np.stack([d1, d2], axis=1), joint[d1, d2]
        grid = np.indices(self.sizes).reshape(self.num_players, -1).T
        if self.deal == "joint":
            prob = cast(np.ndarray, self.joint).reshape(-1)
        elif self.deal == "independent":
            prob = np.prod([self.pmf[p][grid[:, p]] for p in range(self.num_players)], axis=0)
        else:
            srt = np.sort(grid, axis=1)
            distinct = np.all(srt[:, 1:] != srt[:, :-1], axis=1)
            prob = distinct / float(distinct.sum())
        keep = prob > 0
        return grid[keep], prob[keep]

    def signal_strength(self, signals: np.ndarray) -> np.ndarray:
        """Showdown strength of signal indices (larger wins): the index when the higher
        signal wins, minus the index when the lower does."""
        s = np.asarray(signals, dtype=float)
        return s if self.winner == "higher" else -s

    def _two_players(self, what: str) -> None:
        if self.num_players != 2:
            raise GameError(f"{what} is defined for two players; this game has {self.num_players}")

    def dense_masses(self) -> tuple[np.ndarray, ...]:
        """(win, tie, lose) probability matrices ``(n1, n2)`` from player 1's point of view."""
        self._two_players("the (win, tie, lose) mass matrix")
        if not self.ordered:
            return self.masses
        n1, n2 = self.sizes
        if self.deal == "joint":
            joint = cast(np.ndarray, self.joint)
        elif self.deal == "independent":
            joint = np.outer(self.pmf[0], self.pmf[1])
        else:
            joint = np.full((n1, n2), 1.0 / (n1 * (n2 - 1)))
            np.fill_diagonal(joint, 0.0)
        i = np.arange(n1)[:, None]
        j = np.arange(n2)[None, :]
        higher = i > j if self.winner == "higher" else i < j
        lower = i < j if self.winner == "higher" else i > j
        return joint * higher, joint * (i == j), joint * lower

    def opponent_masses(self, p: int, sigma_opp: np.ndarray) -> np.ndarray:
        """Array (own signals, 3 outcomes, opponent plans): the probability of holding each
        own signal while the opponent plays each plan and the showdown has each outcome."""
        self._two_players("the opponent's mass")
        sigma_opp = np.asarray(sigma_opp, dtype=float)
        n_own = self.sizes[p]
        out = np.zeros((n_own, 3, sigma_opp.shape[1]))
        if not self.ordered or self.deal == "joint":
            win, tie, lose = self.dense_masses()
            for o, m in zip((P1_WINS, TIE, P2_WINS), (win, tie, lose)):
                out[:, o, :] = (m if p == 0 else m.T) @ sigma_opp
            return out
        own_pmf = self.pmf[p]
        opp_pmf = self.pmf[1 - p]
        if self.deal == "independent":
            weighted = opp_pmf[:, None] * sigma_opp
            below = np.cumsum(weighted, axis=0) - weighted  # opponent signals strictly lower
            total = weighted.sum(axis=0)
            at = weighted
            above = total[None, :] - below - at
            below, at, above = (own_pmf[:, None] * m for m in (below, at, above))
        else:  # distinct cards, each pair equally likely
            n = n_own
            scale = 1.0 / (n * (n - 1))
            below = (np.cumsum(sigma_opp, axis=0) - sigma_opp) * scale
            above = (sigma_opp.sum(axis=0)[None, :] - below / scale - sigma_opp) * scale
            at = np.zeros_like(below)
        opp_lower = P1_WINS if (self.winner == "higher") == (p == 0) else P2_WINS
        opp_higher = P2_WINS if opp_lower == P1_WINS else P1_WINS
        out[:, opp_lower, :] = below
        out[:, TIE, :] = at
        out[:, opp_higher, :] = above
        return out

    def plan_values(self, p: int, sigma_opp: np.ndarray) -> np.ndarray:
        """Array (own signals, own plans): player ``p``'s expected payoff (joint, not
        conditional) of each plan at each signal against the opponent's strategy."""
        m = self.opponent_masses(p, sigma_opp)
        pay = self.tree.plan_payoff[..., p]  # (plans1, plans2, 3)
        if p == 0:
            return np.einsum("sok,qko->sq", m, pay)
        return np.einsum("sok,kqo->sq", m, pay)

    def profile_plan_values(self, p: int, sigmas: Sequence[np.ndarray]) -> np.ndarray:
        """Array (own signals, own plans): player ``p``'s expected payoff (joint, not
        conditional) of each plan at each signal against the others' strategies in the
        profile ``sigmas`` (``sigmas[p]`` is ignored); any number of players.

        Two players: :meth:`plan_values`. More: a sum over the deals of the payoff tensor
        over plan profiles contracted with the others' plan probabilities, so the work is
        deals x (product of the players' plan counts)."""
        if self.num_players == 2:
            return self.plan_values(p, sigmas[1 - p])
        tree = self.tree
        deal, prob = self.deals()
        leaf_of = np.full(tree.num_nodes, -1, dtype=np.int64)
        leaf_of[tree.terminals] = np.arange(len(tree.terminals))
        leaf = leaf_of[tree.plan_terminals]  # (plans_1, ..., plans_n)
        pay = tree.showdown_payoffs(self.signal_strength(deal))[:, :, p]  # (deals, terminals)
        sig = [np.asarray(x, dtype=float) for x in sigmas]
        out = np.zeros((self.sizes[p], len(tree.plans[p])))
        for d in range(deal.shape[0]):
            u = pay[d][leaf]
            for q in range(self.num_players - 1, -1, -1):
                if q != p:
                    u = np.tensordot(u, sig[q][deal[d, q]], axes=([q], [0]))
            out[deal[d, p]] += prob[d] * u
        return out

    def payoffs(self, sigmas: Sequence[np.ndarray]) -> np.ndarray:
        """Every player's expected payoff of a profile of plan strategies."""
        return np.array(
            [float(np.sum(self.profile_plan_values(p, sigmas) * sigmas[p])) for p in range(self.num_players)]
        )

    def best_response_values(self, sigmas: Sequence[np.ndarray]) -> np.ndarray:
        """Each player's best-response value against the others' strategies (exact: a best
        response picks, at every own signal, the plan of highest value)."""
        return np.array([float(self.profile_plan_values(p, sigmas).max(axis=1).sum()) for p in range(self.num_players)])

    def exploitability(self, sigmas: Sequence[np.ndarray]) -> dict:
        """Exploitability (OpenSpiel's convention: NashConv / players), NashConv, payoffs
        and best-response values of a profile of plan strategies."""
        return exploitability_summary(self.payoffs(sigmas), self.best_response_values(sigmas))

    # ------------------------------------------------------------------ extensive form
    def to_extensive(self) -> ExtensiveGame:
        """The equivalent extensive-form game: one chance node deals every player's signal
        (one outcome per deal of :meth:`deals`), then the betting tree.

        Information sets are a player's own signal and betting node, labelled
        ``"signal:history"`` for reading (history of actions joined by ``-``; the root is
        ``"signal:"``) and keyed by integers: the game's ``infoset_key`` encodes (own
        signal, betting node, player) as ``(signal * nodes + node) * players + player``,
        which :meth:`lift_map` decodes. Expected payoffs replace the showdown lottery where
        an abstraction made it random. Returns the validated game.
        """
        n = self.num_players
        deal, prob = self.deals()
        deals = deal.shape[0]
        tree = self.tree
        m = tree.num_nodes
        tparent = np.array(tree.parent)
        tplayer = np.array(tree.player)
        child_index = np.zeros(m, dtype=np.int64)
        for v in range(m):
            for a, k in enumerate(tree.children[v]):
                child_index[k] = a
        # node 0: chance; deal d's copy of betting node v is 1 + d*m + v
        node_deal = np.repeat(np.arange(deals), m)
        node_tpl = np.tile(np.arange(m), deals)
        parent = np.where(tparent[node_tpl] < 0, 0, 1 + node_deal * m + np.maximum(tparent[node_tpl], 0))
        parent = np.concatenate([[-1], parent])
        action = np.concatenate([[-1], np.where(node_tpl == 0, node_deal, child_index[node_tpl])])
        is_leaf = np.array([not tree.children[v] for v in range(m)])
        kind = np.where(is_leaf, TERMINAL, tplayer)
        player = np.concatenate([[CHANCE], kind[node_tpl]])
        chance_prob = np.ones(1 + deals * m)
        chance_prob[1 + np.arange(deals) * m] = prob
        # information sets: (player, own signal, betting node)
        dec_nodes = [v for v in range(m) if not is_leaf[v]]
        local = {v: i for i, v in enumerate(dec_nodes)}
        infoset = np.full(1 + deals * m, -1, dtype=np.int64)
        base = np.concatenate([[0], np.cumsum(np.asarray(self.sizes, dtype=np.int64) * len(dec_nodes))])
        labels, num_actions, iplayer = [], [], []
        alabels: list[str] = []
        for p, size in enumerate(self.sizes):
            for s in range(size):
                for v in dec_nodes:
                    labels.append(f"{self.names[p][s]}:{tree.history[v]}")
                    num_actions.append(len(tree.children[v]))
                    iplayer.append(p if tplayer[v] == p else -1)
                    alabels.extend(tree.label[k] for k in tree.children[v])
        # keep only information sets of the node's own player (others are never used)
        dec = ~is_leaf[node_tpl]
        pl = np.clip(tplayer[node_tpl], 0, None)
        own = deal[node_deal, pl]
        loc = np.array([local.get(v, 0) for v in range(m)])[node_tpl]
        key = base[pl] + own * len(dec_nodes) + loc
        infoset[1:][dec] = key[dec]
        used = np.unique(infoset[infoset >= 0])
        remap = np.full(len(labels), -1, dtype=np.int64)
        remap[used] = np.arange(used.shape[0])
        infoset = np.where(infoset >= 0, remap[np.maximum(infoset, 0)], -1)
        # integer key of each kept information set: (own signal * nodes + node) * players + player
        owner = (np.searchsorted(base, used, side="right") - 1).astype(np.int64)
        rest = used - base[owner]
        node_of = np.asarray(dec_nodes, dtype=np.int64)[rest % len(dec_nodes)]
        infoset_key = ((rest // len(dec_nodes)) * m + node_of) * n + owner
        starts = np.concatenate([[0], np.cumsum(num_actions)])
        kept_actions = [alabels[starts[k] : starts[k + 1]] for k in used]
        # payoffs: expected over the showdown lottery of each deal
        pay = np.zeros((1 + deals * m, n))
        leaves = np.flatnonzero(is_leaf)
        if n == 2:
            win, tie, lose = self.dense_masses()
            d1, d2 = deal[:, 0], deal[:, 1]
            tp = tree.payoff  # (m, 3, 2)
            w = np.stack([win[d1, d2], tie[d1, d2], lose[d1, d2]], axis=1) / prob[:, None]  # (deals, 3)
            for leaf in leaves:
                rows = 1 + np.arange(deals) * m + leaf
                pay[rows] = w @ tp[leaf]
        else:
            rows = 1 + np.arange(deals)[:, None] * m + np.asarray(tree.terminals)[None, :]
            pay[rows] = tree.showdown_payoffs(self.signal_strength(deal))
        chance_labels = np.full(1 + deals * m, "", dtype=object)
        chance_labels[1 + np.arange(deals) * m] = [
            ",".join(self.names[p][s] for p, s in enumerate(row)) for row in deal.tolist()
        ]
        return ExtensiveGame.from_arrays(
            parent=parent,
            player=player,
            infoset=infoset,
            action=action,
            chance_prob=chance_prob,
            payoffs=pay,
            infoset_player=np.array(iplayer)[used].astype(np.int32),
            infoset_num_actions=np.array(num_actions)[used].astype(np.int32),
            infoset_labels=np.array(labels, dtype=str)[used],
            action_labels=np.array([a for acts in kept_actions for a in acts], dtype=str),
            chance_labels=chance_labels.astype(str),
            infoset_key=infoset_key,
            player_names=tuple(f"Player {p + 1}" for p in range(n)),
            title=self.title,
        )

    def lift_map(self, game: ExtensiveGame) -> SignalLiftMap:
        """The integer map of ``game`` (this game's :meth:`to_extensive`): per information
        set its player, own signal and betting node. GameError when ``game`` is not such a
        game (no keys, or keys that name no signal and decision of this game)."""
        if game.infoset_key is None:
            raise GameError(f"'{game.title}' carries no information-set keys; use the signal game's to_extensive()")
        key = game.infoset_key
        m = self.tree.num_nodes
        player, rest = key % self.num_players, key // self.num_players
        node, signal = rest % m, rest // m
        tree_player = self.tree.kind[node]
        ok = (signal < np.asarray(self.sizes)[player]) & (tree_player == player)
        ok &= game.infoset_player == player
        ok &= self.tree.num_actions[node] == game.infoset_num_actions
        if not np.all(ok):
            bad = int(np.flatnonzero(~ok)[0])
            raise GameError(f"{game.infoset_label(bad)} is no (signal, betting node) of '{self.title}'")
        return SignalLiftMap(player, signal, node)

    def behavior_from_plans(
        self, sigmas: Sequence[np.ndarray], game: ExtensiveGame, sf: SequenceForm
    ) -> list[np.ndarray]:
        """Behaviour strategies of ``game`` (this game's :meth:`to_extensive`) from plan
        strategies: at each own node, the plans reaching it vote with their probability.
        Returns per player an array over ``sf``'s sequences (uniform where no plan reaches)."""
        from .strategy import behavior_from_realization

        lift = self.lift_map(game)
        behaviors = []
        for p in range(self.num_players):
            ps = sf.players[p]
            g = np.asarray(ps.infoset_global, dtype=np.int64)
            signal, node = lift.signal[g], lift.node[g]
            plan_act = self.tree.plan_actions(p)  # (plans, nodes)
            sigma = np.asarray(sigmas[p], dtype=float)
            r = np.zeros(ps.num_sequences)
            r[0] = 1.0
            # a sequence's realization is the mass of the plans taking its action there
            for v in np.unique(node):
                at = np.flatnonzero(node == v)
                for a in range(int(self.tree.num_actions[v])):
                    r[ps.infoset_first_sequence[at] + a] = sigma[signal[at]] @ (plan_act[:, v] == a)
            behaviors.append(behavior_from_realization(ps, r))
        return behaviors


@dataclass(frozen=True)
class SignalLiftMap:
    """Per information set of a signal game's extensive form (aligned with its global
    information-set index): the acting player, the player's own signal (index into the
    game's signals) and the betting-tree node."""

    player: np.ndarray
    signal: np.ndarray
    node: np.ndarray


def plans_from_behavior(
    game: FiniteSignalGame, efg: ExtensiveGame, sf: SequenceForm, behaviors: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Plan strategies (signals, plans) of behaviour strategies of ``efg`` (the game's
    :meth:`FiniteSignalGame.to_extensive`): a plan's probability is the product of its
    actions' probabilities (Kuhn's theorem). Signals never dealt get uniform behaviour.
    Returns one array (signals, plans) per player."""
    tree = game.tree
    lift = game.lift_map(efg)
    m, width = tree.num_nodes, int(tree.num_actions.max())
    out = []
    for p in range(game.num_players):
        ps = sf.players[p]
        # prob[s, v, a]: probability of action a at node v with signal s; the extra last
        # column is 1 and stands for "the plan takes no action here"
        prob = np.ones((game.sizes[p], m, width + 1))
        for v in tree.decision_nodes(p):
            nv = int(tree.num_actions[v])
            prob[:, v, :nv] = 1.0 / nv
        g = np.asarray(ps.infoset_global, dtype=np.int64)
        na = np.asarray(ps.infoset_num_actions, dtype=np.int64)
        rows = np.repeat(np.arange(g.shape[0]), na)
        action = segment_ranges(np.zeros_like(na), na)
        prob[lift.signal[g][rows], lift.node[g][rows], action] = np.asarray(behaviors[p])[
            segment_ranges(ps.infoset_first_sequence, na)
        ]
        plan_act = tree.plan_actions(p)
        pick = np.where(plan_act < 0, width, plan_act)  # (plans, nodes)
        out.append(prob[:, np.arange(m)[None, :], pick].prod(axis=2))
    return out


def plans_from_thresholds(
    edges_cdf: np.ndarray, region_bounds: np.ndarray, region_plans: Sequence[int], num_plans: int
) -> np.ndarray:
    """Mixed plans per signal from thresholds by interval overlap (Ganzfried and Sandholm
    2010, section 6.2).

    ``edges_cdf`` are the CDF values at the signal cells' edges (length cells + 1),
    ``region_bounds`` the CDF values at the region boundaries (0, thresholds..., 1),
    ``region_plans`` the plan of each region. Returns (cells, num_plans).
    """
    lo, hi = edges_cdf[:-1, None], edges_cdf[1:, None]
    a, b = region_bounds[None, :-1], region_bounds[None, 1:]
    overlap = np.clip(np.minimum(hi, b) - np.maximum(lo, a), 0.0, None)  # (cells, regions)
    width = (hi - lo)[:, 0]
    out = np.zeros((edges_cdf.shape[0] - 1, num_plans))
    for r, q in enumerate(region_plans):
        out[:, q] += overlap[:, r]
    zero = width <= 0
    out[~zero] /= width[~zero, None]
    if np.any(zero):
        # a signal of probability zero plays the region its position falls in
        mid = edges_cdf[:-1][zero]
        r = np.clip(np.searchsorted(region_bounds, mid, side="right") - 1, 0, len(region_plans) - 1)
        out[np.flatnonzero(zero), np.asarray(region_plans)[r]] = 1.0
    return out


__all__ = [
    "SignalDistribution",
    "exploitability_summary",
    "BayesianGame",
    "FiniteSignalGame",
    "SignalLiftMap",
    "plans_from_thresholds",
    "plans_from_behavior",
]
