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
from explain_testlib import explain_labelled, log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log
from tpkit.logs.failures import detect
from tpkit.logs.memsaver import memsaver_failures, memsaver_phase


# -- item 1: the resume of memory released for training (logs.memsaver, explain.sgresume) ----------------------------
@pytest.mark.parametrize("case_id", sorted(LABELS))
def test_each_resume_log_gets_its_engine_status_and_phase(case_id):
    e = explain_labelled(case_id, LABELS[case_id])
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


# -- item 2: a multi-node run's share of the host (explain.hostnodes, explain.hostgpus) ------------------------------
from types import SimpleNamespace  # noqa: E402

from tpkit.explain.diagnose import SUGGESTION, Fix  # noqa: E402
from tpkit.explain.hostgpus import checked_fixes, gpus_needed, host_gpus_shown, run_gpus, run_layout  # noqa: E402
from tpkit.explain.hostnodes import nodes_spanned  # noqa: E402

_ROW = b"|   %d  NVIDIA H100 80GB HBM3          On  |   00000000:%02X:00.0 Off |                    0 |\n"


def _smi(n: int) -> bytes:
    return b"".join(_ROW % (i, i + 1) for i in range(n))


def _ctx(**kw):
    return SimpleNamespace(get=lambda k, d=None: kw.get(k, d))


def test_nodes_spanned_follows_each_engines_split():
    sg = b"python3 -m sglang.launch_server --model-path M --tp 16 --nnodes 2 --node-rank 0\n"
    assert nodes_spanned("sglang", 16, 1, 1, 1, sg)[0] == 2
    assert nodes_spanned("sglang", 8, 2, 1, 1, b"ServerArgs(tp_size=8, pp_size=2, nnodes=4, node_rank=1)")[0] == 4
    assert nodes_spanned("sglang", 1, 1, 1, 1, b"--nnodes 2") == (1, "")  # SGLang refuses tp × pp % nnodes != 0
    assert nodes_spanned("sglang", 8, 1, 1, 1, b"nnodes=1") == (1, "")
    vl = b"non-default args: {'tensor_parallel_size': 2, 'nnodes': 2, 'node_rank': 0}"
    assert nodes_spanned("vllm", 2, 1, 1, 1, vl)[0] == 2
    # vLLM dp 4 with 2 local: 2 dp groups of hosts, so a tp 8 world spans nnodes 4 // 2 = 2 hosts
    assert nodes_spanned("vllm", 8, 1, 4, 2, b"--nnodes 4 --data-parallel-size-local 2")[0] == 2
    assert nodes_spanned("vllm", 8, 1, 4, 4, b"--nnodes 4") == (1, "")  # the dp ranks' hosts unknown


def test_a_multi_node_run_holds_its_share_and_a_fix_keeps_the_nodes():
    raw = b"python3 -m sglang.launch_server --model-path M --tp 8 --nnodes 2 --node-rank 0\n"
    ctx = _ctx(tp=8, pp=1)
    assert run_layout(ctx, "sglang", raw)[0::3] == (4, 2) and run_gpus(ctx, "sglang", raw)[0] == 4
    assert gpus_needed("--tp 16", 8, 1, 1, 2) == 8
    fix = Fix(flags="--tp 16", kv_tokens=1000, fits=True, why="why", note="re-planned")
    # a host of 4 GPUs (its nvidia-smi): tp 16 over the same two nodes needs 8 on it
    shown = host_gpus_shown(_smi(4) + raw, None, *run_layout(ctx, "sglang", _smi(4) + raw))
    assert (shown.count, shown.exact, shown.nodes) == (4, True, 2)
    out = checked_fixes([fix], ctx, shown)[0]
    assert not out.fits and out.note.startswith(f"{SUGGESTION}: needs 8 GPUs; this host shows 4")
    # a host of 8: the same fix fits (before the rule: 'needs 16 GPUs; this host shows 8', a suggestion)
    shown = host_gpus_shown(_smi(8) + raw, None, *run_layout(ctx, "sglang", _smi(8) + raw))
    assert checked_fixes([fix], ctx, shown)[0] == fix
    # without --nnodes the run is one host's tp 8 and tp 16 needs 16
    one = host_gpus_shown(_smi(8), None, *run_layout(ctx, "sglang", _smi(8)))
    assert checked_fixes([fix], ctx, one)[0].note.startswith(f"{SUGGESTION}: needs 16 GPUs; this host shows 8")


