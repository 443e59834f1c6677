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
