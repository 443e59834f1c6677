"""Explain leads, round fx38 (docs/accuracy.md §7.3, helper fx38, 2026-12-08, issue 12).

- vLLM-Ascend's own 'Available memory: N, total memory: M' (bytes; ``logs.ascendmem``, hooked in ``logs.rules``): the
  worker's KV budget and the device total, so a vLLM-Ascend OOM while serving gets its lower utilization re-planned
  from the log's numbers (a fit where the smaller pool passes vLLM's checks);
- vLLM's generation from the formats as the 0.7.0 / 0.7.2 / 0.7.3 wheels print them: 'Loading model weights took' and
  'Initializing an LLM engine' are printed by V0 and by 0.7.x's opt-in V1 alike, so they name V0 only where no
  format that one generation alone prints says otherwise ('Initializing a V1 LLM engine (v0.7.3)': vl_988);
- a ``vllm serve`` command printed after an offline ``LLM(...)`` run's traceback is another run's (vl_997).
"""

from __future__ import annotations

import sys

from explain_testlib import ROOT, log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log
from tpkit.logs.engine import Evidence, generation_of

sys.path.insert(0, str(ROOT / "tests" / "explain"))
import test_explain_corpus as corpus  # noqa: E402

_ASCEND = b"(Worker_TP0 pid=1162) INFO 10-10 11:30:02 [worker_v1.py:235] Available memory: %d, total memory: %d\n"
_TOTAL = 65464696832  # 60.97 GiB, torch_npu's total on a 910B (vllm-ascend#3357's OOM line)
_SERVING = (b"(EngineCore_DP0 pid=900) INFO 10-10 11:30:03 [kv_cache_utils.py:1087] GPU KV cache size: %s tokens\n"
            b"(EngineCore_DP0 pid=900) INFO 10-10 11:31:03 [core.py:210] init engine (profile, create kv cache, warmup "
            b"model) took 90.12 seconds\n"
            b"(APIServer pid=800) INFO:     Application startup complete.\n")


def _anchors(data: bytes) -> dict:
    return {a.name: a.size.value.bytes for a in parse_log(data).anchors if a.size is not None}


# -- 1. vLLM-Ascend's bytes line -------------------------------------------------------------------------------------

def test_the_ascend_line_is_the_kv_budget_and_the_total_in_bytes():
    got = _anchors(_ASCEND % (9663676416, _TOTAL))
    assert got == {"available_kv": 9663676416, "total_gpu_memory": _TOTAL}
    p = parse_log(_ASCEND % (9663676416, _TOTAL))
    assert p.engine.engine == "vllm" and p.run.gpu_total.value.bytes == _TOTAL


def test_a_zero_budget_is_read_as_no_kv_cache():
    """vLLM-Ascend clamps the budget at 0 (max(…, 0)): a printed 0 is a budget ≤ 0 (vllm-ascend#4404, a second model
    on a 910B already holding one)."""
    p = parse_log(b"(EngineCore_DP0 pid=634) INFO 11-22 10:01:28 [worker_v1.py:256] Available memory: 0, total "
                  b"memory: 65452113920\n")
    assert [(f.kind, f.phase) for f in p.failures] == [("kv_budget_non_positive", "kv_pool")]


def test_other_available_memory_lines_are_not_read_as_the_ascend_line():
    # SGLang's warm-up line (sg_595) carries a unit word and no total; a unit word after either number, a decimal
    # number or a total cut short is not vLLM-Ascend's bytes line
    for line in (b"[2026-02-27 14:33:48 TP0] Required memory for warmup: 0.18GB, Available memory: 15.0693359375GB\n",
                 b"Available memory: 12 GiB, total memory: 64 GiB\n",
                 b"Available memory: 1.5, total memory: 65464696832\n",
                 b"INFO [worker_v1.py:235] Available memory: 9663676416, total memory: 6546\n"):
        got = _anchors(line)
        assert "total_gpu_memory" not in got and got.get("available_kv") in (None, 9663676416)


def test_vl_1378_with_the_ascend_line_re_plans_the_smaller_pool():
    """vl_1378 (vllm-ascend#3357) prints no such line; with it (and vLLM's token count, so the bytes per token are
    known) the utilization fix is re-planned from the printed numbers: a fit at a length the smaller pool holds, a
    suggestion naming vLLM's start-up check at the thread's 98,304."""
    head = _ASCEND % (9663676416, _TOTAL) + _SERVING % b"196,608"
    flags = dict(corpus.FLAGS_FOR["vl_1378"])
    d = explain_log(head + log_bytes("vl_1378"), flags=flags).diagnosis
    [fix] = d.fixes
    assert fix.flags == "--gpu-memory-utilization 0.83" and fix.kv_tokens == 36768 and not fix.fits
    assert "fewer than max_model_len 98,304" in fix.note
    d = explain_log(head + log_bytes("vl_1378"), flags={**flags, "max_model_len": 8192}).diagnosis
    [fix] = d.fixes
    assert fix.flags == "--gpu-memory-utilization 0.83" and fix.fits and fix.kv_tokens == 36768
    assert "missing for a fit" not in d.cause


