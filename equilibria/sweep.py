"""Sweeps: any route over a grid of games and options, one table row per cell.

A :class:`Grid` names a route (``lp``, ``shrink``, ``threshold``), the games (specs such as
``leduc:ranks=3``, with ``3..6`` ranges and ``3|5`` alternatives in their values, and
parameter ranges applied to every game) and the route's options, each a list of values.
Its cells are the cartesian product; each cell is a fresh :func:`equilibria.solve` and
becomes one row: the game's parameters and the options, then status, seconds (total and
per stage), the program's rows, columns, nonzeros (and binaries), value, exploitability,
NashConv, where the certificate was computed and, for a failed cell, the error.

:func:`run_sweep` runs the cells that are not yet recorded, in local worker processes or
on a Dask cluster. Every finished cell is written at once, durably, as one small JSON file
named by the cell's key (a hash of route, game and options) in a folder beside the output;
the Parquet and CSV tables are rebuilt from those files every few seconds and at the end,
each replaced atomically. An interrupted sweep so loses at most the cells in flight; run
again, it solves only the cells not recorded, and no cell is ever recorded twice.

>>> grid = Grid.from_dict({"route": "lp", "games": ["kuhn", "generalized_kuhn:cards=3..4"],
...                        "options": {"method": ["simplex", "ipx"]}})
>>> len(grid.cells())
6
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .models import checks
from .models.errors import EquilibriaError, OutputError
from .models.inputs import read_input_text
from .models.wording import plural

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("equilibria.sweep")

#: Columns of threshold programs with products (three or more players): the promised
#: NashConv bound (a priori) and the bound proven at the answer beside the certified one,
#: the breakpoints and products used, and the rounds run.
PRODUCT_COLUMNS = (
    "promised_epsilon",
    "bound_at_answer",
    "certified_epsilon",
    "breakpoints",
    "num_products",
    "rounds_run",
)

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

#: Seconds between rebuilds of the Parquet and CSV tables while a sweep runs.
CONSOLIDATE_EVERY = 5.0

#: Seconds between progress lines when tqdm is not installed.
PROGRESS_EVERY = 5.0


class SweepError(EquilibriaError):
    """A grid that cannot run: an unknown option or parameter, an empty grid, a bad file."""


# --------------------------------------------------------------------------- the grid


@dataclass(frozen=True)
class Cell:
    """One point of a grid: a route, a game spec (``name:key=value,...``), the game's
    name and typed parameters, and the route's typed options."""

    route: str
    game: str
    params: tuple[tuple[str, Any], ...]
    options: tuple[tuple[str, Any], ...]

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
        sorted order, typed), the same in every run and on every machine."""
        text = json.dumps(
            {"route": self.route, "game": self.game, "params": dict(self.params), "options": dict(self.options)},
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]


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
    """The route's options as inspect.Parameter objects, by name."""
    from .routes import ROUTES

    if route not in ROUTES:
        raise SweepError(f"unknown route '{route}'; routes: {', '.join(ROUTES)}")
    return ROUTES[route].signature()


def _coerce_option(route: str, name: str, parameter: Any, value: Any) -> Any:
    """An option value typed as the route takes it (text from the command line or a grid
    becomes a bool, int or float by the option's annotation or default) and checked
    (:func:`equilibria.routes.check_option`): a bad value is bad input, not a cell that fails."""
    from .routes import check_option, option_from_text

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = repr(value)  # typed below like text, so that 0 and 0.0 make one cell
    if value is not None and not isinstance(value, (str, bool)):
        # a YAML grid reads 2024-01-01 as a date, [1, 2] as a list: no option takes those
        raise SweepError(
            f"option {name} of route '{route}' takes text or a number, not {type(value).__name__} {value!r}"
        )
    try:
        if isinstance(value, str):
            value = option_from_text(route, name, parameter, value)
        return check_option(route, name, parameter, value)
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

        from .instances.registry import bundled_files, entries, known_names

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

        from .instances.registry import describe
        from .models.errors import UnknownInstanceError

        parameters = _route_parameters(self.route)
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
        from .routes import ROUTES

        view = ROUTES[self.route].view
        _check_cell_count(len(games) * math.prod(len(v) for v in options.values()), "the grid")
        checked: set[str] = set()
        cells: dict[str, Cell] = {}
        names = list(options)
        for (game, params), combo in product(games, product(*(options[n] for n in names))):
            cell = Cell(self.route, game, tuple(params.items()), tuple(zip(names, combo)))
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


# --------------------------------------------------------------------------- one cell


