"""Weight bytes per GPU (pure): derived from the config, or exact from safetensors headers.

    in:  ModelSpec, ParallelSpec (tp, pp, ep), optional dtype / --quantization / checkpoint dir
    out: ``WeightsPlan``: bytes on the fullest rank, a breakdown (``WeightLine``s with their formula),
         the whole model's bytes, and which method produced them

Rules (SGLang and vLLM load the same shapes):
  - TP splits q/o, MLP, shared experts and lm_head/embedding; k/v keep max(1, kv_heads // tp) heads;
    norms, routers and MLA down-projections are replicated (see ``params.Part`` shard rules).
  - Vocab is padded to a multiple of 64 (64·tp when 64-padding is not divisible by tp), then split.
  - Routed experts: ceil(E/ep) experts per rank, each split by max(1, tp // ep).
  - PP splits layers by the engine's ``get_pp_indices`` (``pp_split``, ``tpkit.models.layout.PP_SPLITS``;
    SGLang's by default: the last ``layers % pp`` stages get one more); stage 0 holds embedding (+ vision
    tower), the last stage the final norm and lm_head; the largest stage is reported.
  - Quantised matrices: values + scales (+ zeros), see ``tpkit.models.quant``; scales form their own line.
  - MTP / nextn layers are not loaded unless speculative decoding is on (a 0-byte line says so).
  - DP attention (``ParallelSpec.dp_attention``): attention and the input embedding split over tp / dp only.
  - DeepSeek-V4 (``deepseek_v4``): derived by ``tpkit.models.dsv4_weights`` (hyper-connections, compressors,
    indexer, hash layers; FP8 linears with FP4 experts).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from tpkit.dtypes import DTYPES, WEIGHT_DTYPES, lookup_dtype
from tpkit.errors import PlanInputError
from tpkit.models.audio import audio_tower_params
from tpkit.models.layout import padded_vocab, stage_layers
from tpkit.models.params import Part, global_parts, layer_groups, layer_parts
from tpkit.models.quant import check_quant_engine, is_quantised, matrix_bytes, resolve_quant
from tpkit.models.spec import ModelSpec, QuantSpec
from tpkit.models.vision import SHARDABLE, TOWER_TP_SHARDED, tower_params_per_rank, vision_tower
from tpkit.models.weights_plan import WeightLine, WeightsPlan
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["WeightLine", "WeightsPlan", "plan_weights", "plan_parts", "stage_layers", "padded_vocab", "local_shape",
           "mtp_bytes", "without_tower", "names_matter"]

_ITEMS = {"embedding": "embedding", "attention": "attention", "linear_attention": "linear attention (KDA)",
          "dense_mlp": "dense MLP", "routed_experts": "routed experts", "shared_experts": "shared experts",
          "router": "router", "norms": "norms", "lm_head": "lm_head"}


def plan_weights(spec: ModelSpec, parallel: ParallelSpec, *, dtype: str | None = None,
                 quantization: str | None = None, checkpoint_dir: str | None = None,
                 engine: str | None = None, pp_split: str = "sglang") -> WeightsPlan:
    """Weight bytes per rank for ``spec`` under ``parallel`` (exact from safetensors when available).

    ``engine`` (``"sglang"``, ``"vllm"`` or ``None``) picks which vision-tower matrices are split over TP
    (``tpkit.models.vision.TOWER_TP_SHARDED``); ``None`` splits every tower matrix.  ``pp_split`` names the
    engine's rule for the decoder layers over PP stages (``tpkit.models.layout.PP_SPLITS``)."""
    elem = _dtype(spec, dtype)
    quant = resolve_quant(spec.quant, quantization)
    check_quant_engine(spec, quant, engine)
    directory = checkpoint_dir or spec.extra.get("checkpoint_dir")
    if directory and any(Path(directory).glob("*.safetensors")):
        from tpkit.models.safetensors import plan_from_safetensors

        return plan_from_safetensors(spec, parallel, Path(directory), dtype=elem, quant=quant, pp_split=pp_split)
    if parallel.pp > spec.num_layers:
        raise PlanInputError(f"--pp {parallel.pp} exceeds the model's {spec.num_layers} layers; "
                             f"use --pp ≤ {spec.num_layers}")
    if spec.model_type == "deepseek_v4":  # its own layer anatomy and FP8 / FP4 mix (tpkit.models.dsv4_weights)
        from tpkit.models.dsv4_weights import dsv4_weights

        return dsv4_weights(spec, parallel, elem=elem, quant=quant, engine=engine, pp_split=pp_split,
                            shape=local_shape)
    stages = [_stage_lines(spec, parallel, s, elem, quant, engine=engine, pp_split=pp_split)
              for s in range(parallel.pp)]
    best = parallel.stage if parallel.stage is not None else max(
        range(parallel.pp), key=lambda s: sum(l.bytes.bytes for l in stages[s]))
    lines = tuple(stages[best])
    whole = _stage_lines(spec, ParallelSpec(), 0, elem, quant, pad_vocab=False)
    return WeightsPlan(bytes_per_rank=sum((l.bytes for l in lines), Bytes(0)), lines=lines,
                       total_bytes=sum((l.bytes for l in whole if l.item != "vision tower"), Bytes(0))
                       + _vision_bytes(spec, 1, elem),
                       method="derived from config", dtype=elem, quant=quant, stage=best,
                       notes=spec.assumptions, mtp_bytes=mtp_bytes(spec, elem, quant), pp_split=pp_split,
                       stage_bytes=tuple(sum((l.bytes for l in st), Bytes(0)) for st in stages)
                       if parallel.pp > 1 else ())


