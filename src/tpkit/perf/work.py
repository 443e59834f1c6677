"""The work of one forward pass on one tensor-parallel rank, as a list of kernels (pure).

    in:  ModelSpec, a ``Shard`` (tp, ep, attention-TP), the batch (sequences, tokens per sequence,
         cached context), the implementation profile
    out: ``Kernel`` rows: kind, bytes moved, FLOPs, dtype, how many times per forward

Per decoder layer (shapes are per rank, the shard rules of ``tpkit.models.params``):

    gemm       fused qkv (MLA: fused q_a+kv_a, q_b, kv_b as two bmm), o; gate_up, down; shared experts;
               router.  bytes = weights (quantised: values + scales) + activations in/out (bf16);
               FLOPs = 2 · tokens · out · in
    grouped    routed experts: bytes = E[distinct experts hit] · bytes per expert (see ``experts``),
               FLOPs = 2 · tokens · k · expert size (÷ moe-TP, or the rank's share of tokens under EP)
    attention  GQA: K+V of the cached context (sliding layers: ≤ window) for the rank's KV heads;
               MLA: the whole latent (kv_lora + rope) per token on every rank; FLOPs 4 · tokens · ctx · heads · dim
    small      element-wise and norm kernels of the implementation profile; bytes = activation traffic
    global     embedding gather, final norm, lm_head (vocab / tp rows), sampling
"""

from __future__ import annotations

import dataclasses
import math

from tpkit.models.params import Part, global_parts, layer_parts
from tpkit.models.quant import is_quantised, matrix_bytes
from tpkit.models.spec import ModelSpec, QuantSpec
from tpkit.models.weights import local_shape
from tpkit.perf.experts import expected_distinct_experts
from tpkit.perf.impl import ImplProfile
from tpkit.perf.kernels import ACT_BYTES, GEMV_MAX_TOKENS, Batch, Kernel, Shard
from tpkit.perf.linear_state import linear_state_bytes
from tpkit.perf.mla_splits import partial_bytes
from tpkit.perf.triton_verify import nosplit_block_flops
from tpkit.records import dataclass

__all__ = ["forward_kernels", "weight_bytes_read", "ATTENTION_MODES"]

ATTENTION_MODES = ("decode", "extend_nosplit", "fa2_nosplit", "triton_nosplit", "mla_prefill", "decode_rows")
"""how a pass reads the KV cache: ``decode`` (the implementation's decode kernel), ``extend_nosplit`` (one block per
(sequence, query head), no KV split: SGLang's triton; ``fa2_nosplit``: FA2; ``triton_nosplit``: vLLM Triton, per KV
head: ``perf.fa2_verify``, ``perf.triton_verify``),
``mla_prefill`` (MLA through the prefill path: the cached latents are up-projected to per-head K/V every layer,
then a prefill attention without KV split: vLLM TRITON_MLA before 0.31), ``decode_rows`` (MLA decode with every
query token its own row that reads the whole cached latent: vLLM TRITON_MLA's verify, ``perf.mla_splits``)"""


def forward_kernels(spec: ModelSpec, shard: Shard, batch: Batch, impl: ImplProfile, *,
                    quant: QuantSpec | None = None, kv_bytes: int = 2, layers: range | None = None,
                    with_globals: bool = True, attention: str = "decode", kv_splits: int = 0) -> list[Kernel]:
    """Every kernel of one forward of ``batch`` through ``layers`` (default all) on one rank.

    ``attention`` is how the pass reads the KV cache (``ATTENTION_MODES``).  Layers with the same shape
    (attention kind, MoE or dense, quantised parts) are built once and counted.  ``kv_splits``: the KV splits of an
    MLA decode row whose fp32 partial outputs go through memory (``perf.mla_splits``; 0 = none charged).
    """
    if attention not in ATTENTION_MODES:
        raise ValueError(f"attention mode {attention!r} is not one of {ATTENTION_MODES}")
    kernels: list[Kernel] = []
    for i, count in _layer_classes(spec, shard, quant, layers):
        kernels += [_times(k, count) for k in _layer(spec, shard, batch, impl, quant, kv_bytes, i, attention,
                                                     kv_splits)]
    if with_globals:
        kernels += _globals(spec, shard, batch, impl, quant)
    return _merge(kernels)


