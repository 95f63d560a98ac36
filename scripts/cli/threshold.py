"""``threshold``: threshold programs from qualitative models of signal games."""

from __future__ import annotations

import argparse
from typing import Any

from .common import check_strategy_target, print_answer, text_type, usage_error
from .routes import add_answer_arguments


def cmd_threshold(args: argparse.Namespace) -> int:
    from ...core.options import given_options
    from ...core.skeleton import solve
    from ...models.errors import NoAnswerError
    from ...models.output import check_target

    options = given_options(args)
    models = args.model or []
    several = options.get("join") is not None or len(models) > 1
    if options.get("refinement") and not several:
        raise usage_error("--refinement needs several --model or --join")
    if several:
        options |= {"models": tuple(models) if models else None, "join": options.get("join", "one-program")}
    elif models:
        options["model"] = models[0]
    for target in (args.write_model, args.write):
        if target:
            check_target(target)  # before the work
    check_strategy_target(args)
    sol = solve(args.game, "threshold", **options)
    from ...routes.threshold.answer import ThresholdSolution

    assert isinstance(sol, ThresholdSolution)
    if sol.status == "optimal" and not sol.is_equilibrium:
        # the program answered, the certificate rejects it: no answer (the Python API
        # still returns the solution, is_equilibrium False, for a look at it)
        raise NoAnswerError(
            f"model '{sol.model.name}' gives no equilibrium of {sol.game.name}: its program's strategies are "
            f"{sol.exploitability:.3e} exploitable, since the program checks the thresholds and {sol.looseness()}; "
            "try another model, or --model auto"
        )
    if args.write:
        from ...solvers import write_disjunctive

        if sol.program is None:
            raise usage_error(f"--write needs a program; the model found for {sol.game.name} was read without one")
        write_disjunctive(sol.program.model, args.write, sol.indicators)
        sol.notes.append(f"program         written to {args.write}")
    if args.write_model:
        sol.model.to_json(args.write_model)
        sol.notes.insert(0, f"model written   {args.write_model}")
    print_answer(sol, args)
    return 0


def add_threshold(sub: Any) -> None:
    """The ``threshold`` command: a flag per option of the route (``ThresholdOptions``);
    ``--model`` given once is the model, given again several models."""
    from ...core.options import add_arguments, option_specs
    from ...routes.options import ThresholdOptions

    p = sub.add_parser("threshold", help="solve a signal game from a qualitative (parametric) model")
    p.add_argument("game", help="one_street:pot=R, kuhn_continuous, generalized_kuhn:cards=N, river_endgame, ...")
    p.add_argument(
        "--model", type=text_type, action="append", default=None, help=option_specs(ThresholdOptions)["model"].help
    )
    add_arguments(p, "threshold", ThresholdOptions, skip=("model", "models"))
    p.add_argument(
        "--write-model",
        type=text_type,
        default=None,
        metavar="FILE.json",
        help="write the model of the answer (with --model auto: the one found) for --model and sweeps",
    )
    p.add_argument("--write", type=text_type, metavar="FILE.mps|FILE.lp", help="also write the program")
    add_answer_arguments(p)
    p.set_defaults(func=cmd_threshold)
