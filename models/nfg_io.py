"""Gambit ``.nfg`` files (strategic-form games): read both of Gambit's layouts, write one.

A file starts ``NFG 1 R "title" { "player" ... }`` and then either

* the payoff layout: ``{ m_1 m_2 ... }`` (strategy counts), an optional comment string and
  one payoff per player for every cell of the table, player 1's strategy changing
  fastest; or
* the outcome layout: ``{ { "strategy" ... } ... }`` (strategy names per player), an
  optional comment, a list of outcomes ``{ "name" payoff, payoff, ... }`` and one outcome
  number per cell (1-based; 0 is the null outcome, all payoffs zero), cells ordered as
  above.

Payoffs may be integers, decimals or fractions (``3/4``). Errors name the line of the
file. :func:`write_nfg` writes the outcome layout (names kept), atomically.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np

from .errors import GameError
from .inputs import read_input_text
from .normal_form import NormalFormGame

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}])|(,)|([^\s{},"]+)', re.S)


class NfgError(GameError):
    """A ``.nfg`` file that cannot be read; the message names the line."""


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, line) with kind ``str``, ``{``, ``}`` or ``word``; commas dropped."""
    out = []
    pos = 0
    line = 1
    for m in _TOKEN.finditer(text):
        gap = text[pos : m.start()]
        if gap.strip():
            raise NfgError(f"line {line + gap.count(chr(10))}: unexpected text {gap.strip()[:20]!r}")
        line += gap.count("\n")
        quoted, brace, _comma, word = m.groups()
        if quoted is not None:
            out.append(("str", quoted.replace('\\"', '"').replace("\\\\", "\\"), line))
        elif brace is not None:
            out.append((brace, brace, line))
        elif word is not None:
            out.append(("word", word, line))
        line += m.group(0).count("\n")
        pos = m.end()
    if text[pos:].strip():
        raise NfgError(f"line {line}: unexpected text {text[pos:].strip()[:20]!r}")
    return out


class _Reader:
    def __init__(self, tokens: list[tuple[str, str, int]]):
        self.tokens, self.i = tokens, 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def line(self) -> int:
        tok = self.peek()
        return tok[2] if tok else (self.tokens[-1][2] if self.tokens else 1)

    def take(self, kind: str, what: str) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind:
            found = "the end of the file" if tok is None else repr(tok[1])
            raise NfgError(f"line {self.line()}: expected {what}, found {found}")
        self.i += 1
        return tok[1]

    def number(self, what: str) -> float:
        line = self.line()
        text = self.take("word", what)
        try:
            # a decimal reads as a float directly (Fraction('1e999999999') would build a
            # billion-digit integer first); only a ratio such as 1/3 goes through Fraction
            value = float(Fraction(text)) if "/" in text and len(text) <= 80 else float(text)
        except (ValueError, ZeroDivisionError):
            raise NfgError(f"line {line}: {what} should be a number, not {text[:40]!r}") from None
        except OverflowError:
            value = math.inf
        if math.isnan(value):
            raise NfgError(f"line {line}: {what} should be a number, not {text[:40]!r}")
        if math.isinf(value):
            raise NfgError(f"line {line}: {what} {text[:40]} is beyond what a float holds (about 1.8e308)")
        return value

    def strings(self, what: str) -> list[str]:
        self.take("{", f"'{{' opening the {what}")
        out = []
        while self.peek() is not None and self.peek()[0] == "str":  # type: ignore[index]
            out.append(self.take("str", what))
        self.take("}", f"'}}' closing the {what}")
        return out


