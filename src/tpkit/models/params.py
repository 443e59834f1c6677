"""The weight tensors of a decoder, derived from ``ModelSpec`` (element counts, no bytes yet).

    in:  ModelSpec
    out: ``Part`` lists: per decoder layer (``layer_parts``) and model-wide (``global_parts``)

A ``Part`` is one weight matrix (``out × inp``) or vector (``inp == 1``), ``count`` times (experts),
with the rule that shards it over tensor-parallel ranks:

    rep      replicated on every rank (norms, routers, MLA down-projections, row-parallel biases)
    col      output dim / tp       (q/gate/up projections, column-parallel biases)
    row      input dim / tp        (o/down projections)
    kv       k/v heads: max(1, kv_heads // tp) heads per rank (replicated when tp > kv_heads)
    vocab    vocab padded to 64 (to 64·tp when not divisible) / tp (VocabParallelEmbedding)
    ecol     routed experts: ceil(E/ep) experts per rank, output dim / max(1, tp // ep)
    erow     routed experts: ceil(E/ep) experts per rank, input dim / max(1, tp // ep)
    erep     routed experts: ceil(E/ep) per rank, not split by tp (expert down-proj biases)

Layouts: Llama/Qwen/Mistral/Gemma (GQA), GPT-2 / OPT (LayerNorm biases, learned positions, two-matrix MLP), gpt-oss
(biases, sinks, router bias), DeepSeek/Kimi MLA, Kimi Delta Attention (linear layers of Kimi-Linear), Gated DeltaNet
(Qwen3-Next), Mamba-2 (Granite-4.0-H), LFM2 short convolutions, dense MLP, routed + shared experts.
"""

from __future__ import annotations

from collections import Counter
from itertools import repeat

from tpkit.errors import ConfigError
from tpkit.models.layers import GATED_ATTN_ARCH
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

__all__ = ["Part", "layer_parts", "layer_groups", "global_parts", "CATEGORIES", "count_params", "widest_dense_mlp",
           "per_layer_input_width", "LAYER0_NAME_KEY"]

CATEGORIES = ("embedding", "attention", "linear_attention", "dense_mlp", "routed_experts",
              "shared_experts", "router", "norms", "lm_head")


@dataclass(frozen=True, kw_only=True, slots=True)
class Part:
    """One weight tensor (or ``count`` identical ones) of the checkpoint."""

    name: str
    """HF-style module name, e.g. ``model.layers.3.self_attn.q_proj`` (used for quantisation ignore lists)"""
    category: str
    """one of ``CATEGORIES`` (a line of the weights breakdown)"""
    out: int
    """rows (elements)"""
    inp: int = 1
    """columns (elements); 1 for a vector"""
    count: int = 1
    """how many such tensors (experts)"""
    shard: str = "rep"
    """TP/EP sharding rule (module docstring)"""
    linear: bool = False
    """a linear-layer weight matrix, i.e. something a quantisation method may store quantised"""

    @property
    def elements(self) -> int:
        """Elements of all ``count`` tensors (count)."""
        return self.out * self.inp * self.count


def count_params(spec: ModelSpec) -> int:
    """Parameters of the language model as stored (vocab unpadded, no MTP, no vision tower)."""
    total = sum(p.elements for p in global_parts(spec))
    return total + sum(times * p.elements for layer, times, moe in layer_groups(spec, range(spec.num_layers))
                       for p in layer_parts(spec, layer, moe_layer=moe))


