"""What ``equilibria solve`` runs when the user names nothing: the abstraction, the
formulation and the backend, each chosen by a fixed rule and reported with its reason.

The rule, measured in ``benchmarks/default_rule.py`` (``benchmarks/default_rule.csv``):

* **Abstraction.** A two-player game with ordered signals (Kuhn, G_n, Leduc, Rhode
  Island) is solved through GameShrink's lossless rule (Gilpin and Sandholm, "Lossless
  abstraction of imperfect information games", 2007): the shrunk game has the same value
  and its equilibria lift to equilibria of the full game, where the answer is certified.
  Its LP had 3.2x (Leduc) to 3.8x (13 ranks) fewer rows and solved 8x to 22x faster
  on HiGHS.
  Other games are solved on their tree. An ordered game whose tree would not fit in
  memory goes through GameShrink all the same, which never builds the tree (it works
  from the signal tree, whose size is checked instead): Rhode Island with 8 ranks (892
  million nodes) shrinks 17-fold to an LP of 17.5 million nonzeros in 4 s and 1 GB. A
  game whose signal tree would not fit either is refused with its size. How large the
  shrunk game is cannot be told in advance (the shrunk sequence form of Leduc with 100
  ranks, 592 million nodes, was not built in 90 s and 5.3 GB): a time limit bounds it.
* **Algorithm.** The LP, unless its sequence form has more payoff entries than an LP
  backend solves in minutes (:data:`equilibria.routes.lp.LP_ENTRY_LIMIT`, 10 million):
  then DCFR, certified as it goes, until the user's time limit or target, else
  exploitability 1e-3 (lossless Rhode Island's shrunk game: 130.6 million LP nonzeros,
  1e-3 in 13 minutes). Naming a backend or a method keeps the LP.
* **Formulation.** The sequence-form LP of that game, except when GameShrink merges
  nothing (Kuhn, G_n: every card its own rank): then the compact LP of the full game, with
  fold and showdown payoffs through sums (G_300: 10,792 nonzeros instead of 452,102, solved
  4x faster). Where GameShrink merges (Leduc, Rhode Island) its LP was smaller than the
  compact one and faster.
* **Backend.** By the LP's size and density (:func:`equilibria.solvers.choose_backend`):
  Clarabel for sparse LPs of 10,000 nonzeros or more (at most 20 per column up to 150,000,
  at most 8 beyond), where it was 3x to 16x faster, HiGHS elsewhere, HiGHS whenever a HiGHS
  method, a time limit or a target exploitability is given; should Clarabel stop short of
  optimal, HiGHS solves the LP again.

* **Route.** A two-player general-sum game (OpenSpiel's tiny_bridge_2p, sheriff, a
  general-sum .efg) goes to Lemke's method on the sequence form's LCP (the ``lcp``
  route), unless a backend or method of a MIP solver is named; a game of three players
  and more (``kuhn:players=3``) goes to MIP Nash with the ``nash`` route's own defaults,
  as ``equilibria nash`` answers it. The options of the LP alone (a first-order
  algorithm, a target exploitability, both LPs, dominated actions) are refused for both.

Anything the user names is kept: ``backend``, ``method``, the ``lp`` or ``shrink`` route.
``equilibria.solve(game)`` (route ``"auto"``, the default) and ``equilibria solve GAME``
run this rule, and so do ``show`` and ``play``; the answer's ``plan`` says what was chosen
and why.
"""

from __future__ import annotations

from typing import Any

from ..models.checks import OptionError
from ..solvers import AUTO

#: Options only the direct LP takes: naming one chooses it.
DIRECT_ONLY = ("both_lps", "select", "against", "refine", "perturbation")
#: Options only GameShrink's route takes: dropped when the tree's LP is chosen.
SHRINK_ONLY = ("lift",)


#: How a refusal to lift strategies onto a game's tree ends.
LIFT_TOO_LARGE = (
    "its strategies cannot be lifted onto its tree (--strategy-out or --select on an abstraction); "
    "solve it without them, or choose smaller parameters"
)


