"""Games written as rules: a Python function explored over every choice into a game tree.

A rules file is a Python file that defines ``rules(g, **params)`` and, optionally,
``PLAYERS`` (a tuple of player names; two players by default) and ``TITLE``. Inside
``rules`` the object ``g`` offers the primitives of Gala (Koller and Pfeffer,
"Generating and solving imperfect information games", 1995):

``g.chance(options, probs=None, label="", names=None)``
    the option nature picks (uniform unless ``probs`` is given; fractions such as
    ``Fraction(1, 3)`` or ``"1/3"`` stay exact in ``.efg`` files). Nobody sees it unless
    it is revealed. ``names`` (a dict or a function of the option) gives each option the
    text that labels it in the tree, in ``.efg`` files and in ``play`` (default: the
    option itself, a tuple's items separated by spaces).
``g.choose(player, options, secret=False)``
    the option ``player`` (a name from ``PLAYERS`` or a 0-based index) picks. Every other
    player sees the choice unless ``secret=True``; the chooser always remembers it.
``g.reveal(players, fact)``
    adds a hashable ``fact`` to the information of ``players`` (one player or several;
    ``g.everyone`` names all).
``g.outcome(payoffs)``
    ends the play with one payoff per player (any sum).

A player's information at a decision is, as Gala defines it, the facts revealed to the
player so far, the player's own earlier choices (both in the order they happened) and
the options now offered: two decisions with the same information form one information
set. Recall must be perfect (a player who forgets what was offered earlier is reported,
with the line).

The interpreter calls ``rules`` once per terminal of the tree, replaying the choices of
the path so far and taking the next untried option at the deepest node that has one;
nodes, information sets and payoffs go into flat arrays and come out as an
:class:`~equilibria.models.efg.ExtensiveGame`. The rules must therefore be deterministic
given the choices (no ``random``, no state kept between calls).
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import math
import sys
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .efg import CHANCE, TERMINAL, ExtensiveGame
from .errors import GameError

#: A play making more moves than this is reported as a play that never ends.
DEFAULT_MAX_MOVES = 10_000

#: Seconds rules code may run without a move (a call of ``g``'s primitives) before it is
#: stopped as an endless loop: the move limit counts moves, so a loop that makes none, or
#: a file whose top level never returns, ran for ever.
NO_MOVE_SECONDS = 30.0

#: Random plays :func:`estimate_nodes` walks (at most, within :data:`PROBE_SECONDS`).
PROBES = 64
PROBE_SECONDS = 2.0

_FACT = -1  # the "who" of an observation that is a revealed fact
_EXACT = (Fraction, int)


class RulesError(GameError):
    """The rules are malformed; the message names the rules file and line."""


class TreeTooLarge(RulesError):
    """The rules' tree grows beyond the nodes allowed (what the machine's memory holds)."""


class _NoMove(BaseException):
    """Raised inside rules code that has run :data:`NO_MOVE_SECONDS` without a move."""


def _endless(path: Path, exc: BaseException) -> RulesError:
    return RulesError(
        f"{path}:{_line_in(path, exc.__traceback__)}: the rules ran {NO_MOVE_SECONDS:g} s without a move "
        "(no call of g.chance, g.choose, g.reveal or g.outcome: an endless loop?)"
    )


@contextlib.contextmanager
def _watchdog(progress: Callable[[], Any], seconds: float | None = None) -> Iterator[None]:
    """Raise :class:`_NoMove` in this thread once ``progress()`` has returned the same value
    for ``seconds`` (default :data:`NO_MOVE_SECONDS`). The exception is delivered between
    two bytecodes of whatever Python code runs, so a bare ``while True: pass`` stops too."""
    import ctypes
    import threading
    import time

    limit = NO_MOVE_SECONDS if seconds is None else seconds
    target = threading.get_ident()
    stop = threading.Event()

    def watch() -> None:
        last, since = progress(), time.monotonic()
        while not stop.wait(min(1.0, limit / 4)):
            now = progress()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= limit:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), ctypes.py_object(_NoMove))
                return

    thread = threading.Thread(target=watch, name="rules-watchdog", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@dataclass(frozen=True)
class RulesFile:
    """A loaded rules file: its path, ``rules`` function, player names and title."""

    path: Path
    rules: Callable[..., Any]
    players: tuple[str, ...]
    title: str

    @property
    def parameters(self) -> list[inspect.Parameter]:
        """The parameters of ``rules`` after ``g`` (name, default)."""
        return list(inspect.signature(self.rules).parameters.values())[1:]


def _render(value: Any) -> str:
    """A fact or option as text: tuples as their items separated by spaces."""
    if isinstance(value, tuple):
        return " ".join(_render(v) for v in value)
    return str(value)


def load_rules(path: str | Path) -> RulesFile:
    """Read a rules file; RulesError names the file (and line) when it cannot be used."""
    path = Path(path)
    if not path.is_file():
        raise RulesError(f"no such rules file: {path}")
    name = "equilibria_rules_" + "".join(ch if ch.isalnum() else "_" for ch in str(path.resolve()))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RulesError(f"{path}: cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    try:
        with _user_code(), _watchdog(lambda: 0):
            spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise RulesError(f"{path}:{exc.lineno}: {exc.msg}") from None
    except KeyboardInterrupt:
        raise
    except _NoMove as exc:
        raise RulesError(
            f"{path}:{_line_in(path, exc.__traceback__)}: the file's top level ran {NO_MOVE_SECONDS:g} s "
            "without finishing (an endless loop?)"
        ) from None
    except BaseException as exc:  # sys.exit(), GeneratorExit, ...: the file's own doing
        raise RulesError(f"{path}:{_line_in(path, exc.__traceback__)}: {_what(exc)}") from None
    rules = getattr(module, "rules", None)
    if not inspect.isfunction(rules):
        raise RulesError(
            f"{path}: defines no function rules(g, ...)"
            + ("" if rules is None else f" (rules is {type(rules).__name__} {rules!r:.60})")
        )
    params = list(inspect.signature(rules).parameters.values())
    if not params or params[0].kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        raise RulesError(f"{path}:{rules.__code__.co_firstlineno}: rules must take the game as its first argument")
    players = getattr(module, "PLAYERS", ("Player 1", "Player 2"))
    if isinstance(players, str) or not isinstance(players, Sequence) or len(players) < 1:
        raise RulesError(f"{path}: PLAYERS must be a tuple of player names, not {players!r}")
    players = tuple(str(p) for p in players)
    if len(set(players)) != len(players):
        raise RulesError(f"{path}: PLAYERS names a player twice: {players}")
    title = str(getattr(module, "TITLE", "") or path.stem)
    return RulesFile(path, rules, players, title)


def _what(exc: BaseException) -> str:
    """What user code raised, in words (sys.exit is no error of the interpreter's)."""
    if isinstance(exc, SystemExit):
        return f"the rules call sys.exit({exc.code!r}); a rules file must return, not exit"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _ToStderr(io.TextIOBase):
    """Standard output for user code: what it prints goes to standard error (standard
    output is the command's answer), and closing it closes nothing."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        sys.stderr.write(text)
        return len(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def close(self) -> None:
        pass


@contextlib.contextmanager
def _user_code() -> Iterator[None]:
    """Run a rules file's code with its prints on standard error."""
    with contextlib.redirect_stdout(_ToStderr()):
        yield


def _line_in(path: Path, tb: Any) -> int | str:
    """The deepest line of ``path`` in a traceback (``?`` when the file is not in it)."""
    target = str(path.resolve())
    line: int | str = "?"
    while tb is not None:
        if str(Path(tb.tb_frame.f_code.co_filename).resolve()) == target:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class Explorer:
    """The ``g`` handed to ``rules``: records the tree while the rules run.

    Use :func:`generate` rather than this class directly.
    """

    def __init__(self, rules_file: RulesFile, max_moves: int = DEFAULT_MAX_MOVES, max_nodes: int | None = None):
        self.file = rules_file
        self._max_nodes = max_nodes
        self._plays = 0
        self.players = rules_file.players
        self.everyone = rules_file.players
        self.num_players = len(self.players)
        self._filename = rules_file.rules.__code__.co_filename
        self._index = {name: i for i, name in enumerate(self.players)}
        self._max_moves = max_moves
        # per node (flat arrays: no Python object per node)
        self.parent = array("q")
        self.kind = array("b")
        self.infoset = array("i")
        self.action = array("i")
        # per chance node: its node, label and the offset of its options' probabilities
        self.chance_node = array("q")
        self.chance_label = array("i")  # index into self._texts
        self.chance_offset = array("q")
        self.option_prob = array("d")
        self.option_prob_text = array("i")  # index into self._texts ('' for a float)
        self.option_label = array("i")  # index into self._texts
        self.terminal_node = array("q")
        self.payoff = array("d")
        self._texts: list[str] = [""]
        self._text_id: dict[str, int] = {"": 0}
        # information states: interned observation histories, one chain per player
        self._hist_id: dict[tuple[int, int, Any], int] = {}
        self._hist_parent: list[int] = [-1]
        self._hist_token: list[tuple[int, Any]] = [(0, None)]
        self._hist_private: list[bool] = [False]
        # information sets
        self._infoset_id: dict[tuple[int, int, tuple], int] = {}
        self.infoset_player: list[int] = []
        self.infoset_hist: list[int] = []
        self.infoset_options: list[tuple] = []
        self.infoset_line: list[int] = []
        self._infoset_parent_seq: list[tuple[int, int]] = []
        # the play being explored: per move, the option index taken and
        # (node, options, mover or -1, secret, state before the move or None)
        self._path: list[int] = []
        self._taken: list[Any] = []  # the option itself, returned at once when replayed
        self._moves: list[tuple[int, tuple, int, bool, Any]] = []
        self._replay_end = 0  # moves replayed in this play; the last of them changed option
        self._replay_last = -1
        self._pos = 0
        self._reveals = 0  # facts revealed in this play
        self._done = False
        self._hist: list[int] = [0] * self.num_players
        self._own: list[tuple[int, int]] = [(-1, 0)] * self.num_players

    # ---------------------------------------------------------------- helpers
    def _line(self) -> int | str:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self._filename:
                return frame.f_lineno
            frame = frame.f_back  # type: ignore[assignment]
        return "?"

    def _fail(self, message: str) -> RulesError:
        return RulesError(f"{self.file.path}:{self._line()}: {message}")

    def _text(self, value: Any) -> int:
        text = value if isinstance(value, str) else _render(value)
        tid = self._text_id.get(text)
        if tid is None:
            tid = self._text_id[text] = len(self._texts)
            self._texts.append(text)
        return tid

    def _player(self, who: Any) -> int:
        p = self._index.get(who) if isinstance(who, str) else None
        if p is None:
            if isinstance(who, (int, np.integer)) and not isinstance(who, bool) and 0 <= who < self.num_players:
                return int(who)
            raise self._fail(f"unknown player {who!r}; the players are {', '.join(self.players)}")
        return p

    def _observe(self, p: int, who: int, value: Any, private: bool) -> None:
        key = (self._hist[p], who, value)
        hid = self._hist_id.get(key)
        if hid is None:
            hid = self._hist_id[key] = len(self._hist_parent)
            self._hist_parent.append(self._hist[p])
            self._hist_token.append((who, value))
            self._hist_private.append(private)
        self._hist[p] = hid

    def _new_node(self, kind: int) -> int:
        pos = self._pos
        if pos >= self._max_moves:
            raise self._fail(
                f"the play has made more than {self._max_moves} moves without an outcome (does it ever end?)"
            )
        node = len(self.kind)
        if self._max_nodes is not None and node >= self._max_nodes:
            raise TreeTooLarge(
                f"{self.file.path}: the game grows beyond {self._max_nodes:,} nodes, more than this machine's "
                "memory holds to solve it; choose smaller parameters"
            )
        if pos:
            self.parent.append(self._moves[pos - 1][0])
            self.action.append(self._path[pos - 1])
        else:
            self.parent.append(-1)
            self.action.append(-1)
        self.kind.append(kind)
        return node

    def _apply_choice(self, mover: int, infoset: int, k: int, choice: Any, secret: bool) -> None:
        self._own[mover] = (infoset, k)
        hist, ids = self._hist, self._hist_id
        for q in range(self.num_players) if not secret else (mover,):
            key = (hist[q], mover, choice)
            hid = ids.get(key)
            if hid is None:
                hid = ids[key] = len(self._hist_parent)
                self._hist_parent.append(hist[q])
                self._hist_token.append((mover, choice))
                self._hist_private.append(q == mover)
            hist[q] = hid

    def _resume(self, pos: int) -> Any:
        """The move whose option changed since the last play: restore the state before it."""
        node, options, mover, secret, before = self._moves[pos]
        k = self._path[pos]
        self._hist = list(before[0])
        self._own = list(before[1])
        if mover >= 0:
            self._apply_choice(mover, self.infoset[node], k, options[k], secret)
        self._pos = pos + 1
        return options[k]

    @staticmethod
    def _as_options(options: Any) -> tuple:
        if isinstance(options, tuple):
            return options
        if isinstance(options, (set, frozenset, dict)):
            raise TypeError("unordered")
        return tuple(options)

    # ---------------------------------------------------------------- primitives
    def chance(self, options: Any, probs: Any = None, label: str = "", names: Any = None) -> Any:
        """The option nature picks (see the module docstring)."""
        # the replay test is written out here and in choose(): this is the hot path
        pos = self._pos
        if pos < self._replay_last:
            self._pos = pos + 1
            return self._taken[pos]
        if pos == self._replay_last:
            return self._resume(pos)
        if self._done:
            raise self._fail("chance() called after outcome(): the play has already ended")
        try:
            opts = self._as_options(options)
        except TypeError:
            raise self._fail(f"chance() needs a sequence of options, not {type(options).__name__}") from None
        n = len(opts)
        if n == 0:
            raise self._fail("chance() with no options")
        if probs is None:
            floats: Sequence[float] = (1.0 / n,) * n
            texts: Sequence[int] = (self._text(str(Fraction(1, n))),) * n
        else:
            floats, texts = self._chance_probs(probs, n)
        node = self._new_node(CHANCE)
        self.infoset.append(-1)
        self.chance_node.append(node)
        self.chance_label.append(self._text(label) if label else 0)
        self.chance_offset.append(len(self.option_prob))
        self.option_prob.extend(floats)
        self.option_prob_text.extend(texts)
        self.option_label.extend([self._text(o if names is None else self._option_name(names, o)) for o in opts])
        self._moves.append((node, opts, -1, True, (tuple(self._hist), tuple(self._own)) if n > 1 else None))
        self._path.append(0)
        self._taken.append(opts[0])
        self._pos = pos + 1
        return opts[0]

    def _option_name(self, names: Any, option: Any) -> str:
        try:
            name = names(option) if callable(names) else names[option]
        except (KeyError, IndexError, TypeError):
            raise self._fail(f"chance() names gives no name for the option {option!r}") from None
        return str(name)

    def _chance_probs(self, probs: Any, n: int) -> tuple[tuple[float, ...], tuple[int, ...]]:
        try:
            raw = list(probs)
        except TypeError:
            raise self._fail(f"chance() probabilities must be a sequence, not {type(probs).__name__}") from None
        if len(raw) != n:
            raise self._fail(f"chance() has {n} options but {len(raw)} probabilities")
        values: list[Fraction | float] = []
        for q in raw:
            if isinstance(q, str):
                try:
                    values.append(Fraction(q))
                except (ValueError, ZeroDivisionError):
                    raise self._fail(f"chance() probability {q!r} is not a number") from None
            elif isinstance(q, _EXACT) and not isinstance(q, bool):
                values.append(Fraction(q))
            elif isinstance(q, (float, np.floating)):
                values.append(float(q))
            else:
                raise self._fail(f"chance() probability {q!r} is not a number")
        bad = [v for v in values if not (math.isfinite(v) and 0 <= v <= 1)]
        if bad:
            raise self._fail(f"chance() probability {bad[0]} lies outside [0, 1]")
        total = sum(values)
        exact = all(isinstance(v, Fraction) for v in values)
        if (exact and total != 1) or (not exact and abs(float(total) - 1.0) > 1e-9):
            raise self._fail(f"chance() probabilities sum to {total}, not 1")
        texts = tuple(self._text(str(v)) if isinstance(v, Fraction) else 0 for v in values)
        return tuple(float(v) for v in values), texts

    def choose(self, player: Any, options: Any, secret: bool = False) -> Any:
        """The option ``player`` picks (see the module docstring)."""
        pos = self._pos
        if pos < self._replay_last:
            self._pos = pos + 1
            return self._taken[pos]
        if pos == self._replay_last:
            return self._resume(pos)
        if self._done:
            raise self._fail("choose() called after outcome(): the play has already ended")
        if player.__class__ is int and 0 <= player < self.num_players:
            p: int = player
        else:
            found = self._index.get(player) if player.__class__ is str else None
            p = self._player(player) if found is None else found
        hist = self._hist
        try:
            opts = options if options.__class__ is tuple else self._as_options(options)
            key = (p, hist[p], opts)
            infoset = self._infoset_id.get(key)
        except TypeError:
            raise self._fail(f"choose() needs a sequence of hashable options, not {options!r}") from None
        if not opts:
            raise self._fail(f"choose() offers {self.players[p]} no options")
        own = self._own[p]
        if infoset is None:
            infoset = self._infoset_id[key] = len(self.infoset_player)
            self.infoset_player.append(p)
            self.infoset_hist.append(hist[p])
            self.infoset_options.append(opts)
            self.infoset_line.append(self._line())  # type: ignore[arg-type]
            self._infoset_parent_seq.append(own)
        elif self._infoset_parent_seq[infoset] != own:
            raise self._fail(
                f"imperfect recall: {self.players[p]} reaches the information set "
                f"'{self.infoset_text(infoset)}' after different own decisions (earlier options "
                "that differ must be revealed to the player)"
            )
        node = self._new_node(p)
        self.infoset.append(infoset)
        secret = bool(secret)
        self._moves.append((node, opts, p, secret, (tuple(hist), tuple(self._own)) if len(opts) > 1 else None))
        self._path.append(0)
        self._taken.append(opts[0])
        self._apply_choice(p, infoset, 0, opts[0], secret)
        self._pos = pos + 1
        return opts[0]

    def reveal(self, players: Any, fact: Any) -> None:
        """Add ``fact`` to the information of ``players`` (see the module docstring)."""
        if self._pos < self._replay_end:
            return  # its effect is in the state saved before the next move
        if self._done:
            raise self._fail("reveal() called after outcome(): the play has already ended")
        # a fact costs memory like a move: a play revealing without end is stopped as one
        # moving without end is (it grew 3 GB in 30 s)
        self._reveals += 1
        if self._reveals > self._max_moves:
            raise self._fail(
                f"the play has revealed more than {self._max_moves} facts without an outcome (does it ever end?)"
            )
        if players.__class__ is str:
            targets = [self._player(players)]
        elif isinstance(players, (list, tuple, set, frozenset)):
            targets = [self._player(q) for q in players]
        else:
            targets = [self._player(players)]
        try:
            hash(fact)
        except TypeError:
            raise self._fail(f"reveal() needs a hashable fact (a str, number or tuple), not {fact!r}") from None
        private = len(targets) == 1
        for q in targets:
            self._observe(q, _FACT, fact, private)

    def outcome(self, payoffs: Any) -> None:
        """End the play with one payoff per player."""
        if self._pos < self._replay_end:
            raise self._fail("the rules ended a play differently when replayed: they must depend on nothing but g")
        if self._done:
            raise self._fail("outcome() called twice in one play")
        try:
            count = len(payoffs)
            total = sum(payoffs)
            finite = total - total == 0  # False for nan or an infinity
        except TypeError:
            raise self._fail(f"outcome() needs one number per player, not {payoffs!r}") from None
        if count != self.num_players:
            raise self._fail(f"outcome() gives {count} payoffs for {self.num_players} players")
        if not finite:
            raise self._fail(f"outcome() payoffs must be finite numbers, not {payoffs!r}")
        node = self._new_node(TERMINAL)
        self.infoset.append(-1)
        self.terminal_node.append(node)
        self.payoff.extend([float(v) for v in payoffs])
        self._done = True

    # ---------------------------------------------------------------- exploration
    def explore(self, params: dict[str, Any]) -> None:
        """Run the rules over every path of the tree."""
        with _watchdog(lambda: (self._plays, self._pos)):
            try:
                self._explore(params)
            except _NoMove as exc:
                raise _endless(self.file.path, exc) from None

    def _explore(self, params: dict[str, Any]) -> None:
        rules = partial(self.file.rules, self, **params)
        path, moves, taken = self._path, self._moves, self._taken
        while True:
            self._plays += 1
            self._pos = 0
            self._reveals = 0
            self._done = False
            if self._replay_end == 0:
                self._hist = [0] * self.num_players
                self._own = [(-1, 0)] * self.num_players
            try:
                with _user_code():
                    rules()
            except RulesError:
                raise
            except RecursionError:
                raise RulesError(f"{self.file.path}: the rules recurse too deeply") from None
            except (KeyboardInterrupt, _NoMove):
                raise
            except BaseException as exc:  # sys.exit(), GeneratorExit, ...: the rules' own doing
                line = _line_in(self.file.path, exc.__traceback__)
                raise RulesError(f"{self.file.path}:{line}: {_what(exc)}") from None
            if not self._done:
                line = self.file.rules.__code__.co_firstlineno
                raise RulesError(f"{self.file.path}:{line}: a play of the rules ended without outcome()")
            # the next play: the next untried option at the deepest move that has one
            j = len(path) - 1
            while j >= 0 and path[j] + 1 >= len(moves[j][1]):
                j -= 1
            if j < 0:
                return
            del path[j + 1 :], moves[j + 1 :], taken[j + 1 :]
            path[j] += 1
            taken[j] = moves[j][1][path[j]]
            self._replay_end = j + 1
            self._replay_last = j

    # ---------------------------------------------------------------- output
    def _history(self, hid: int) -> list[tuple[int, Any, bool]]:
        out = []
        while hid > 0:
            who, value = self._hist_token[hid]
            out.append((who, value, self._hist_private[hid]))
            hid = self._hist_parent[hid]
        out.reverse()
        return out

    def _token_text(self, who: int, value: Any) -> str:
        return _render(value) if who == _FACT else f"{self.players[who]} {_render(value)}"

    def _history_texts(self) -> Callable[[int], tuple[str, str, str]]:
        """A function giving, per observation history, its text in full, its private facts
        and the rest; each history's text is built once from its parent's."""
        memo: dict[int, tuple[str, str, str]] = {0: ("", "", "")}

        def join(a: str, b: str) -> str:
            return f"{a}; {b}" if a else b

        def texts_of(hid: int) -> tuple[str, str, str]:
            chain = []
            while hid not in memo:
                chain.append(hid)
                hid = self._hist_parent[hid]
            full, priv, pub = memo[hid]
            for h in reversed(chain):
                who, value = self._hist_token[h]
                text = self._token_text(who, value)
                full = join(full, text)
                if who == _FACT and self._hist_private[h]:
                    priv = join(priv, text)
                else:
                    pub = join(pub, text)
                memo[h] = (full, priv, pub)
            return memo[hid] if not chain else memo[chain[0]]

        return texts_of

    def infoset_text(self, k: int) -> str:
        """What the player knows at information set ``k``, in the rules' words."""
        return "; ".join(self._token_text(w, v) for w, v, _ in self._history(self.infoset_hist[k])) or "start"

    def game(self, title: str) -> ExtensiveGame:
        """The explored tree as a validated ExtensiveGame."""
        n = len(self.kind)
        P = self.num_players
        texts = np.asarray(self._texts, dtype=str)
        parent = np.frombuffer(self.parent, dtype=np.int64)
        action = np.frombuffer(self.action, dtype=np.int32)
        kind = np.frombuffer(self.kind, dtype=np.int8).astype(np.int32)
        # chance probabilities and outcome labels sit on the children of chance nodes
        offset = np.full(n, -1, dtype=np.int64)
        chance_nodes = np.frombuffer(self.chance_node, dtype=np.int64)
        offset[chance_nodes] = np.frombuffer(self.chance_offset, dtype=np.int64)
        node_label = np.zeros(n, dtype=np.int32)
        node_label[chance_nodes] = np.frombuffer(self.chance_label, dtype=np.int32)
        below_chance = np.flatnonzero((parent >= 0) & (kind[np.maximum(parent, 0)] == CHANCE))
        slot = offset[parent[below_chance]] + action[below_chance]
        prob = np.ones(n)
        prob[below_chance] = np.frombuffer(self.option_prob, dtype=np.float64)[slot]
        prob_text = np.zeros(n, dtype=np.int32)
        prob_text[below_chance] = np.frombuffer(self.option_prob_text, dtype=np.int32)[slot]
        edge_label = np.zeros(n, dtype=np.int32)
        edge_label[below_chance] = np.frombuffer(self.option_label, dtype=np.int32)[slot]
        payoffs = np.zeros((n, P))
        terms = np.frombuffer(self.terminal_node, dtype=np.int64)
        payoffs[terms] = np.frombuffer(self.payoff, dtype=np.float64).reshape(-1, P)
        num_actions = np.array([len(o) for o in self.infoset_options], dtype=np.int32)
        action_labels = np.asarray([_render(o) for opts in self.infoset_options for o in opts], dtype=str)
        texts_of = self._history_texts()
        labels, private, public = [], [], []
        for hid in self.infoset_hist:
            full, priv, pub = texts_of(hid)
            labels.append(full or "start")
            private.append(priv)
            public.append(pub)
        game = ExtensiveGame.from_arrays(
            parent=parent,
            player=kind,
            infoset=np.frombuffer(self.infoset, dtype=np.int32),
            action=action,
            chance_prob=prob,
            payoffs=payoffs,
            infoset_player=np.asarray(self.infoset_player, dtype=np.int32),
            infoset_num_actions=num_actions,
            player_names=self.players,
            infoset_labels=np.asarray(labels, dtype=str),
            action_labels=action_labels,
            node_labels=texts[node_label],
            chance_labels=texts[edge_label],
            chance_text=texts[prob_text],
            title=title,
        )
        game.infoset_private = np.asarray(private, dtype=str)  # type: ignore[attr-defined]
        game.infoset_public = np.asarray(public, dtype=str)  # type: ignore[attr-defined]
        game.rules_lines = np.asarray(self.infoset_line, dtype=np.int64)  # type: ignore[attr-defined]
        return game


class _Probe:
    """The ``g`` of one random play: options are drawn uniformly and the numbers of options
    multiplied along the way, which estimates the size of the tree (Knuth, "Estimating the
    efficiency of backtrack programs", 1975): nodes = 1 + d1 + d1*d2 + ... for the numbers
    of options d1, d2, ... met."""

    def __init__(self, rules_file: RulesFile, rng: Any, max_moves: int):
        self.players = self.everyone = rules_file.players
        self.num_players = len(self.players)
        self._rng = rng
        self._max_moves = max_moves
        self.moves = 0
        self.width = 1.0
        self.nodes = 1.0
        self.ended = False

    def _pick(self, options: Any) -> Any:
        # a range or tuple is indexed where it is: range(10**6) is not copied on every probe
        opts = options if isinstance(options, (range, tuple, list, str)) else tuple(options)
        if not len(opts) or self.moves >= self._max_moves or self.ended:
            raise _ProbeFailed
        self.moves += 1
        self.width *= len(opts)
        self.nodes += self.width
        return opts[self._rng.randrange(len(opts))]

    def chance(self, options: Any, probs: Any = None, label: str = "", names: Any = None) -> Any:
        return self._pick(options)

    def choose(self, player: Any, options: Any, secret: bool = False) -> Any:
        return self._pick(options)

    def reveal(self, players: Any, fact: Any) -> None:
        if self.moves >= self._max_moves or self.ended:
            raise _ProbeFailed  # the explorer then says what is wrong
        self.moves += 1

    def outcome(self, payoffs: Any) -> None:
        self.ended = True


class _ProbeFailed(Exception):
    """A random play that cannot be measured (the explorer reports what is wrong)."""


def estimate_nodes(
    rules: RulesFile, params: dict[str, Any], probes: int = PROBES, seconds: float = PROBE_SECONDS, seed: int = 0
) -> int | None:
    """The number of nodes the rules' tree is expected to have, from up to ``probes`` random
    plays walked within ``seconds`` (see :class:`_Probe`); None when a play fails (the
    rules' error is then reported when the tree is built). Unbiased, with a spread that is
    small when the tree is regular, as game trees with their deals mostly are; used to
    refuse a game far beyond the machine before building any of it."""
    import random
    import time

    rng = random.Random(seed)
    total, walked = 0.0, 0
    started = time.monotonic()
    quiet = io.StringIO()
    with _watchdog(lambda: walked):
        try:
            while walked < probes and (walked == 0 or time.monotonic() - started < seconds):
                probe = _Probe(rules, rng, DEFAULT_MAX_MOVES)
                with contextlib.redirect_stdout(quiet):
                    rules.rules(probe, **params)
                if not probe.ended:
                    return None
                total += probe.nodes
                walked += 1
                quiet.seek(0)
                quiet.truncate()
        except KeyboardInterrupt:
            raise
        except _NoMove as exc:
            raise _endless(rules.path, exc) from None
        except BaseException:  # the rules' own error: generate() reports it with its line
            return None
    return int(total / walked)


def generate(
    rules: str | Path | RulesFile,
    max_moves: int = DEFAULT_MAX_MOVES,
    title: str | None = None,
    max_nodes: int | None = None,
    **params: Any,
) -> ExtensiveGame:
    """The game tree of a rules file (a path or a loaded :class:`RulesFile`) with the given
    parameters, as a validated :class:`ExtensiveGame` with information sets labelled in the
    rules' words. RulesError names the file and line of malformed rules; TreeTooLarge says
    that the tree grew beyond ``max_nodes``."""
    rf = rules if isinstance(rules, RulesFile) else load_rules(rules)
    known = {p.name for p in rf.parameters}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in rf.parameters)
    unknown = sorted(set(params) - known)
    if unknown and not takes_any:
        raise RulesError(
            f"{rf.path}: rules take no parameter '{unknown[0]}'"
            + (f"; they take {', '.join(sorted(known))}" if known else "; they take none")
        )
    explorer = Explorer(rf, max_moves=max_moves, max_nodes=max_nodes)
    explorer.explore(params)
    if title is None:
        shown = ",".join(f"{k}={v}" for k, v in params.items())
        title = rf.title + (f" ({shown})" if shown else "")
    return explorer.game(title)


__all__ = [
    "DEFAULT_MAX_MOVES",
    "NO_MOVE_SECONDS",
    "Explorer",
    "RulesError",
    "RulesFile",
    "TreeTooLarge",
    "estimate_nodes",
    "generate",
    "load_rules",
]