def global_parts(spec: ModelSpec) -> list[Part]:
    """Embedding, final norm and (untied) lm_head."""
    x = spec.extra
    if x.get("classic_mlp"):
        return _classic_global_parts(spec)
    parts = [Part(name="model.embed_tokens", category="embedding", out=spec.vocab_size, inp=spec.hidden_size,
                  shard="vocab"),
             Part(name="model.norm", category="norms", out=spec.hidden_size)]
    per_layer = spec.extra.get("hidden_size_per_layer_input")
    if spec.model_type == "gemma4_text" and isinstance(per_layer, int) and per_layer > 0:
        # Gemma 4 per-layer inputs (E2B/E4B): an embedding of vocab_size_per_layer_input rows × layers · width, its
        # projection from the hidden state and norm (vLLM 0.19.0 – 0.29.0 models/gemma4.py Gemma4Model)
        rows = spec.extra.get("vocab_size_per_layer_input") or spec.vocab_size
        width = spec.num_layers * per_layer
        parts += [Part(name="model.embed_tokens_per_layer", category="embedding", out=int(rows), inp=width,
                       shard="vocab"),
                  Part(name="model.per_layer_model_projection", category="embedding", out=width,
                       inp=spec.hidden_size, shard="col", linear=True),
                  Part(name="model.per_layer_projection_norm", category="norms", out=per_layer)]
    if spec.architecture.endswith("ForSequenceClassification"):
        # reward / classifier checkpoints end in a score head of num_labels rows, not an LM head (sglang 0.5.10
        # models/llama_reward.py LlamaForSequenceClassification: ``score`` nn.Linear(hidden, num_labels), no lm_head)
        parts.append(Part(name="score", category="lm_head", out=int(spec.extra.get("num_labels") or 2),
                          inp=spec.hidden_size))
    elif not spec.tie_word_embeddings:
        parts.append(Part(name="lm_head", category="lm_head", out=spec.vocab_size, inp=spec.hidden_size,
                          shard="vocab"))
    return parts


def _classic_global_parts(spec: ModelSpec) -> list[Part]:
    """GPT-2 / OPT (``models.classic.CLASSIC_MODEL_TYPES``): token embedding (of ``word_embed_proj_dim`` for OPT-350m,
    with replicated project_in / project_out), learned position embedding, final LayerNorm (weight + bias; OPT
    without ``do_layer_norm_before`` has none), lm_head tied unless the config unties it."""
    x, h = spec.extra, spec.hidden_size
    width = x.get("word_embed_proj_dim") or h
    parts = [Part(name="model.embed_tokens", category="embedding", out=spec.vocab_size, inp=width, shard="vocab")]
    if x.get("learned_positions"):
        parts.append(Part(name="model.embed_positions", category="embedding", out=int(x["learned_positions"]), inp=h))
    if width != h:
        parts += [Part(name="model.project_in", category="embedding", out=h, inp=width, linear=True),
                  Part(name="model.project_out", category="embedding", out=width, inp=h, linear=True)]
    if x.get("final_norm", True):
        parts += [Part(name="model.norm", category="norms", out=h),
                  Part(name="model.norm.bias", category="norms", out=h)]
    if not spec.tie_word_embeddings:
        parts.append(Part(name="lm_head", category="lm_head", out=spec.vocab_size, inp=width, shard="vocab"))
    return parts


def layer_groups(spec: ModelSpec, layers: range, *, by_name: bool = False) -> list[tuple[int, int, bool]]:
    """``layers`` grouped into runs of alike layers: (first layer, how many, holds routed experts).

    Layers of the same attention kind and MLP kind have the same weights, so a plan computes one per group
    (linear in the number of layers, and fast for 10^5 of them). ``by_name``: every layer is its own group
    (for rules that look at the module name, such as a quantisation ignore list that names layer numbers).
    """
    moe_ids = frozenset(spec.moe.moe_layer_ids) if spec.moe else frozenset()
    if by_name:
        return [(i, 1, i in moe_ids) for i in layers]
    kinds = spec.layer_kinds[layers.start:layers.stop] if spec.layer_kinds else repeat("full")
    keys = list(zip(kinds, map(moe_ids.__contains__, layers)))  # (kind, MoE) per layer, built at C speed
    if _double_wide_from(spec) < spec.num_layers:  # Gemma 4: the shared-KV layers' MLP is twice as wide
        keys = [(*k, i >= _double_wide_from(spec)) for k, i in zip(keys, layers)]
    counts = Counter(keys)
    return [(layers[keys.index(key)], counts[key], key[1]) for key in dict.fromkeys(keys)]


