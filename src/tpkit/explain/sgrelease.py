"""SGLang: the start-up terms the log's release gives, from tpkit's engine rules (``tpkit.engines.sglang``): the
release that reads the log, the default ``mem_fraction_static`` and the multimodal runner factor, the load usage
when 'Load weight begin' is not printed, torch's stream pool, the RoPE pre-expansion, the multimodal caches
reserved out of the KV budget (0.5.18+) and the custom all-reduce buffers.  Used by ``explain.sglang`` to anchor the ledger."""

from __future__ import annotations

import re

from tpkit.explain.context import Context
from tpkit.explain.interval import Iv
from tpkit.explain.refusals import REFUSED
from tpkit.hardware.gpu import is_amd
from tpkit.logs import ParsedLog
from tpkit.logs.engine import releases_in
from tpkit.units import Bytes, gib_text, mib_text


_RUNNER_RULE_RELEASED = (("0.4.5", "0.4.4", "2025-04-07"), ("0.4.9", "0.4.8", "2025-07-06"))
"""(first release of a ModelRunner multimodal-factor rule, the release before it, its date): the build date of the
files in the release wheels (``pip download --no-deps sglang==0.4.5`` / ``==0.4.9``; ``unzip -l``).  A log dated
before a release cannot come from it."""


def _release_span(oldest: str | None, newest: str, capped: str | None) -> str:
    """"SGLang A–B" (or "SGLang B" when the log allows one release), with the date cap that bounded B."""
    span = f"SGLang {oldest}–{newest}" if oldest and oldest != newest else f"SGLang {newest}"
    return span + (f" ({capped})" if capped else "")


def runner_factor(ctx: Context, parsed: ParsedLog) -> tuple[float, str] | None:
    """The factor SGLang's ModelRunner applies to a multimodal model's mem_fraction_static, the user's included
    (× 0.95 in 0.2.15–0.4.4, × 0.90 in 0.4.5–0.4.8, none from 0.4.9: ``engines.sglang.multimodal.
    multimodal_runner_factor``), for the newest release consistent with the log's formats and its date."""
    if ctx.model is None or not getattr(ctx.model, "is_multimodal", False):
        return None
    from tpkit.engines.sglang.multimodal import multimodal_runner_factor
    from tpkit.engines.sglang.versions import LATEST, parse_version

    version = ctx.rules_version or LATEST
    date, why = ctx.get("log_date"), ""
    for first, before, released in _RUNNER_RULE_RELEASED:
        if date is not None and date < released and parse_version(version) >= parse_version(first):
            version, why = before, f"; the log is dated {date}, before SGLang {first} ({released}): ≤ {before}"
            break
    try:
        found = multimodal_runner_factor(version)
    except REFUSED:  # a version the rules do not read
        return None
    return None if found is None else (found[0], f"{found[1]} (release {version}{why})")


def _with_post(text: str | None, rules: str | None) -> str | None:
    """``rules`` (the context's rules release, read without a post label) with the post label the version text gives
    it ("0.5.4.post1" for "0.5.4"): the ROCm aiter step sits between 0.5.4 and 0.5.4.post1 (``aiter_factor``)."""
    if rules is None:
        return None
    found = re.findall(r"\d+\.\d+\.\d+(?:\.post\d+)?", re.sub(r"\(.*?\)", "", text or ""))
    return next((f for f in reversed(found) if f.split(".post")[0] == rules), rules)


