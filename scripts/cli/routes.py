"""A command for every registered route without one of its own, made from the route's options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .common import GAME_HELP, check_strategy_target, print_answer, text_type


def add_route_commands(sub: Any) -> None:
    """``equilibria NAME GAME`` for every registered route without a command of its own
    (``Route.command``), its flags made from the route's options."""
    from ...core.skeleton import ROUTES, load_plugins, option_choices, option_kind

    load_plugins()
    for name, route in ROUTES.items():
        if route.command is not None or name in sub.choices:
            continue
        p = sub.add_parser(name, help=route.summary, description=route.summary)
        p.add_argument("game", type=text_type, help=GAME_HELP)
        helps = route.help()
        for option, parameter in route.signature().items():
            flag = "--" + option.replace("_", "-")
            dest = f"option_{option}"
            default = None if parameter.default is parameter.empty else parameter.default
            says = helps.get(option, "") + (f" (default {default})" if default not in (None, False) else "")
            if option_kind(parameter) == "bool":
                if default is True:
                    p.add_argument(f"--no-{flag[2:]}", dest=dest, action="store_false", default=None, help=says)
                else:
                    p.add_argument(flag, dest=dest, action="store_true", default=None, help=says)
                continue
            p.add_argument(
                flag,
                dest=dest,
                type=route_option_type(name, option, parameter),
                choices=option_choices(parameter),
                default=None,
                metavar=option.upper(),
                help=says,
            )
        p.add_argument("--json", action="store_true", help="print the answer as JSON")
        p.add_argument("--strategy-out", type=text_type, metavar="FILE.csv", help="write the strategies as CSV")
        p.set_defaults(func=cmd_route, route=name)


def route_option_type(route: str, option: str, parameter: Any) -> Callable[[str], Any]:
    """An argparse type reading a route option's text as the route takes it."""

    def parse(text: str) -> Any:
        from ...core.skeleton import check_option, option_from_text
        from ...models.errors import EquilibriaError

        try:
            return check_option(route, option, parameter, option_from_text(route, option, parameter, text))
        except EquilibriaError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = option
    return parse


def cmd_route(args: argparse.Namespace) -> int:
    """A route's command made by :func:`add_route_commands`: solve, then print the answer."""
    from ...core.skeleton import solve

    check_strategy_target(args)
    prefix = "option_"
    options = {k[len(prefix) :]: v for k, v in vars(args).items() if k.startswith(prefix) and v is not None}
    print_answer(solve(args.game, args.route, **options), args)
    return 0


def route_names() -> list[str]:
    """The registered routes (:data:`equilibria.core.skeleton.ROUTES`, with plugins)."""
    from ...core.skeleton import ROUTES, load_plugins

    load_plugins()
    return list(ROUTES)