def test_vllm_world_size_counts_every_node():
    raw = (b"vllm serve M --tensor-parallel-size 4 --nnodes 2 --node-rank 0\n"
           b"INFO worker.py: rank 0 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 0\n")
    ctx = _ctx(tp=4, pp=1, dp=1)
    used = host_gpus_shown(raw, None, *run_layout(ctx, "vllm", raw))
    assert (used.count, used.exact, used.nodes) == (2, False, 2) and "over 2 nodes" in used.evidence
    fix = Fix(flags="--tensor-parallel-size 8", kv_tokens=1000, fits=True, why="why", note="re-planned")
    out = checked_fixes([fix], ctx, used)[0]
    assert out.fits and "needs 4 GPUs; the log shows 2 in use" in out.note


def test_the_corpus_multi_node_logs():
    """sg_913 (sglang#5883, tp 16 over two nodes in the prose) and vl_844 (vLLM tp 2 over --nnodes 2): neither offers a
    layout fix; vl_844's host holds one GPU of its tp 2, so no host bound beyond one GPU is shown."""
    e = explain_log(log_bytes("vl_844"))
    assert e.context.host_shown is None
    assert [f.flags for f in explain_log(log_bytes("sg_913")).diagnosis.fixes] == ["--disable-cuda-graph"]


# -- item 4: a log with two engine starts is judged by the last start with the last command (logs.restarts) ----------
from tpkit.logs.restarts import command_lines, same_start  # noqa: E402
from tpkit.logs.text import last_start  # noqa: E402

_API = "INFO 04-06 18:{m}:57 [api_server.py:1034] vLLM API server version 0.8.3\n"
_CORE = ("INFO 04-06 18:{m}:58 [core.py:61] Initializing a V1 LLM engine (v0.8.3) with config: "
         "model='Qwen/Qwen2.5-0.5B-Instruct', max_seq_len={n}\n")


def _two_runs(first_cmd: str, second_cmd: str) -> str:
    return (first_cmd + _API.format(m=42) + _CORE.format(m=42, n=4096) + "ERROR crash\n" + "some prose\n"
            + second_cmd + _API.format(m=44) + _CORE.format(m=44, n=512))


def test_the_last_start_takes_the_command_printed_after_the_previous_start():
    second = "vllm serve Qwen/Qwen2.5-0.5B-Instruct \\\n    --gpu-memory-utilization 0.1 \\\n    --max-num-seqs 1\n"
    text = _two_runs("vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 0.9 --max-num-seqs 256\n", second)
    kept, (note,) = last_start(text)
    assert "--max-num-seqs 1\n" in kept and "0.9" not in kept and "the launch command at line" in note
    assert kept.count("\n") == text.count("\n")  # line numbers stay the file's
    p = parse_log(text.encode())
    assert p.run.mem_fraction.value == 0.1 and p.run.max_running_requests.value == 1


def test_a_command_above_the_first_start_stays_with_it():
    text = _two_runs("vllm serve Qwen/Qwen2.5-0.5B-Instruct --gpu-memory-utilization 0.9\n", "")
    kept, (note,) = last_start(text)
    assert "0.9" not in kept and "launch command" not in note
    assert parse_log(text.encode()).run.mem_fraction is None or parse_log(text.encode()).run.mem_fraction.value != 0.9


def test_command_lines_span_the_continuations():
    text = "prose\ndocker run --gpus all \\\n  vllm/vllm-openai:v0.8.3 \\\n  --max-model-len 512\nmore\n"
    start, end = command_lines(text, 0, len(text))
    assert text[start:end] == "docker run --gpus all \\\n  vllm/vllm-openai:v0.8.3 \\\n  --max-model-len 512"
    assert command_lines("no command here\n", 0, 16) is None


