"""Files Wikiwarden keeps on a local disk beside a person's work (the sweep's memory in the git directory, the wiki's
sidecars and pages): opened without following a link, blocking on a FIFO or reading without end, replaced whole (a
temporary file beside them, then a rename), and written under a lock every Wikiwarden process takes.

On POSIX systems (Linux, macOS) a folder is opened with O_DIRECTORY|O_NOFOLLOW and its files relative to it
(`dir_fd`) with O_NOFOLLOW|O_NONBLOCK, then checked with fstat: a symlink in a file's or the folder's place is
refused by the kernel, a FIFO opens without waiting for a writer and is refused as not a regular file, and a read
takes at most its cap and one byte more. The lock is flock(2) on the folder itself (no lock file to leave behind or
to be planted): advisory, released when its holder exits however it exits, and local to the machine; a filesystem
that cannot lock a folder (NFS emulates flock with byte-range locks, which a read-only descriptor cannot take) is
said, and the writes go on unlocked, still each atomic.

Windows has neither O_NOFOLLOW, nor `dir_fd`, nor flock: there each file is checked with lstat before it is opened
(a race a local attacker could win, where creating symlinks takes a privilege), and no lock is taken, so writes stay
atomic but two processes writing one sidecar at once can lose one's change.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

POSIX = (
    fcntl is not None
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
    and os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
)
FileId = tuple[int, int, int, int]  # device, inode, size, modification time (ns): a file replaced has another


class UnsafeFile(OSError):
    """A path refused as it stands: a symlink, or not a regular file (a FIFO, a device) or not a folder."""


class TooLarge(OSError):
    """A file larger than its reader's cap (nothing of it is used)."""


def _file_id(info: os.stat_result) -> FileId:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _refused(path: Path | str, exc: OSError) -> OSError:
    """O_NOFOLLOW's refusal of a symlink (ELOOP; EMLINK on FreeBSD) in words; any other error as it is."""
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return UnsafeFile(errno.ELOOP, "a symlink", str(path))
    return exc


class Folder:
    """A folder held open without following a link (POSIX; elsewhere its path, checked with lstat), whose files are
    read, replaced and locked relative to it: a folder swapped for a symlink after it was opened changes nothing."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def open(cls, path: Path, *, create: bool = False) -> Folder | None:
        """The folder at `path` (made first when `create`), None when there is none; UnsafeFile when a symlink or
        anything else than a folder stands there."""
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.mkdir(path)
        if not POSIX:
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                return None
            if stat.S_ISLNK(mode):
                raise UnsafeFile(errno.ELOOP, "a symlink", str(path))
            if not stat.S_ISDIR(mode):
                raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(path))
            return cls(path, None)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ENOTDIR and os.path.islink(path):  # Linux's answer for a symlink with O_DIRECTORY
                raise UnsafeFile(errno.ELOOP, "a symlink", str(path)) from None
            raise _refused(path, exc) from None
        return cls(path, fd)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _open(self, name: str, flags: int, mode: int = 0o666) -> int:
        if self.fd is None:
            return os.open(self.path / name, flags | getattr(os, "O_BINARY", 0), mode)
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=self.fd)
        except OSError as exc:
            raise _refused(self.path / name, exc) from None

    def identity(self, name: str) -> FileId | None:
        """What stands at `name` now, without following a link (None: nothing), to tell whether it was replaced."""
        try:
            if self.fd is None:
                return _file_id(os.lstat(self.path / name))
            return _file_id(os.stat(name, dir_fd=self.fd, follow_symlinks=False))
        except FileNotFoundError:
            return None

    def read(self, name: str, cap: int) -> bytes | None:
        """The bytes of the regular file `name`, None when there is none. UnsafeFile for a symlink, a FIFO, a device
        or a folder; TooLarge past `cap` bytes (read no further than `cap` + 1)."""
        if self.fd is None:  # no O_NOFOLLOW: checked first
            try:
                mode = os.lstat(self.path / name).st_mode
            except FileNotFoundError:
                return None
            if stat.S_ISLNK(mode):
                raise UnsafeFile(errno.ELOOP, "a symlink", str(self.path / name))
            if not stat.S_ISREG(mode):
                raise UnsafeFile(errno.EINVAL, "not a regular file", str(self.path / name))
        try:
            fd = self._open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens without waiting
        except FileNotFoundError:
            return None
        try:  # checked on what was opened, not on a name something else may stand at by now
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise UnsafeFile(errno.EINVAL, "not a regular file", str(self.path / name))
            if info.st_size > cap:
                raise TooLarge(errno.EFBIG, f"over {cap} bytes", str(self.path / name))
        except BaseException:
            os.close(fd)
            raise
        with open(fd, "rb", buffering=0, closefd=True) as handle:
            chunks, size = [], 0
            while size <= cap:  # a file growing meanwhile is still read no further than the cap and a byte
                chunk = handle.read(cap + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > cap:
                raise TooLarge(errno.EFBIG, f"over {cap} bytes", str(self.path / name))
            return b"".join(chunks)

    def replace(self, name: str, data: bytes) -> None:
        """Put `data` at `name` whole: written to a new temporary file in this folder, then renamed over whatever
        stood there (a file, or a symlink or FIFO, which is replaced, never written through). A reader sees the old
        file or the new one; a failure leaves no temporary file."""
        import secrets  # noqa: PLC0415 - with random and hashlib: only a process that writes loads them

        temp = f".{name}.{secrets.token_hex(8)}.tmp"
        fd = self._open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            with open(fd, "wb", closefd=True) as handle:
                handle.write(data)
            if self.fd is None:
                os.replace(self.path / temp, self.path / name)
            else:
                os.replace(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                if self.fd is None:
                    os.unlink(self.path / temp)
                else:
                    os.unlink(temp, dir_fd=self.fd)
            raise

    @contextlib.contextmanager
    def locked(self, waiting: Callable[[], None] | None = None) -> Iterator[OSError | None]:
        """Hold this folder's lock (flock on the folder itself, exclusive), waiting for another holder to let go
        (`waiting` is called once first, to say so). Yields None when held, or why it could not be taken (Windows,
        a filesystem that cannot lock a folder): the caller goes on without it."""
        if self.fd is None or fcntl is None:
            yield OSError(errno.ENOTSUP, "no advisory locks on this system")
            return
        try:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None:
                    waiting()
                fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError as exc:
            yield exc
            return
        try:
            yield None
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
