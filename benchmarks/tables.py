"""Writing a benchmark's rows: one CSV per script, the header from the first row."""

from __future__ import annotations

import csv


def write_csv(rows: list[dict], path: str) -> None:
    """Write ``rows`` (dicts with the same keys) to ``path`` and say where."""
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"written to {path}")
