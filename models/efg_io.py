"""Gambit's ``.efg`` text format (version 2), read and written.

Chance probabilities may be decimals or fractions; they are kept exactly (as integer
numerator/denominator arrays) so a file written back holds the same numbers. Payoffs are
floats. A malformed file raises FileFormatError naming the file and line.
"""

from __future__ import annotations

import bisect
import codecs
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from .efg import CHANCE, TERMINAL, ExtensiveGame
from .errors import FileFormatError, GameError
from .output import write_text

_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<brace>[{}])|(?P<comma>,)|(?P<word>[^\s{}",]+))')


def _shown(text: str, limit: int = 24) -> str:
    """``text`` as it may appear in a one-line message: cut short, with line breaks and
    other control characters escaped."""
    cut = text[:limit]
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)


#: Decimal exponents beyond this are refused before Fraction computes 10**exponent.
_MAX_EXPONENT = 400
_EXPONENT = re.compile(r"[eE]([+-]?\d+)$")


_ONE = Fraction(1)
_UNESCAPE = re.compile(r"\\(.)")
#: A payoff written as a plain decimal, read as a float directly (Fraction is 20 times slower).
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d{1,30}\.?\d{0,30}|\.\d{1,30})(?:[eE][+-]?\d{1,3})?")


class _Tokens:
    """The tokens of a .efg text: (kind, value, offset of the token in the text). Line
    numbers are computed from the offsets only when a message or a node needs one."""

    def __init__(self, text: str, source: str):
        self.source = source
        self.items: list[tuple[str, str, int]] = []
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        append = self.items.append
        pos = 0
        for m in _TOKEN.finditer(text):
            if m.start() != pos:
                break  # something no token reads lies before this match
            kind = m.lastgroup or ""
            if kind != "comma":
                value = m.group(kind)
                if kind == "str":
                    value = value[1:-1]
                    if "\\" in value:
                        value = _UNESCAPE.sub(r"\1", value)
                append((kind, value, m.start(kind)))
            pos = m.end()
        rest = text[pos:]
        if rest.strip():
            at = pos + len(rest) - len(rest.lstrip())
            raise FileFormatError(f"{source}, line {self.line_at(at)}: cannot read '{_shown(rest.strip(), 20)}'")
        self.i = 0

    def line_at(self, offset: int) -> int:
        """The line (from 1) of a character offset in the text."""
        return bisect.bisect_right(self._newlines, offset - 1) + 1

    def offset(self) -> int:
        """The offset of the next token (of the last one at the end of the text)."""
        if self.i < len(self.items):
            return self.items[self.i][2]
        return self.items[-1][2] if self.items else 0

    def line(self) -> int:
        return self.line_at(self.offset())

    def error(self, message: str) -> FileFormatError:
        return FileFormatError(f"{self.source}, line {self.line()}: {message}")

    def peek(self) -> tuple:
        return self.items[self.i] if self.i < len(self.items) else (None, None, self.offset())

    def next(self, kind: str | None = None, what: str = "token") -> Any:
        if self.i >= len(self.items):
            raise self.error(f"file ends where a {what} was expected")
        tok = self.items[self.i]
        if kind is not None and tok[0] != kind:
            raise self.error(f"expected {what}, found '{_shown(tok[1])}'")
        self.i += 1
        return tok[1]

    def string(self, what: str) -> str:
        return self.next("str", what)

    def integer(self, what: str) -> int:
        word = self.next("word", what)
        value = _whole(word)
        if value is None:
            self.i -= 1
            raise self.error(f"expected {what} (a whole number from 0 to 2147483647), found '{_shown(word)}'")
        return value

    def payoff(self) -> float:
        """A payoff as a float (see :func:`_payoff`)."""
        if self.i < len(self.items):
            kind, word, _ = self.items[self.i]
            value = _payoff(word) if kind == "word" else None
            if value is not None:
                self.i += 1
                return value
        return float(self.number("payoff"))  # says what is wrong

    def number(self, what: str) -> Fraction:
        word = self.next("word", what)
        value, fault = _exact(word)
        if value is None:
            self.i -= 1
            shown = _shown(word)
            if fault == "range":
                raise self.error(f"{what} '{shown}' is outside the range of numbers computed with")
            if fault == "number":
                raise self.error(f"expected {what} (a number), found '{shown}'")
            raise self.error(f"{what} '{shown}' is too large to compute with")
        return value

    def string_list(self, what: str) -> list[str]:
        self.next("brace", "'{'")
        out = []
        while self.peek()[0] == "str":
            out.append(self.next())
        self._close(what)
        return out

    def _close(self, what: str) -> None:
        kind, value, _ = self.peek()
        if kind != "brace" or value != "}":
            raise self.error(f"expected '}}' closing the {what}, found '{_shown(str(value))}'")
        self.next()


