"""``nash``: MIP Nash for general-sum and many-player games, and with ``--all`` or
``--count K`` the list of every equilibrium (``--csv`` writes its table)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import (
    HELD_REPORT,
    check_program_target,
    check_strategy_target,
    print_answer,
    text_type,
    usage_error,
    write_strategies,
)
from .routes import add_answer_arguments


def cmd_nash(args: argparse.Namespace) -> int:
    from ...core.options import given_options
    from ...core.skeleton import solve

    options = given_options(args)
    listing = bool(options.get("all")) or options.get("count") is not None
    if args.write and listing:
        raise usage_error("--write exports the program of one equilibrium; --all and --count solve one per support")
    if args.csv and not listing:
        raise usage_error("--csv writes the table of equilibria that --all or --count lists; add one of them")
    if args.write:
        check_program_target(args.write)  # before the work
    if args.csv:
        from ...models.output import STDOUT_NAMES, check_target

        if args.csv in STDOUT_NAMES and args.strategy_out in STDOUT_NAMES:
            raise usage_error("--csv and --strategy-out both write to standard output: send one to a file")
        check_target(args.csv)
    check_strategy_target(args)
    answer = solve(args.game, "nash", **options)
    if listing:
        _print_listing(answer, args)
        return 0
    from ...routes.nash.route import NashSolution

    assert isinstance(answer, NashSolution)
    if args.write:
        from ...formulations.linear_program import LinearProgram
        from ...models.output import content_suffix
        from ...solvers import write_disjunctive, write_problem

        problem, written = answer.program_to_export()
        if isinstance(problem, LinearProgram):
            write_problem(problem, args.write, "lp" if content_suffix(args.write) == ".lp" else "mps")
        else:
            write_disjunctive(problem, args.write, "bigm")
        answer.notes.append(f"program         written to {args.write}: {written}")
    print_answer(answer, args)
    return 0


def _print_listing(answer: Any, args: argparse.Namespace) -> None:
    """Write the table of the listed equilibria (``--csv``, all or nothing), then print
    the answer; with the table on standard output, the report goes to standard error."""
    if not args.csv:
        print_answer(answer, args)
        return
    from ...models.output import STDOUT_NAMES, atomic_output

    with atomic_output(args.csv) as tmp:
        answer.table().to_csv(tmp, index=False)
    if args.csv not in STDOUT_NAMES:
        answer.notes.append(f"table           written to {args.csv}")
        print_answer(answer, args)
        return
    if args.strategy_out:
        write_strategies(answer, args.strategy_out)
        answer.notes.append(f"strategies      written to {args.strategy_out}")
    lines = [answer.to_json()] if args.json else [*answer.report_lines(), *answer.notes]
    print("\n".join(lines), file=HELD_REPORT)


def add_nash(sub: Any) -> None:
    """The ``nash`` command: a flag per option of the route (``NashOptions``)."""
    from ...core.options import add_arguments
    from ...routes.options import NashOptions

    p = sub.add_parser(
        "nash",
        help="an equilibrium of a general-sum or n-player game (normal or extensive form) by MIP Nash; every "
        "equilibrium with --all",
    )
    p.add_argument("game", type=text_type, help="a game: mipnash_test:k=3, random_normal:rows=5, FILE.nfg, FILE.efg")
    add_arguments(p, "nash", NashOptions)
    p.add_argument("--write", type=text_type, metavar="FILE.mps|FILE.lp", help="also write the program")
    p.add_argument(
        "--csv",
        type=text_type,
        metavar="FILE.csv",
        help="with --all or --count: write the table of equilibria (payoffs, regrets, supports, NashConv; "
        "a normal-form game's strategy probabilities)",
    )
    add_answer_arguments(p)
    p.set_defaults(func=cmd_nash)
