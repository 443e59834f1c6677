"""The memory lines SGLang prints at start-up, as tpkit predicts them.

SGLang labels these numbers "GB" but divides by 2**30: they are GiB.  tpkit keeps SGLang's text
verbatim (so a user can grep a real log for the same line) and says so in the plan.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.memory.kvpool import KVPoolPlan
from tpkit.units import Bytes, gib_text

__all__ = ["engine_log_lines", "scheduler_line", "GB_IS_GIB_NOTE"]

GB_IS_GIB_NOTE = "SGLang prints 'GB' but divides by 2**30: these values are GiB"


def _kv_line(pool: KVPoolPlan, tokens: int, names: tuple[str, str]) -> str:
    sizes = {b.name: b.total_bytes for b in pool.buffers}
    k, v = (gib_text(sizes[name], label="GB") for name in names)
    return f"KV Cache is allocated. #tokens: {tokens}, K size: {k}, V size: {v}"


def scheduler_line(*, tokens: int, chunked_prefill_size: int, max_running_requests: int, context_len: int) -> str:
    """The scheduler's start-up line (``managers/scheduler.py``, printed by TP rank 0 = attention-DP rank 0):
    max_prefill_tokens and available_gpu_mem (measured after CUDA-graph capture) are left out as "…"."""
    return (f"max_total_num_tokens={tokens}, chunked_prefill_size={chunked_prefill_size}, …, "
            f"max_running_requests={max_running_requests}, context_len={context_len}, …")


def engine_log_lines(*, pool: KVPoolPlan, swa_tokens: int, free_before_weights: Bytes, weights: Bytes,
                     pool_end_free: Bytes, model_class: str, quant_method: str | None,
                     scheduler: str | None = None,
                     swa_pool: tuple[str, str] | None = None, version: str | None = None) -> tuple[str, ...]:
    """Predicted SGLang log lines: weight load, KV allocation (per pool), the pool-end free memory and the
    scheduler's line.

    The real "Load weight end." line also starts with ``elapsed=… s``, which tpkit cannot predict.
    ``swa_pool``: (configurator, why) of a hybrid-SWA pool; the request-capped configurators
    (``SWAChunkCapPoolConfigurator`` / ``SWARequestCapPoolConfigurator``) print no "Use sliding window memory
    pool" line (only ``HybridSWAPoolConfigurator._solve_pool_sizes`` logs it).  tpkit adds one line starting with
    "# " that names the configurator and why: a comment, not an engine line.  ``version``: from 0.5.7 the
    ``SWAKVPool mem usage`` line ends with ``swa size: …, full size: …`` (``mem_cache/memory_pool.py`` 0.5.7,
    ``swa_memory_pool.py`` 0.5.8 – 0.5.23; 0.5.4 – 0.5.6 print the GB unrounded, not reproduced).
    """
    quant = f"quant={quant_method}, " if quant_method else ""
    avail = gib_text(free_before_weights - weights, label="GB")
    lines = [f"Load weight end. type={model_class}, {quant}avail mem={avail}, "
             f"mem usage={gib_text(weights, label='GB')}."]
    names = {b.name for b in pool.buffers}
    if "kv_latent" in names:
        latent = next(b for b in pool.buffers if b.name == "kv_latent")
        kv = gib_text(latent.total_bytes, label="GB")
        lines.append(f"KV Cache is allocated. #tokens: {pool.num_tokens}, KV size: {kv}")
    elif "swa_k" in names and "k" in names:
        if swa_pool is None or swa_pool[0] == "HybridSWAPoolConfigurator":
            lines.append(f"Use sliding window memory pool. full_layer_tokens={pool.num_tokens}, "
                         f"swa_layer_tokens={swa_tokens}")
        lines.append(_kv_line(pool, swa_tokens, ("swa_k", "swa_v")))
        lines.append(_kv_line(pool, pool.num_tokens, ("k", "v")))
        sizes = (f", swa size: {swa_tokens}, full size: {pool.num_tokens}"
                 if version is not None and at_least(version, "0.5.7") else "")
        lines.append(f"SWAKVPool mem usage: {gib_text(pool.total_bytes, label='GB')}{sizes}")
    elif "swa_k" in names:
        lines.append(_kv_line(pool, pool.num_tokens, ("swa_k", "swa_v")))
    elif "swa_kv" in names:  # DeepSeek-V4 (engines.sglang.dsv4; 0.5.12 DSV4PoolConfigurator.calculate_pool_sizes)
        rows = {b.name: b.shape[0] for b in pool.buffers}
        lines.append(f"DSV4 memory calculation: bytes_per_full_token≈{pool.cell_bytes.bytes}, "
                     f"full_token={pool.num_tokens}")
        lines.append(f"Initialize DeepSeekV4TokenToKVPool with swa_size={rows['swa_kv']} "
                     f"c4_size={rows.get('c4_kv', 0)} "
                     f"c128_size={rows.get('c128_kv', 0)} c4_state_pool_size={rows.get('c4_state', 0)} "
                     f"c128_state_pool_size={rows.get('c128_state', 0)}")
    else:
        lines.append(_kv_line(pool, pool.num_tokens, ("k", "v")))
    if swa_pool is not None:
        lines.append(f"# (tpkit) SWA pools sized by {swa_pool[0]}: {swa_pool[1]}")
    lines.append(f"Memory pool end. avail mem={gib_text(pool_end_free, label='GB')}")
    if scheduler:
        lines.append(scheduler)
    return tuple(lines)
