"""Strategies read back from files: the strategy CSV that ``--strategy-out`` writes, and
the solution files that solvers write for the sequence-form LPs of ``equilibria export``.

What a file holds is read from its first lines, whatever its name:

* a strategy CSV: the header ``player,infoset,action,probability`` (``reach`` and
  ``equilibrium`` may follow), one row per action of every information set of each player
  it holds, matched to the game by its labels;
* HiGHS's solution file (``highs --solution_file``, highspy's ``writeSolution``), raw or
  pretty style;
* SCIP's (``write solution`` in its shell, PySCIPOpt's ``writeSol``), which lists nonzero
  values only: a variable it leaves out is 0;
* Gurobi's ``.sol``;
* CPLEX's solution file (XML, ``CPLEXSolution``: the Python API's ``solution.write``, the
  interactive ``write FILE.sol``);
* CBC's (``cbc FILE.mps -solve -solu FILE``), which lists nonzero values only, with eight
  significant digits;
* a plain CSV of ``name,value`` lines (a header ``name,value`` may come first).

Values of a solution file are matched to sequences through the column names the exported
LP carries (:mod:`equilibria.models.sequence_names`): ``r1(...)`` are player 1's realization
weights, ``r2(...)`` player 2's, and the LP's other columns (``v1(...)``, ``v2(...)``) are
known and passed over. A file that does not fit the game is refused (:class:`StrategyFileError`)
with one message naming the file and its first offending line or variable: a name no LP of
the game has (another game's file), a column missing, a value that is no number, NaN,
infinite or negative, a plan that breaks the sequence-form constraints (``r() = 1``, each
information set's actions adding up to its parent sequence) by more than the tolerance,
probabilities that do not add up to 1, a truncated file, binary data or a folder.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .errors import StrategyFileError
from .inputs import read_input
from .sequence import SequenceForm
from .sequence_names import infoset_names, is_shared_mip_nash_column, mip_nash_auxiliary_names, plan_names
from .strategy import tree_names

#: How far a plan may break the sequence-form constraints, or a row of probabilities miss
#: 1, before the file is refused (a solver's feasibility tolerance is about 1e-7 to 1e-9).
TOLERANCE = 1e-6

#: Largest file read (bytes, after decompression): a HiGHS solution file of an LP with a
#: million columns and rows, duals included, is about 150 MB.
MAX_FILE_BYTES = 2**30

#: The columns of a strategy table (``Answer.strategy_table``), the first four required.
STRATEGY_COLUMNS = ("player", "infoset", "action", "probability", "reach", "equilibrium")


@dataclass
class StrategyFile:
    """The strategies one file holds: ``behaviors`` maps each player it gives (0-based) to
    a behaviour strategy on the game's sequence form; ``kind`` names the format read."""

    path: str
    kind: str
    behaviors: dict[int, np.ndarray]

    def describe(self) -> str:
        """``FILE (KIND): player 1`` as the answer lists its sources."""
        players = " and ".join(str(p + 1) for p in sorted(self.behaviors))
        return f"{self.path} ({self.kind}): player{'s' if len(self.behaviors) > 1 else ''} {players}"


def read_strategy_file(
    path: str | os.PathLike, sf: SequenceForm, game_name: str, tolerance: float = TOLERANCE
) -> StrategyFile:
    """The behaviour strategies the file at ``path`` holds for the game of ``sf`` (named
    ``game_name`` in messages). Plans are checked against the sequence-form constraints and
    probabilities against 1 within ``tolerance``, then normalised per information set.
    Raises :class:`StrategyFileError` naming the first fault."""
    shown = str(path)
    lines = _lines(path)
    kind, parse = _format(shown, lines)
    if parse is None:
        behaviors = _strategy_csv(shown, lines, sf, game_name, tolerance)
    else:
        entries, complete = parse(shown, lines)
        behaviors = _solution_behaviors(shown, entries, complete, sf, game_name, tolerance)
    return StrategyFile(shown, kind, behaviors)


# ------------------------------------------------------------------ the file's text


