"""Round cr33b (2026-12-07, docs/accuracy.md §7.3): where a vLLM OOM after start-up happened, from the frames the
engine's source places — FlashInfer's lazily allocated workspace by the rank's last start-up step, the engine core's
busy loop as serving — and the multiproc worker loop, which places nothing; the sampler warm-up's --max-num-seqs fix;
each tested on both sides."""

from __future__ import annotations

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log
from tpkit.logs.phases import WORKER_RPC_LOOP, frame_phase, traceback_phase, workspace_phase

WS = "_get_workspace_buffer (flashinfer.py)"

_P = "(EngineCore_DP0 pid=3516) {lvl} 09-08 10:00:0{s} [{src}] {msg}"
_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 394.00 MiB. GPU 0 has a total capacity of "
        "21.48 GiB of which 286.31 MiB is free. Including non-PyTorch memory, this process has 21.19 GiB memory in "
        "use. Of the allocated memory 20.60 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but "
        "unallocated.")


def _log(steps: list[str], frames: list[tuple[str, str]], oom: str = _OOM, after: tuple[str, ...] = ()) -> bytes:
    """A vLLM V1 engine-core log: INFO lines ``steps``, then a traceback through ``frames`` (path, function) ending in
    the torch OOM ``oom``, then the lines ``after``."""
    lines = [_P.format(lvl="INFO", s=1, src="gpu_worker.py:391", msg=m) for m in steps]
    err = [f"  File \"/usr/local/lib/python3.12/dist-packages/vllm/{path}\", line 750, in {func}" for path, func in frames]
    for m in ["EngineCore encountered a fatal error.", "Traceback (most recent call last):", *err, oom, *after]:
        lines.append(_P.format(lvl="ERROR", s=5, src="core.py:843", msg=m))
    return ("\n".join(lines) + "\n").encode()


_WS_FRAME = [("v1/attention/backends/flashinfer.py", "_get_workspace_buffer")]
_KV = ["Available KV cache memory: 6.50 GiB", "GPU KV cache size: 53,248 tokens"]


@pytest.mark.parametrize("state, phase", [("kv_done", "first_request"), ("graph_done", "first_request"),
                                          ("serving", "first_request"), ("graph", "cuda_graph"),
                                          ("graph_profile", "cuda_graph"), (None, None), ("weights_done", None),
                                          ("weights", None)])
def test_the_workspace_frame_is_placed_by_the_last_start_up_step(state, phase):
    found = workspace_phase(["__call__ (module.py)", WS], state)
    assert (found[0] if found else None) == phase


def test_only_flashinfers_builder_method_is_the_workspace():
    # the sparse-MLA backend's module-level helper of the same name is another file, not read for this rule
    assert workspace_phase(["_get_workspace_buffer (flashinfer_mla_sparse.py)"], "kv_done") is None
    assert workspace_phase(["build (flashinfer.py)"], "kv_done") is None


def test_a_frame_rule_wins_over_the_workspace_step():
    # a full traceback names the caller: capture_model's frame is the capture whatever step was logged
    assert traceback_phase(["capture_model (gpu_model_runner.py)", WS], "kv_done")[0] == "cuda_graph"
    assert traceback_phase(["execute_model (gpu_model_runner.py)", WS], None)[0] == "first_request"


def test_a_workspace_oom_after_the_kv_sizing_is_a_first_request_with_a_lower_utilization():
    d = explain_log(_log(_KV, _WS_FRAME)).diagnosis
    assert d.phase == "first_request" and "short by 107.69 MiB" in d.cause
    assert [f.flags.split()[0] for f in d.fixes] == ["--gpu-memory-utilization"]


def test_a_workspace_oom_in_the_graph_profiling_is_not_fixed_by_the_utilization():
    d = explain_log(_log(["Profiling CUDA graph memory: PIECEWISE=51 (largest=512)"], _WS_FRAME)).diagnosis
    assert d.phase == "cuda_graph" and "profile_cudagraph_memory" in d.cause
    assert [f.flags for f in d.fixes] == ["--enforce-eager"]


def test_a_workspace_oom_with_no_step_logged_stays_unplaced():
    d = explain_log(_log([], _WS_FRAME)).diagnosis
    assert d.phase == "other" and d.fixes == ()