def plan_parts(spec: ModelSpec, parallel: ParallelSpec, parts: list[Part], *, dtype: str | None = None,
               quantization: str | None = None, note: str = "") -> WeightsPlan:
    """Bytes per rank of an explicit list of tensors of ``spec`` (e.g. a draft model's), sharded and
    quantised by the same rules as ``plan_weights``; ``total_bytes`` is the same list at TP 1."""
    elem = _dtype(spec, dtype)
    quant = resolve_quant(spec.quant, quantization)
    sums: dict[str, list[int]] = {}
    _accumulate(spec, parallel, parts, elem, quant, True, sums)
    lines = tuple(_lines(sums, spec, parallel, elem, quant))
    whole: dict[str, list[int]] = {}
    _accumulate(spec, ParallelSpec(), parts, elem, quant, False, whole)
    return WeightsPlan(bytes_per_rank=sum((l.bytes for l in lines), Bytes(0)), lines=lines,
                       total_bytes=Bytes(sum(b for _, b in whole.values())), method="derived from config",
                       dtype=elem, quant=quant, notes=(note,) if note else ())


def without_tower(plan: WeightsPlan, why: str, *, item: str = "vision tower") -> WeightsPlan:
    """``plan`` with its ``item`` line(s) (the vision tower, or the "audio tower") at 0 bytes, narrated "``item`` not
    loaded: ``why``" (the engine does not build the tower: ``engines/vllm/towers.py``, ``engines/sglang/towers.py``);
    ``plan`` as is where ``why`` is empty or it has no such line (e.g. one read from safetensors headers)."""
    if not why or not any(l.item == item for l in plan.lines):
        return plan
    dropped = sum((l.bytes for l in plan.lines if l.item == item), Bytes(0))
    lines = tuple(WeightLine(item=item, bytes=Bytes(0),
                             source=f"{item} not loaded: {why} ({gib_text(l.bytes)} not counted)")
                  if l.item == item else l for l in plan.lines)
    from dataclasses import replace

    return replace(plan, lines=lines, bytes_per_rank=plan.bytes_per_rank - dropped)


