"""Play a game in the terminal against a computed equilibrium (``equilibria play``).

The program samples chance and its own seats from the equilibrium; the person's seat is
asked at each of its decisions, shown what that seat knows (the information set's label)
and the actions. After each hand: what happened and the running score. At the end: the
expected value of the person's choices against the equilibrium, beside the expected value
the equilibrium's own mix had at the same decisions (both given the person's information
and beliefs), so the cost of each deviation is an expectation, not luck.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from ..models.efg import CHANCE, TERMINAL, ExtensiveGame
from ..models.errors import EquilibriaError
from ..presentation import Presentation, _edge_text


class InputEnded(EquilibriaError):
    """The person's input ended before the last hand."""


@dataclass
class Session:
    """A run of hands: scores and the person's decisions with their expected values."""

    seat: int
    score: float = 0.0
    hands: int = 0
    chosen_value: float = 0.0
    equilibrium_value: float = 0.0
    decisions: int = 0
    log: list[str] = field(default_factory=list)


def parse_seat(game: ExtensiveGame, text: str | None) -> int:
    """A seat from a player's name or 1-based number (default: player 1)."""
    if text is None:
        return 0
    names = [n.lower() for n in game.player_names]
    if text.lower() in names:
        return names.index(text.lower())
    if text.strip().isdigit() and 1 <= int(text) <= game.num_players:
        return int(text) - 1
    raise EquilibriaError(
        f"--as {text!r}: the players are " + ", ".join(f"{i + 1} ({n})" for i, n in enumerate(game.player_names))
    )