def run_cell(cell: Cell) -> dict[str, Any]:
    """Solve one cell afresh and return its row (a dict of plain values). A failure is a
    row with status ``error`` and the message, never an exception (but an interrupt)."""
    from .routes import solve

    row: dict[str, Any] = {"key": cell.key, "route": cell.route, "game": cell.game, "spec": cell.spec}
    row.update(_columns(cell))
    t0 = time.perf_counter()
    try:
        answer = solve(cell.spec, cell.route, **dict(cell.options))
        d = answer.to_dict()
    except Exception as exc:  # a failed cell is a row, not the end of the sweep
        message = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, EquilibriaError):
            message = f"{type(exc).__name__}: {message}"
        row.update(status="error", error=message[:2000], seconds=time.perf_counter() - t0)
        return row
    row.update(
        status=str(d.get("status")),
        value=d.get("value"),
        exploitability=d.get("exploitability"),
        nash_conv=d.get("nash_conv"),
        certified_in=d.get("certified_in"),
        rows=d.get("rows"),
        columns=d.get("columns"),
        nonzeros=d.get("nonzeros"),
        backend_used=d.get("backend"),
        method_used=d.get("method"),
        seconds=time.perf_counter() - t0,
        error=None,
    )
    if d.get("binaries") is not None:
        row["binaries"] = d["binaries"]
    # threshold programs with products: the guarantee beside the measured epsilon
    for name in PRODUCT_COLUMNS:
        if d.get(name) is not None:
            # the grid the program ended on; a cell's own breakpoints option keeps its name
            row["breakpoints_used" if name == "breakpoints" else name] = d[name]
    for stage, seconds in d.get("seconds", {}).items():
        row[f"seconds_{stage}"] = seconds
    return row


def _columns(cell: Cell) -> dict[str, Any]:
    """The cell's parameters and options as row columns (prefixed ``param_`` / ``option_``
    only when a name collides with a result column)."""
    out: dict[str, Any] = {}
    for prefix, items in (("param_", cell.params), ("option_", cell.options)):
        for name, value in items:
            column = prefix + name if name in RESULT_COLUMNS or name.startswith("seconds_") or name in out else name
            out[column] = value
    return out


# --------------------------------------------------------------------------- storage


