"""Reading the small files a user names (a model, a grid, a normal-form game) safely.

Only a regular file is read, and at most :data:`MAX_INPUT_BYTES` of it: a FIFO would block
the command, ``/dev/zero`` never ends, and a file of gigabytes is no model.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import EquilibriaError

#: Largest input file read (bytes).
MAX_INPUT_BYTES = 64 * 2**20


def read_input(
    path: str | os.PathLike, what: str, error: type[EquilibriaError] = EquilibriaError, limit: int = MAX_INPUT_BYTES
) -> bytes:
    """The bytes of the file ``path`` (``what`` names it in messages: "model file"); raises
    ``error`` when it is missing, not a regular file, unreadable or above ``limit`` bytes."""
    p = Path(path)
    try:
        info = os.stat(p)
    except FileNotFoundError:
        raise error(f"no such {what}: {p}") from None
    except OSError as exc:
        raise error(f"cannot read the {what} {p}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, FIFO or socket)"
        raise error(f"cannot read the {what} {p}: it is {kind}")
    if info.st_size > limit:
        raise error(f"the {what} {p} has {info.st_size:,} bytes; at most {limit:,} are read")
    try:
        with open(p, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read the {what} {p}: {exc.strerror or exc}") from None
    if len(data) > limit:  # it grew while being read
        raise error(f"the {what} {p} has more than {limit:,} bytes")
    return data


def read_input_text(
    path: str | os.PathLike, what: str, error: type[EquilibriaError] = EquilibriaError, limit: int = MAX_INPUT_BYTES
) -> str:
    """:func:`read_input` decoded as UTF-8 (a byte-order mark is dropped); ``error`` when
    the bytes are not UTF-8 text."""
    data = read_input(path, what, error, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"the {what} {path} is not UTF-8 text (byte {exc.start} cannot be read)") from None


__all__ = ["MAX_INPUT_BYTES", "read_input", "read_input_text"]
