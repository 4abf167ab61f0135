"""The server's (and a client's) files: private by default, written atomically, the data
folder held by one process.

- every file holding a secret (a seat's key and hand salts, the referee's, dealer's and
  bots' secrets, ``results.sqlite``) is created 0600 and every folder 0700, whatever the
  umask (:func:`private_dir`, :func:`write_private`);
- a JSON file is replaced atomically (a temporary file, fsynced, renamed, the folder
  fsynced); a write that fails (the disk full) leaves the old file and no temporary one,
  and raises :class:`~zkbluff.errors.StorageFull` / :class:`~zkbluff.errors.StorageError`;
- a transcript is append-then-fsync; a last line cut short (power loss) is cut back to
  the last complete line when it is loaded (:func:`cut_torn_tail`), as the client does;
- ``--data`` is locked for one process (:class:`DataLock`, an ``flock`` on ``data/.lock``).
"""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any, Optional, Union

from zkbluff.errors import DataFolderLocked, MalformedInput, StorageError, StorageFull
from zkbluff.protocol.transcript import TranscriptWriter, canonical, line_hash

FILE_MODE = 0o600
DIR_MODE = 0o700
_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def storage_error(exc: OSError, what: str) -> StorageError:
    """The typed error for an ``OSError`` met writing ``what``."""
    if exc.errno in _FULL:
        return StorageFull(f"{what}: the server's disk is full ({exc.strerror}); the match waits until the host "
                           f"frees space")
    return StorageError(f"{what}: the server cannot write ({exc.strerror or exc}); the match waits until the "
                        f"host fixes its storage")


def private_dir(path: Union[str, Path]) -> Path:
    """``path`` and its missing parents, 0700 (an existing folder is tightened too)."""
    p = Path(path)
    p.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    os.chmod(p, DIR_MODE)
    return p


def private_file(path: Union[str, Path]) -> None:
    """Tighten an existing file to 0600 (one made by a library that ignores our mode)."""
    if os.path.exists(path):
        os.chmod(path, FILE_MODE)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_private(path: Union[str, Path], text: str) -> None:
    """Replace ``path`` with ``text`` atomically, 0600; a failed write leaves the old file."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        try:
            os.fchmod(fd, FILE_MODE)  # also when the temporary file was left with looser bits
            data = text.encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, p)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise storage_error(exc, str(p)) from None
    _fsync_dir(p.parent)


def write_private_json(path: Union[str, Path], data: Any) -> None:
    write_private(path, json.dumps(data))


def cut_torn_tail(path: Union[str, Path]) -> int:
    """Cut a JSONL file back to its last complete line (a write cut short by a crash or a
    full disk); the number of bytes cut (0 when the file ends with a newline)."""
    p = Path(path)
    try:
        with open(p, "rb+") as f:
            data = f.read()
            if not data or data.endswith(b"\n"):
                return 0
            keep = data.rfind(b"\n") + 1
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
            return len(data) - keep
    except FileNotFoundError:
        return 0
    except OSError as exc:
        raise storage_error(exc, str(p)) from None


class DataLock:
    """An exclusive ``flock`` on ``folder/.lock`` for this process's life (the kernel drops
    it when the process dies, even by kill -9: no stale lock to clean up)."""

    def __init__(self, folder: Union[str, Path]):
        import fcntl

        self.folder = private_dir(folder)
        self.path = self.folder / ".lock"
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                holder = ""
                try:
                    holder = self.path.read_text().strip()
                except OSError:
                    pass
                raise DataFolderLocked(f"data folder {self.folder} is in use by another zkbluff serve"
                                       f"{' (pid ' + holder + ')' if holder else ''}; stop it first or "
                                       f"choose another --data") from None
            raise storage_error(exc, str(self.path)) from None
        self._fd: Optional[int] = fd
        try:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
        except OSError:
            pass

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def raise_open_files() -> int:
    """The soft limit of open files raised to the hard one (a server holds a socket per
    connection and, with a directory, an flock'd file per room: 1024, a common default,
    is a few hundred rooms); the limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):  # (a platform that refuses: the limit stays)
            pass
    return soft


def room_lock(folder: Union[str, Path]) -> Optional[DataLock]:
    """The flock on one room's folder (``<room>/.lock``) for this process, or ``None`` if
    another process holds it: two servers sharing a rooms folder never play one room."""
    try:
        return DataLock(folder)
    except DataFolderLocked:
        return None


def append_line(path: Union[str, Path], line: str) -> None:
    """Append one line and fsync it; a write that fails (the disk full) is cut back to the
    file's length before it, so the file never holds part of a line it did not take."""
    data = memoryview((line + "\n").encode("utf-8"))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    except OSError as exc:
        raise storage_error(exc, str(path)) from None
    try:
        size = os.fstat(fd).st_size
        try:
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        except OSError as exc:
            try:
                os.ftruncate(fd, size)
                os.fsync(fd)
            except OSError:  # cut on the next load instead (cut_torn_tail)
                pass
            raise storage_error(exc, str(path)) from None
    finally:
        os.close(fd)


class DurableWriter(TranscriptWriter):
    """A :class:`~zkbluff.protocol.transcript.TranscriptWriter` that takes a line into its
    memory (the lines the server sends) only once the line is on disk and fsynced: a line
    the disk refused is neither in the file nor ever sent."""

    def __init__(self, path: Union[str, Path], events: Optional[list[dict[str, Any]]] = None,
                 overwrite: bool = False):
        try:
            super().__init__(path, events=events, overwrite=overwrite)
        except OSError as exc:
            raise storage_error(exc, str(path)) from None

    def append_event(self, event: dict[str, Any]) -> dict[str, Any]:
        if event.get("n") != self.next_line or event.get("prev") != self.head:
            raise MalformedInput(f"event numbered {event.get('n')!r}, expected the next line {self.next_line} "
                                 f"linked to the head")
        line = canonical(event)
        assert self.path is not None
        append_line(self.path, line)  # first the disk ...
        self.lines.append(line)       # ... then what is sent
        self.events.append(event)
        self.head = line_hash(line)
        return event
