"""SGLang's load usage per rank: what 'Load weight end. mem usage' measures — the weights (their lm_head and vision
tower as SGLang's model classes build them), the rotary cos/sin cache built at model init, what
``--cpu-offload-gb`` moves to CPU memory and what the load allocates beyond them (split from ``policy.py``, which
plans the rest; helper tidy29)."""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.versions import LATEST, at_least, sglang_pp_split
from tpkit.hardware.gpu import GpuSpec, is_amd, is_nvidia
from tpkit.memory.band import WEIGHTS_DERIVED_QUANTIZED_SHARE, WEIGHTS_DERIVED_SHARE, estimated, measured_term, resolve
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.startup.terms import sglang_load_extra
from tpkit.units import Bytes, format_bytes

__all__ = ["load_usage", "weights_term", "cpu_offload", "rotary_cache_bytes", "loads_untied_lm_head", "planned_weights",
           "UNCOUNTED_TOWER_SHARE", "mla_copies", "dp_replicated"]


_WEIGHTS_CACHE: dict[tuple, tuple[ModelSpec, object]] = {}
_WEIGHTS_CACHE_SIZE = 256


UNTIED_HEAD_ARCHITECTURES = frozenset({"LlamaForCausalLM", "Qwen2ForCausalLM"})
"""architectures whose SGLang model class builds its own lm_head before 0.4.0 even when the config ties it"""
SEPARATE_HEAD_ARCHITECTURES = frozenset({"Lfm2ForCausalLM"})
"""architectures whose SGLang model class always builds its own lm_head, tied config or not: ``models/lfm2.py``
``Lfm2ForCausalLM.__init__`` builds ``ParallelLMHead(vocab, hidden)`` and ``load_weights`` copies
``embed_tokens.weight`` into it when the checkpoint has no ``lm_head.weight`` (read in the 0.5.9, 0.5.10 and 0.5.23
wheels, every release that ships the model; vLLM ties it instead, ``models/lfm2.py`` ``lm_head.tie_weights``)"""


def loads_untied_lm_head(model: ModelSpec, version: str) -> bool:
    """True when SGLang ``version`` holds a separate lm_head for a config that ties word embeddings.

    Read in the release wheels: ``srt/models/llama.py`` (``llama2.py`` in 0.2.15) ``LlamaForCausalLM.__init__``
    and ``srt/models/qwen2.py`` ``Qwen2ForCausalLM.__init__`` build ``ParallelLMHead(vocab, hidden)`` whatever
    ``tie_word_embeddings`` says in 0.2.15 – 0.3.6.post3 (``load_weights`` then copies the embedding into it), so
    the lm_head takes its own vocab × hidden bytes; from 0.4.0 both reuse ``model.embed_tokens`` when the config
    ties them.  ``SEPARATE_HEAD_ARCHITECTURES`` (LFM2) hold their own lm_head in every release.  Other
    architectures: not read, planned as their config says.
    """
    if model.tie_word_embeddings and model.architecture in SEPARATE_HEAD_ARCHITECTURES:
        return True
    return (model.tie_word_embeddings and model.architecture in UNTIED_HEAD_ARCHITECTURES
            and not at_least(version, "0.4.0"))


def planned_weights(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions):
    """``plan_weights`` memoised per (model object, layout, dtype, quantisation, checkpoint).

    Sweeps re-plan one model at many fractions and GPUs; weights depend on none of those.  The
    cache keeps the model object itself, so an ``id`` is never reused while its entry lives.
    """
    untie = loads_untied_lm_head(model, options.engine_version)
    key = (id(model), parallel.tp, parallel.pp, parallel.ep, parallel.attn_tp, options.dtype, options.quantization,
           options.checkpoint_dir, untie, options.language_model_only,
           parallel.layer_partition, options.engine_version)
    hit = _WEIGHTS_CACHE.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    from tpkit.models.weights import plan_weights

    plan = plan_weights(replace(model, tie_word_embeddings=False) if untie else model, parallel, dtype=options.dtype,
                        quantization=options.quantization, checkpoint_dir=options.checkpoint_dir, engine="sglang",
                        pp_split=sglang_pp_split(options.engine_version or LATEST, parallel))
    from tpkit.engines.sglang.towers import tower_not_built
    from tpkit.models.weights import without_tower

    plan = without_tower(plan, tower_not_built(model, language_model_only=bool(options.language_model_only)))
    if len(_WEIGHTS_CACHE) >= _WEIGHTS_CACHE_SIZE:
        _WEIGHTS_CACHE.pop(next(iter(_WEIGHTS_CACHE)))
    _WEIGHTS_CACHE[key] = (model, plan)
    return plan