def choose(game: Any, options: dict[str, Any]) -> tuple[str, dict[str, Any], list[str]]:
    """The route, its options and the reasons for what was chosen, for ``game`` solved
    with the ``lp`` route's ``options`` (those left out are chosen; ``lift`` is passed to
    GameShrink's route when it is chosen)."""
    from ..instances.registry import TooLarge, describe

    options = {k: v for k, v in options.items() if v or k not in DIRECT_ONLY}
    options.setdefault("backend", AUTO)
    description = describe(game)
    kind = _not_two_player_zero_sum(description)
    if kind is not None:
        return _nash(kind, options)
    direct = [name for name in DIRECT_ONLY if options.get(name)]
    tree = {k: v for k, v in options.items() if k not in SHRINK_ONLY}
    if direct:
        return "lp", tree, [f"no abstraction: {direct[0]} is an option of the tree's LP"]
    if not description.has("ordered"):
        return "lp", tree, ["no abstraction: the game has no ordered signals for GameShrink"]
    reasons = [LOSSLESS]
    try:
        description.check_size("extensive")
    except TooLarge:
        if options.get("lift"):  # lifting builds the tree
            description.check_size("extensive", LIFT_TOO_LARGE)
        # GameShrink works from the signal tree: the game is refused only when that would
        # not fit either
        description.check_size("ordered")
        estimate = description.estimate("extensive")
        assert estimate is not None  # TooLarge came from it
        units, need = estimate
        reasons.append(
            f"the game's tree is never built: about {units:,} nodes, {need / 1e9:.1f} GB, more than this process has"
        )
    return "shrink", options | {"compact": "auto"}, reasons


#: Options of the LP routes that MIP Nash has no use for, and the flags that give them.
LP_ONLY = {
    "target_exploitability": "--target-exploitability",
    "iterations": "--iterations",
    "device": "--device",
    "select": "--select",
    "refine": "--refine",
    "perturbation": "--perturbation",
    "against": "--against",
    "both_lps": "--both-lps",
    "eliminate_dominated": "--eliminate-dominated",
}


def _not_two_player_zero_sum(description: Any) -> str | None:
    """What the game is when it is no two-player zero-sum (or constant-sum) game ("3
    players", "general-sum"), else None. A game with ordered signals is two-player poker;
    an OpenSpiel game's type says it before any state is visited; otherwise the tree is
    built (the route would build it anyway, and the view is kept)."""
    traits = description.traits()
    if "players" in traits:
        players, zero_sum = traits["players"], traits.get("zero_sum")
    elif description.has("ordered") or not description.has("extensive"):
        return None  # two-player poker, or no tree: the LP route says what it needs
    else:
        from ..models.constant_sum import constant_sum

        tree = description.view("extensive")
        players = tree.num_players
        zero_sum = players == 2 and constant_sum(tree.terminal_payoffs()) is not None
    if players != 2:
        return f"{players} players"
    return None if zero_sum else "general-sum"


def _nash(kind: str, options: dict[str, Any]) -> tuple[str, dict[str, Any], list[str]]:
    """The ``nash`` route for a game that is ``kind``, with what of ``options`` it takes."""
    for name, flag in LP_ONLY.items():
        if options.get(name):
            raise OptionError(f"{flag} applies to two-player zero-sum games; this one is {kind} (MIP Nash answers it)")
    if options.get("algorithm", "lp") != "lp":
        raise OptionError(
            f"--algorithm {options['algorithm']} applies to two-player zero-sum games; this one is {kind} "
            "(MIP Nash answers it)"
        )
    if kind == "general-sum" and options.get("backend", AUTO) in (AUTO, "lemke") and not options.get("method"):
        taken = {"time_limit": options["time_limit"]} if options.get("time_limit") is not None else {}
        return "lcp", taken | {"backend": "lemke"}, [LEMKE]
    taken = {k: options[k] for k in ("time_limit", "verbose", "method") if options.get(k) is not None}
    backend = options.get("backend", AUTO)
    taken["backend"] = "highs" if backend == AUTO else backend
    return "nash", taken, [f"MIP Nash: the game is {kind}, not two-player zero-sum; the nash route's defaults"]


#: Why Lemke's method for a two-player general-sum game.
LEMKE = (
    "Lemke on the sequence form's LCP: the game is general-sum with two players (sheriff with 2 rounds: "
    "0.2 s, where MIP Nash took 23 s); equilibria nash is the mixed-integer route"
)

#: Why lossless GameShrink, and why the compact LP when it merges nothing.
LOSSLESS = "lossless GameShrink: ordered signals; same value, equilibria lift to the full game and are certified there"
COMPACT = (
    "the compact LP: ordered signals, but lossless GameShrink merges nothing here; fold and showdown payoffs "
    "through sums (O(k) nonzeros per betting terminal instead of O(k^2))"
)


def finished(reasons: list[str], answer: Any) -> list[str]:
    """The reasons, once the route has run: GameShrink's route says whether it merged."""
    report = getattr(answer, "report", None)
    if reasons and reasons[0] == LOSSLESS and report is not None and report.rule == "none":
        return [COMPACT, *reasons[1:]]
    return reasons


__all__ = ["COMPACT", "DIRECT_ONLY", "LOSSLESS", "SHRINK_ONLY", "choose", "finished"]
