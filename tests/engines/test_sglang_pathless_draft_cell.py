"""A path-less EAGLE MTP draft leaves SGLang's target cell unscaled in 0.5.14 – 0.5.19 (helper sgf14, 2026-12-05;
issue 11: the third term behind round sgb14's nine A100 Qwen3.6/3.8-27B boots).

Read in the sglang wheels: ``eagle_draft_num_layers``, which ``pool_configurator.py DefaultPoolConfigurator`` adds to
the cell as × (1 + d/L), is set only when ``speculative_draft_model_path`` is set (0.5.14 / 0.5.15
``model_runner.py``; 0.5.16 – 0.5.19 ``spec_aux_hidden_state.py _resolve_eagle_aux_hidden_state``); SGLang fills the
path with the model path only for twelve architectures (``speculative_hook.py _handle_eagle_family``: DeepSeek-V3 /
V3.2 / V4, GLM-4 MoE, Bailing, Mistral Large 3, Pixtral, HY-V3).  0.5.20 reads a path-less draft's layers from the
target config instead."""

import json
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.spec import draft_cell_counted
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
A100 = lookup_gpu("A100-PCIe-80GB")
MTP = dict(speculative_algorithm="EAGLE", speculative_num_steps=5, speculative_eagle_topk=1,
           speculative_num_draft_tokens=6)


def _qwen36():
    cfg = json.loads((CONFIGS / "Qwen--Qwen3.6-27B.json").read_text())
    return from_config_dict(cfg, name="Qwen/Qwen3.6-27B", source="test")


@pytest.mark.parametrize("version, path, arch, counted", [
    ("0.5.17", None, "Qwen3_5ForConditionalGeneration", False),
    ("0.5.14", None, "Qwen3NextForCausalLM", False),
    ("0.5.19", None, "Qwen3_5ForConditionalGeneration", False),
    ("0.5.20", None, "Qwen3_5ForConditionalGeneration", True),
    ("0.5.17", "some/draft", "Qwen3_5ForConditionalGeneration", True),
    ("0.5.17", None, "DeepseekV3ForCausalLM", True),
    ("0.5.17", None, "Glm4MoeForCausalLM", True)])
def test_the_cell_carries_the_draft_only_with_a_draft_path(version, path, arch, counted):
    options = SglangOptions(engine_version=version, speculative_draft_model_path=path, **MTP)
    assert draft_cell_counted(options, arch, "EAGLE")[0] is counted


@pytest.mark.parametrize("version, more", [("0.5.19", True), ("0.5.20", False)])
def test_a_path_less_mtp_draft_plans_more_target_tokens_until_0_5_20(version, more):
    """Without the growth the budget's cell is the target's alone: more tokens; the draft pool moves to the slack
    (its ledger line, and the ledger still adds up).  A given draft path (the model's own) brings the growth back."""
    model = _qwen36()
    kw = dict(engine_version=version, mem_fraction_static=0.92, context_length=169000, page_size=64,
              max_running_requests=4, mm_feature_transport="cpu", mamba_ssm_dtype="bfloat16", **MTP)
    pathless = plan_sglang(model, A100, ParallelSpec(), SglangOptions(**kw))
    given = plan_sglang(model, A100, ParallelSpec(), SglangOptions(**kw, speculative_draft_model_path="Qwen/Qwen3.6-27B"))
    if more:
        assert pathless.kv_tokens > given.kv_tokens * 1.05
        items = [l.item for l in pathless.ledger.items]
        assert "draft KV pool (after the target's pool, from the slack)" in items
    else:
        assert pathless.kv_tokens == given.kv_tokens
