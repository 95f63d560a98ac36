"""``sweep``: a route over a grid of games and options."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from .common import number_type, plural, text_type
from .routes import route_names


def cmd_sweep(args: argparse.Namespace) -> int:
    """Run a route over a grid of games and options; print a summary of the table."""
    from ...core.registry import get_route
    from ...sweep import (
        RESULT_COLUMNS,
        Grid,
        SweepError,
        plot,
        run_sweep,
    )

    grid = Grid.from_file(args.grid) if args.grid else Grid()
    if args.route:
        grid.route = args.route
    if args.game:
        grid.games = list(args.game)
    for flag, target in (("--param", grid.params), ("--option", grid.options)):
        for item in getattr(args, flag.lstrip("-")) or []:
            name, eq, values = item.partition("=")
            if not eq or not name.strip():
                raise SweepError(f"{flag} is written NAME=VALUE[,VALUE...], not '{item}'")
            target[name.strip()] = values
    cells = grid.cells()
    if args.plot:
        from ...presentation import check_plot_target

        if not args.x or not args.y:
            raise SweepError("--plot needs --x COLUMN and --y COLUMN")
        check_plot_target(args.plot)  # matplotlib, the format and the folder, before the sweep
        known = set(RESULT_COLUMNS) | {k for c in cells for k, _ in c.params + c.options}
        known |= set(get_route(grid.route).columns)
        for flag, name in (("--x", args.x), ("--y", args.y), ("--series", args.series)):
            if name and name not in known and not re.fullmatch(r"seconds_.+|payoff_\d+", name):
                raise SweepError(
                    f"{flag}: no column '{name}'; columns: {', '.join(sorted(known))}, seconds_STAGE, payoff_PLAYER"
                )
    result = run_sweep(
        grid,
        args.output,
        workers=args.workers,
        scheduler=args.scheduler,
        retry_errors=args.retry_errors,
        progress=not args.quiet,
    )
    print(
        f"sweep    {plural(result.cells, 'cell')}: {result.solved - result.errors} solved, "
        f"{plural(result.errors, 'error')}, "
        f"{result.skipped} already recorded; {result.seconds:.1f} s"
    )
    failed = int((result.table["status"] == "error").sum()) if len(result.table) else 0
    print(f"table    {result.parquet} and {result.csv}: {len(result.table)} rows, {failed} with status error")
    if args.plot:
        plot(result.table, args.plot, args.x, args.y, args.series, log_x=args.log_x, log_y=args.log_y)
        print(f"plot     {args.plot}: {args.y} against {args.x}" + (f" by {args.series}" if args.series else ""))
    if failed:
        # the tables hold every cell; the exit status says that some have no answer
        print(
            f"equilibria: no answer: {failed} of {plural(len(result.table), 'cell')} ended in error (the table's error "
            "column says why; --retry-errors solves them again)",
            file=sys.stderr,
        )
        return 1
    return 0


def add_sweep(sub: Any) -> None:
    """The ``sweep`` command's arguments."""
    p = sub.add_parser("sweep", help="run a route over a grid of games and options; a table row per cell")
    p.add_argument(
        "--grid", type=text_type, metavar="FILE.json|FILE.yaml", help="the grid (route, games, params, options)"
    )
    p.add_argument("--route", choices=route_names(), default=None, help="the route (default lp)")
    p.add_argument(
        "--game",
        type=text_type,
        action="append",
        metavar="SPEC",
        help="a game (repeatable): kuhn, leduc:ranks=3..5, generalized_kuhn:cards=3|5",
    )
    p.add_argument(
        "--param", type=text_type, action="append", metavar="NAME=V1,V2", help="a game parameter's values (every game)"
    )
    p.add_argument(
        "--option",
        type=text_type,
        action="append",
        metavar="NAME=V1,V2",
        help="a route option's values: backend=highs,scip method=ipx,simplex threshold=0,0.1 cells=500,1000",
    )
    p.add_argument(
        "-o",
        "--output",
        type=text_type,
        required=True,
        metavar="RESULTS",
        help="writes RESULTS.parquet, RESULTS.csv and one file per cell in RESULTS.cells/",
    )
    p.add_argument(
        "--workers",
        type=number_type("workers"),
        default=2,
        help="local worker processes (default 2; 0: in this process)",
    )
    p.add_argument("--scheduler", type=text_type, metavar="tcp://HOST:PORT", help="run on this Dask cluster")
    p.add_argument("--retry-errors", action="store_true", help="solve again the cells recorded with status error")
    p.add_argument("--plot", type=text_type, metavar="FILE.png", help="plot --y against --x, a line per --series")
    p.add_argument("--x", type=text_type, metavar="COLUMN", help="with --plot: the table's column on the x axis")
    p.add_argument("--y", type=text_type, metavar="COLUMN", help="with --plot: the column on the y axis")
    p.add_argument("--series", type=text_type, metavar="COLUMN", help="with --plot: one line per value of this column")
    p.add_argument("--log-x", action="store_true", help="with --plot: a logarithmic x axis")
    p.add_argument(
        "--log-y", action="store_true", help="with --plot: a logarithmic y axis (exploitability, NashConv, seconds)"
    )
    p.set_defaults(func=cmd_sweep)
