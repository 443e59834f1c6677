"""What the engines do on a unified-memory GPU (GB10 / DGX Spark, Jetson Thor and Orin), read in the released wheels.

On these devices cudaMemGetInfo reports the system memory the OS leaves: its total is the host's memory less what
the OS keeps, and its "free" leaves out the page cache.  The catalog marks them with ``unified_memory``.

* vLLM, 0.11.1 and later (``vllm/utils/mem_utils.py`` ``MemorySnapshot.measure``): the free memory is
  ``psutil.virtual_memory().available`` (MemAvailable, page cache counted as free) instead of cudaMemGetInfo's.
  Which devices: 0.11.1–0.19.x test the compute capability against ``shared_sysmem_device_mem_sms`` = (8, 7) Orin,
  (11, 0) Thor, (12, 1) Spark (read in the 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.16.0, 0.17.1, 0.18.0 and 0.19.0
  wheels); 0.20.0 and later ask ``current_platform.is_integrated_gpu`` (``platforms/cuda.py``: torch's
  ``get_device_properties(..).is_integrated``; read in 0.20.0–0.30.0).  0.11.0 has no such branch (read in the
  0.11.0 wheel: ``vllm/utils/__init__.py`` ``MemorySnapshot.measure`` takes cudaMemGetInfo alone), nor any
  earlier release.  The total stays cudaMemGetInfo's.  Two things follow (``VLLM_FIRST`` and
  ``vllm_reads_host_available``):
  - the start-up check (``v1/worker/gpu_worker.py`` ``init_device`` in 0.13.0, ``v1/worker/utils.py``
    ``request_memory`` in 0.27.1):
    MemAvailable at the worker's init snapshot must reach ``ceil(gpu_memory_utilization × total)``, else "Free
    memory on device (F/T GiB) on startup is less than desired GPU memory utilization"; the host's other programs
    and the engine's own API-server process are what lower it, and dropping the page cache does not raise it.
    Before 0.11.1 the same check reads cudaMemGetInfo's free, which the page cache does lower;
  - the KV budget (utilization × total − profiled use) takes differences of snapshots, so a host's steady use
    cancels; host memory taken between the snapshots does not (next item).
* vLLM 0.11.1 and later, what the snapshots count (``v1/worker/gpu_worker.py`` ``determine_available_memory`` →
  ``utils/mem_utils.py`` ``memory_profiling``; read in 0.13.0, 0.25.0, 0.27.1, 0.33.0; from 0.27 the same
  difference is taken as ``total_consumed`` = init free − post-profile free): the non-torch increase is
  (total − MemAvailable − torch's reserved memory) after ``profile_run`` less the same at the worker's init snapshot,
  so host memory that any process takes in between (the checkpoint loader's host copies, a cold torch.compile, other
  programs) is counted as device memory and comes off the KV cache.  Its size depends on the loader and the host,
  not on the model config: tpkit does not plan it (GB10 logs beyond tpkit's plan: 0.5 GiB with a warm compile cache,
  1.1–2.3 GiB cold; about 8.5 GiB in vp_400, whose MemAvailable readings show 7–13 GiB of host memory still held
  after the checkpoint load; docs/accuracy.md "GB10 and LoRA misses" and "Unified-memory GPUs in vLLM").
* vLLM's CUDA-graph memory estimate (``v1/worker/gpu_model_runner.py`` ``profile_cudagraph_memory``, read in 0.18.1,
  0.19.1, 0.20.0, 0.23.0, 0.25.0, 0.27.1, 0.29.0 and 0.33.0; Model Runner V2's ``v1/worker/gpu/cudagraph_utils.py``
  ``profile_cudagraph_memory`` in 0.29.0 and 0.33.0) takes its samples from ``torch.cuda.mem_get_info`` (0.18–0.23) or
  ``torch.accelerator.get_memory_info`` (cudaMemGetInfo, whose free memory on these devices is the host's and leaves
  out the page cache), with no unified-memory branch, not from MemAvailable: host memory that any process takes or
  releases during a sampled capture (page cache, host allocations) moves the estimate, and the second sample of each
  mode is multiplied by that mode's remaining graphs (50 + 34 at the default 51 + 35).  The estimate is printed from
  0.18 and subtracted from the KV budget from 0.20 (``VllmRules.cudagraph_estimate``).  Helper gb10g (2026-12-05):
  the GB10 logs of ``graph_evidence.GRAPH_EVIDENCE`` print −5.19 to +1.00 GiB against tpkit's mechanism
  (``vllm_graph_estimate_spread``); vl_620's own capture line ('took 0.94 GiB', read the same way) equals the plan's
  0.94 while its estimate prints 1.94, and vl_345's capture 'took 0.04 GiB' for 86 graphs.  A host effect, not a
  rule: the plan note gives the spread, the plan does not move.
* SGLang, 0.5.9 and later read (``sglang/srt/utils/common.py`` ``get_available_gpu_memory``: when
  ``torch.cuda.get_device_properties(..).is_integrated``, free = MemAvailable; read in 0.5.9, 0.5.10.post1,
  0.5.11–0.5.13 and 0.5.23; releases before 0.5.9 were not read here).  SGLang's pool is the free memory after the
  weights less (1 − mem_fraction_static) × total, so every byte the host uses at start-up comes out of the KV pool.
  What a log shows of it (0.5.14 and 0.5.15 read, helper x12b): every sample is a separate MemAvailable reading.
  ``init_torch_distributed`` takes pre_model_load_memory, ``load_model`` the two around the weights ('Load weight
  begin/end'), and ``_profile_available_bytes`` (``model_runner_kv_cache_mixin.py``, called from
  ``Scheduler.init_memory_pools`` after the target and draft loads) the one the pool is sized from; that last one
  and pre_model_load_memory are never printed.  On a discrete GPU only this process's device allocations move
  cudaMemGetInfo between 'Load weight end' and that sample (tpkit models them: the RoPE pre-expansion); on a
  unified-memory GPU any host allocation by any process does, and no line prints it.  ``explain`` rebuilds the
  budget from 'Load weight end' and says so (``sglang_budget_sample_note``); it does not widen the range by an
  amount the source does not give (the four GB10 logs sg_290, sg_291, sg_402, sg_403 print pools 0.5–2.1 %
  below the rebuild).
* SGLang, a multimodal model, 0.5.14 and later (helper cap15; read in the 0.5.9, 0.5.13, 0.5.14, 0.5.15 and 0.5.23
  wheels): ``managers/tp_worker.py`` ``TpModelWorker.__init__`` calls ``get_processor`` (the HF processor:
  tokenizer, image / video processors) right after ``_init_model_runner`` ('Load weight end'), and from 0.5.14 the
  pool is sized afterwards (``ModelRunner.alloc_memory_pool`` from ``Scheduler.init_memory_pools``); 0.5.9 – 0.5.13
  size it inside ``ModelRunner.initialize``, before that load.  The scheduler already loaded one processor
  (``Scheduler.init_tokenizer``), so this is a second copy in the same process, in host memory: on a discrete GPU it
  does not move cudaMemGetInfo, on a unified-memory GPU it comes off MemAvailable and so off the pool.  Its size
  is the processor's, which no line prints and the source does not give: the note names it, nothing is charged.
  The corpus agrees in sign: the five GB10 logs of multimodal models on 0.5.14+ (sg_290, sg_291, sg_402, sg_403,
  sg_493) print pools 0.5–2.6 % below the rebuild, while the GB10 text model sg_082 is rebuilt exactly.

tpkit plans with the catalog total and a host that uses nothing else; the note below says so in the plan, and
gives the MemAvailable the start-up check needs (the plan's requested memory): no flag is needed for it, since the
requirement follows from the catalog total and the utilisation, and ``tpkit explain`` reads the printed F/T.
"""