def layer_parts(spec: ModelSpec, i: int, *, moe_layer: bool | None = None) -> list[Part]:
    """Every weight of decoder layer ``i`` (0-based); ``moe_layer`` saves looking ``i`` up when known."""
    if moe_layer is None:
        moe_layer = spec.moe is not None and i in spec.moe.moe_layer_ids
    kind = spec.kind_of(i)
    pre = f"model.layers.{i}"
    if i == 0 and spec.extra.get(LAYER0_NAME_KEY):  # a one-layer model standing for an MTP layer (perf)
        pre = spec.extra[LAYER0_NAME_KEY]
    if spec.model_type == "nemotron_h":
        return _nemotron_h_layer(spec, pre, kind, moe_layer)
    if kind == "linear":
        if spec.extra.get("linear_num_value_heads"):
            attn = _gdn(spec, pre)
        elif spec.model_type == "granitemoehybrid":
            attn = _mamba2(spec, pre)
        elif spec.model_type == "lfm2":
            attn = _short_conv(spec, pre)
        else:
            attn = _kda(spec, pre)
    elif spec.mla is not None:
        attn = _mla(spec, pre)
    else:
        attn = _gqa(spec, pre, kind)
    norms = [Part(name=f"{pre}.norm{j}", category="norms", out=spec.hidden_size)
             for j in range(spec.extra.get("norms_per_layer", 2))]
    per_layer = spec.extra.get("hidden_size_per_layer_input") if spec.model_type == "gemma4_text" else None
    if isinstance(per_layer, int) and per_layer > 0:  # Gemma 4 per-layer input gate / projection / norm
        norms += [Part(name=f"{pre}.per_layer_input_gate", category="embedding", out=per_layer,
                       inp=spec.hidden_size, linear=True),
                  Part(name=f"{pre}.per_layer_projection", category="embedding", out=spec.hidden_size,
                       inp=per_layer, linear=True),
                  Part(name=f"{pre}.post_per_layer_input_norm", category="norms", out=spec.hidden_size)]
    return attn + _mlp(spec, pre, moe_layer, double=i >= _double_wide_from(spec)) + norms


def _nemotron_h_layer(spec: ModelSpec, pre: str, kind: str, moe_layer: bool) -> list[Part]:
    """One NemotronH decoder layer: a single mixer and one RMSNorm (vLLM 0.13.0 ``models/nemotron_h.py``
    ``NemotronH{Mamba,Attention,MLP}DecoderLayer``): "M" a Mamba-2 mixer (``MambaMixer2``: in_proj to
    ``inner + conv_dim + heads``, conv1d over conv_dim, A / D / dt_bias per head, gated norm over inner, out_proj),
    "*" GQA attention, "-" a non-gated MLP (``NemotronHMLP``: up_proj hidden → intermediate_size, relu², down_proj;
    no gate_proj), "E" a non-gated MoE block (``_nemotron_h_moe``)."""
    from tpkit.models.linear_attn import nemotron_h_mamba_dims

    h = spec.hidden_size
    norm = [Part(name=f"{pre}.norm", category="norms", out=h)]
    if kind == "full":
        return _gqa(spec, pre, kind) + norm
    if kind == "linear":
        d = nemotron_h_mamba_dims({**spec.extra, "model_type": "nemotron_h"}, spec.source)
        a = f"{pre}.mixer"
        parts = [Part(name=f"{a}.in_proj", category="linear_attention",
                      out=d["inner"] + d["conv_dim"] + d["n_heads"], inp=h, shard="col", linear=True),
                 Part(name=f"{a}.conv1d", category="linear_attention", out=d["conv_dim"], inp=d["d_conv"],
                      shard="col"),
                 *(Part(name=f"{a}.{n}", category="linear_attention", out=d["n_heads"], shard="col")
                   for n in ("A", "D", "dt_bias")),
                 Part(name=f"{a}.norm", category="norms", out=d["inner"], shard="col"),
                 Part(name=f"{a}.out_proj", category="linear_attention", out=h, inp=d["inner"], shard="row",
                      linear=True)]
        if spec.extra.get("use_conv_bias", spec.extra.get("mamba_conv_bias", True)):
            parts.append(Part(name=f"{a}.conv1d.bias", category="linear_attention", out=d["conv_dim"], shard="col"))
        return parts + norm
    if moe_layer:
        return _nemotron_h_moe(spec, f"{pre}.mixer") + norm
    w = spec.intermediate_size
    return [Part(name=f"{pre}.mixer.up_proj", category="dense_mlp", out=w, inp=h, shard="col", linear=True),
            Part(name=f"{pre}.mixer.down_proj", category="dense_mlp", out=h, inp=w, shard="row", linear=True)] + norm


