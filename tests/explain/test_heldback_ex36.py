"""Held-back round ex36 (helper ex36, 2026-12-07, docs/accuracy.md §7.3): 8 public crash logs judged before adding.

The labels below were written from each thread before tpkit was run on the logs (the first commit of this file holds
only them); the blind results and the rules made after are recorded in docs/accuracy.md's "round ex36" subsection.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| vl_1481 | vllm-project/vllm#24814 (rangehow, 2025-09-14: '8xA100 oom with qwen235b', V1 multiproc) | crash cuda_graph | frames `compile_or_warm_up_model` -> `capture_model` -> `_capture_cudagraphs` -> `_dummy_run`, cut; the OOM is in the title |
| vl_1482 | vllm-project/vllm PR#30515 (eugr's comment, 2026-03-08, on '[UX][Startup] Account for CUDA graphs during memory profiling') | crash cuda_graph | `cuda_graph_memory_bytes = self.model_runner.capture_model()` -> `_capture_cudagraphs` -> `_warmup_and_capture`, cut |
| vl_1483 | vllm-project/tpu-inference PR#223 (wang2yn84, 2025-07-17: v5e-8 TPU, tpu_commons offline_inference.py) | crash kv_pool | `check_enough_kv_cache_memory` -> 'ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, … (0.71 GiB) … 5632' |
| vl_1484 | vllm-project/vllm#16118 (heheda12345, 2025-04-06: the V1 error quoted in the feature request) | crash kv_pool | '[core.py:390] ValueError: To serve at least one request with the models's max seq len (1048576), (24.00 GiB KV cache is needed, … (9.97 GiB)' |
| vl_1485 | vllm-project/vllm-ascend#12113 (lixikun's comment, 2026-07-18: Qwen3.5-9B on Ascend 910B) | crash cuda_graph | 'rtStreamBeginCapture execution failed, reason=driver error:resource alloc fail' / 'begin capture stream failed'; the comment: 'this error shows that the memory is not enough' |
| sg_1026 | sgl-project/sglang#29838 (zhujianwei-ops, 2026-07-01: GLM-5.2-W8A8 on Ascend A3, tp 16) | crash first_request | a served 'POST /v1/responses 200 OK', then torch_npu's 'NPU out of memory. Tried to allocate 72.00 MiB' and `event_loop_overlap` -> `run_batch`; title 'during inference requests' |
| sg_1027 | sgl-project/sglang#9646 (yangqinghao-cmss, 2025-08: SGLang 0.5.0rc2 on NPU, 'NPU out of memory when tp=2') | crash first_request | `forward_thread_func_` -> `forward_batch_generation` -> `forward_extend` -> deepseek_v2 `forward`, cut |
| sg_1028 | sgl-project/sglang#18329 (giftyang, 2026-02-06: '[NPU] Out of memory while deploying Qwen3-32B-W8A8') | crash first_request | `event_loop_overlap` -> `run_batch` -> `forward_batch_generation`, cut |
"""

from __future__ import annotations

LABELS = {
    "vl_1481": ("vllm", "crash", "cuda_graph"),
    "vl_1482": ("vllm", "crash", "cuda_graph"),
    "vl_1483": ("vllm", "crash", "kv_pool"),
    "vl_1484": ("vllm", "crash", "kv_pool"),
    "vl_1485": ("vllm", "crash", "cuda_graph"),
    "sg_1026": ("sglang", "crash", "first_request"),
    "sg_1027": ("sglang", "crash", "first_request"),
    "sg_1028": ("sglang", "crash", "first_request"),
}
