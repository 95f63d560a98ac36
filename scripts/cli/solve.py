"""``solve`` (the sequence-form LP, GameShrink's shrunk LP, first-order methods) and ``shrink``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import (
    DOMINATED_HELP,
    FIRST_ORDER,
    GAME_HELP,
    RULE_HELP,
    check_program_target,
    check_strategy_target,
    number_type,
    print_answer,
    text_type,
    usage_error,
)


def cmd_solve(args: argparse.Namespace) -> int:
    from ...core.skeleton import solve

    options = dict(
        backend=args.backend or "auto",
        method=args.method,
        time_limit=args.time_limit,
        target_exploitability=args.target_exploitability,
        verbose=args.verbose,
        algorithm=args.algorithm,
        iterations=args.iterations,
        eliminate_dominated=args.eliminate_dominated,
    )
    if args.algorithm != "lp":
        given = [flag for flag, on in (("--both-lps", args.both_lps), ("--method", args.method)) if on]
        if args.backend is not None:
            given.append("--backend")
        if given:
            raise usage_error(f"{given[0]} applies to the LP, not to {args.algorithm}")
    check_strategy_target(args)
    if args.shrink and args.no_shrink:
        raise usage_error("--shrink and --no-shrink exclude each other")
    if not args.shrink:
        for flag, given in (("--compact", args.compact), ("--threshold", args.threshold), ("--rule", args.rule)):
            if given and given != "lossless":
                raise usage_error(f"{flag} needs --shrink" + (" --rule none" if flag == "--compact" else ""))
    # strategies written per information set of the full game: GameShrink's are lifted onto its tree
    lift = bool(args.strategy_out)
    if args.shrink:
        answer = solve(
            args.game, "shrink", threshold=args.threshold, rule=args.rule, compact=args.compact, lift=lift, **options
        )
    elif args.no_shrink:
        answer = solve(args.game, "lp", both_lps=args.both_lps, **options)
    else:  # the route is chosen (equilibria.core.plan)
        answer = solve(args.game, "auto", both_lps=args.both_lps, lift=lift, **options)
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
    """The ``solve`` command's arguments."""
    p = sub.add_parser(
        "solve",
        help="solve a two-player zero-sum game by the sequence-form LP",
        description="Solve a two-player zero-sum game by the sequence-form LP. Without flags the abstraction "
        "(lossless GameShrink for games with ordered signals), the formulation and the backend (by the LP's "
        "size) are chosen by a fixed rule, printed with the answer; any flag given is kept.",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument(
        "--backend",
        type=text_type,
        default=None,
        help="highs, clarabel, scip, pyomo:NAME, ... (default: auto, chosen by the LP's size and printed)",
    )
    p.add_argument(
        "--method",
        type=text_type,
        dest="method",
        default=None,
        help="HiGHS algorithm (implies --backend highs): simplex, ipx, ipm, pdlp or concurrent "
        "(simplex and IPX race); default: by the LP's shape",
    )
    p.add_argument(
        "--time-limit",
        type=number_type("positive"),
        default=None,
        help="seconds for the solver; the best certified strategies so far are returned",
    )
    p.add_argument(
        "--target-exploitability",
        type=number_type("positive"),
        default=None,
        metavar="EPS",
        help="stop as soon as the certified exploitability is at most EPS",
    )
    p.add_argument(
        "--algorithm",
        choices=("lp",) + FIRST_ORDER,
        default="lp",
        help="lp (default: the sequence-form LP, solved exactly) or a first-order method on the saddle point "
        "(cfr+, pcfr+, dcfr, mirror-prox: anytime, needs --target-exploitability, --time-limit or --iterations)",
    )
    p.add_argument(
        "--iterations",
        type=number_type("count"),
        default=None,
        help="with a first-order --algorithm: iterations at most",
    )
    p.add_argument("--eliminate-dominated", action="store_true", help=DOMINATED_HELP)
    p.add_argument("--both-lps", action="store_true", help="solve player 2's LP instead of reading duals")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--strategy-out", type=text_type, metavar="FILE.csv", help="write both strategies as CSV")
    p.add_argument("--verbose", action="store_true", help="show the solver's log")
    p.add_argument(
        "--shrink",
        action="store_true",
        help="solve through GameShrink's shrunk LP (ordered games: kuhn, generalized_kuhn, leduc, rhode_island; "
        "the default for them, lossless rule)",
    )
    p.add_argument(
        "--no-shrink", action="store_true", help="solve the game's tree directly, even when it has ordered signals"
    )
    p.add_argument(
        "--threshold", type=number_type("nonnegative"), default=0.0, help="with --shrink: lossy GameShrink threshold"
    )
    p.add_argument("--rule", choices=("lossless", "published", "none"), default="lossless", help=RULE_HELP)
    p.add_argument(
        "--compact",
        action="store_true",
        help="with --shrink --rule none: the LP with fold and showdown payoffs through sum and prefix-sum "
        "variables (O(k) nonzeros per betting terminal and board instead of O(k^2))",
    )
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
