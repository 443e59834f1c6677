"""DeepSeek-V4 (``model_type`` ``deepseek_v4``) weight bytes per rank, derived from the config (pure).

    in:  ModelSpec (``extra`` carries the V4 fields), ParallelSpec, engine, the unquantised dtype, the QuantSpec
    out: ``WeightsPlan`` (lines: embedding, attention, compressors + indexer, hyper-connections, norms, router,
         shared experts, routed experts, quant scales, lm_head, mtp/nextn)

What one rank holds (facts read in vLLM 0.23.0 ``vllm/models/deepseek_v4/`` — ``attention.py``
``DeepseekV4Attention.__init__`` / ``DeepseekV4Indexer.__init__``, ``compressor.py`` ``DeepseekCompressor.__init__``,
``nvidia/model.py`` ``DeepseekV4MoE`` / ``DeepseekV4DecoderLayer`` / ``DeepseekV4Model`` / ``DeepseekV4ForCausalLM``,
``quant_config.py`` ``DeepseekV4FP8Config``, ``layers/quantization/mxfp4.py`` ``Mxfp4MoEMethod.create_weights`` —
and SGLang 0.5.12 ``srt/models/deepseek_v4.py`` ``MQALayer`` / ``DeepseekV4DecoderLayer`` / ``DeepseekV4Model``,
``srt/layers/attention/dsv4/compressor.py`` ``Compressor``, ``dsv4/indexer.py`` ``C4Indexer``,
``srt/layers/quantization/fp8.py`` ``Fp8MoEMethod.create_weights`` (``is_fp4_expert``), ``configs/model_config.py``
(``is_fp4_experts``, ``SGLANG_DSV4_FP4_EXPERTS`` default True)):

  - attention, per layer: q_a + kv (``q_lora_rank + head_dim`` × hidden, replicated), ``wq_b`` (``heads·head_dim`` ×
    q_lora, column split), the grouped output ``wo_a`` (``o_groups·o_lora_rank`` × ``heads·head_dim/o_groups``,
    column split) and ``wo_b`` (hidden × ``o_groups·o_lora_rank``, row split): FP8 block-quantised (SGLang's
    ``SGLANG_OPT_FP8_WO_A_GEMM`` defaults on); the single KV head is part of the replicated q_a/kv matrix;
    ``attn_sink`` (heads, fp32), ``q_norm`` / ``kv_norm``.
  - a compressor where ``compress_ratios[i]`` > 0: ``wkv_gate`` (``2·coff·head_dim`` × hidden, coff = 2 at ratio 4,
    else 1), unquantised bf16, replicated; ``ape`` (ratio × ``coff·head_dim``, fp32); a norm.  Ratio-4 layers add
    the indexer: ``wq_b`` (``index_n_heads·index_head_dim`` × q_lora, FP8, replicated), ``weights_proj``
    (``index_n_heads`` × hidden, bf16) and its own compressor of ``index_head_dim`` (coff 2).
  - hyper-connections: ``hc_attn_fn`` / ``hc_ffn_fn`` (``(2+hc_mult)·hc_mult`` × ``hc_mult·hidden``, fp32) with
    their bases and scales per layer; ``hc_head_*`` once (fp32).
  - MoE: the router (E × hidden, bf16, replicated), ``e_score_correction_bias`` (E, fp32) on non-hash layers,
    ``tid2eid`` (vocab × top-k, int32) on the first ``num_hash_layers`` layers; one shared expert (FP8, split over
    TP, never fused in SGLang: ``determine_num_fused_shared_experts``); routed experts split like any MoE
    (``models.weights.local_shape``).  Expert storage follows ``expert_dtype`` (vLLM ``DeepseekV4FP8Config``:
    default "fp4"; SGLang detects it from the checkpoint, default FP4): MXFP4 values (½ B) with one scale per 32 —
    uint8 (e8m0) in vLLM, fp32 in SGLang 0.5.12 as allocated; ``expert_dtype`` "fp8": FP8 block experts.
  - embedding and lm_head unquantised, split over TP (SGLang under DP attention keeps the embedding whole:
    ``enable_tp=not is_dp_attention_enabled()``); the final norm.
  - FP8 linear scales: one per 128 × 128 block (``weight_block_size`` [128, 128] of DeepSeek's FP8 checkpoints);
    vLLM stores them as e8m0 (1 B) for FP4-expert checkpoints (``is_scale_e8m0``), else fp32; SGLang fp32.
  - the MTP layer (``num_nextn_predict_layers``) is loaded only by MTP speculative decoding: a 0-byte line.

The FP8/FP4 mix applies when the plan is quantised (the checkpoint's ``quantization_config`` or
``--quantization deepseek_v4_fp8`` / ``fp8``); without either every matrix is planned in the unquantised dtype.
"""

