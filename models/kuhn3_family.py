"""The published equilibrium family of three-player Kuhn poker.

Szafron, Gibson and Sturtevant ("A parameterized family of equilibrium profiles for
three-player Kuhn poker", AAMAS 2013) give equilibria of the four-card, one-chip-ante,
one-chip-bet game in which the first player never bets, described by seven numbers: the
probability that player 2 bets first with J (``b11``) or Q (``b21``), calls player 1's bet
with K (``b32``) and calls player 3's bet with Q once player 1 folded (``b23``), and that
player 3 bets with J after two checks (``c11``) or calls with K after a bet and a fold
(``c33``) or after a bet and a call (``c34``). The other entries are constants or follow
from these; each condition the family puts on the seven numbers is tight (a profile just
outside one is not an equilibrium). Player 2 earns -1/48 in every member; players 1 and 3
share the rest, player 1 between -1/32 and -1/48.

:func:`membership` reads those numbers off a behaviour profile of ``kuhn:players=3`` (or
``generalized_kuhn:players=3,cards=4``), checks the family's conditions and every other
entry, and says which condition fails when the profile is not a member. Entries at an
information set its own player never reaches are not compared: any value there gives the
same realization plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .best_response import exploitability
from .sequence import SequenceForm

PLAYER_2_PAYOFF = -1.0 / 48.0  # in every member
CARDS = ("J", "Q", "K", "A")
# Betting histories (p = check or fold, b = bet or call) at which each player acts.
HISTORIES = {
    0: ("", "ppb", "pbp", "pbb"),
    1: ("p", "b", "ppbp", "ppbb"),
    2: ("pp", "pb", "bp", "bb"),
}
PARAMETERS = ("c11", "b11", "b21", "b23", "b32", "c33", "c34")
# Where each free parameter is read: (player, history, card index).
PARAMETER_AT = {
    "c11": (2, "pp", 0),
    "b11": (1, "p", 0),
    "b21": (1, "p", 1),
    "b23": (1, "ppbp", 1),
    "b32": (1, "b", 2),
    "c33": (2, "bp", 2),
    "c34": (2, "bb", 2),
}
ACTION_TOKEN = {"check": "p", "fold": "p", "bet": "b", "call": "b"}
AGGRESSIVE = ("bet", "call")


def family_profile(params: dict[str, float]) -> dict[str, list[float]]:
    """Probability of the aggressive action (bet or call) per card J, Q, K, A at each
    betting history, for the member with the given free parameters."""
    c11, b11, b21, b23 = params["c11"], params["b11"], params["b21"], params["b23"]
    beta = max(b11, b21)
    b33 = 0.5 + (b11 + b21) / 2 + beta / 2 - b23 * (1 - b21)
    b41 = 2 * (b11 + b21)
    c21 = 0.5 - c11
    return {
        "": [0.0, 0.0, 0.0, 0.0],
        "ppb": [0.0, 0.0, 0.0, 1.0],
        "pbp": [0.0, 0.0, 0.5, 1.0],
        "pbb": [0.0, 0.0, 0.0, 1.0],
        "p": [b11, b21, 0.0, b41],
        "b": [0.0, 0.0, params["b32"], 1.0],
        "ppbp": [0.0, b23, b33, 1.0],
        "ppbb": [0.0, 0.0, 0.0, 1.0],
        "pp": [c11, c21, 0.0, 1.0],
        "pb": [0.0, 0.0, 0.0, 1.0],
        "bp": [0.0, 0.0, params["c33"], 1.0],
        "bb": [0.0, 0.0, params["c34"], 1.0],
    }


def subfamily(c11: float, tol: float = 1e-5) -> str:
    """The sub-family a value of c11 selects."""
    if abs(c11) <= tol:
        return "c11 = 0"
    if abs(c11 - 0.5) <= tol:
        return "c11 = 1/2"
    return "0 < c11 < 1/2"


def violated_condition(params: dict[str, float], tol: float = 1e-5) -> str | None:
    """The first of the family's conditions on the free parameters that fails, or None."""
    c11, b11, b21, b23, b32, c33 = (params[k] for k in ("c11", "b11", "b21", "b23", "b32", "c33"))
    beta = max(b11, b21)
    spread = 0.75 * (b11 + b21) + beta / 4
    checks: list[tuple[bool, str]] = [(-tol <= c11 <= 0.5 + tol, "c11 must lie in [0, 1/2]")]
    kind = subfamily(c11, tol)
    if kind == "c11 = 0":
        checks += [(b11 <= b21 + tol, "b11 <= b21 when c11 = 0"), (b21 <= 0.25 + tol, "b21 <= 1/4 when c11 = 0")]
    elif kind == "0 < c11 < 1/2":
        checks += [
            (b11 <= 0.25 + tol, "b11 <= 1/4"),
            (abs(b21 - b11) <= tol, "b21 = b11 when 0 < c11 < 1/2"),
            (
                b11 <= 1 / 6 + tol or c11 <= (2 - b11) / (3 + 4 * b11) + tol,
                "c11 <= (2 - b11)/(3 + 4 b11) when b11 > 1/6",
            ),
        ]
    else:
        checks += [
            (b11 <= 0.25 + tol, "b11 <= 1/4"),
            (b21 <= min(b11, 0.5 - 2 * b11) + tol, "b21 <= min(b11, 1/2 - 2 b11) when c11 = 1/2"),
        ]
    checks += [
        (b23 <= max(0.0, (b11 - b21) / (2 * (1 - b21))) + tol, "b23 <= max(0, (b11 - b21)/(2 (1 - b21)))"),
        (b32 <= 0.5 + spread + tol, "b32 <= 1/2 + 3/4 (b11 + b21) + max(b11, b21)/4"),
        (c33 >= 0.5 - b32 - tol, "c33 >= 1/2 - b32"),
        (c33 <= 0.5 - b32 + spread + tol, "c33 <= 1/2 - b32 + 3/4 (b11 + b21) + max(b11, b21)/4"),
    ]
    for holds, text in checks:
        if not holds:
            return text
    for history, row in family_profile(params).items():
        for card, v in zip(CARDS, row):
            if not -tol <= v <= 1 + tol:
                return f"the entry for {card} after '{history}' ({v:.6f}) is not a probability"
    return None