def _times(k: Kernel, count: int) -> Kernel:
    return k if count == 1 else dataclasses.replace(k, count=k.count * count)


class _SpecCache:
    """Results per (model spec, quantisation, other arguments), keyed by the two objects' ids and returned only while
    the entry holds those very objects (an id is reused once its object is freed); emptied past ``limit`` entries."""

    __slots__ = ("limit", "entries")

    def __init__(self, limit: int):
        self.limit = limit
        self.entries: dict[tuple, tuple] = {}

    def get(self, spec, quant, rest: tuple, build):
        key = (id(spec), id(quant), *rest)
        hit = self.entries.get(key)
        if hit is not None and hit[0] is spec and hit[1] is quant:
            return hit[2]
        if len(self.entries) > self.limit:
            self.entries.clear()
        value = build()
        self.entries[key] = (spec, quant, value)
        return value


_CLASS_CACHE = _SpecCache(64)
"""(spec, quant, shard, layers) → classes"""


def _layer_classes(spec, shard, quant, layers) -> list[tuple[int, int]]:
    """(representative layer, how many layers share its shape); cached per model object."""
    rest = (shard, (layers.start, layers.stop) if layers is not None else None)
    return _CLASS_CACHE.get(spec, quant, rest, lambda: _classify(spec, shard, quant, layers))


def _classify(spec, shard, quant, layers) -> list[tuple[int, int]]:
    classes: dict[tuple, list[int]] = {}
    for i in layers if layers is not None else range(spec.num_layers):
        moe = spec.moe is not None and i in spec.moe.moe_layer_ids
        quantised = tuple(is_quantised(p, quant) for p in layer_parts(spec, i)) if quant is not None else ()
        classes.setdefault((spec.kinds[i], moe, quantised), []).append(i)
    return [(members[0], len(members)) for members in classes.values()]


def weight_bytes_read(spec: ModelSpec, shard: Shard, quant: QuantSpec | None, *, elem: int = 2) -> float:
    """Weight bytes on one rank when every expert is read (cross-check with ``plan_weights``)."""
    total = 0.0
    for i in range(spec.num_layers):
        for part in layer_parts(spec, i):
            out, inp, count = _local_shape(spec, shard, part)
            total += count * _part_bytes(part, out, inp, quant, elem)
    for part in global_parts(spec):
        out, inp, count = _local_shape(spec, shard, part)
        total += count * _part_bytes(part, out, inp, quant, elem)
    return total


# ------------------------------------------------------------------------------------------------ layers
def _layer(spec, shard, batch, impl, quant, kv_bytes, i, attention, kv_splits=0) -> list[Kernel]:
    static = _static_layer(spec, shard, quant, i)
    t = batch.tokens
    kind = spec.kinds[i]
    out = [g.kernel(t) for g in static.attn_gemms]
    out += _attention(spec, shard, batch, impl, kind, kv_bytes, attention, kv_splits)
    small = impl.attn_small_kernels + (impl.qk_norm_kernels if spec.extra.get("qk_norm") else 0)
    small += impl.mla_small_kernels if spec.mla is not None and kind != "linear" else 0
    out += [g.kernel(t) for g in static.mlp_gemms]
    if static.moe:
        out += [e.kernel(spec, shard, t) for e in static.experts]
        small += impl.moe_small_kernels
    else:
        small += impl.mlp_small_kernels
    out.append(Kernel(kind="small", name="element-wise/norm", bytes=_small_bytes(spec, shard, t, static.moe) / small,
                      count=small))
    return out


