"""What the engines do on a unified-memory GPU (GB10 / DGX Spark, Jetson Thor and Orin), read in the released wheels.

On these devices cudaMemGetInfo reports the system memory the OS leaves: its total is the host's memory less what
the OS keeps, and its "free" leaves out the page cache.  The catalog marks them with ``unified_memory``.

* vLLM, 0.12.0 and later (``vllm/utils/mem_utils.py`` ``MemorySnapshot.measure``; in 0.12–0.19 a compute
  capability check for (8, 7) Orin, (11, 0) Thor, (12, 1) Spark, from 0.20 ``current_platform.is_integrated_gpu``):
  the free memory is ``psutil.virtual_memory().available`` (MemAvailable, page cache counted as free) instead of
  cudaMemGetInfo's.  The total stays cudaMemGetInfo's.  The KV budget (utilization × total − profiled use) takes
  differences of snapshots, so a host's steady use cancels; it enters through the start-up check (free at start
  must reach utilization × total) and through the total itself.  0.11.0 and earlier have no such branch (read in
  the 0.11.0 wheel: neither ``vllm/utils/__init__.py`` nor a ``mem_utils`` module holds it): the free memory is
  cudaMemGetInfo's, which the page cache lowers.
* vLLM 0.12.0 and later, what the snapshots count (``v1/worker/gpu_worker.py`` ``determine_available_memory`` →
  ``utils/mem_utils.py`` ``memory_profiling``; read in 0.25.0, 0.27.1, 0.33.0): the non-torch increase is
  (total − MemAvailable − torch's reserved memory) after ``profile_run`` less the same at the worker's init snapshot,
  so host memory that any process takes in between (the checkpoint loader's host copies, a cold torch.compile, other
  programs) is counted as device memory and comes off the KV cache.  Its size depends on the loader and the host,
  not on the model config: tpkit does not plan it (GB10 logs beyond tpkit's plan: 0.5 GiB with a warm compile cache,
  1.1–2.3 GiB cold; about 8.5 GiB in vp_400, whose MemAvailable readings show 7–13 GiB of host memory still held
  after the checkpoint load; docs/accuracy.md "GB10 and LoRA misses").
* vLLM's CUDA-graph memory estimate (``v1/worker/gpu_model_runner.py`` ``profile_cudagraph_memory``, read in 0.25.0,
  0.27.1 and 0.33.0) takes its samples from ``torch.accelerator.get_memory_info`` (cudaMemGetInfo, whose free memory
  on these devices leaves out the page cache), not from MemAvailable: page-cache growth or reclaim during the
  capture moves the estimate, which a GB10 log prints negative (−4.74 GiB, vl_720).
* SGLang, 0.5.9 and later read (``sglang/srt/utils/common.py`` ``get_available_gpu_memory``: when
  ``torch.cuda.get_device_properties(..).is_integrated``, free = MemAvailable; read in 0.5.9, 0.5.10.post1,
  0.5.11–0.5.13 and 0.5.23; releases before 0.5.9 were not read here).  SGLang's pool is the free memory after the
  weights less (1 − mem_fraction_static) × total, so every byte the host uses at start-up comes out of the KV pool.

tpkit plans with the catalog total and a host that uses nothing else; the note below says so in the plan.
"""

from __future__ import annotations

__all__ = ["unified_memory_note", "VLLM_FIRST", "SGLANG_FIRST_READ"]

VLLM_FIRST = (0, 12, 0)
"""first vLLM release whose MemorySnapshot takes MemAvailable on unified memory"""
SGLANG_FIRST_READ = "0.5.9"
"""earliest SGLang release read with the is_integrated branch in get_available_gpu_memory"""


def unified_memory_note(engine: str, version: str | None, gpu) -> tuple[str, ...]:
    """The plan warning for a unified-memory GPU (empty for a discrete one)."""
    if not getattr(gpu, "unified_memory", False):
        return ()
    head = (f"{gpu.name} has unified memory: its CUDA total and the free memory at start-up vary with what the host "
            "uses (the plan assumes a host that uses nothing else); pass --gpu-memory with the total that "
            "nvidia-smi or the engine log prints")
    if engine == "vllm":
        from tpkit.engines.vllm.versions import CURRENT, resolve_rules

        if resolve_rules(version or CURRENT).release >= VLLM_FIRST:  # the release of an alias too ("current", "v0")
            tail = ("vLLM 0.12+ counts the host's MemAvailable as free (mem_utils MemorySnapshot): the KV budget "
                    "does not move with steady host use, but host memory taken during start-up (the loader's host "
                    "copies, a cold torch.compile, other programs) counts as non-torch memory and comes off the KV "
                    "cache, by an amount the plan does not include; start-up fails when MemAvailable is below "
                    "gpu_memory_utilization × total")
        else:
            tail = ("vLLM before 0.12 treats it as a discrete GPU: cudaMemGetInfo's free leaves out the page cache, "
                    "so start-up can fail its free-memory check (drop caches or lower gpu_memory_utilization)")
    else:
        from tpkit.engines.sglang.versions import at_least

        if version is None or at_least(version, SGLANG_FIRST_READ):
            tail = ("SGLang reads the host's MemAvailable as free (get_available_gpu_memory): every GiB the host "
                    "uses at start-up comes out of the KV pool")
        else:
            tail = (f"SGLang releases before {SGLANG_FIRST_READ} were not read for unified memory; from "
                    f"{SGLANG_FIRST_READ} free memory is the host's MemAvailable and host use comes out of the KV pool")
    return (f"{head}. {tail}",)
