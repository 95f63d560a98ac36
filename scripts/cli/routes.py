"""A command for every registered route without one of its own, made from the route's options."""

from __future__ import annotations

import argparse
from typing import Any

from .common import GAME_HELP, check_strategy_target, print_answer, text_type


def add_route_commands(sub: Any, chosen: str | None) -> None:
    """``equilibria NAME GAME`` for every registered route without a command of its own
    (``Route.command``). Only the ``chosen`` command gets its flags, made from the route's
    options dataclass: listing the others imports nothing of theirs."""
    from ...core.options import add_arguments
    from ...core.registry import routes

    for name, route in routes().items():
        if route.command is not None or name in sub.choices:
            continue
        p = sub.add_parser(name, help=route.summary, description=route.summary)
        p.set_defaults(func=cmd_route, route=name)
        if name != chosen:
            continue
        p.add_argument("game", type=text_type, help=GAME_HELP)
        add_arguments(p, name, route.options_class())
        add_answer_arguments(p)


def add_answer_arguments(p: argparse.ArgumentParser) -> None:
    """The flags every route's command takes for its answer."""
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument("--strategy-out", type=text_type, metavar="FILE.csv", help="write the strategies as CSV")


def cmd_route(args: argparse.Namespace) -> int:
    """A route's command made by :func:`add_route_commands`: solve, then print the answer."""
    from ...core.options import given_options
    from ...core.skeleton import solve

    check_strategy_target(args)
    print_answer(solve(args.game, args.route, **given_options(args)), args)
    return 0


def route_names() -> list[str]:
    """The registered routes, plugins included."""
    from ...core.registry import routes

    return list(routes())
