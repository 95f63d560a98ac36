"""The public betting tree shared by every deal of a poker-like game (two or more players).

One type, :class:`BettingTree`, serves three users: the limit-poker generators of
:mod:`equilibria.instances.poker` (which expand the tree over every deal of the cards),
games with ordered signals (:mod:`equilibria.models.ordered`, whose abstract sequence form
is built from the tree and the signal classes) and games with one private signal each
(:mod:`equilibria.models.bayesian`, whose strategies are reduced plans of the tree).

The tree is a template, not a game tree: it has at most a few thousand nodes (1,199 for
Rhode Island hold'em), so it is built in Python (lists, one entry per node) and read through numpy arrays derived once.
A node is

* a **decision** of a player (0 to ``num_players - 1``), one child per action;
* a **deal** (``CHANCE``): one child; it fills card slot ``deal_slot`` (slots 0 and 1 are
  the players' private cards, later slots public cards; a public deal starts a new
  betting round);
* a **terminal**: chips each player has put in and who folded. With two players a
  terminal also holds the payoff under each showdown outcome (player 1's signal wins,
  tie, player 2's wins); with more, payoffs follow from the chips by
  :meth:`BettingTree.showdown_payoffs` (the best signal among the players still in wins
  the pot, equal best signals split it).

Nodes are numbered in order of creation. :meth:`BettingTree.decision` adds all children
of a node at once; :meth:`BettingTree.action` adds them one at a time, which lets a
recursive builder number the nodes in preorder.

:func:`encode_view_keys` and :func:`decode_view_keys` define the integer key a generator
gives each information set of a poker game (betting node, own card, public cards):
strategies of an abstract game are lifted to the full game through these integers,
never through the printed information-set labels.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from math import perm

import numpy as np
import numpy.typing as npt

from .efg import CHANCE, TERMINAL
from .errors import GameError

#: Showdown outcomes, indexed like the second axis of ``BettingTree.payoff``.
P1_WINS, TIE, P2_WINS = 0, 1, 2

#: ``player`` of a node that is not defined yet.
_OPEN = -3


class BettingTree:
    """A finite public betting tree for ``num_players`` players (default two), with
    optional card deals.

    Per node (lists indexed by node): ``parent``; ``player`` (a player index, ``CHANCE``
    for a deal, ``TERMINAL``); ``label`` (the action leading to the node); ``children``;
    ``history`` (the public actions from the root: action tokens joined by
    ``separator``, deal marks appended; the root is ``""``); ``deal_slot`` and
    ``public`` for deals; ``contrib`` (chips in per player), ``folder`` (two players: who
    folded, -1 for none) and ``folded`` (the set of players who folded) at terminals.

    ``separator="-"`` names histories like ``"check-bet"`` (signal games);
    ``separator=""`` with one-letter tokens gives poker's ``"rc/cr"``.

    ``rake`` is the fraction of the pot the house keeps at every terminal made by
    :meth:`poker_terminal` (a showdown or a fold): the winners share ``(1 - rake)`` times
    the pot. With a rake the game is general-sum: the players' payoffs add up to minus
    the rake, which depends on how much was bet.
    """

    def __init__(self, separator: str = "-", num_players: int = 2, rake: float = 0.0) -> None:
        if int(num_players) < 2:
            raise GameError(f"a betting tree needs at least 2 players, not {num_players}")
        if not 0.0 <= float(rake) < 1.0:
            raise GameError(f"the rake is a fraction of the pot from 0 to below 1, not {rake!r}")
        self.separator = separator
        self.num_players = int(num_players)
        self.rake = float(rake)
        self.parent: list[int] = [-1]
        self.player: list[int] = [_OPEN]
        self.label: list[str] = [""]
        self.children: list[list[int]] = [[]]
        self.history: list[str] = [""]
        self.deal_slot: list[int] = [-1]
        self.public: list[bool] = [False]
        self.contrib: list[tuple[float, ...]] = [(0.0,) * self.num_players]
        self.folder: list[int] = [-1]
        self.folded: list[frozenset[int]] = [frozenset()]
        self._payoff: dict[int, np.ndarray] = {}

    # ------------------------------------------------------------------ building
    def _name(self, node: int) -> str:
        return self.history[node] or "(root)"

    def _new_child(self, node: int, label: str, history: str) -> int:
        kid = len(self.parent)
        self.parent.append(node)
        self.player.append(_OPEN)
        self.label.append(label)
        self.children.append([])
        self.history.append(history)
        self.deal_slot.append(-1)
        self.public.append(False)
        self.contrib.append((0.0,) * self.num_players)
        self.folder.append(-1)
        self.folded.append(frozenset())
        self.children[node].append(kid)
        return kid

    def _define(self, node: int, kind: int) -> None:
        if self.player[node] != _OPEN:
            raise GameError(f"betting node '{self._name(node)}' is already defined")
        self.player[node] = kind

    def decision(
        self, node: int, player: int, actions: Sequence[str] | None = None, tokens: Sequence[str] | None = None
    ) -> list[int]:
        """Make ``node`` a decision of ``player`` (0-based) and add one child per action
        (``tokens`` name the actions in histories; default: the labels). With
        ``actions=None`` the children are added later by :meth:`action`. Returns the
        children added."""
        if not 0 <= player < self.num_players:
            raise GameError(f"betting node '{self._name(node)}': player must be 0 to {self.num_players - 1}")
        if actions is not None and (not actions or len(set(actions)) != len(actions)):
            raise GameError(f"betting node '{self._name(node)}': actions must be distinct and non-empty")
        self._define(node, player)
        actions = list(actions or [])
        tokens = list(tokens) if tokens is not None else actions
        return [self.action(node, a, tok) for a, tok in zip(actions, tokens)]

    def action(self, node: int, label: str, token: str | None = None) -> int:
        """Add one action to the decision ``node``; returns the child it leads to."""
        if self.player[node] < 0:
            raise GameError(f"betting node '{self._name(node)}' is not a decision")
        if label in (self.label[k] for k in self.children[node]):
            raise GameError(f"betting node '{self._name(node)}' already has action '{label}'")
        token = label if token is None else token
        h = self.history[node]
        history = h + self.separator + token if h and self.separator else h + token
        return self._new_child(node, label, history)

    def deal(self, node: int, slot: int, public: bool = False, mark: str = "") -> int:
        """Make ``node`` a deal of card slot ``slot`` (``public``: a board card, which
        starts a new betting round; ``mark`` is appended to the history). Returns the
        one child."""
        self._define(node, CHANCE)
        self.deal_slot[node] = int(slot)
        self.public[node] = bool(public)
        return self._new_child(node, "", self.history[node] + mark)

    def terminal(self, node: int, payoff: npt.ArrayLike) -> None:
        """Make ``node`` terminal; ``payoff`` has shape (3, 2): outcome x player (trees of
        two players; with more, use :meth:`poker_terminal`)."""
        if self.num_players != 2:
            raise GameError(
                f"betting node '{self._name(node)}': a {self.num_players}-player terminal is a pot (poker_terminal)"
            )
        pay = np.asarray(payoff, dtype=float)
        if pay.shape != (3, 2):
            raise GameError(f"betting node '{self._name(node)}': payoff must be 3 outcomes x 2 players")
        self._define(node, TERMINAL)
        self._payoff[node] = pay

    def poker_terminal(self, node: int, contributions: Sequence[float], folder: int | Collection[int] = -1) -> None:
        """Terminal of a pot: each player's chips in, and who folded: one player (-1:
        nobody) or a collection of players. The players still in share the pot, less the
        tree's rake, by their signals (:meth:`showdown_payoffs`); one player left wins it."""
        n = self.num_players
        if len(contributions) != n:
            raise GameError(f"betting node '{self._name(node)}': {len(contributions)} contributions for {n} players")
        folded = frozenset([folder] if isinstance(folder, int) else folder) - {-1}
        if any(not 0 <= f < n for f in folded) or len(folded) >= n:
            raise GameError(
                f"betting node '{self._name(node)}': folded players {sorted(folded)} "
                f"are not a set of fewer than {n} players"
            )
        if n != 2:
            self._define(node, TERMINAL)
            self.contrib[node] = tuple(float(c) for c in contributions)
            self.folded[node] = folded
            self.folder[node] = next(iter(folded)) if len(folded) == 1 else -1
            return
        folder = next(iter(folded)) if folded else -1
        c1, c2 = (float(c) for c in contributions)
        kept = (c1 + c2) * (1.0 - self.rake)  # what the winner takes
        if folder == 0:
            p1, p2 = np.full(3, -c1), np.full(3, kept - c2)
        elif folder == 1:
            p1, p2 = np.full(3, kept - c1), np.full(3, -c2)
        else:  # outcomes: player 1 wins, tie, player 2 wins
            p1 = np.array([kept - c1, kept / 2.0 - c1, -c1])
            p2 = np.array([-c2, kept / 2.0 - c2, kept - c2])
        self.terminal(node, np.stack([p1, p2], axis=1))
        self.contrib[node] = (c1, c2)
        self.folder[node] = int(folder)
        self.folded[node] = folded

    def finish(self) -> BettingTree:
        """Check that every node is defined and every decision has actions; returns self."""
        for v in range(len(self.parent)):
            if self.player[v] == _OPEN:
                raise GameError(f"betting node '{self._name(v)}' has neither actions nor a payoff")
            if self.player[v] >= 0 and not self.children[v]:
                raise GameError(f"betting node '{self._name(v)}': a decision needs actions")
        return self

    # ------------------------------------------------------------------ arrays
    @property
    def num_nodes(self) -> int:
        """Number of nodes, the root included."""
        return len(self.parent)

    @cached_property
    def kind(self) -> np.ndarray:
        """int array per node: player index, ``CHANCE`` or ``TERMINAL``."""
        return np.asarray(self.player, dtype=np.int64)

    @cached_property
    def num_actions(self) -> np.ndarray:
        """int array per node: children of a decision, 0 elsewhere."""
        return np.array([len(c) if k >= 0 else 0 for c, k in zip(self.children, self.player)], dtype=np.int64)

    @cached_property
    def action_index(self) -> np.ndarray:
        """int array per node: index of the action (child) leading to it, -1 at the root."""
        out = np.full(self.num_nodes, -1, dtype=np.int64)
        for kids in self.children:
            out[kids] = np.arange(len(kids))
        return out

    @cached_property
    def round(self) -> np.ndarray:
        """int array per node: betting round, the number of public deals above it."""
        out = np.zeros(self.num_nodes, dtype=np.int64)
        for v in self._preorder():
            p = self.parent[v]
            if p >= 0:
                out[v] = out[p] + (1 if self.player[p] == CHANCE and self.public[p] else 0)
        return out

    @cached_property
    def last_own(self) -> tuple[np.ndarray, np.ndarray]:
        """(node, action) arrays of shape (nodes, players): per node and player, the
        player's nearest decision above the node and the action taken there (-1, -1 if
        none)."""
        node = np.full((self.num_nodes, self.num_players), -1, dtype=np.int64)
        act = np.full((self.num_nodes, self.num_players), -1, dtype=np.int64)
        for v in self._preorder():
            p = self.parent[v]
            if p < 0:
                continue
            node[v], act[v] = node[p], act[p]
            if self.player[p] >= 0:
                node[v, self.player[p]] = p
                act[v, self.player[p]] = self.children[p].index(v)
        return node, act

    @cached_property
    def decisions(self) -> list[int]:
        """Decision nodes, ascending."""
        return [v for v in range(self.num_nodes) if self.player[v] >= 0]

    @cached_property
    def terminals(self) -> list[int]:
        """Terminal nodes, ascending."""
        return [v for v in range(self.num_nodes) if self.player[v] == TERMINAL]

    def action_labels(self, v: int) -> list[str]:
        """Labels of the actions at node ``v``."""
        return [self.label[k] for k in self.children[v]]

    @cached_property
    def payoff(self) -> np.ndarray:
        """Array (nodes, 3, 2) of terminal payoffs (zeros elsewhere); two-player trees."""
        if self.num_players != 2:
            raise GameError("showdown outcomes (3 x 2 payoffs) are defined for two players; use showdown_payoffs")
        out = np.zeros((self.num_nodes, 3, 2))
        for v, pay in self._payoff.items():
            out[v] = pay
        return out

    @cached_property
    def zero_sum(self) -> bool:
        """True when every terminal's payoffs add up to zero under every showdown outcome
        (no rake, and two-player payoffs given by :meth:`terminal` that cancel)."""
        if self.num_players == 2:
            from .constant_sum import is_zero_sum

            return is_zero_sum(self.payoff[self.terminals], axis=2)
        return self.rake == 0.0

    @cached_property
    def contributions(self) -> np.ndarray:
        """Array (nodes, players): chips each player has put in (terminals; zeros elsewhere)."""
        return np.array(self.contrib, dtype=float).reshape(self.num_nodes, self.num_players)

    @cached_property
    def folded_mask(self) -> np.ndarray:
        """Bool array (nodes, players): True where the player has folded (terminals)."""
        out = np.zeros((self.num_nodes, self.num_players), dtype=bool)
        for v in self.terminals:
            out[v, sorted(self.folded[v])] = True
        return out

    def showdown_payoffs(self, strength: npt.ArrayLike) -> np.ndarray:
        """Payoffs at every terminal of pot games (every terminal made by
        :meth:`poker_terminal`) for each deal of signals.

        ``strength`` has shape (deals, players): a larger number is a better hand. Among
        the players who have not folded, those of the best strength share the pot
        equally, less the rake; every player loses the chips put in. Returns an array
        (deals, terminals, players) with terminals in the order of :attr:`terminals`; each
        row sums to minus the rake taken there (zero without a rake).
        """
        s = np.asarray(strength, dtype=float)
        leaves = np.asarray(self.terminals, dtype=np.int64)
        contrib = self.contributions[leaves]  # (T, n)
        active = ~self.folded_mask[leaves]  # (T, n)
        masked = np.where(active[None, :, :], s[:, None, :], -np.inf)  # (D, T, n)
        winners = masked == masked.max(axis=2, keepdims=True)
        share = contrib.sum(axis=1)[None, :] * (1.0 - self.rake) / winners.sum(axis=2)  # (D, T)
        return winners * share[:, :, None] - contrib[None, :, :]

    def decision_nodes(self, p: int) -> list[int]:
        """Player ``p``'s decision nodes in preorder."""
        return [v for v in self._preorder() if self.player[v] == p]

    def _preorder(self) -> list[int]:
        out, stack = [], [0]
        while stack:
            v = stack.pop()
            out.append(v)
            stack.extend(reversed(self.children[v]))
        return out

    # ------------------------------------------------------------------ plans
    @cached_property
    def plans(self) -> list[list[dict[int, int]]]:
        """Per player, the reduced pure plans: dicts ``{decision node: action index}``.

        A plan fixes an action at exactly the own nodes it can reach (the opponent's moves
        and deals may lead anywhere; own earlier choices prune).
        """
        return [self._plans_below(0, p) for p in range(self.num_players)]

    def _plans_below(self, v: int, p: int) -> list[dict[int, int]]:
        kids = self.children[v]
        if not kids:
            return [{}]
        if self.player[v] == p:
            plans = []
            for a, kid in enumerate(kids):
                for sub in self._plans_below(kid, p):
                    plans.append({v: a, **sub})
            return plans
        # opponent's node or a deal: the plan must cover every branch
        plans = [{}]
        for kid in kids:
            plans = [{**a, **b} for a in plans for b in self._plans_below(kid, p)]
        return plans

    def plan_actions(self, p: int) -> np.ndarray:
        """int array (plans of player ``p``, nodes): the action each plan takes at each
        node, -1 where the plan takes none."""
        out = np.full((len(self.plans[p]), self.num_nodes), -1, dtype=np.int64)
        for q, plan in enumerate(self.plans[p]):
            for v, a in plan.items():
                out[q, v] = a
        return out

    def expanded_nodes(self, deck: int) -> int:
        """Nodes of the game tree this betting tree spans when its deals draw from ``deck``
        cards without replacement: a node below ``k`` deals occurs once per ordered draw of
        ``k`` cards. Counted from the betting tree alone (nothing is expanded)."""
        counts = self.expanded_counts(deck)
        return counts["decision"] + counts["chance"] + counts["terminal"]

    def expanded_counts(self, deck: int) -> dict[str, int]:
        """:meth:`expanded_nodes` by kind: ``decision``, ``chance`` (one node per card
        dealt) and ``terminal``, of which ``folds`` end by a fold."""
        counts = {"decision": 0, "chance": 0, "terminal": 0}
        folds = 0
        stack = [(0, 0)]
        while stack:
            v, dealt = stack.pop()
            copies = perm(deck, dealt) if dealt <= deck else 0
            kind = self.player[v]
            if kind == CHANCE:
                counts["chance"] += copies
            elif kind == TERMINAL:
                counts["terminal"] += copies
                folds += copies if self.folder[v] >= 0 else 0
            else:
                counts["decision"] += copies
            below = dealt + 1 if kind == CHANCE else dealt
            stack.extend((c, below) for c in self.children[v])
        return counts | {"folds": folds}

    def plan_text(self, p: int, q: int) -> str:
        """A plan in words, e.g. ``"check, call after check-bet"``."""
        rank = {v: i for i, v in enumerate(self._preorder())}
        parts = []
        for v, a in sorted(self.plans[p][q].items(), key=lambda kv: rank[kv[0]]):
            act = self.label[self.children[v][a]]
            parts.append(act if v == 0 else f"{act} after {self.history[v]}")
        return ", ".join(parts)

    def plan_index(self, p: int, spec: dict[str, str]) -> int:
        """The plan of player ``p`` given as ``{history: action}``; GameError if none matches."""
        wanted = {}
        for hist, act in spec.items():
            try:
                v = self.history.index(hist)
            except ValueError:
                known = [self.history[v] or "(root)" for v in self.decision_nodes(p)]
                raise GameError(f"no betting node '{hist}'; player {p + 1} acts at {', '.join(known)}") from None
            if self.player[v] != p:
                raise GameError(f"player {p + 1} does not act at betting node '{hist or '(root)'}'")
            labels = self.action_labels(v)
            if act not in labels:
                raise GameError(f"betting node '{hist or '(root)'}' offers {labels}, not '{act}'")
            wanted[v] = labels.index(act)
        for q, plan in enumerate(self.plans[p]):
            if plan == wanted:
                return q
        reached = [self.history[v] or "(root)" for v in wanted]
        raise GameError(
            f"{spec} is not a complete plan of player {p + 1}: a plan names an action at "
            f"every node of the player it reaches (it names {', '.join(reached)})"
        )

    @cached_property
    def plan_terminal(self) -> np.ndarray:
        """Array (plans of player 1, plans of player 2): the terminal node reached (trees
        without deals)."""
        p1, p2 = self.plans
        out = np.zeros((len(p1), len(p2)), dtype=np.int64)
        for i, a in enumerate(p1):
            for j, b in enumerate(p2):
                v = 0
                while self.children[v]:
                    if self.player[v] == CHANCE:
                        raise GameError("plan_terminal needs a betting tree without deals")
                    choice = (a if self.player[v] == 0 else b)[v]
                    v = self.children[v][choice]
                out[i, j] = v
        return out

    @cached_property
    def plan_terminals(self) -> np.ndarray:
        """int array of shape (plans of player 1, ..., plans of player n): the terminal
        node each profile of plans reaches (trees without deals; any number of players).
        Walks all profiles at once, one step per level of the tree."""
        if CHANCE in self.player:
            raise GameError("plan_terminals needs a betting tree without deals")
        acts = [self.plan_actions(p) for p in range(self.num_players)]
        shape = tuple(a.shape[0] for a in acts)
        index = np.indices(shape).reshape(len(shape), -1)
        kind = self.kind
        width = max(1, int(self.num_actions.max()))
        child = np.full((self.num_nodes, width), -1, dtype=np.int64)
        for v, kids in enumerate(self.children):
            child[v, : len(kids)] = kids
        at = np.zeros(index.shape[1], dtype=np.int64)
        while True:
            moving = kind[at] >= 0
            if not moving.any():
                break
            who = kind[at[moving]]
            a = np.empty(who.shape[0], dtype=np.int64)
            for p in range(self.num_players):
                mine = who == p
                a[mine] = acts[p][index[p, moving][mine], at[moving][mine]]
            at[moving] = child[at[moving], a]
        return at.reshape(shape)

    def profile_terminal(self, profile: Sequence[int]) -> int:
        """The terminal node one profile of plans (a plan index per player) reaches: a walk
        down the tree, for when the table of all profiles (:attr:`plan_terminals`, whose
        size is the product of the players' plan counts) is too large."""
        if CHANCE in self.player:
            raise GameError("profile_terminal needs a betting tree without deals")
        v = 0
        while self.children[v]:
            mover = int(self.player[v])
            v = self.children[v][self.plans[mover][profile[mover]][v]]
        return v

    @cached_property
    def plan_payoff(self) -> np.ndarray:
        """Array (plans 1, plans 2, 3 outcomes, 2 players) of payoffs."""
        return self.payoff[self.plan_terminal]


