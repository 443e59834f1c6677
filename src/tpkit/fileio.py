"""Atomic file writes: a reader (or a crash) sees the old file or the whole new one, never half of it; and the
bounded read of a small file tpkit reads whole (``read_small_text``).

A SIGTERM (or SIGHUP) that arrives while ``write_atomic`` runs in the main thread is held off until the
temporary file is removed, then delivered as before: no hidden ``.NAME.*.tmp`` is left behind.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from tpkit.errors import TpkitError

__all__ = ["write_atomic", "check_writable", "read_small_text", "SMALL_FILE_BYTES"]

_DEFERRED_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)


def check_writable(path: str | os.PathLike, *, what: str, example: str = "allreduce.json") -> None:
    """Raise ``TpkitError`` now (before long work) unless ``path`` can be written as a file.

    Refused: an empty name, a folder that is missing or not writable, a path that is a directory (``example``
    names a file to write inside it), an existing file that cannot be replaced.
    """
    if not str(path).strip():  # `--json "$OUT"` with OUT unset: the run went on and wrote nothing (helper tidy32)
        raise TpkitError(f"{what} is given an empty file name; pass the file to write, e.g. {example}")
    target = Path(path)
    folder = target.parent
    try:
        _check_writable(target, folder, path, what=what, example=example)
    except OSError as exc:  # a name the file system refuses: too long (ENAMETOOLONG) … (helper nc19)
        shown = str(path) if len(str(path)) <= 80 else f"{str(path)[:60]}… ({len(str(path)):,} characters)"
        how = "pass a shorter path" if exc.errno == errno.ENAMETOOLONG else "pass a path this user can write"
        raise TpkitError(f"{what} {shown}: not a usable file name ({exc.strerror or exc}); {how}, "
                         f"e.g. {example}") from None
    except ValueError as exc:  # an embedded NUL byte
        raise TpkitError(f"{what} {str(path)[:80]!r}: not a usable file name ({exc}); e.g. {example}") from None


SMALL_FILE_BYTES = 64 * 2**20
"""the most ``read_small_text`` reads: a machine profile or an all-reduce profile is a few KiB to a few hundred"""


def read_small_text(path: str | os.PathLike, *, what: str, fix: str, limit: int | None = None) -> str:
    """The UTF-8 text of a small file tpkit reads whole (``--machine``, ``--allreduce-profile``): a regular file or a
    pipe (``--machine <(ssh box tpkit probe --json)``) of at most ``limit`` bytes.  A device is refused (``/dev/zero``
    was read until the memory ran out: 11 GiB in a minute, helper tidy32), and so is a longer text, with ``fix``.
    ``OSError`` (no such file, a directory, no permission) and ``UnicodeDecodeError`` reach the caller, who words
    them.  ``limit``: ``SMALL_FILE_BYTES`` unless given."""
    limit = SMALL_FILE_BYTES if limit is None else limit
    if stat.S_ISCHR(os.stat(path).st_mode) or stat.S_ISBLK(os.stat(path).st_mode):
        raise TpkitError(f"{what} {path}: is a device, not a file; {fix}")
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TpkitError(f"{what} {path}: longer than {limit:,} bytes, which no such file is; {fix}")
    return data.decode("utf-8")  # JSON is UTF-8 (RFC 8259), whatever the locale


def _check_writable(target: Path, folder: Path, path, *, what: str, example: str) -> None:
    if target.is_dir():
        raise TpkitError(f"{what} {path}: is a directory; pass a file name inside it, e.g. "
                         f"{target / example}")
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise TpkitError(f"{what} {path}: the folder {folder} does not exist or is not writable; "
                         "create it or pass a path in a writable folder")
    if target.exists() and not target.is_file():
        raise TpkitError(f"{what} {path}: exists and is not a regular file; pass another path")


class _Interrupted(BaseException):
    """A deferred signal, raised inside the write so the temporary file is removed first."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _signals_clean_up():
    """Turn SIGTERM/SIGHUP into ``_Interrupted`` during the write, then re-deliver them (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for signum in _DEFERRED_SIGNALS:
        handler = signal.getsignal(signum)
        if handler in (signal.SIG_DFL, None):
            previous[signum] = handler

            def _raise(num, _frame):
                raise _Interrupted(num)

            signal.signal(signum, _raise)
    try:
        yield
    except _Interrupted as exc:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        previous.clear()
        os.kill(os.getpid(), exc.signum)  # the default action, now that the temporary file is gone
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def write_atomic(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` via a temporary file in the same folder + rename."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if target.is_dir():
        raise TpkitError(f"cannot write {target}: it is a directory; pass a file name inside it")
    with _signals_clean_up():
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        except OSError as exc:
            raise TpkitError(f"cannot write {target}: {exc.strerror} ({target.parent}); "
                             "pass a path in an existing, writable folder") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, _mode_for(target))
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return target


def _mode_for(target: Path) -> int:
    """The replaced file's permissions, else what ``open(path, "w")`` would give (0o666 less the umask)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
