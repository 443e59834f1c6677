"""Speculative decoding with the MTP layer of Qwen3-Next / Qwen3.5 / Qwen3.6 (helper qmtp, issues 11 and 13).

Facts (docstrings of ``models.config.mtp_layer_count``, ``models.mtp_parts.mtp_parts``, ``engines.sglang.spec``):
the MTP module is ``fc`` (2·hidden → hidden) + 2 pre-fc norms + ONE full-attention decoder layer (MoE or dense MLP)
+ a final norm; embedding and lm_head are the target's; its KV is one layer of the target's full-attention KV.
"""

import json

import pytest

from sglang_fixtures import plan
from tpkit.engines.sglang import SglangOptions
from tpkit.engines.sglang.spec import plan_speculative
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.models import load_model
from tpkit.models.config import mtp_layer_count
from tpkit.models.mtp_parts import mtp_parts
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB
from vllm_fixtures import H200, GivenWeights

QN = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def _text(**kw):
    return dict(kw)


# the config reader: one home for the MTP layer count ---------------------------------------------------------

@pytest.mark.parametrize("text, arch, expected", [
    (_text(num_nextn_predict_layers=1), "DeepseekV3ForCausalLM", 1),
    (_text(num_nextn_predict_layers=2, mtp_num_hidden_layers=1), "DeepseekV3ForCausalLM", 2),
    (_text(mtp_num_hidden_layers=1), "Qwen3_5MoeForConditionalGeneration", 1),
    (_text(num_nextn_predict_layers=0, mtp_num_hidden_layers=2), "Qwen3_5ForConditionalGeneration", 2),
    (_text(), "Qwen3NextForCausalLM", 1),  # Qwen3-Next declares no count; both engines build one layer
    (_text(), "Qwen3_5ForConditionalGeneration", 1),
    (_text(mtp_num_hidden_layers=0), "Qwen3_5ForConditionalGeneration", 0),  # declared: no MTP module
    (_text(num_nextn_predict_layers=0), "Qwen3NextForCausalLM", 0),
    (_text(), "LlamaForCausalLM", 0),
])
def test_mtp_layer_count_reads_either_key(text, arch, expected):
    assert mtp_layer_count(text, arch, "test") == expected


@pytest.mark.parametrize("name", [QN, "Qwen/Qwen3.5-9B", "Qwen/Qwen3.6-27B", "Qwen/Qwen3.6-35B-A3B"])
def test_catalog_qwen_hybrids_have_one_mtp_layer(name):
    assert load_model(name).num_nextn_layers == 1


def test_bad_mtp_count_is_a_clear_config_error():
    from tpkit.errors import ConfigError

    with pytest.raises(ConfigError, match="mtp_num_hidden_layers must be a whole number"):
        mtp_layer_count({"mtp_num_hidden_layers": "one"}, "Qwen3_5ForConditionalGeneration", "cfg.json")


# the weights of the Qwen MTP module ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, moe", [(QN, True), ("Qwen/Qwen3.6-35B-A3B", True), ("Qwen/Qwen3.6-27B", False)])
def test_qwen_mtp_parts_are_fc_norms_and_one_full_attention_layer(name, moe):
    spec = load_model(name)
    parts = mtp_parts(spec)
    names = [p.name for p in parts]
    h = spec.hidden_size
    fc = next(p for p in parts if p.name == "mtp.fc")
    assert (fc.out, fc.inp, fc.shard, fc.linear) == (h, 2 * h, "rep", False)  # SGLang: nn.Linear
    assert {"mtp.pre_fc_norm_embedding", "mtp.pre_fc_norm_hidden", "mtp.norm"} <= set(names)
    assert not any(p.category == "linear_attention" for p in parts)  # full attention, no GDN state
    assert any(n.endswith("self_attn.q_proj") for n in names)
    assert any(p.category == "routed_experts" for p in parts) is moe
    assert not any(p.category in ("embedding", "lm_head") for p in parts)  # shared with the target
    split = next(p for p in mtp_parts(spec, fc_split=True, fc_quantised=True) if p.name == "mtp.fc")
    assert (split.shard, split.linear) == ("col", True)  # vLLM 0.11.0+: ColumnParallelLinear with the quant config


def test_deepseek_mtp_parts_keep_their_layout():
    spec = load_model("deepseek-ai/DeepSeek-V3")
    names = [p.name for p in mtp_parts(spec, fc_split=True)]
    assert "model.layers.61.eh_proj" in names and not any(n.startswith("mtp.") for n in names)


# SGLang: NEXTN without a draft path drafts with the Qwen MTP layer ----------------------------------------------

@pytest.mark.parametrize("version, before", [("0.5.10", False), ("0.5.13", False), ("0.5.14", True),
                                             ("0.5.23", True)])
def test_sglang_nextn_on_qwen3_next_both_sides_of_0_5_14(version, before):
    model = load_model(QN)
    spec = plan_speculative(model, ParallelSpec(tp=2), SglangOptions(speculative_algorithm="NEXTN",
                                                                      engine_version=version),
                            kv_dtype="bfloat16")
    assert spec.draft.method == "mtp" and spec.draft_layers == 1
    # one full-attention layer: 2 KV heads / TP 2 = 1 head × (256 + 256) × 2 B
    assert spec.draft_bytes_per_token == 1 * 512 * 2
    assert spec.loaded_before_pool is before
    # the MoE layer (512 experts × 3 × 2048 × 512 over TP 2) dominates: about 1.5 GiB per rank
    assert GiB(1.3) < spec.weights < GiB(1.8)
    r = plan(model, gpu="H200", tp=2, weights=GiB(74), engine_version=version, speculative_algorithm="NEXTN")
    items = [l.item for l in r.ledger.items]
    assert ("draft weights (EAGLE)" in items) is before
    assert any(i.startswith("draft KV pool") for i in items)