def test_without_a_token_count_the_budget_alone_is_no_fit_and_says_why():
    d = explain_log(_ASCEND % (9663676416, _TOTAL) + log_bytes("vl_1378"),
                    flags=corpus.FLAGS_FOR["vl_1378"]).diagnosis
    [fix] = d.fixes
    assert not fix.fits and "bytes per token are not known" in fix.note
    assert "the log prints the KV budget (9.00 GiB)" in d.cause
    d = explain_log(log_bytes("vl_1378"), flags=corpus.FLAGS_FOR["vl_1378"]).diagnosis  # the excerpt as it is
    assert "'Available memory: N, total memory: M'" in d.cause and "shows neither" in d.cause


# -- 2. vLLM 0.7.x's generation ---------------------------------------------------------------------------------------

def _gen(text: bytes) -> tuple[str | None, str | None]:
    guess = parse_log(text).engine
    return guess.engine_generation, guess.version


def test_the_07_v1_engine_line_outweighs_the_shared_load_line():
    """0.7.3's V1 runner prints 'Loading model weights took' (v1/worker/gpu_model_runner.py), as V0's does."""
    v1 = (b"INFO 03-04 10:00:00 core.py:50] Initializing a V1 LLM engine (v0.7.3) with config: model='m'\n"
          b"INFO 03-04 10:00:09 gpu_model_runner.py:1060] Loading model weights took 14.2500 GB\n")
    assert _gen(v1) == ("V1", "0.7.3")
    assert _gen(v1.split(b"\n", 1)[1]) == ("V0", "≤ 0.10 (V0 model runner; 0.7.x's opt-in V1 runner too)")
    v0 = v1.replace(b"a V1 LLM engine", b"a V0 LLM engine")
    assert _gen(v0) == ("V0", "0.7.3")


def test_the_07_0_engine_line_names_v0_only_without_a_v1_format():
    """0.7.0 prints 'Initializing an LLM engine' from both engines (engine/llm_engine.py, v1/engine/core.py)."""
    line = b"INFO 01-27 10:00:00 llm_engine.py:233] Initializing an LLM engine (v0.7.0) with config: model='m'\n"
    assert _gen(line) == ("V0", "0.7.0")
    ev = [Evidence(engine="vllm", claim="format of 'Initializing an LLM engine': ≤ 0.7.0 (…) [V0?]", line_no=1, text=""),
          Evidence(engine="vllm", claim="format of 'GPU KV cache size:': ≥ 0.8 (V1 engine) [V1]", line_no=2, text="")]
    assert generation_of(ev) == "V1" and generation_of(ev[:1]) == "V0" and generation_of([]) is None


def test_vl_988_reads_v1_and_keeps_its_offload_fix():
    assert _gen(log_bytes("vl_988")) == ("V1", "0.7.3")
    d = explain_log(log_bytes("vl_988")).diagnosis
    assert any(f.flags.startswith("VLLM_USE_V1=0") and f.fits for f in d.fixes)


# -- 3. a command after an offline run's traceback --------------------------------------------------------------------

_OFFLINE = (b"Traceback (most recent call last):\n"
            b'  File "/home/u/run.py", line 9, in <module>\n'
            b"    llm = LLM(model=path,\n"
            b'  File "/x/site-packages/vllm/entrypoints/llm.py", line 242, in __init__\n'
            b"    self.llm_engine = self.engine_class.from_engine_args(\n"
            b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU 0 has a total capacity of "
            b"79.10 GiB of which 383.88 MiB is free.\n")
_SERVE = b"vllm serve /m \\\n    --tensor-parallel-size 8 \\\n    --gpu-memory-utilization 0.9\n"


def test_a_server_command_after_an_offline_traceback_is_not_that_run():
    run = parse_log(_OFFLINE + b"\nonline serving works:\n" + _SERVE).run
    assert run.value("tp") is None and run.value("mem_fraction") is None
    # the same command above the traceback, or after a served run's traceback (no offline frame), is kept
    assert parse_log(_SERVE + _OFFLINE).run.value("tp") == 8
    served = _OFFLINE.replace(b"vllm/entrypoints/llm.py", b"vllm/entrypoints/openai/api_server.py")
    assert parse_log(served + _SERVE).run.value("tp") == 8


def test_vl_997_is_judged_as_its_offline_run():
    run = parse_log(log_bytes("vl_997")).run
    assert run.value("tp") is None and run.value("mem_fraction") is None  # not the later `vllm serve … tp 8`
    d = explain_log(log_bytes("vl_997")).diagnosis
    assert d.phase == "weights" and not any(f.flags == "--tensor-parallel-size 16" for f in d.fixes)
    assert any(f.flags == "--tensor-parallel-size 2" and not f.fits for f in d.fixes)