UNCOUNTED_TOWER_SHARE = 0.12
"""± share of a multimodal model's weights derived from a config whose vision tower tpkit cannot size (no
``vision_config``, or a tower layout ``tpkit.models.vision`` does not know): the derived bytes then hold the language
model only.  Evidence: SGLang's load usage exceeds the derived bytes by 9.7–10.1 % on Llama-3.2-11B-Vision (sg_007,
sg_008) and Qwen2.5-VL-7B (sg_056), vLLM's printed weights by 4.2–8.3 % (vl_031, vl_001); 12 % covers those towers
(≈ 0.4–0.9 B parameters on 7–11 B models) with room for larger ones"""


def rotary_cache_bytes(model: ModelSpec, gpu: GpuSpec, options: SglangOptions) -> tuple[Bytes, str]:
    """SGLang's rotary cos/sin cache, built at model init (so inside the 'Load weight' usage) and not sharded:
    rows × rotary_dim elements (``engines.sglang.rope.rotary_dim``: MLA ``qk_rope_head_dim``; else head_dim ×
    ``partial_rotary_factor``, as ``get_rope`` cuts it, read in 0.4.2 ``rotary_embedding.py`` and 0.5.10
    ``rotary_embedding/factory.py``, e.g. 0.5.10 ``models/qwen3_next.py``), one shared per rope config.  The rows are
    ``engines.sglang.rope.cache_positions``: ``max_position_embeddings``, or ``original_max_position_embeddings ×
    factor`` for a yarn / deepseek_yarn config (``YaRNScalingRotaryEmbedding`` / ``DeepseekScalingRotaryEmbedding``
    ``_compute_cos_sin_cache``, every release read from 0.4.2 to 0.5.23; vLLM's rule before 0.4.2).

    From 0.4.2 the models take ``get_rope`` from SGLang's own ``layers/rotary_embedding.py`` whose
    ``RotaryEmbedding.__init__`` keeps the cache in float32 on CUDA (it casts to the model dtype only off CUDA;
    read in the 0.4.2.post1 and 0.5.9 wheels; HIP keeps float32 too from 0.5.23, read in its ``rotary_embedding/
    base.py``); up to 0.4.1 (0.3.5, 0.4.1 wheels: ``models/llama.py``) they took vLLM's, which casts it to the model
    dtype.  Gemma-3 (``gemma3`` family, ``models/gemma3_causal.py``): up to 0.5.9 it builds no get_rope cache (an
    HF-style ``Gemma3RotaryEmbedding`` computes cos/sin per forward; read 0.4.10, 0.5.9); from 0.5.10 every attention
    calls ``get_rope`` with ``{"rope_type": "default"}`` and its local or global base, so two default caches of
    max_position rows (read 0.5.10, 0.5.20, 0.5.23; the config's linear factor is not used).  Gemma 4 (0.5.11+
    ``models/gemma4_causal.py``): one cache per layer type of its ``rope_parameters`` (``engines.sglang.rope
    .rotary_modules``); Gemma-4-26B-A4B 262,144 × (256 + 512) × 4 B = 768 MiB.  The Gemma-3 release boundary is
    ``engines.sglang.rope.GEMMA3_GET_ROPE_RELEASE``."""
    from tpkit.engines.sglang.rope import rotary_modules

    version = options.engine_version
    fp32 = at_least(version, "0.4.2") and (is_nvidia(gpu.vendor) or (
        is_amd(gpu.vendor) and at_least(version, "0.5.23")))
    elem = 4 if fp32 or options.dtype in ("float32", "float") else 2
    mods = rotary_modules(model, version)  # every distinct get_rope module (Gemma-3 two, Gemma 4 one per layer type)
    if not mods:
        if (model.extra or {}).get("learned_positions"):
            return Bytes(0), "no rotary cache (learned position embeddings, counted in the weights)"
        return Bytes(0), "no rotary cache (Gemma-3 before SGLang 0.5.10: HF-style rotary embedding, no get_rope)"
    total = sum(m.rows * m.dim for m in mods) * elem
    kinds = list(dict.fromkeys(mods))  # identical modules (Grok's one per layer) shown once with their count
    parts = "; ".join(("" if mods.count(m) == 1 else f"{mods.count(m)} × ") + f"{m.rows:,} ({m.how}) × {m.dim}"
                      for m in kinds)
    return (Bytes(total),
            f"rotary cos/sin cache{'s' if len(mods) > 1 else ''} [{parts}] × {elem} B "
            f"({'float32 on CUDA, SGLang >= 0.4.2' if fp32 else 'model dtype'}; layers/rotary_embedding.py)")


