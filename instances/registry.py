"""One registry of games: a name resolves to one game description offering views.

A *view* is a way of representing the same game for a route:

``extensive``  an :class:`~equilibria.models.efg.ExtensiveGame` (every route that solves
               the full tree: the sequence-form LP, export, best responses)
``ordered``    an :class:`~equilibria.models.ordered.OrderedGame`, a game with ordered
               signals (GameShrink)
``signal``     a :class:`~equilibria.models.bayesian.BayesianGame`, private signals and a
               public betting tree (threshold programs from qualitative models)
``normal``     a :class:`~equilibria.models.normal_form.NormalFormGame`, a payoff tensor
               (MIP Nash; ``.nfg`` files)

``describe("leduc:ranks=4")`` returns a :class:`GameDescription`; its :meth:`view` builds
the requested representation (once) or raises :class:`ViewUnavailable` naming the game and
the views it has. Names, parameters (typed, with defaults) and views are listed by
:func:`catalog` (``equilibria games`` on the command line).
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..models import checks
from ..models.errors import EquilibriaError, GameError, UnknownInstanceError

if TYPE_CHECKING:
    from ..models.bayesian import BayesianGame
    from ..models.efg import ExtensiveGame
    from ..models.ordered import OrderedGame

VIEWS = ("extensive", "ordered", "signal", "normal")


class ViewUnavailable(EquilibriaError):
    """The game has no representation of the kind a route needs."""


@dataclass(frozen=True)
class Parameter:
    """A game parameter: name, type (``bool``, ``int``, ``float`` or ``str``) and default."""

    name: str
    kind: type
    default: Any

    def parse(self, game: str, text: str) -> Any:
        """The value of ``text`` as this parameter's type; UnknownInstanceError otherwise."""
        text = text.strip()
        if self.kind is bool:  # "False" and "0" must not arrive as a true string
            word = text.lower()
            if word not in BOOLEAN_WORDS:
                raise UnknownInstanceError(
                    f"'{game}': parameter {self.name} must be true or false (or 1, 0, yes, no), not '{text}'"
                )
            return BOOLEAN_WORDS[word]
        if self.kind is int:
            if not re.fullmatch(r"[+-]?\d+", text):
                raise UnknownInstanceError(f"'{game}': parameter {self.name} must be a whole number, not '{text}'")
            return int(text)
        if self.kind is float:
            value = checks.finite_from_text(text)
            if value is None:
                raise UnknownInstanceError(f"'{game}': parameter {self.name} must be a finite number, not '{text}'")
            return value
        return text


#: The words a ``bool`` parameter is read from (case-insensitive).
BOOLEAN_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}


def _parameters(factory: Callable) -> dict[str, Parameter]:
    out = {}
    for p in inspect.signature(factory).parameters.values():
        annotation = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", "")
        if p.default is not inspect.Parameter.empty and p.default is not None:
            kind = type(p.default)
        else:
            kind = {"bool": bool, "int": int, "float": float}.get(str(annotation), str)
        out[p.name] = Parameter(p.name, kind, None if p.default is inspect.Parameter.empty else p.default)
    return out


#: Peak bytes per unit of a view's size estimate, for refusing games that cannot fit:
#: per node of the extensive form (building, solving by the LP and certifying: G_1100's
#: 10.9 million nodes peaked at 2.7 GB), per node of the signal tree (GameShrink and the
#: shrunk LP) and per pair of signals of a signal game.
BYTES_PER_UNIT = {"extensive": 250, "ordered": 600, "signal": 64}


class TooLarge(EquilibriaError):
    """A game is estimated not to fit in this machine's memory."""


