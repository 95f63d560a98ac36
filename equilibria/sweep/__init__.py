"""Sweeps: any route over a grid of games and options, one table row per cell.

A :class:`Grid` names a registered route (``lp``, ``shrink``, ``nash``, ``threshold``, a
plugin's), the games (specs such as ``leduc:ranks=3``, with ``3..6`` ranges and ``3|5``
alternatives in their values, and parameter ranges applied to every game) and the
route's options, each a list of values. Its cells are the cartesian product; each cell
is a fresh :func:`equilibria.solve` and becomes one row: the game's parameters and the
options, then status, seconds (total and per stage), the program's rows, columns,
nonzeros (and binaries), value, exploitability, NashConv, where the certificate was
computed and, for a failed cell, the error.

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

from .grid import RESULT_COLUMNS, Cell, Grid, SweepError
from .plots import plot
from .runners import SweepResult, run_cell, run_sweep
from .store import Store, to_table

__all__ = [
    "RESULT_COLUMNS",
    "Cell",
    "Grid",
    "Store",
    "SweepError",
    "SweepResult",
    "plot",
    "run_cell",
    "run_sweep",
    "to_table",
]
