"""Shared by the round-trip tests: one explain corpus case, its explanation, a fix's round-trip row and the plan
``plan --from-log`` gives for it (split out of test_explain_roundtrip_causes.py / test_explain_roundtrip_rt16.py,
lead, session 16)."""

from __future__ import annotations

import json

from explain_testlib import cases, script

ROUNDTRIP = script("explain_roundtrip_check")


def case(case_id: str) -> dict:
    return next(c for c in cases() if c["id"] == case_id)


def explained(case_id: str):
    return ROUNDTRIP.explained(case(case_id), ROUNDTRIP.model_map())


def row(case_id: str, flags: str) -> dict:
    e, model, given = explained(case_id)
    return next(r for r in ROUNDTRIP.roundtrip(case(case_id), e, model, given) if r["flags"].startswith(flags))


def plan(capsys, case_id: str, *extra: str) -> dict:
    from tpkit.cli import main

    entry = ROUNDTRIP.model_map()[case_id]
    argv = ["plan", ROUNDTRIP.model_flag(entry), "--from-log", str(ROUNDTRIP.DATA / case(case_id)["file"]),
            *ROUNDTRIP.flag_argv(ROUNDTRIP.source_flags(entry)), *extra, "--json"]
    assert main(argv) in (0, 3)
    return json.loads(capsys.readouterr().out)