def cpu_offload(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, weights=None):
    """``--cpu-offload-gb``'s ``engines.offload.CpuOffload`` on the reported rank (None without the flag).  Every
    SGLang release with the flag (0.4.0 – 0.5.23) keeps the offloaded parameters in CPU memory and copies a layer's
    to the device for each forward (no UVA path): the load usage drops by the offloaded bytes; the copy, one layer
    at a time, is taken from the slack after the pool is sized (SGLang's budget reads the free memory after the
    load and runs no profile forward before it)."""
    from tpkit.engines.offload import offload_of

    if weights is None and options.cpu_offload_gb:
        weights = planned_weights(model, parallel, options)
    return offload_of(model, parallel, options.cpu_offload_gb, weights)


def load_usage(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, weights=None,
               gpu: GpuSpec | None = None) -> tuple[Bytes, Bytes, str]:
    """(nominal, ±, source) of SGLang's load usage per rank — what 'Load weight end. mem usage' measures: the
    weights (``tpkit.models.weights`` unless given; ± the derived share), and on a known GPU the rotary cache
    (``rotary_cache_bytes``) and what the load allocates beyond both (``tpkit.startup.terms.sglang_load_extra``,
    by release)."""
    if weights is None:
        weights = planned_weights(model, parallel, options)
    if options.sglang_int4_weight is not None:  # SGLANG_INT4_WEIGHT on HIP: packed int4 experts (engines.sglang.int4)
        from tpkit.engines.sglang.int4 import int4_applies, int4_weights

        if int4_applies(model, gpu, options, weights):
            weights = int4_weights(weights, model, parallel)
    method = str(getattr(weights, "method", "given"))
    params = weights.bytes_per_rank
    pad, pad_source = trtllm_pad(model, parallel, options, gpu, weights)
    if model.is_multimodal and not model.vision_params and "derived" in method:
        share, what = UNCOUNTED_TOWER_SHARE, f"{method}; vision tower not counted: ± {UNCOUNTED_TOWER_SHARE:.0%}"
    elif "derived" in method:
        quantized = getattr(weights, "quant", None) is not None
        share = WEIGHTS_DERIVED_QUANTIZED_SHARE if quantized else WEIGHTS_DERIVED_SHARE
        what = f"{method}: ± {share:.0%}"
    else:
        share, what = 0.0, method
    tower = next((l.source for l in getattr(weights, "lines", ()) if l.item == "vision tower"
                  and l.source.startswith("vision tower not loaded")), "")
    if tower:
        what += f"; {tower}"
    off = cpu_offload(model, parallel, options, weights)
    if off is not None:  # the engine moves these to CPU memory before 'Load weight end' is measured
        params = params - min(off.offloaded, params)
        what += f"; less {off.describe()} (engines.offload: OffloaderV1.maybe_offload_to_cpu)"
    nominal, unc, source = params, Bytes(round(params.bytes * share)), f"weights per rank ({what})"
    if pad.bytes:  # the padded expert width SGLang allocates beyond the checkpoint's (engines.sglang.trtllm_moe)
        nominal, source = nominal + pad, f"{source}; {pad_source}"
    # w_kc / w_vc made from kv_b_proj by the post-load step; DeepSeek's DP-attention replicas (engines.sglang)
    for more, more_source in (mla_copies(model, parallel, options, gpu, weights),
                              dp_replicated(model, parallel, options, weights)):
        if more.bytes:
            nominal, source = nominal + more, f"{source}; + {more_source}"
    if gpu is not None:
        rope, rope_source = rotary_cache_bytes(model, gpu, options)
        extra = sglang_load_extra(at_least(options.engine_version, "0.5.8"))
        extra_nominal = extra.nominal if extra.nominal is not None else extra.bytes
        from tpkit.engines.sglang.streams import metadata_kernels  # taken before the load there: not in its extra
        moved = metadata_kernels(options.engine_version, world=parallel.tp * parallel.pp, vendor=gpu.vendor)
        extra_nominal = max(Bytes(0), extra_nominal - moved)
        nominal, unc = nominal + rope + extra_nominal, unc + extra.uncertainty
        source += (f"; + {rope_source}; + load allocations beyond them {format_bytes(extra_nominal)} ± "
                   f"{format_bytes(extra.uncertainty)} ({extra.source})")
    return nominal, unc, source


