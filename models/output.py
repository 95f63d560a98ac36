"""Writing output files safely: all or nothing, never over something that is not a file.

A target that is a symbolic link is written through: the file it names gets the content
(and is created when missing), and the link stays. ``-`` is standard output; standard
output and error by their ``/dev`` names, and a character device (``/dev/null``), are
*streams*: the finished content is copied into them, as a shell's ``>`` would, and
nothing is ever renamed over them. A FIFO, a socket or a directory is refused.

Every file equilibria writes (strategies, MPS/LP exports, shrunk LPs, programs) goes
through :func:`atomic_output`: the content is written to a temporary file in the target's
own folder, flushed to disk and checked, and only then renamed onto the target. A missing
folder, a read-only or full file system, a target that is a directory, a FIFO or a device
raise :class:`~equilibria.models.errors.OutputError` naming the path; nothing is left
behind, and the target (if it existed) is untouched.
"""

from __future__ import annotations

import errno
import gzip
import os
import shutil
import stat
import sys
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


#: The target that names standard output.
STDOUT = "-"
#: Names of standard output a target may take: their content joins what the command
#: prints (held back until it succeeds, like the rest of its output), never a file.
STDOUT_NAMES = (STDOUT, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


#: Names of standard error: written in place like a device.
STDERR_NAMES = ("/dev/stderr", "/dev/fd/2", "/proc/self/fd/2")


def is_stream(path: str | os.PathLike) -> bool:
    """True for standard output and standard error (``-``, ``/dev/stdout``, ...) and a
    target that is, or links to, a character device (``/dev/null``): written in place,
    never replaced. A named FIFO is no stream here: opening it waits for a reader, and
    it is refused like any other target that is not a regular file."""
    text = str(path)
    if text in STDOUT_NAMES or text in STDERR_NAMES:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode)


def check_target(path: str | os.PathLike) -> Path:
    """The target as a Path, after checking it can be written: replaced by a regular
    file, or (a stream, :func:`is_stream`) opened for writing.

    Raises OutputError when the folder does not exist or is not a folder, or the target
    exists and is a directory or a socket.
    """
    target = Path(path)
    if str(path) in STDOUT_NAMES:
        return target
    if str(path) == "" or target.name in ("", ".", ".."):
        raise OutputError(f"cannot write '{path}': not a file name")
    if is_stream(path):
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
        if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
            raise OutputError(f"cannot write {target}: it is a {'directory' if stat.S_ISDIR(mode) else 'socket'}")
        return target
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
        raise OutputError(f"cannot write {target}: it is not a regular file (a FIFO, socket or block device)")
    return target


def _disk_full(folder: Path) -> bool:
    try:
        return os.statvfs(folder).f_bavail == 0
    except OSError:
        return False


def _partial_file(target: Path, prefix: str, suffix: str | None, folder: Path | None) -> Path:
    """A new empty temporary file for ``target``'s content (in ``folder``, else the
    system's temporary folder), registered as partial until its write is over."""
    try:
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix or target.suffix, dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    os.close(fd)
    _PARTIAL.add(name)
    return Path(name)


