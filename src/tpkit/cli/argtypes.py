"""argparse types shared by the commands: a whole number that refuses ``128k`` with both readings spelled out.

A module of its own so that ``tpkit perf`` takes it without importing the engine flag table
(``tpkit.cli.engine_flags``, which ``plan`` and ``explain`` build from every engine's options).
"""

from __future__ import annotations

import argparse
import re

__all__ = ["_whole", "_SUFFIXED"]

_SUFFIXED = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kKmM])i?\s*")


def _whole(text: str) -> int:
    """A whole number; ``128k`` and the like are refused with both readings spelled out (no guessing k = 1000
    or 1024)."""
    try:
        return int(text)
    except ValueError:
        pass
    m = _SUFFIXED.fullmatch(text)
    if m:
        n, big = float(m.group(1)), m.group(2).lower() == "m"
        dec, binary = int(n * (10**6 if big else 10**3)), int(n * (2**20 if big else 2**10))
        unit = "M" if big else "k"
        raise argparse.ArgumentTypeError(
            f"expected a whole number, got {text!r}; write it out: {dec} (with {unit} = {'10^6' if big else '1000'}) "
            f"or {binary} (with {unit} = {'2^20' if big else '1024'})")
    raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
