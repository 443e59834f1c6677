"""plan_weights (derived): exact against the catalog, TP/EP/PP sharding and quantisation by hand."""

from __future__ import annotations

import re

import pytest

from tpkit.errors import PlanInputError
from tpkit.models import from_config_dict, load_model
from tpkit.models.catalog import catalog_entries
from tpkit.models.params import count_params
from tpkit.models.weights import padded_vocab, plan_weights, stage_layers
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from models_testlib import VALIDATION, tiny_llama


def _line(plan, item):
    return next(l for l in plan.lines if l.item == item)


# Comparison against the embedded catalog facts (built from the research catalog): params exact for every model; bytes at TP 1.
# model, reference checkpoint bytes (how it relates to total_bytes), bound reached (relative)
BYTES_TABLE = [
    ("Llama-3.1-8B-Instruct", "tensor_bytes_derived", 0.0),
    ("Llama-3.1-70B-Instruct", "tensor_bytes_derived", 0.0),
    ("Llama-3.1-405B-Instruct", "tensor_bytes_derived", 0.0),
    ("Llama-3.1-405B-Instruct-FP8", "tensor_bytes_derived_estimate", 0.0),  # fbgemm row-wise, layers 1..124
    ("Llama-3.3-70B-Instruct", "tensor_bytes_derived", 0.0),
    ("Qwen2.5-7B-Instruct", "tensor_bytes_derived", 0.0),
    ("Qwen2.5-72B-Instruct", "tensor_bytes_derived", 0.0),
    ("Qwen3-8B", "tensor_bytes_derived", 0.0),
    ("Qwen3-32B", "tensor_bytes_derived", 0.0),
    ("Qwen3-30B-A3B", "tensor_bytes_derived", 0.0),
    ("Qwen3-235B-A22B", "tensor_bytes_derived", 0.0),
    ("Mixtral-8x7B-Instruct-v0.1", "tensor_bytes_derived", 0.0),
    ("Mistral-7B-Instruct-v0.3", "tensor_bytes_derived", 0.0),
    ("Kimi-K2.5", "tensor_bytes_derived_estimate+vision", 0.0),  # int4 g32 routed experts; the figure is text only
    ("GLM-4.5", "tensor_bytes_derived+mtp", 0.0),  # catalog figure includes the MTP layer
    ("Qwen2.5-72B-Instruct", "on_disk_bytes_reported", 1e-5),  # on disk = tensors + JSON headers
    ("Qwen3-235B-A22B", "on_disk_bytes_reported", 1e-4),
    ("Qwen3-30B-A3B", "on_disk_bytes_reported", 5e-5),
    ("Llama-3.1-8B-Instruct", "on_disk_bytes_reported", 5e-6),
    ("Kimi-K2-Instruct", "on_disk_bytes_reported", 2e-5),  # block fp8, no MTP
    ("gemma-3-27b-it", "on_disk_bytes_reported", 5e-6),  # incl. SigLIP tower from vision_config
    ("Llama-4-Scout-17B-16E-Instruct", "on_disk_bytes_reported", 1e-6),  # incl. the llama4 vision tower
    ("DeepSeek-V3", "on_disk_bytes_reported+mtp+mtp_embed_head", 2e-5),
    ("gpt-oss-120b", "checkpoint_size_GiB_model_card", 1e-3),  # card rounds to 0.1 GiB
    ("gpt-oss-20b", "checkpoint_size_GiB_model_card", 4e-3),
]


def test_params_match_catalog_exactly_for_every_model():
    for entry in catalog_entries():
        f = entry.facts
        if "params_total" not in f:  # scripts/catalog_extra.json entries carry a config source, no param count
            continue
        ref = f.get("params_total_derived_text") or f.get("params_total_derived_main") or f["params_total"]
        derived_text = re.search(r"text decoder derived = ([\d,]+)", f["params_total_source"])
        if derived_text:  # gemma 3: params_total is on-disk/2 incl. the vision tower; text figure in the source
            ref = int(derived_text.group(1).replace(",", ""))
        assert count_params(load_model(entry.id)) == ref, entry.id