@dataclass(frozen=True, kw_only=True, slots=True)
class _Gemm:
    """One GEMM's batch-independent facts: weight bytes, FLOPs per token, widths."""

    name: str
    weight_bytes: float
    flops_per_token: float
    inp: int
    out: int
    dtype: str

    def kernel(self, tokens: int) -> Kernel:
        return Kernel(kind="gemm", name=self.name, dtype=self.dtype, flops=tokens * self.flops_per_token,
                      bytes=self.weight_bytes + ACT_BYTES * tokens * (self.inp + self.out),
                      latency_k=self.inp if tokens <= GEMV_MAX_TOKENS else 0)


@dataclass(frozen=True, kw_only=True, slots=True)
class _ExpertGemm:
    """One grouped expert GEMM: bytes and FLOPs of one expert on this rank."""

    group: str
    bytes_per_expert: float
    flops_per_assignment: float
    inp: int
    out: int
    dtype: str

    def kernel(self, spec, shard, tokens: int) -> Kernel:
        moe = spec.moe
        local = math.ceil(moe.num_experts / shard.ep)
        distinct = expected_distinct_experts(moe.num_experts, moe.experts_per_token, tokens, experts_on_rank=local)
        assignments = tokens * moe.experts_per_token / shard.ep
        act = ACT_BYTES * assignments * (self.inp + self.out)
        return Kernel(kind="grouped", name=f"routed experts {self.group} ({distinct:.1f} of {local} hit)",
                      dtype=self.dtype, bytes=distinct * self.bytes_per_expert + act,
                      flops=assignments * self.flops_per_assignment)


@dataclass(frozen=True, kw_only=True, slots=True)
class _StaticLayer:
    attn_gemms: tuple
    mlp_gemms: tuple
    experts: tuple
    moe: bool


_STATIC_CACHE = _SpecCache(4096)
"""(spec, quant, shard, layer) → _StaticLayer"""


def _static_layer(spec, shard, quant, i) -> _StaticLayer:
    return _STATIC_CACHE.get(spec, quant, (shard, i), lambda: _build_static_layer(spec, shard, quant, i))


def _build_static_layer(spec, shard, quant, i) -> _StaticLayer:
    parts = layer_parts(spec, i)
    attn_cat = "linear_attention" if spec.kinds[i] == "linear" else "attention"
    moe = spec.moe is not None and i in spec.moe.moe_layer_ids
    attn = _gemms(spec, shard, quant, [p for p in parts if p.category == attn_cat and p.linear], _attn_groups(spec))
    if moe:
        mlp = _gemms(spec, shard, quant, [p for p in parts if p.category in ("router", "shared_experts") and p.inp > 1],
                     _MLP_GROUPS)
        experts = _experts(spec, shard, quant, [p for p in parts if p.category == "routed_experts" and p.linear])
    else:
        mlp = _gemms(spec, shard, quant, [p for p in parts if p.category == "dense_mlp"], _MLP_GROUPS)
        experts = ()
    return _StaticLayer(attn_gemms=attn, mlp_gemms=mlp, experts=experts, moe=moe)


_MLP_GROUPS = {"gate_proj": "gate_up", "up_proj": "gate_up", "down_proj": "down", "gate": "router"}


def _attn_groups(spec: ModelSpec) -> dict[str, str]:
    if spec.mla is not None:
        return {"q_a_proj": "qkv_a", "kv_a_proj_with_mqa": "qkv_a", "q_proj": "q", "q_b_proj": "q_b",
                "kv_b_proj": "kv_b (absorbed bmm)", "o_proj": "o"}
    return {"q_proj": "qkv", "k_proj": "qkv", "v_proj": "qkv", "o_proj": "o"}


def _gemms(spec, shard, quant, parts: list[Part], groups: dict[str, str]) -> tuple[_Gemm, ...]:
    """Group matrices that share an input into one GEMM each (fused qkv, gate_up …)."""
    acc: dict[str, list] = {}
    for part in parts:
        leaf = part.name.rsplit(".", 1)[-1]
        name = groups.get(leaf, leaf)
        out, inp, count = _local_shape(spec, shard, part)
        row = acc.setdefault(f"{part.category}:{name}", [0.0, 0.0, 0, 0, "bf16"])
        row[0] += count * _part_bytes(part, out, inp, quant, 2)
        row[1] += 2.0 * out * inp * count
        row[2] = max(row[2], inp)
        row[3] += out
        if is_quantised(part, quant):
            row[4] = _compute_dtype(quant)
    return tuple(_Gemm(name=key.split(":", 1)[1], weight_bytes=w, flops_per_token=f, inp=inp, out=outs, dtype=dt)
                 for key, (w, f, inp, outs, dt) in acc.items())


