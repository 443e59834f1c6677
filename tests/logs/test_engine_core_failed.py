"""vLLM V1's "EngineCore failed to start." is a logger.exception header: its traceback follows it (v1/engine/core.py
run_engine_core, 0.10.0 wheel). The phase comes from that traceback, not from the start-up step logged before it
(helper mv4, 2026-12-04: vl_208, a CUDA-graph capture error after the KV cache was sized)."""
from tpkit.logs import parse_log

HEAD = (
    "(EngineCore pid=9) INFO 09-16 16:08:20 [gpu_worker.py:436] Available KV cache memory: 41.21 GiB\n"
    "(EngineCore pid=9) INFO 09-16 16:08:20 [kv_cache_utils.py:1319] GPU KV cache size: 225,056 tokens\n"
    "(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108] EngineCore failed to start.\n"
)
TRACEBACK = (
    "(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108] Traceback (most recent call last):\n"
    '(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108]   File "/x/vllm/v1/worker/gpu_worker.py", line 588, '
    "in compile_or_warm_up_model\n"
    "(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108]     cuda_graph_memory_bytes = self.model_runner.capture_model()\n"
    '(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108]   File "/x/vllm/v1/worker/gpu_model_runner.py", line 6015, '
    "in capture_model\n"
    "(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108]     self._capture_cudagraphs(\n"
    "(EngineCore pid=9) ERROR 09-16 16:08:23 [core.py:1108] torch.AcceleratorError: CUDA error: operation not permitted\n"
)


def test_the_traceback_after_the_header_places_it():
    failure = parse_log((HEAD + TRACEBACK).encode()).primary_failure
    assert failure.evidence.startswith("EngineCore failed to start")
    assert failure.phase == "cuda_graph", failure.phase_evidence


def test_without_a_traceback_the_last_step_still_places_it():
    failure = parse_log(HEAD.encode()).primary_failure
    assert failure.phase == "kv_pool"
    assert failure.phase_evidence.startswith("last start-up step logged before it")