def test_gemma3_text_plus_siglip_matches_on_disk_half():
    spec = load_model("google/gemma-3-27b-it")
    total = count_params(spec) + spec.vision_params
    assert abs(total - 27432490220) / 27432490220 < 5e-6


@pytest.mark.parametrize("name, ref_key, bound", BYTES_TABLE, ids=[f"{r[0]}:{r[1]}" for r in BYTES_TABLE])
def test_total_bytes_match_catalog_at_tp1(name, ref_key, bound):
    spec = load_model(name)
    plan = plan_weights(spec, ParallelSpec())
    ckpt = spec.extra["catalog_facts"]["checkpoint"]
    key, *adds = ref_key.split("+")
    ref = ckpt[key] * 2**30 if key.endswith("GiB_model_card") else ckpt[key]
    ours = plan.total_bytes.bytes
    if "mtp" in adds:
        ours += plan.mtp_bytes.bytes
    if "mtp_embed_head" in adds:  # DeepSeek's MTP module stores its own embed_tokens and shared_head copies
        ours += 2 * spec.vocab_size * spec.hidden_size * 2
    if "vision" in adds:  # the catalog figure leaves out the bf16 vision tower tpkit now counts
        ref += spec.vision_params * 2
    assert abs(ours - ref) / ref <= bound, (ours, ref)
    assert plan.bytes_per_rank == plan.total_bytes  # TP 1: every vocab here is a multiple of 64