def _nemotron_h_moe(spec: ModelSpec, a: str) -> list[Part]:
    """A NemotronH "E" block (SGLang 0.5.6 – 0.5.13 ``models/nemotron_h.py`` ``NemotronHMoE``; vLLM 0.12.0 the same
    module, absent from 0.11.0): a replicated router ``gate`` (hidden → experts) with an fp32
    ``e_score_correction_bias``, routed experts built with ``is_gated=False`` (vLLM ``is_act_and_mul=False``): one
    ``up_proj`` (intermediate × hidden) and one ``down_proj`` per expert, relu², no gate_proj; and a non-gated shared
    ``NemotronHMLP`` of ``moe_shared_expert_intermediate_size × n_shared_experts`` (``MoeSpec.shared_intermediate_size``).
    A latent MoE (``moe_latent_size``, SGLang 0.5.8.post1+: experts in a smaller space behind fc1 / fc2 latent
    projections) is not sized here."""
    moe = spec.moe
    if moe is None:
        raise ConfigError(f"{spec.source}: NemotronH MoE ('E') layer without n_routed_experts / num_experts_per_tok; "
                          "fix the config.json")
    if spec.extra.get("moe_latent_size"):
        raise ConfigError(f"{spec.source}: NemotronH latent MoE ('E' layers with moe_latent_size) is not sized by "
                          "tpkit's weight rules; pass the weight size from a log")
    h, e, w = spec.hidden_size, moe.num_experts, moe.moe_intermediate_size
    parts = [Part(name=f"{a}.gate", category="router", out=e, inp=h),
             Part(name=f"{a}.gate.e_score_correction_bias", category="router", out=e),
             Part(name=f"{a}.experts.up_proj", category="routed_experts", out=w, inp=h, count=e, shard="ecol",
                  linear=True),
             Part(name=f"{a}.experts.down_proj", category="routed_experts", out=h, inp=w, count=e, shard="erow",
                  linear=True)]
    if moe.num_shared_experts and moe.shared_intermediate_size:
        sw = moe.shared_intermediate_size
        parts += [Part(name=f"{a}.shared_experts.up_proj", category="shared_experts", out=sw, inp=h, shard="col",
                       linear=True),
                  Part(name=f"{a}.shared_experts.down_proj", category="shared_experts", out=h, inp=sw, shard="row",
                       linear=True)]
    return parts


def _double_wide_from(spec: ModelSpec) -> int:
    """First layer whose dense MLP is 2 × intermediate_size: Gemma 4 ``use_double_wide_mlp`` widens the shared-KV
    layers (vLLM 0.19.0 – 0.29.0 ``models/gemma4.py Gemma4DecoderLayer``); ``num_layers`` when none is."""
    if spec.kv_shared_layers and spec.extra.get("use_double_wide_mlp"):
        return spec.num_layers - spec.kv_shared_layers
    return spec.num_layers


def widest_dense_mlp(spec: ModelSpec) -> int:
    """The widest dense MLP of any layer: 2 × ``intermediate_size`` where Gemma 4 ``use_double_wide_mlp`` widens the
    shared-KV layers (``_double_wide_from``), else ``intermediate_size``.  A forward's MLP peak is that layer's."""
    return spec.intermediate_size * (2 if _double_wide_from(spec) < spec.num_layers else 1)


def per_layer_input_width(spec: ModelSpec) -> int:
    """Gemma 4's per-layer inputs per token, ``num_hidden_layers × hidden_size_per_layer_input`` elements (the PLE
    tensor of shape (tokens, layers, hidden_size_per_layer_input) that vLLM ``models/gemma4.py``
    ``project_per_layer_inputs`` builds before the layer loop and hands to every layer); 0 for other models."""
    per_layer = spec.extra.get("hidden_size_per_layer_input") if spec.model_type == "gemma4_text" else None
    return spec.num_layers * per_layer if isinstance(per_layer, int) and per_layer > 0 else 0


