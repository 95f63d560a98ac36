"""Writing output files safely: all or nothing, never over something that is not a file.

A target that is a symbolic link is written through: the file it names gets the content
(and is created when missing), and the link stays.

Every file equilibria writes (strategies, MPS/LP exports, shrunk LPs, programs) goes
through :func:`atomic_output`: the content is written to a temporary file in the target's
own folder, flushed to disk and checked, and only then renamed onto the target. A missing
folder, a read-only or full file system, a target that is a directory, a FIFO or a device
raise :class:`~equilibria.models.errors.OutputError` naming the path; nothing is left
behind, and the target (if it existed) is untouched.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError

#: Temporary files being written right now. An interrupt handler that must leave at once
#: (``remove_partial_outputs``) deletes them; this is state of the process by nature.
_PARTIAL: set[str] = set()


def _reason(exc: OSError) -> str:
    return exc.strerror or errno.errorcode.get(exc.errno or 0, str(exc))


def check_target(path: str | os.PathLike) -> Path:
    """The target as a Path, after checking it can be replaced by a regular file.

    Raises OutputError when the folder does not exist or is not a folder, or the target
    exists and is not a regular file (a directory, FIFO, device or socket).
    """
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise OutputError(f"cannot write '{path}': not a file name")
    if target.is_symlink():
        # written through the link, as a shell's '>' does: the link stays and the file it
        # names (created when missing) gets the content
        resolved = Path(os.path.realpath(target))
        if not resolved.parent.is_dir():
            raise OutputError(f"cannot write {target}: it links to {resolved}, whose folder does not exist")
        target = resolved
    folder = target.parent
    if not folder.exists():
        raise OutputError(f"cannot write {target}: folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputError(f"cannot write {target}: {folder} is not a folder")
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    if stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {target}: it is a directory")
    if not stat.S_ISREG(mode):
        raise OutputError(f"cannot write {target}: it is not a regular file (a device, FIFO or socket)")
    return target


def _disk_full(folder: Path) -> bool:
    try:
        return os.statvfs(folder).f_bavail == 0
    except OSError:
        return False


@contextmanager
def atomic_output(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write to; on success it replaces ``path``.

    ``suffix`` is the temporary file's ending (default: the target's), for writers that pick
    the format from it. On any failure, or an interrupt, the temporary file is removed and
    the target is left as it was; OSErrors become OutputError naming the target.
    """
    target = check_target(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix or target.suffix, dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    os.close(fd)
    _PARTIAL.add(name)
    tmp = Path(name)
    try:
        yield tmp
        try:
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            # writers in C (HiGHS, SCIP) report no error when the disk fills up: a file
            # system left with no free block has almost certainly cut the file short
            if _disk_full(target.parent):
                raise OutputError(f"cannot write {target}: no space left on the device")
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(tmp, mode)
            os.replace(tmp, target)
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    except OSError as exc:  # raised by the writer inside the block
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        _PARTIAL.discard(name)


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path) as tmp:
        try:
            tmp.write_text(text)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_reason(exc)}") from None


def remove_partial_outputs() -> None:
    """Delete the temporary files of writes still in progress (for an interrupt handler
    that exits without unwinding)."""
    for name in list(_PARTIAL):
        try:
            os.unlink(name)
        except OSError:
            pass
        _PARTIAL.discard(name)


__all__ = ["atomic_output", "check_target", "remove_partial_outputs", "write_text"]