# ----------------------------------------------------------------------------- view keys
@dataclass(frozen=True)
class PokerViews:
    """What the acting player sees at each information set of a poker game, as integer
    arrays aligned with the game's information sets: betting-tree node, player, own
    private card, public cards (one column per board slot, -1 where not dealt yet)."""

    template: np.ndarray
    player: np.ndarray
    own: np.ndarray
    board: np.ndarray


def encode_view_keys(template: np.ndarray, own: np.ndarray, board: np.ndarray, deck: int) -> np.ndarray:
    """int64 key per row of (betting node, own card, board cards): the cards in base
    ``deck + 1`` below the node (a card ``c`` counts ``c + 1``; 0 is "not dealt").
    ``board`` has one column per board slot."""
    key = np.asarray(template, dtype=np.int64).copy()
    board = np.asarray(board, dtype=np.int64).reshape(key.shape[0], -1)
    for col in [np.asarray(own, dtype=np.int64)] + [board[:, s] for s in range(board.shape[1])]:
        key = key * (deck + 1) + (col + 1)
    return key


def decode_view_keys(keys: np.ndarray, deck: int, board_slots: int, num_players: int = 2) -> PokerViews:
    """Invert :func:`encode_view_keys` on keys that a tree generator extended with the
    acting player (``key * num_players + player``, as ``instances._grow.grow`` does)."""
    k = np.asarray(keys, dtype=np.int64)
    player = k % num_players
    k = k // num_players
    board = np.empty((k.shape[0], board_slots), dtype=np.int64)
    for s in range(board_slots - 1, -1, -1):
        board[:, s] = k % (deck + 1) - 1
        k = k // (deck + 1)
    own = k % (deck + 1) - 1
    template = k // (deck + 1)
    return PokerViews(template, player, own, board)


__all__ = ["BettingTree", "P1_WINS", "TIE", "P2_WINS", "PokerViews", "encode_view_keys", "decode_view_keys"]