def read_solution_values(path: str | os.PathLike) -> tuple[str, list[tuple[str, str, int]]]:
    """The format of the solver's solution file at ``path`` and its entries (name, value
    as written, line number), for programs whose columns are not sequences (a threshold
    program's thresholds). Refuses a strategy CSV, which holds no program's columns."""
    shown = str(path)
    lines = _lines(path)
    kind, parse = _format(shown, lines)
    if parse is None:
        raise StrategyFileError(f"{shown}: a strategy CSV, not a solver's solution of a program")
    entries, _ = parse(shown, lines)
    return kind, entries


def solution_value(path: str, number: int, name: str, text: str) -> float:
    """A solution file's value as a finite number, or the refusal naming its line."""
    return _value(path, number, f"'{name}'", text, math.inf)


def _lines(path: str | os.PathLike) -> list[str]:
    """The file's lines: a regular file, gzip-compressed or not, of UTF-8 text."""
    data = read_input(path, "strategy file", StrategyFileError, limit=MAX_FILE_BYTES)
    if data[:2] == b"\x1f\x8b":  # gzip's magic number
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
                data = unpacked.read(MAX_FILE_BYTES + 1)
        except (OSError, EOFError) as exc:
            raise StrategyFileError(f"{path}: a gzip file that cannot be unpacked ({exc})") from None
        if len(data) > MAX_FILE_BYTES:
            raise StrategyFileError(f"{path}: unpacks to more than {MAX_FILE_BYTES:,} bytes")
    binary = StrategyFileError(f"{path}: binary data, not a strategy CSV or a solution file")
    if b"\x00" in data:
        raise binary
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise binary from None
    if not text.strip():
        raise StrategyFileError(f"{path}: the file is empty")
    return text.splitlines()


def _shown(text: str, width: int = 40) -> str:
    """``text`` with its runs of spaces as one, cut to ``width`` characters for a message."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


#: A parser of a solution format: (path, lines) -> ([(name, value text, line number)],
#: whether the format lists every column).
Parser = Callable[[str, list[str]], tuple[list[tuple[str, str, int]], bool]]


def _format(path: str, lines: list[str]) -> tuple[str, Parser | None]:
    """The format the first lines show, and its parser (None: a strategy CSV)."""
    n, first = next((i + 1, line.strip()) for i, line in enumerate(lines) if line.strip())
    lowered = first.lower()
    if first == "Model status":
        return "HiGHS solution", _highs_raw
    if first == "Columns" and n < len(lines) and lines[n].split()[:1] == ["Index"]:
        return "HiGHS solution", _highs_pretty
    if lowered.startswith(("solution status:", "objective value:")):
        return "SCIP solution", _scip
    if lowered.startswith(("# solution for model", "# objective value")):
        return "Gurobi solution", _gurobi
    if first.startswith("<?xml") or first.startswith("<CPLEXSolution"):
        return "CPLEX solution", _cplex
    if _CBC_STATUS.match(first):
        return "CBC solution", _cbc
    fields = [f.strip().lower() for f in next(_csv_rows(path, [first]))[1]]
    if {"player", "probability"} <= set(fields):
        return "strategy CSV", None
    if fields in (["name", "value"], ["variable", "value"]) or (len(fields) == 2 and _is_number(fields[1])):
        return "name,value CSV", _name_value_csv
    raise StrategyFileError(
        f"{path}, line {n}: '{_shown(first)}' starts no strategy CSV (player,infoset,action,probability), "
        "no solution file of HiGHS, SCIP, Gurobi, CPLEX or CBC and no name,value line"
    )


def _csv_rows(path: str, lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Each CSV row with the number of the line it ends on; a row the csv module cannot
    read (a field beyond its size limit) is refused with that line."""
    reader = csv.reader(lines)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise StrategyFileError(f"{path}, line {reader.line_num}: not CSV ({exc})") from None
        yield reader.line_num, row


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return "_" not in text


