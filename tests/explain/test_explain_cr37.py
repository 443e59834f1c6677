"""Round cr37 (helper cr37, 2026-12-07, session 37; docs/accuracy.md §7.3): the 23 vLLM crash logs without a fit, read
for classes of one missing fact.  One general rule came out (``explain.voffv1``): vLLM's opt-in V1 engine before
0.8.0 never sets the CPU-offload cap (the 0.7.3 wheel: only V0's model runner calls ``set_cpu_offload_max_bytes``),
so a V1 0.7.x run that asked for ``cpu_offload_gb`` loaded its weights whole; V0 (``VLLM_USE_V1=0``) honours the same
offload, and the fix is re-planned from the log's measured weights.  vl_988 (vllm#15004, its ``LLM(...)`` call printed
before the engine starts) is the corpus's one such log.  Each rule is tested on both sides."""

from __future__ import annotations

import pytest
from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR, NOT_SHOWN

from tpkit.explain import explain_log
from tpkit.explain.diagnose import SUGGESTION
from tpkit.explain.voffv1 import asked_offload, v1_release

CALL = b"cpu_offload_gb= 12"
START = b"Initializing a V1 LLM engine (v0.7.3)"


def _vl_988(data: bytes | None = None, *, model: bool = True):
    flags = FLAGS_FOR.get("vl_988") if model else None
    return explain_log(data if data is not None else log_bytes("vl_988"), flags=flags)


def _v0_fix(e):
    return next((f for f in e.diagnosis.fixes if f.flags == "VLLM_USE_V1=0"), None)


def test_vl_988_is_re_planned_on_v0_with_its_own_offload():
    e = _vl_988()
    assert e.diagnosis.phase == "kv_pool"
    assert "cpu_offload_gb=12 (line 150)" in e.diagnosis.cause and "V1 engine before 0.8.0" in e.diagnosis.cause
    fix = e.diagnosis.fixes[0]
    assert fix.flags == "VLLM_USE_V1=0" and fix.fits
    # 14.25 GiB measured × 2.16 / 14.19 GiB planned: about 2.17 GiB on the GPU; ~58k tokens at 0.95 on 7.54 GiB
    assert 50_000 < fix.kv_tokens < 65_000, fix.kv_tokens
    assert "2.17 GiB" in fix.note and "pessimistic end holds" in fix.note and "≥ the 512" in fix.note
    assert "vl_988" not in NOT_SHOWN


def test_the_model_read_by_its_path_name_plans_the_same():
    # no FLAGS_FOR: the log's '/home/roy/models/Qwen2.5-7B' is read by its name (the catalog's Qwen2.5-7B)
    assert _v0_fix(_vl_988(model=False)).kv_tokens == _v0_fix(_vl_988()).kv_tokens


def test_without_the_model_the_cause_still_says_it_but_nothing_fits():
    e = _vl_988(log_bytes("vl_988").replace(b"models/Qwen2.5-7B", b"models/private-model"), model=False)
    assert "cpu_offload_gb=12" in e.diagnosis.cause and "the weights loaded whole" in e.diagnosis.cause
    assert _v0_fix(e) is None and not any(f.fits for f in e.diagnosis.fixes)


def test_a_v0_start_line_is_not_this_rule():
    data = log_bytes("vl_988").replace(START, b"Initializing an LLM engine (v0.7.3)")
    e = _vl_988(data)
    assert "V1 engine before 0.8.0" not in e.diagnosis.cause and _v0_fix(e) is None


def test_a_release_from_0_8_is_not_this_rule():
    # 0.8.0-0.8.2 fall back to V0 for the flag, 0.8.3+ offload by UVA: the weights a 0.8 log measures are offloaded
    data = log_bytes("vl_988").replace(START, b"Initializing a V1 LLM engine (v0.8.3)")
    e = _vl_988(data)
    assert "V1 engine before 0.8.0" not in e.diagnosis.cause and _v0_fix(e) is None


def test_no_offload_asked_no_rule():
    data = log_bytes("vl_988").replace(CALL, b"cpu_offload_gb= 0")
    e = _vl_988(data)
    assert "V1 engine before 0.8.0" not in e.diagnosis.cause and _v0_fix(e) is None


def test_too_little_offload_is_offered_not_called_a_fit():
    # 1 GiB offloaded leaves ~13 GiB of weights on a 7.54 GiB card: V0 is re-planned and does not fit
    e = _vl_988(log_bytes("vl_988").replace(CALL, b"cpu_offload_gb= 1"))
    fix = _v0_fix(e)
    assert fix is not None and not fix.fits and fix.note.startswith(SUGGESTION + ": ")
    assert "cpu_offload_gb=1 " in e.diagnosis.cause


@pytest.mark.parametrize("text, gib", [
    (b"llm = LLM(model='m', cpu_offload_gb=12)\n", 12.0),
    (b"vllm serve m --cpu-offload-gb 4\n", 4.0),
    (b"vllm serve m --cpu-offload-gb=2.5\n", 2.5),
    (b"non-default args: {'cpu_offload_gb': 6}\n", 6.0),
])
def test_the_launch_offload_is_read_in_each_spelling(text, gib):
    raw = text + START + b" with config: model='m'\n"
    release, at = v1_release(raw)
    assert release == "0.7.3" and asked_offload(raw, at) == (gib, 1)


def test_the_setting_after_the_start_does_not_belong_to_it():
    raw = b"LLM(model='m', cpu_offload_gb=8)\n" + START + b"\n" + b"LLM(model='m', cpu_offload_gb=2)\n"
    release, at = v1_release(raw)
    assert asked_offload(raw, at) == (8.0, 1)
    assert asked_offload(b"x cpu_offload_gb parameter in the range of 10 to 22\n" + START, 60) is None
    assert v1_release(b"Initializing a V1 LLM engine (v0.8.0) with config") is None
