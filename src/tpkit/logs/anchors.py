"""Anchors: numbers an engine printed about memory, each tied to the rank, line and meaning.

``MEANINGS`` is the vocabulary: every anchor name the parser emits, what the engine measured, and the
engine function that prints it.  Sizes are :class:`~tpkit.logs.printed.PrintedSize` (all of these are
divided by 2**30 by the engine, whatever the unit word says); counts are
:class:`~tpkit.logs.printed.PrintedCount`.
"""

from __future__ import annotations

from tpkit.logs.prefix import RankKey
from tpkit.logs.printed import PrintedCount, PrintedSize
from tpkit.records import dataclass

__all__ = ["Anchor", "MEANINGS", "SIZE", "COUNT"]

SIZE = "size"
COUNT = "count"

_SG = "SGLang, GiB printed as 'GB' (get_available_gpu_memory divides by 2**30)"
_VG = "vLLM, GiB (divides by 2**30)"

MEANINGS: dict[str, tuple[str, str]] = {
    # --- SGLang, ModelRunner / bootstrap / memory_pool / cuda_graph_runner -----------------------------
    "init_dist_mem_usage": (SIZE, f"free memory taken by distributed init (NCCL, custom all-reduce buffers): "
                                  f"free before − free after init_torch_distributed; {_SG}"),
    "baseline_mem_usage": (SIZE, f"SGLang 0.5.2x 'Memory baseline taken': free-memory change across the baseline "
                                 f"measurement only (process groups are built earlier, in the scheduler), not the "
                                 f"distributed-init cost; {_SG}"),
    "load_begin_avail": (SIZE, f"local free memory just before the weights load; the minimum over ranks is "
                               f"pre_model_load_memory; {_SG}"),
    "load_end_avail": (SIZE, f"local free memory after the weights loaded (ModelRunner.load_model); {_SG}"),
    "weights_mem_usage": (SIZE, f"weights: free before load − free after (weight_load_mem_usage); {_SG}"),
    "kv_tokens": (COUNT, "KV pool size in tokens on this rank (SGLang '#tokens' = max_total_num_tokens of the "
                         "pool; vLLM V1 'GPU KV cache size', minimum over workers)"),
    "kv_k_size": (SIZE, f"bytes of the pool's K buffers (all layers, padding page included); {_SG}"),
    "kv_v_size": (SIZE, f"bytes of the pool's V buffers; {_SG}"),
    "kv_size": (SIZE, f"bytes of the pool's latent (MLA) buffers; {_SG}"),
    "swa_full_tokens": (COUNT, "hybrid sliding-window model: tokens of the full-attention pool"),
    "swa_swa_tokens": (COUNT, "hybrid sliding-window model: tokens of the sliding-window pool"),
    "swa_pool_full_size": (COUNT, "hybrid sliding-window model: 'SWAKVPool mem usage … full size: N', the "
                                  "full-attention pool's size in tokens (SWAKVPool(size=full_max_total_num_tokens), "
                                  "the count 'KV Cache is allocated' and max_total_num_tokens print; SGLang 0.5.7+ "
                                  "mem_cache/memory_pool.py, swa_memory_pool.py 0.5.8-0.5.23)"),
    "swa_pool_swa_size": (COUNT, "hybrid sliding-window model: 'SWAKVPool mem usage … swa size: N', the "
                                 "sliding-window pool's size in tokens (SGLang 0.5.7+)"),
    "swa_pool_mem_usage": (SIZE, f"both pools of a hybrid sliding-window model together; {_SG}"),
    "mamba_cache_size": (COUNT, "hybrid (mamba / linear-attention / short-conv) model: request slots of the state "
                                "pool ('Mamba Cache is allocated. max_mamba_cache_size', 0.5.4+); the pool holds one "
                                "more (padding) slot (mem_cache/memory_pool.py MambaPool)"),
    "mamba_conv_size": (SIZE, f"bytes of the state pool's conv states, all slots (size + 1) and layers; {_SG}"),
    "mamba_ssm_size": (SIZE, f"bytes of the state pool's SSM / recurrent states, all slots (size + 1) and layers; "
                             f"{_SG}"),
    "mamba_intermediate_size": (SIZE, f"speculative decoding: intermediate SSM states of the state pool; {_SG}"),
    "mamba_intermediate_conv_size": (SIZE, f"speculative decoding: intermediate conv windows of the state pool, "
                                           f"printed on the same line (0.5.3 - 0.5.23, mem_cache/memory_pool.py "
                                           f"MambaPool); {_SG}"),
    "pool_end_avail": (SIZE, f"free memory after the KV and req_to_token pools were allocated; {_SG}"),
    "graph_begin_avail": (SIZE, f"free memory before CUDA-graph capture; {_SG}"),
    "graph_end_avail": (SIZE, f"free memory after CUDA-graph capture; {_SG}"),
    "graph_mem_usage": (SIZE, f"CUDA-graph capture cost: free before − free after; {_SG}"),
    "graph_max_bs": (COUNT, "largest batch size captured in CUDA graphs (from the printed capture list)"),
    "capture_num_tokens": (COUNT, "token count of the shape SGLang's piecewise CUDA-graph capture was at (its bar)"),
    "max_total_num_tokens": (COUNT, "scheduler summary: token pool size (per TP rank / attention-DP rank)"),
    "max_running_requests": (COUNT, "scheduler summary: request slots"),
    "context_len": (COUNT, "scheduler summary: context length"),
    "chunked_prefill_size": (COUNT, "scheduler summary: chunked prefill size"),
    "max_prefill_tokens": (COUNT, "scheduler summary: max prefill tokens"),
    "available_gpu_mem": (SIZE, f"scheduler summary: free memory once the model runner is ready; {_SG}"),
    # --- vLLM, gpu_worker / model runner / kv_cache_utils / worker (V0) --------------------------------
    "weights": (SIZE, f"weights: torch-allocated bytes after load − before (DeviceMemoryProfiler); V0 prints "
                      f"'GB' and also divides by 2**30; {_VG}"),
    "available_kv": (SIZE, f"KV budget of this worker: requested memory − non-KV memory (− the CUDA-graph "
                           f"estimate from v0.21); {_VG}"),
    "max_concurrency": (COUNT, "requests of concurrency_len tokens the KV pool holds at once"),
    "concurrency_len": (COUNT, "the max_model_len the concurrency is printed for"),
    "gpu_blocks": (COUNT, "KV blocks on the GPU (V0 '# GPU blocks' / '# CUDA blocks' / ROCm's '# rocm blocks'; early V1)"),
    "cpu_blocks": (COUNT, "swap blocks on the CPU (V0)"),
    "total_gpu_memory": (SIZE, f"device total (cudaMemGetInfo); {_VG}"),
    "gpu_memory_utilization": (COUNT, "the fraction vLLM applied to the device total"),
    "requested_memory": (SIZE, f"total × gpu_memory_utilization; {_VG}"),
    "initial_memory_usage": (SIZE, f"V0: device memory in use before the profile run; {_VG}"),
    "peak_torch_memory": (SIZE, f"V0: torch peak during the profile run (weights + activations); {_VG}"),
    "memory_usage_post_profile": (SIZE, f"V0: device memory in use after the profile run; {_VG}"),
    "non_torch_memory": (SIZE, f"memory outside torch's allocator (CUDA context, NCCL, cuBLAS); V0 prints its "
                               f"increase during profiling; {_VG}"),
    "activation_peak": (SIZE, f"activation peak of the profile run above what stays allocated; {_VG}"),
    "non_kv_cache_memory": (SIZE, f"V1 debug: weights + non-torch + activation peak; {_VG}"),
    "torch_peak_increase": (SIZE, f"V1 debug: torch peak increase during profiling; {_VG}"),
    "non_torch_increase": (SIZE, f"V1 debug: non-torch increase during profiling; {_VG}"),
    "total_consumed": (SIZE, f"V1 debug (≥0.2x): free-memory drop since the start-up snapshot; {_VG}"),
    "consumed_memory": (SIZE, f"weights + non-torch memory, from the kv-cache-memory suggestion line; {_VG}"),
    "graph_memory": (SIZE, f"CUDA graphs: free-memory drop across capture ('Graph capturing finished … took', or "
                           f"the kv-cache-memory suggestion line); {_VG}"),
    "graph_estimate": (SIZE, f"CUDA-graph memory estimated before KV sizing (≥0.21, subtracted from the KV "
                             f"budget); {_VG}"),
    "graph_actual": (SIZE, f"CUDA-graph pool memory measured after capture; {_VG}"),
    "kv_extended_blocks": (COUNT, "vLLM ≥ 0.34 extensible KV cache: the blocks committed after warm-up ('Extended KV "
                                  "cache to N blocks'), the pool the engine runs with"),
    "kv_extended": (SIZE, "vLLM ≥ 0.34 extensible KV cache: the physical bytes of those blocks ('Extended KV cache "
                          "to N blocks (X GiB)'; 'Available KV cache memory' is then the profile's reservation)"),
    "warmup_free": (SIZE, f"vLLM ≥ 0.34 extensible KV cache: free memory after warm-up and graph capture ('Memory "
                          f"after warmup: X GiB free'); {_VG}"),
    "warmup_kept": (SIZE, f"vLLM ≥ 0.34 extensible KV cache: memory kept for transient activations ('… GiB kept "
                          f"for transient activations'); {_VG}"),
    "warmup_committed": (SIZE, f"vLLM ≥ 0.34 extensible KV cache: KV blocks already committed when the free memory "
                               f"after warm-up is read ('… GiB committed to the KV cache'); {_VG}"),
    "warmup_peak": (SIZE, f"vLLM ≥ 0.34 extensible KV cache: the transient peak of the profile and sizing steps "
                          f"('… GiB allocated at peak'; the margin is max(1 GiB, 0.75 × it)); {_VG}"),
    "warmup_growth": (SIZE, f"vLLM ≥ 0.34 extensible KV cache: torch's reservation growth over a sizing step ('… GiB "
                            f"of torch reservation growth'); {_VG}"),
    "warmup_fit_blocks": (COUNT, "vLLM ≥ 0.34 extensible KV cache: the KV blocks this worker's measurement fits ('N KV "
                                 "cache blocks (X GiB) fit within the requested'; the engine takes the smallest over "
                                 "workers, capped at the reservation)"),
    "warmup_requested": (SIZE, f"vLLM ≥ 0.34 extensible KV cache: the requested memory (total × "
                               f"gpu_memory_utilization, default 1.0) the measurement is bound by; {_VG}"),
    "startup_free": (SIZE, f"free device memory at the start-up snapshot; {_VG}"),
    "startup_total": (SIZE, f"device total at the start-up snapshot; {_VG}"),
    "kv_in_use": (SIZE, "KV cache memory in use, from the kv-cache-memory suggestion line (bytes or GiB)"),
    "gmu_equivalent": (COUNT, "the gpu_memory_utilization that gives the same KV budget without the CUDA-graph "
                              "estimate"),
    "gmu_estimate_off": (COUNT, "the gpu_memory_utilization of vLLM's advice 'increase --gpu-memory-utilization "
                                "from U to U′', printed where the CUDA-graph estimate was measured but not subtracted "
                                "before KV sizing (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS off)"),
}
"""anchor name → (``"size"`` or ``"count"``, what the engine measured)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Anchor:
    """One printed number, where it was printed and what it means."""

    name: str
    """a key of :data:`MEANINGS`"""
    rank: RankKey
    """the process that printed it"""
    size: PrintedSize | None = None
    """set for sizes (``MEANINGS[name][0] == "size"``)"""
    count: PrintedCount | None = None
    """set for counts"""
    group: str | None = None
    """which pool or graph when there are several: ``"swa"``, ``"draft"``, ``"decode"``, ``"prefill"`` …"""
    line_no: int = 0
    """1-based line number in the (normalised) log"""
    line: str = ""
    """the record text (clipped to 400 characters)"""

    @property
    def meaning(self) -> str:
        return MEANINGS[self.name][1]

    def to_dict(self) -> dict:
        out = {"name": self.name, "rank": self.rank.label, "line_no": self.line_no, "line": self.line}
        if self.group:
            out["group"] = self.group
        if self.size is not None:
            out["size"] = self.size.to_dict()
        if self.count is not None:
            out["count"] = self.count.to_dict()
        return out