@dataclass
class FamilyMembership:
    """Whether a profile of three-player Kuhn poker is a member of the published family.

    ``parameters`` are the free parameters read off the profile (None where the profile
    never reaches the information set that holds one); ``reason`` names the first condition
    or entry that fails; ``family_payoffs`` are the member's payoffs when it is one."""

    member: bool
    parameters: dict[str, float | None]
    subfamily: str | None = None
    reason: str | None = None
    family_payoffs: list[float] | None = None
    skipped: int = 0  # information sets not compared: their player never reaches them

    def to_dict(self) -> dict:
        return {
            "member": self.member,
            "subfamily": self.subfamily,
            "parameters": self.parameters,
            "reason": self.reason,
            "family_payoffs": self.family_payoffs,
            "player_2_payoff_in_family": PLAYER_2_PAYOFF,
            "not_compared": self.skipped,
        }

    def lines(self) -> list[str]:
        """Two lines: membership (with the sub-family, or the condition that fails), then
        the parameters and the member's payoffs, or what every member pays."""
        source = "the published equilibrium family (Szafron, Gibson and Sturtevant 2013)"
        if not self.member:
            return [
                f"not a member of {source}: {self.reason}",
                "its members pay player 2 -1/48 and player 1 between -1/32 and -1/48",
            ]
        values = ", ".join(f"{k} {v:.6f}" for k, v in self.parameters.items() if v is not None)
        payoffs = ", ".join(f"{v:.9f}" for v in self.family_payoffs or [])
        return [
            f"member of {source}, sub-family {self.subfamily}",
            f"{values}; the member's payoffs {payoffs}",
        ]


