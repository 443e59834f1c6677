"""Helpers for the tests/logs suite: the real-log corpus in tests/logs/data (see its README)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


@lru_cache(maxsize=1)
def cases() -> tuple[dict, ...]:
    """Every corpus log: its file, source, status, labelled failure and printed numbers."""
    return tuple(json.loads((DATA / "cases.json").read_text(encoding="utf-8")))


def case(case_id: str) -> dict:
    return next(c for c in cases() if c["id"] == case_id)


def log_bytes(case_id: str) -> bytes:
    return (DATA / case(case_id)["file"]).read_bytes()