def _highs_raw(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """HiGHS's raw style: ``# Primal solution values``, its status, ``Objective``, then
    ``# Columns N`` and N lines ``name value``."""
    start = next((i for i, line in enumerate(lines) if line.strip() == "# Primal solution values"), None)
    if start is None:
        raise StrategyFileError(f"{path}: a HiGHS solution file without its primal solution values (truncated?)")
    status = lines[start + 1].strip() if start + 1 < len(lines) else ""
    if status == "None":
        model = lines[1].strip() if len(lines) > 1 else "not given"
        raise StrategyFileError(f"{path}, line {start + 2}: the file holds no primal solution (model status {model})")
    header = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("# Columns")), None)
    if header is None:
        raise StrategyFileError(f"{path}: a HiGHS solution file without its '# Columns' line (truncated?)")
    count_text = lines[header].split()[-1]
    if not count_text.isdigit():
        raise StrategyFileError(f"{path}, line {header + 1}: '{_shown(lines[header])}' gives no number of columns")
    count = int(count_text)
    body = lines[header + 1 : header + 1 + count]
    done = next((k for k, line in enumerate(body) if line.startswith("#")), len(body))
    if done < count:
        raise StrategyFileError(f"{path}: ends after {done} of its {count} columns (truncated?)")
    return [_name_value(path, line, header + 2 + k) for k, line in enumerate(body)], True


