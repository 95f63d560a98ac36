"""``show`` and ``play``: an equilibrium as a person reads it, and hands played against it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import GAME_HELP, fixed, number_type, text_type, usage_error


def print_equilibrium(answer: Any) -> None:
    """One line for the equilibrium shown or played against, with its certificate and the
    refinement it satisfies."""
    if answer.zero_sum and answer.value is not None and answer.sequence_form.num_players == 2:
        what = f"value (player 1) {fixed(answer.value, 9)}"
    else:
        what = "payoffs " + ", ".join(f"{fixed(v, 9)}" for v in answer.payoffs or [])
    plan = list(answer.plan or [])
    refined = next((f"; {r}" for r in REFINEMENTS for line in plan if line.startswith(r)), "")
    print(
        f"equilibrium     {what}; NashConv {answer.nash_conv:.3e} (exact best responses){refined}; "
        f"{answer.route} route, {answer.status} ({answer.backend})"
    )
    for line in plan:
        if line.startswith("not refined"):
            print(f"                {line}")


SHOW_TIME_LIMIT_HELP = "seconds for the solver (general-sum and 3+ player games: default 60)"
REFINE_HELP = (
    "two-player zero-sum games: quasi-perfect (default; sound advice off the path of play, from the LP of the "
    "game's tree), ef-perfect (guarding against the player's own trembles too) or vertex (the LP's own optimal "
    "vertex, by the route solve chooses)"
)
#: The refinements ``show`` and ``play`` offer, as their plan lines begin.
REFINEMENTS = ("quasi-perfect", "ef-perfect")


def _refinement(args: argparse.Namespace) -> str | None:
    """The refinement ``--refine`` asks for (None: the LP's vertex)."""
    return None if args.refine == "vertex" else args.refine


def cmd_show(args: argparse.Namespace) -> int:
    from ...models.output import atomic_output
    from ...presentation import (
        belief_report,
        check_plot_target,
        plot_strategies,
        present,
        strategy_report,
    )
    from ..play import equilibrium_for

    if args.infoset is not None:
        import re

        try:
            re.compile(args.infoset)
        except (re.error, OverflowError, RecursionError) as exc:
            raise usage_error(f"--infoset is not a regular expression Python reads: {exc}") from None
    if args.plot:
        check_plot_target(args.plot)  # before the solve
    answer = equilibrium_for(args.game, args.backend, args.time_limit, _refinement(args))
    game = answer.sequence_form.game
    pres = present(game, answer.behaviors)
    table = strategy_report(pres, args.infoset)
    beliefs = belief_report(pres, args.infoset) if args.beliefs else None
    if args.infoset and table.empty:
        raise usage_error(f"--infoset '{args.infoset}' matches no information set of {game.title or args.game}")
    if args.plot:
        with atomic_output(args.plot) as tmp:
            plot_strategies(pres, str(tmp), pattern=args.infoset)
    if args.json:
        out = {
            "game": game.title or args.game,
            "route": answer.route,
            "payoffs": answer.payoffs,
            "nash_conv": answer.nash_conv,
            "strategies": table.to_dict(orient="records"),
        }
        if beliefs is not None:
            out["beliefs"] = beliefs.to_dict(orient="records")
        print(json.dumps(out, indent=2))
        return 0
    print(f"game            {game.title or args.game}")
    print_equilibrium(answer)
    width = max((len(str(a)) for a in table["action"]), default=4)
    for (player, infoset), rows in table.sort_values(["player", "infoset"], kind="stable").groupby(
        ["player", "infoset"], sort=False
    ):
        first = rows.iloc[0]
        name = game.player_names[int(player) - 1]
        print(f"\n{name} #{infoset}: {first['label']}   (reached {first['reach']:.4f})")
        for _, row in rows.iterrows():
            print(f"    {row['action']:<{width}}  probability {row['probability']:.4f}   value {row['value']:+.4f}")
        if beliefs is not None:
            mine = beliefs[(beliefs["player"] == player) & (beliefs["infoset"] == infoset)]
            if len(mine) == 1:  # one history: the player knows where it is
                print("    beliefs: nothing hidden (the information set is one history)")
            else:
                parts = [f"{r['hidden']} {r['belief']:.4f}" for _, r in mine.iterrows()]
                unreached = " (nobody reaches it: chance alone)" if first["reach"] <= 0 else ""
                print(f"    beliefs{unreached}: " + ", ".join(parts))
    if args.plot:
        print(f"\nplot            written to {args.plot}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from ...presentation import present
    from ..play import equilibrium_for, parse_seat, play

    answer = equilibrium_for(args.game, args.backend, args.time_limit, _refinement(args))
    game = answer.sequence_form.game
    seat = parse_seat(game, args.seat)
    print_equilibrium(answer)
    play(present(game, answer.behaviors), seat, args.hands, args.seed)
    return 0


def add_show(sub: Any) -> None:
    """The ``show`` command's arguments."""
    p = sub.add_parser(
        "show", help="an equilibrium as a person reads it: per information set the actions, values and beliefs"
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument(
        "--infoset", type=text_type, default=None, help="only information sets whose label matches this regex"
    )
    p.add_argument("--beliefs", action="store_true", help="the player's posterior over the nodes it cannot tell apart")
    p.add_argument(
        "--plot", type=text_type, default=None, help="draw the strategies (probability against private info)"
    )
    p.add_argument("--backend", type=text_type, default=None, help="solver (default highs; scip for 3+ players)")
    p.add_argument("--time-limit", type=number_type("positive"), default=None, help=SHOW_TIME_LIMIT_HELP)
    p.add_argument("--refine", choices=(*REFINEMENTS, "vertex"), default="quasi-perfect", help=REFINE_HELP)
    p.add_argument("--json", action="store_true", help="the tables as JSON")
    p.set_defaults(func=cmd_show)


def add_play(sub: Any) -> None:
    """The ``play`` command's arguments."""
    p = sub.add_parser("play", help="play hands in the terminal against the computed equilibrium")
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("--as", dest="seat", type=text_type, default=None, help="your seat: a player's name or number")
    p.add_argument("--seed", type=number_type("seed"), default=None, help="seed of the cards and the program's moves")
    p.add_argument("--hands", type=number_type("count"), default=5, help="hands to play (default 5)")
    p.add_argument("--backend", type=text_type, default=None, help="solver (default highs; scip for 3+ players)")
    p.add_argument("--time-limit", type=number_type("positive"), default=None, help=SHOW_TIME_LIMIT_HELP)
    p.add_argument("--refine", choices=(*REFINEMENTS, "vertex"), default="quasi-perfect", help=REFINE_HELP)
    p.set_defaults(func=cmd_play, interactive=True)