from __future__ import annotations

from tpkit.units import Bytes, gib_text

__all__ = ["unified_memory_note", "vllm_reads_host_available", "sglang_budget_sample_note", "VLLM_FIRST",
           "VLLM_IS_INTEGRATED", "vllm_graph_estimate_spread",
           "VLLM_UMA_CAPABILITIES", "SGLANG_FIRST_READ", "SGLANG_POOL_AFTER_PROCESSOR_FROM"]

VLLM_FIRST = (0, 11, 1)
"""first vLLM release whose MemorySnapshot takes MemAvailable on unified memory (0.11.0 has no such branch)"""
VLLM_IS_INTEGRATED = (0, 20, 0)
"""first vLLM release that asks ``is_integrated_gpu`` instead of the compute-capability list"""
VLLM_UMA_CAPABILITIES = frozenset({(8, 7), (11, 0), (12, 1)})
"""``shared_sysmem_device_mem_sms`` of 0.11.1–0.19.x (``utils/mem_utils.py``): Orin, Thor, Spark"""
SGLANG_FIRST_READ = "0.5.9"
"""earliest SGLang release read with the is_integrated branch in get_available_gpu_memory"""
SGLANG_POOL_AFTER_PROCESSOR_FROM = "0.5.14"
"""first SGLang release that sizes the pool after ``TpModelWorker.__init__`` loads a multimodal model's processor
(``Scheduler.init_memory_pools`` → ``ModelRunner.alloc_memory_pool``; 0.5.13 sizes it in ``ModelRunner.initialize``)"""


