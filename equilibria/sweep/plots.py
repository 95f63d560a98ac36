"""A sweep's table drawn with matplotlib: one column against another, a line per series."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .grid import SweepError

log = logging.getLogger("equilibria.sweep")

if TYPE_CHECKING:
    import pandas as pd


def plot(
    table: pd.DataFrame,
    path: str | os.PathLike,
    x: str,
    y: str,
    series: str | None = None,
    *,
    log_x: bool = False,
    log_y: bool = False,
) -> bool:
    """Plot column ``y`` against column ``x``, one line per value of ``series``, into
    ``path`` (PNG, SVG or PDF by its ending), on logarithmic axes where asked (points at
    or below zero are then left out: an exact equilibrium's exploitability of 0 has no
    place on a log axis). Rows that failed or lack ``y`` are left out; several rows at one
    point (other columns varying) are averaged. Returns False (and logs why) when
    matplotlib is not installed."""
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
    from ..models.output import atomic_output

    data = table[table[y].notna()].copy()
    data[y] = pd.to_numeric(data[y], errors="coerce")
    data = data[data[y].notna()]
    if log_y:
        data = data[data[y] > 0]
    if log_x:
        if not pd.api.types.is_numeric_dtype(data[x]):
            raise SweepError(f"--log-x: column '{x}' is not numeric")
        data = data[data[x] > 0]
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
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
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