def _gqa(spec: ModelSpec, pre: str, kind: str = "full") -> list[Part]:
    """q/k/v/o of one attention layer; Gemma 4's full layers use their own head dim and KV heads
    (``ModelSpec.kv_head_dim`` / ``kv_heads``).  With ``attention_k_eq_v`` the checkpoint has no v_proj, but vLLM's
    ``QKVParallelLinear`` holds the V slot (loaded with K), so the memory counts it (vLLM models/gemma4.py)."""
    h, nh = spec.hidden_size, spec.num_attention_heads
    nkv, hd = spec.kv_heads(kind), spec.kv_head_dim(kind)
    if spec.per_kind_kv:
        spec_v = hd
    else:
        spec_v = spec.v_head_dim
    a = f"{pre}.self_attn"
    q_out = nh * hd * (2 if spec.extra.get("attn_output_gate") else 1)  # Qwen3-Next: q and its output gate
    # an EAGLE-3 head's midlayer reads [embedding, hidden] concatenated (set by tpkit.perf.spec.draft_spec; sglang
    # 0.5.6 / vllm 0.11.0 models/llama_eagle3.py LlamaDecoderLayer: QKVParallelLinear(2 * hidden_size, ...))
    h_in = 2 * h if spec.extra.get("eagle3_qkv_input_2h") else h
    parts = [Part(name=f"{a}.q_proj", category="attention", out=q_out, inp=h_in, shard="col", linear=True),
             Part(name=f"{a}.k_proj", category="attention", out=nkv * hd, inp=h_in, shard="kv", linear=True),
             Part(name=f"{a}.v_proj", category="attention", out=nkv * spec_v, inp=h_in, shard="kv",
                  linear=True),
             Part(name=f"{a}.o_proj", category="attention", out=h, inp=nh * spec_v, shard="row",
                  linear=True)]
    x = spec.extra
    if x.get("qkv_bias"):
        parts += [Part(name=f"{a}.q_proj.bias", category="attention", out=nh * hd, shard="col"),
                  Part(name=f"{a}.k_proj.bias", category="attention", out=nkv * hd, shard="kv"),
                  Part(name=f"{a}.v_proj.bias", category="attention", out=nkv * spec_v, shard="kv")]
    if x.get("o_bias"):
        parts.append(Part(name=f"{a}.o_proj.bias", category="attention", out=h))
    if x.get("qk_norm"):
        parts += [Part(name=f"{a}.q_norm", category="norms", out=hd),
                  Part(name=f"{a}.k_norm", category="norms", out=hd)]
    if x.get("attention_sinks"):
        parts.append(Part(name=f"{a}.sinks", category="attention", out=nh, shard="col"))
    return parts


def _mla(spec: ModelSpec, pre: str) -> list[Part]:
    m, h, nh, a = spec.mla, spec.hidden_size, spec.num_attention_heads, f"{pre}.self_attn"
    q_head = m.qk_nope_head_dim + m.qk_rope_head_dim
    if m.q_lora_rank:
        q = [Part(name=f"{a}.q_a_proj", category="attention", out=m.q_lora_rank, inp=h, linear=True),
             Part(name=f"{a}.q_a_layernorm", category="norms", out=m.q_lora_rank),
             Part(name=f"{a}.q_b_proj", category="attention", out=nh * q_head, inp=m.q_lora_rank, shard="col",
                  linear=True)]
    else:
        q = [Part(name=f"{a}.q_proj", category="attention", out=nh * q_head, inp=h, shard="col", linear=True)]
    return q + [
        Part(name=f"{a}.kv_a_proj_with_mqa", category="attention", out=m.kv_lora_rank + m.qk_rope_head_dim,
             inp=h, linear=True),
        Part(name=f"{a}.kv_a_layernorm", category="norms", out=m.kv_lora_rank),
        Part(name=f"{a}.kv_b_proj", category="attention", out=nh * (m.qk_nope_head_dim + m.v_head_dim),
             inp=m.kv_lora_rank, shard="col", linear=True),
        Part(name=f"{a}.o_proj", category="attention", out=h, inp=nh * m.v_head_dim, shard="row", linear=True),
    ] + _dsa_indexer(spec, a)