def mtp_bytes(spec: ModelSpec, elem: str, quant: QuantSpec | None) -> Bytes:
    """Bytes of the MTP / nextn layers at TP 1, quantised as the checkpoint's quantisation config says for each
    layer's own module names (``mtp_parts.mtp_parts``: an ignore list that names the head keeps it unquantised)."""
    if not spec.num_nextn_layers:
        return Bytes(0)
    from tpkit.models.mtp_parts import mtp_parts  # a model with MTP layers only (cold start)

    sums: dict[str, list[int]] = {}
    by_name = quant is not None and names_matter(quant)
    for index in range(spec.num_nextn_layers if by_name else min(spec.num_nextn_layers, 1)):
        _accumulate(spec, ParallelSpec(), mtp_parts(spec, index=index), elem, quant, False, sums,
                    1 if by_name else spec.num_nextn_layers)
    return Bytes(sum(b for _, b in sums.values()))


_QUANT_HINT = ("; --dtype is the type of the unquantised weights and activations, as in the engines: quantised weights "
               "come from the checkpoint or --quantization (e.g. --quantization fp8)")


def _dtype(spec: ModelSpec, dtype: str | None) -> str:
    """Canonical dtype of the unquantised weights (``tpkit.dtypes``)."""
    auto = dtype in (None, "auto")
    found = lookup_dtype(spec.torch_dtype if auto else dtype)
    if found is None or found.name not in WEIGHT_DTYPES:
        raise PlanInputError(f"--dtype {dtype!r} is not one of auto, bfloat16, float16, half, float32, float"
                             + _QUANT_HINT)
    if auto and found.name == "float32":
        return "bfloat16"  # both engines load an fp32 checkpoint as bf16 under dtype=auto
    return found.name


def _stage_lines(spec: ModelSpec, par: ParallelSpec, stage: int, elem: str, quant: QuantSpec | None,
                 *, pad_vocab: bool = True, engine: str | None = None, pp_split: str = "sglang") -> list[WeightLine]:
    first, last = stage == 0, stage == par.pp - 1
    sums: dict[str, list[int]] = {}
    exact_names = quant is not None and names_matter(quant)
    for layer, times, moe_layer in layer_groups(spec, stage_layers(spec.num_layers, par.pp, stage, pp_split),
                                                by_name=exact_names):
        _accumulate(spec, par, layer_parts(spec, layer, moe_layer=moe_layer), elem, quant, pad_vocab, sums, times)
    parts = []
    for p in _engine_global_parts(spec, engine):
        if (p.category == "embedding" and first) or (p.category != "embedding" and last):
            parts.append(p)
    if last and first is False and spec.tie_word_embeddings:
        emb = global_parts(spec)[0]
        parts.append(Part(name="lm_head", category="lm_head", out=emb.out, inp=emb.inp, shard="vocab"))
    _accumulate(spec, par, parts, elem, quant, pad_vocab, sums)
    lines = _lines(sums, spec, par, elem, quant)
    if engine == "sglang" and spec.model_type in SGLANG_REPLICATED_EMBEDDING:
        lines = [replace(ln, source=f"{ln.params:,} params/rank: the token embedding (vocab {spec.vocab_size} × hidden "
                                    f"{spec.hidden_size}; Gemma 4's per-layer table too) whole on every rank, × "
                                    f"{DTYPES[elem].bytes} B (SGLang's nn.Embedding for Gemma 3 / 4)")
                 if ln.item == _ITEMS["embedding"] else ln for ln in lines]
    if first:
        lines += _vision_line(spec, par.tp, elem, engine)
        lines += _audio_line(spec, elem)
    if spec.num_nextn_layers:
        from tpkit.models.mtp_parts import mtp_parts  # a model with MTP layers only (cold start)

        mtp = spec.num_nextn_layers * sum(p.elements for p in mtp_parts(spec))
        lines.append(WeightLine(item="mtp/nextn layers", bytes=Bytes(0),
                                source=f"{spec.num_nextn_layers} nextn layer(s), {mtp:,} params in the checkpoint: "
                                       "not loaded unless MTP/EAGLE speculative decoding is on"))
    return lines