def aiter_factor(ctx: Context, parsed: ParsedLog, tp: int, *, flag: bool = False) -> tuple[float, str] | None:
    """The × 0.85 SGLang applies to mem_fraction_static on an AMD GPU with the aiter attention backend and a context
    over 8192 tokens (``engines.sglang.choices.rocm_aiter_factor``: ModelRunner in 0.4.7–0.5.4, ServerArgs from
    0.5.4.post1), for a fraction the log or the flags give.  From 0.5.4.post1 ServerArgs multiplies before the
    'server_args=' line is printed (× 0.90 in 0.5.4.post1's ``ServerArgs._handle_attention_backend_compatibility``,
    × 0.85 from 0.5.4.post2; 0.5.4's ``ModelRunner.model_specific_adjustment`` multiplies after it: both wheels read
    by helper gs30, session 30), so a fraction the log prints already carries it: only a flag's (the user's value)
    is multiplied then.  ``flag``: the factor on a value the user gives as ``--mem-fraction-static`` (a fix's), which
    every release multiplies.  A log that prints another attention backend has none; None without a named AMD GPU."""
    if ctx.model is None or ctx.gpu is None or not is_amd(getattr(ctx.gpu, "vendor", None)):
        return None
    backend = parsed.run.value("attention_backend") or ctx.get("attention_backend")  # the log's, else the flag's
    if backend is not None and str(backend) != "aiter":
        return None
    from tpkit.engines.sglang.choices import rocm_aiter_factor
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.versions import LATEST, release_key
    from tpkit.parallel import ParallelSpec

    version = _with_post(ctx.version, ctx.rules_version) or LATEST
    printed_after = release_key(version) >= (0, 5, 4, 1)  # the release_key step of rocm_aiter_factor's "ServerArgs"
    if not flag and printed_after and not str(ctx.sources.get("mem_fraction", "")).startswith("flag"):
        return None
    context = ctx.get("context_length")
    try:
        return rocm_aiter_factor(ctx.model, ctx.gpu, ParallelSpec(tp=tp),
                                 SglangOptions(engine_version=version, attention_backend=backend and "aiter",
                                               context_length=None if context is None else int(context)))
    except REFUSED:  # a context over the model's limit, a version the rules do not read
        return None


def car_bytes_for(ctx: Context, tp: int, disabled_warning: bool) -> tuple[Bytes | None, str]:
    """SGLang's custom all-reduce buffers per GPU for this layout (tpkit's start-up model) and their source."""
    if ctx.gpu is None or tp < 2 or ctx.get("disable_custom_all_reduce") or disabled_warning:
        return None, "off"
    try:
        from tpkit.engines.sglang.allreduce import custom_allreduce_cost
        from tpkit.engines.sglang.versions import LATEST, at_least
        from tpkit.hardware.topology import GroupTopology
        from tpkit.parallel import ParallelSpec
        from tpkit.startup.custom_allreduce import sglang_custom_allreduce

        version = ctx.rules_version or LATEST
        cost = custom_allreduce_cost(ctx.gpu, ParallelSpec(tp=tp), version, links=ctx.links)
        if cost.bytes.bytes == 0 and ctx.forced_custom_allreduce:
            # forced on over PCIe: the buffers the implementation allocates when it runs (links as if allowed)
            forced = GroupTopology(full_nvlink=True, p2p=True, compute_capability=ctx.gpu.compute_capability,
                                   source="forced on by the command line")
            cost = sglang_custom_allreduce(ctx.gpu, forced, tp, v2=at_least(version, "0.5.12"))
            return cost.bytes, f"forced on by the command line: {cost.source}"
        return (cost.bytes or None), cost.source
    except REFUSED:
        return None, "unknown"


def log_release(ctx: Context) -> tuple[str, str]:
    """The SGLang release whose rules read this log: the newest consistent with its formats and dated no later
    than the log (``versions.newest_by_date``), and the reason when the date capped it ('' otherwise).  The one
    home of the cap: explain's terms and ``tpkit plan --from-log`` (``cli.fromlog.from_log``) both read it.  A post
    release the version text names is kept where it is that newest release (0.4.7.post1 already has the capacity
    classes, ``engines.sglang.defaults.CAPACITY_CLASSES_FROM``; ``releases_in`` reads base releases only)."""
    import re

    from tpkit.engines.sglang.versions import LATEST, newest_by_date, parse_version

    version, capped = newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))
    named = re.findall(r"\d+\.\d+\.\d+\.post\d+", re.sub(r"\(.*?\)", "", ctx.version or ""))
    if not capped and named and parse_version(named[-1]) == parse_version(version):
        version = named[-1]
    return version, capped