def _dsa_indexer(spec: ModelSpec, a: str) -> list[Part]:
    """The lightning indexer of DeepSeek sparse attention, replicated on every rank (sglang 0.5.4 – 0.5.10
    ``layers/attention/nsa/nsa_indexer.py`` ``Indexer.__init__``: ``ReplicatedLinear`` wq_b (q_lora_rank →
    heads × dim) and wk (hidden → dim) under the checkpoint's quantisation, weights_proj (hidden → heads) unquantised
    bf16, k_norm a LayerNorm (weight + bias; fp32 in SGLang, counted at the model dtype).  DeepSeek-V3.2's
    checkpoint lists the same tensors (``self_attn.indexer.*``: 13.96 M parameters per layer)."""
    d = spec.dsa
    if d is None or spec.mla is None:
        return []
    q_in = spec.mla.q_lora_rank or spec.hidden_size
    i = f"{a}.indexer"
    return [Part(name=f"{i}.wq_b", category="attention", out=d.index_n_heads * d.index_head_dim, inp=q_in,
                 linear=True),
            Part(name=f"{i}.wk", category="attention", out=d.index_head_dim, inp=spec.hidden_size, linear=True),
            Part(name=f"{i}.weights_proj", category="attention", out=d.index_n_heads, inp=spec.hidden_size),
            Part(name=f"{i}.k_norm", category="norms", out=2 * d.index_head_dim)]


def _kda(spec: ModelSpec, pre: str) -> list[Part]:
    """Kimi Delta Attention layer (layout as sglang 0.5.23 ``models/kimi_linear.py``; SGLang keeps the
    conv, ``dt_bias`` and ``A_log`` in fp32, counted here at the model dtype: ~0.1 MB per layer)."""
    lac = spec.extra.get("linear_attn_config") or {}
    nh, hd, k = int(lac.get("num_heads", 32)), int(lac.get("head_dim", 128)), int(lac.get("short_conv_kernel_size", 4))
    h, proj, a = spec.hidden_size, nh * hd, f"{pre}.self_attn"

    def lin(n: str, out: int, inp: int, shard: str) -> Part:
        return Part(name=f"{a}.{n}", category="linear_attention", out=out, inp=inp, shard=shard, linear=True)

    return [lin("q_proj", proj, h, "col"), lin("k_proj", proj, h, "col"), lin("v_proj", proj, h, "col"),
            *(Part(name=f"{a}.{c}_conv1d", category="linear_attention", out=proj, inp=k, shard="col")
              for c in "qkv"),
            Part(name=f"{a}.A_log", category="linear_attention", out=nh, shard="col"),
            Part(name=f"{a}.dt_bias", category="linear_attention", out=proj, shard="col"),
            lin("f_a_proj", hd, h, "rep"), lin("f_b_proj", proj, hd, "col"),
            lin("g_a_proj", hd, h, "rep"), lin("g_b_proj", proj, hd, "col"),
            lin("b_proj", nh, h, "col"),
            Part(name=f"{a}.o_norm", category="norms", out=hd),
            lin("o_proj", h, proj, "row")]


def _gdn(spec: ModelSpec, pre: str) -> list[Part]:
    """Gated DeltaNet layer of Qwen3-Next (layout as sglang 0.5.23 ``models/qwen3_next.py``
    ``Qwen3GatedDeltaNet``): fused q/k/v/z and b/a input projections, depthwise conv over q/k/v, per-head
    ``dt_bias`` and ``A_log``, gated RMSNorm over the value head, output projection; all split over attention TP."""
    x = spec.extra
    n_k, n_v = int(x["linear_num_key_heads"]), int(x["linear_num_value_heads"])
    d_k, d_v = int(x["linear_key_head_dim"]), int(x["linear_value_head_dim"])
    kernel = int(x.get("linear_conv_kernel_dim") or 4)
    h, key, value, a = spec.hidden_size, n_k * d_k, n_v * d_v, f"{pre}.linear_attn"
    return [Part(name=f"{a}.in_proj_qkvz", category="linear_attention", out=2 * key + 2 * value, inp=h, shard="col",
                 linear=True),
            Part(name=f"{a}.in_proj_ba", category="linear_attention", out=2 * n_v, inp=h, shard="col", linear=True),
            Part(name=f"{a}.conv1d", category="linear_attention", out=2 * key + value, inp=kernel, shard="col"),
            Part(name=f"{a}.dt_bias", category="linear_attention", out=n_v, shard="col"),
            Part(name=f"{a}.A_log", category="linear_attention", out=n_v, shard="col"),
            Part(name=f"{a}.norm", category="norms", out=d_v),
            Part(name=f"{a}.out_proj", category="linear_attention", out=h, inp=value, shard="row", linear=True)]


