"""``solve`` (the sequence-form LP, GameShrink's shrunk LP, first-order methods) and ``shrink``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import (
    DOMINATED_HELP,
    GAME_HELP,
    RULE_HELP,
    check_program_target,
    check_strategy_target,
    number_type,
    print_answer,
    text_type,
    usage_error,
)
from .routes import add_answer_arguments


def cmd_solve(args: argparse.Namespace) -> int:
    from ...core.options import given_options
    from ...core.skeleton import solve

    options = given_options(args)
    algorithm = options.get("algorithm", "lp")
    if algorithm not in ("lp", "double-oracle") and "backend" in options:
        raise usage_error(f"--backend applies to the LP, not to {algorithm}")
    check_strategy_target(args)
    if args.shrink and args.no_shrink:
        raise usage_error("--shrink and --no-shrink exclude each other")
    if not args.shrink:
        for name in ("compact", "threshold", "rule"):
            if options.get(name) not in (None, False, "lossless"):
                flag = "--" + name
                raise usage_error(f"{flag} needs --shrink" + (" --rule none" if flag == "--compact" else ""))
    options.setdefault("backend", "auto")
    # strategies written per information set of the full game: GameShrink's are lifted onto
    # its tree; so are they where --select compares them in the full game
    lift = bool(args.strategy_out) or (args.shrink and options.get("select") is not None)
    if args.shrink:
        answer = solve(args.game, "shrink", lift=lift, **options)
    elif args.no_shrink:
        from ...routes.options import shrink_only

        answer = solve(args.game, "lp", **{k: v for k, v in options.items() if k not in shrink_only()})
    else:  # the route is chosen (equilibria.core.plan)
        answer = solve(args.game, "auto", lift=lift, **options)
    print_answer(answer, args)
    return 0


def cmd_shrink(args: argparse.Namespace) -> int:
    from ...models.output import content_suffix
    from ...routes.shrink import shrink
    from ...solvers import write_problem

    if args.write:
        check_program_target(args.write)  # before the work
    report = shrink(
        args.game, args.threshold, progress=args.verbose, rule=args.rule, build_lp=not args.eliminate_dominated
    )
    lp, dominance = report.lp, None
    if args.eliminate_dominated:
        from ...formulations import sequence_form_lp
        from ...models.dominance import eliminate_dominated

        reduced = eliminate_dominated(report.filtered.sequence_form)
        dominance = reduced.report()
        lp = sequence_form_lp(reduced.sequence_form, 0) if args.write else None
    if args.write and lp is not None:
        write_problem(lp, args.write, "lp" if content_suffix(args.write) == ".lp" else "mps")
    if args.json:
        print(json.dumps(report.to_dict() | ({"dominance": dominance} if dominance else {}), indent=2))
        return 0
    from ...routes.lp import dominance_lines

    lines = report.report_lines() + (dominance_lines(dominance, report.game.name) if dominance else [])
    for line in lines:
        print(line)
    if args.write:
        print(f"shrunk LP        written to {args.write}")
    return 0


def add_solve(sub: Any) -> None:
    """The ``solve`` command: a flag per option of the LP routes (``ShrinkOptions``, whose
    GameShrink options need ``--shrink``), and the choice of route."""
    from ...core.options import add_arguments
    from ...routes.options import ShrinkOptions

    p = sub.add_parser(
        "solve",
        help="solve a game: the sequence-form LP for two-player zero-sum games, MIP Nash for the others",
        description="Solve a game. Without flags the route (MIP Nash for general-sum and n-player games; for "
        "two-player zero-sum games lossless GameShrink where signals are ordered, the sequence-form LP "
        "otherwise), the formulation and the backend (by the LP's size) are chosen by a fixed rule, printed "
        "with the answer; any flag given is kept.",
    )
    p.add_argument("game", help=GAME_HELP)
    add_arguments(p, "shrink", ShrinkOptions, skip=("lift", "compact"))
    p.add_argument(
        "--compact",
        dest="option_compact",
        action="store_true",
        default=None,
        help="with --shrink --rule none: the LP with fold and showdown payoffs through sum and prefix-sum "
        "variables (O(k) nonzeros per betting terminal and board instead of O(k^2))",
    )
    p.add_argument(
        "--shrink",
        action="store_true",
        help="solve through GameShrink's shrunk LP (ordered games: kuhn, generalized_kuhn, leduc, rhode_island; "
        "the default for them, lossless rule)",
    )
    p.add_argument(
        "--no-shrink", action="store_true", help="solve the game's tree directly, even when it has ordered signals"
    )
    add_answer_arguments(p)
    p.set_defaults(func=cmd_solve)


def add_shrink(sub: Any) -> None:
    """The ``shrink`` command's arguments."""
    p = sub.add_parser("shrink", help="GameShrink an ordered game and report the shrunk LP")
    p.add_argument("game", help="kuhn, generalized_kuhn:cards=N, leduc:ranks=R,suits=S, rhode_island[:ranks=R,suits=S]")
    p.add_argument(
        "--threshold",
        type=number_type("nonnegative"),
        default=0.0,
        help="lossy merge threshold (matching cost per opponent card; 0: lossless)",
    )
    p.add_argument("--rule", choices=("lossless", "published", "none"), default="lossless", help=RULE_HELP)
    p.add_argument("--write", type=text_type, metavar="FILE.mps|FILE.lp", help="write the shrunk LP (player 1's)")
    p.add_argument("--eliminate-dominated", action="store_true", help=DOMINATED_HELP)
    p.add_argument("--json", action="store_true")
    p.add_argument("--verbose", action="store_true", help="log GameShrink's passes (classes per round)")
    p.set_defaults(func=cmd_shrink)
