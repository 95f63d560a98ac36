"""``nash``: MIP Nash for general-sum and many-player games."""

from __future__ import annotations

import argparse
from typing import Any

from .common import check_program_target, check_strategy_target, print_answer, text_type
from .routes import add_answer_arguments


def cmd_nash(args: argparse.Namespace) -> int:
    from ...core.options import given_options
    from ...core.skeleton import solve

    if args.write:
        check_program_target(args.write)  # before the work
    check_strategy_target(args)
    answer = solve(args.game, "nash", **given_options(args))
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


def add_nash(sub: Any) -> None:
    """The ``nash`` command: a flag per option of the route (``NashOptions``)."""
    from ...core.options import add_arguments
    from ...routes.options import NashOptions

    p = sub.add_parser(
        "nash", help="an equilibrium of a general-sum or n-player game (normal or extensive form) by MIP Nash"
    )
    p.add_argument("game", type=text_type, help="a game: mipnash_test:k=3, random_normal:rows=5, FILE.nfg, FILE.efg")
    add_arguments(p, "nash", NashOptions)
    p.add_argument("--write", type=text_type, metavar="FILE.mps|FILE.lp", help="also write the program")
    add_answer_arguments(p)
    p.set_defaults(func=cmd_nash)
