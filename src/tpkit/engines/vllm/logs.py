"""The lines vLLM prints about memory, formatted as each release prints them (vLLM 0.33
``vllm/v1/worker/gpu_worker.py``, ``vllm/v1/core/kv_cache_utils.py``, ``vllm/v1/core/kv_cache_planning.py``;
0.11 as noted).

Sizes: ``format_gib`` (``str(round(b / 2**30, 2))``: ``52.3``, not ``52.30``) from 0.14.0, ``%.2f`` before
(``v1/worker/gpu_worker.py`` "Available KV cache memory").  "Model loading took": ``%.4f GiB and`` (0.11),
``%.4f GiB memory and`` (0.12–0.13), ``format_gib`` (≥ 0.14) (``v1/worker/gpu_model_runner.py load_model``);
V0 printed ``Loading model weights took %.4f GB`` (dividing by 2**30) and one "Memory profiling results" line.
Capacity (``v1/core/kv_cache_utils.py``): two lines up to 0.27, one line from 0.28; before 0.21 a DCP > 1 run
adds "Multiplying the GPU KV cache size by the dcp_world_size N." (0.10.2–0.11) or "… by the cp_world_size N
(pcp_world_size 1 * dcp_world_size N)." (0.12–0.20).  Token counts and lengths carry thousands separators in V1.
"""

from __future__ import annotations

from tpkit.engines.vllm.versions import VllmRules
from tpkit.units import Bytes, GiB, gib_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.engines.vllm.budget import Budget
    from tpkit.engines.vllm.capacity import KvCapacity
    from tpkit.engines.vllm.inputs import Resolved
    from tpkit.engines.vllm.pages import KvLayout

__all__ = ["printed_gib", "weights_line", "available_line", "capacity_lines", "v0_profile_line",
           "too_long_message", "startup_message", "no_memory_message", "engine_log"]

_SWAP_SPACE = GiB(4)
"""V0 default swap_space per GPU (CPU blocks in its log)"""


def printed_gib(amount: Bytes, rules: VllmRules) -> str:
    """A GiB figure as the release prints it."""
    value = amount.bytes / 2**30
    return str(round(value, 2)) if rules.weights_log == "format_gib" else f"{value:.2f}"


def weights_line(weights: Bytes, rules: VllmRules) -> str:
    """"Model loading took …" (load time is not predicted and is left as "…")."""
    if rules.weights_log == "format_gib":
        return f"Model loading took {printed_gib(weights, rules)} GiB memory and … seconds"
    if rules.weights_log == "0.12":
        return f"Model loading took {gib_text(weights, 4)} memory and … seconds"
    if rules.weights_log == "0.11":
        return f"Model loading took {gib_text(weights, 4)} and … seconds"
    return f"Loading model weights took {gib_text(weights, 4, label='GB')}"  # V0's word, for GiB


def available_line(available: Bytes, rules: VllmRules) -> str:
    """"Available KV cache memory: X GiB" as V1 prints it (``v1/worker/gpu_worker.py``; the size as ``printed_gib``)."""
    return f"Available KV cache memory: {printed_gib(available, rules)} GiB"


def _dcp_line(dcp: int, rules: VllmRules) -> list[str]:
    if dcp <= 1 or rules.dcp_log is None:
        return []
    if rules.dcp_log == "dcp":
        return [f"Multiplying the GPU KV cache size by the dcp_world_size {dcp}."]
    return [f"Multiplying the GPU KV cache size by the cp_world_size {dcp} (pcp_world_size 1 * "
            f"dcp_world_size {dcp})."]