def _highs_pretty(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """HiGHS's pretty style: a ``Columns`` table (``Index Status Lower Upper Primal Dual
    Name``) ended by its ``Rows`` table."""
    start = next(i for i, line in enumerate(lines) if line.strip() == "Columns")
    header = lines[start + 1].split()
    if "Primal" not in header or "Name" not in header:
        raise StrategyFileError(f"{path}, line {start + 2}: a HiGHS columns table without primal values and names")
    primal, name = header.index("Primal"), header.index("Name")
    entries: list[tuple[str, str, int]] = []
    for i in range(start + 2, len(lines)):
        fields = lines[i].split()
        if lines[i].strip() == "Rows":
            return entries, True
        if len(fields) != len(header):
            raise StrategyFileError(f"{path}, line {i + 1}: '{_shown(lines[i])}' is no row of the columns table")
        entries.append((fields[name], fields[primal], i + 1))
    raise StrategyFileError(f"{path}: ends inside its columns table (truncated?)")


_SCIP_OBJECTIVE = re.compile(r"^\(obj:\S*\)$")


def _scip(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """SCIP's: ``solution status:`` and ``objective value:`` lines, then ``name value
    (obj:c)`` for each nonzero variable."""
    entries: list[tuple[str, str, int]] = []
    for i, line in enumerate(lines):
        fields = line.split()
        if not fields or line.lower().startswith(("solution status:", "objective value:")):
            continue
        if len(fields) not in (2, 3) or (len(fields) == 3 and not _SCIP_OBJECTIVE.match(fields[2])):
            raise StrategyFileError(f"{path}, line {i + 1}: '{_shown(line)}' is not 'name value' (truncated?)")
        entries.append((fields[0], fields[1], i + 1))
    return entries, False


def _gurobi(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """Gurobi's ``.sol``: ``#`` comment lines, then ``name value`` for every variable."""
    return [_name_value(path, line, i + 1) for i, line in enumerate(lines) if line.strip() and line[:1] != "#"], True


def _cplex(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """CPLEX's XML solution: a ``header`` whose ``primalFeasible`` is 1, then one
    ``variable`` element per column with its ``name`` and ``value``."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring("\n".join(lines))
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else 0
        raise StrategyFileError(f"{path}, line {line}: not well-formed XML ({exc}; truncated?)") from None
    if root.tag != "CPLEXSolution":
        raise StrategyFileError(f"{path}: an XML file whose root is <{_shown(root.tag)}>, not a CPLEX solution")
    header = root.find("header")
    if header is None or header.get("primalFeasible") != "1":
        status = "not given" if header is None else header.get("solutionStatusString", "not given")
        raise StrategyFileError(f"{path}: the file holds no feasible primal solution (status {status})")
    variables = root.find("variables")
    if variables is None:
        raise StrategyFileError(f"{path}: a CPLEX solution without its <variables> (truncated?)")
    where = _element_lines(lines, "<variable ")
    entries = []
    for k, element in enumerate(variables.iter("variable")):
        name, value = element.get("name"), element.get("value")
        number = where[k] if k < len(where) else 0
        if name is None or value is None:
            raise StrategyFileError(f"{path}, line {number}: a <variable> without its name or value")
        entries.append((name, value, number))
    return entries, True


def _element_lines(lines: list[str], opening: str) -> list[int]:
    """The numbers of the lines on which elements opening with ``opening`` start."""
    return [i + 1 for i, line in enumerate(lines) if line.lstrip().startswith(opening)]


#: CBC's first line: its status, then the objective (``Optimal - objective value -0.05``).
_CBC_STATUS = re.compile(
    r"^(Optimal|Infeasible|Unbounded|Integer infeasible|Stopped on \w+|Status unknown)\b.*objective value",
    re.IGNORECASE,
)


def _cbc(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """CBC's: a status line, then ``index name value reduced-cost`` for each nonzero
    column (``**`` first where the value breaks a bound or row)."""
    status = lines[0].split(" - ")[0].strip()
    if not status.lower().startswith(("optimal", "stopped")):
        raise StrategyFileError(f"{path}, line 1: the file holds no solution to certify (status {status})")
    entries: list[tuple[str, str, int]] = []
    for i in range(1, len(lines)):
        fields = lines[i].split()
        if not fields:
            continue
        if fields[0] == "**":
            fields = fields[1:]
        if len(fields) != 4 or not fields[0].isdigit():
            raise StrategyFileError(
                f"{path}, line {i + 1}: '{_shown(lines[i])}' is not 'index name value reduced-cost' (truncated?)"
            )
        entries.append((fields[1], fields[2], i + 1))
    return entries, False


def _name_value(path: str, line: str, number: int) -> tuple[str, str, int]:
    fields = line.split()
    if len(fields) != 2:
        raise StrategyFileError(f"{path}, line {number}: '{_shown(line)}' is not 'name value' (truncated?)")
    return fields[0], fields[1], number


def _name_value_csv(path: str, lines: list[str]) -> tuple[list[tuple[str, str, int]], bool]:
    """``name,value`` rows, after a header where the file has one."""
    entries: list[tuple[str, str, int]] = []
    for number, row in _csv_rows(path, lines):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != 2:
            raise StrategyFileError(
                f"{path}, line {number}: '{_shown(','.join(row))}' is not 'name,value' (truncated?)"
            )
        name, value = row[0].strip(), row[1].strip()
        if not entries and [name.lower(), value.lower()] in (["name", "value"], ["variable", "value"]):
            continue
        entries.append((name, value, number))
    return entries, True


def _value(path: str, number: int, what: str, text: str, tolerance: float) -> float:
    """The number ``text`` (``what`` on line ``number``): finite and not below ``-tolerance``."""
    if not _is_number(text):
        raise StrategyFileError(f"{path}, line {number}: {what} is '{_shown(text, 20)}', not a number")
    value = float(text)
    if math.isnan(value):
        raise StrategyFileError(f"{path}, line {number}: {what} is NaN")
    if math.isinf(value):
        raise StrategyFileError(f"{path}, line {number}: {what} is infinite")
    if value < -tolerance:
        raise StrategyFileError(f"{path}, line {number}: {what} is {value:.9g}, below 0")
    return value


# ------------------------------------------------------------------ solution files


def _solution_behaviors(
    path: str,
    entries: list[tuple[str, str, int]],
    complete: bool,
    sf: SequenceForm,
    game_name: str,
    tolerance: float,
) -> dict[int, np.ndarray]:
    """The behaviour strategies of the realization plans among ``entries``: one per
    player whose ``r`` columns appear, each checked against its constraints."""
    columns: dict[str, tuple[int, int] | None] = {}
    for p in range(sf.num_players):
        columns.update({name: (p, s) for s, name in enumerate(plan_names(sf, p))})
        columns.update({name: None for name in infoset_names(sf, p, "v")})  # the other LP columns
    columns.update(dict.fromkeys(mip_nash_auxiliary_names(sf)))  # a MIP Nash program's others
    plans: dict[int, np.ndarray] = {}
    first_line: dict[str, int] = {}
    for name, text, number in entries:
        if name in first_line:
            raise StrategyFileError(f"{path}, line {number}: '{_shown(name)}' again (first on line {first_line[name]})")
        first_line[name] = number
        if name not in columns and is_shared_mip_nash_column(name):
            continue
        if name not in columns:
            hint = (
                "a threshold program's solution? give --model" if name.startswith("t(_") else "a file of another game?"
            )
            raise StrategyFileError(
                f"{path}, line {number}: '{_shown(name)}' is no column of {game_name}'s sequence-form LPs ({hint})"
            )
        where = columns[name]
        if where is None:
            continue
        p, s = where
        value = _value(path, number, f"'{name}'", text, tolerance)
        plans.setdefault(p, np.full(sf.players[p].num_sequences, np.nan))[s] = value
    if not plans:
        raise StrategyFileError(
            f"{path}: no realization weight of {game_name} (columns r1(...), r2(...)): "
            "not a solution of one of its exported LPs"
        )
    behaviors = {}
    for p, plan in sorted(plans.items()):
        names = plan_names(sf, p)
        missing = np.flatnonzero(np.isnan(plan))
        if missing.size and complete:
            given = plan.shape[0] - missing.size
            raise StrategyFileError(
                f"{path}: '{names[missing[0]]}' is missing: the file gives {given} of player {p + 1}'s "
                f"{plan.shape[0]} realization weights (truncated?)"
            )
        plan = np.where(np.isnan(plan), 0.0, plan)  # a format that leaves zeros out
        _check_plan(path, sf, p, plan, names, tolerance)
        behaviors[p] = sf.players[p].treeplex.behavior(plan)
    return behaviors


def _check_plan(path: str, sf: SequenceForm, p: int, plan: np.ndarray, names: list[str], tolerance: float) -> None:
    """Refuse a plan that breaks ``E r = e`` by more than ``tolerance``, naming the first
    row that does: the empty sequence's weight, or an information set's actions against
    their parent sequence."""
    ps = sf.players[p]
    residual = ps.constraint_matrix @ plan - ps.constraint_rhs
    broken = np.flatnonzero(np.abs(residual) > tolerance)
    if not broken.size:
        return
    row = int(broken[0])
    if row == 0:
        raise StrategyFileError(f"{path}: '{names[0]}' is {plan[0]:.9g}, not 1 (the empty sequence's weight)")
    i = row - 1
    first, count = int(ps.infoset_first_sequence[i]), int(ps.infoset_num_actions[i])
    parent = int(ps.infoset_parent_sequence[i])
    actions = names[first : first + count]
    added = " + ".join(actions) if count <= 3 else f"{actions[0]} + ... + {actions[-1]} ({count} actions)"
    raise StrategyFileError(
        f"{path}: player {p + 1}'s plan breaks the sequence-form constraints: {added} = "
        f"{plan[first : first + count].sum():.9g}, but {names[parent]} = {plan[parent]:.9g} "
        f"(tolerance {tolerance:g})"
    )


# ------------------------------------------------------------------ strategy CSVs


def _strategy_csv(
    path: str, lines: list[str], sf: SequenceForm, game_name: str, tolerance: float
) -> dict[int, np.ndarray]:
    """The behaviour strategies of a strategy table: rows matched to sequences by
    (player, information set, action), in the table's order where labels repeat."""
    rows = _csv_rows(path, lines)
    header = [h.strip().lower() for h in next(rows)[1]]
    for column in header:
        if column not in STRATEGY_COLUMNS:
            raise StrategyFileError(
                f"{path}, line 1: column '{_shown(column, 20)}' is none of a strategy table's "
                f"({', '.join(STRATEGY_COLUMNS)})"
            )
    for column in STRATEGY_COLUMNS[:4]:
        if column not in header:
            raise StrategyFileError(f"{path}, line 1: no column '{column}'")
    at = {column: header.index(column) for column in header}
    # (infoset, action) -> the player's sequences with those labels, in order
    sequences: list[dict[tuple[str, str], list[int]]] = []
    for ps in sf.players:
        infosets, actions = tree_names(sf.game, ps)
        keyed: dict[tuple[str, str], list[int]] = {}
        for s, key in enumerate(zip(infosets.tolist(), actions.tolist()), start=1):
            keyed.setdefault(key, []).append(s)
        sequences.append(keyed)
    used: list[dict[tuple[str, str], int]] = [{} for _ in sf.players]
    values: dict[int, np.ndarray] = {}
    row_line: dict[int, np.ndarray] = {}
    profile = None
    for number, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise StrategyFileError(
                f"{path}, line {number}: {len(row)} fields where the header has {len(header)} (truncated?)"
            )
        if "equilibrium" in at:
            this = row[at["equilibrium"]].strip()
            if profile is not None and this != profile:
                raise StrategyFileError(
                    f"{path}, line {number}: a second equilibrium ({_shown(this, 10)}): "
                    "certify one profile at a time (keep one equilibrium's rows)"
                )
            profile = this
        player = row[at["player"]].strip()
        if not (player.isascii() and player.isdigit() and 1 <= int(player) <= sf.num_players):
            raise StrategyFileError(
                f"{path}, line {number}: player '{_shown(player, 10)}' is not one of {game_name}'s "
                f"{sf.num_players} players"
            )
        p = int(player) - 1
        key = (row[at["infoset"]], row[at["action"]])
        candidates = sequences[p].get(key)
        if candidates is None:
            raise StrategyFileError(
                f"{path}, line {number}: {game_name} has no action '{_shown(key[1], 20)}' at an information set "
                f"'{_shown(key[0])}' of player {p + 1} (a file of another game?)"
            )
        k = used[p].get(key, 0)
        if k == len(candidates):
            raise StrategyFileError(
                f"{path}, line {number}: player {p + 1}'s action '{_shown(key[1], 20)}' at '{_shown(key[0])}' again"
            )
        used[p][key] = k + 1
        probability = _value(path, number, "the probability", row[at["probability"]], tolerance)
        if probability > 1 + tolerance:
            raise StrategyFileError(f"{path}, line {number}: the probability is {probability:.9g}, above 1")
        s = candidates[k]
        values.setdefault(p, np.full(sf.players[p].num_sequences, np.nan))[s] = probability
        row_line.setdefault(p, np.zeros(sf.players[p].num_sequences, dtype=np.int64))[s] = number
    if not values:
        raise StrategyFileError(f"{path}: a strategy table without rows")
    behaviors = {}
    for p, b in sorted(values.items()):
        ps = sf.players[p]
        b[0] = 1.0
        missing = np.flatnonzero(np.isnan(b))
        if missing.size:
            infosets, actions = tree_names(sf.game, ps)
            s = int(missing[0])
            raise StrategyFileError(
                f"{path}: no row for player {p + 1}'s action '{actions[s - 1]}' at '{infosets[s - 1]}' "
                f"(the file gives {b.shape[0] - 1 - missing.size} of its {b.shape[0] - 1} rows; truncated?)"
            )
        totals = np.add.reduceat(b[1:], ps.infoset_first_sequence - 1) if ps.num_infosets else b[:0]
        off = np.flatnonzero(np.abs(totals - 1.0) > tolerance)
        if off.size:
            i = int(off[0])
            infosets, _ = tree_names(sf.game, ps)
            first = int(ps.infoset_first_sequence[i])
            raise StrategyFileError(
                f"{path}, line {row_line[p][first]}: player {p + 1}'s probabilities at '{infosets[first - 1]}' "
                f"add up to {totals[i]:.9g}, not 1 (tolerance {tolerance:g})"
            )
        b[1:] /= np.repeat(totals, ps.infoset_num_actions)  # exactly 1 at every information set
        behaviors[p] = b
    return behaviors


__all__ = [
    "MAX_FILE_BYTES",
    "STRATEGY_COLUMNS",
    "TOLERANCE",
    "StrategyFile",
    "read_solution_values",
    "read_strategy_file",
    "solution_value",
]
