"""Atomic writes: the old file or the whole new one, never half; a bad folder is a user error."""

import os
import stat

import pytest

from tpkit.errors import TpkitError, is_user_error
from tpkit.fileio import check_writable, write_atomic


def test_write_replaces_whole_file_and_leaves_no_temporaries(tmp_path):
    target = tmp_path / "out.json"
    write_atomic(target, "old")
    write_atomic(target, b"new bytes")
    assert target.read_bytes() == b"new bytes"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("old")

    def boom(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_new_file_gets_normal_permissions_and_a_replaced_one_keeps_its_own(tmp_path):
    old = os.umask(0o022)
    try:
        fresh = write_atomic(tmp_path / "fresh.json", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644  # not mkstemp's 0o600
    kept = tmp_path / "kept.json"
    kept.write_text("x")
    kept.chmod(0o640)
    write_atomic(kept, "y")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640


def test_missing_folder_is_a_user_error(tmp_path):
    with pytest.raises(TpkitError, match="existing, writable folder") as info:
        write_atomic(tmp_path / "absent" / "out.json", "x")
    assert is_user_error(info.value)
    with pytest.raises(TpkitError, match="does not exist"):
        check_writable(tmp_path / "absent" / "out.json", what="--json")
    check_writable(tmp_path / "out.json", what="--json")


def test_a_directory_target_is_refused_up_front(tmp_path):
    """`--json DIR`, `--plot DIR`, `probe --out DIR` ran everything, then raised IsADirectoryError."""
    with pytest.raises(TpkitError, match="is a directory; pass a file name inside it"):
        check_writable(tmp_path, what="--json")
    with pytest.raises(TpkitError, match="is a directory"):
        write_atomic(tmp_path, "x")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_signal_during_the_write_leaves_no_hidden_temporary(tmp_path, signame):
    """SIGTERM while writing killed the process between mkstemp and rename: a `.NAME.xxx.tmp` stayed behind.
    Now the temporary file goes first, then the process still dies of the signal."""
    import signal
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        import os, signal
        from tpkit import fileio
        # the default disposition, whatever this test runner inherited (under `nohup` SIGHUP arrives ignored,
        # and write_atomic rightly leaves an ignored signal ignored)
        signal.signal(signal.{signame}, signal.SIG_DFL)
        real = os.fsync
        def fsync_then_signal(fd):
            real(fd)
            os.kill(os.getpid(), signal.{signame})
        os.fsync = fsync_then_signal
        fileio.write_atomic({str(tmp_path / "out.json")!r}, "x" * 100_000)
        print("not reached")
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == -getattr(signal, signame), (r.returncode, r.stderr)
    assert "not reached" not in r.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_signal_handler_of_the_caller_is_left_alone(tmp_path):
    """A program with its own SIGTERM handler keeps it (and its behaviour) during and after the write."""
    import signal

    seen = []
    previous = signal.signal(signal.SIGTERM, lambda num, frame: seen.append(num))
    try:
        write_atomic(tmp_path / "out.json", "x")
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        os.kill(os.getpid(), signal.SIGTERM)
        assert seen == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_name_refused_for_another_reason_is_not_told_to_be_shorter(tmp_path, monkeypatch):
    """Helper rev19 (2026-12-06): nc19's OSError branch told every refused name to be shorter, also a stat refused
    for permission (EACCES, which ``Path.is_dir`` raises); only ENAMETOOLONG is a length problem."""
    import errno
    from pathlib import Path

    def denied(self):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "is_dir", denied)
    with pytest.raises(TpkitError, match="Permission denied") as info:
        check_writable(tmp_path / "out.json", what="--json")
    assert "shorter" not in str(info.value) and "can write" in str(info.value)
    monkeypatch.undo()
    with pytest.raises(TpkitError, match="pass a shorter path"):
        check_writable(tmp_path / ("m" * 400), what="--json")