def capacity_lines(*, tokens: int, blocks: int, cpu_blocks: int, max_model_len: int, concurrency: float,
                   rules: VllmRules, dcp: int = 1) -> list[str]:
    """The KV capacity line(s) of the release."""
    conc = f"Maximum concurrency for {max_model_len:,} tokens per request: {concurrency:.2f}x"
    if rules.engine == "V1" and rules.one_line_log:
        return [f"GPU KV cache size: {tokens:,} tokens, {conc}"]
    if rules.engine == "V1":
        return _dcp_line(dcp, rules) + [f"GPU KV cache size: {tokens:,} tokens", conc]
    return [f"# GPU blocks: {blocks}, # CPU blocks: {cpu_blocks}",
            f"Maximum concurrency for {max_model_len} tokens per request: {concurrency:.2f}x"]


def v0_profile_line(*, total: Bytes, initial: Bytes, peak_torch: Bytes, post_profile: Bytes,
                    non_torch: Bytes, kv: Bytes, utilization: float) -> str:
    """V0's "Memory profiling results" line (late 2024 layout)."""
    g = lambda b: gib_text(b, label="") + "GiB"  # noqa: E731  (V0 writes no space before the unit)
    return (f"Memory profiling results: total_gpu_memory={g(total)} initial_memory_usage={g(initial)} "
            f"peak_torch_memory={g(peak_torch)} memory_usage_post_profile={g(post_profile)} "
            f"non_torch_memory={g(non_torch)} kv_cache_size={g(kv)} "
            f"gpu_memory_utilization={utilization:.2f}")


def too_long_message(*, max_model_len: int, needed: Bytes, available: Bytes, estimated: int,
                     tokens: int, rules: VllmRules) -> str:
    """vLLM's error when one request of max_model_len does not fit."""
    if rules.engine == "V0":
        return (f"The model's max seq len ({max_model_len}) is larger than the maximum number of tokens that can "
                f"be stored in KV cache ({tokens}). Try increasing `gpu_memory_utilization` or decreasing "
                "`max_model_len` when initializing the engine.")
    estimate = (f" Based on the available memory, the estimated maximum model length is {estimated}."
                if estimated > 0 else "")
    return (f"To serve at least one request with the models's max seq len ({max_model_len}), "
            f"({gib_text(needed)} KV cache is needed, which is larger than the available KV cache "
            f"memory ({gib_text(available)}).{estimate} Try increasing `gpu_memory_utilization` or "
            "decreasing `max_model_len` when initializing the engine.")


def mamba_blocks_message(*, max_num_seqs: int, num_blocks: int) -> str:
    """vLLM's start-up error (≥ 0.20, ``CompilationConfig.resolve_cudagraph_mode_and_sizes``) when a model with
    mamba-family layers and FULL decode CUDA graphs has fewer KV blocks than ``max_num_seqs``."""
    return (f"ValueError: max_num_seqs ({max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each "
            f"decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed.")


def startup_message(*, free: Bytes, total: Bytes, utilization: float, requested: Bytes) -> str:
    """V1's start-up check failure."""
    return (f"Free memory on device ({gib_text(free, label='')}/{gib_text(total)}) on startup is less than "
            f"desired GPU memory utilization ({utilization}, {gib_text(requested)}). Decrease GPU memory "
            "utilization or reduce GPU memory used by other processes.")


