"""The MTP head is named as the checkpoint and vLLM name it, so a quantisation ignore list that names it keeps it
unquantised (helper mtp17, issue 11: vp_734).

Facts (docstring of ``models.mtp_parts.mtp_layer_name``): vLLM 0.19.1 – 0.34.0 builds the Qwen3.5 / Qwen3-Next MTP
module under the prefix ``mtp`` (``mtp.fc``, ``mtp.layers.0.…``) and the DeepSeek-V3 / GLM-4.5 one as
``model.layers.<num_hidden_layers>.…``; compressed-tensors matches an ignore entry as the exact module name or a
``re:`` pattern from the start (``compressed_tensors/utils.py`` ``should_ignore_layer`` →
``quantization/utils/config_utils.py`` ``is_equal_or_regex_match``), ModelOpt also by substring and ``fnmatch``
(``modelopt.py`` ``is_layer_excluded``). RedHatAI/Qwen3.6-35B-A3B-NVFP4 keeps the head in BF16 with
``re:^mtp.*``: 'MTP head adds 1.57 GiB of weight load' (the deployment README, search-index id 51910320717).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tpkit.models import from_config_dict, load_model
from tpkit.models.mtp_parts import mtp_layer_name, mtp_parts
from tpkit.models.quant import is_quantised, resolve_quant
from tpkit.models.weights import mtp_bytes

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
NVFP4 = CONFIGS / "RedHatAI--Qwen3.6-35B-A3B-NVFP4.json"


def _qwen(ignore: list[str]):
    cfg = json.loads(NVFP4.read_text())
    cfg = copy.deepcopy(cfg)
    qc = cfg.get("quantization_config") or cfg["text_config"]["quantization_config"]
    qc["ignore"] = ignore
    return from_config_dict(cfg, name="qwen3.6-nvfp4", source="test")


def _gib(spec) -> float:
    return mtp_bytes(spec, "bfloat16", resolve_quant(spec.quant, None)).bytes / 2**30


def test_qwen_mtp_modules_carry_the_checkpoint_prefix():
    spec = load_model(str(NVFP4))
    names = [p.name for p in mtp_parts(spec)]
    assert mtp_layer_name(spec) == "mtp.layers.0"
    assert "mtp.fc" in names and "mtp.norm" in names
    assert all(n.startswith("mtp.") for n in names), names
    assert "mtp.layers.0.mlp.experts.gate_proj" in names and "mtp.layers.0.self_attn.q_proj" in names


def test_regex_ignore_keeps_the_nvfp4_head_in_bf16_and_without_it_quantised():
    ignore = json.loads(NVFP4.read_text())["quantization_config"]["ignore"]
    assert "re:^mtp.*" in ignore
    with_entry = _gib(_qwen(ignore))
    without = _gib(_qwen([i for i in ignore if "mtp" not in i]))
    assert with_entry == pytest.approx(1.57, abs=0.01)  # the README's 'MTP head adds 1.57 GiB of weight load'
    assert without == pytest.approx(0.45, abs=0.01)  # the same head in NVFP4 (routed experts at 4 bits)


def test_vllm_drafter_loads_the_bf16_head():
    from tpkit.engines.vllm.drafter import plan_drafter
    from tpkit.engines.vllm.speculative import SpecConfig
    from tpkit.parallel import ParallelSpec

    ignore = json.loads(NVFP4.read_text())["quantization_config"]["ignore"]
    spec_cfg = SpecConfig(method="mtp", model=None, num_speculative_tokens=1, draft_tensor_parallel_size=None)
    got = {}
    for label, lst in (("with", ignore), ("without", [i for i in ignore if "mtp" not in i])):
        d = plan_drafter(_qwen(lst), spec_cfg, ParallelSpec(), kv_bytes=2, act_dtype="bfloat16",
                         target_quantization=None)
        got[label] = d.weights.bytes / 2**30
    assert got["with"] == pytest.approx(1.57, abs=0.01)
    assert got["without"] < 0.5


def test_exact_name_ignore_entries_match_the_modules_they_name():
    ignore = ["re:.*linear_attn.*", "re:.*mlp.gate$", "lm_head", "mtp.fc",
              "mtp.layers.0.self_attn.q_proj", "mtp.layers.0.self_attn.k_proj", "mtp.layers.0.self_attn.v_proj",
              "mtp.layers.0.self_attn.o_proj"]
    spec = _qwen(ignore)
    quant = resolve_quant(spec.quant, None)
    by_name = {p.name: is_quantised(p, quant) for p in mtp_parts(spec, fc_quantised=True)}
    assert not by_name["mtp.fc"] and not by_name["mtp.layers.0.self_attn.q_proj"]
    assert by_name["mtp.layers.0.mlp.experts.gate_proj"]  # not named: quantised
    # a decoder layer's own attention is not touched by the MTP entries
    from tpkit.models.params import layer_parts

    full = max(i for i, k in enumerate(spec.layer_kinds) if k == "full")
    assert all(is_quantised(p, quant) for p in layer_parts(spec, full) if p.name.endswith("self_attn.q_proj"))
    assert _qwen([]).quant is not None and _gib(_qwen(ignore)) > _gib(_qwen(["re:.*mlp.gate$"]))


def test_deepseek_layout_head_is_named_after_the_last_decoder_layer():
    spec = load_model("deepseek-ai/DeepSeek-V3")
    assert mtp_layer_name(spec) == f"model.layers.{spec.num_layers}" == "model.layers.61"
    names = [p.name for p in mtp_parts(spec)]
    assert all(n.startswith("model.layers.61.") for n in names), names
    cfg = {"model_type": "deepseek_v3", **_deepseek_text(spec)}
    nvfp4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}
    quantised = from_config_dict({**cfg, "quantization_config": {**nvfp4, "ignore": ["lm_head"]}},
                                 name="ds", source="t")
    kept = from_config_dict({**cfg, "quantization_config": {**nvfp4, "ignore": ["lm_head", "model.layers.61*"]}},
                            name="ds", source="t")
    assert _gib(kept) > 3 * _gib(quantised)  # the head a ModelOpt exclude glob names stays BF16


def _deepseek_text(spec) -> dict:
    from tpkit.models.catalog import catalog_entries

    entry = next(e for e in catalog_entries() if e.id.lower() == "deepseek-ai/deepseek-v3")
    cfg = dict(entry.config)
    cfg.pop("quantization_config", None)
    return cfg


def test_perf_mtp_layer_reads_the_ignore_list_by_the_heads_name():
    from tpkit.models.params import layer_parts
    from tpkit.perf.spec import _mtp_layer

    ignore = json.loads(NVFP4.read_text())["quantization_config"]["ignore"]
    for lst, quantised in ((ignore, False), ([i for i in ignore if "mtp" not in i], True)):
        target = _qwen(lst)
        layer = _mtp_layer(target)
        parts = [p for p in layer_parts(layer, 0) if p.name.endswith("mlp.experts.gate_proj")]
        assert parts and parts[0].name == "mtp.layers.0.mlp.experts.gate_proj"
        assert is_quantised(parts[0], layer.quant) is quantised


@pytest.mark.parametrize("release, quantised", [((0, 10, 2), False), ((0, 19, 1), True), ((0, 20, 0), False),
                                                 ((0, 34, 0), False), (None, False)])
def test_vllm_builds_the_mtp_fc_without_quant_config_for_modelopt_nvfp4_from_0_20(release, quantised):
    from tpkit.engines.vllm.drafter import _mtp_fc_quantised

    cfg = json.loads(NVFP4.read_text())
    cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
                                  "ignore": ["lm_head"]}
    spec = from_config_dict(cfg, name="q", source="t")
    assert _mtp_fc_quantised(spec, None, release) is quantised
    # compressed-tensors NVFP4 keeps the model's quant config on the fc (its ignore list decides)
    assert _mtp_fc_quantised(_qwen(["lm_head"]), None, release) is (release is None or release >= (0, 11, 0))
