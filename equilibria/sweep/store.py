"""Where a sweep's rows live: one durable file per finished cell, consolidated into Parquet and CSV tables."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..models.errors import OutputError
from .grid import RESULT_COLUMNS

log = logging.getLogger("equilibria.sweep")

if TYPE_CHECKING:
    import pandas as pd


#: Seconds between rebuilds of the Parquet and CSV tables while a sweep runs.
CONSOLIDATE_EVERY = 5.0


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
        from ..models.output import check_target

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
        from ..models.output import atomic_output

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
