"""Helpers every command shares: argument types, help texts, one-line messages, the printed certificate."""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn


def load_game(spec: str) -> tuple[Any, float]:
    from ...instances import load

    t0 = time.perf_counter()
    game = load(spec)
    return game, time.perf_counter() - t0


def write_strategies(answer: Any, path: str) -> None:
    """The answer's strategy table as CSV, all or nothing (see models.output)."""
    from ...models.output import atomic_output

    table = answer.strategy_table()
    with atomic_output(path) as tmp:
        table.to_csv(tmp, index=False)


def check_strategy_target(args: argparse.Namespace) -> None:
    """``--strategy-out`` refused before the work when it cannot be written."""
    if args.strategy_out:
        from ...models.output import check_target

        check_target(args.strategy_out)


#: The report of a command whose file goes to standard output, held until that output has
#: been written (it then goes to standard error): "wrote -" is not said of a file that a
#: full disk or a closed pipe kept from being written.
HELD_REPORT = io.StringIO()


def report_stream(target: str | None) -> Any:
    """Where a command prints its report: standard error (once standard output has been
    written, :data:`HELD_REPORT`) when its file goes to standard output (``-o -``,
    ``--strategy-out /dev/stdout``), which then holds the file alone."""
    from ...models.output import STDOUT_NAMES

    return HELD_REPORT if target in STDOUT_NAMES else sys.stdout


def print_answer(answer: Any, args: argparse.Namespace) -> None:
    """Write ``--strategy-out``, then print the answer: its JSON with ``--json``, else the
    lines it renders and where the strategies went."""
    if args.strategy_out:
        write_strategies(answer, args.strategy_out)
    report = report_stream(args.strategy_out)
    if args.json:
        print(answer.to_json(), file=report)
        return
    for line in [*answer.report_lines(), *answer.notes]:
        print(line, file=report)
    if args.strategy_out:
        print(f"strategies      written to {args.strategy_out}", file=report)


#: What ends a line for str.splitlines, or moves a terminal's cursor to another line.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def one_line(text: str) -> str:
    """``text`` with every line break shown as an escape (a file name or option value the
    user gave may hold one): an error message stays one line."""
    return text.translate({ord(c): repr(c)[1:-1] for c in LINE_BREAKS})


def fixed(value: float, digits: int) -> str:
    """:func:`equilibria.models.wording.fixed`, imported when first printed (parsing the
    command line imports no numerical code)."""
    from ...models.wording import fixed as wording_fixed

    return wording_fixed(value, digits)


def plural(count: int, noun: str) -> str:
    """:func:`equilibria.models.wording.plural`, imported when first printed."""
    from ...models.wording import plural as wording_plural

    return wording_plural(count, noun)


def usage_error(message: str) -> Exception:
    from ...models.errors import EquilibriaError

    return EquilibriaError(message)


GAME_HELP = (
    "a game: a registered name with parameters (kuhn, leduc:ranks=4; see 'equilibria games'), "
    "a Gambit .efg file, a rules file PATH.py[:key=value,...] (Python, run with your rights: "
    "read one from others first), or openspiel:GAME"
)


RULE_HELP = (
    "GameShrink's merge rule: lossless (default; matched opponent cards in one opponent class) or "
    "published (the paper's Algorithm 1 per player: merges more, not lossless) or none (no merging: the "
    "full game built from its signals)"
)


def check_program_target(path: str) -> None:
    """A ``--write`` target for a program, refused before the work: one that cannot be
    written, or whose name says neither MPS nor LP (``.mps``, ``.lp``, either ``.gz``)."""
    from ...models.output import check_target, content_suffix

    if content_suffix(path) not in (".mps", ".lp"):
        raise usage_error(f"--write {path}: name the program .mps or .lp (.mps.gz, .lp.gz compressed)")
    check_target(path)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        # every error line starts "equilibria: error:", the command named in the help hint
        print(f"equilibria: error: {one_line(message)} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


DOMINATED_HELP = (
    "remove dominated actions first (every payoff below the action worse than every payoff below another "
    "action of its information set, iterated); strategies are lifted back and certified"
)


def number_type(kind: str) -> Callable[[str], float | int]:
    """An argparse type: a finite float that is ``positive`` or ``nonnegative``, or a
    ``count`` (a whole number of at least 1), ``breakpoints`` (at least 2), checked by :mod:`equilibria.models.checks`
    as the Python API checks the same options."""

    def parse(text: str) -> float | int:
        from ...models import checks

        try:
            if kind in ("count", "breakpoints", "seed", "cells", "workers"):
                # digits only (int() would also take '+3', ' 3', '٣' and '1_0')
                whole = int(text) if text.isascii() and text.isdigit() else text
                if not isinstance(whole, int):
                    raise ValueError(text)
                minimum = {"breakpoints": 2, "seed": 0, "workers": 0}.get(kind, 1)
                maximum = {
                    "breakpoints": checks.MAX_BREAKPOINTS,
                    "cells": checks.MAX_CELLS,
                    "workers": checks.MAX_WORKERS,
                    "seed": 2**63 - 1,
                }.get(kind)
                return checks.count("the value", whole, minimum=minimum, maximum=maximum)
            value = float(text)
            return checks.number("the value", value, strict=kind == "positive", optional=False)
        except ValueError:
            what = "a whole number (digits only)" if kind not in ("positive", "nonnegative") else "a number"
            raise argparse.ArgumentTypeError(f"'{text:.40}' is not {what}") from None
        except checks.OptionError as exc:
            reason = str(exc).rsplit(", not ", 1)[0].removeprefix("the value ")
            raise argparse.ArgumentTypeError(f"'{text:.40}': {reason}") from None

    parse.__name__ = kind  # argparse names the type in its messages
    return parse


def text_type(value: str) -> str:
    """An argparse type: any text but the empty one (an empty file or model name is a
    mistake, not a request for the default)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty value")
    return value


def version_text() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("equilibria")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"
