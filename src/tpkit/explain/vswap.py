"""``tpkit explain``'s diagnosis of a vLLM V0 failure in the CPU swap space's allocation (helper cr34c,
2026-12-07): the pinned host memory of ``--swap-space``, not the GPU's KV cache.

V0's ``CacheEngine.__init__`` allocates the GPU cache, then ``allocate_cpu_cache``: ``num_cpu_blocks`` blocks of
the GPU block's size (``CacheConfig.swap_space_bytes`` = ``--swap-space`` GiB, 4 by default, // the block's bytes;
vllm/engine/arg_utils.py ``EngineArgs.swap_space``, vllm/config.py ``CacheConfig``, worker.py
``determine_num_available_blocks``; read in the 0.4.0.post1 wheel, the oldest in /tmp/wheels; the same two calls in
the 0.1-era traceback of vllm#188).  The swap space does not enter the GPU budget: the '# GPU blocks' the log
prints were sized before it and stay.  The CPU tensors are pinned (``pin_memory=True``), and a CUDA application's
pinned host memory is limited under WSL (NVIDIA's CUDA on WSL user guide, 'Known Limitations': "Pinned system memory
... availability for applications is limited"); vLLM later stopped pinning there (``utils.is_pin_memory_available``
returns False where ``in_wsl()``, 0.4.0.post1 wheel).  A failure of that allocation is reported by CUDA as "out of
memory" although no GPU memory is short.

The fix: ``--swap-space 0``: no CPU block, so no pinned allocation; the GPU KV cache the log printed holds, so its
tokens are the log's (class a of docs/accuracy.md §7.3 cr33c: re-planned from the printed numbers); torch pins
nothing for an empty tensor.  What it costs: V0 preempts a single sequence by recomputing it and swaps only groups
of several (beam search, n > 1), and with no CPU blocks such a swap raises 'Aborted due to the lack of CPU swap
space' (``Scheduler._preempt`` / ``_swap_out``, 0.4.0.post1 wheel)."""

from __future__ import annotations

from tpkit.explain.diagnose import Fix

__all__ = ["SWAP_FRAME", "swap_space_failure"]

SWAP_FRAME = "allocate_cpu_cache"
"""V0 ``CacheEngine``'s CPU (swap) allocation, the frame a phase reader names (``logs.phases``: 'traceback frame
allocate_cpu_cache (cache_engine.py)')"""


def swap_space_failure(failure, parsed, a) -> tuple[str, None, list[Fix]] | None:
    """(cause, short, fixes) where the kv_pool failure's frame is the swap space's allocation, else None."""
    if SWAP_FRAME not in (failure.phase_evidence or ""):
        return None
    cpu = _count(parsed, "cpu_blocks")
    gpu = _count(parsed, "gpu_blocks")
    cause = ("out of memory allocating vLLM V0's CPU swap space (CacheEngine.allocate_cpu_cache: pinned host memory, "
             f"--swap-space GiB, 4 by default{f'; {cpu:,} CPU blocks printed' if cpu is not None else ''}), not the "
             f"GPU's KV cache{f', whose {gpu:,} blocks were sized and allocated first' if gpu is not None else ''}: "
             "pinned host memory is limited under WSL (NVIDIA's CUDA on WSL guide) and by a container's memlock "
             "limit, and the failure reads as 'CUDA error: out of memory'")
    tokens = a.tokens_printed if gpu is not None else None
    fix = Fix(flags="--swap-space 0", kv_tokens=tokens, fits=tokens is not None,
              why="no CPU swap blocks, so no pinned host allocation; the GPU KV cache is sized before the swap space "
                  "and does not change",
              note=("the log's printed GPU blocks, unchanged" if tokens is not None else
                    "the log prints no GPU block count, so the KV tokens are not known")
              + "; a preempted group of several sequences (beam search, n > 1) then fails ('Aborted due to the "
              "lack of CPU swap space'): a single sequence is recomputed, not swapped")
    return cause, None, [fix]


def _count(parsed, name: str) -> int | None:
    """The first printed count of the anchor ``name`` (``logs`` anchors), None when not printed."""
    return next((x.count.value for x in parsed.anchors if x.name == name and x.count is not None), None)
