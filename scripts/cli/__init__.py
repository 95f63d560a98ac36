"""The ``equilibria`` command.

    equilibria solve GAME [--shrink [--threshold T] [--rule R]] [--backend B] [--method M] [--time-limit S]
                          [--target-exploitability EPS] [--json] [--strategy-out FILE.csv]
    equilibria info GAME [--json]
    equilibria games [--json]
    equilibria export GAME --player 1|2 --format mps|lp -o FILE
    equilibria certify GAME STRATEGY... [--tolerance T] [--json] [--strategy-out FILE.csv]
    equilibria threshold GAME [--model NAME|FILE.json ...] [--join one-program|separate] [--refinement R]
        [--backend B] [--indicators native|bigm|hull]
        [--epsilon E] [--breakpoints K] [--products sos2|cc|incremental|log|dlog|exact]
                                [--select any|lowest|highest] [--json]
    equilibria nash GAME [--formulation 1|2|3|4] [--objective O] [--backend B] [--time-limit S]
        [--epsilon E] [--breakpoints K] [--products log|sos2|...|exact] [--json] [--write FILE]
    equilibria shrink GAME [--threshold T] [--rule lossless|published] [--json] [--write FILE.mps|FILE.lp]
    equilibria show GAME [--infoset REGEX] [--beliefs] [--plot FILE.png] [--json]
    equilibria play GAME [--as PLAYER] [--seed S] [--hands N]
    equilibria backends

GAME is a registered name with parameters (``leduc:ranks=4``; ``equilibria games`` lists
them), a bundled game, a path to a ``.efg`` file, a rules file ``PATH.py[:key=value,...]``
or ``openspiel:GAME_STRING``. Errors in
the input print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from typing import Any

from ..interrupts import SIGNALLED, WATCHING, exit_status, interrupted
from . import certify, games, nash, routes, show, solve, sweep, threshold
from .common import HELD_REPORT, Parser, one_line, version_text
from .progress import c_stdout_to_stderr, progress_shown


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``equilibria`` command (for ``argv``, default the
    process's arguments: a route's generated command gets its flags only when it is the
    one named)."""
    shared = Parser(add_help=False)
    shared.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser = Parser(
        prog="equilibria", description="Equilibria of games of imperfect information by mathematical programming."
    )
    parser.add_argument("--version", action="version", version=f"equilibria {version_text()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    _add = sub.add_parser

    def add_parser(*a: Any, **k: Any) -> argparse.ArgumentParser:
        return _add(*a, parents=[shared], **k)

    sub.add_parser = add_parser  # type: ignore[method-assign,assignment]  # every command takes --quiet

    show.add_show(sub)
    show.add_play(sub)
    solve.add_solve(sub)
    solve.add_shrink(sub)
    games.add_info(sub)
    games.add_games(sub)
    games.add_export(sub)
    certify.add_certify(sub)
    threshold.add_threshold(sub)
    nash.add_nash(sub)
    sweep.add_sweep(sub)
    games.add_backends(sub)
    words = sys.argv[1:] if argv is None else argv
    routes.add_route_commands(sub, next((w for w in words if not w.startswith("-")), None))
    return parser


def _run(argv: list[str] | None) -> int:
    import time

    from ...core import deadline

    started = time.perf_counter()
    args = build_parser(argv).parse_args(argv)
    # --time-limit bounds the whole command (a sweep's limit is each cell's)
    deadline.command_started = started if args.command != "sweep" else None
    try:
        return _command(args)
    finally:
        deadline.command_started = None


def _command(args: argparse.Namespace) -> int:
    from ...models.errors import EquilibriaError, NoAnswerError
    from ...models.output import commit_outputs, outputs_held

    if sys.stdout is None:  # started with standard output closed (>&-)
        print("equilibria: error: standard output is closed: the answer has nowhere to go", file=sys.stderr)
        return 2
    out = io.StringIO()
    HELD_REPORT.seek(0)
    HELD_REPORT.truncate()
    # the files a command writes go in place once its output is out: a command that fails
    # after writing them (standard output full) leaves none; a sweep keeps its records
    with outputs_held() if args.command != "sweep" else contextlib.nullcontext():
        try:
            with progress_shown(getattr(args, "quiet", False), getattr(args, "verbose", False)):
                # what a command prints is held back until it has succeeded: an error or an
                # interrupt leaves no partial output
                if getattr(args, "interactive", False):
                    code = args.func(args)  # a person reads it as it happens
                else:
                    # and what solver libraries write to the process's standard output (HiGHS's
                    # log with --verbose) goes to standard error: standard output is the answer
                    with contextlib.redirect_stdout(out), c_stdout_to_stderr():
                        code = args.func(args)
        except NoAnswerError as exc:
            print(f"equilibria: no answer: {one_line(str(exc))}", file=sys.stderr)
            return 1
        except EquilibriaError as exc:
            return _error(f"equilibria: error: {one_line(str(exc))}")
        except MemoryError:
            print("equilibria: error: out of memory; try a smaller game or parameters", file=sys.stderr)
            return 2
        except RecursionError:
            print("equilibria: error: the input nests too deeply to be read", file=sys.stderr)
            return 2
        except ImportError as exc:
            # a library loaded on first use could not be mapped: memory (ulimit -v) ran out
            return _error(f"equilibria: error: a library could not be loaded ({one_line(str(exc))[:200]})")
        except OSError as exc:
            name = f" {exc.filename}" if getattr(exc, "filename", None) else ""
            print(f"equilibria: error:{name} {exc.strerror or exc}", file=sys.stderr)
            return 2
        failure = _emit(out.getvalue())
        if failure is None:
            try:
                commit_outputs()
            except EquilibriaError as exc:
                failure = f"equilibria: error: {one_line(str(exc))}"
        if SIGNALLED.is_set():
            # the run caught the interrupt and answered with what it held (a first-order
            # run's best certified strategies): shown, then the command ends as interrupted
            interrupted("the best strategies certified before it are printed")
            return exit_status()
        if failure is not None:
            print(failure, file=sys.stderr)
            return 2
        sys.stderr.write(HELD_REPORT.getvalue())
        return code


def _error(line: str) -> int:
    """Print a failed command's one line and return 2, unless an ending signal came first:
    then the failure is the interrupt's doing (a library import cut short by Ctrl-C fails
    with an error of its own), and the command ends as interrupted."""
    if SIGNALLED.is_set():
        interrupted()
        return exit_status()
    print(line, file=sys.stderr)
    return 2


def _emit(text: str) -> str | None:
    """Write a finished command's output to standard output; the error line when that
    failed (a full disk), None otherwise (a reader that left, ``| head``, is no error)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader left: what it did not read is not an error of ours
        _silence_stdout()
    except OSError as exc:
        _silence_stdout()
        return f"equilibria: error: standard output: {exc.strerror or exc}"
    return None


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what
    could not be written does not fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 with an answer, 1 when the run
    ended without the answer asked for, 2 for bad input, 130 if interrupted, 143 if
    terminated, 129 if hung up)."""
    try:
        return _run(argv)
    except KeyboardInterrupt as exc:
        if WATCHING.is_set() and not SIGNALLED.is_set():
            # no Ctrl-C was seen: the game's own code (a rules file) raised it
            print("equilibria: error: the game's code raised KeyboardInterrupt", file=sys.stderr)
            return 2
        interrupted(exc.args[0] if exc.args and isinstance(exc.args[0], str) else None)
        return exit_status()


__all__ = ["build_parser", "main", "one_line"]
