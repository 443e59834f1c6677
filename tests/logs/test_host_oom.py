"""The host's OOM killer named in a log (kernel, container runtime, or a report of either): a failure of its own kind,
phase 'other', never a device-memory failure.  Helper blind12 (2026-12-05): vl_852 (a vLLM 0.26.0 container
OOM-killed for host RAM after the KV sizing) was read blind as a run that succeeded."""

from pathlib import Path

import json

from tpkit.explain import explain_log
from tpkit.logs import parse_log

DATA = Path(__file__).resolve().parent / "data"


def _log(case_id: str) -> bytes:
    case = next(c for c in json.loads((DATA / "cases.json").read_text()) if c["id"] == case_id)
    return (DATA / case["file"]).read_bytes()


def test_a_reported_oom_kill_is_a_host_failure():
    f = parse_log(_log("vl_852")).primary_failure
    assert f.kind == "host_oom_killed" and f.phase == "other"
    e = explain_log(_log("vl_852"))
    assert e.diagnosis.status == "failed" and "host RAM" in e.diagnosis.cause
    assert not e.diagnosis.fixes  # no device-memory flag addresses host RAM


def test_the_kernel_and_runtime_wordings():
    for line in (b"[12345.678] Out of memory: Killed process 4242 (python3) total-vm:90000000kB\n",
                 b"State: Terminated  Reason: OOMKilled  Exit Code: 137\n"):
        assert parse_log(line).primary_failure.kind == "host_oom_killed", line


def test_a_bare_killed_is_not_an_oom():
    f = parse_log(_log("sg_034")).primary_failure  # 'line 7: 2502678 Killed  python3 -m sglang…' after a sigquit
    assert f is None or f.kind != "host_oom_killed"