def content_suffix(path: str | os.PathLike) -> str:
    """The ending that names what a file holds, in lower case: ``.mps`` for ``x.mps`` and
    for ``x.mps.gz`` alike (a ``.gz`` file is written compressed, see
    :func:`atomic_output`)."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    return Path(name).suffix


@contextmanager
def atomic_output(path: str | os.PathLike, suffix: str | None = None, *, hold: bool = True) -> Iterator[Path]:
    """Yield a temporary path to write to; on success it replaces ``path``.

    ``suffix`` is the temporary file's ending (default: the target's, without ``.gz``), for
    writers that pick the format from it. A target named ``*.gz`` receives what was written
    compressed with gzip. On any failure, or an interrupt, the temporary file is removed
    and the target is left as it was; OSErrors become OutputError naming the target.
    Within :func:`outputs_held` the file goes in place at :func:`commit_outputs`, unless
    ``hold`` is False (a file the program itself reads next: a model handed to a solver).
    """
    target = check_target(path)
    if is_stream(path):
        with _stream_output(target, suffix) as tmp:
            yield tmp
        return
    if target.name.lower().endswith(".gz"):
        with _compressed_output(target, suffix or content_suffix(target), hold) as tmp:
            yield tmp
        return
    with _replacing(target, suffix, hold) as tmp:
        yield tmp


@contextmanager
def _compressed_output(target: Path, suffix: str, hold: bool) -> Iterator[Path]:
    """Yield a temporary path for the plain content; on success it is compressed into
    ``target`` (itself replaced only when complete)."""
    plain = _partial_file(target, f".{target.name}.", suffix, target.parent)
    name = str(plain)
    try:
        yield plain
        with _replacing(target, ".gz", hold) as tmp:
            try:
                # the header names the file a reader unpacks to, not the temporary one
                with open(plain, "rb") as source, open(tmp, "wb") as raw:
                    with gzip.GzipFile(target.name[: -len(".gz")], "wb", fileobj=raw) as sink:
                        shutil.copyfileobj(source, sink, 1 << 20)
            except OSError as exc:
                raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    finally:
        plain.unlink(missing_ok=True)
        _PARTIAL.discard(name)


@contextmanager
def _replacing(target: Path, suffix: str | None, hold: bool = True) -> Iterator[Path]:
    """Yield a temporary file beside ``target``; on success it replaces ``target``."""
    tmp = _partial_file(target, f".{target.name}.", suffix, target.parent)
    name = str(tmp)
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
            if _HELD is not None and hold:
                _HELD.append((tmp, target))  # complete; in place once the command has succeeded
                name = ""
            else:
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


#: Files written completely but not yet put in place, in the order written: (temporary
#: file, target); None when files go in place as soon as they are written.
_HELD: list[tuple[Path, Path]] | None = None


@contextmanager
def outputs_held() -> Iterator[None]:
    """Within the block, a file written through :func:`atomic_output` is complete beside
    its target but not in place: :func:`commit_outputs` puts the files in place, and
    leaving the block without it removes them, targets untouched. A command that fails
    after writing its files (its standard output full or closed) so leaves no file and
    replaces none."""
    global _HELD
    _HELD = []
    try:
        yield
    finally:
        pending, _HELD = _HELD, None
        for tmp, _ in pending:
            tmp.unlink(missing_ok=True)
            _PARTIAL.discard(str(tmp))


def commit_outputs() -> None:
    """Put the files held by :func:`outputs_held` in place, in the order written."""
    pending = list(_HELD or [])
    if _HELD:
        _HELD.clear()
    for tmp, target in pending:
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
        finally:
            _PARTIAL.discard(str(tmp))


@contextmanager
def _stream_output(target: Path, suffix: str | None) -> Iterator[Path]:
    """Yield a temporary path; on success its content is copied into the stream
    ``target`` (for standard output, into what the command prints). The temporary file
    is always removed."""
    tmp = _partial_file(target, ".equilibria.", suffix, None)
    name = str(tmp)
    try:
        yield tmp
        try:
            if str(target) in STDOUT_NAMES:
                # text files all (MPS, LP, .efg, CSV); the command prints them with its output
                sys.stdout.write(tmp.read_bytes().decode("utf-8", errors="replace"))
            else:
                with open(tmp, "rb") as source, open(target, "wb") as sink:
                    shutil.copyfileobj(source, sink)
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    finally:
        tmp.unlink(missing_ok=True)
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


__all__ = [
    "STDOUT",
    "STDERR_NAMES",
    "STDOUT_NAMES",
    "atomic_output",
    "check_target",
    "commit_outputs",
    "content_suffix",
    "is_stream",
    "outputs_held",
    "remove_partial_outputs",
    "write_text",
]
