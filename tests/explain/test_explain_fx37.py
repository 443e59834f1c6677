"""Round fx37 (helper fx37, 2026-12-07, docs/accuracy.md §7.3 "round fx37"): explain leads of issue 12.

Item 1 — SGLang's resume of memory released for training (torch_memory_saver).  The labels below were written from
each thread before tpkit was run on the logs (the first commit of this file holds only them); the blind results and
the rule made after are recorded in docs/accuracy.md.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| sg_1041 | sgl-project/sglang#14092 (verl, 8 SGLangHttpServer actors) | crash other | 'CUresult error: 2 (out of memory) … func=cu_mem_create' while verl's 'resume_memory_occupation' requests time out: the resume re-maps the released weights / KV pool / graphs (weight_updater.resume_memory_occupation, 0.5.13.post1), after start-up and not a request |
| sg_1042 | fzyzcjy/torch_memory_saver#99 ('OOM when resume kv cache', SGLang 0.5.12.post1) | crash other | 'cudaError error: 2 (out of memory) file=csrc/core.cpp func=resume' |
| sg_1043 | fzyzcjy/torch_memory_saver#35 | crash other | 'CUresult error result=1 … func=resume' (CUDA_ERROR_INVALID_VALUE, not a shortage), then SGLang's 'Child process unexpectedly failed with an exit code 256' |
"""

from __future__ import annotations

LABELS = {
    "sg_1041": ("sglang", "crash", "other"),
    "sg_1042": ("sglang", "crash", "other"),
    "sg_1043": ("sglang", "crash", "other"),
}

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log
from tpkit.logs.failures import detect
from tpkit.logs.memsaver import memsaver_failures, memsaver_phase


# -- item 1: the resume of memory released for training (logs.memsaver, explain.sgresume) ----------------------------
@pytest.mark.parametrize("case_id", sorted(LABELS))
def test_each_resume_log_gets_its_engine_status_and_phase(case_id):
    engine, status, phase = LABELS[case_id]
    e = explain_log(log_bytes(case_id))
    assert e.parsed.engine.engine == engine
    assert e.diagnosis.status == ("failed" if status == "crash" else "ok")
    assert e.diagnosis.phase == phase, e.diagnosis.cause
    assert "resume_memory_occupation" in e.diagnosis.cause and "after start-up and not a request" in e.diagnosis.cause


def test_an_out_of_memory_resume_names_the_other_tenant_and_fits_nothing():
    for case_id in ("sg_1041", "sg_1042"):
        d = explain_log(log_bytes(case_id)).diagnosis
        assert d.cause.startswith("out of memory while resuming") and "trainer" in d.cause
        assert d.fixes and not any(f.fits for f in d.fixes)
        assert all(f.note.startswith("a suggestion, not shown to fit: the line prints no size") for f in d.fixes)
        assert any("--mem-fraction-static" in f.flags for f in d.fixes)


def test_a_resume_error_that_is_not_memory_gives_no_memory_fix():
    d = explain_log(log_bytes("sg_1043")).diagnosis
    assert "not for lack of memory" in d.cause and "CUDA_ERROR_INVALID_VALUE" in d.cause and not d.fixes


def test_the_memory_saver_codes():
    oom = "[torch_memory_saver.cpp] CUresult error: 2 (out of memory)  file=csrc/utils.h func=cu_mem_create line=194"
    (kind, severity, _, _, detail), = memsaver_failures(oom)
    assert (kind, severity) == ("cuda_oom", "error") and "cu_mem_create" in detail
    (kind, _, _, _, detail), = memsaver_failures("[torch_memory_saver.cpp] CUresult error  result=1 "
                                                 "file=csrc/torch_memory_saver.cpp func=resume line=214")
    assert kind == "exception" and "not a memory shortage" in detail
    (kind, *_), = memsaver_failures("[torch_memory_saver.cpp] cudaError error: 700 (an illegal memory access)  "
                                    "file=csrc/core.cpp func=resume line=9")
    assert kind == "exception"
    # the recoverable notice is no failure, and detect finds the line through its needle
    assert memsaver_failures("[torch_memory_saver.cpp] cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue e.g. "
                             "torch allocator will free cache and retry)") == []
    assert [k for k, *_ in detect(oom, "")] == ["cuda_oom"]


def test_the_resume_phase_needs_the_resume():
    """An allocation by the memory saver that names no resume (a pool allocating at start-up or while serving) is not
    placed by this rule: the ordinary phase rules place it."""
    alloc = "[torch_memory_saver.cpp] CUresult error: 2 (out of memory)  file=csrc/utils.h func=cu_mem_create line=194"
    assert memsaver_phase(alloc) is None
    assert memsaver_phase(alloc + "\nAsync request to resume_memory_occupation timed out (attempt 1)")[0] == "other"
    assert memsaver_phase(alloc.replace("cu_mem_create", "resume"))[0] == "other"
    text = ("[2026-01-01 10:00:00 TP0] Load weight begin. avail mem=78.00 GB\n" + alloc + "\n")
    f = parse_log(text.encode()).primary_failure
    assert f.kind == "cuda_oom" and f.phase == "weights"


def test_an_sglang_actor_name_and_the_rl_api_name_the_engine():
    for text in ("(SGLangHttpServer pid=1) something happened\n",
                 "(WorkerDict pid=2) WARNING: Async request to release_memory_occupation timed out (attempt 1)\n"):
        assert parse_log(text.encode()).engine.engine == "sglang"
    assert parse_log(b"(SGLangHttpServer pid=1) [torch_memory_saver.cpp] x\n").engine.engine == "sglang"
