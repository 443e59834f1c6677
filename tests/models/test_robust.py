"""Malformed configs and checkpoints give a ConfigError that names the field, never a traceback (issue 10).

Each case here was found by ``scripts/fuzz_plan.py`` as a traceback or as broken input accepted silently.
"""

from __future__ import annotations

import json
import struct

import pytest

from tpkit.errors import ConfigError, PlanInputError, UnknownModelError
from tpkit.models import from_config_dict, load_model
from tpkit.models import params as params_module
from tpkit.models import weights as weights_module
from tpkit.models.params import count_params
from tpkit.models.quant import is_ignored, parse_quant_config
from tpkit.models.safetensors import read_checkpoint, read_header
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

from models_testlib import llama_tensors, tiny_llama, write_safetensors


def _load(**overrides):
    return from_config_dict(tiny_llama(**overrides), name="t", source="t/config.json")


@pytest.mark.parametrize("key, value", [
    ("model_type", 5), ("model_type", ["llama"]), ("model_type", {"a": 1}), ("model_type", True),
    ("architectures", "LlamaForCausalLM"), ("architectures", 5), ("architectures", [5]), ("architectures", [None]),
    ("text_config", 5), ("text_config", "x"), ("text_config", []),
    ("tie_word_embeddings", "no"), ("q_lora_rank", "x"),
])
def test_fields_of_the_wrong_type_are_config_errors(key, value):
    overrides = {key: value}
    if key == "q_lora_rank":
        overrides.update(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128)
    with pytest.raises(ConfigError, match=key):
        _load(**overrides)


def test_shared_expert_width_of_the_wrong_type_is_a_config_error():
    with pytest.raises(ConfigError, match="shared_expert_intermediate_size"):
        _load(num_experts=8, num_experts_per_tok=2, shared_expert_intermediate_size="x")


@pytest.mark.parametrize("text, match", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ('{"num_hidden_layers": 1' + "0" * 5000 + "}", "not a usable config.json"),
])
def test_config_files_python_cannot_parse_are_config_errors(tmp_path, text, match):
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_model(str(path))