def rope_reserve_for(ctx: Context) -> tuple[Iv, str] | None:
    """(0 … the allocator segment of SGLang's RoPE pre-expansion, why; None when no release the log allows has it):
    ``engines.sglang.rope.rope_reserve`` for the newest release consistent with the log's formats and its date
    (0.5.6+: ``load_model`` grows the cos/sin cache after printing 'Load weight end', before the KV budget samples
    the free memory).  The low end is 0 (the new cache may fit a cached free block), so a log whose releases
    straddle 0.5.6 gets the same interval."""
    if ctx.model is None:
        return None
    from tpkit.engines.sglang.rope import rope_reserve, rope_reserve_interval

    version, capped = log_release(ctx)
    vendor = getattr(ctx.gpu, "vendor", None) if ctx.gpu is not None else None
    try:
        found = rope_reserve(ctx.model, version, context_len=ctx.get("context_length"),
                             spec_steps=int(ctx.get("speculative_num_steps") or 0),
                             spec_draft_tokens=int(ctx.get("speculative_num_draft_tokens") or 0), vendor=vendor,
                             language_model_only=bool(ctx.get("language_model_only")))
    except (*REFUSED, TypeError):  # a version or config the rule cannot read: no charge
        return None
    if found is None:
        return None
    low, high = rope_reserve_interval(found)
    return Iv(low=low, high=high), found.source + (f" ({capped})" if capped else "")


def _release_ends(ctx: Context) -> tuple[str | None, str, str]:
    """(oldest, newest, capped) for the terms read "at both ends of the releases the log allows" (``stream_pool_for``,
    ``deepgemm_workspace_for``): the oldest release the log's line formats admit (None without one), the newest they
    and its date admit (``versions.newest_by_date``) and the reason the date capped it ('' if not).  The one home of
    these ends since round rev33 (each term spelled them out before), with ``_ends_to_read``."""
    from tpkit.engines.sglang.versions import LATEST, newest_by_date

    newest, capped = newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))
    found = releases_in(ctx.version)
    return (found[0] if found else None), newest, capped


def _ends_to_read(oldest: str | None, newest: str) -> list[str]:
    """The releases a term is read at: the two ends, or the newest alone where the date cap puts it below the oldest
    (raises ``REFUSED`` on a version string the rules cannot read)."""
    from tpkit.engines.sglang.versions import parse_version

    if oldest is not None and parse_version(oldest) > parse_version(newest):
        return [newest]
    return [v for v in (oldest, newest) if v]


def stream_pool_for(ctx: Context, tp: int, pp: int) -> tuple[Iv | None, str]:
    """(torch's stream pool taken between SGLang's pre sample and 'Load weight begin', why; None when none):
    ``engines.sglang.streams.forward_stream_pool`` at both ends of the releases the log allows — the oldest
    release its line formats admit and the newest one they and its date admit (``versions.newest_by_date``) —
    so a log whose releases straddle 0.5.9 gets 0 … the pool, and no version at all the same; none in a HAMi slice
    (the log names HAMi: ``result.free_form_settings`` 'memory_virtualiser')."""
    from tpkit.engines.sglang.streams import FIRST_RELEASE, STREAM_POOL_SOURCE, forward_stream_pool

    vendor = getattr(ctx.gpu, "vendor", None)
    shim = ctx.get("memory_virtualiser")  # a HAMi slice's free memory does not see the pool
    oldest, newest, capped = _release_ends(ctx)
    try:
        ends = [forward_stream_pool(v, world=tp * pp, vendor=vendor, virtualiser=shim)
                for v in _ends_to_read(oldest, newest)]
    except REFUSED:  # a version string the rules cannot read: no charge
        return None, ""
    lo = Bytes(0) if oldest is None else min(ends)
    hi = max(ends)
    if hi.bytes == 0:
        return None, ""
    span = _release_span(oldest, newest, capped)
    if lo != hi:
        span += f": 0 before {FIRST_RELEASE}, so 0 … the pool"
    return Iv(low=lo, high=hi), f"{STREAM_POOL_SOURCE}; {span}; world size {tp * pp}"


