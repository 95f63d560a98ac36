"""Output helpers shared by the experiment scripts: CSV rows and matplotlib figures."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any


def write_rows(rows: list[dict], path: Path) -> None:
    """Write dict rows (keys of the first row as header) to a CSV file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def pyplot() -> Any:
    """matplotlib.pyplot on the file-only Agg backend, or None (with a note) if missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return None
    return plt


def finish(fig: Any, ax: Any, path: Path) -> None:
    """Legend, grid, layout; save ``fig`` to ``path`` and say so."""
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
