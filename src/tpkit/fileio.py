"""Atomic file writes: a reader (or a crash) sees the old file or the whole new one, never half of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tpkit.errors import TpkitError

__all__ = ["write_atomic", "check_writable"]


def check_writable(path: str | os.PathLike, *, what: str) -> None:
    """Raise ``TpkitError`` now (before long work) when ``path``'s folder is missing or not writable."""
    folder = Path(path).parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise TpkitError(f"{what} {path}: the folder {folder} does not exist or is not writable; "
                         "create it or pass a path in a writable folder")


def write_atomic(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` via a temporary file in the same folder + rename."""
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
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