SGLANG_REPLICATED_EMBEDDING = frozenset({"gemma3", "gemma3_text", "gemma4", "gemma4_text"})
"""text ``model_type`` values whose token embedding SGLang builds as a plain ``nn.Embedding``, whole on every TP rank
(no vocab split, no padding): ``Gemma3TextScaledWordEmbedding(nn.Embedding)`` for ``embed_tokens`` in
``srt/models/gemma3_causal.py`` (``Gemma3TextModel``; the file first ships in the 0.4.4.post2 wheel, unchanged through
0.5.23), and ``Gemma4TextScaledWordEmbedding = Gemma3TextScaledWordEmbedding`` for ``embed_tokens`` and
``embed_tokens_per_layer`` in ``srt/models/gemma4_causal.py`` (0.5.11 through 0.5.23 wheels); a tied lm_head is that same
tensor (``self.lm_head = self.model.embed_tokens``). Gemma 1 / 2 (``srt/models/gemma.py``, ``gemma2.py``) and vLLM use
``VocabParallelEmbedding``. Helper gs29 (2026-12-06), from the printed weights of gemma-4-31B-it starts (17.65 GiB per
rank at tp 4, 31.66 at tp 2, 3.00 / 2.41 GiB above the vocab-split plan; docs/accuracy.md §6.4, round gs29)."""


def _engine_global_parts(spec: ModelSpec, engine: str | None) -> list[Part]:
    """``global_parts`` with the engine's embedding layout: SGLang's Gemma 3 / 4 embeddings replicated
    (``SGLANG_REPLICATED_EMBEDDING``)."""
    parts = global_parts(spec)
    if engine != "sglang" or spec.model_type not in SGLANG_REPLICATED_EMBEDDING:
        return parts
    return [replace(p, shard="rep") if p.category == "embedding" and p.shard == "vocab" else p for p in parts]


def _lines(sums: dict, spec: ModelSpec, par: ParallelSpec, elem: str, quant: QuantSpec | None) -> list[WeightLine]:
    """One line per category of ``sums`` (from ``_accumulate``), scales last."""
    lines = [WeightLine(item=_item(c, spec), bytes=Bytes(b), params=n, source=_describe(c, spec, par, elem, quant, n))
             for c, (n, b) in sums.items() if c != "quant scales"]
    if "quant scales" in sums:
        lines.append(WeightLine(item="quant scales", bytes=Bytes(sums["quant scales"][1]),
                                source=f"{quant.raw_method or quant.method} scales/zeros of the quantised matrices "
                                       f"({_quant_text(quant)})"))
    return lines


def _item(category: str, spec: ModelSpec) -> str:
    """The breakdown line's name (linear attention says which kind)."""
    if category == "linear_attention" and spec.extra.get("linear_num_value_heads"):
        return "linear attention (GDN)"
    return _ITEMS[category]


def names_matter(quant: QuantSpec) -> bool:
    """True when an ignore pattern could treat two decoder layers differently (it names a layer number,
    or is a regex / ``?`` / ``[…]`` glob); otherwise layers of one kind have the same bytes."""
    return any(p.startswith("re:") or any(c in p for c in "0123456789?[") for p in quant.ignored)


def _accumulate(spec, par, parts, elem, quant, pad_vocab, sums: dict[str, list[int]], times: int = 1) -> None:
    """Add ``times`` × the parts into ``sums``: per category [elements, bytes] on the rank; scales under
    ``quant scales``."""
    for part in parts:
        out, inp, count = local_shape(spec, part, tp=par.tp, attn_tp=par.attn_tp, ep=par.ep, pad_vocab=pad_vocab,
                                      expert_tp=par.expert_tp)
        n = out * inp * count
        row = sums.setdefault(part.category, [0, 0])
        row[0] += times * n
        if is_quantised(part, quant):
            values = math.ceil(out * inp * quant.weight_bits / 8)
            row[1] += times * count * values
            sums.setdefault("quant scales", [0, 0])[1] += times * count * (matrix_bytes(out, inp, quant) - values)
        else:
            row[1] += times * n * DTYPES[elem].bytes