def _information_sets(sf: SequenceForm) -> dict[tuple[int, str, int], tuple[int, int, int]] | None:
    """(player, history, card index) -> (player, first sequence, parent sequence) for each
    information set, or None when the labels are not those of three-player Kuhn poker."""
    game = sf.game
    if game.num_players != 3 or game.num_infosets != 48 or game.infoset_labels is None:
        return None
    local, _ = game.local_infoset_numbering()
    out = {}
    for k in range(game.num_infosets):
        card, sep, history = str(game.infoset_labels[k]).partition(":")
        tokens = [t for t in history.split("-") if t]
        if not sep or card not in ("1", "2", "3", "4") or any(t not in ACTION_TOKEN for t in tokens):
            return None
        key = "".join(ACTION_TOKEN[t] for t in tokens)
        p = int(game.infoset_player[k])
        if key not in HISTORIES[p] or game.infoset_num_actions[k] != 2:
            return None
        if game.action_label(k, 1) not in AGGRESSIVE:
            return None
        ps = sf.players[p]
        i = int(local[k])
        out[(p, key, int(card) - 1)] = (p, int(ps.infoset_first_sequence[i]), int(ps.infoset_parent_sequence[i]))
    return out if len(out) == 48 else None


def applies_to(sf: SequenceForm) -> bool:
    """True when ``sf`` is three-player Kuhn poker with four cards, one-chip ante and bet:
    its labels are Kuhn's and the family's simplest member is an equilibrium of it."""
    where = _information_sets(sf)
    return where is not None and _simplest_member_is_equilibrium(sf, where)


def _simplest_member_is_equilibrium(sf: SequenceForm, where: dict) -> bool:
    simplest = {k: 0.0 for k in PARAMETERS} | {"c33": 0.5}
    return exploitability(sf, _profile(sf, where, family_profile(simplest))).nash_conv <= 1e-9


def member_behaviors(sf: SequenceForm, table: dict[str, list[float]]) -> list[np.ndarray]:
    """Behaviour profile of ``sf`` playing the bet/call probabilities of ``table`` (as
    :func:`family_profile` gives them)."""
    where = _information_sets(sf)
    assert where is not None
    return _profile(sf, where, table)


def _profile(sf: SequenceForm, where: dict, table: dict[str, list[float]]) -> list[np.ndarray]:
    behaviors = [np.ones(ps.num_sequences) for ps in sf.players]
    for (p, history, card), (_, first, _) in where.items():
        aggressive = table[history][card]
        behaviors[p][first : first + 2] = [1 - aggressive, aggressive]
    return behaviors


def membership(sf: SequenceForm, behaviors: list[np.ndarray], tol: float = 1e-5) -> FamilyMembership | None:
    """Is the behaviour profile a member of the published family? None when the game is
    not three-player Kuhn poker (see :func:`applies_to`)."""
    where = _information_sets(sf)
    if where is None or not _simplest_member_is_equilibrium(sf, where):
        return None
    from .strategy import expected_payoffs, realization_from_behavior

    plans = [realization_from_behavior(ps, b) for ps, b in zip(sf.players, behaviors)]

    def reached(p: int, parent: int) -> bool:
        return bool(plans[p][parent] > tol)

    params: dict[str, float | None] = {}
    for name, (p, history, card) in PARAMETER_AT.items():
        _, first, parent = where[(p, history, card)]
        params[name] = float(behaviors[p][first + 1]) if reached(p, parent) else None
    result = FamilyMembership(member=False, parameters=params)
    unread = [k for k, v in params.items() if v is None]
    # b23 is only read when player 2 can check with Q; any admissible value then fits
    if unread:
        result.reason = f"the profile never reaches the information set that holds {', '.join(unread)}"
        return result
    values = {k: float(v) for k, v in params.items() if v is not None}
    result.subfamily = subfamily(values["c11"], tol)
    result.reason = violated_condition(values, tol)
    if result.reason is not None:
        return result
    table = family_profile(values)
    for (p, history, card), (_, first, parent) in sorted(where.items()):
        if not reached(p, parent):
            result.skipped += 1
            continue
        got, want = float(behaviors[p][first + 1]), table[history][card]
        if abs(got - want) > tol:
            result.reason = (
                f"player {p + 1} with {CARDS[card]} after '{history or 'the deal'}' plays bet/call "
                f"with probability {got:.6f}, the family {want:.6f}"
            )
            return result
    member = _profile(sf, where, table)
    family_plans = [realization_from_behavior(ps, b) for ps, b in zip(sf.players, member)]
    result.family_payoffs = [float(v) for v in expected_payoffs(sf, family_plans)]
    result.member = True
    return result
