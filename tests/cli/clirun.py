"""Shared by the CLI tests: run ``tpkit ARGV`` in-process and capture what it printed."""

from __future__ import annotations

from pathlib import Path

from tpkit.cli import main

SYNTHETIC_KIMI = (Path(__file__).resolve().parents[1] / "logs" / "data" / "synthetic"
                  / "kimi_k25_8x_rtx_pro_6000_sglang.log")
"""the labelled-synthetic seed-scenario log (Kimi-K2.5 on 8× RTX PRO 6000, SGLang)"""


def cli(capsys, *argv):
    """(exit code, stdout, stderr) of ``tpkit ARGV``; argparse's own exits included."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *argv, says=()):
    """The one error line of ``tpkit ARGV`` refused as a user mistake: exit 2, nothing on stdout, no traceback or
    usage dump, and every phrase of ``says`` in that line."""
    code, out, err = cli(capsys, *argv)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and "usage:" not in err and not out, (out, err)
    error = [line for line in err.splitlines() if ": error: " in line]
    assert len(error) == 1, err
    for words in says:
        assert words in error[0], (words, err)
    return error[0]