from __future__ import annotations

import math

from tpkit.dtypes import DTYPES
from tpkit.models.layout import stage_layers
from tpkit.models.params import Part
from tpkit.models.spec import ModelSpec, QuantSpec
from tpkit.models.weights_plan import WeightLine, WeightsPlan
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["is_dsv4", "dsv4_weights", "dsv4_mtp_weights", "FP8_BLOCK", "MX_GROUP"]

FP8_BLOCK = 128
"""FP8 block edge (DeepSeek checkpoints' ``weight_block_size`` [128, 128]; vLLM's indexer ``quant_block_size``)"""
MX_GROUP = 32
"""FP4 experts: elements per scale (vLLM ``Mxfp4MoEMethod`` ``mxfp4_block``; SGLang ``fp4_block_k``)"""


def is_dsv4(spec: ModelSpec) -> bool:
    """Whether ``spec`` is DeepSeek-V4 (``model_type`` deepseek_v4)."""
    return spec.model_type == "deepseek_v4"


def _cfg(spec: ModelSpec, key: str, default=None):
    value = spec.extra.get(key, default)
    return default if value is None else value


def _layer(spec: ModelSpec, i: int, engine: str | None) -> list[tuple[Part, str]]:
    """(part, storage) of decoder layer ``i``; storage: fp8, fp4x (experts), bf16 (the unquantised dtype), fp32, i32."""
    h, hd = spec.hidden_size, spec.head_dim
    heads = spec.num_attention_heads
    q_lora = int(_cfg(spec, "q_lora_rank"))
    groups, o_rank = int(_cfg(spec, "o_groups")), int(_cfg(spec, "o_lora_rank"))
    hc = int(_cfg(spec, "hc_mult", 1))
    ratios = _cfg(spec, "compress_ratios", [])
    ratio = ratios[i] if i < len(ratios) else 0
    pre = f"model.layers.{i}"
    a = f"{pre}.attn"
    parts = [
        (Part(name=f"{a}.wqkv_a", category="attention", out=q_lora + hd, inp=h, linear=True), "fp8"),
        (Part(name=f"{a}.wq_b", category="attention", out=heads * hd, inp=q_lora, shard="col", linear=True), "fp8"),
        (Part(name=f"{a}.wo_a", category="attention", out=groups * o_rank, inp=heads * hd // groups, shard="col",
              linear=True), "fp8"),
        (Part(name=f"{a}.wo_b", category="attention", out=h, inp=groups * o_rank, shard="row", linear=True), "fp8"),
        (Part(name=f"{a}.attn_sink", category="attention", out=heads), "fp32"),
        (Part(name=f"{a}.q_norm", category="norms", out=q_lora), "bf16"),
        (Part(name=f"{a}.kv_norm", category="norms", out=hd), "bf16"),
        (Part(name=f"{pre}.attn_norm", category="norms", out=h), "bf16"),
        (Part(name=f"{pre}.ffn_norm", category="norms", out=h), "bf16"),
    ]
    norm = "fp32" if engine == "sglang" else "bf16"  # SGLang's compressor norm: weight_dtype=torch.float32
    if ratio:
        parts += _compressor(f"{a}.compressor", h, hd, ratio, norm)
    if ratio == 4:
        n, d = int(_cfg(spec, "index_n_heads")), int(_cfg(spec, "index_head_dim"))
        parts += [(Part(name=f"{a}.indexer.wq_b", category="compressor", out=n * d, inp=q_lora, linear=True), "fp8"),
                  (Part(name=f"{a}.indexer.weights_proj", category="compressor", out=n, inp=h), "bf16")]
        parts += _compressor(f"{a}.indexer.compressor", h, d, ratio, norm)
    mix = (2 + hc) * hc
    parts += [(Part(name=f"{pre}.hc_fn", category="hyper", out=mix, inp=hc * h, count=2), "fp32"),
              (Part(name=f"{pre}.hc_base", category="hyper", out=mix, count=2), "fp32"),
              (Part(name=f"{pre}.hc_scale", category="hyper", out=3, count=2), "fp32")]
    m = spec.moe
    f = pre + ".ffn"
    parts.append((Part(name=f"{f}.gate", category="router", out=m.num_experts, inp=h), "bf16"))
    if i < int(_cfg(spec, "num_hash_layers", 0)):
        parts.append((Part(name=f"{f}.gate.tid2eid", category="router", out=spec.vocab_size,
                           inp=m.experts_per_token), "i32"))
    else:
        parts.append((Part(name=f"{f}.gate.bias", category="router", out=m.num_experts), "fp32"))
    width = m.moe_intermediate_size * max(1, m.num_shared_experts)
    if m.num_shared_experts:
        parts += [(Part(name=f"{f}.shared_experts.gate_up", category="shared_experts", out=2 * width, inp=h,
                        shard="col", linear=True), "fp8"),
                  (Part(name=f"{f}.shared_experts.down", category="shared_experts", out=h, inp=width, shard="row",
                        linear=True), "fp8")]
    expert = "fp8" if _cfg(spec, "expert_dtype", "fp4") == "fp8" else "fp4x"
    e, mi = m.num_experts, m.moe_intermediate_size
    parts += [(Part(name=f"{f}.experts.w13", category="routed_experts", out=2 * mi, inp=h, count=e, shard="ecol",
                    linear=True), expert),
              (Part(name=f"{f}.experts.w2", category="routed_experts", out=h, inp=mi, count=e, shard="erow",
                    linear=True), expert)]
    return parts


