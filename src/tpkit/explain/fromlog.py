"""``tpkit plan --from-log LOG``: the log's measured start-up terms replace the catalog's (pure).

The planner's start-up terms are estimates with a band (``tpkit.memory.band``); a term the log measured is
handed to the planner through ``measured_terms`` and has no band.  What SGLang's log measures:

    term               from the log                                            SGLang, same GPU, any layout
    cuda_context       device total − pre_model_load_memory − distributed init  context + process overhead
    nccl_init          'Init torch distributed ends. mem usage'                 NCCL + custom all-reduce + init
    nccl_warmup, custom_allreduce, process_overhead      0 (inside the two above; a log of world size 1 charges
                       its distributed init as process_overhead, the one line the planner has at tp 1)
    weights            'Load weight end. mem usage'                              only for the log's tp/pp/quant

vLLM's log measures the weights ('Model loading took'), the activation peak and the CUDA-graph estimate
when it prints them (V0 0.7–0.10, DEBUG, ≥ 0.21); its start-up terms stay the planner's.  The CUDA-graph term is
the *applied* estimate (0 where the log shows it was not subtracted), and where the printed peak activation holds
it (the ≥ 0.27 "consumed memory" print, 0.18.x) the activation term is the print less it (``explain.vpeak``).
The distributed-init term was measured at the log's TP size: planning another TP re-uses it (NCCL buffers grow a
little with peers).
"""

from __future__ import annotations

from tpkit.explain.refusals import REFUSED
from tpkit.logs.settings import QUANTIZATION_NAMES, planned_quantization, same_quantization
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["MeasuredStartup", "measured_startup", "LOG_FLAGS", "log_flag_values", "QUANTIZATION_NAMES",
           "planned_quantization", "log_quantization", "quantization_from_log", "refused_quantization",
           "QUANTIZED_LOAD_DELTA"]


LOG_FLAGS = {
    "sglang": ("mem_fraction_static", "context_length", "kv_cache_dtype", "page_size", "cuda_graph_max_bs",
               "chunked_prefill_size", "max_running_requests", "max_total_tokens", "disable_radix_cache",
               "disable_overlap_schedule", "swa_full_tokens_ratio", "cpu_offload_gb", "disable_cuda_graph",
               "language_model_only", "mamba_ssm_dtype", "mm_feature_transport", "pp_layer_partition",
               "sglang_int4_weight", "attention_backend"),
    "vllm": ("gpu_memory_utilization", "max_model_len", "kv_cache_dtype", "block_size", "max_num_batched_tokens",
             "max_num_seqs", "topk_topp_sampler", "skip_mm_profiling", "compile_cache", "cpu_offload_gb",
             "enforce_eager", "limit_mm_per_prompt", "vllm_use_v2_model_runner", "language_model_only",
             "max_cudagraph_capture_size", "cudagraph_capture_sizes", "optimization_level", "cudagraph_mode",
             "vllm_entrypoint", "pp_layer_partition", "vllm_allow_long_max_model_len", "vllm_mxfp4_use_marlin")}
"""the plan flags (dests) a --from-log plan fills from the log's settings (``logs.settings.flag_settings`` names the
setting of each), unless the flag is given; the layout (tp, pp, dp, ep) and ``--quantization``
(:func:`quantization_from_log`) apart"""


def log_flag_values(ctx) -> list[tuple[str, str, object]]:
    """(flag dest, run setting, value) of each :data:`LOG_FLAGS` flag of the log's engine whose setting the log
    shows (a kv_cache_dtype of "auto" says nothing)."""
    from tpkit.logs.settings import flag_settings

    out = []
    for dest, setting in flag_settings(LOG_FLAGS.get(ctx.engine, ())).items():
        value = ctx.get(setting)
        if value is not None and not (setting == "kv_cache_dtype" and str(value) == "auto"):
            out.append((dest, setting, value))
    if ctx.engine == "sglang" and ctx.get("host_gpus") is not None:  # an nvidia-smi table (explain.result.host_cards)
        out.append(("host_gpus", "host_gpus", ctx.get("host_gpus")))
    return _graph_flags(ctx, out) if ctx.engine == "vllm" else _sglang_release_flags(ctx, out)