def play(
    pres: Presentation,
    seat: int,
    hands: int,
    seed: int | None,
    ask: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> Session:
    """Play ``hands`` hands with the person at ``seat``; returns the session."""
    import sys

    stream = out or sys.stdout
    game = pres.game
    rng = np.random.default_rng(seed)
    session = Session(seat)
    you = game.player_names[seat]

    def say(text: str = "") -> None:
        print(text, file=stream, flush=True)

    payoffs = game.terminal_payoffs()
    say(f"{game.title}: you are {you} (player {seat + 1}); the program plays the equilibrium.")
    try:
        _hands(game, pres, session, hands, rng, ask, say, payoffs)
    except InputEnded:
        say(f"\n(the input ended during hand {session.hands + 1}, which does not count)")
    say("")
    say(f"score           {session.score:+g} over {session.hands} hand{'s' if session.hands != 1 else ''}")
    if session.decisions:
        cost = session.equilibrium_value - session.chosen_value
        say(
            f"your choices    {session.decisions} decision{'s' if session.decisions != 1 else ''}; against the "
            f"equilibrium they {'cost' if cost > 1e-12 else 'gained' if cost < -1e-12 else 'cost'} "
            f"{abs(cost):.4f} in expectation, beside the equilibrium's own mix at the same points "
            "(what you knew, not the cards dealt, decides it)"
        )
    return session


def _hands(
    game: ExtensiveGame,
    pres: Presentation,
    session: Session,
    hands: int,
    rng: np.random.Generator,
    ask: Callable[[str], str],
    say: Callable[[str], None],
    payoffs: np.ndarray,
) -> None:
    """Deal and play the hands; the session keeps the score and the decisions."""
    seat = session.seat
    for hand in range(1, hands + 1):
        say(f"\n--- hand {hand} of {hands} ---")
        node = 0
        last_seen: dict[int, str] = {}
        chosen = mixed = 0.0
        decided = 0
        while game.player[node] != TERMINAL:
            first = int(game.first_child[node])
            count = int(game.num_children[node])
            kids = np.arange(first, first + count)
            mover = int(game.player[node])
            if mover == CHANCE or mover != seat:
                probs = pres.edge_prob[kids]
                if mover != CHANCE:
                    last_seen[mover] = _label(game, int(game.infoset[node]))
                node = int(rng.choice(kids, p=probs / probs.sum()))
                if mover != CHANCE:
                    say(f"{game.player_names[mover]}: {game.edge_label(node)}")
                continue
            k = int(game.infoset[node])
            label = _label(game, k)
            actions = [game.action_label(k, a) for a in range(count)]
            say(f"you know: {label}")
            say("  " + "   ".join(f"{i + 1}) {a}" for i, a in enumerate(actions)))
            a = _read_choice(actions, ask)
            start = int(game.infoset_action_start[k])
            values = pres.action_values[start : start + count]
            mix = pres.action_probs[start : start + count]
            chosen += float(values[a])
            mixed += float(mix @ values)
            decided += 1
            node = int(kids[a])
        payoff = float(payoffs[np.searchsorted(game.terminals, node)][seat])
        # a hand counts once it is over (an input that ends midway leaves it out)
        session.chosen_value += chosen
        session.equilibrium_value += mixed
        session.decisions += decided
        session.score += payoff
        session.hands = hand
        say("hand: " + "; ".join(_path(game, node)))
        for p, label in sorted(last_seen.items()):
            say(f"{game.player_names[p]} knew: {label}")
        say(
            f"you {'win' if payoff > 0 else 'lose' if payoff < 0 else 'draw'} {abs(payoff):g}; score {session.score:+g}"
        )


def _read_choice(actions: list[str], ask: Callable[[str], str]) -> int:
    lowered = [a.lower() for a in actions]
    while True:
        try:
            text = ask("> ").strip().lower()
        except EOFError:
            raise InputEnded("the input ended before the last hand") from None
        # a choice has a few digits; a longer run of them is no choice (and too long for int())
        if text.isascii() and text.isdigit() and len(text) <= 6 and 1 <= int(text) <= len(actions):
            return int(text) - 1
        if text in lowered:
            return lowered.index(text)
        starts = [i for i, a in enumerate(lowered) if text and a.startswith(text)]
        if len(starts) == 1:
            return starts[0]
        print(f"  choose 1 to {len(actions)} or an action's name", flush=True)


def _label(game: ExtensiveGame, k: int) -> str:
    return str(game.infoset_labels[k]) if game.infoset_labels is not None else f"information set {k + 1}"


def _path(game: ExtensiveGame, node: int) -> list[str]:
    """The moves of a play, chance's among them (named by the chance node's label, or as
    "chance" where the game names none)."""
    steps = []
    while game.parent[node] >= 0:
        par = int(game.parent[node])
        text = _edge_text(game, node)
        unnamed = game.player[par] == CHANCE and not (game.node_labels is not None and str(game.node_labels[par]))
        steps.append(f"chance {text}" if unnamed else text)
        node = par
    return steps[::-1]


#: Seconds ``show`` and ``play`` give MIP Nash when no --time-limit is given: a general-sum
#: game can take hours (OpenSpiel's sheriff: 46,821 rows, no incumbent in minutes), and a
#: command that only displays an equilibrium should not run unbounded.
DEFAULT_NASH_SECONDS = 60.0


#: ``show`` and ``play`` refine the equilibrium of games up to this many nodes: the
#: lexicographic simplex took 1.3 s on Leduc hold'em (9,457 nodes), 9 s with 4 ranks
#: (26,049) and 91 s with 6 ranks (100,993).
REFINE_NODES = 30_000


def _refined(description: Any, options: dict, refine: str) -> tuple[Any, str | None]:
    """The refined answer for ``show`` and ``play`` (the lp route with ``refine``), or
    None and why not: the game is beyond :data:`REFINE_NODES`, or no refined
    equilibrium was found (the LP's vertex is shown instead, and the plan says so)."""
    from ..core.plan import choose, finished
    from ..core.skeleton import solve
    from ..models.errors import SolveFailed

    estimate = description.estimate("extensive")
    if estimate is not None and estimate[0] > REFINE_NODES:
        return None, (
            f"not refined: about {estimate[0]:,} nodes, beyond the {REFINE_NODES:,} that show and play refine "
            f"(solve --refine {refine} refines any size)"
        )
    route, chosen, reasons = choose(description, options | {"refine": refine, "lift": False})
    try:
        answer = solve(description, route, **chosen)
    except SolveFailed as exc:
        return None, f"not refined: {exc}"
    answer.plan = finished(reasons, answer) + list(answer.plan)
    return answer, None


def equilibrium_for(
    spec: Any, backend: str | None = None, time_limit: float | None = None, refine: str | None = "quasi-perfect"
) -> Any:
    """The certified answer ``show`` and ``play`` use, by the route the planner chooses
    (:func:`equilibria.core.plan.choose`, as ``equilibria solve``), with strategies on the
    game's own tree; Lemke's method and MIP Nash (general-sum and n-player games) for
    :data:`DEFAULT_NASH_SECONDS` unless ``time_limit``. A two-player zero-sum game's
    equilibrium is refined by ``refine`` (the LP of the game's tree, ``--refine``): off
    the path of play its strategies then give advice a person can follow, where the LP's
    vertex may play any action that keeps the opponent from deviating."""
    from ..core.deadline import OutOfTime
    from ..core.plan import choose, finished
    from ..core.skeleton import solve
    from ..instances import describe

    description = describe(spec)
    options = {"lift": True, "time_limit": time_limit} | ({"backend": backend} if backend else {})
    route, chosen, reasons = choose(description, options)
    unrefined = None
    if route in ("lp", "shrink") and refine is not None:
        refined, unrefined = _refined(description, options, refine)
        if refined is not None:
            return refined
    options = chosen
    if route not in ("nash", "lcp"):
        answer = solve(description, route, **options)
        answer.plan = finished(reasons, answer) + list(answer.plan) + ([unrefined] if unrefined else [])
        return answer
    limit = DEFAULT_NASH_SECONDS if time_limit is None else time_limit
    try:
        answer = solve(description, route, **(options | {"time_limit": limit}))
    except OutOfTime:
        if time_limit is not None:
            raise
        raise OutOfTime(
            f"no equilibrium found in {limit:g} s ({reasons[0].split(';')[0]}); give --time-limit SECONDS to "
            "search longer" + (", or try --backend scip" if route == "nash" else ", or --backend highs for MIP Nash")
        ) from None
    answer.plan = reasons + list(answer.plan)
    return answer