def no_memory_message(*, extensible: bool = False, utilization: float = 1.0, after_warmup: bool = True) -> str:
    """vLLM's error when the available KV memory buys no block (the check before the cache is sized,
    ``v1/core/kv_cache_utils.py``).

    ``extensible`` (vLLM ≥ 0.34, the extensible KV cache): the same ValueError with another hint, read in the 0.34.0
    wheel (``v1/core/kv_cache_planning.py`` ``_check_enough_kv_cache_memory`` with ``_more_kv_cache_memory_hint``):
    raised by ``shrink_kv_cache_configs`` (from ``finalize_extensible_kv_cache``, ``after_warmup``) when the blocks
    measured after warm-up less the null block hold no memory, i.e. 0 or 1 block; the hint differs below
    utilisation 1.0 (helper mig18b)."""
    if not extensible:
        return ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine.")
    used_by = "the model, its activations, CUDA graphs and warmup" if after_warmup else "the model and its activations"
    graphs = (" CUDA graphs take less with fewer or smaller capture sizes in the compilation config."
              if after_warmup else "")
    if utilization < 1.0:
        hint = (f"The KV cache gets what is left after {used_by} within `gpu_memory_utilization`={utilization}; "
                "increase it (with the extensible KV cache it defaults to 1.0) or decrease `max_model_len` or "
                f"`max_num_seqs`.{graphs}")
    else:
        hint = (f"The extensible KV cache already takes all device memory left after {used_by}; decrease "
                f"`max_model_len` or `max_num_seqs`, or the model needs a device with more memory.{graphs}")
    return (f"No available memory for the cache blocks. {hint} See "
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")


def engine_log(budget: Budget, cap: KvCapacity, layout: KvLayout, r: Resolved, rules: VllmRules,
               total: Bytes, graphs: Bytes, stopped: bool = False) -> tuple[str, ...]:
    """The memory lines vLLM prints, in its order.  ``stopped``: an extensible-KV run (≥ 0.34) that stops at the
    KV check after warm-up: ``finalize_extensible_kv_cache`` → ``shrink_kv_cache_configs`` raises before
    ``update_kv_cache_capacity`` ("GPU KV cache size") and before ``extend_kv_cache`` ("Extended KV cache"), so
    neither is printed (``v1/engine/core.py`` ``_initialize_kv_caches``, 0.34.0 wheel; helper mig18b)."""
    from tpkit.engines.vllm.budget import extensible_reservation
    from tpkit.engines.vllm.capacity import physical_bytes_for, segment_strides
    from tpkit.engines.vllm.versions import GROUPS_BEFORE_PROFILE

    if budget.weights > budget.free_at_snapshot or budget.free_at_snapshot <= Bytes(0):
        # loading (or the CUDA context) runs out of memory: nothing after it is printed
        return tuple([r.block_log] if r.block_log else [])
    log = ([r.block_log] if r.block_log else []) + [weights_line(budget.weights, rules)]
    groups_first = rules.engine == "V1" and rules.release >= GROUPS_BEFORE_PROFILE
    if groups_first:  # the padding warning comes from the grouping, before the profile
        log += list(layout.warnings)
    if rules.engine == "V0":
        peak = budget.weights + budget.activation
        log.append(v0_profile_line(total=total, initial=budget.weights + budget.non_torch, peak_torch=peak,
                                   post_profile=budget.weights + budget.non_torch, non_torch=budget.non_torch,
                                   kv=budget.available, utilization=r.utilization))
    else:
        log.append(available_line(extensible_reservation(budget) if budget.extensible else budget.available, rules))
        if graphs and not budget.extensible:
            u = r.utilization
            log.append(f"CUDA graph memory profiling is enabled (default since v0.21.0). The current "  # sic
                       f"--gpu-memory-utilization={u:.4f} is equivalent to --gpu-memory-utilization="
                       f"{u - graphs / total:.4f} without it; to keep the same KV cache, raise it to "
                       f"{min(u + graphs / total, 1.0):.4f}")
    if not groups_first:
        log += list(layout.warnings)
    if stopped:
        return tuple(log)
    cpu_blocks = _SWAP_SPACE // layout.bytes_per_block
    log += capacity_lines(tokens=cap.tokens, blocks=cap.num_blocks, cpu_blocks=cpu_blocks,
                          max_model_len=r.max_model_len, concurrency=cap.max_concurrency, rules=rules, dcp=r.dcp)
    if budget.extensible:  # vLLM ≥ 0.34: v1/worker/extensible_kv_cache.py extend_kv_cache
        strides = segment_strides(layout)  # the physical bytes: each segment in whole 2 MiB granules (granule_floor)
        shown = physical_bytes_for(cap.num_blocks, strides) if sum(strides) == layout.bytes_per_block.bytes \
            else layout.bytes_per_block * cap.num_blocks
        log.append(f"Extended KV cache to {cap.num_blocks} blocks ({gib_text(shown)}).")
    return tuple(log)
