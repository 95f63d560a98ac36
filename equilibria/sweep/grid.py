"""A sweep's grid: the route, the games and parameter ranges, the options' values,
checked and typed before any cell runs; one :class:`Cell` per point."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..models.errors import EquilibriaError
from ..models.inputs import read_input_text

if TYPE_CHECKING:
    pass


#: Columns every row has, besides the game's parameters and the route's options.
RESULT_COLUMNS = (
    "key",
    "route",
    "game",
    "spec",
    "status",
    "value",
    "exploitability",
    "nash_conv",
    "equilibrium",
    "certified_in",
    "rows",
    "columns",
    "nonzeros",
    "binaries",
    "backend_used",
    "method_used",
    "seconds",
    "error",
)


class SweepError(EquilibriaError):
    """A grid that cannot run: an unknown option or parameter, an empty grid, a bad file."""


@dataclass(frozen=True)
class Cell:
    """One point of a grid: a route, a game spec (``name:key=value,...``), the game's
    name and typed parameters, and the route's typed options."""

    route: str
    game: str
    params: tuple[tuple[str, Any], ...]
    options: tuple[tuple[str, Any], ...]
    #: the route's registration, carried to worker processes where it was registered at
    #: run time (not through an entry point); no part of the cell's key
    registration: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @property
    def spec(self) -> str:
        """The game spec the registry resolves (``leduc:ranks=3,suits=2``)."""
        if not self.params:
            return self.game
        return self.game + ":" + ",".join(f"{k}={_text(v)}" for k, v in self.params)

    def describe(self) -> str:
        """The cell in a few words: its game and options (``kuhn:players=3 breakpoints=9``)."""
        return " ".join([self.spec, *(f"{k}={_text(v)}" for k, v in self.options)])

    @property
    def key(self) -> str:
        """A stable 16-hex-digit key: the hash of route, game, parameters and options (in
        sorted order, typed), the same in every run and on every machine; for a game in a
        file (.efg, .nfg, rules), of its content too, so that an edited file is solved
        again rather than taken from the records."""
        record = {"route": self.route, "game": self.game, "params": dict(self.params), "options": dict(self.options)}
        content = _file_digest(self.game)
        if content is not None:
            record["content"] = content
        text = json.dumps(record, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _file_digest(game: str) -> str | None:
    """The SHA-256 of the file a game names, or None when it names none."""
    try:
        info = os.stat(game)
    except (OSError, ValueError):
        return None
    if not os.path.isfile(game):
        return None
    return _digest_of(game, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=256)
def _digest_of(path: str, mtime_ns: int, size: int) -> str | None:
    """A file's digest, read once per version (its time and size in the cache key)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return str(value)


#: Most cells one sweep holds: its store keeps a file per cell, and a range such as
#: ``3..1000000`` is more often a slip than a plan (split a larger study into sweeps).
MAX_SWEEP_CELLS = 100_000


def _check_cell_count(count: int, what: str) -> None:
    if count > MAX_SWEEP_CELLS:
        raise SweepError(
            f"{what} makes {count:,} cells; a sweep holds at most {MAX_SWEEP_CELLS:,} (split it into several sweeps)"
        )


def _values(value: Any, name: str = "") -> list[Any]:
    """A grid entry as a list: lists as they are, ``"a,b"`` split, ``"3..6"`` expanded."""
    if isinstance(value, (list, tuple)):
        items: list[Any] = list(value)
    elif isinstance(value, str):
        items = [part.strip() for part in re.split(r"[,|]", value)]
    else:
        items = [value]
    out: list[Any] = []
    for item in items:
        if isinstance(item, str):
            m = re.fullmatch(r"\s*([+-]?\d+)\s*\.\.\s*([+-]?\d+)\s*", item)
            if m:
                low, high = int(m.group(1)), int(m.group(2))
                if high < low:
                    raise SweepError(f"empty range '{item}'")
                _check_cell_count(high - low + 1, f"the range '{item.strip()}'")
                out.extend(range(low, high + 1))
                continue
            if item == "":
                raise SweepError(f"an empty value{f' of {name}' if name else ''} in the grid")
        out.append(item)
    return out


def _route_parameters(route: str) -> dict[str, Any]:
    """The route's options (:class:`~equilibria.core.options.OptionSpec`), by name."""
    from ..core.options import option_specs
    from ..core.registry import get_route

    try:
        return option_specs(get_route(route).options_class())
    except EquilibriaError as exc:
        raise SweepError(str(exc)) from None


def _coerce_option(route: str, name: str, spec: Any, value: Any) -> Any:
    """An option value typed as the route takes it (text from the command line or a grid
    read by the option's type) and checked (:func:`equilibria.core.options.check_value`):
    a bad value is bad input, not a cell that fails."""
    from ..core.options import check_value, value_from_text

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = repr(value)  # typed below like text, so that 0 and 0.0 make one cell
    if value is not None and not isinstance(value, (str, bool)):
        # a YAML grid reads 2024-01-01 as a date, [1, 2] as a list: no option takes those
        raise SweepError(
            f"option {name} of route '{route}' takes text or a number, not {type(value).__name__} {value!r}"
        )
    try:
        value = value_from_text(route, spec, value) if isinstance(value, str) else check_value(route, spec, value)
        if name == "backend" and value is not None:
            from ..core.registry import get_route
            from ..core.skeleton import check_backend

            # an unknown backend, or one that cannot solve the route's program, is bad input
            check_backend(get_route(route), value)
        return value
    except EquilibriaError as exc:
        raise SweepError(str(exc)) from None


@dataclass
class Grid:
    """A sweep's grid: a route, the games, game parameters applied to every game, and route
    options, each parameter and option a list of values.

    ``games`` are specs (``kuhn``, ``leduc:ranks=3``; a value may be a range ``3..6`` or
    alternatives ``3|5``); ``params`` and ``options`` map names to lists of values (or to
    ``"a,b"`` / ``"3..6"`` text).
    """

    route: str = "lp"
    games: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    KEYS = ("route", "games", "game", "params", "options")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "the grid") -> Grid:
        """A grid from a mapping with keys ``route``, ``games`` (or ``game``), ``params``
        and ``options``; SweepError names an unknown key."""
        if not isinstance(data, Mapping):
            raise SweepError(f"{source} must be a mapping with keys {', '.join(cls.KEYS)}")
        unknown = [k for k in data if k not in cls.KEYS]
        if unknown:
            raise SweepError(f"{source} has an unknown key '{unknown[0]}'; keys: {', '.join(cls.KEYS)}")
        games: list[str] = []
        for key in ("game", "games"):
            value = data.get(key)
            if value is None:
                continue
            for g in value if isinstance(value, (list, tuple)) else [value]:
                if not isinstance(g, str) or not g.strip():
                    raise SweepError(f"{source}: a game is a spec such as 'leduc:ranks=3', not {g!r}")
                games.append(g.strip())
        for key in ("params", "options"):
            if not isinstance(data.get(key, {}), Mapping):
                raise SweepError(f"{source}: '{key}' must map names to lists of values")
        route = data.get("route", "lp")
        if not isinstance(route, str):
            raise SweepError(f"{source}: 'route' is a name such as 'lp', not {route!r}")
        return cls(route, games, dict(data.get("params", {})), dict(data.get("options", {})))

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> Grid:
        """A grid from a JSON file, or a YAML file (``.yaml``/``.yml``, needs PyYAML)."""
        p = Path(path)
        text = read_input_text(p, "grid", SweepError)
        if p.suffix.lower() in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise SweepError(
                    f"{p}: YAML grids need PyYAML (pip install 'equilibria[sweep]'); or write the grid as JSON"
                ) from None
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise SweepError(f"{p}: not valid YAML: {' '.join(str(exc).split())}") from None
        else:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SweepError(f"{p}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
            except (ValueError, RecursionError) as exc:  # a 5,000-digit number, or nesting too deep
                raise SweepError(f"{p}: not a grid: {' '.join(str(exc).split())[:120]}") from None
        return cls.from_dict(data, str(p))

    def _game_specs(self) -> list[tuple[str, dict[str, Any]]]:
        """Every game of the grid as (name, typed parameters), parameter ranges expanded and
        checked against the registry (SweepError names an unknown game or parameter)."""
        from itertools import product

        from ..instances.registry import bundled_files, entries, known_names

        out: list[tuple[str, dict[str, Any]]] = []
        for spec in self.games:
            name, _, text = spec.partition(":")
            name = name.strip()
            given: dict[str, list[Any]] = {}
            for item in filter(None, (s.strip() for s in re.split(r",(?=\s*[A-Za-z_]\w*\s*=)", text))):
                key, eq, value = item.partition("=")
                if not eq:
                    raise SweepError(f"'{spec}': a parameter is written name=value, not '{item}'")
                given[key.strip()] = _values(value, key.strip())
            for key, values in self.params.items():
                if key in given:
                    raise SweepError(f"parameter {key} is given twice, in '{spec}' and as a grid parameter")
                given[key] = _values(values, key)
            if name in entries():
                parameters = entries()[name].parameters
                for key in given:
                    if key not in parameters:
                        takes = ", ".join(parameters) or "no parameters"
                        raise SweepError(f"game '{name}' takes no parameter '{key}'; it takes: {takes}")
            elif given:
                if name in bundled_files() or name.endswith(".efg") or Path(name).is_file():
                    raise SweepError(f"'{name}' is a file and takes no parameters; got '{next(iter(given))}'")
                raise SweepError(f"unknown game '{name}'; known: {', '.join(known_names())}")
            else:
                name = spec  # a path, a bundled file or openspiel:..., checked by describe()
            for key, values in given.items():
                if not values:
                    raise SweepError(f"parameter {key} has no values")
            keys = list(given)
            _check_cell_count(len(out) + math.prod(len(v) for v in given.values()), "the grid's games")
            for combo in product(*(given[k] for k in keys)):
                params = {}
                for k, v in zip(keys, combo):
                    params[k] = entries()[name].parameters[k].parse(name, str(v)) if name in entries() else v
                out.append((name, params))
        return out

    def cells(self) -> list[Cell]:
        """The cartesian product of games and options, checked before anything runs:
        SweepError names an unknown route, game, parameter or option, a value of the wrong
        type, a game without the view the route needs, or an empty grid. Duplicates are
        kept once."""
        from itertools import product

        from ..instances.registry import describe
        from ..models.errors import UnknownInstanceError

        parameters = _route_parameters(self.route)
        from ..core.registry import get_route

        registration = tuple(get_route(self.route).registration().items())
        options: dict[str, list[Any]] = {}
        for name, values in self.options.items():
            if name not in parameters:
                raise SweepError(
                    f"route '{self.route}' takes no option '{name}'; it takes: {', '.join(parameters) or 'none'}"
                )
            options[name] = [_coerce_option(self.route, name, parameters[name], v) for v in _values(values, name)]
            if not options[name]:
                raise SweepError(f"option {name} has no values")
        if not self.games:
            raise SweepError("the grid is empty: give at least one game (--game NAME or 'games' in the grid file)")
        try:
            games = self._game_specs()
        except UnknownInstanceError as exc:
            raise SweepError(str(exc)) from None
        from ..core.registry import get_route

        view = get_route(self.route).view
        _check_cell_count(len(games) * math.prod(len(v) for v in options.values()), "the grid")
        checked: set[str] = set()
        cells: dict[str, Cell] = {}
        names = list(options)
        for (game, params), combo in product(games, product(*(options[n] for n in names))):
            cell = Cell(self.route, game, tuple(params.items()), tuple(zip(names, combo)), registration)
            if cell.spec not in checked:
                checked.add(cell.spec)
                try:
                    description = describe(cell.spec)
                except UnknownInstanceError as exc:
                    raise SweepError(str(exc)) from None
                if not any(description.has(v) for v in view.split("|")):  # "normal|extensive": either
                    raise SweepError(
                        f"'{cell.spec}' has no {view.replace('|', ' or ')} form for the {self.route} route; "
                        f"it offers: {', '.join(description.views) or 'none'}"
                    )
            cells.setdefault(cell.key, cell)
        if not cells:
            raise SweepError("the grid is empty: no cells")
        return list(cells.values())
