"""Helpers for tests/explain: the real-log corpus of tests/logs/data (its README lists the sources)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from tests.scripts_testlib import load_script

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "logs" / "data"
SYNTHETIC_KIMI = DATA / "synthetic" / "kimi_k25_8x_rtx_pro_6000_sglang.log"


@lru_cache(maxsize=1)
def cases() -> tuple[dict, ...]:
    return tuple(json.loads((DATA / "cases.json").read_text(encoding="utf-8")))


def log_bytes(case_id: str) -> bytes:
    return (DATA / next(c for c in cases() if c["id"] == case_id)["file"]).read_bytes()


def script(name: str):
    """A module of scripts/ (capacity check, fuzz): ``tests.scripts_testlib.load_script``."""
    return load_script(name)


def explain_labelled(case_id: str, label: tuple[str, str, str], phase: str | None = None):
    """Explain corpus log ``case_id`` and check it against its round's ``(engine, "crash" | "ok", phase)`` label
    (``phase`` overrides the label's where a round pins a known wrong phase); the explanation, for further checks."""
    from tpkit.explain import explain_log

    engine, status, labelled = label
    e = explain_log(log_bytes(case_id))
    assert e.parsed.engine.engine == engine
    assert e.diagnosis.status == ("failed" if status == "crash" else "ok")
    assert e.diagnosis.phase == (labelled if phase is None else phase), e.diagnosis.cause
    return e
