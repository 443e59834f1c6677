"""Held-back round ex37 (helper ex37, 2026-12-07, docs/accuracy.md §7.3): 8 public logs judged before adding.

The labels below were written from each thread before tpkit was run on the logs (the first commit of this file holds
only them); the blind results and the rules made after are recorded in docs/accuracy.md's "round ex37" subsection.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| vl_1486 | vllm-project/vllm#53013 (vadiklyutiy, 2026-08-19: '[Bug]: CUDA graph memory profiling estimation is too huge', a 2.4T NVFP4 MoE at tp 2 dp 4 ep on 4 × GB300) | crash kv_pool | 'Estimated CUDA graph memory: 118.65 GiB total' then '[core.py:1346] ValueError: No available memory for the cache blocks'; the thread: 'after such estimation I got fail for sure'; with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 it ran |
| vl_1487 | vllm-project/vllm#39788 (msanft, 2026-04-09: '[Bug]: CUDA OOM with Kimi-K2.5 NVFP4 on both TP4 and TP8') | crash cuda_graph | `worker_busy_loop` -> `compile_or_warm_up_model` -> `cuda_graph_memory_bytes = self.model_runner.capture_model()`, cut before the exception line; the OOM is in the title |
| vl_1488 | noonghunna/club-3090#16 (kisimoff's comment: 'Cliff 1 mech B leaks past PN12 sidecar on inductor-compiled FFN forward (real workloads, not synthetic verify-stress)', one RTX 3090) | crash first_request | `(EngineCore pid=112)` `flash_attn_varlen_func` -> `varlen_fwd` -> 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 21.75 MiB is free'; the title: real workloads |
| vl_1489 | vllm-project/vllm-omni#469 (tukwila, 2025-12-23: '[Bug]: decrease gpu_memory_utilization but Qwen/Qwen2.5-Omni-3B in H100*1 still cannot start') | crash kv_pool | '[gpu_worker.py:298] Available KV cache memory: -2.77 GiB' then 'EngineCore failed to start.' (traceback cut in `EngineCoreProc.__init__`) |
| vl_1490 | noonghunna/club-3090#613 (guybrush01's comment, 2026-07-06: '[bench] vllm/qwen-27b-single-nvfp4 OOM 5090') | crash first_request | the API server's 'EngineDeadError: EngineCore encountered an issue' inside `chat_completion_stream_generator` (a request being served); the OOM is in the title |
| sg_1029 | sgl-project/sglang#9600 (gaolaobao, 2025-08-25: '[Bug] RTX 5060: RMSNorm failed, same as the #7249 issue, when running qwen2.5-0.5b-instruct model.') | crash cuda_graph | 'Capture cuda graph begin … avail mem=4.78 GB', 'Capturing batches (bs=4 …)', then 'Scheduler hit an exception' in `cuda_graph_runner.py` `__init__` -> `capture` -> `capture_one_batch_size`, cut; the error (RMSNorm, not memory) is in the title |
| sg_1030 | kvcache-ai/ktransformers#2053 (usrlocalben, 2026-06-18: 'Bug: kt-kernel not activated despite valid sglang/kt invocation', SGLang in ktransformers' third_party) | crash weights | 'Load weight begin. avail mem=94.19 GB', then 'Scheduler hit an exception' in `Scheduler.__init__` -> `init_model_worker`, cut; the reporter: 'OOM when sglang init reaches _Load weight_ phase' |
| sg_1031 | sgl-project/sglang PR#11275 (trevor-m, 2025-10-06: 'fix: Prevent errors from being hidden during graph capture with custom all reduce', dp 8) | crash cuda_graph | 'Capture cuda graph begin … avail mem=3.66 GB', 'Capturing batches (bs=512 avail_mem=3.10 GB): 0%', then only 'Registering 0 cuda graph addresses' lines: the PR says the capture error 'can cause a hang like this and the error message is not shown' |
"""

from __future__ import annotations

LABELS = {
    "vl_1486": ("vllm", "crash", "kv_pool"),
    "vl_1487": ("vllm", "crash", "cuda_graph"),
    "vl_1488": ("vllm", "crash", "first_request"),
    "vl_1489": ("vllm", "crash", "kv_pool"),
    "vl_1490": ("vllm", "crash", "first_request"),
    "sg_1029": ("sglang", "crash", "cuda_graph"),
    "sg_1030": ("sglang", "crash", "weights"),
    "sg_1031": ("sglang", "crash", "cuda_graph"),
}