def deepgemm_workspace_for(ctx: Context, tp: int, pp: int) -> tuple[Iv | None, str]:
    """(DeepGEMM's 32 MiB cuBLASLt workspace taken between SGLang's pre sample and 'Load weight begin', why; None when
    no release or GPU the log allows takes it): ``engines.sglang.streams.deepgemm_workspace`` at both ends of the
    releases the log allows, as ``stream_pool_for`` (a log whose releases straddle 0.5.15 gets 0 … the workspace);
    a GPU whose compute capability is not known (the card not named) also gets 0 … the workspace.  Every world
    size (``tp``, ``pp`` only name it in the reason)."""
    from tpkit.engines.sglang.streams import DEEPGEMM_FIRST, WORKSPACE_SOURCE, deepgemm_workspace, takes_deepgemm

    vendor = getattr(ctx.gpu, "vendor", None)
    cc = getattr(ctx.gpu, "compute_capability", None)
    oldest, newest, capped = _release_ends(ctx)
    try:
        ends = [deepgemm_workspace(v, compute_capability=cc, vendor=vendor) for v in _ends_to_read(oldest, newest)]
    except REFUSED:  # a version string the rules cannot read: no charge
        return None, ""
    hi = max(ends)
    if hi.bytes == 0:
        return None, ""
    open_card = takes_deepgemm(cc, vendor) is None
    lo = Bytes(0) if oldest is None or open_card else min(ends)
    span = _release_span(oldest, newest, capped)
    if lo != hi:
        span += (f": 0 before {DEEPGEMM_FIRST}" if not open_card else ": the GPU's compute capability not known")
        span += ", so 0 … the workspace"
    return Iv(low=lo, high=hi), f"{WORKSPACE_SOURCE}; {span}; world size {tp * pp}"


def metadata_kernels_for(ctx: Context, tp: int, pp: int) -> tuple[Iv | None, str]:
    """(what SGLang 0.4.6.post5–0.4.9.x's expert-location metadata takes between the pre sample and 'Load weight
    begin' at world size 1 — the process's first kernels —, why; None when no release the log allows takes it):
    ``engines.sglang.streams.metadata_kernels_span`` over the releases its line formats (a post release the log
    prints kept whole) and its date admit, so a log whose releases straddle the window gets 0 … the charge."""
    import re

    from tpkit.engines.sglang.streams import METADATA_END, METADATA_FIRST, first_kernel_bytes, metadata_kernels_span
    from tpkit.engines.sglang.versions import LATEST, newest_by_date

    vendor = getattr(ctx.gpu, "vendor", None) if ctx.gpu is not None else None
    newest, capped = newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))
    named = re.findall(r"\d+\.\d+\.\d+(?:\.post\d+)?", re.sub(r"\(.*?\)", "", ctx.version or ""))
    oldest = named[0] if named else None
    if len(named) == 1 and not capped:
        newest = named[0]
    try:
        lo, hi = metadata_kernels_span(oldest, newest, date=ctx.get("log_date"), world=tp * pp, vendor=vendor,
                                       virtualiser=ctx.get("memory_virtualiser"))
    except REFUSED:  # a version string the rules cannot read: no charge
        return None, ""
    if hi.bytes == 0:
        return None, ""
    span = _release_span(oldest, newest, capped)
    if lo != hi:
        span += f": 0 outside {METADATA_FIRST}–{METADATA_END} (exclusive), so 0 … the charge"
    return Iv(low=lo, high=hi), (
        "the expert-location metadata ModelRunner.initialize builds on the GPU after the pre sample for every model "
        f"in SGLang {METADATA_FIRST} up to {METADATA_END} (a dense model's one-expert dummy: the process's first "
        f"kernels at world size 1), {mib_text(first_kernel_bytes())}: what 0.5.8+ prints as 'Init torch distributed "
        f"ends. mem usage' at tp 1, where its first kernel runs (start-up table sglang_tp1_init[>=0.5.8]); {span}; "
        f"world size {tp * pp}")


