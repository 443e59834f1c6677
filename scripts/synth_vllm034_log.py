"""Write tests/explain/data/vllm034_synthetic_qwen3_8b.log: a SYNTHETIC vLLM 0.34.0 start-up log (helper cur17b).

No public 0.34 log was in the corpus, so this one is made from vLLM 0.34.0's own message formats (the wheel,
``pip download --no-deps vllm==0.34.0``), with numbers that follow the extensible KV cache's sizing:

    reservation  = requested − consumed − transient peak          (v1/worker/gpu_worker.py determine_available_memory,
                                                                   printed "Available KV cache memory", line 795)
    non_kv_used  = init free − free after warm-up − committed      (v1/worker/extensible_kv_cache.py
    available    = min(requested − non_kv_used, free + committed    measure_kv_cache_bytes)
                       − max(1 GiB, 0.75 × peak)) − max(peak, growth)
    blocks       = blocks_within(available): each layer's segment rounded up to 2 MiB (physical_bytes_for)
    final        = min(blocks over workers, the reservation's blocks)  (v1/core/kv_cache_planning.py
                                                                   finalize_extensible_kv_cache)
    tokens       = int(final / cdiv(max_model_len, block) × max_model_len)  (v1/core/kv_cache_utils.py
                                                                   get_max_concurrency_for_kv_cache_config)

Model: Qwen/Qwen3-8B-FP8 (tests/validation/configs/Qwen--Qwen3-8B-FP8.json: 36 layers, 8 KV heads × 128, bf16 KV),
tp 1, max_model_len 32,768, block 64 (CacheConfig.DEFAULT_BLOCK_SIZE 0.34), an H100 80 GB; the sizes are invented
(weights as vl_290's 8.88 GiB).  Run: ``python scripts/synth_vllm034_log.py`` (rewrites the file)."""

from __future__ import annotations

import math
from pathlib import Path

GIB = 1 << 30
MIB = 1 << 20
OUT = Path(__file__).resolve().parents[1] / "tests" / "explain" / "data" / "vllm034_synthetic_qwen3_8b.log"

LAYERS, KV_HEADS, HEAD_DIM, KV_BYTES = 36, 8, 128, 2
BLOCK, MAX_LEN = 64, 32_768
GRANULE = 2 * MIB
TOTAL = 85_031_714_816            # 79.19 GiB, an H100 80 GB's cudaMemGetInfo total
INIT_FREE = TOTAL - 547_356_672    # the CUDA context and NCCL before the snapshot
REQUESTED = math.ceil(TOTAL * 1.0)  # gpu_memory_utilization default 1.0 under the extensible KV cache
WEIGHTS = 9_535_000_000
NON_TORCH = 558_345_748            # non-torch growth during the profile
CONSUMED = WEIGHTS + NON_TORCH
PROFILE_PEAK = 1_224_065_000       # transient_peak_headroom (no CUDA-graph estimate under the extensible KV cache)
GRAPHS = 483_183_820               # captured CUDA graphs
SIZING_PEAK = 1_299_227_607        # reserved_headroom_bytes after the sizing warm-up (record_transient_peak)
GROWTH = 268_435_456               # torch_reserve_growth_bytes
TORCH_RESERVED = WEIGHTS + 322_122_547


def gib(b: int) -> str:
    """vllm/utils/mem_utils.py format_gib: round(b / 2**30, 2)"""
    return f"{round(b / GIB, 2)}"