def vllm_reads_host_available(release: tuple[int, int, int], gpu) -> bool:
    """Whether vLLM ``release`` takes the host's MemAvailable as the free memory of ``gpu`` (module docstring):
    0.11.1–0.19.x by compute capability, 0.20.0+ by ``is_integrated`` (the catalog's ``unified_memory``)."""
    if tuple(release) < VLLM_FIRST:
        return False
    if tuple(release) < VLLM_IS_INTEGRATED:
        cc = getattr(gpu, "compute_capability", None)
        return tuple(cc) in VLLM_UMA_CAPABILITIES if cc else bool(getattr(gpu, "unified_memory", False))
    return bool(getattr(gpu, "unified_memory", False))


def vllm_graph_estimate_spread() -> tuple[float, float, tuple[str, ...], tuple[str, ...]]:
    """How far vLLM's printed CUDA-graph estimate strays from tpkit's mechanism on unified memory (module
    docstring): (lowest, highest printed − ``graphs.mechanism_estimate`` in GiB, the rows giving each) over the rows
    of ``graph_evidence.GRAPH_EVIDENCE`` whose GPU the catalog marks ``unified_memory``.  Evidence, not a fit:
    nothing in the plan uses it but the note."""
    from tpkit.engines.vllm.graph_evidence import GRAPH_EVIDENCE
    from tpkit.engines.vllm.graphs import mechanism_estimate
    from tpkit.errors import UnknownGpuError
    from tpkit.hardware.catalog import lookup_gpu

    gaps = {}
    for g in GRAPH_EVIDENCE:
        try:
            unified = lookup_gpu(g.gpu).unified_memory
        except UnknownGpuError:  # "not named", a GPU the catalog does not hold
            continue
        if unified:
            planned = mechanism_estimate(piecewise=g.piecewise, full=g.full, layers=g.layers,
                                         attention_backend=g.backend)
            gaps[g.source] = round(g.printed_gib - planned.gib, 2)
    low, high = min(gaps.values()), max(gaps.values())
    return (low, high, tuple(s for s, v in gaps.items() if v == low), tuple(s for s, v in gaps.items() if v == high))


def _vllm_graph_estimate_note(rules) -> str:
    """The sentence on the CUDA-graph estimate for ``rules`` (``VllmRules``) that subtract it (module docstring);
    "" before 0.20, which print it only."""
    if not rules.cudagraph_estimate or getattr(rules, "extensible_kv_cache", False):
        return ""  # ≥ 0.34: the extensible KV cache measures the captured graphs, no estimate (helper cur17)
    from tpkit.engines.vllm.graphs import ESTIMATE_BAND_BYTES

    release = rules.release
    low, high, low_src, high_src = vllm_graph_estimate_spread()
    return (f"; with CUDA graphs on, vLLM {'.'.join(map(str, release))} also subtracts its CUDA-graph estimate (V1 "
            "runner; Model Runner V2 from 0.29), sampled from cudaMemGetInfo around its profiling captures with a "
            "second capture's sample multiplied by the mode's other graphs (profile_cudagraph_memory, no "
            "MemAvailable there), "
            "so host memory taken or released during those captures moves it: on the unified-memory logs of "
            f"tpkit's corpus it printed {high:.2f} GiB above tpkit's estimate ({', '.join(high_src)}) to "
            f"{-low:.2f} GiB below it ({', '.join(low_src)}), i.e. a KV cache up to {high:.2f} GiB smaller or "
            f"{-low:.2f} GiB larger than planned from this term alone (the plan's range carries ± "
            f"{gib_text(ESTIMATE_BAND_BYTES)} for it)")


