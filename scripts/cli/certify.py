"""``certify``: strategies from files (a strategy CSV, a solver's solution of an exported LP)
certified by exact best responses."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.answer import Answer

from .common import GAME_HELP, check_strategy_target, number_type, print_answer, text_type, usage_error

CERTIFY_FILES_HELP = (
    "files holding the strategies, together every player's once: a strategy CSV (the layout --strategy-out "
    "writes), or a solution of the LP 'export --player P' writes or of the program 'nash --write' writes, "
    "from HiGHS (raw or pretty), SCIP (.sol), Gurobi (.sol), CPLEX (XML), CBC or a name,value CSV; each told "
    "apart by its first lines"
)


def cmd_certify(args: argparse.Namespace) -> int:
    from ...core.certified import certify_files

    check_strategy_target(args)  # before the work
    answer: Answer
    if args.model is not None:
        from ...routes.threshold.certify import certify_threshold_files

        if args.tolerance is not None:
            raise usage_error("--tolerance checks realization plans; a threshold program's solution has none")
        answer = certify_threshold_files(args.game, args.files, args.model)
    else:
        answer = certify_files(args.game, args.files, tolerance=args.tolerance)
    print_answer(answer, args)
    return 0


def add_certify(sub: Any) -> None:
    """The ``certify`` command's arguments."""
    p = sub.add_parser(
        "certify",
        help="certify strategies from files (a strategy CSV, solvers' solutions of exported LPs) by exact best "
        "responses",
    )
    p.add_argument("game", help=GAME_HELP)
    p.add_argument("files", nargs="+", metavar="STRATEGY", type=text_type, help=CERTIFY_FILES_HELP)
    p.add_argument(
        "--tolerance",
        type=number_type("positive"),
        default=None,
        help="how far a plan may break the sequence-form constraints, or an information set's probabilities "
        "miss 1, before the file is refused (default 1e-6)",
    )
    p.add_argument(
        "--model",
        type=text_type,
        metavar="NAME|FILE.json",
        help="the files solve the threshold program of this model ('threshold GAME --model NAME --write FILE'): "
        "its thresholds t(...) are read and the model's strategies certified",
    )
    p.add_argument("--json", action="store_true", help="the answer as JSON")
    p.add_argument("--strategy-out", type=text_type, metavar="FILE.csv", help="write the strategies read as CSV")
    p.set_defaults(func=cmd_certify)