def test_llama_8b_tp2_by_hand():
    plan = plan_weights(load_model("meta-llama/Llama-3.1-8B-Instruct"), ParallelSpec(tp=2))
    h, layers, b = 4096, 32, 2
    vocab_rank = 128256 // 2
    attn = (2048 * h + 2 * (4 * 128) * h + h * 2048) * b
    mlp = 3 * h * (14336 // 2) * b
    expect = 2 * vocab_rank * h * b + layers * (attn + mlp + 2 * h * b) + h * b
    assert plan.bytes_per_rank == Bytes(expect)
    assert _line(plan, "attention").bytes == Bytes(layers * attn)
    assert sum((l.bytes for l in plan.lines), Bytes(0)) == plan.bytes_per_rank
    assert plan.method == "derived from config" and plan.total_bytes == Bytes(16060522496)


def test_kv_heads_replicate_when_tp_exceeds_them():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")
    tp16 = _line(plan_weights(spec, ParallelSpec(tp=16)), "attention").bytes
    assert tp16 == Bytes(32 * (256 * 4096 + 2 * 128 * 4096 + 4096 * 256) * 2)  # 1 KV head per rank


@pytest.mark.parametrize("vocab, tp, rows", [(1000, 1, 1024), (1000, 2, 512), (1000, 3, 384), (128256, 8, 16032)])
def test_vocab_padding(vocab, tp, rows):
    assert padded_vocab(vocab, tp) == rows


def test_pp_split_and_largest_stage():
    assert [len(stage_layers(61, 4, s)) for s in range(4)] == [15, 15, 15, 16]
    assert [stage_layers(10, 3, s).start for s in range(3)] == [0, 3, 6]
    spec = from_config_dict(tiny_llama(num_hidden_layers=5), name="t", source="t")
    whole = plan_weights(spec, ParallelSpec())
    two = plan_weights(spec, ParallelSpec(pp=2))
    assert two.stage == 1 and "embedding" not in {l.item for l in two.lines}
    assert Bytes(0) < two.bytes_per_rank < whole.bytes_per_rank
    with pytest.raises(PlanInputError):
        plan_weights(spec, ParallelSpec(pp=6))


def test_tied_embeddings_have_no_lm_head_unless_pp_splits_them():
    spec = from_config_dict(tiny_llama(tie_word_embeddings=True), name="t", source="t")
    assert "lm_head" not in {l.item for l in plan_weights(spec, ParallelSpec()).lines}
    assert "lm_head" in {l.item for l in plan_weights(spec, ParallelSpec(pp=2)).lines}


def test_expert_parallel_keeps_bytes_within_tp_and_splits_across_dp_ranks():
    spec = load_model("Qwen/Qwen3-30B-A3B")
    tp4 = _line(plan_weights(spec, ParallelSpec(tp=4)), "routed experts").bytes
    ep4 = _line(plan_weights(spec, ParallelSpec(tp=4, ep=4)), "routed experts").bytes
    ep8 = _line(plan_weights(spec, ParallelSpec(tp=1, dp=8, ep=8)), "routed experts").bytes
    full = 48 * 128 * 3 * 2048 * 768 * 2
    assert tp4 == ep4 == Bytes(full // 4) and ep8 == Bytes(full // 8)


def test_fp8_checkpoint_block_scales_and_bf16_rest():
    spec = load_model(str(VALIDATION / "Qwen--Qwen3-235B-A22B-FP8.json"))
    plan = plan_weights(spec, ParallelSpec(tp=4))
    experts = _line(plan, "routed experts")
    assert experts.bytes == Bytes(94 * 128 * 3 * 4096 * (1536 // 4))  # 1 byte per element
    blocks = 94 * 128 * (2 * 3 * 32 + 32 * 3)  # gate/up: ceil(384/128)·32 blocks, down: 32·3
    assert _line(plan, "quant scales").bytes > Bytes(blocks * 4)  # + attention scales
    assert _line(plan, "embedding").bytes == Bytes(151936 // 4 * 4096 * 2)


def test_online_fp8_flag_quantises_linear_layers_not_embeddings():
    spec = load_model("meta-llama/Llama-3.1-8B-Instruct")
    bf16 = plan_weights(spec, ParallelSpec())
    fp8 = plan_weights(spec, ParallelSpec(), quantization="fp8")
    assert _line(fp8, "dense MLP").bytes * 2 == _line(bf16, "dense MLP").bytes
    assert _line(fp8, "embedding").bytes == _line(bf16, "embedding").bytes
    assert _line(fp8, "quant scales").bytes == Bytes(32 * 4 * (4096 + 1024 * 2 + 4096 + 14336 * 2 + 4096))


def test_mxfp4_only_experts_quantised():
    plan = plan_weights(load_model("openai/gpt-oss-120b"), ParallelSpec())
    assert _line(plan, "routed experts").bytes.bytes == 36 * 128 * (3 * 2880 * 2880 // 2 + (2 * 2880 + 2880) * 2)
    attn = _line(plan, "attention")
    assert attn.bytes.bytes == attn.params * 2


def test_dtype_flag_and_errors():
    spec = load_model("Qwen3-8B")
    assert plan_weights(spec, ParallelSpec(), dtype="float32").bytes_per_rank.bytes == 4 * count_params(spec)
    with pytest.raises(PlanInputError, match="dtype"):
        plan_weights(spec, ParallelSpec(), dtype="int2")
    with pytest.raises(PlanInputError, match="conflicts"):
        plan_weights(load_model("DeepSeek-V3"), ParallelSpec(), quantization="awq")


def test_mtp_not_loaded_but_reported():
    plan = plan_weights(load_model("deepseek-ai/DeepSeek-V3"), ParallelSpec(tp=8))
    mtp = _line(plan, "mtp/nextn layers")
    assert mtp.bytes == Bytes(0) and "11,610,068,224 params" in mtp.source
    assert plan.mtp_bytes > Bytes(10 * 2**30)


def test_vision_tower_known_or_unknown():
    gemma = plan_weights(load_model("gemma-3-27b-it"), ParallelSpec(tp=2))
    # SigLIP 27 × 1152: attention 27·4·1152² and MLP 27·2·1152·4304 split over tp 2, projector 1152·5376 too
    # (no engine named: every tower matrix split), the other 5,796,720 params whole
    split = 27 * 4 * 1152 ** 2 + 27 * 2 * 1152 * 4304 + 1152 * 5376
    assert _line(gemma, "vision tower").bytes == Bytes((423060336 - split + split // 2) * 2)
    scout = plan_weights(load_model("Llama-4-Scout-17B-16E-Instruct"), ParallelSpec())
    assert _line(scout, "vision tower").bytes == Bytes(871932416 * 2)  # llama4 tower, tests/models/test_vision.py
    unknown = plan_weights(from_config_dict({"model_type": "x", "text_config": tiny_llama(),
                                             "vision_config": {"model_type": "pixtral"}}, name="t", source="t"),
                           ParallelSpec())
    line = _line(unknown, "vision tower")
    assert line.bytes == Bytes(0) and "unknown" in line.source


def test_every_line_has_a_source_and_plan_serialises():
    plan = plan_weights(load_model("moonshotai/Kimi-K2.5"), ParallelSpec(tp=8))
    assert all(l.source for l in plan.lines)
    d = plan.to_dict()
    assert d["bytes_per_rank"] == plan.bytes_per_rank.bytes and d["quantization"] == "int4"


def test_kimi_linear_awq_flag_quantises_kda_and_experts():
    spec = load_model(str(VALIDATION / "cyankiwi--Kimi-Linear-48B-A3B-Instruct-AWQ-4bit.json"))
    plan = plan_weights(spec, ParallelSpec(tp=2), quantization="awq")
    items = {l.item: l for l in plan.lines}
    assert plan.quant.raw_method == "awq" and items["quant scales"].bytes > Bytes(0)
    kda = items["linear attention (KDA)"]
    assert kda.bytes < Bytes(kda.params)  # mostly 4-bit: under one byte per element
    assert items["embedding"].bytes == Bytes(163840 // 2 * 2304 * 2)


def test_online_fp8_keeps_untied_lm_head_and_embedding_at_checkpoint_dtype():
    """vLLM 0.27.1 online FP8 (``--quantization fp8`` on a bf16 checkpoint): ``Fp8Config.get_quant_method`` gives
    every ``LinearBase`` ``Fp8PerTensorOnlineLinearMethod`` (``layers/quantization/fp8.py``) and returns None for
    ``VocabParallelEmbedding`` / ``ParallelLMHead``, so the embedding and an untied lm_head stay bf16.  After
    ``online/fp8.py process_weights_after_loading`` a linear holds its fp8 weight (a transposed view, no copy) and
    one fp32 scale; ``CutlassFP8ScaledMMLinearKernel`` (SM89+) keeps K and N padded to 16 from 0.22.0 (0.21.0 pads
    per call), only where they are not multiples of 16 (none in Qwen3-8B).  tpkit counts one fp32 scale per output row, an upper bound (5.6 MB here)."""
    from pathlib import Path

    spec = load_model(str(Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen3-8B.json"))
    assert spec.tie_word_embeddings is False
    bf16 = plan_weights(spec, ParallelSpec())
    fp8 = plan_weights(spec, ParallelSpec(), quantization="fp8")
    for item in ("embedding", "lm_head", "norms"):
        assert _line(fp8, item).bytes == _line(bf16, item).bytes
    for item in ("attention", "dense MLP"):
        assert _line(fp8, item).bytes.bytes == _line(fp8, item).params == _line(bf16, item).bytes.bytes // 2
    # every quantised matrix of Qwen3-8B is a multiple of 16 in both dims: no Cutlass padding to add
    h, heads, kv, d, inter = 4096, 32, 8, 128, 12288
    assert all(x % 16 == 0 for x in (h, heads * d, (heads + 2 * kv) * d, 2 * inter, inter))
    rows = 36 * ((heads + 2 * kv) * d + h + 2 * inter + h)
    assert _line(fp8, "quant scales").bytes == Bytes(rows * 4)
    vllm_retained = (_line(fp8, "attention").bytes.bytes + _line(fp8, "dense MLP").bytes.bytes
                     + 2 * 151936 * 4096 * 2 + _line(fp8, "norms").bytes.bytes + 36 * 4 * 512)  # 4 scales/layer
    assert vllm_retained / 2**30 == pytest.approx(8.788, abs=0.001)  # vs 9.06 printed by vp_018/vp_019