def test_sglang_draft_pool_is_one_twelfth_of_the_qwen3_next_cell():
    """0.5.14+: the target cell grows by int(cell × 1 / 12) (12 full-attention layers of 48)."""
    r = plan(load_model(QN), gpu="H200", tp=2, weights=GiB(74), engine_version="0.5.23",
             speculative_algorithm="NEXTN")
    assert r.extra["sglang"]["budget_cell_bytes_per_token"] == 12 * 1024 + 1024


def test_sglang_nextn_on_qwen3_6_dense_uses_its_mlp():
    spec = plan_speculative(load_model("Qwen/Qwen3.6-27B"), ParallelSpec(tp=1),
                            SglangOptions(speculative_algorithm="NEXTN"), kv_dtype="bfloat16")
    assert spec.draft_layers == 1 and spec.draft_kv_dims == (4, 256, 256)
    assert GiB(0.6) < spec.weights < GiB(1.0)  # attention + 17,408-wide MLP + fc 10,240 → 5,120, bf16


# vLLM: method mtp / qwen3_next_mtp ------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["mtp", "qwen3_next_mtp"])
def test_vllm_qwen3_next_mtp_adds_one_full_attention_layer(method):
    model = load_model(QN)
    opts = VllmOptions(engine_version="0.11.0", kv_cache_memory_bytes=Bytes(4_000_000_000),
                       speculative_config=json.dumps({"method": method, "num_speculative_tokens": 2}))
    r = plan_vllm(model, H200, ParallelSpec(tp=2), opts, weights=GivenWeights(Bytes(40 * 2**30)))
    assert GiB(1.3) < r.ledger.get("drafter weights (mtp)").bytes < GiB(1.8)
    assert r.ledger.get("drafter KV cache (mtp)").bytes > Bytes(0)


def test_vllm_fc_is_split_sglang_fc_is_not():
    """The only weight difference of the two engines' Qwen MTP: fc 2h×h at TP 2 (vLLM splits it)."""
    model = load_model("Qwen/Qwen3.6-27B")
    h = model.hidden_size
    sg = plan_speculative(model, ParallelSpec(tp=2), SglangOptions(speculative_algorithm="NEXTN"),
                          kv_dtype="bfloat16").weights
    from tpkit.engines.vllm.drafter import plan_drafter
    from tpkit.engines.vllm.speculative import parse_speculative_config

    cfg = parse_speculative_config(json.dumps({"method": "mtp", "num_speculative_tokens": 1}))
    vl = plan_drafter(model, cfg, ParallelSpec(tp=2), kv_bytes=2, act_dtype="bfloat16",
                      target_quantization=None).weights
    assert sg.bytes - vl.bytes == 2 * h * h * 2 // 2


def test_perf_nextn_runs_on_qwen_hybrids():
    from tpkit.perf.spec import _mtp_layer

    layer = _mtp_layer(load_model(QN))
    assert layer.num_layers == 1 and layer.layer_kinds == ("full",) and layer.moe.moe_layer_ids == (0,)


@pytest.mark.parametrize("version, at_sizing", [("0.5.13", False), ("0.5.14", True), ("0.5.19", True)])
def test_sglang_mtp_draft_holds_its_own_vocab_tables_while_the_pool_is_sized(version, at_sizing):
    """sgl-project/sglang PR #32468 (v0.5.19, Qwen3.5-style MTP at TP 2): the draft prints 2.57 GB at load, ~2.37 GB
    of it the draft's own bf16 embedding + lm_head (124,160 × 5,120 × 2 B each), freed only by ``init_lm_head``
    after the target pool is sized (0.5.14+); before 0.5.14 the draft loads after the pool."""
    from pathlib import Path

    from tpkit.engines.sglang.budget import draft_weights_at_sizing

    cfg = Path(__file__).resolve().parents[1] / "logs/data/configs/Qwen__Qwen3.8-27B/config.json"
    spec = plan_speculative(load_model(str(cfg)), ParallelSpec(tp=2),
                            SglangOptions(speculative_algorithm="EAGLE", engine_version=version), kv_dtype="bfloat16")
    assert spec.draft.method == "mtp"
    assert spec.weights_at_load.bytes - spec.weights.bytes == 2 * 124_160 * 5_120 * 2
    assert draft_weights_at_sizing(spec) == (spec.weights_at_load if at_sizing else Bytes(0))


def test_vllm_fc_is_quantised_from_0_11_0():
    """vLLM 0.10.2 ``qwen3_next_mtp.py`` builds ``fc`` without a quant config; 0.11.0+ pass the model's."""
    from tpkit.engines.vllm.drafter import plan_drafter
    from tpkit.engines.vllm.speculative import parse_speculative_config

    model = load_model(QN)
    cfg = parse_speculative_config(json.dumps({"method": "qwen3_next_mtp", "num_speculative_tokens": 1}))

    def weights(release):
        return plan_drafter(model, cfg, ParallelSpec(tp=2), kv_bytes=2, act_dtype="bfloat16",
                            target_quantization="fp8", release=release).weights.bytes

    h = model.hidden_size
    gap = weights((0, 10, 2)) - weights((0, 11, 0))
    assert h * h - 2**16 <= gap <= h * h  # 2h × h / TP 2 elements: 2 B → 1 B (less the fp8 scales)
    assert weights((0, 11, 0)) == weights(None)