def mm_reservation_for(ctx: Context) -> tuple[Iv | None, str]:
    """(what SGLang reserves out of the KV budget for a multimodal model's caches, why; None when nothing):
    ``engines.sglang.multimodal.mm_reservation`` — from 0.5.18 ``kv_cache_configurator.py
    _profile_available_bytes`` takes ``mm_runtime_reservation_gb`` (``SGLANG_VLM_CACHE_SIZE_MB``, + the feature
    cache with a GPU feature transport) from ``rest`` before the state split; 0.5.17 and older allocate those
    caches after the pool, out of the slack (read in the 0.5.16, 0.5.17 and 0.5.18 wheels) — but for the
    CUDA-IPC feature pool (1024 MiB), which 0.5.16 – 0.5.17 allocate from the tokenizer manager before the pool is
    sized, and 0.5.17 turns on by default on one CUDA node (helper sgf14; the log's printed, resolved
    ``mm_feature_transport`` is passed on).  Taken at both ends of
    the releases the log allows, as ``stream_pool_for``: a log whose releases straddle 0.5.18 gets 0 … the
    reservation.  With no GPU known, Qwen3-VL's 0.5.20+ Hopper override and the default both count."""
    model = ctx.model
    if model is None or not getattr(model, "is_multimodal", False):
        return None, ""
    from tpkit.engines.sglang.multimodal import mm_reservation
    from tpkit.engines.sglang.versions import LATEST, newest_by_date, parse_version
    from tpkit.hardware.catalog import list_gpus

    newest, capped = newest_by_date(ctx.rules_version or LATEST, ctx.get("log_date"))
    found = releases_in(ctx.version)
    oldest = found[0] if found else None
    ends = [v for v in (oldest, newest) if v]
    try:
        if oldest is not None and parse_version(oldest) > parse_version(newest):
            ends = [newest]
        hopper = [g for g in list_gpus() if g.compute_capability is not None and g.compute_capability[0] == 9
                  and (g.nvidia_smi_total_mib or 0) >= 60 * 1024][:1]
        other = [g for g in list_gpus() if g.compute_capability is not None and g.compute_capability[0] != 9][:1]
        gpus = [ctx.gpu] if ctx.gpu is not None else other + hopper
        running = ctx.get("max_running_requests")
        lm_only = bool(ctx.get("language_model_only"))
        transport = str(ctx.get("mm_feature_transport") or "").lower() or None  # the log's, as resolved (sgf14)
        transport = transport if transport in ("cpu", "cuda_ipc", "cuda_vmm") else None
        values = [mm_reservation(model, g, g.nvidia_smi_total_mib or g.total_bytes.bytes / 2**20, v,
                                 int(running) if running else None, language_model_only=lm_only,
                                 transport=transport)
                  for v in ends for g in gpus]
    except REFUSED:  # a version or config the rules cannot read: no charge
        return None, ""
    sizes = [b for b, _ in values]
    lo = Bytes(0) if oldest is None else min(sizes)
    hi = max(sizes)
    if hi.bytes == 0:
        return None, ""
    why = next(w for b, w in values if b == hi)
    span = _release_span(oldest, newest, capped)
    if lo != hi:
        span += ": 0 before 0.5.18, so 0 … the reservation" if lo.bytes == 0 else ": the GPU not known"
    return Iv(lo, hi), (f"{why} (sglang 0.5.18+ kv_cache_configurator.py _profile_available_bytes: "
                        f"mm_runtime_reservation_gb, before the state split); {span}")