def _attach(stack: list[list[int]], parent: list[int], action: list[int]) -> int:
    """Add the next node of a prefix listing below the node on top of ``stack`` (the
    nodes still waiting for children, each as [node, children so far, actions]); its
    index."""
    if stack:
        top = stack[-1]
        parent.append(top[0])
        action.append(top[1])
        top[1] += 1
    else:
        parent.append(-1)
        action.append(-1)
    return len(parent) - 1


def _whole(word: str) -> int | None:
    """``word`` as a whole number from 0 to 2**31 - 1, or None."""
    try:
        value = int(word) if len(word) <= 20 else None
    except ValueError:
        return None
    return value if value is not None and 0 <= value < 2**31 else None


def _exact(word: str) -> tuple[Fraction | None, str]:
    """``word`` as an exact number, or None and why not: ``range`` (an exponent beyond
    those computed with), ``number`` (not a number) or ``large`` (too large)."""
    exponent = _EXPONENT.search(word)
    if exponent and (len(exponent.group(1)) > 5 or abs(int(exponent.group(1))) > _MAX_EXPONENT):
        return None, "range"
    if len(word) > 400:  # longer digit strings are refused before Fraction works on them
        return None, "large"
    try:
        value = Fraction(word)
    except (ValueError, ZeroDivisionError):
        return None, "number"
    try:
        if abs(float(value)) < 1e300:
            return value, ""
    except OverflowError:
        pass
    return None, "large"


def _payoff(word: str) -> float | None:
    """``word`` as a payoff, or None: plain decimals directly, anything else exactly first."""
    if _PLAIN_NUMBER.fullmatch(word):
        value = float(word)
        if abs(value) < 1e300:
            return value
    exact, _ = _exact(word)
    return None if exact is None else float(exact)


def read_efg(path: str | Path) -> ExtensiveGame:
    """Read a Gambit ``.efg`` file; see :func:`parse_efg`."""
    if not isinstance(path, (str, os.PathLike)):
        raise FileFormatError(f"read_efg takes a path to a .efg file, not {type(path).__name__}")
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FileFormatError(f"{path}: {exc.strerror}") from None
    return parse_efg(decode_text(data, str(path)), source=str(path))