def _write_durably(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that it is either absent or complete, even after a
    crash: a temporary file, fsync, rename, fsync of the folder."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


class Store:
    """Where a sweep's results live: the Parquet table, its CSV twin, and the folder of one
    JSON file per finished cell (``<key>.json``) from which both are rebuilt."""

    def __init__(self, output: str | os.PathLike) -> None:
        from .models.output import check_target

        base = Path(output)
        if base.is_dir():
            raise OutputError(f"cannot write {base}: it is a directory; name the results, e.g. {base / 'results'}")
        if base.suffix.lower() in (".parquet", ".csv"):
            base = base.with_suffix("")
        self.parquet = check_target(base.with_name(base.name + ".parquet"))
        self.csv = check_target(base.with_name(base.name + ".csv"))
        self.folder = base.with_name(base.name + ".cells")
        self.created = not self.folder.exists()
        try:
            self.folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot write {self.folder}: {exc.strerror or exc}") from None
        if not os.access(self.folder, os.W_OK) or not os.access(self.parquet.parent, os.W_OK):
            raise OutputError(f"cannot write {self.folder}: permission denied")

    def recorded(self) -> dict[str, dict[str, Any]]:
        """Every recorded row by key: the cell files, and rows of an earlier table whose
        cell files are gone."""
        rows: dict[str, dict[str, Any]] = {}
        if self.parquet.exists():
            try:
                import pandas as pd

                for row in pd.read_parquet(self.parquet).to_dict("records"):
                    rows[str(row["key"])] = {k: v for k, v in row.items() if not _missing(v)}
            except Exception as exc:  # an unreadable old table: the cell files still count
                log.warning("ignoring %s: %s", self.parquet, exc)
        for path in self.folder.glob("*.json"):
            try:
                row = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # a file cut short by a crash is not a record
            rows[str(row.get("key", path.stem))] = row
        return rows

    def record(self, row: dict[str, Any]) -> None:
        """Write one finished cell durably."""
        _write_durably(self.folder / f"{row['key']}.json", json.dumps(row, default=_json_default))

    def discard(self) -> None:
        """Remove the cell folder when this run created it and it holds no record (a sweep
        that failed before any cell finished leaves nothing behind)."""
        if not self.created:
            return
        try:
            for path in self.folder.iterdir():  # only files cut short: a record would be kept
                if path.suffix != ".json" or path.name.startswith("."):
                    path.unlink()
            self.folder.rmdir()
        except OSError:
            pass

    def forget(self, key: str) -> None:
        """Remove a cell's record (to solve it again)."""
        (self.folder / f"{key}.json").unlink(missing_ok=True)

    def consolidate(self, order: Iterable[str] = ()) -> pd.DataFrame:
        """Rebuild the Parquet and CSV tables from every recorded cell (cells of ``order``
        first, in that order) and return the table."""
        from .models.output import atomic_output

        rows = self.recorded()
        keys = [k for k in order if k in rows] + [k for k in rows if k not in set(order)]
        table = to_table([rows[k] for k in keys])
        with atomic_output(self.parquet) as tmp:
            table.to_parquet(tmp, index=False)
        with atomic_output(self.csv) as tmp:
            table.to_csv(tmp, index=False)
        return table


def _missing(value: Any) -> bool:
    """True for None, NaN and pandas' NA."""
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or an array
        return False


def _json_default(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def to_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows as a DataFrame with the result columns first; a column mixing kinds of values
    (numbers and text) is kept as text so that it fits one Parquet type."""
    import numpy as np
    import pandas as pd

    columns: list[str] = []
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    first = [c for c in RESULT_COLUMNS if c in columns or c == "error"]
    params = [c for c in columns if c not in RESULT_COLUMNS and not c.startswith("seconds_")]
    stages = [c for c in columns if c.startswith("seconds_")]
    order = first[:4] + params + first[4:] + stages
    table = pd.DataFrame(rows, columns=order)
    numbers = {int, float, bool}
    for c in table.columns:
        kinds = {type(v.item() if isinstance(v, np.generic) else v) for v in table[c] if not _missing(v)}
        raw = {type(row[c]) for row in rows if c in row and not _missing(row[c])}
        if (kinds - numbers and kinds & numbers) or len(kinds - numbers) > 1:
            table[c] = [None if _missing(v) else str(v) for v in table[c]]
        elif raw <= {int, np.int64} and raw and kinds <= {int, float}:
            table[c] = table[c].astype("Int64")
    return table


# --------------------------------------------------------------------------- running


@dataclass
class SweepResult:
    """What :func:`run_sweep` did: the table of every recorded cell, and counts of the
    cells of the grid, those solved in this run, those skipped as already recorded and
    those that failed (status ``error``) in this run."""

    table: pd.DataFrame
    cells: int
    solved: int
    skipped: int
    errors: int
    parquet: Path
    csv: Path
    seconds: float


class _Progress:
    """A progress bar (tqdm when installed) or a line on the log every few seconds."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.done, self.errors, self.show = total, 0, 0, show
        self.start = self.last = time.perf_counter()
        self.bar: Any = None
        if show:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="cell", desc="sweep", leave=False)
            except ImportError:
                pass

    def update(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.errors += row.get("status") == "error"
        if not self.show:
            return
        if self.bar is not None:
            self.bar.update(1)
            return
        now = time.perf_counter()
        if now - self.last >= PROGRESS_EVERY or self.done == self.total:
            self._say(now, [])

    def tick(self, running: list[tuple[Cell, float]]) -> None:
        """Between cells: say every few seconds which cells are running, and for how long,
        so that a long cell does not look like a stalled sweep."""
        now = time.perf_counter()
        if self.show and self.bar is None and running and now - self.last >= PROGRESS_EVERY:
            self._say(now, running)

    def _say(self, now: float, running: list[tuple[Cell, float]]) -> None:
        self.last = now
        busy = "; running " + ", ".join(f"{cell.describe()} ({now - since:.0f} s)" for cell, since in running)
        log.info(
            "sweep: %d of %d cells done (%s), %.0f s%s",
            self.done,
            self.total,
            plural(self.errors, "error"),
            now - self.start,
            busy if running else "",
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _run_local(
    cells: list[Cell],
    workers: int,
    finished: Callable[[dict[str, Any]], None],
    tick: Callable[[list[tuple[Cell, float]]], None] = lambda running: None,
) -> None:
    """Run ``cells`` in ``workers`` processes (0: in this process), at most ``workers`` in
    flight, calling ``finished`` with each row in this process and ``tick`` between waits
    with the cells in flight and when each started."""
    if workers <= 0:
        for cell in cells:
            finished(run_cell(cell))
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    todo = list(reversed(cells))
    context = multiprocessing.get_context("spawn")
    _quiet_resource_tracker()

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_orphan_exits, initargs=(os.getpid(),)
        )

    pool = new_pool()
    running: dict[Future, Cell] = {}
    started: dict[Future, float] = {}
    try:
        while todo or running:
            while todo and len(running) < workers:
                cell = todo.pop()
                future = pool.submit(run_cell, cell)
                running[future], started[future] = cell, time.perf_counter()
            # wake up often: an interrupt is seen between waits, not after the next cell
            done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
            tick([(running[f], started[f]) for f in running if f not in done])
            broken = False
            for future in done:
                cell = running.pop(future)
                try:
                    row = future.result()
                except BrokenProcessPool:
                    broken = True
                    row = _error_row(cell, "a worker process died while this cell ran (a crash or out of memory)")
                finished(row)
            if broken:
                for cell in list(running.values()):
                    finished(_error_row(cell, "a worker process died while this cell ran (a crash or out of memory)"))
                running.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool()
    except BaseException:
        _kill(pool)
        raise
    pool.shutdown(wait=True)


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with its leak warning off. An interrupted
    sweep leaves at once (os._exit), before the pool's queues release their semaphores;
    the tracker then unlinks them itself, as it should, but also prints a UserWarning
    that reads like a fault. The tracker takes its warning filters from this process's
    ``-W`` options when it starts."""
    from multiprocessing import resource_tracker

    rule = "ignore::UserWarning:multiprocessing.resource_tracker"
    if rule not in sys.warnoptions:
        sys.warnoptions.append(rule)
    # starting the tracker unblocks SIGINT in this thread; the command line keeps it
    # blocked outside one watching thread, so the mask is put back as it was
    import signal

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, []) if hasattr(signal, "pthread_sigmask") else None
    resource_tracker.ensure_running()
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _orphan_exits(parent: int) -> None:
    """In a worker process: leave as soon as the sweep's process is gone (killed, say), so
    that no worker outlives it solving a cell nobody will record."""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="orphan-exits", daemon=True).start()


def _kill(pool: Any) -> None:
    """Stop a process pool at once: its workers are terminated, pending cells dropped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


#: Seconds to wait for a Dask scheduler before saying it cannot be reached.
SCHEDULER_SECONDS = 20


def _run_dask(cells: list[Cell], scheduler: Any, finished: Callable[[dict[str, Any]], None]) -> None:
    """Run ``cells`` on a Dask cluster (a scheduler address or a distributed.Client)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise SweepError("a Dask scheduler needs dask.distributed: pip install 'equilibria[sweep]'") from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout=SCHEDULER_SECONDS) if own else scheduler
    except (OSError, TimeoutError, ValueError) as exc:
        raise SweepError(f"cannot reach the Dask scheduler {scheduler}: {' '.join(str(exc).split())}") from None
    futures = []
    try:
        futures = [client.submit(run_cell, cell, key=f"equilibria-sweep-{cell.key}", pure=False) for cell in cells]
        by_key: dict[Any, Cell] = {f.key: c for f, c in zip(futures, cells)}
        pending = as_completed(futures)
        while not pending.is_empty():
            batch = pending.next_batch(block=False)
            if not batch:
                time.sleep(0.1)  # polled, so that an interrupt is seen at once
            for future in batch:
                finished(_dask_row(future, by_key))
    finally:
        if futures:
            client.cancel(futures)
        if own:
            client.close()


def _dask_row(future: Any, by_key: dict[Any, Cell]) -> dict[str, Any]:
    """A finished Dask future's row (an error row when the task itself failed)."""
    try:
        return future.result()
    except Exception as exc:  # the worker died, or the task could not be run
        return _error_row(by_key[future.key], f"{type(exc).__name__}: {' '.join(str(exc).split())}")


def _error_row(cell: Cell, message: str) -> dict[str, Any]:
    row: dict[str, Any] = {"key": cell.key, "route": cell.route, "game": cell.game, "spec": cell.spec}
    row.update(_columns(cell))
    row.update(status="error", error=message)
    return row


def run_sweep(
    grid: Grid | Mapping[str, Any],
    output: str | os.PathLike,
    *,
    workers: int = 2,
    scheduler: Any = None,
    retry_errors: bool = False,
    progress: bool = False,
) -> SweepResult:
    """Run every cell of ``grid`` not yet recorded in ``output`` and return the table.

    ``output`` names the tables: ``results`` (or ``results.parquet`` / ``results.csv``)
    writes ``results.parquet`` and ``results.csv`` and keeps one file per finished cell in
    ``results.cells/``. Cells run in ``workers`` local processes (0: in this process) or,
    when ``scheduler`` is given (``"tcp://host:port"`` or a ``distributed.Client``), on that
    Dask cluster. ``retry_errors`` solves again the cells recorded with status ``error``.
    ``progress`` shows a bar (tqdm) or logs a line every few seconds. The grid and the
    output are checked before anything runs (SweepError, OutputError).
    """
    t0 = time.perf_counter()
    if not isinstance(grid, Grid):
        grid = Grid.from_dict(grid)
    try:
        checks.count("workers", workers, minimum=0, maximum=checks.MAX_WORKERS)
    except checks.OptionError as exc:
        raise SweepError(str(exc)) from None
    cells = grid.cells()
    store = Store(output)
    recorded = store.recorded()
    if retry_errors:
        for cell in cells:
            if recorded.get(cell.key, {}).get("status") == "error":
                store.forget(cell.key)
                del recorded[cell.key]
    todo = [c for c in cells if c.key not in recorded]
    order = [c.key for c in cells]
    log.info("sweep: %d cells, %d already recorded, %d to solve", len(cells), len(cells) - len(todo), len(todo))
    bar = _Progress(len(todo), progress)
    last = time.perf_counter()

    def finished(row: dict[str, Any]) -> None:
        nonlocal last
        store.record(row)
        bar.update(row)
        if time.perf_counter() - last >= CONSOLIDATE_EVERY:
            store.consolidate(order)
            last = time.perf_counter()

    try:
        if scheduler is not None:
            _run_dask(todo, scheduler, finished)
        else:
            _run_local(todo, workers, finished, bar.tick)
        bar.close()
        table = store.consolidate(order)
    except BaseException as exc:
        bar.close()
        _after_failure(store, order, exc)
        raise
    return SweepResult(
        table, len(cells), bar.done, len(cells) - len(todo), bar.errors, store.parquet, store.csv,
        time.perf_counter() - t0,
    )  # fmt: skip


def _after_failure(store: Store, order: list[str], exc: BaseException) -> None:
    """What a sweep that stops on an error or an interrupt leaves: nothing when no cell was
    ever recorded; else its records (from which a new run resumes) and tables rebuilt from
    them, the error saying so."""
    recorded = store.recorded()
    if not recorded:
        store.discard()
        return
    try:
        store.consolidate(order)
        tables = f" and in {store.parquet.name}"
    except (OSError, EquilibriaError):
        tables = ""
    if isinstance(exc, EquilibriaError) and exc.args:
        exc.args = (
            f"{exc.args[0]}; {plural(len(recorded), 'cell')} recorded in {store.folder}{tables}: "
            "run the sweep again to go on",
        ) + exc.args[1:]


# --------------------------------------------------------------------------- plots


def plot(table: pd.DataFrame, path: str | os.PathLike, x: str, y: str, series: str | None = None) -> bool:
    """Plot column ``y`` against column ``x``, one line per value of ``series``, into
    ``path`` (PNG, SVG or PDF by its ending). Rows that failed or lack ``y`` are left out;
    several rows at one point (other columns varying) are averaged. Returns False (and
    logs why) when matplotlib is not installed."""
    import pandas as pd

    for name in (x, y) + ((series,) if series else ()):
        if name not in table.columns:
            raise SweepError(f"no column '{name}' to plot; columns: {', '.join(table.columns)}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("no plot: matplotlib is not installed (pip install matplotlib)")
        return False
    from .models.output import atomic_output

    data = table[table[y].notna()].copy()
    data[y] = pd.to_numeric(data[y], errors="coerce")
    data = data[data[y].notna()]
    numeric_x = pd.api.types.is_numeric_dtype(data[x])
    positions = {v: i for i, v in enumerate(dict.fromkeys(data[x].astype(str)))}
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    groups = data.groupby(data[series].astype(str), sort=True) if series else [(None, data)]
    for label, part in groups:
        points = part.groupby(part[x] if numeric_x else part[x].astype(str))[y].mean()
        xs = list(points.index) if numeric_x else [positions[v] for v in points.index]
        pairs = sorted(zip(xs, points.values))
        ax.plot([p[0] for p in pairs], [p[1] for p in pairs], marker="o", label=None if label is None else label)
    if numeric_x and pd.api.types.is_integer_dtype(data[x]):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if not numeric_x:
        ax.set_xticks(list(positions.values()), list(positions), rotation=30, ha="right")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if series:
        ax.legend(title=series)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    suffix = Path(path).suffix or ".png"
    with atomic_output(path, suffix=suffix) as tmp:
        fig.savefig(tmp, format=suffix.lstrip(".").lower() or "png", dpi=120)
    plt.close(fig)
    return True


__all__ = ["Cell", "Grid", "Store", "SweepError", "SweepResult", "plot", "run_cell", "run_sweep", "to_table"]