def available_memory() -> int:
    """Bytes this process can still allocate: the least of the machine's available memory
    (``MemAvailable`` on Linux, else the physical memory), what the address-space and data
    limits leave (``ulimit -v``, ``ulimit -d``) and what the cgroup's memory limit leaves
    (a container's or a systemd unit's)."""
    room = [_machine_memory()]
    import resource

    used = _own_virtual_bytes()
    for limit in (resource.RLIMIT_AS, getattr(resource, "RLIMIT_DATA", None)):
        if limit is None:
            continue
        soft, _ = resource.getrlimit(limit)
        if soft != resource.RLIM_INFINITY:
            room.append(max(soft - used, 0))
    room.extend(_cgroup_room())
    return max(min(room), 0)


def _machine_memory() -> int:
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def _own_virtual_bytes() -> int:
    """This process's virtual size (what ``ulimit -v`` counts), or 0 when unknown."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0


def _cgroup_room() -> list[int]:
    """What this process's cgroup memory limit leaves (v2 ``memory.max`` less
    ``memory.current``, or v1 ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``);
    empty when there is no limit or no cgroup file."""
    try:
        with open("/proc/self/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # cgroup v2
            candidates = [("/sys/fs/cgroup" + path, "memory.max", "memory.current")]
        elif "memory" in controllers.split(","):
            candidates = [("/sys/fs/cgroup/memory" + path, "memory.limit_in_bytes", "memory.usage_in_bytes")]
        else:
            continue
        for folder, limit_name, usage_name in candidates:
            try:
                with open(os.path.join(folder, limit_name)) as handle:
                    limit_text = handle.read().strip()
                with open(os.path.join(folder, usage_name)) as handle:
                    usage = int(handle.read().strip())
            except (OSError, ValueError):
                continue
            if limit_text.isdigit() and int(limit_text) < (1 << 60):
                out.append(max(int(limit_text) - usage, 0))
    return out


def _human(n: float) -> str:
    if n >= 1e15:
        return f"{n:.2e}"
    for unit in ("", " thousand", " million", " billion"):
        if abs(n) < 1000:
            return f"{n:.3g}{unit}"
        n /= 1000
    return f"{n:.3g} trillion"


@dataclass(frozen=True)
class GameEntry:
    """A registered game: one factory per view it offers (each takes its own parameters),
    and for views that can grow large, a size estimate taking the same parameters (nodes
    of the extensive form, nodes of the signal tree, pairs of signals) computed without
    building anything."""

    name: str
    summary: str
    factories: dict[str, Callable[..., Any]]
    sizes: dict[str, Callable[..., int]] = field(default_factory=dict)

    @property
    def views(self) -> tuple[str, ...]:
        """The views this game offers, in :data:`VIEWS` order."""
        return tuple(v for v in VIEWS if v in self.factories)

    @property
    def parameters(self) -> dict[str, Parameter]:
        """Every parameter any of the factories takes (first definition wins)."""
        out: dict[str, Parameter] = {}
        for factory in self.factories.values():
            for name, p in _parameters(factory).items():
                out.setdefault(name, p)
        return out


@dataclass
class GameDescription:
    """One game, resolved from a spec: its name, parameters and the views it offers.

    Views are built on first use and kept, so a route that needs the ordered game and the
    full tree builds each once.
    """

    spec: str
    name: str
    params: dict[str, Any]
    factories: dict[str, Callable[[], Any]]
    sizes: dict[str, Callable[[], int | None]] = field(default_factory=dict)
    #: what is known of the game before any view is built (an OpenSpiel game's type):
    #: ``players`` and ``zero_sum``; empty when nothing is
    traits: Callable[[], dict[str, Any]] = field(default=dict, repr=False)
    _built: dict[str, Any] = field(default_factory=dict, repr=False)

    def check_two_player_zero_sum(self, purpose: str) -> None:
        """Refuse, before anything is built, a game known to be no two-player zero-sum
        game (an OpenSpiel game says so in its type) for ``purpose``."""
        traits = self.traits()
        players, zero_sum = traits.get("players"), traits.get("zero_sum")
        if players is None or (players == 2 and zero_sum is not False):
            return
        kind = f"{players} players" + (", general-sum payoffs" if zero_sum is False else "")
        raise GameError(
            f"'{self.spec}' has {kind}: {purpose} solves two-player zero-sum games (general-sum and "
            "n-player games: equilibria nash)"
        )

    def estimate(self, view: str) -> tuple[int, int] | None:
        """(units, bytes) the view is estimated to need, or None when unknown (see
        :data:`BYTES_PER_UNIT`)."""
        if view not in self.sizes:
            return None
        units = self.sizes[view]()
        if units is None:  # a rules file whose random plays fail: building reports why
            return None
        return int(units), int(units) * BYTES_PER_UNIT[view]

    def check_size(self, view: str, advice: str | None = None) -> None:
        """Raise TooLarge, with the estimate and the memory available, when the view would
        not fit; ``advice`` ends the message (default: what else would solve the game)."""
        estimate = self.estimate(view)
        if estimate is None:
            return
        units, need = estimate
        have = available_memory()
        if need > have:
            what = {"extensive": "nodes", "ordered": "signal-tree nodes", "signal": "pairs of signals"}[view]
            # a game with an ordered view can be shrunk without building its tree
            if advice is None:
                advice = (
                    "solve it shrunk (--shrink, or the shrink command), or choose smaller parameters"
                    if view == "extensive" and self.has("ordered")
                    else "choose smaller parameters"
                )
            raise TooLarge(
                f"'{self.spec}' is too large: about {_human(units)} {what}, needing about {_human(need)} bytes "
                f"with the {view} form; this process has {_human(have)} bytes available "
                f"(free memory, ulimit and cgroup limits); {advice}"
            )

    @property
    def views(self) -> tuple[str, ...]:
        """The views this game offers."""
        return tuple(v for v in VIEWS if v in self.factories)

    def has(self, view: str) -> bool:
        """True when the game offers ``view``."""
        return view in self.factories

    def view(self, view: str, purpose: str = "") -> Any:
        """The game as ``view`` (built once); ViewUnavailable names what the game offers."""
        if view not in VIEWS:
            raise ViewUnavailable(f"unknown view '{view}'; views are {', '.join(VIEWS)}")
        if view not in self._built:
            if view not in self.factories:
                need = f" ({purpose})" if purpose else ""
                others = sorted(n for n, e in entries().items() if view in e.factories)
                raise ViewUnavailable(
                    f"'{self.spec}' has no {view} form{need}; it offers: {', '.join(self.views) or 'none'}; "
                    f"games with one: {', '.join(others)}"
                )
            self.check_size(view)
            self._built[view] = self.factories[view]()
        return self._built[view]

    def extensive(self) -> ExtensiveGame:
        """The game as an ExtensiveGame."""
        return self.view("extensive")

    def ordered(self) -> OrderedGame:
        """The game as an OrderedGame (games with ordered signals)."""
        return self.view("ordered")

    def signal(self) -> BayesianGame:
        """The game as a BayesianGame (private signals, public betting)."""
        return self.view("signal")

    def first_view(self, views: str, purpose: str = "") -> Any:
        """The first of ``views`` (names joined by ``|``) the game offers, built once;
        ViewUnavailable for the last one when it offers none."""
        names = views.split("|")
        for name in names[:-1]:
            if name in self.factories:
                return self.view(name, purpose)
        return self.view(names[-1], purpose)


def _signal_extensive(make_signal: Callable[[], Any], spec: str) -> Callable[[], Any]:
    def build() -> ExtensiveGame:
        game = make_signal()
        if not game.finite:
            raise ViewUnavailable(
                f"'{spec}' has continuous signals and no extensive form; give cards=N for N equally likely signals"
            )
        return game.finite_game().to_extensive()

    return build


def _normal_extensive(factory: Callable[..., Any]) -> Callable[..., Any]:
    """The extensive form of the normal-form game ``factory`` makes (same parameters)."""

    def build(**kwargs: Any) -> ExtensiveGame:
        return factory(**kwargs).to_extensive()

    build.__signature__ = inspect.signature(factory)  # type: ignore[attr-defined]
    return build


def _signal_tree(deck: int, rounds: int) -> int:
    """Nodes of the signal tree of a poker game: root, two private cards, a board card
    before every later round."""
    total, level = 1, 1
    for k in range(2 + rounds - 1):
        level *= max(deck - k, 0)
        total += level
    return total


def _liars_dice_nodes(dice: int = 1, sides: int = 6) -> int:
    """Nodes of Liar's dice with one die each: the rolls, then per roll pair every
    increasing sequence of the 2 * sides bids, each (but the empty one) answerable by a call."""
    bids = 2 * max(dice, 1) * sides
    return 1 + sides + sides * sides * (2 ** (bids + 1) - 1)


def _sheriff_nodes(max_items: int = 3, max_bribe: int = 3, rounds: int = 4, **_: Any) -> int:
    """Nodes of Sheriff: the root, then per load every history of offers and answers."""
    offers = 2 * (max_bribe + 1)
    after_answers = sum(offers**j for j in range(rounds + 1))
    after_offers = (max_bribe + 1) * sum(offers**j for j in range(rounds))
    return 1 + (max_items + 1) * (after_answers + after_offers)


def _signal_pairs(cards: int = 0, **_: Any) -> int:
    return cards * cards


def _two_player_view(factory: Callable[..., Any], name: str, view: str) -> Callable[..., Any]:
    """``factory`` taking a ``players`` parameter that must be 2 (the view exists for two
    players only); ViewUnavailable otherwise, naming the views that do."""

    def build(players: int = 2, **kwargs: Any) -> Any:
        if players != 2:
            raise ViewUnavailable(
                f"'{name}:players={players}' has no {view} form (it is defined for two players); "
                "it offers the extensive and signal forms"
            )
        return factory(**kwargs)

    params = [inspect.Parameter("players", inspect.Parameter.KEYWORD_ONLY, default=2, annotation="int")]
    params += [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in inspect.signature(factory).parameters.values()]
    build.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    build.__doc__ = factory.__doc__
    build.two_players_only = True  # type: ignore[attr-defined]
    return build


def _entries() -> dict[str, GameEntry]:
    from . import bayesian_games as bg
    from . import normal_form_games as nf
    from . import ordered_games as og
    from .liars_dice import liars_dice
    from .poker import generalized_kuhn, kuhn, leduc, poker_nodes, rhode_island
    from .sheriff import sheriff

    def g_n(cards: int = 3, players: int = 2, suits: int = 1) -> int:
        if players != 2:  # one chance node, then a copy of the betting tree per deal
            deals = bg.kuhn_deals(cards, players) if suits == 1 else max(cards, 0) ** players
            return 1 + deals * bg.kuhn_tree_nodes(players)
        return poker_nodes(cards, max(suits, 1), 1.0, (1.0,), (1,))

    def g_n_signals(cards: int = 3, players: int = 2) -> int:
        return _signal_tree(cards, 1)

    def kuhn_nodes(players: int = 2) -> int:
        return g_n(3 if players == 2 else players + 1, players)

    def kuhn_signal_tuples(cards: int = 0, players: int = 2, **_: Any) -> int:
        return max(cards, 0) ** min(max(players, 2), bg.MAX_PLAYERS)

    def leduc_nodes(ranks: int = 3, suits: int = 2) -> int:
        return poker_nodes(ranks, suits, 1.0, (2.0, 4.0), (2, 2))

    def leduc_signals(ranks: int = 3, suits: int = 2) -> int:
        return _signal_tree(ranks * suits, 2)

    def ri_nodes(ranks: int = 13, suits: int = 4) -> int:
        return poker_nodes(ranks, suits, 5.0, (10.0, 20.0, 20.0), (3, 3, 3))

    def ri_signals(ranks: int = 13, suits: int = 4) -> int:
        return _signal_tree(ranks * suits, 3)

    kuhn_sizes: dict[str, Callable[..., int]] = {"extensive": kuhn_nodes}
    poker_sizes = {"extensive": g_n, "ordered": g_n_signals, "signal": kuhn_signal_tuples}

    def signal_game_nodes(cards: int = 0, **_: Any) -> int:
        return 1 + 20 * cards * cards  # a chance node, then a copy of the betting tree per deal

    signal_sizes = {"signal": _signal_pairs, "extensive": signal_game_nodes}

    def kuhn_continuous_nodes(
        cards: int = 0, deal: str = "without_replacement", players: int = 2, suits: int = 1
    ) -> int:
        deals = bg.kuhn_deals(cards, players, deal if suits == 1 else "independent")
        return 1 + deals * bg.kuhn_tree_nodes(players)

    kuhn_signal_sizes: dict[str, Callable[..., int]] = {
        "signal": kuhn_signal_tuples,
        "extensive": kuhn_continuous_nodes,
    }

    entries = [
        GameEntry(
            "kuhn",
            "Kuhn poker: cards J < Q < K, ante 1, one bet of 1 (players=k: OpenSpiel's k-player Kuhn, k + 1 cards)",
            {
                "extensive": kuhn,
                "ordered": _two_player_view(og.kuhn, "kuhn", "ordered"),
                "signal": bg.kuhn_signals,
            },
            kuhn_sizes,
        ),
        GameEntry(
            "generalized_kuhn",
            "Kuhn poker with cards 1..n (G_n; players=k for k players)",
            {
                "extensive": generalized_kuhn,
                "ordered": _two_player_view(og.generalized_kuhn, "generalized_kuhn", "ordered"),
                "signal": bg.generalized_kuhn_signals,
            },
            poker_sizes,
        ),
        GameEntry(
            "leduc",
            "Leduc hold'em: ante 1, raises 2 then 4, one board card",
            {"extensive": leduc, "ordered": og.leduc},
            {"extensive": leduc_nodes, "ordered": leduc_signals},
        ),
        GameEntry(
            "rhode_island",
            "Rhode Island hold'em: ante 5, three rounds, two board cards",
            {"extensive": rhode_island, "ordered": og.rhode_island},
            {"extensive": ri_nodes, "ordered": ri_signals},
        ),
        GameEntry(
            "liars_dice", "Liar's dice with one die each", {"extensive": liars_dice}, {"extensive": _liars_dice_nodes}
        ),
        GameEntry(
            "sheriff",
            "Sheriff: a smuggler's bribes and a sheriff's inspection (general-sum; OpenSpiel's rules)",
            {"extensive": sheriff},
            {"extensive": _sheriff_nodes},
        ),
        GameEntry(
            "mipnash_test",
            "G_k of the MIP Nash paper: a two-player game with one equilibrium of support 2k - 1 each",
            {"normal": nf.mipnash_test, "extensive": _normal_extensive(nf.mipnash_test)},
        ),
        GameEntry(
            "random_normal",
            "a random normal-form game (family uniform, covariant with rho, or graphical; rows, cols, players, seed)",
            {"normal": nf.random_normal, "extensive": _normal_extensive(nf.random_normal)},
        ),
        GameEntry(
            "one_street",
            "one betting street, lower signal wins (threshold programs)",
            {"signal": bg.one_street},
            signal_sizes,
        ),
        GameEntry(
            "kuhn_continuous",
            "Kuhn poker's betting with uniform signals on [0, 1] (G-infinity; players=k for k players)",
            {"signal": bg.kuhn_continuous},
            kuhn_signal_sizes,
        ),
        GameEntry(
            "river_endgame",
            "a river endgame with piecewise-linear signal CDFs",
            {"signal": bg.river_endgame},
            signal_sizes,
        ),
    ]
    entries += [_rules_entry(stem, path) for stem, path in sorted(rules_files().items())]
    return {e.name: e for e in entries}


def rules_files() -> dict[str, Path]:
    """The rules files shipped with the package (``instances/rules/*.py``), by stem."""
    folder = resources.files(__package__) / "rules"
    return {
        Path(str(f)).stem: Path(str(f))
        for f in folder.iterdir()
        if str(f).endswith(".py") and not Path(str(f)).name.startswith("_")
    }


def rules_factory(path: Path) -> Callable[..., Any]:
    """A factory generating the game of the rules file ``path``, taking the rules'
    parameters (its signature is theirs, so parameters are typed by their defaults), with
    ``size``, the estimate of its nodes, beside it."""
    from ..models.rules import estimate_nodes, generate, load_rules

    rules_file = load_rules(path)

    def build(**params: Any) -> ExtensiveGame:
        # stop at the nodes the machine can solve: a random-play estimate may fall short
        return generate(rules_file, max_nodes=available_memory() // BYTES_PER_UNIT["extensive"], **params)

    build.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in rules_file.parameters]
    )
    build.summary = _first_line(path) or rules_file.title  # type: ignore[attr-defined]
    # the size estimate of the tree from random plays, taking the same parameters
    build.size = lambda **params: estimate_nodes(rules_file, params)  # type: ignore[attr-defined]
    return build


def _first_line(path: Path) -> str:
    """The first line of a rules file's docstring; the bytes are parsed as Python reads
    them (a byte-order mark, or a coding line), and a file it cannot parse has none."""
    import ast

    try:
        doc = ast.get_docstring(ast.parse(path.read_bytes()))
    except (SyntaxError, ValueError):
        return ""
    return doc.strip().splitlines()[0].rstrip(".") if doc else ""


def _rules_entry(stem: str, path: Path) -> GameEntry:
    factory = rules_factory(path)
    summary = getattr(factory, "summary", stem)
    return GameEntry(
        stem,
        f"{summary} (rules file rules/{path.name})",
        {"extensive": factory},
        {"extensive": factory.size},  # type: ignore[attr-defined]
    )


def _rules_description(spec: str, path_text: str, params: str) -> GameDescription:
    """The game of a rules file given by path, with ``key=value`` parameters."""
    path = Path(path_text)
    if not path.is_file():
        raise UnknownInstanceError(f"no such rules file: {path_text}")
    factory = rules_factory(path)
    parameters = _parameters(factory)
    kwargs = parse_params(path_text, params, parameters)
    size = factory.size  # type: ignore[attr-defined]
    return GameDescription(
        spec, path.stem, kwargs, {"extensive": partial(factory, **kwargs)}, {"extensive": partial(size, **kwargs)}
    )


_ENTRIES: dict[str, GameEntry] | None = None


def entries() -> dict[str, GameEntry]:
    """The registered games by name."""
    global _ENTRIES
    if _ENTRIES is None:
        _ENTRIES = _entries()
    return _ENTRIES


def bundled_files() -> dict[str, Path]:
    """The ``.efg`` files shipped with the package, by stem."""
    folder = resources.files(__package__)
    return {Path(str(f)).stem: Path(str(f)) for f in folder.iterdir() if str(f).endswith(".efg")}


def known_names() -> list[str]:
    """Every name :func:`describe` accepts without a path."""
    return sorted(entries()) + sorted(bundled_files())


def parse_params(name: str, text: str, parameters: dict[str, Parameter]) -> dict[str, Any]:
    """``"key=value,..."`` as typed keyword arguments; UnknownInstanceError names the culprit."""
    kwargs: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in parameters:
            raise UnknownInstanceError(f"'{name}' takes parameters {', '.join(parameters) or '(none)'}; got '{item}'")
        if key in kwargs:
            raise UnknownInstanceError(f"'{name}': parameter {key} is given twice; give it once")
        kwargs[key] = parameters[key].parse(name, value)
    return kwargs


def _bind(factory: Callable, kwargs: dict[str, Any]) -> Callable[[], Any] | None:
    """``factory`` with the keyword arguments it accepts, or None when it takes fewer than
    were given (that view does not exist with these parameters)."""
    accepted = _parameters(factory)
    if any(k not in accepted for k in kwargs):
        return None
    return lambda: factory(**kwargs)


def describe(spec: Any) -> GameDescription:
    """Resolve a game: a registered name with parameters (``"leduc:ranks=4,suits=2"``), a
    bundled ``.efg`` name, a path to a ``.efg`` file, ``openspiel:GAME_STRING``, or a game
    object (ExtensiveGame, OrderedGame, BayesianGame, a pygambit game; a GameDescription is
    returned as is).

    Raises UnknownInstanceError listing the known names or the parameters a name takes.
    """
    from ..models.bayesian import BayesianGame
    from ..models.efg import ExtensiveGame
    from ..models.normal_form import NormalFormGame
    from ..models.ordered import OrderedGame

    if isinstance(spec, GameDescription):
        return spec
    if isinstance(spec, ExtensiveGame):
        return GameDescription(spec.title or "game", spec.title or "game", {}, {"extensive": lambda: spec})
    if isinstance(spec, OrderedGame):
        return GameDescription(spec.name, spec.name, {}, {"ordered": lambda: spec, "extensive": spec.to_extensive})
    if isinstance(spec, NormalFormGame):
        title = spec.title or "game"
        return GameDescription(title, title, {}, {"normal": lambda: spec, "extensive": spec.to_extensive})
    if isinstance(spec, BayesianGame):
        factories: dict[str, Callable[[], Any]] = {"signal": lambda: spec}
        if spec.finite:
            factories["extensive"] = _signal_extensive(lambda: spec, spec.name)
        return GameDescription(spec.name, spec.name, {}, factories)
    if type(spec).__module__.startswith("pygambit"):
        from ..interop.gambit import from_pygambit

        game = from_pygambit(spec)
        return GameDescription(
            game.title or "gambit game", game.title or "gambit game", {}, {"extensive": lambda: game}
        )
    if isinstance(spec, Path):
        spec = str(spec)
    if not isinstance(spec, str):
        raise UnknownInstanceError(
            f"a game is a name such as 'leduc:ranks=4', a .efg path or a game object, not {type(spec).__name__}"
        )
    if spec.startswith("openspiel:"):
        return _openspiel(spec)
    rules_spec = re.fullmatch(r"(?P<path>.+\.py)(?::(?P<params>.*))?", spec, flags=re.DOTALL)
    if rules_spec:
        return _rules_description(spec, rules_spec["path"], rules_spec["params"] or "")
    if spec.endswith(".nfg"):
        from ..models.nfg_io import read_nfg

        path = Path(spec)
        if not path.is_file():
            raise UnknownInstanceError(f"no such file: {spec}")
        game_nfg = read_nfg(path)  # read now: a bad file is named before any route runs
        return GameDescription(spec, path.stem, {}, {"normal": lambda: game_nfg, "extensive": game_nfg.to_extensive})
    if spec.endswith(".efg") or Path(spec).is_file():
        from ..models.efg_io import read_efg

        path = Path(spec)
        if not path.is_file():
            raise UnknownInstanceError(f"no such file: {spec}")
        return GameDescription(spec, path.stem, {}, {"extensive": lambda: read_efg(path)})
    name, _, params = spec.partition(":")
    name = name.strip()
    bundled = bundled_files()
    if name in bundled and name not in entries():
        if params.strip():
            raise UnknownInstanceError(f"'{name}' is a bundled file and takes no parameters; got '{params}'")
        from ..models.efg_io import read_efg

        return GameDescription(spec, name, {}, {"extensive": lambda: read_efg(bundled[name])})
    if name not in entries():
        raise UnknownInstanceError(f"unknown game '{name}'; known: {', '.join(known_names())}")
    entry = entries()[name]
    kwargs = parse_params(name, params, entry.parameters)
    factories = {}
    for view, factory in entry.factories.items():
        if getattr(factory, "two_players_only", False) and kwargs.get("players", 2) != 2:
            continue  # a view of two-player games only (the factory would refuse)
        bound = _bind(factory, kwargs)
        if bound is not None:
            factories[view] = bound
    if "extensive" not in entry.factories and "signal" in factories:
        factories["extensive"] = _signal_extensive(factories["signal"], spec)
    sizes: dict[str, Callable[[], int | None]] = {}
    for view, size in entry.sizes.items():
        taken = {k: v for k, v in kwargs.items() if k in _parameters(size) or _takes_any(size)}
        sizes[view] = partial(size, **taken)
    return GameDescription(spec, name, kwargs, factories, sizes)


def _takes_any(function: Callable) -> bool:
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in inspect.signature(function).parameters.values())


#: Peak bytes per node while an OpenSpiel game is walked into an ExtensiveGame (Python
#: lists and information-state strings, then the arrays: Liar's dice, 294,883 nodes, about
#: 80 MB; twice that, for longer information states).
OPENSPIEL_BYTES_PER_NODE = 600


def _openspiel(spec: str) -> GameDescription:
    game_string = spec.split(":", 1)[1].strip()
    if not game_string:
        raise UnknownInstanceError("openspiel: needs a game string, e.g. openspiel:kuhn_poker(players=3)")

    def build() -> ExtensiveGame:
        try:
            from ..interop.openspiel import DEFAULT_MAX_NODES, from_openspiel
        except ImportError as exc:  # the module or OpenSpiel itself
            raise UnknownInstanceError(f"{spec}: OpenSpiel is not installed (pip install open_spiel): {exc}") from None
        # nodes are counted as the tree is walked: it stops where this process's memory
        # would (random-play estimates fall far short on games like Liar's dice)
        fits = available_memory() // OPENSPIEL_BYTES_PER_NODE
        return from_openspiel(game_string, max_nodes=max(1, min(DEFAULT_MAX_NODES, fits)))

    def traits() -> dict[str, Any]:
        from ..interop.openspiel import game_traits

        return game_traits(game_string)

    return GameDescription(spec, spec, {}, {"extensive": build}, traits=traits)


def load(spec: Any) -> ExtensiveGame:
    """The extensive form of a game (see :func:`describe` for what ``spec`` may be)."""
    return describe(spec).view("extensive")


def catalog(route_views: Mapping[str, str] | None = None) -> list[dict]:
    """One row per registered game and bundled file: name, summary, parameters with
    defaults, views and, given ``route_views`` (each route's view, alternatives joined by
    ``|``: the registry of routes), the routes those views allow."""
    rows = []
    for e in entries().values():
        views = list(e.views)
        if "extensive" not in views and "signal" in views:
            views.insert(0, "extensive (cards=N)")
        rows.append(
            {"name": e.name, "summary": e.summary, "parameters": {n: p.default for n, p in e.parameters.items()}}
            | {"views": views}
            | _routes(e.views, route_views)
        )
    for stem in sorted(bundled_files()):
        if stem not in entries():
            rows.append(
                {"name": stem, "summary": f"bundled file {stem}.efg", "parameters": {}, "views": ["extensive"]}
                | _routes(("extensive",), route_views)
            )
    return rows


def _routes(views: Sequence[str], route_views: Mapping[str, str] | None) -> dict[str, list[str]]:
    """``{"routes": [...]}``: the routes whose view the game offers (a signal game offers
    its extensive form too), or nothing without ``route_views``."""
    if route_views is None:
        return {}
    offered = set(views) | ({"extensive"} if "signal" in views else set())
    return {"routes": [r for r, v in route_views.items() if offered & set(v.split("|"))]}


__all__ = [
    "VIEWS",
    "GameDescription",
    "GameEntry",
    "Parameter",
    "ViewUnavailable",
    "bundled_files",
    "catalog",
    "describe",
    "entries",
    "known_names",
    "load",
    "parse_params",
]