_ATTN_TP_CATEGORIES = frozenset({"attention", "linear_attention", "embedding"})
"""split over the attention-TP group (tp / dp) under DP attention: SGLang 0.5.23 models/deepseek_v2.py
attention layers on attn_tp; ``get_embedding_tp_kwargs`` shards the input embedding over the attention-TP
group (qwen2.py, qwen2_moe.py — and so Qwen3-MoE — and gpt_oss.py pass ``use_attn_tp_group`` too; llama.py
does not: its embedding stays on the full TP group, not modelled); lm_head, dense MLP and shared experts stay
on the full TP group (no --enable-dp-lm-head, moe_dense_tp_size unset, no a2a backend)"""


def local_shape(spec: ModelSpec, part: Part, *, tp: int, attn_tp: int, ep: int,
                pad_vocab: bool = True, expert_tp: int | None = None) -> tuple[int, int, int]:
    """(rows, cols, count) of ``part`` on one rank: the shard rules of ``tpkit.models.params`` (``col``/``row``
    split over TP, ``kv`` heads replicated when fewer than TP, ``vocab`` rows padded per rank, experts over EP
    with the rest of TP inside each expert). Parts in ``_ATTN_TP_CATEGORIES`` split over ``attn_tp``.
    The one home of these rules: the memory plan and the perf model's kernels both call it.  ``expert_tp``: the
    GPUs an expert's matrices are split over when not ``tp`` (``ParallelSpec.expert_tp``; vLLM DP without EP)."""
    rank_tp = attn_tp if part.category in _ATTN_TP_CATEGORIES else tp
    s = part.shard
    moe_tp, experts = max(1, (expert_tp or rank_tp) // ep), math.ceil(part.count / ep)
    if s == "col":
        return math.ceil(part.out / rank_tp), part.inp, part.count
    if s == "row":
        return part.out, math.ceil(part.inp / rank_tp), part.count
    if s == "kv":
        heads = spec.num_kv_heads
        return part.out // heads * max(1, heads // rank_tp), part.inp, part.count
    if s == "vocab":
        return (padded_vocab(part.out, rank_tp) if pad_vocab else math.ceil(part.out / rank_tp)), part.inp, part.count
    if s == "ecol":
        return math.ceil(part.out / moe_tp), part.inp, experts
    if s == "erow":
        return part.out, math.ceil(part.inp / moe_tp), experts
    if s == "erep":
        return part.out, part.inp, experts
    return part.out, part.inp, part.count



def _quant_text(quant: QuantSpec) -> str:
    if quant.block_size:
        return f"{quant.scale_bytes} B scale per {quant.block_size[0]}×{quant.block_size[1]} block"
    if quant.group_size:
        zeros = f" + {quant.weight_bits}-bit zero" if quant.has_zero_point else ""
        return f"{quant.scale_bytes} B scale{zeros} per {quant.group_size} elements"
    return f"{quant.scale_bytes} B scale per output row"


def _describe(category: str, spec: ModelSpec, par: ParallelSpec, elem: str, quant, n: int) -> str:
    """The formula behind one category line, in words."""
    tp, b = par.tp, DTYPES[elem].bytes
    q = f"; quantised: {quant.raw_method or quant.method} {quant.weight_bits}-bit where in scope" if quant else ""
    rules = {
        "embedding": f"vocab {spec.vocab_size} padded to 64-multiple per rank = {padded_vocab(spec.vocab_size, tp)} "
                     f"rows × hidden {spec.hidden_size} × {b} B",
        "lm_head": f"vocab {spec.vocab_size} → {padded_vocab(spec.vocab_size, tp)} rows/rank × hidden "
                   f"{spec.hidden_size} × {b} B"
                   + (" (tied copy on the last PP stage)" if spec.tie_word_embeddings else ""),
        "attention": (f"MLA: q/kv_b/o split over tp={tp}, q_a/kv_a replicated" if spec.mla else
                      f"q/o split over tp={tp}; k/v keep max(1, {spec.num_kv_heads}//{tp}) = "
                      f"{max(1, spec.num_kv_heads // tp)} heads × head_dim {spec.head_dim}") + q,
        "linear_attention": (f"Gated DeltaNet in/out projections + conv, split over tp={tp}"
                             if spec.extra.get("linear_num_value_heads") else
                             f"KDA q/k/v/o + short conv + gates, split over tp={tp}") + q,
        "dense_mlp": f"gate/up/down 3 × hidden {spec.hidden_size} × {spec.intermediate_size} / tp {tp}" + q,
        "router": "router (+ bias) E × hidden, replicated",
        "norms": "RMSNorm weights, replicated",
    }
    if spec.moe:
        m = spec.moe
        rules["routed_experts"] = (f"ceil({m.num_experts}/ep {par.ep}) experts × 3 × hidden {spec.hidden_size} × "
                                   f"{m.moe_intermediate_size}/{max(1, (par.expert_tp or tp) // par.ep)} per MoE "
                                   "layer" + (f" (tp × dp = {par.expert_tp}: vLLM DP without EP)"
                                              if par.expert_tp else "") + q)
        rules["shared_experts"] = f"{m.num_shared_experts} shared expert(s) × 3 × hidden / tp {tp}" + q
    return f"{n:,} params/rank: {rules[category]} ({elem})"


def _tower(spec: ModelSpec):
    """The spec's vision tower (``tpkit.models.vision``), or ``None``."""
    return vision_tower(spec.extra.get("vision_config"), spec.hidden_size, spec.extra.get("wrapper_model_type"),
                        where=spec.source) if spec.vision_params else None


def _vision_bytes(spec: ModelSpec, tp: int, elem: str, engine: str | None = None) -> Bytes:
    tower = _tower(spec)
    if tower is None:
        return Bytes(math.ceil((spec.vision_params or 0) / tp) * DTYPES[elem].bytes)
    return Bytes(tower_params_per_rank(tower, tp, engine=engine) * DTYPES[elem].bytes)


def _audio_line(spec: ModelSpec, elem: str) -> list[WeightLine]:
    """The audio tower + its embedder (``tpkit.models.audio``), held whole on every rank (vLLM builds it with
    ``ReplicatedLinear``); none for a model without ``audio_config``, a 0-byte note for an unknown layout."""
    config = spec.extra.get("audio_config")
    if config is None:
        return []
    n = audio_tower_params(config, spec.hidden_size, where=spec.source)
    if n is None:
        return [WeightLine(item="audio tower", bytes=Bytes(0),
                           source="unknown: audio tower layout not derivable from this config; not counted")]
    return [WeightLine(item="audio tower", bytes=Bytes(n * DTYPES[elem].bytes), params=n,
                       source=f"{n:,} params ({config.get('model_type')} tower + embed_audio, from audio_config; "
                              f"tpkit.models.audio), held whole on every rank × {DTYPES[elem].bytes} B ({elem})")]


def _vision_line(spec: ModelSpec, tp: int, elem: str, engine: str | None = None) -> list[WeightLine]:
    tower = _tower(spec)
    if tower is not None:
        n = tower_params_per_rank(tower, tp, engine=engine)
        sharded = TOWER_TP_SHARDED.get((engine or "", tower.family), frozenset(SHARDABLE))
        split = ", ".join(g for g in SHARDABLE if g in sharded and getattr(tower, g)) or "nothing"
        return [WeightLine(item="vision tower", bytes=Bytes(n * DTYPES[elem].bytes), params=n,
                           source=f"{tower.params:,} params ({tower.family} tower + projector, from vision_config); "
                                  f"{split} split over tp {tp}, the rest held whole on every rank"
                                  f"{' (' + engine + ')' if engine else ''} → {n:,} params/rank × "
                                  f"{DTYPES[elem].bytes} B ({elem})")]
    if spec.is_multimodal:
        return [WeightLine(item="vision tower", bytes=Bytes(0),
                           source="unknown: vision tower layout not derivable from this config; not counted")]
    return []