def test_the_same_start_pasted_twice_is_one_start():
    line = "INFO 11-05 03:21:18 api_server.py:526] vLLM API server version 0.6.1\n"
    text = "cmd: vllm serve M --max-model-len 1024\n" + line + "INFO args\n" + "$ docker logs c1\n" + line + "INFO x\n"
    assert same_start(text, text.index(line), text.rindex(line))
    assert last_start(text) == (text, ())
    # a restart prints the line at a later time: two starts
    later = line.replace("03:21:18", "03:25:40")
    assert len(last_start(text.replace("$ docker logs c1\n" + line, "$ docker logs c1\n" + later))[1]) == 1
    # the same block repeated whole (its lines, then the end or another opening line): a restart, as before
    whole = line + "INFO 11-05 03:21:19 a\n"
    assert len(last_start(whole + whole)[1]) == 1 and len(last_start(whole * 3)[1]) == 1
    # a line without a time of day proves nothing: two starts
    bare = "vLLM API server version 0.6.1\n"
    assert len(last_start("x\n" + bare + "y\n" + bare)[1]) == 1


def test_the_corpus_logs_with_a_command_before_a_later_start():
    """vl_987 (vllm#16141: three starts; the retry's `docker run … -e VLLM_USE_V1=0 … --max-num-seqs 1` above the last)
    and vl_989 (vllm#10034: one start pasted twice at the same 03:21:18, its `docker run` above both)."""
    p = parse_log(log_bytes("vl_987"))
    assert any("the launch command at line 238" in n for n in p.notes)
    assert p.run.max_running_requests.value == 1 and p.run.mem_fraction.value == 0.1
    p = parse_log(log_bytes("vl_989"))
    assert not any(n.startswith("the log holds") for n in p.notes)
    assert p.run.tp.value == 2 and p.run.context_length.value == 1024
    assert {(s.name, s.value) for s in p.settings if s.line_no == 4} >= {("tp", 2), ("context_length", 1024)}


# -- item 3: vLLM's estimated maximum model length at the low end of the prints (explain.vlowend) --------------------
from tpkit.explain.vlowend import low_end_length  # noqa: E402

_TOO_SMALL = ("ERROR 04-05 01:12:55 [core.py:390] ValueError: To serve at least one request with the models's max seq "
              "len (1048576), (24.00 GiB KV cache is needed, which is larger than the available KV cache memory "
              "({have} GiB).{est} Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
              "initializing the engine.\n")


def _too_small(have: str = "9.97", est: str = ""):
    return parse_log(_TOO_SMALL.format(have=have, est=est).encode()).primary_failure


def test_the_length_without_a_printed_estimate_is_taken_at_the_pessimistic_end():
    f = _too_small()
    # 9.965 GiB over 24.005 GiB per 1,048,576 tokens, in 16-token blocks (the middles give 435,584)
    assert low_end_length(f, 16) == 435_280
    assert int(9.965 * 2**30 // (24.005 * 2**30 / 1048576 * 16)) * 16 == 435_280
    # the estimate printed: vLLM's own number is taken, not rebuilt
    assert low_end_length(_too_small(est=" Based on the available memory, the estimated maximum model length is "
                                         "435584."), 16) is None
    # a pool under one block at the low end: no length
    assert low_end_length(_too_small(have="0.00"), 16) is None


def test_vl_1484_fix_fits_wherever_the_rounding_puts_the_true_numbers():
    d = explain_log(log_bytes("vl_1484")).diagnosis
    fix = d.fixes[0]
    assert fix.flags == "--max-model-len 435280" and fix.fits
    # at the worst end of both prints one request of that length fits: cdiv(L, 16) blocks of the high end's bytes
    per_block = 24.005 * 2**30 / 1048576 * 16
    assert -(-435_280 // 16) * per_block <= 9.965 * 2**30 < (435_280 // 16 + 1) * per_block