@pytest.mark.parametrize("qc, match", [
    ({"quant_method": "compressed-tensors", "ignore": [5],
      "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 32}}}}, "ignore"),
    ({"quant_method": "compressed-tensors", "ignore": ["re:("],
      "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 32}}}}, "regular expression"),
    ({"quant_method": "fp8", "ignored_layers": ["re:("]}, "regular expression"),
    ({"quant_method": "fp8", "weight_block_size": [None, 128]}, "weight_block_size"),
    ({"quant_method": "fp8", "weight_block_size": [True, 128]}, "weight_block_size"),
    ({"quant_method": "fp8", "weight_block_size": ["128", "128"]}, "weight_block_size"),
    ({"quant_method": "fp8", "modules_to_not_convert": 5}, "modules_to_not_convert"),
    ({"quant_method": "fp8", "modules_to_not_convert": [None]}, "modules_to_not_convert"),
    ({"quant_method": "mxfp4", "modules_to_not_convert": {"a": 1}}, "modules_to_not_convert"),
    ({"quant_method": "compressed-tensors", "config_groups": []}, "config_groups"),
    ({"quant_method": "compressed-tensors", "config_groups": {"g": 5}}, "config_groups"),
])
def test_bad_quantization_config_values_are_config_errors(qc, match):
    with pytest.raises(ConfigError, match=match):
        _load(quantization_config=qc)


def test_a_single_module_name_is_a_list_of_one_not_its_letters():
    """``"modules_to_not_convert": "lm_head"`` was read as ('l', 'm', '_', ...): nothing was ignored."""
    q = parse_quant_config({"quant_method": "fp8", "modules_to_not_convert": "lm_head"}, where="t")
    assert q.ignored == ("lm_head",) and is_ignored("lm_head", q) and not is_ignored("model.layers.0.mlp", q)


_SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "patch_size": 14,
           "image_size": 896, "num_hidden_layers": 27}


@pytest.mark.parametrize("vision, match", [
    (5, "vision_config must be an object"),
    ("x", "vision_config must be an object"),
    ({"model_type": "siglip_vision_model"}, "lacks hidden_size"),
    ({**_SIGLIP, "patch_size": 0}, "patch_size"),
    ({**_SIGLIP, "hidden_size": "x"}, "hidden_size"),
    ({**_SIGLIP, "image_size": None}, "image_size"),
])
def test_broken_vision_config_is_a_config_error(vision, match):
    cfg = {"model_type": "gemma3", "architectures": ["Gemma3ForConditionalGeneration"],
           "text_config": tiny_llama(model_type="gemma3_text"), "vision_config": vision}
    with pytest.raises(ConfigError, match=match):
        from_config_dict(cfg, name="t", source="t")


def test_a_vision_tower_tpkit_does_not_know_is_still_unknown_not_an_error():
    cfg = {"model_type": "pixtral_wrapper", "text_config": tiny_llama(), "vision_config": {"model_type": "pixtral"}}
    assert from_config_dict(cfg, name="t", source="t").vision_params is None


def test_a_known_tower_without_its_sizes_names_the_missing_keys():
    cfg = {"model_type": "llava", "text_config": tiny_llama(), "vision_config": {"model_type": "clip_vision_model"}}
    with pytest.raises(ConfigError, match="clip.*lacks hidden_size, intermediate_size"):
        from_config_dict(cfg, name="t", source="t")


_MOE = {"num_experts": 8, "num_experts_per_tok": 2, "decoder_sparse_step": 1}


@pytest.mark.parametrize("overrides, match", [
    ({**_MOE, "mlp_only_layers": "abc"}, "mlp_only_layers"),
    ({**_MOE, "mlp_only_layers": [1.5]}, "mlp_only_layers"),
    ({**_MOE, "mlp_only_layers": [[1]]}, "mlp_only_layers"),
    ({**_MOE, "mlp_only_layers": [10**9]}, "mlp_only_layers"),
    ({**_MOE, "mlp_only_layers": [-1]}, "mlp_only_layers"),
    ({"attention_chunk_size": 8192, "no_rope_layers": "abc"}, "no_rope_layers"),
    ({"attention_chunk_size": 8192, "no_rope_layers": [None, 1, 1, 1]}, "no_rope_layers"),
    ({"attention_chunk_size": 8192, "no_rope_layers": [0]}, "no_rope_layers"),
    ({"layer_types": [["full_attention"]] * 4}, "layer_types"),
    ({"linear_attn_config": {"num_heads": 2, "head_dim": 2, "kda_layers": [None, 1], "full_attn_layers": [2, 3, 4]}},
     "kda_layers"),
])
def test_bad_layer_lists_are_config_errors(overrides, match):
    with pytest.raises(ConfigError, match=match):
        _load(**overrides)


def test_absurd_layer_counts_are_refused_with_the_limit():
    """Lead, session 18: the limit is 1,024 layers (it was 100,000): an FP8 MoE whose ignore list names layers is
    planned layer by layer, and 30,000 such layers took minutes (fuzz seed 15, case 5374)."""
    with pytest.raises(ConfigError, match="num_hidden_layers must be a whole number from 1 to 1,024"):
        _load(num_hidden_layers=2**31)
    with pytest.raises(ConfigError, match="num_hidden_layers must be a whole number from 1 to 1,024, got 1025"):
        _load(num_hidden_layers=1_025)
    assert _load(num_hidden_layers=1_024).num_layers == 1_024


def test_weights_cost_does_not_grow_with_alike_layers(monkeypatch):
    """10^5 layers took minutes: each layer re-built the layer-kind tuple and searched the MoE layer list.
    Alike layers are now computed once per group; count the per-layer calls instead of timing them."""
    calls = []
    real = params_module.layer_parts
    monkeypatch.setattr(weights_module, "layer_parts", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    monkeypatch.setattr(params_module, "layer_parts", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    spec = _load(num_hidden_layers=1_024, **_MOE, mlp_only_layers=[0, 7])
    plan = plan_weights(spec, ParallelSpec(tp=2, pp=4))
    assert len(calls) < 50
    assert 0 < plan.bytes_per_rank.bytes < plan.total_bytes.bytes  # tp 2 × pp 4: each rank holds a share
    assert plan_weights(spec, ParallelSpec()).total_bytes.bytes == 2 * count_params(spec)  # bf16, TP 1


def test_many_mtp_layers_cost_one_layer_of_work():
    """num_nextn_predict_layers = 10^5 rebuilt every MTP layer (a fuzz timeout); they are alike."""
    one = plan_weights(_load(num_nextn_predict_layers=1), ParallelSpec())
    many = plan_weights(_load(num_nextn_predict_layers=1_024), ParallelSpec())
    assert many.mtp_bytes.bytes == 1_024 * one.mtp_bytes.bytes > 0
    with pytest.raises(ConfigError, match="num_nextn_predict_layers"):
        _load(num_nextn_predict_layers=1_025)


@pytest.mark.parametrize("name", ["deepseek-ai/DeepSeek-V3", "google/gemma-3-27b-it", "openai/gpt-oss-120b",
                                  "Qwen/Qwen3-30B-A3B", "moonshotai/Kimi-K2.5"])
def test_grouped_layers_give_the_same_plan_as_one_by_one(monkeypatch, name):
    spec = load_model(name)
    pars = (ParallelSpec(), ParallelSpec(tp=2), ParallelSpec(tp=4, pp=3, ep=2))
    grouped = [plan_weights(spec, par).to_dict() for par in pars]
    real = params_module.layer_groups
    monkeypatch.setattr(weights_module, "layer_groups", lambda s, layers, by_name=False: real(s, layers, by_name=True))
    assert [plan_weights(spec, par).to_dict() for par in pars] == grouped


def test_an_ignore_list_that_names_a_layer_is_applied_per_layer():
    base = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    plain = plan_weights(_load(quantization_config=base), ParallelSpec())
    one = plan_weights(_load(quantization_config={**base, "ignored_layers": ["model.layers.0.mlp"]}),
                       ParallelSpec())
    assert one.bytes_per_rank > plain.bytes_per_rank  # layer 0's MLP stays bf16, the other three fp8


def test_moe_wna16_on_an_unquantised_model_says_what_it_needs():
    """The flag's own message lists moe_wna16 as accepted; on a bf16 model it raised KeyError."""
    with pytest.raises(PlanInputError, match="kernel for an int4 checkpoint"):
        plan_weights(_load(), ParallelSpec(), quantization="moe_wna16")
    int4 = _load(quantization_config={"quant_method": "awq", "bits": 4, "group_size": 128})
    assert plan_weights(int4, ParallelSpec(), quantization="moe_wna16").quant.raw_method == "awq"


def test_a_model_path_too_long_for_the_file_system_is_an_unknown_model():
    with pytest.raises(UnknownModelError, match="cannot be used as a path"):
        load_model("x" * 300)


def test_an_unknown_architecture_is_planned_with_its_assumptions_stated():
    cfg = tiny_llama(architectures=["FooBarForCausalLM"], model_type="foobar")
    del cfg["torch_dtype"]
    spec = from_config_dict(cfg, name="t", source="t")
    said = " ".join(spec.assumptions)
    assert "'foobar' (FooBarForCausalLM) is not one tpkit has rules for" in said and "torch_dtype absent" in said
    assert plan_weights(spec, ParallelSpec()).notes == spec.assumptions
    assert not any("rules for" in a for a in load_model("meta-llama/Llama-3.1-8B-Instruct").assumptions)


# ---- safetensors ----------------------------------------------------------------------------------------------

def _ckpt(tmp_path):
    cfg = tiny_llama(num_hidden_layers=2)
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    write_safetensors(tmp_path / "model-00001-of-00002.safetensors", llama_tensors(cfg, range(2)))
    return tmp_path


@pytest.mark.parametrize("make, match", [
    (lambda p: p.mkdir(), "not a regular file"),
    (lambda p: p.symlink_to("nowhere.bin"), "broken symbolic link"),
])
def test_a_safetensors_entry_that_is_not_a_file_is_named(tmp_path, make, match):
    make(_ckpt(tmp_path) / "model-00002-of-00002.safetensors")
    with pytest.raises(ConfigError, match=match):
        read_checkpoint(tmp_path)
    with pytest.raises(ConfigError, match=match):
        plan_weights(load_model(str(tmp_path)), ParallelSpec())


def _one_tensor(tmp_path, offsets, *, shape=(4,), dtype="BF16", data=8, declared=None):
    raw = json.dumps({"w": {"dtype": dtype, "shape": list(shape), "data_offsets": offsets}}).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", declared if declared is not None else len(raw)) + raw + bytes(data))
    return path


@pytest.mark.parametrize("offsets, kwargs, match", [
    ([-8, 0], {}, "data_offsets"),
    ([-5, 8], {}, "data_offsets"),
    ([0, 8 + 10**15], {}, "data_offsets"),
    ([0, 16], {"shape": (8,)}, "data_offsets"),  # past the 8 data bytes in the file
    ([0, 8], {"shape": (2,)}, "span"),  # BF16 [2] is 4 bytes, not 8
    ([0, 8], {"shape": (-1, -4)}, "shape"),
    ([0, 8], {"declared": 10**6}, "runs past the end"),
])
def test_header_offsets_must_lie_inside_the_file(tmp_path, offsets, kwargs, match):
    """Negative and out-of-file data_offsets were accepted: 909 TiB of weights from a 1 KiB file."""
    with pytest.raises(ConfigError, match=match):
        read_header(_one_tensor(tmp_path, offsets, **kwargs))


def test_a_header_nested_too_deeply_is_a_config_error(tmp_path):
    raw = ("[" * 100_000 + "]" * 100_000).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)
    with pytest.raises(ConfigError, match="nested too deeply"):
        read_header(path)


def test_a_consistent_header_still_reads(tmp_path):
    [t] = read_header(_one_tensor(tmp_path, [0, 8]))
    assert (t.dtype, t.shape, t.nbytes) == ("BF16", (4,), 8)
    [t] = read_header(_one_tensor(tmp_path, [0, 8], dtype="F4_SOMETHING_NEW", shape=(16,)))  # unknown: not size-checked
    assert t.nbytes == 8


@pytest.mark.parametrize("wrapper_type, text_type", [
    ([None], None), ({"a": 1}, None), (["gemma3"], "gemma3_text"),  # the wrapper's own model_type
    ("gemma3", [None]), ("gemma3", {"a": 1}), (None, ["gemma3_text"]),  # the nested text config's
])
def test_a_model_type_of_the_wrong_type_beside_a_text_config_is_a_config_error(wrapper_type, text_type):
    """Fuzz seed 29 (session 30, helper tidy30), case 2416: a gemma-3 wrapper whose model_type was ``[null]`` reached
    the wrapper → text type map before the type check (``TypeError: unhashable type: 'list'``); both model_types are
    now checked before either is looked up."""
    text = {k: v for k, v in tiny_llama().items() if k not in ("model_type", "architectures")}
    if text_type is not None:
        text["model_type"] = text_type
    cfg = {"architectures": ["Gemma3ForConditionalGeneration"], "text_config": text, "vision_config": {"model_type": 5}}
    if wrapper_type is not None:
        cfg["model_type"] = wrapper_type
    with pytest.raises(ConfigError, match="model_type must be a string"):
        from_config_dict(cfg, name="t", source="t/config.json")