def decode_text(data: bytes, source: str = "<bytes>") -> str:
    """The text of a game file in any encoding Gambit reads: UTF-8 (with or without a
    byte-order mark), UTF-16 with a byte-order mark, or any 8-bit text (read as Latin-1,
    which maps every byte to a character, as Gambit's byte-wise reader does). Raises
    FileFormatError for data with NUL bytes that is not UTF-16."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise FileFormatError(f"{source}: broken UTF-16 text") from None
    if b"\x00" in data:
        raise FileFormatError(f"{source}: not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def parse_efg(text: str, source: str = "<string>") -> ExtensiveGame:
    """Parse ``.efg`` text into a validated :class:`ExtensiveGame`.

    Nodes are listed in prefix (depth-first) order; information sets and outcomes are
    numbered per player from 1, and their names, actions and payoffs may be omitted after
    their first appearance, as Gambit allows.
    """
    text = text.removeprefix("\ufeff")
    parsed = _read_plain(text)
    if parsed is None:  # not in the plain layout, or wrong: the token reader says where
        parsed = _read_tokens(text, source)
    return _assemble(parsed, text, source)


@dataclass
class _Parsed:
    """What a reader takes from a .efg text: per node in file (prefix) order, per
    information set in order of first appearance (chance ones included), per outcome."""

    title: str
    players: list[str]
    comment: str
    parent: list[int]
    kind: list[int]
    infoset: list[int]
    action: list[int]
    prob: list[float]
    outcome: list[int]
    node_label: list[str]
    chance_label: list[str]
    prob_text: list[str]
    node_offset: list[int]
    infoset_player: list[int]
    infoset_actions: list[list[str]]
    infoset_names: list[str]
    infoset_numbers: list[int]
    outcome_payoffs: list[list[float]]
    outcome_names: list[str]


def _read_tokens(text: str, source: str) -> _Parsed:
    """Read a .efg text token by token, raising FileFormatError at the first fault."""
    tk = _Tokens(text, source)
    if tk.next("word", "'EFG'") != "EFG":
        tk.i -= 1
        raise tk.error("a .efg file starts with 'EFG 2 R'")
    if tk.next("word", "version") != "2":
        tk.i -= 1
        raise tk.error("only version 2 of the .efg format is supported")
    if tk.next("word", "'R'") not in ("R", "D"):
        tk.i -= 1
        raise tk.error("expected 'R' after the version")
    title = tk.string("title")
    players = tk.string_list("player list")
    if not players:
        raise tk.error("a game needs at least one player")
    comment = ""
    if tk.peek()[0] == "str":
        comment = tk.next()
    P = len(players)

    parent: list[int] = []
    kind: list[int] = []
    infoset: list[int] = []
    action: list[int] = []
    prob: list[float] = []
    outcome: list[int] = []
    node_label: list[str] = []
    chance_label: list[str] = []
    prob_exact: list[Fraction] = []
    prob_text: list[str] = []
    node_offset: list[int] = []
    infosets: dict[tuple[int, int], int] = {}  # (player or -1, number) -> global index
    infoset_player: list[int] = []
    infoset_actions: list[list[str]] = []
    infoset_names: list[str] = []
    infoset_probs: list[list] = []
    infoset_numbers: list[int] = []
    outcomes: dict[int, int] = {}
    outcome_payoffs: list[list[float]] = []
    outcome_names: list[str] = []
    # stack of (parent node, next action index, number of actions)
    stack: list[list[int]] = []

    def read_outcome(number: int) -> int:
        if number == 0:
            return -1
        at = tk.offset()
        if tk.peek()[0] == "str":
            name = tk.next()
            tk.next("brace", "'{' before the payoffs")
            pay = []
            while tk.peek()[0] == "word":
                pay.append(tk.payoff())
            tk._close("payoff list")
            if len(pay) != P:
                raise FileFormatError(
                    f"{source}, line {tk.line_at(at)}: outcome {number} has {len(pay)} payoffs for {P} players"
                )
            if number in outcomes:
                idx = outcomes[number]
                if outcome_payoffs[idx] != pay:
                    raise FileFormatError(
                        f"{source}, line {tk.line_at(at)}: outcome {number} is given two different payoff lists"
                    )
                return idx
            outcomes[number] = len(outcome_payoffs)
            outcome_payoffs.append(pay)
            outcome_names.append(name)
            return outcomes[number]
        if number not in outcomes:
            raise FileFormatError(
                f"{source}, line {tk.line_at(at)}: outcome {number} is used before its payoffs are given"
            )
        return outcomes[number]

    while tk.peek()[0] is not None:
        at = tk.offset()
        if stack and not stack[-1]:
            stack.pop()
        if not stack and parent:
            raise tk.error("node after the tree is complete")
        code = tk.next("word", "node type 'c', 'p' or 't'")
        if code not in ("c", "p", "t"):
            tk.i -= 1
            raise tk.error(f"expected node type 'c', 'p' or 't', found '{_shown(code)}'")
        me = _attach(stack, parent, action)
        node_offset.append(at)
        label = tk.string("node name")
        node_label.append(label)
        prob.append(1.0)
        prob_exact.append(_ONE)
        prob_text.append("")
        chance_label.append("")
        if code == "t":
            kind.append(TERMINAL)
            infoset.append(-1)
            number = tk.integer("outcome number")
            outcome.append(read_outcome(number))
            nact = 0
        else:
            player = -1 if code == "c" else tk.integer("player number")
            if code == "p" and not 1 <= player <= P:
                raise FileFormatError(
                    f"{source}, line {tk.line_at(at)}: player {player} does not exist (players 1..{P})"
                )
            pl = CHANCE if code == "c" else player - 1
            number = tk.integer("information set number")
            key = (pl, number)
            name = tk.string("information set name") if tk.peek()[0] == "str" else None
            acts, probs = None, None
            if tk.peek()[0] == "brace" and tk.peek()[1] == "{":
                tk.next()
                acts, probs = [], []
                while tk.peek()[0] == "str":
                    acts.append(tk.next())
                    if code == "c":
                        probs.append((tk.number("chance probability"), tk.items[tk.i - 1][1]))
                tk._close("action list")
            if key not in infosets:
                if acts is None:
                    raise FileFormatError(
                        f"{source}, line {tk.line_at(at)}: information set {number} is used "
                        "before its actions are listed"
                    )
                infosets[key] = len(infoset_player)
                infoset_player.append(pl)
                infoset_actions.append(acts)
                infoset_names.append(name or "")
                infoset_probs.append(probs)
                infoset_numbers.append(number)
            k = infosets[key]
            if acts is not None and acts != infoset_actions[k]:
                raise FileFormatError(
                    f"{source}, line {tk.line_at(at)}: information set {number} of "
                    f"{'chance' if pl == CHANCE else 'player ' + str(player)} lists actions {acts}, "
                    f"but {infoset_actions[k]} earlier"
                )
            if probs is not None and [p for p, _ in probs] != [p for p, _ in infoset_probs[k]]:
                raise FileFormatError(
                    f"{source}, line {tk.line_at(at)}: chance information set {number} has two "
                    "different probability lists"
                )
            kind.append(pl)
            infoset.append(k)
            outcome.append(read_outcome(tk.integer("outcome number")))
            nact = len(infoset_actions[k])
            if nact == 0:
                raise FileFormatError(
                    f"{source}, line {tk.line_at(at)}: a {'chance' if pl == CHANCE else 'decision'} node "
                    "needs at least one action"
                )
        # record chance probabilities on the children when they are created
        if parent[me] >= 0 and kind[parent[me]] == CHANCE:
            k = infoset[parent[me]]
            a = action[me]
            prob_exact[me], prob_text[me] = infoset_probs[k][a]
            prob[me] = float(prob_exact[me])
            chance_label[me] = infoset_actions[k][a]
        if nact:
            stack.append([me, 0, nact])
        while stack and stack[-1][1] == stack[-1][2]:
            stack.pop()
    if stack or not parent:
        raise FileFormatError(f"{source}, line {tk.line()}: file ends before the tree is complete")

    return _Parsed(
        title, players, comment, parent, kind, infoset, action, prob, outcome, node_label, chance_label,
        prob_text, node_offset, infoset_player, infoset_actions, infoset_names, infoset_numbers,
        outcome_payoffs, outcome_names,
    )  # fmt: skip


def _depths(parent: np.ndarray) -> np.ndarray:
    """Depth of every node of a tree whose root is node 0, by pointer jumping (a pass per
    doubling of the depth)."""
    pointer = np.maximum(parent, 0)
    depth = (parent >= 0).astype(np.int64)
    while np.any(pointer):
        depth, pointer = depth + depth[pointer], pointer[pointer]
    return depth


def _assemble(r: _Parsed, text: str, source: str) -> ExtensiveGame:
    """The validated game of what a reader took from ``text``; a GameError names the line
    of the node it is about."""
    P = len(r.players)
    # Nodes come in prefix order; within a depth that is breadth-first order, so a stable
    # sort by depth gives the game its breadth-first order without a sweep per level
    # (which a chain a million nodes deep would make a million numpy calls).
    parent = np.array(r.parent, dtype=np.int64)
    order = np.argsort(_depths(parent), kind="stable")
    position = np.empty_like(order)
    position[order] = np.arange(order.shape[0])
    parent = np.where(parent[order] >= 0, position[np.maximum(parent[order], 0)], -1)
    kind_arr = np.array(r.kind, dtype=np.int32)[order]
    node_offset = np.array(r.node_offset, dtype=np.int64)[order]
    # chance information sets become per-node data; decision ones are renumbered
    decision_infosets = [k for k in range(len(r.infoset_player)) if r.infoset_player[k] != CHANCE]
    renumber = np.full(len(r.infoset_player) + 1, -1, dtype=np.int64)
    renumber[decision_infosets] = np.arange(len(decision_infosets))
    inf = np.array(r.infoset, dtype=np.int64)[order]
    inf = np.where(kind_arr >= 0, renumber[inf], -1)
    actions_flat = [a for k in decision_infosets for a in r.infoset_actions[k]]
    try:
        game = ExtensiveGame.from_arrays(
            parent=parent,
            player=kind_arr,
            infoset=inf,
            action=np.array(r.action, dtype=np.int64)[order],
            chance_prob=np.array(r.prob, dtype=np.float64)[order],
            outcome=np.array(r.outcome, dtype=np.int64)[order],
            outcome_payoffs=np.array(r.outcome_payoffs, dtype=np.float64).reshape(-1, P),
            infoset_player=np.array([r.infoset_player[k] for k in decision_infosets], dtype=np.int32),
            infoset_num_actions=np.array([len(r.infoset_actions[k]) for k in decision_infosets], dtype=np.int32),
            player_names=r.players,
            infoset_labels=np.array([r.infoset_names[k] for k in decision_infosets], dtype=str),
            action_labels=np.array(actions_flat, dtype=str),
            node_labels=np.array(r.node_label, dtype=str)[order],
            chance_labels=np.array(r.chance_label, dtype=str)[order],
            outcome_labels=np.array(r.outcome_names, dtype=str),
            chance_text=np.array(r.prob_text, dtype=str)[order],
            title=r.title,
        )
    except GameError as exc:
        # point at the line of the node the message names
        m = re.search(r"node (\d+)", str(exc))
        where = ""
        if m:
            # node numbers in messages are breadth-first, the order of the arrays given
            idx = int(m.group(1))
            if idx < node_offset.shape[0]:
                where = f", line {text.count(chr(10), 0, int(node_offset[idx])) + 1}"
        raise GameError(f"{source}{where}: {exc}") from None
    game.comment = r.comment
    game.infoset_numbers = np.array([r.infoset_numbers[k] for k in decision_infosets], dtype=np.int64)
    return game


def _quote(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _format_fraction(num: int, den: int) -> str:
    if den == 1:
        return str(num)
    d = den
    for f in (2, 5):
        while d % f == 0:
            d //= f
    if d == 1:  # a terminating decimal: write it exactly
        text = format(Decimal(num) / Decimal(den), "f")
        return text
    return f"{num}/{den}"


def _simplest_text(x: float) -> str:
    """The shortest fraction or decimal whose float is exactly ``x`` (1/3 for 1/3.0)."""
    f = Fraction(x).limit_denominator(10**9)
    if float(f) == x:
        return _format_fraction(f.numerator, f.denominator)
    return repr(x)


def _format_payoff(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def preorder(game: ExtensiveGame) -> np.ndarray:
    """Node indices in prefix (depth-first) order, computed level by level."""
    n = game.num_nodes
    size = np.ones(n, dtype=np.int64)
    for start, stop in reversed(list(game.levels())[1:]):
        np.add.at(size, game.parent[start:stop], size[start:stop])
    pos = np.zeros(n, dtype=np.int64)
    for start, stop in list(game.levels())[1:]:
        par = game.parent[start:stop]
        # offset of each child = parent position + 1 + sizes of earlier siblings
        before = np.cumsum(size[start:stop]) - size[start:stop]
        group_first = game.first_child[par]
        before -= (np.cumsum(size[start:stop]) - size[start:stop])[group_first - start]
        pos[start:stop] = pos[par] + 1 + before
    order = np.empty(n, dtype=np.int64)
    order[pos] = np.arange(n)
    return order


def write_efg(game: ExtensiveGame, path: str | Path | None = None) -> str:
    """Write ``game`` in ``.efg`` format; returns the text and saves it when ``path`` is given.

    Labels missing in the game are made up so that every player's information sets and
    every outcome have distinct names, which Gambit requires.
    """
    if not isinstance(game, ExtensiveGame):
        raise GameError(f"write_efg writes an ExtensiveGame (equilibria.load(...)), not {type(game).__name__}")
    lines = [f"EFG 2 R {_quote(game.title)} {{ {' '.join(_quote(p) for p in game.player_names)} }}"]
    lines.append(_quote(getattr(game, "comment", "")))
    lines.append("")
    local, _ = game.local_infoset_numbering()
    numbers = getattr(game, "infoset_numbers", None)
    if numbers is None or len(numbers) != game.num_infosets:
        numbers = local + 1
    labels = game.infoset_labels
    names = [
        (str(labels[k]) if labels is not None and str(labels[k]) else f"I{game.infoset_player[k] + 1}.{numbers[k]}")
        for k in range(game.num_infosets)
    ]
    # outcome per terminal/inner node, numbered from 1 in order of use
    seen_infoset = np.zeros(game.num_infosets, dtype=bool)
    outcome_seen: dict[int, int] = {}
    out_labels = game.outcome_labels
    chance_texts = game.chance_text
    chance_number = 0
    # Gambit wants every non-empty node label once: a repeated one (the rules language
    # names chance nodes by what they deal) gets its occurrence number
    label_uses: dict[str, int] = {}
    for node in preorder(game):
        node = int(node)
        kind = int(game.player[node])
        text = str(game.node_labels[node]) if game.node_labels is not None else ""
        if text:
            label_uses[text] = label_uses.get(text, 0) + 1
            if label_uses[text] > 1:
                text = f"{text} #{label_uses[text]}"
        label = _quote(text)
        o = int(game.outcome[node])
        if o >= 0:
            if o not in outcome_seen:
                outcome_seen[o] = len(outcome_seen) + 1
                name = str(out_labels[o]) if out_labels is not None and o < len(out_labels) else ""
                if not name:
                    name = f"o{outcome_seen[o]}"
                pays = ", ".join(_format_payoff(x) for x in game.outcome_payoffs[o])
                otext = f"{outcome_seen[o]} {_quote(name)} {{ {pays} }}"
            else:
                otext = str(outcome_seen[o])
        else:
            otext = "0"
        if kind == TERMINAL:
            if o < 0:
                # Gambit terminals may lack an outcome: payoff zero
                lines.append(f"t {label} 0")
            else:
                lines.append(f"t {label} {otext}")
            continue
        first = int(game.first_child[node])
        kids = range(first, first + int(game.num_children[node]))
        if kind == CHANCE:
            chance_number += 1
            parts = []
            for c in kids:
                if chance_texts is not None and str(chance_texts[c]):
                    p = str(chance_texts[c])
                else:
                    p = _simplest_text(float(game.chance_prob[c]))
                parts.append(f"{_quote(game.edge_label(c))} {p}")
            lines.append(f"c {label} {chance_number} {_quote(f'c{chance_number}')} {{ {' '.join(parts)} }} {otext}")
        else:
            k = int(game.infoset[node])
            head = f"p {label} {kind + 1} {int(numbers[k])}"
            if not seen_infoset[k]:
                seen_infoset[k] = True
                acts = " ".join(_quote(game.action_label(k, a)) for a in range(int(game.infoset_num_actions[k])))
                head += f" {_quote(names[k])} {{ {acts} }}"
            lines.append(f"{head} {otext}")
    text = "\n".join(lines) + "\n"
    if path is not None:
        write_text(path, text)
    return text


# The plain layout: one node to a line, as Gambit and write_efg lay a file out. Its nodes
# are read by one match each; the token reader reads every other text (and says what is
# wrong with a bad one). Separators are what the tokenizer skips: white space and commas.
_SEP = r"[\s,]*"
_ENDS = r'(?![^\s{}",])'  # a word ends here
_STR = r'"((?:[^"\\]|\\.)*+)"'
_WORD = r'([^\s{}",]++)'
_QUOTED = r'"(?:[^"\\]|\\.)*+"'
_STRINGS = r"((?:" + _SEP + _QUOTED + r")*+)" + _SEP
_PAIRS = r"((?:" + _SEP + _QUOTED + _SEP + r'[^\s{}",]++)*+)' + _SEP
_WORDS = r"((?:" + _SEP + r'[^\s{}",]++)*+)' + _SEP
_OUTCOME = _SEP + _WORD + r"(?:" + _SEP + _STR + _SEP + r"\{" + _WORDS + r"\})?"
_INFOSET_NAME = r"(?:" + _SEP + _STR + r")?"
_PLAIN_HEADER = re.compile(
    _SEP + "EFG" + _ENDS + _SEP + "2" + _ENDS + _SEP + "[RD]" + _ENDS + _SEP + _STR + _SEP + r"\{" + _STRINGS + r"\}"
    r"(?:" + _SEP + _STR + r")?" + _SEP
)
_PLAIN_NODE = {
    "p": re.compile(
        "p" + _ENDS + _SEP + _STR + _SEP + _WORD + _SEP + _WORD + _INFOSET_NAME + r"(?:" + _SEP + r"\{" + _STRINGS
        + r"\})?" + _OUTCOME + _SEP
    ),
    "c": re.compile(
        "c" + _ENDS + _SEP + _STR + _SEP + _WORD + _INFOSET_NAME + r"(?:" + _SEP + r"\{" + _PAIRS + r"\})?" + _OUTCOME
        + _SEP
    ),
    "t": re.compile("t" + _ENDS + _SEP + _STR + _OUTCOME + _SEP),
}  # fmt: skip
_ALL_QUOTED = re.compile(_STR)
_ALL_PAIRS = re.compile(_SEP + _STR + _SEP + _WORD)
_ALL_WORDS = re.compile(_WORD)


def _text(value: str) -> str:
    return _UNESCAPE.sub(r"\1", value) if "\\" in value else value


def _read_plain(text: str) -> _Parsed | None:
    """Read a .efg text in the plain layout, a node a match; None for any other text and
    for any text the token reader would refuse, which then reads it again and says why.
    What it returns is what the token reader returns for the same text."""
    head = _PLAIN_HEADER.match(text)
    if head is None:
        return None
    players = [_text(v) for v in _ALL_QUOTED.findall(head.group(2))]
    if not players:
        return None
    P = len(players)
    r = _Parsed(_text(head.group(1)), players, _text(head.group(3) or ""), *([] for _ in range(16)))
    parent, kind, infoset, action, prob = r.parent, r.kind, r.infoset, r.action, r.prob
    outcome, node_label, chance_label, prob_text, node_offset = (
        r.outcome, r.node_label, r.chance_label, r.prob_text, r.node_offset,
    )  # fmt: skip
    outcome_payoffs = r.outcome_payoffs
    infosets: dict[tuple[int, int], int] = {}
    infoset_probs: list[list[tuple[Fraction, str]] | None] = []
    outcomes: dict[int, int] = {}
    stack: list[list[int]] = []
    nodes, n_text = _PLAIN_NODE, len(text)

    def read_outcome(number_word: str, name: str | None, payoffs: str | None) -> int | None:
        number = int(number_word) if number_word.isdecimal() and len(number_word) < 10 else _whole(number_word)
        if number is None:
            return None
        if number == 0:
            return -1 if name is None else None
        if name is None:
            return outcomes.get(number)
        assert payoffs is not None
        pay = [_payoff(w) for w in _ALL_WORDS.findall(payoffs)]
        if len(pay) != P or None in pay:
            return None
        idx = outcomes.get(number)
        if idx is not None:
            return idx if outcome_payoffs[idx] == pay else None
        idx = outcomes[number] = len(outcome_payoffs)
        outcome_payoffs.append(pay)  # type: ignore[arg-type]
        r.outcome_names.append(_text(name))
        return idx

    pos = head.end()
    while pos < n_text:
        if not stack and parent:
            return None  # a node after the tree is complete
        code = text[pos]
        pattern = nodes.get(code)
        m = pattern.match(text, pos) if pattern is not None else None
        if m is None:
            return None
        groups = m.groups()
        me = _attach(stack, parent, action)
        node_offset.append(pos)
        label = groups[0]
        node_label.append(_text(label) if "\\" in label else label)
        nact = 0
        if code == "t":
            kind.append(TERMINAL)
            infoset.append(-1)
            out = read_outcome(groups[1], groups[2], groups[3])
        else:
            if code == "p":
                player, number = _whole(groups[1]), _whole(groups[2])
                if player is None or number is None or not 1 <= player <= P:
                    return None
                pl, name, listed, rest = player - 1, groups[3], groups[4], 5
                acts = None if listed is None else [_text(v) for v in _ALL_QUOTED.findall(listed)]
                probs = None
            else:
                number = _whole(groups[1])
                if number is None:
                    return None
                pl, name, listed, rest = CHANCE, groups[2], groups[3], 4
                acts, probs = None, None
                if listed is not None:
                    acts, probs = [], []
                    for quoted, word in _ALL_PAIRS.findall(listed):
                        exact, _ = _exact(word)
                        if exact is None:
                            return None
                        acts.append(_text(quoted))
                        probs.append((exact, word))
            k = infosets.get((pl, number))
            if k is None:
                if acts is None:
                    return None  # used before its actions are listed
                k = infosets[(pl, number)] = len(r.infoset_player)
                r.infoset_player.append(pl)
                r.infoset_actions.append(acts)
                r.infoset_names.append(_text(name) if name is not None else "")
                infoset_probs.append(probs)
                r.infoset_numbers.append(number)
            elif acts is not None and acts != r.infoset_actions[k]:
                return None
            if probs is not None:
                known = infoset_probs[k]
                if known is None or [p for p, _ in probs] != [p for p, _ in known]:
                    return None
            kind.append(pl)
            infoset.append(k)
            out = read_outcome(groups[rest], groups[rest + 1], groups[rest + 2])
            nact = len(r.infoset_actions[k])
            if nact == 0:
                return None
        if out is None:
            return None
        outcome.append(out)
        up = parent[me]
        if up >= 0 and kind[up] == CHANCE:
            exact, text_of = infoset_probs[infoset[up]][action[me]]  # type: ignore[index]
            prob.append(float(exact))
            prob_text.append(text_of)
            chance_label.append(r.infoset_actions[infoset[up]][action[me]])
        else:
            prob.append(1.0)
            prob_text.append("")
            chance_label.append("")
        if nact:
            stack.append([me, 0, nact])
        else:
            while stack and stack[-1][1] == stack[-1][2]:
                stack.pop()
        pos = m.end()
    if stack or not parent:
        return None
    return r