def _compressor(name: str, h: int, head_dim: int, ratio: int, norm: str) -> list[tuple[Part, str]]:
    coff = 2 if ratio == 4 else 1
    return [(Part(name=f"{name}.wkv_gate", category="compressor", out=2 * coff * head_dim, inp=h), "bf16"),
            (Part(name=f"{name}.ape", category="compressor", out=ratio, inp=coff * head_dim), "fp32"),
            (Part(name=f"{name}.norm", category="norms", out=head_dim), norm)]


def _globals(spec: ModelSpec, first: bool, last: bool) -> list[tuple[Part, str]]:
    h, hc = spec.hidden_size, int(_cfg(spec, "hc_mult", 1))
    parts = []
    if first:
        parts.append((Part(name="model.embed_tokens", category="embedding", out=spec.vocab_size, inp=h,
                           shard="vocab"), "bf16"))
    if last:
        parts += [(Part(name="model.norm", category="norms", out=h), "bf16"),
                  (Part(name="model.hc_head_fn", category="hyper", out=hc, inp=hc * h), "fp32"),
                  (Part(name="model.hc_head_base", category="hyper", out=hc + 1), "fp32"),
                  (Part(name="lm_head", category="lm_head", out=spec.vocab_size, inp=h, shard="vocab"), "bf16")]
    return parts


_ITEMS = {"embedding": "embedding", "attention": "attention (q/kv/o, FP8)",
          "compressor": "compressors + indexer", "hyper": "hyper-connections (fp32)", "norms": "norms",
          "router": "router (+ hash tables)", "shared_experts": "shared experts", "routed_experts": "routed experts",
          "lm_head": "lm_head"}


def _sizes(storage: str, out: int, inp: int, quant: QuantSpec | None, engine: str | None, elem: str,
           fp4_experts: bool) -> tuple[int, int]:
    """(value bytes, scale bytes) of one ``out × inp`` tensor stored as ``storage``."""
    n = out * inp
    if storage == "fp32" or storage == "i32":
        return 4 * n, 0
    if quant is None or storage == "bf16":
        return DTYPES[elem].bytes * n, 0
    if storage == "fp4x":
        return math.ceil(n / 2), out * math.ceil(inp / MX_GROUP) * (4 if engine == "sglang" else 1)
    scale = 1 if engine != "sglang" and fp4_experts else 4  # vLLM DeepseekV4FP8Config.is_scale_e8m0
    return n, math.ceil(out / FP8_BLOCK) * math.ceil(inp / FP8_BLOCK) * scale