def _mamba2(spec: ModelSpec, pre: str) -> list[Part]:
    """Mamba-2 mixer of Granite-4.0-H (layout as sglang 0.5.10 ``layers/attention/mamba/mamba.py`` ``MambaMixer2``):
    one input projection to ``inner + conv_dim + heads`` (gate z, x·B·C, dt), a depthwise conv over ``conv_dim``,
    per-head ``A``, ``D`` and ``dt_bias``, a gated RMSNorm over ``inner``, the output projection; all split over TP
    (``A`` is fp32 in SGLang, counted at the model dtype: 128 B per layer)."""
    from tpkit.models.linear_attn import mamba2_dims

    x, h, a = spec.extra, spec.hidden_size, f"{pre}.mamba"
    d = mamba2_dims({**{f"mamba_{k}": x[f"mamba_{k}"] for k in ("n_heads", "d_head", "d_state", "n_groups",
                                                                "d_conv", "expand") if f"mamba_{k}" in x},
                     "hidden_size": h}, spec.source)
    parts = [Part(name=f"{a}.in_proj", category="linear_attention", out=d["inner"] + d["conv_dim"] + d["n_heads"],
                  inp=h, shard="col", linear=True),
             Part(name=f"{a}.conv1d", category="linear_attention", out=d["conv_dim"], inp=d["d_conv"], shard="col"),
             *(Part(name=f"{a}.{n}", category="linear_attention", out=d["n_heads"], shard="col")
               for n in ("A", "D", "dt_bias")),
             Part(name=f"{a}.norm", category="norms", out=d["inner"], shard="col"),
             Part(name=f"{a}.out_proj", category="linear_attention", out=h, inp=d["inner"], shard="row", linear=True)]
    if x.get("mamba_conv_bias", True):
        parts.append(Part(name=f"{a}.conv1d.bias", category="linear_attention", out=d["conv_dim"], shard="col"))
    if x.get("mamba_proj_bias", False):
        parts += [Part(name=f"{a}.in_proj.bias", category="linear_attention",
                       out=d["inner"] + d["conv_dim"] + d["n_heads"], shard="col"),
                  Part(name=f"{a}.out_proj.bias", category="linear_attention", out=h)]
    return parts


def _short_conv(spec: ModelSpec, pre: str) -> list[Part]:
    """Gated short convolution of LFM2 (layout as sglang 0.5.9 – 0.5.23 ``models/lfm2.py`` ``Lfm2ShortConv``, same
    tensors in transformers ``modeling_lfm2.py``): ``in_proj`` hidden → 3·hidden (B, C, x), a depthwise conv of
    ``conv_L_cache`` taps over hidden, ``out_proj`` hidden → hidden; ``conv_bias`` adds a bias to all three; split
    over TP along hidden.  The layer's norms (operator_norm, ffn_norm) are the two per-layer norms; LFM2's final norm
    is ``embedding_norm`` (the ``model.norm`` line)."""
    from tpkit.models.linear_attn import short_conv_dims

    h, a = spec.hidden_size, f"{pre}.conv"
    kernel, _ = short_conv_dims({**{k: spec.extra[k] for k in ("conv_L_cache",) if k in spec.extra},
                                 "hidden_size": h}, spec.source)
    parts = [Part(name=f"{a}.in_proj", category="linear_attention", out=3 * h, inp=h, shard="col", linear=True),
             Part(name=f"{a}.conv", category="linear_attention", out=h, inp=kernel, shard="col"),
             Part(name=f"{a}.out_proj", category="linear_attention", out=h, inp=h, shard="row", linear=True)]
    if spec.extra.get("conv_bias"):
        parts += [Part(name=f"{a}.in_proj.bias", category="linear_attention", out=3 * h, shard="col"),
                  Part(name=f"{a}.conv.bias", category="linear_attention", out=h, shard="col"),
                  Part(name=f"{a}.out_proj.bias", category="linear_attention", out=h)]
    return parts