def _sglang_release_flags(ctx, out: list) -> list:
    """SGLang settings a --from-log plan takes only where the log's release has the flag (helper sgf14):
    ``mm_feature_transport`` from 0.5.16 (cuda_vmm from 0.5.18), ``mamba_ssm_dtype`` float16 from 0.5.9
    (``SglangOptions`` refuses them before; a log of an earlier rule set keeps the default).  The printed
    ``attention_backend`` is passed when SGLang lists it (``options.ATTENTION_BACKENDS``; the ROCm aiter factor reads
    it: ``choices.rocm_aiter_factor``, helper ab28)."""
    from tpkit.engines.sglang.options import ATTENTION_BACKENDS
    from tpkit.engines.sglang.versions import at_least

    out = [(d, s, v) for d, s, v in out if d != "attention_backend" or str(v) in ATTENTION_BACKENDS]  # (ab28)
    release = ctx.rules_version
    if not release:
        return out
    try:
        gates = {("mm_feature_transport", None): at_least(release, "0.5.16"),
                 ("mm_feature_transport", "cuda_vmm"): at_least(release, "0.5.18"),
                 ("mamba_ssm_dtype", "float16"): at_least(release, "0.5.9")}
    except REFUSED:  # a release the rules cannot read: leave the settings to the options' check
        return out
    return [(d, s, v) for d, s, v in out
            if gates.get((d, None), True) and gates.get((d, str(v)), True)]


_GRAPH_FLAGS_FROM = {"max_cudagraph_capture_size": (0, 11, 1), "cudagraph_capture_sizes": (0, 11, 1),
                     "cudagraph_mode": (0, 11, 1), "optimization_level": (0, 15, 0)}
"""the first release whose flag tpkit reads (``VllmOptions``; a log of an earlier release keeps its default)"""


def _graph_flags(ctx, out: list) -> list:
    """vLLM's CUDA-graph settings as a --from-log plan takes them (helper cap11): none before the release that has
    the flag; a capture cap of 0 (an eager run's engine config) or an empty list says nothing (--enforce-eager is
    read apart); with the capture list read, the cap is dropped: the list's largest size is the cap vLLM kept (its
    engine config prints the final list, and a given cap above it is truncated: 'Truncating
    max_cudagraph_capture_size', config/vllm.py _set_cudagraph_sizes, 0.15.0–0.33.0)."""
    try:
        from tpkit.engines.vllm.versions import resolve_rules

        release = resolve_rules(ctx.rules_version).release if ctx.rules_version else None
    except REFUSED:  # a release tpkit has no rules for: no graph flags from the log
        release = None
    kept = []
    has_list = any(dest == "cudagraph_capture_sizes" and value for dest, _, value in out)
    for dest, setting, value in out:
        since = _GRAPH_FLAGS_FROM.get(dest)
        if since is not None:
            if release is None or release < since or not value:
                continue
            if dest == "max_cudagraph_capture_size" and (has_list or int(value) < 1):
                continue
        kept.append((dest, setting, value))
    return kept


def log_quantization(ctx) -> tuple[str | None, str | None, str | None]:
    """(printed, planned, assumption) of the log's quantization (the ``Context`` run setting ``quantization``):
    ``quantization=NAME (where)`` as the log prints it; the ``--quantization`` spelling a plan of the run takes
    (None when the planner has none); for such a name, the assumption a plan makes instead (the checkpoint's own
    ``quantization_config``).  All None when the log prints no quantization (or None / auto)."""
    value = ctx.get("quantization")
    if value is None or str(value).strip().strip("'\"").lower() in ("", "none", "auto"):
        return None, None, None
    where = ctx.sources.get("quantization", "the log").replace(" (log_line)", "")
    printed = f"quantization={value}, {where}"
    planned = planned_quantization(value)
    if planned is not None:
        return printed, planned, None
    known = ", ".join(sorted(set(QUANTIZATION_NAMES.values())))
    return printed, None, (f"the log's quantization {value!r} ({where}) has no --quantization spelling in tpkit "
                           f"({known}): assumed to be the checkpoint's own quantization_config; pass "
                           "--quantization to plan another")