def _add(spec, par, parts, quant, engine, elem, sums, times: int = 1, *, shape) -> None:
    fp4 = _cfg(spec, "expert_dtype", "fp4") != "fp8"
    for part, storage in parts:
        out, inp, count = shape(spec, part, tp=par.tp, attn_tp=par.attn_tp, ep=par.ep,
                                      expert_tp=par.expert_tp)
        if engine == "sglang" and part.category == "embedding" and par.attn_tp < par.tp:
            out, inp, count = spec.vocab_size, part.inp, 1  # DP attention: enable_tp=False, the whole table
        values, scales = _sizes(storage, out, inp, quant, engine, elem, fp4)
        row = sums.setdefault(part.category, [0, 0])
        row[0] += times * count * out * inp
        row[1] += times * count * values
        if scales:
            sums.setdefault("quant scales", [0, 0])[1] += times * count * scales


def _stage(spec, par, stage, quant, engine, elem, pp_split, shape) -> dict[str, list[int]]:
    sums: dict[str, list[int]] = {}
    for i in stage_layers(spec.num_layers, par.pp, stage, pp_split):
        _add(spec, par, _layer(spec, i, engine), quant, engine, elem, sums, shape=shape)
    _add(spec, par, _globals(spec, stage == 0, stage == par.pp - 1), quant, engine, elem, sums, shape=shape)
    return sums


def dsv4_weights(spec: ModelSpec, par: ParallelSpec, *, elem: str, quant: QuantSpec | None,
                 engine: str | None, pp_split: str, shape) -> WeightsPlan:
    """Weight bytes on the fullest rank of a DeepSeek-V4 model (module docstring); ``shape`` is
    ``tpkit.models.weights.local_shape`` (the one home of the TP / EP shard rules, passed in to keep the import
    one-way)."""
    stages = [_stage(spec, par, s, quant, engine, elem, pp_split, shape) for s in range(par.pp)]
    best = max(range(par.pp), key=lambda s: sum(b for _, b in stages[s].values()))
    lines = [WeightLine(item=_ITEMS[c], bytes=Bytes(b), params=n, source=_source(c, spec, par, quant, engine))
             for c, (n, b) in stages[best].items() if c != "quant scales"]
    if "quant scales" in stages[best]:
        lines.append(WeightLine(item="quant scales", bytes=Bytes(stages[best]["quant scales"][1]),
                                source=_scale_text(spec, quant, engine)))
    mtp = spec.num_nextn_layers
    if mtp:
        lines.append(WeightLine(item="mtp/nextn layers", bytes=Bytes(0),
                                source=f"{mtp} nextn layer(s): not loaded unless MTP speculative decoding is on"))
    whole_par = ParallelSpec()
    whole = _stage(spec, whole_par, 0, quant, engine, elem, pp_split, shape)
    mtp_sums: dict[str, list[int]] = {}
    if mtp:
        _add(spec, whole_par, _layer(spec, spec.num_layers, engine), quant, engine, elem, mtp_sums, mtp, shape=shape)
    notes = tuple(spec.assumptions)
    if quant is None:
        notes += ("DeepSeek-V4 planned without quantisation: the released checkpoint stores FP8 linears and FP4 "
                  "experts; pass its config.json with quantization_config, or --quantization deepseek_v4_fp8",)
    return WeightsPlan(bytes_per_rank=sum((l.bytes for l in lines), Bytes(0)), lines=tuple(lines),
                       total_bytes=Bytes(sum(b for _, b in whole.values())), method="derived from config",
                       dtype=elem, quant=quant, stage=best, notes=notes,
                       mtp_bytes=Bytes(sum(b for _, b in mtp_sums.values())), pp_split=pp_split)