def default_fraction(ctx: Context, tp: int, pp: int) -> tuple[tuple[float, float] | None, str]:
    """SGLang's default mem_fraction_static for this run ((lowest, highest), source; None when not pinned):
    tpkit's engine rules (``engines.sglang.budget.kv_budget``: ``engines.sglang.defaults`` by release, the
    multimodal and ROCm factors) for the newest release consistent with the log's formats and its date
    (``versions.newest_by_date``), on

    * the GPU the log names (or the flags, or the only catalog GPU its arithmetic fits: ``build_context``);
    * else every catalog GPU whose total lies in the interval ``explain.gpuinfer`` bounds, or, with no catalog GPU
      there, the interval's two ends (the nvidia-smi MiB SGLang reads taken up to the catalog's largest
      nvidia-smi/CUDA ratio) and the capacity-class boundaries inside it (``defaults.GPU_MEMORY_BOUNDARIES_MIB``);
    * else (no upper bound) every catalog GPU: used only when they all give the same value — the release's
      default does not depend on the GPU (the by-tp tables up to 0.4.5).
    Different values give the range; none is picked silently."""
    from dataclasses import replace

    from tpkit.hardware.catalog import custom_gpu, list_gpus, lookup_gpu

    version, capped = log_release(ctx)
    why = f"; {capped}" if capped else ""
    inferred = ctx.gpu_inferred
    if ctx.gpu is not None:
        gpus, on = [ctx.gpu], ""
    elif inferred is not None and inferred.candidates:
        gpus = [lookup_gpu(n) for n in inferred.candidates]
        on = f" over the catalog GPUs the inferred total fits ({', '.join(inferred.candidates)})"
    elif inferred is not None and inferred.high is not None:
        from tpkit.engines.sglang.defaults import GPU_MEMORY_BOUNDARIES_MIB

        ratio = max((g.nvidia_smi_total_mib * 2**20 / g.total_bytes.bytes for g in list_gpus()
                     if g.nvidia_smi_total_mib), default=1.0)
        lo_mib, hi_mib = inferred.low.bytes / 2**20, inferred.high.bytes / 2**20 * ratio
        points = [lo_mib, hi_mib] + [b + d for b in GPU_MEMORY_BOUNDARIES_MIB for d in (0, 1) if lo_mib < b + d < hi_mib]
        gpus = [replace(custom_gpu(Bytes(int(m * 2**20)), name="inferred"), nvidia_smi_total_mib=m) for m in points]
        on = (f" over the inferred total {gib_text(inferred.low, label='')}–{gib_text(inferred.high)} (SGLang's "
              f"nvidia-smi MiB {lo_mib:,.0f}–{hi_mib:,.0f})")
    else:
        gpus, on = list(list_gpus()), " (GPU not known: the same on every catalog GPU)"
    values, sources = set(), []
    for gpu in gpus:
        found = _fraction_on(ctx, gpu, tp, pp, version)
        if found is None:
            return None, f"not printed: SGLang's default not computable on {gpu.name}"
        values.add(round(found[0], 6))
        sources.append(found[1])
    lo, hi = min(values), max(values)
    if ctx.gpu is None and inferred is not None and inferred.high is None and lo != hi:
        return None, (f"not printed: SGLang {version}'s default depends on the GPU's memory ({lo:.3f}–{hi:.3f} over "
                      f"the catalog) and the log bounds the total only from below ({gib_text(inferred.low)}){why}")
    if ctx.gpu is None and inferred is None and lo != hi:
        return None, (f"not printed: SGLang {version}'s default depends on the GPU's memory ({lo:.3f}–{hi:.3f} over "
                      f"the catalog) and no GPU is named nor inferred{why}")
    text = sources[0] if lo == hi else f"{lo:.4f}–{hi:.4f} (not pinned by the inferred total: the range is used)"
    return (lo, hi), f"not printed: SGLang's default{on}: {text}{why}"