def _mlp(spec: ModelSpec, pre: str, moe_layer: bool, *, double: bool = False) -> list[Part]:
    moe = spec.moe
    if moe is None or not moe_layer:
        width = spec.intermediate_size * (2 if double else 1)
        if spec.extra.get("classic_mlp"):  # GPT-2 c_fc / c_proj, OPT fc1 / fc2: no gate, biased (per mlp_bias)
            h = spec.hidden_size
            parts = [Part(name=f"{pre}.mlp.fc1", category="dense_mlp", out=width, inp=h, shard="col", linear=True),
                     Part(name=f"{pre}.mlp.fc2", category="dense_mlp", out=h, inp=width, shard="row", linear=True)]
            if spec.extra.get("mlp_bias"):
                parts += [Part(name=f"{pre}.mlp.fc1.bias", category="dense_mlp", out=width, shard="col"),
                          Part(name=f"{pre}.mlp.fc2.bias", category="dense_mlp", out=h)]
            return parts
        return _ffn(f"{pre}.mlp", "dense_mlp", spec.hidden_size, width, 1, "col", "row")
    h, e, w = spec.hidden_size, moe.num_experts, moe.moe_intermediate_size
    parts = [Part(name=f"{pre}.mlp.gate", category="router", out=e, inp=h)]
    if spec.extra.get("router_bias") or spec.extra.get("score_correction_bias"):
        parts.append(Part(name=f"{pre}.mlp.gate.bias", category="router", out=e))
    parts += _ffn(f"{pre}.mlp.experts", "routed_experts", h, w, e, "ecol", "erow")
    if spec.extra.get("expert_bias"):
        parts += [Part(name=f"{pre}.mlp.experts.gate_up_proj_bias", category="routed_experts", out=2 * w,
                       count=e, shard="ecol"),
                  Part(name=f"{pre}.mlp.experts.down_proj_bias", category="routed_experts", out=h, count=e,
                       shard="erep")]
    if spec.extra.get("residual_moe") and spec.intermediate_size:
        # Grok-2: a dense MLP (intermediate_size) beside the experts, TP-split like any dense MLP
        # (sglang models/grok.py Grok1DecoderLayer ``self.mlp = Grok1MLP(...)`` when ``residual_moe``)
        parts += _ffn(f"{pre}.mlp", "dense_mlp", h, spec.intermediate_size, 1, "col", "row")
    if moe.num_shared_experts:
        width = moe.shared_intermediate_size or moe.num_shared_experts * w
        parts += _ffn(f"{pre}.mlp.shared_experts", "shared_experts", h, width, 1, "col", "row")
        if spec.model_type in GATED_ATTN_ARCH:  # sigmoid gate on the shared expert's output
            parts.append(Part(name=f"{pre}.mlp.shared_expert_gate", category="shared_experts", out=1, inp=h))
    return parts


def _ffn(pre: str, category: str, h: int, width: int, count: int, col: str, row: str) -> list[Part]:
    return [Part(name=f"{pre}.gate_proj", category=category, out=width, inp=h, count=count, shard=col, linear=True),
            Part(name=f"{pre}.up_proj", category=category, out=width, inp=h, count=count, shard=col, linear=True),
            Part(name=f"{pre}.down_proj", category=category, out=h, inp=width, count=count, shard=row, linear=True)]


LAYER0_NAME_KEY = "_layer0_module_name"
"""``ModelSpec.extra`` key: the module path ``layer_parts`` gives layer 0 instead of ``model.layers.0`` (perf's
one-layer model of an MTP layer, ``perf.spec._mtp_layer``, so that the target's ignore list reads it by its name)"""