def _source(category: str, spec: ModelSpec, par: ParallelSpec, quant, engine) -> str:
    q = quant is not None
    fp8 = "FP8" if q else "unquantised"
    experts = ("FP8" if _cfg(spec, "expert_dtype", "fp4") == "fp8" else "MXFP4") if q else "unquantised"
    text = {
        "embedding": "vocab × hidden, split over TP" + (" (whole on each rank: SGLang DP attention)"
                                                       if engine == "sglang" and par.attn_tp < par.tp else ""),
        "attention": f"q_a+kv replicated; wq_b, wo_a ({_cfg(spec, 'o_groups')} groups × o_lora "
                     f"{_cfg(spec, 'o_lora_rank')}) and wo_b split over attention TP {par.attn_tp}; {fp8}",
        "compressor": "compressor wkv_gate (bf16) + ape (fp32) per compressed layer; ratio-4 layers' indexer "
                      f"(wq_b {fp8}, weights_proj, its compressor); replicated",
        "hyper": f"hc_mult {_cfg(spec, 'hc_mult')}: hc_attn/ffn fn, base, scale per layer and hc_head, fp32",
        "norms": "RMSNorm weights, replicated",
        "router": f"gate E × hidden (bf16) + bias; tid2eid (vocab × top-k, int32) on the first "
                  f"{_cfg(spec, 'num_hash_layers', 0)} hash layers",
        "shared_experts": f"shared expert split over TP {par.tp}; {fp8}",
        "routed_experts": f"ceil(E/ep {par.ep}) experts × (w13 + w2) / {max(1, (par.expert_tp or par.tp) // par.ep)}"
                          f" per layer; {experts}",
        "lm_head": "vocab × hidden, split over TP, unquantised",
    }[category]
    return f"DeepSeek-V4: {text}"


def _scale_text(spec: ModelSpec, quant, engine) -> str:
    fp4 = _cfg(spec, "expert_dtype", "fp4") != "fp8"
    lin = 1 if engine != "sglang" and fp4 else 4
    ex = f"; FP4 experts: one {4 if engine == 'sglang' else 1} B scale per {MX_GROUP}" if fp4 else ""
    return f"FP8 linears: one {lin} B scale per {FP8_BLOCK}×{FP8_BLOCK} block{ex}"


def _mtp_parts(spec: ModelSpec, i: int, engine: str | None) -> list[tuple[Part, str]]:
    """(part, storage) of vLLM's MTP layer ``i`` (``DeepSeekV4MultiTokenPredictorLayer``, vLLM 0.20.0
    ``model_executor/models/deepseek_v4_mtp.py``, 0.23.0 – 0.25.0 ``models/deepseek_v4/nvidia/mtp.py``): one
    ``DeepseekV4DecoderLayer`` (compress ratio 1 past ``num_hidden_layers``: no compressor, no indexer), the FP8
    ``e_proj`` / ``h_proj`` (hidden × hidden, ``ReplicatedLinear`` with the model's quant config), ``enorm`` /
    ``hnorm``, its own ``hc_head_fn`` / ``hc_head_base`` / ``hc_head_scale`` (fp32) and ``shared_head.norm``; its
    embedding and ``shared_head.head`` are the target's (``llm_base_proposer.py _maybe_share_embeddings /
    _maybe_share_lm_head``)."""
    h, hc = spec.hidden_size, int(_cfg(spec, "hc_mult", 1))
    pre = f"model.layers.{i}"
    return _layer(spec, i, engine) + [
        (Part(name=f"{pre}.e_proj", category="attention", out=h, inp=h, linear=True), "fp8"),
        (Part(name=f"{pre}.h_proj", category="attention", out=h, inp=h, linear=True), "fp8"),
        (Part(name=f"{pre}.enorm", category="norms", out=h, count=2), "bf16"),
        (Part(name=f"{pre}.hc_head_fn", category="hyper", out=hc, inp=hc * h), "fp32"),
        (Part(name=f"{pre}.hc_head_base", category="hyper", out=hc + 1), "fp32"),
        (Part(name=f"{pre}.shared_head.norm", category="norms", out=h), "bf16"),
    ]


def dsv4_mtp_weights(spec: ModelSpec, par: ParallelSpec, *, layers: int, elem: str, quant: QuantSpec | None,
                     engine: str | None, shape) -> Bytes:
    """Bytes one rank holds for ``layers`` MTP layers of a DeepSeek-V4 model loaded as vLLM's MTP drafter
    (``_mtp_parts``), sharded and quantised as the target's layers (``_layer``: FP8 linears, FP4 experts)."""
    sums: dict[str, list[int]] = {}
    for i in range(spec.num_layers, spec.num_layers + layers):
        _add(spec, par, _mtp_parts(spec, i, engine), quant, engine, elem, sums, shape=shape)
    return Bytes(sum(b for _, b in sums.values()))