def parse_nfg(text: str) -> NormalFormGame:
    """The game written in ``text`` (a ``.nfg`` file's contents)."""
    r = _Reader(_tokens(text))
    if r.take("word", "'NFG'") != "NFG":
        raise NfgError("line 1: a .nfg file starts with 'NFG 1 R'")
    version = r.take("word", "the version 1")
    if version != "1":
        raise NfgError(f"line {r.line()}: version {version} is not supported (only 1)")
    kind = r.take("word", "'R' or 'D'")
    if kind not in ("R", "D"):
        raise NfgError(f"line {r.line()}: expected 'R' or 'D' after the version, found {kind!r}")
    title = r.take("str", "the title string")
    players = r.strings("player names")
    if not players:
        raise NfgError(f"line {r.line()}: the game has no players")
    n = len(players)
    r.take("{", "'{' opening the strategies")
    names: list[list[str]] | None = None
    tok = r.peek()
    if tok is not None and tok[0] == "{":
        names = []
        for _ in range(n):
            names.append(r.strings("strategy names"))
        r.take("}", "'}' closing the strategy names")
        counts = [len(s) for s in names]
    else:
        counts = []
        for p in range(n):
            line = r.line()
            value = r.number(f"player {p + 1}'s number of strategies")
            if value == 0:
                raise NfgError(f"line {line}: player {p + 1} has no pure strategies")
            if value != int(value) or value < 1:
                raise NfgError(f"line {line}: player {p + 1} needs a whole positive number of strategies")
            counts.append(int(value))
        r.take("}", "'}' closing the strategy counts")
    for p, m in enumerate(counts):
        if m < 1:
            raise NfgError(f"player {p + 1} has no pure strategies")
    tok = r.peek()
    if tok is not None and tok[0] == "str":
        r.take("str", "the comment")
    cells = math.prod(counts)  # a Python int: counts of 2**32 do not wrap around
    # the file must list every cell (one number per player, or one outcome index): refuse
    # counts the rest of the file cannot fill before allocating their table
    needed = cells * n if names is None else cells
    left = sum(1 for kind, _, _ in r.tokens[r.i :] if kind == "word")
    if needed > left:
        last = r.tokens[-1][2] if r.tokens else 1
        raise NfgError(
            f"line {last}: the file ends after {left:,} of the {needed:,} numbers its strategy counts "
            f"({' x '.join(map(str, counts))} = {cells:,} cells) need"
        )
    flat = np.zeros((cells, n))  # player 1's strategy fastest
    if names is None:
        for c in range(cells):
            for p in range(n):
                flat[c, p] = r.number(f"a payoff (cell {c + 1}, player {p + 1})")
    else:
        outcomes: list[np.ndarray] = []
        r.take("{", "'{' opening the outcome list")
        while r.peek() is not None and r.peek()[0] == "{":  # type: ignore[index]
            r.take("{", "'{' opening an outcome")
            r.take("str", "the outcome's name")
            pays = [r.number(f"outcome {len(outcomes) + 1}'s payoff") for _ in range(n)]
            r.take("}", f"'}}' closing outcome {len(outcomes) + 1} ({n} payoffs)")
            outcomes.append(np.array(pays))
        r.take("}", "'}' closing the outcome list")
        for c in range(cells):
            line = r.line()
            index = r.number(f"the outcome of cell {c + 1}")
            if index != int(index) or not 0 <= index <= len(outcomes):
                raise NfgError(f"line {line}: cell {c + 1} names outcome {index:g}; there are {len(outcomes)}")
            if index:
                flat[c] = outcomes[int(index) - 1]
    if r.peek() is not None:
        raise NfgError(f"line {r.line()}: unexpected {r.peek()[1]!r} after the last cell")  # type: ignore[index]
    # cells run with player 1 fastest: Fortran order over the strategy axes
    table = np.stack([flat[:, p].reshape(counts, order="F") for p in range(n)])
    return NormalFormGame(table, player_names=players, strategy_names=names, title=title)


def read_nfg(path: str | Path) -> NormalFormGame:
    """Read a Gambit ``.nfg`` file; NfgError (a GameError) names the line at fault."""
    path = Path(path)
    text = read_input_text(path, "normal-form game file", NfgError)
    try:
        return parse_nfg(text)
    except NfgError as exc:
        raise NfgError(f"{path}: {exc}") from None


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


#: Cells formatted per piece of text: a large table is written piece by piece, never held
#: as one string.
CELLS_PER_PIECE = 1 << 16


def nfg_pieces(game: NormalFormGame) -> Iterator[str]:
    """The game in Gambit's outcome layout (one outcome per cell), as consecutive pieces of
    text, each formatting at most :data:`CELLS_PER_PIECE` cells."""
    n = game.num_players
    header = [f"NFG 1 R {_quote(game.title)} {{ {' '.join(_quote(p) for p in game.player_names)} }}"]
    header.append(
        "{ " + " ".join("{ " + " ".join(_quote(s) for s in names) + " }" for names in game.strategy_names) + " }"
    )
    header += ['""', "", "{"]
    yield "\n".join(header) + "\n"
    cells = math.prod(game.num_strategies)
    # cells with player 1's strategy fastest: Fortran order, one player's column at a time
    columns = [game.payoffs[p].reshape(-1, order="F") for p in range(n)]
    for lo in range(0, cells, CELLS_PER_PIECE):
        hi = min(lo + CELLS_PER_PIECE, cells)
        rows = zip(range(lo + 1, hi + 1), *(column[lo:hi] for column in columns))
        yield "".join(f'{{ "{c}" {", ".join(_number(x) for x in row)} }}\n' for c, *row in rows)
    yield "}\n"
    for lo in range(0, cells, CELLS_PER_PIECE):
        end = "\n" if lo + CELLS_PER_PIECE >= cells else " "
        yield " ".join(map(str, range(lo + 1, min(lo + CELLS_PER_PIECE, cells) + 1))) + end


def nfg_text(game: NormalFormGame) -> str:
    """The game in Gambit's outcome layout (one outcome per cell)."""
    return "".join(nfg_pieces(game))


def write_nfg(game: NormalFormGame, path: str | Path) -> None:
    """Write ``game`` to ``path`` as a ``.nfg`` file (whole or not at all), piece by piece."""
    from .output import atomic_output

    with atomic_output(str(path)) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        for piece in nfg_pieces(game):
            handle.write(piece)


__all__ = ["NfgError", "parse_nfg", "read_nfg", "nfg_pieces", "nfg_text", "write_nfg"]