def main() -> None:
    page = BLOCK * KV_HEADS * HEAD_DIM * KV_BYTES * 2          # K and V, one layer: 262,144 B
    per_block = page * LAYERS                                  # bytes_per_block: 9 MiB
    reservation = REQUESTED - CONSUMED - PROFILE_PEAK
    capacity = reservation // page // LAYERS                   # get_kv_cache_configs: the reserved blocks

    def physical(n: int) -> int:                               # ExtensibleKVCache.physical_bytes_for
        return LAYERS * (-(-n * page // GRANULE) * GRANULE)

    committed = physical(1)                                    # min_committed_blocks, layer-outermost layout
    free_after = INIT_FREE - CONSUMED - GRAPHS - committed
    non_kv_used = INIT_FREE - free_after - committed
    margin = max(GIB, int(SIZING_PEAK * 0.75))
    available = min(REQUESTED - non_kv_used, free_after + committed - margin) - max(SIZING_PEAK, GROWTH)
    n = min(available // per_block, capacity)
    while n > 0 and physical(n) > available:                   # blocks_within
        n -= 1
    final = min(n, capacity)
    concurrency = final / -(-MAX_LEN // BLOCK)
    tokens = int(concurrency * MAX_LEN)
    left_free = free_after - (physical(final) - committed) - 0 - (1 << 29)
    limit = TORCH_RESERVED + max(left_free, 0)
    kv_use_req = REQUESTED - (CONSUMED + PROFILE_PEAK + GRAPHS) - 150 * MIB
    kv_use_gpu = INIT_FREE - (CONSUMED + PROFILE_PEAK + GRAPHS) - 150 * MIB

    e = "(EngineCore pid=171) INFO 12-05 10:{:02d}:{:02d} [{}] {}"
    a = "(APIServer pid=1) INFO 12-05 10:00:{:02d} [{}] {}"
    lines = [
        "# SYNTHETIC vLLM 0.34.0 log (helper cur17b, 2026-12-05): not a real run. Made by scripts/synth_vllm034_log.py",
        "# from vLLM 0.34.0's message formats (v1/worker/gpu_worker.py, v1/worker/extensible_kv_cache.py,",
        "# v1/core/kv_cache_utils.py, v1/engine/core.py, v1/worker/gpu/model_runner.py, config/model.py,",
        "# entrypoints/common/startup.py; logger line numbers as in the 0.34.0 wheel); the sizes are invented and follow",
        "# the extensible sizing formula written in that script's docstring.",
        a.format(1, "startup.py:96", "non-default args: {'model_tag': 'Qwen/Qwen3-8B-FP8', 'model': "
                 "'Qwen/Qwen3-8B-FP8', 'max_model_len': 32768}"),
        a.format(5, "model.py:761", "Resolved architecture: Qwen3ForCausalLM"),
        a.format(5, "model.py:2214", "Using max model len 32768"),
        e.format(0, 10, "core.py:154", "Initializing a V1 LLM engine (v0.34.0) with config: model='Qwen/Qwen3-8B-FP8', "
                 "speculative_config=None, tokenizer='Qwen/Qwen3-8B-FP8', skip_tokenizer_init=False, "
                 "tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, "
                 "dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, "
                 "tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, "
                 "decode_context_parallel_size=1, dcp_comm_backend=ag_rs, disable_custom_all_reduce=False, "
                 "quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
                 "served_model_name=Qwen/Qwen3-8B-FP8, enable_prefix_caching=True, enable_chunked_prefill=True"),
        e.format(0, 20, "model_runner.py:441", f"Model loading took {gib(WEIGHTS)} GiB memory and 6.950234 seconds"),
        e.format(1, 0, "gpu_worker.py:795", f"Available KV cache memory: {gib(reservation)} GiB"),
        e.format(1, 50, "model_runner.py:1216", f"Graph capturing finished in 45 secs, took {round(GRAPHS / GIB, 2):.2f} GiB"),
        e.format(1, 50, "gpu_worker.py:1175",
                 f"Free memory on device ({gib(INIT_FREE)}/{gib(TOTAL)} GiB) on startup. Desired GPU memory "
                 f"utilization is (1.0, {gib(REQUESTED)} GiB). Actual usage is {gib(CONSUMED)} GiB for consumed "
                 f"memory (weights + non-torch), {gib(PROFILE_PEAK)} GiB for peak activation, and {gib(GRAPHS)} GiB "
                 f"for CUDAGraph memory. Replace gpu_memory_utilization config with `--kv-cache-memory={kv_use_req}` "
                 f"({gib(kv_use_req)} GiB) to fit into requested memory, or `--kv-cache-memory={kv_use_gpu}` "
                 f"({gib(kv_use_gpu)} GiB) to fully utilize gpu memory. Current kv cache memory in use is "
                 f"{gib(reservation)} GiB."),
        e.format(1, 55, "extensible_kv_cache.py:693",
                 f"Memory after warmup: {gib(free_after)} GiB free, {gib(committed)} GiB committed to the KV cache, "
                 f"{gib(max(SIZING_PEAK, GROWTH))} GiB kept for transient activations ({gib(SIZING_PEAK)} GiB "
                 f"allocated at peak, {gib(GROWTH)} GiB of torch reservation growth); {n} KV cache blocks "
                 f"({gib(n * per_block)} GiB) fit within the requested {gib(REQUESTED)} GiB. Torch may reserve up to "
                 f"{gib(limit)} GiB."),
        e.format(1, 55, "kv_cache_utils.py:1168", f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for "
                 f"{MAX_LEN:,} tokens per request: {concurrency:.2f}x"),
        e.format(1, 56, "extensible_kv_cache.py:536", f"Extended KV cache to {final} blocks "
                 f"({physical(final) / GIB:.2f} GiB)."),
        e.format(1, 56, "core.py:451", "init engine (profile, create kv cache, warmup model) took 106.11 s (compilation: 28.15 s)"),
    ]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{OUT.name}: reservation {reservation:,} B ({capacity} blocks), measured {available:,} B → {n} blocks, "
          f"final {final}, {tokens:,} tokens")


if __name__ == "__main__":
    main()