def quantization_from_log(ctx, given) -> tuple[str | None, tuple[str, ...]]:
    """(the ``--quantization`` a --from-log plan takes from the log, None to leave the flag as it is; the plan's
    notes): the log's name in the planner's spelling (:func:`log_quantization`) where no flag is given, said with
    where it was read; for a name without a spelling the stated assumption instead; a ``given`` flag that
    contradicts the log is reported and planned (every flag given with --from-log wins over the log)."""
    printed, planned, assumption = log_quantization(ctx)
    if printed is None:
        return None, ()
    if given is None:
        if planned is None:
            return None, (assumption,)
        return planned, (f"--quantization {planned}: read from the log ({printed})",)
    logged = str(ctx.get("quantization"))
    if same_quantization(logged, given):
        return None, ()
    spelled = f"; --quantization {planned} in tpkit's words" if planned and planned != logged else ""
    return None, (f"--quantization {given} contradicts the log ({printed}{spelled}); the flag is planned",)


QUANTIZED_LOAD_DELTA = ("its load delta ('Model loading took' / 'Load weight end') also holds what the quantisation "
                        "backend allocates at load, which the plan charges on lines of its own (vLLM's MXFP4 MoE "
                        "padding, the MLA kv_b dequantised copy), so with --quantization read from the log the "
                        "planned weights are used")
"""What a quantised run's measured load delta holds beside the weights (gpt-oss-120b, vl_089 on an A100: 17.22 GiB
measured = 15.24 GiB weights + 1.96 GiB Marlin padding).  Since helper mwt (2026-12-04) a --from-log plan takes the
measured weights whether ``--quantization`` came from the log or was given, and the lines inside the measurement
are charged 0 (``engines.vllm.policy.inside_load_delta``); the text is kept for callers that quote it."""


def refused_quantization(model, value: str, engine: str | None = None) -> str | None:
    """The note for a ``--quantization`` read from the log that the plan's checkpoint refuses
    (``models.quant.resolve_quant``: another MODEL than the log's, e.g. an fp8 run planned on an AWQ checkpoint;
    ``models.quant.check_quant_engine``: bitsandbytes on a mixture-of-experts model or under SGLang; a stored format
    whose scheme only the checkpoint's config gives, ``compressed-tensors`` on a config without
    ``quantization_config``: ``models.quant._flag_only`` has no default for it, vl_342 with its base model's config),
    else None: the plan then drops it, since the user gave no such flag, so it is no error either."""
    from tpkit.errors import ConfigError, PlanInputError
    from tpkit.models.quant import check_quant_engine, resolve_quant

    try:
        check_quant_engine(model, resolve_quant(model.quant, value), engine)
    except (PlanInputError, ConfigError) as exc:  # ConfigError: a stored format with no scheme to assume
        return f"--quantization {value} read from the log is not used: {exc}"
    return None


@dataclass(frozen=True, kw_only=True, slots=True)
class MeasuredStartup:
    """What a log measured that ``tpkit plan --from-log`` uses instead of the catalog's start-up terms (no band)."""
    terms: dict
    """term → Bytes (``tpkit.memory.band.measured_terms``)"""
    graphs_in_peak: bool = False
    """vLLM: the measured activation peak holds an applied CUDA-graph estimate the log does not print alone, so
    ``cuda_graphs`` is measured 0 (``explain.vpeak``): a plan that drops the measured activation peak drops it too"""
    notes: tuple[str, ...]
    weights_where: str = "the log"
    """where the measured weights were read ("log line 19"; SGLang: "log lines 10–13", 'Load weight begin' and
    'end'): a --from-log plan's weights line and the load-time lines inside it cite it"""
    layout: dict
    """the log's tp, pp, quantization (as printed; ``logs.settings.same_quantization`` compares it with a plan's
    --quantization), model: the conditions under which the weights were measured"""


def _ranks_printed(e) -> int:
    """How many ranks of an SGLang log print 'Load weight begin/end' (the samples SGLang takes the MIN over)."""
    return len({a.rank.label for a in e.parsed.anchors
                if a.name in ("load_begin_avail", "load_end_avail") and a.group is None})


def _mid(iv) -> Bytes | None:
    return None if iv is None else Bytes(max(iv.mid.bytes, 0))