def unified_memory_note(engine: str, version: str | None, gpu, requested: Bytes | None = None) -> tuple[str, ...]:
    """The plan warning for a unified-memory GPU (empty for a discrete one).  ``requested``: the plan's
    ``gpu_memory_utilization × total`` (``Bytes``), the MemAvailable vLLM's start-up check needs."""
    if not getattr(gpu, "unified_memory", False):
        return ()
    head = (f"{gpu.name} has unified memory: its CUDA total and the free memory at start-up vary with what the host "
            "uses (the plan assumes a host that uses nothing else); pass --gpu-memory with the total that "
            "nvidia-smi or the engine log prints")
    if engine == "vllm":
        from tpkit.engines.vllm.versions import CURRENT, resolve_rules

        rules = resolve_rules(version or CURRENT)
        release = rules.release  # the release of an alias too ("current", "v0")
        if vllm_reads_host_available(release, gpu):
            tail = ("vLLM 0.11.1+ counts the host's MemAvailable as free (mem_utils MemorySnapshot): the KV budget "
                    "does not move with steady host use, but host memory taken during start-up (the loader's host "
                    "copies, a cold torch.compile, other programs) counts as non-torch memory and comes off the KV "
                    "cache, by an amount the plan does not include; "
                    + ("vLLM 0.34+ sizes its extensible KV cache from the free memory (MemAvailable) measured after "
                       "warm-up, with no start-up check (config/vllm.py _resolve_extensible_kv_cache)"
                       if rules.extensible_kv_cache else
                       "start-up fails when MemAvailable is below gpu_memory_utilization × total"
                       + (f" (here {gib_text(requested)}: compare the 'available' column of free -b before the "
                          "launch; dropping the page cache does not raise it)" if requested else ""))
                    + _vllm_graph_estimate_note(rules))
        else:
            which = ("vLLM before 0.11.1 treats it as a discrete GPU" if release < VLLM_FIRST else
                     f"vLLM {'.'.join(map(str, release))} takes MemAvailable only for compute capability 8.7, 11.0 "
                     "and 12.1 (until 0.20), so it treats this one as a discrete GPU")
            tail = (f"{which}: cudaMemGetInfo's free leaves out the page cache, so start-up can fail its free-memory "
                    "check (drop caches or lower gpu_memory_utilization)"
                    + (f"; it needs {gib_text(requested)} free by cudaMemGetInfo" if requested else ""))
    else:
        from tpkit.engines.sglang.versions import at_least

        if version is None or at_least(version, SGLANG_FIRST_READ):
            tail = ("SGLang reads the host's MemAvailable as free (get_available_gpu_memory): every GiB the host "
                    "uses at start-up comes out of the KV pool")
        else:
            tail = (f"SGLang releases before {SGLANG_FIRST_READ} were not read for unified memory; from "
                    f"{SGLANG_FIRST_READ} free memory is the host's MemAvailable and host use comes out of the KV pool")
    return (f"{head}. {tail}",)


def sglang_budget_sample_note(version: str | None, gpu, *, multimodal: bool = False) -> str | None:
    """What ``tpkit explain`` cannot see on a unified-memory GPU (module docstring): SGLang sizes the pool from the
    host's MemAvailable at ``_profile_available_bytes``, a sample no line prints; None on a discrete GPU and for
    releases before :data:`SGLANG_FIRST_READ` (not read here).  ``multimodal``: the model is (the config's
    ``is_multimodal``); from :data:`SGLANG_POOL_AFTER_PROCESSOR_FROM` (``version``: the newest release the log
    allows, None when unknown) the note names the processor this process loads in that window (module
    docstring)."""
    if not getattr(gpu, "unified_memory", False):
        return None
    from tpkit.engines.sglang.versions import at_least

    if version is not None and not at_least(version, SGLANG_FIRST_READ):
        return None
    note = (f"KV budget sample: on the unified-memory {gpu.name} SGLang sizes the pool from the host's MemAvailable "
            "when the pool is sized (get_available_gpu_memory, is_integrated branch), a sample no line prints; host "
            "memory any process takes after 'Load weight end' comes off the pool and is not in the rebuilt budget, "
            "which takes 'Load weight end' avail mem")
    if multimodal and (version is None or at_least(version, SGLANG_POOL_AFTER_PROCESSOR_FROM)):
        note += (f"; for this multimodal model SGLang {SGLANG_POOL_AFTER_PROCESSOR_FROM}+ itself takes such memory "
                 "there: TpModelWorker.__init__ loads a second copy of the HF processor (tokenizer, image processor; "
                 "managers/tp_worker.py get_processor, after the weights) before Scheduler.init_memory_pools sizes the "
                 "pool, and no line prints its size")
    return note
