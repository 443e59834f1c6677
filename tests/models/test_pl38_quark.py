"""AMD Quark ``quantization_config`` → QuantSpec (models/quark.py; helper pl38, 2026-12-08, session 38).

SGLang 0.5.5.post3 and vLLM 0.21.0 ``QuarkConfig.get_quant_method``: every LinearBase / FusedMoE layer not named in
``exclude`` takes the Quark scheme (layer_quant_config pattern, then module type, then global) — so attention, shared
experts and dense MLPs are MXFP4 in an all-layer export, unlike the HF ``mxfp4`` method's routed experts only."""

from __future__ import annotations

import pytest

from tpkit.errors import ConfigError, PlanInputError
from tpkit.models.params import Part
from tpkit.models.quant import is_quantised, matrix_bytes, parse_quant_config, resolve_quant


def _mx(dynamic: bool) -> dict:
    return {"dtype": "fp4", "qscheme": "per_group", "group_size": 32, "ch_axis": -1, "scale_format": "e8m0",
            "is_dynamic": dynamic}


def _quark(**over) -> dict:
    qc = {"quant_method": "quark", "global_quant_config": {"weight": _mx(False), "input_tensors": _mx(True)},
          "exclude": ["lm_head"], "layer_quant_config": {}, "layer_type_quant_config": {},
          "export": {"kv_cache_group": [], "pack_method": "reorder"}}
    qc.update(over)
    return qc


def _part(name: str, category: str) -> Part:
    return Part(name=name, category=category, out=7168, inp=2048, linear=True)


ATTN = _part("model.layers.5.self_attn.o_proj", "attention")
SHARED = _part("model.layers.5.mlp.shared_experts.down_proj", "shared_experts")
DENSE = _part("model.layers.0.mlp.down_proj", "dense_mlp")
EXPERT = _part("model.layers.5.mlp.experts.down_proj", "routed_experts")
HEAD = Part(name="lm_head", category="lm_head", out=129280, inp=7168, linear=True)


def test_global_mxfp4_quantises_every_linear_but_the_excluded():
    q = parse_quant_config(_quark(), where="t")
    assert (q.method, q.weight_bits, q.group_size, q.scale_bytes, q.scope, q.raw_method) == \
        ("mxfp4", 4, 32, 1, "all_linear", "quark")
    assert all(is_quantised(p, q) for p in (ATTN, SHARED, DENSE, EXPERT))
    assert not is_quantised(HEAD, q)
    assert matrix_bytes(7168, 2048, q) == 7168 * 2048 // 2 + 7168 * 2048 // 32


def test_hf_mxfp4_method_still_quantises_the_routed_experts_only():
    q = parse_quant_config({"quant_method": "mxfp4", "modules_to_not_convert": ["lm_head"]}, where="t")
    assert is_quantised(EXPERT, q)
    assert not any(is_quantised(p, q) for p in (ATTN, SHARED, DENSE))


def test_exclude_names_keep_layers_unquantised():
    q = parse_quant_config(_quark(exclude=["lm_head", "re:model\\.layers\\.\\d+\\.self_attn\\..*",
                                           "model.layers.0.mlp.down_proj"]), where="t")
    assert not is_quantised(ATTN, q) and not is_quantised(DENSE, q)
    assert is_quantised(SHARED, q) and is_quantised(EXPERT, q)


def test_fp8_global_scheme_and_same_format_layer_entries():
    fp8 = {"dtype": "fp8_e4m3", "qscheme": "per_channel", "is_dynamic": False}
    q = parse_quant_config(_quark(global_quant_config={"weight": fp8, "input_tensors": {"dtype": "fp8_e4m3"}},
                                  layer_quant_config={"*k_proj": {"weight": fp8, "output_tensors": {"dtype": "fp8_e4m3"}}}),
                           where="t")
    assert (q.method, q.weight_bits, q.scale_bytes) == ("fp8", 8, 4) and is_quantised(ATTN, q)


def test_layer_only_config_quantises_the_named_layers_alone():
    q = parse_quant_config(_quark(global_quant_config={}, exclude=[],
                                  layer_quant_config={"*mlp.experts": {"weight": _mx(False)}}), where="t")
    assert q.method == "mxfp4" and is_quantised(EXPERT, q)
    assert not any(is_quantised(p, q) for p in (ATTN, SHARED, DENSE))


def test_a_layer_pattern_without_weight_format_is_left_unquantised():
    q = parse_quant_config(_quark(layer_quant_config={"*self_attn*": {"weight": None}}), where="t")
    assert not is_quantised(ATTN, q) and is_quantised(SHARED, q)


@pytest.mark.parametrize("qc, words", [
    (_quark(export=None), "export"),
    (_quark(global_quant_config={"weight": {"dtype": "int4", "qscheme": "per_group", "group_size": 128}}),
     "int4"),
    (_quark(layer_quant_config={"*mlp*": {"weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"}}}),
     "one format"),
    (_quark(global_quant_config={}, layer_quant_config={}), "nothing is quantised"),
    (_quark(layer_quant_config={"*mlp*": "fp4"}), "map names to objects"),
])
def test_unreadable_quark_configs_are_refused_clearly(qc, words):
    with pytest.raises(ConfigError, match=words):
        parse_quant_config(qc, where="t")


def test_quark_flag_agrees_with_a_quark_checkpoint_and_refuses_a_bf16_one():
    q = parse_quant_config(_quark(), where="t")
    assert resolve_quant(q, "quark") is q
    with pytest.raises(PlanInputError, match="Quark"):
        resolve_quant(None, "quark")