def _workspace(a, ctx, version: str | None) -> Bytes:
    """DeepGEMM's workspace the log took between its pre sample and 'Load weight begin' that the plan charges itself
    (``engines.sglang.streams.deepgemm_workspace``, 0.5.15+; helper gx33): the log's where its releases agree, else
    the plan's release decides (as for the first kernels); 0 where the plan's release charges none."""
    iv = getattr(a, "pre_load_workspace", None)
    if iv is None:
        return Bytes(0)
    from tpkit.engines.sglang.streams import deepgemm_workspace
    from tpkit.engines.sglang.versions import LATEST

    gpu = ctx.gpu
    planned = deepgemm_workspace(version or LATEST, compute_capability=getattr(gpu, "compute_capability", None),
                                 vendor=getattr(gpu, "vendor", None))
    return Bytes(0) if not planned else iv.low if iv.low == iv.high else planned


def _after_sample(a, ctx, version: str | None) -> tuple[Bytes, dict]:
    """(what SGLang took between its pre sample and 'Load weight begin' that the plan charges itself, the measured
    term ``{"first_kernels": …}`` for the plan or ``{}``): the stream pool, and the expert-location metadata's first kernels
    (0.4.6.post5-0.4.9.x, ``engines.sglang.streams``) as the LOG measured them (``pre_load_kernels``; 0 for a log
    outside the window, whose kernels ran inside its load or its init line, both carried over measured).  Where the
    plan's release ``version`` charges no such line (0.4.10 on), the log's kernels stay inside the measured context,
    so the plan keeps them once; where it charges one, the line is the log's measurement (helper tidy27: a log
    outside the window re-planned inside it charged the 0.09 GiB on the line and again inside its measured load or
    init)."""
    stream, iv = (a.stream_pool.mid if a.stream_pool is not None else Bytes(0)), a.pre_load_kernels
    stream = stream + _workspace(a, ctx, version)
    if not version:
        return stream + (iv.mid if iv is not None else Bytes(0)), {}
    from tpkit.engines.sglang.streams import metadata_kernels

    vendor = getattr(ctx.gpu, "vendor", None) if ctx.gpu is not None else None
    planned = metadata_kernels(version, world=1, vendor=vendor)
    if not planned:
        return stream, {}
    # a log whose formats straddle the window (low < high) takes the plan's release as its own (sg_563, cap26)
    kernels = Bytes(0) if iv is None else iv.low if iv.low == iv.high else planned
    return stream + kernels, {"first_kernels": kernels}


def measured_startup(e, *, gpu_total: Bytes | None = None, version: str | None = None) -> MeasuredStartup:
    """The start-up terms the log measured (``e``: an ``explain.result.Explanation``, not imported here: the
    explanation's layout fixes import this module through ``explain.replan``), for a plan on ``gpu_total`` (the
    plan's GPU)."""
    a, ctx = e.anchored, e.context
    layout = {"tp": ctx.get("tp", 1), "pp": ctx.get("pp", 1), "quantization": ctx.get("quantization"),
              "model": getattr(ctx.model, "name", None)}
    terms, notes = {}, []
    if ctx.engine == "sglang" and a is not None and a.pre is not None:
        terms, notes = _sglang_terms(e, gpu_total, version, layout)
    elif ctx.engine == "vllm" and a is not None:
        terms, notes = _vllm_terms(a)
    in_peak = bool(ctx.engine == "vllm" and a is not None and getattr(a, "graph_use", None) is not None
                   and a.graph_use.graphs_in_peak and "activation_peak" in terms)
    return MeasuredStartup(terms={k: v for k, v in terms.items() if v is not None}, notes=tuple(notes), layout=layout,
                           graphs_in_peak=in_peak,
                           weights_where=_weights_where(a, ctx.engine))