def _fraction_on(ctx: Context, gpu, tp: int, pp: int, version: str) -> tuple[float, str] | None:
    """SGLang's default fraction on ``gpu`` for this release (``engines.sglang.budget.kv_budget``), with the run's
    DP attention (``--enable-dp-attention`` and its ``--dp``, from the log or the flags): SGLang's default reserve
    grows with it (0.4.8–0.4.10 ``server_args.py __post_init__``: + 4 GiB; 0.5.3+: + the per-dp graph term;
    ``engines.sglang.defaults``), the log's ``disable_cuda_graph`` (0.5.14+ drops graph terms from it) and the
    host's cards (``--host-gpus``: the smallest sets the capacity class, ``defaults.host_capacity_mib``)."""
    try:
        from tpkit.engines.sglang.options import SglangOptions
        from tpkit.engines.sglang.budget import kv_budget
        from tpkit.engines.sglang.versions import attention_dp_size
        from tpkit.parallel import ParallelSpec

        dpa = bool(ctx.get("enable_dp_attention"))
        dp = attention_dp_size(version, tp=tp, dp=int(ctx.get("dp", 1) or 1), dp_attention=True) if dpa else 1
        parallel = ParallelSpec(tp=tp, pp=pp, dp=dp, dp_attention=dpa and dp > 1)
        b = kv_budget(ctx.model, gpu, parallel, SglangOptions(engine_version=version,
                                                              enable_dp_attention=dpa and dp > 1,
                                                              cpu_offload_gb=offload_gb(ctx),
                                                              disable_cuda_graph=ctx.get("cuda_graph_disabled")
                                                              is True, host_gpus=ctx.get("host_gpus")),
                      machine=None, weights_bytes=Bytes(0))
        return b.fraction.value, b.fraction.source
    except REFUSED:
        return None


def offload_gb(ctx: Context) -> int | None:
    """The run's ``--cpu-offload-gb`` as SGLang reads it (a whole number of GiB per GPU; None when 0 or unknown):
    the load usage drops by the offloaded layers and, 0.5.10–0.5.14, piecewise graphs are off
    (``engines.offload``, ``engines.sglang.graphs``)."""
    value = ctx.get("cpu_offload_gb")
    return int(value) if value else None


def pre_from_load_usage(ctx: Context, tp: int, pp: int, free_after: Iv) -> tuple[Iv, str] | None:
    """pre_model_load_memory when neither 'Load weight begin' nor the load's 'mem usage' is printed (SGLang ≤ 0.4.5
    prints no usage; an excerpt may start at 'Load weight end'): the free memory after the weights plus SGLang's
    load usage as tpkit computes it from the config (``engines.sglang.load.load_usage``: weights, rotary cache,
    load allocations; their band).  ``profile_max_num_token`` subtracts ``pre × (1 − f)`` from the free memory
    after the weights (sglang 0.3.3 / 0.4.0.post1 ``model_runner.py``), and pre is the free memory after
    ``init_torch_distributed``, before the weights — so pre = free after + usage.  The rotary cache's dtype
    depends on the vendor (float32 on CUDA from 0.4.2): both are taken when the GPU is unknown."""
    try:
        from tpkit.engines.sglang.options import SglangOptions
        from tpkit.engines.sglang.load import load_usage
        from tpkit.hardware.catalog import custom_gpu
        from tpkit.parallel import ParallelSpec
        from dataclasses import replace

        version, _ = log_release(ctx)
        opts = SglangOptions(engine_version=version, cpu_offload_gb=offload_gb(ctx))
        gpus = [ctx.gpu] if ctx.gpu is not None else [
            replace(custom_gpu(free_after.high, name="unknown"), vendor=v) for v in ("NVIDIA", "AMD")]
        lows, highs, source = [], [], ""
        for gpu in gpus:
            nominal, unc, source = load_usage(ctx.model, ParallelSpec(tp=tp, pp=pp), opts, None, gpu)
            lows.append(nominal - unc)
            highs.append(nominal + unc)
    except REFUSED:  # a model the rules cannot size: the pre stays unknown
        return None
    usage = Iv(low=min(lows), high=max(highs))
    return free_after + usage, (f"not printed: min-over-ranks 'Load weight end' avail + SGLang's load usage from the "
                                f"config {usage.text()} ({source}; SGLang {version})")