def _experts(spec, shard, quant, parts: list[Part]) -> tuple[_ExpertGemm, ...]:
    """Two grouped GEMMs (gate_up, down) over the experts the batch hits."""
    rows = []
    for group, leaves in (("gate_up", ("gate_proj", "up_proj")), ("down", ("down_proj",))):
        per_expert = flops = 0.0
        inp = out_sum = 0
        dtype = "bf16"
        for part in parts:
            if part.name.rsplit(".", 1)[-1] not in leaves:
                continue
            out, width, _ = _local_shape(spec, shard, part)
            per_expert += _part_bytes(part, out, width, quant, 2)
            flops += 2.0 * out * width
            inp, out_sum = width, out_sum + out
            if is_quantised(part, quant):
                dtype = _compute_dtype(quant)
        rows.append(_ExpertGemm(group=group, bytes_per_expert=per_expert, flops_per_assignment=flops, inp=inp,
                                out=out_sum, dtype=dtype))
    return tuple(rows)


def _attention(spec, shard, batch, impl, kind, kv_bytes, mode="decode", kv_splits=0) -> list[Kernel]:
    seqs = math.ceil(batch.sequences / batch.dp)
    t = seqs * batch.tokens_per_sequence
    if kind == "none":  # NemotronH MLP / MoE layer: no attention mixer
        return []
    if kind == "linear":  # the recurrent state read and written; a verify keeps one per token (perf.linear_state)
        return [Kernel(kind="small", name="linear-attention state",
                       bytes=linear_state_bytes(spec, shard, batch, impl.name, seqs, impl.release))]
    ctx = batch.context + batch.tokens_per_sequence
    if kind == "sliding" and spec.sliding_window:
        ctx = min(ctx, spec.sliding_window)
    heads = max(1, spec.num_attention_heads // shard.attention_tp)
    partials = 0.0
    if spec.mla is not None and spec.dsa is not None and mode != "mla_prefill":
        return _dsa_attention(spec, seqs, t, ctx, heads, kv_bytes)
    if spec.mla is not None and mode == "mla_prefill":
        return _mla_prefill_path(spec.mla, seqs, t, ctx, heads, kv_bytes)
    if spec.mla is not None:
        m = spec.mla
        per_token = (m.kv_lora_rank + m.qk_rope_head_dim) * kv_bytes
        flops = 2.0 * t * ctx * heads * (2 * m.kv_lora_rank + m.qk_rope_head_dim)
        ctas, cta_row = seqs * heads, per_token  # V is the latent's first kv_lora columns: same cache lines
        if mode in ("decode", "decode_rows") and kv_splits:  # stage-1 partials written, read back (mla_splits)
            partials = partial_bytes(t, heads, kv_splits, m.kv_lora_rank)
    else:
        kv_heads = max(1, spec.num_kv_heads // shard.attention_tp)
        per_token = 2 * kv_heads * spec.head_dim * kv_bytes
        flops = 4.0 * t * ctx * heads * spec.head_dim
        ctas, cta_row = seqs * kv_heads, 2 * spec.head_dim * kv_bytes
    rows = t if mode == "decode_rows" and spec.mla is not None else seqs   # perf.mla_splits: a read per row
    total = float(rows * ctx * per_token)
    if mode in ("extend_nosplit", "fa2_nosplit", "triton_nosplit"):  # one block per (sequence, query head or KV
        return [Kernel(kind="attention", name="attention (verify, no KV split)", bytes=total, flops=flops,  # head)
                       cta_bytes=float(ctx * cta_row), cta_row_bytes=float(cta_row),  # streams the whole cache
                       cta_flops=nosplit_block_flops(mode, ctx, spec.head_dim, spec.num_attention_heads, spec.num_kv_heads))]
    if mode == "mla_prefill" or impl.split_kv:  # partials: 0 except for a split MLA decode (perf.mla_splits)
        return [Kernel(kind="attention", name="attention", bytes=total + partials, flops=flops,
                       row_bytes=float(ctx * per_token) if partials else 0.0)]
    return [Kernel(kind="attention", name="attention", bytes=total + partials, flops=flops, cta_bytes=total / ctas)]


def _dsa_attention(spec: ModelSpec, seqs: int, t: int, ctx: int, heads: int, kv_bytes: int) -> list[Kernel]:
    """DeepSeek sparse attention (DSA) in one layer: the lightning indexer scores every cached token for each query
    token, a top-k keeps ``index_topk`` of them, and MLA attends decode-style (MQA over the latents) to those only.

    indexer   reads each sequence's cached index keys once (fp8 ``index_head_dim`` + one fp32 scale per 128: the
              layout of vLLM ``DeepseekV32IndexerCache`` / SGLang's NSA pool; ``index_kpool`` keys per row), writes
              the fp32 logits of every query token over the context and reads them back for the top-k
              (vllm 0.20.2 v1/attention/backends/mla/indexer.py + model_executor/models/deepseek_v2.py ``Indexer``:
              ``fp8_paged_mqa_logits`` then ``top_k_per_row_decode``; the verify's 1 + k tokens of a request
              share one read of its keys, ``next_n``); FLOPs 2 · tokens · rows · index heads · index dim at fp8;
              layers that reuse another layer's top-k (``shared_indexer_layers``) scan nothing (charged as a
              share of the layers)
    attention reads min(context, index_topk) latents per sequence (the verify's other query tokens pick mostly the
              same rows; repeated reads of one request's cache are not charged, as for the dense kernels);
              FLOPs per query token over its top-k"""
    d, m = spec.dsa, spec.mla
    rows = -(-ctx // max(1, d.index_kpool))
    own = 1.0 - d.shared_indexer_layers / max(1, spec.num_layers)
    key_bytes = d.index_head_dim + d.index_head_dim // 128 * 4
    indexer = Kernel(kind="attention", name="DSA indexer (logits over the context + top-k)", dtype="fp8",
                     bytes=own * (seqs * rows * key_bytes + 2.0 * 4 * t * rows),
                     flops=own * 2.0 * t * rows * d.index_n_heads * d.index_head_dim)
    picked = min(ctx, d.index_topk)
    per_token = (m.kv_lora_rank + m.qk_rope_head_dim) * kv_bytes
    attn = Kernel(kind="attention", name=f"sparse MLA attention (top {picked} latents)",
                  bytes=float(seqs * picked * per_token),
                  flops=2.0 * t * picked * heads * (2 * m.kv_lora_rank + m.qk_rope_head_dim))
    return [indexer, attn]


def _mla_prefill_path(m, seqs: int, t: int, ctx: int, heads: int, kv_bytes: int) -> list[Kernel]:
    """MLA through the prefill path (vLLM ``_compute_prefill_context``): gather the cached latents, up-project
    them with kv_b_proj into per-head K_nope and V for the whole context, concatenate K with the rope part,
    then a prefill attention (FlashAttention varlen: one block per (sequence, head), no KV split) and a merge
    with the new tokens' attention."""
    lora, rope, nope, v = m.kv_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim
    n = float(seqs * ctx)
    out = [Kernel(kind="small", name="MLA prefill path: gather latents", bytes=n * (lora + rope) * (kv_bytes + ACT_BYTES)),
           Kernel(kind="gemm", name="MLA prefill path: kv_b_proj over the context",
                  bytes=ACT_BYTES * (n * (lora + heads * (nope + v)) + heads * (nope + v) * lora),
                  flops=2.0 * n * lora * heads * (nope + v)),
           Kernel(kind="small", name="MLA prefill path: concat K", bytes=ACT_BYTES * n * heads * (2 * nope + 2 * rope)),
           Kernel(kind="attention", name="MLA prefill path: attention on up-projected K/V (no KV split)",
                  bytes=ACT_BYTES * n * heads * (nope + rope + v), flops=2.0 * t * ctx * heads * (nope + rope + v),
                  cta_bytes=ACT_BYTES * ctx * (nope + rope + v), cta_row_bytes=ACT_BYTES * (nope + rope + v)),
           Kernel(kind="small", name="MLA prefill path: merge states", bytes=4.0 * t * heads * (v + 1))]
    return out


def _small_bytes(spec, shard, tokens, moe_layer: bool) -> float:
    """Activation traffic of the element-wise kernels of one layer (bf16): residual adds and norms read and
    write ~8 hidden-wide rows per token, rope/KV store ~4 q+kv rows, the activation 3 intermediate rows."""
    tp = shard.attention_tp
    q = spec.num_attention_heads * spec.head_dim // tp
    kv = 2 * max(1, spec.num_kv_heads // tp) * spec.head_dim
    if moe_layer:
        k = spec.moe.experts_per_token
        inter = 3 * k * spec.moe.moe_intermediate_size // max(1, shard.tp // shard.ep) + 3 * k * spec.hidden_size
    else:
        inter = 3 * spec.intermediate_size // shard.tp
    return ACT_BYTES * tokens * (8 * spec.hidden_size + 4 * (q + kv) + inter)


def _globals(spec, shard, batch, impl, quant) -> list[Kernel]:
    t = batch.tokens
    out = [Kernel(kind="small", name="embedding gather", bytes=ACT_BYTES * 2.0 * t * spec.hidden_size)]
    heads = [p for p in global_parts(spec) if p.category == "lm_head"] or \
        [Part(name="lm_head", category="lm_head", out=spec.vocab_size, inp=spec.hidden_size, shard="vocab")]
    rows = batch.logit_tokens
    out += [g.kernel(rows) for g in _gemms(spec, shard, quant, heads, {"lm_head": "lm_head"})]
    vocab_local = _local_shape(spec, shard, heads[0])[0]
    out.append(Kernel(kind="small", name="final norm + sampling", count=impl.global_small_kernels,
                      bytes=(ACT_BYTES * 2.0 * t * spec.hidden_size + 4.0 * rows * vocab_local) / impl.global_small_kernels))
    return out


# ------------------------------------------------------------------------------------------------ shapes
def _local_shape(spec: ModelSpec, shard: Shard, part: Part) -> tuple[int, int, int]:
    """(rows, cols, count) of ``part`` on one rank: ``tpkit.models.weights.local_shape``, the memory plan's rules."""
    return local_shape(spec, part, tp=shard.tp, attn_tp=shard.attention_tp, ep=shard.ep)


def _part_bytes(part: Part, out: int, inp: int, quant: QuantSpec | None, elem: int) -> float:
    if is_quantised(part, quant):
        return float(matrix_bytes(out, inp, quant))
    return float(out * inp * elem)


def _compute_dtype(quant: QuantSpec) -> str:
    """Tensor-core input type of a quantised GEMM: fp8 W8A8 runs at the fp8 rate; weight-only int4/mxfp4
    (Marlin, W4A16) dequantise to bf16; nvfp4 (W4A4) runs at the fp4 rate."""
    if quant.method in ("fp8", "fbgemm_fp8"):
        return "fp8"
    if quant.method == "fp4":
        return "fp4"
    return "bf16"


def _merge(kernels: list[Kernel]) -> list[Kernel]:
    """Identical kernels of different layers become one row with a count."""
    rows: dict[tuple, Kernel] = {}
    for k in kernels:
        key = (k.kind, k.name, round(k.bytes, 3), round(k.flops, 3), k.dtype, round(k.cta_bytes, 3), k.latency_k,
               k.bw_fraction, round(k.row_bytes, 3))
        prev = rows.get(key)
        rows[key] = k if prev is None else dataclasses.replace(k, count=prev.count + k.count)
    return list(rows.values())