def _sglang_terms(e, gpu_total: Bytes | None, version: str | None, layout: dict) -> tuple[dict, list[str]]:
    """``measured_startup``'s terms and notes of an SGLang log that prints its pre-load free memory: the CUDA
    context and distributed init left of the device total, the measured load, no rank-spread band where every rank
    prints its load lines."""
    a, ctx, terms, notes = e.anchored, e.context, {}, []
    total = gpu_total or a.device_total
    if total is not None:
        init = a.init_dist.mid if a.init_dist is not None else Bytes(0)
        # what SGLang takes after its pre sample at world size 1 and the plan charges on lines of its own (stream
        # pool; the 0.4.6.post5-0.4.9.x first kernels where the plan's release has them) is not context
        after, kernels = _after_sample(a, ctx, version)
        context, terms = total - a.pre.mid - init - after, {**terms, **kernels}
        if context.bytes >= 0 and int(layout["tp"] or 1) * int(layout["pp"] or 1) == 1:
            # world size 1: the planner charges no NCCL line there, so the measured init is charged as SGLang's
            # init_torch_distributed besides NCCL (as the NCCL line it was lost at tp 1: sg_222, 0.15 GiB on an
            # MI355X); a plan at another TP re-uses it, as it re-uses a larger world's (the docstring above)
            terms.update(cuda_context=context, process_overhead=init, nccl_init=Bytes(0), nccl_warmup=Bytes(0),
                         custom_allreduce=Bytes(0))
        elif context.bytes >= 0:
            terms.update(cuda_context=context, nccl_init=init, nccl_warmup=Bytes(0),
                         custom_allreduce=Bytes(0), process_overhead=Bytes(0))
            notes.append(f"start-up terms measured in the log: CUDA context + process {gib_text(context)} "
                         f"(device total − pre_model_load_memory − distributed init), distributed init "
                         f"{gib_text(init)} at tp {layout['tp']}")
        else:
            notes.append("the log's pre-load memory is larger than this GPU's total: the log's start-up terms "
                         "are not used (another GPU?)")
    from tpkit.explain.sgbudget import load_of

    if load_of(a) is not None:  # what SGLang's budget sees: MIN before − MIN after over the ranks (pool_load)
        terms["weights"] = _mid(load_of(a))
    world = int(ctx.get("tp", 1) or 1) * int(ctx.get("pp", 1) or 1)
    if world > 1 and _ranks_printed(e) >= world:
        terms["rank_spread"] = Bytes(0)
        notes.append(f"every one of the {world} ranks prints its load lines: the MIN over ranks SGLang sizes from "
                     "is measured, so the plan carries no rank-spread band term")
    return terms, notes


def _vllm_terms(a) -> tuple[dict, list[str]]:
    """``measured_startup``'s terms and notes of a vLLM log: the weights, the activation peak and the applied
    CUDA-graph estimate it prints (the estimate 0 where the printed peak holds it)."""
    terms, notes = {}, []
    if a.weights is not None:
        terms["weights"] = _mid(a.weights)
    use = a.graph_use
    if a.activation is not None:
        terms["activation_peak"] = _mid(a.activation)
    from tpkit.explain.vgraphread import graph_term_read

    if use is not None and use.applied is not None and graph_term_read(a):  # a log cut before the profile: no reading
        terms["cuda_graphs"] = _mid(use.applied)
    elif use is not None and use.graphs_in_peak and "activation_peak" in terms:
        terms["cuda_graphs"] = Bytes(0)
    measured = [what for key, what in (("weights", "the weights"), ("activation_peak", "activation peak"),
                                       ("cuda_graphs", "CUDA-graph estimate")) if key in terms]
    notes.append("vLLM: " + ", ".join(measured) + " measured in the log; the start-up terms stay the planner's"
                 if measured else "vLLM: the log prints no weights ('Model loading took'), activation peak or "
                 "CUDA-graph estimate: every term is the planner's, the log gives the GPU and the settings")
    if use is not None and use.peak_holds and "activation_peak" in terms:
        if use.graphs_in_peak:
            notes.append("the log's peak activation holds the applied CUDA-graph estimate, which it does not "
                         "print alone: both are charged as the activation peak, the CUDA-graph line 0 "
                         f"({use.peak_why})")
        elif use.applied is not None and use.applied.high.bytes > 0:
            notes.append(f"activation peak {gib_text(a.activation.mid)} = the printed peak activation less the "
                         f"applied CUDA-graph estimate {gib_text(use.applied.mid)} it holds ({use.peak_why})")
    return terms, notes


def _weights_where(a, engine: str | None) -> str:
    """The log line(s) of the measured weights: vLLM's 'Model loading took' row; SGLang's 'Load weight begin' and
    'Load weight end' rows of the reported rank (their difference is the measurement)."""
    names = ("weights",) if engine == "vllm" else ("free before weights (this rank)", "free after weights (this rank)")
    lines = sorted({r.line_no for r in getattr(a, "rows", ()) if r.item in names and r.line_no})
    if not lines:
        return "the log"
    return f"log line {lines[0]}" if len(lines) == 1 else f"log lines {lines[0]}–{lines[-1]}"