def test_vl_1155_the_abridged_excerpt_stays_unplaced():
    # the author's lines: the OOM and the workspace frame, no start-up step (weicj/vLLM-2080Ti-Definitive#150)
    d = explain_log(log_bytes("vl_1155")).diagnosis
    assert d.phase == "other" and not any(f.fits for f in d.fixes)


def test_the_engine_cores_busy_loop_is_serving():
    assert frame_phase(["run_engine_core (core.py)", "run_busy_loop (core.py)"])[0] == "first_request"
    assert frame_phase(["run_busy_loop (scheduler.py)"]) is None  # another file's loop is not vLLM's engine core
    frames = [("v1/engine/core.py", "run_engine_core"), ("v1/engine/core.py", "run_busy_loop")]
    assert parse_log(_log(_KV, frames)).primary_failure.phase == "first_request"


def test_the_engine_core_constructor_is_start_up_not_the_busy_loop():
    # EngineCoreProc.__init__ sizes the KV cache before run_busy_loop is entered: a frame inside it is start-up
    frames = [("v1/engine/core.py", "run_engine_core"), ("v1/engine/core.py", "__init__"),
              ("v1/engine/core.py", "_initialize_kv_caches")]
    assert parse_log(_log([], frames)).primary_failure.phase == "kv_pool"


@pytest.mark.parametrize("inner, phase", [(None, None), ("execute_model (gpu_worker.py)", "first_request"),
                                          ("determine_available_memory (gpu_worker.py)", "kv_pool"),
                                          ("capture_model (gpu_model_runner.py)", "cuda_graph")])
def test_the_multiproc_worker_loop_places_nothing_its_rpc_does(inner, phase):
    frames = [f"{WORKER_RPC_LOOP} (multiproc_executor.py)"] + ([inner] if inner else [])
    found = frame_phase(frames)
    assert (found[0] if found else None) == phase


def test_vl_1201_one_worker_loop_frame_stays_unplaced():
    # noonghunna/club-3090#138: the OOM and worker_busy_loop / 'output = func(*args, **kwargs)' only
    d = explain_log(log_bytes("vl_1201"), flags={"gpu": "RTX-3090"}).diagnosis
    assert d.phase == "other" and not any(f.fits for f in d.fixes)


_WARMUP = ("RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try "
           "lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.")


def _sampler_oom(free_mib: str) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 594.00 MiB. GPU 0 has a total capacity of "
            f"21.48 GiB of which {free_mib} MiB is free. Including non-PyTorch memory, this process has 20.90 GiB memory "
            "in use.")


@pytest.mark.parametrize("free_mib, seqs", [("508.44", 512), ("100.00", 172)])
def test_the_sampler_warm_up_gets_fewer_sequences(free_mib, seqs):
    # 594 MiB at 1024 requests: half, or fewer where half would still not fit what was free (1024 × 100 / 594)
    frames = [("v1/worker/gpu_model_runner.py", "_dummy_sampler_run")]
    d = explain_log(_log(_KV, frames, _sampler_oom(free_mib), (_WARMUP,))).diagnosis
    assert d.phase == "first_request"
    fix = next(f for f in d.fixes if f.flags.startswith("--max-num-seqs"))
    assert fix.flags == f"--max-num-seqs {seqs}" and fix.fits and "1024 dummy requests" in fix.why


def test_no_warm_up_message_no_sequence_fix():
    frames = [("v1/worker/gpu_model_runner.py", "_dummy_sampler_run")]
    d = explain_log(_log(_KV, frames, _sampler_oom("508.44"))).diagnosis
    assert d.phase == "first_request" and not any(f.flags.startswith("--max-num-seqs") for f in d.fixes)
    assert not any(f.flags.startswith("--max-num-seqs") for f in explain_log(log_bytes("vl_038")).diagnosis.fixes)


def test_vl_453_and_vl_783_the_corpus_warm_ups():
    # vl_453: 256 × 128,256 × 4 B = 125.25 MiB → torch's 126.00 MiB, with 139.75 MiB free: more free than asked
    d = explain_log(log_bytes("vl_453")).diagnosis
    assert "more free than asked" in d.cause and "short by" not in d.cause
    assert any(f.flags == "--max-num-seqs 128" and f.fits for f in d.fixes)
    assert any(f.flags == "--max-num-seqs 512" for f in explain_log(log_bytes("vl_783")).diagnosis.fixes)
