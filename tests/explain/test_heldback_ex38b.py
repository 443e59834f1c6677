"""Held-back round ex38b (helper ex38b, 2026-12-08, docs/accuracy.md §7.3): 6 public logs judged before adding.

The labels below were written from each thread before tpkit was run on the logs (the first commit of this file holds
only them); the blind results and the rules made after are recorded in docs/accuracy.md's "round ex38b" subsection.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| vl_1511 | QwenLM/Qwen3-VL#1684 (whwangovo, 2025-10-23: 'Vllm v0.11.0, Qwen3-VL-235B(-FP8) deployed on 8 A100s OOM', tp 8 ep) | crash cuda_graph | 'Available KV cache memory: 35.68 GiB', 'GPU KV cache size: 796,000 tokens', the PIECEWISE capture done (67/67), then 'Capturing CUDA graphs (decode, FULL): 9% … 3/35' and '(Worker_TP7_EP7 …) ERROR … [multiproc_', cut; the OOM is in the title |
| vl_1512 | local-inference-lab/rtx6kpro#103 (Seth777777777, 2026-09-15: 'Delayed production CUDA OOM on ds4-vision-jovian-judgement-r9: long-context prefill exceeds profiled peak by ~3 GiB', RTX PRO 6000) | crash first_request | 'WorkerProc hit an exception.' in `_execute_worker_rpc` -> `execute_model` -> `model_runner.execute_model` -> `self.model(**model_inputs)`, cut; the thread: a 128 MiB `torch.empty` failed in a production chunked prefill with 149,760 tokens of KV context |
| vl_1513 | gpustack/gpustack#1800 (pengjiang80, 2025-04-17: 'Qwen2.5-VL-7B failed to start with 3090 24GB with V0 engine by default', vLLM 0.8.4 in GPUStack v0.6.0) | crash kv_pool | `initialize_cache` -> `raise_if_cache_size_invalid` -> "ValueError: The model's max seq len (8192) is larger than the maximum number of tokens that can be stored in KV cache (2400)" |
| sg_1049 | opendatalab/MinerU#3375 (hanvegh, 2025-08-26: '不能使用vlm-sglang-engine', MinerU's SGLang engine, a 22 GB-class card) | crash cuda_graph | 'Load weight end … avail mem=20.18 GB', 'KV Cache is allocated. #tokens: 1530197', 'Capture cuda graph begin', the bar at 0/4, then 'Scheduler hit an exception' in flashinfer's JIT `run_ninja` (`CalledProcessError`, not memory), cut |
| sg_1050 | ovg-project/kvcached#198 (deepak-vij, 2025-10-28: 'KVCached support for gpt-oss-20b attention type not supported in SGLang') | crash kv_pool | 'Load weight end … avail mem=163.13 GB, mem usage=14.53 GB', '[kvcached] Init kvcached KV cache allocator …', then 'Scheduler hit an exception' in `Scheduler.__init__` -> `TpModelWorker`, cut; the title: the attention type is not supported (not memory) |
| sg_1051 | NVIDIA/srt-slurm#172 (ishandhanani, 2026-05-21: '[Bug] decode workers CUDA OOM due to mem-fraction-static 0.95 on GB200 GPUs', DeepSeek-R1 FP4 tp 4) | crash other | the block is torch's message only ('Tried to allocate 4.00 GiB. GPU 3 has a total capacity of 184.00 GiB of which 2.21 GiB is free'); the thread: raised in `prealloc_symmetric_memory_pool` (model_runner.py:3420), which SGLang 0.5.15's `ModelRunner.initialize` runs last, after the KV pool and the decode-graph capture: a start-up step of its own |
"""

from __future__ import annotations

LABELS = {
    "vl_1511": ("vllm", "crash", "cuda_graph"),
    "vl_1512": ("vllm", "crash", "first_request"),
    "vl_1513": ("vllm", "crash", "kv_pool"),
    "sg_1049": ("sglang", "crash", "cuda_graph"),
    "sg_1050": ("sglang", "crash", "kv_pool"),
    "sg_1051": ("sglang", "crash", "other"),
}