def mla_copies(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, gpu: GpuSpec | None,
               weights) -> tuple[Bytes, str]:
    """``engines.sglang.mla_copies.mla_weight_copies`` for a weights plan (CUDA's rule without a GPU)."""
    if model.mla is None:
        return Bytes(0), ""
    from tpkit.engines.sglang.mla_copies import mla_weight_copies

    return mla_weight_copies(model, parallel, version=options.engine_version,
                             vendor=gpu.vendor if gpu is not None else "NVIDIA", quantization=options.quantization,
                             weights=weights)


def dp_replicated(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, weights) -> tuple[Bytes, str]:
    """``engines.sglang.dp_replicated.dp_attention_replicated`` for a weights plan."""
    if not parallel.dp_attention:
        return Bytes(0), ""
    from tpkit.engines.sglang.dp_replicated import dp_attention_replicated

    return dp_attention_replicated(model, parallel, version=options.engine_version, weights=weights)


def trtllm_pad(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, gpu: GpuSpec | None,
               weights) -> tuple[Bytes, str]:
    """``engines.sglang.trtllm_moe.trtllm_moe_padding`` for a weights plan (its dtype's bytes); none without a GPU."""
    if gpu is None or model.moe is None or model.quant is not None or options.quantization:
        return Bytes(0), ""  # only unquantised experts are modelled: no import on the other paths
    from tpkit.dtypes import DTYPES
    from tpkit.engines.sglang.trtllm_moe import trtllm_moe_padding

    dtype = DTYPES.get(str(getattr(weights, "dtype", "bfloat16")))
    return trtllm_moe_padding(model, parallel, options, gpu, dtype.bytes if dtype else 2)


def weights_term(model: ModelSpec, parallel: ParallelSpec, options: SglangOptions, weights,
             gpu: GpuSpec | None = None) -> tuple[Bytes, str]:
    """SGLang's load usage per rank and its source (``load_usage``) as one estimated term ("weights", its ± the
    weights' share plus the extra's band), so a log's measured 'Load weight end. mem usage' replaces all of it."""
    if isinstance(weights, Bytes):
        return weights, "weights per rank, given by the caller"
    nominal, unc, source = load_usage(model, parallel, options, weights, gpu)
    measured = measured_term("weights")
    if measured is not None:  # tpkit plan --from-log: the log's 'Load weight end. mem usage' replaces all of it
        value = resolve(nominal, unc, term="weights", item="weights", source=source)[0]
        return value, (f"'Load weight end. mem usage', {measured[1]}: the free memory 'Load weight begin' − 'Load "
                       "weight end', which holds the weights, the rotary cache built at model init and what the load "
                       f"allocates beyond them (ModelRunner.load_model); planned {format_bytes(nominal)}: {source}")
    if not unc.bytes:
        return nominal, source
    return estimated(nominal, unc, term="weights", item="weights", source=source), source
