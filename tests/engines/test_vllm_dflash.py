"""vLLM's DFlash drafter (``--speculative-config`` method ``dflash``, vLLM 0.20.0+): the release boundary, its KV
layers (plain GQA pages like an EAGLE head's) and its weights.  The draft config is a synthetic full-attention
DFlash head (architecture ``DFlashDraftModel``, five Qwen3 layers, 8 KV heads × 128), not a published checkpoint."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.speculative import parse_speculative_config
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(16 * 2**30))
DRAFT = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3", "hidden_size": 4096, "num_hidden_layers": 5,
         "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288,
         "vocab_size": 128256, "rms_norm_eps": 1e-6, "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
         "tie_word_embeddings": False, "dflash_config": {"mask_token_id": 128002, "target_layer_ids": [1, 8, 15, 22, 29]}}


def _draft(tmp_path, **over):
    path = tmp_path / "dflash" / "config.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(DRAFT | over))
    return str(path.parent)


def _plan(tmp_path, version, tokens=7, **over):
    spec = json.dumps({"method": "dflash", "model": _draft(tmp_path, **over), "num_speculative_tokens": tokens})
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), weights=W,
                     options=VllmOptions(engine_version=version, kv_cache_memory_bytes=Bytes(40 * 2**30),
                                         speculative_config=spec))


def test_dflash_is_refused_before_0_20_naming_the_first_release(tmp_path):
    with pytest.raises(PlanInputError, match=r"not in vLLM 0\.19\.1 \(vLLM adds it in 0\.20\.0\)"):
        _plan(tmp_path, "0.19.1")


@pytest.mark.parametrize("version", ["0.20.0", "0.27.1", "0.33.0"])
def test_dflash_layers_are_five_more_gqa_pages_in_the_pool(tmp_path, version):
    r = _plan(tmp_path, version)
    assert r.extra["bytes_per_block"] == (32 + 5) * 16 * 4_096  # 5 drafter layers of the target's page
    items = {l.item: l for l in r.ledger.items}
    assert items["drafter KV cache (dflash)"].bytes * 32 == items["KV cache"].bytes * 5
    assert r.ledger.check(Bytes(0)) == [] or not r.verdict.fits


def test_dflash_weights_share_the_embedding_and_lm_head(tmp_path):
    r = _plan(tmp_path, "0.33.0")
    drafter = r.ledger.get("drafter weights (dflash)").bytes
    # fc 5·4096→4096 (0.08 G) + five Qwen3 layers (0.20 G each) in bf16; no embedding/lm_head (2 × 0.53 G)
    assert GiB(1.9) < drafter < GiB(2.1)


def test_method_is_inferred_from_a_dflash_name_and_needs_a_model():
    assert parse_speculative_config({"model": "z-lab/Qwen3-8B-DFlash-b16", "num_speculative_tokens": 7}).method \
        == "dflash"
    with pytest.raises(PlanInputError, match="needs a draft model"):
        parse_speculative_config({"method": "dflash", "num_speculative_tokens": 7})


def test_a_sliding_dflash_draft_is_a_group_of_its_own_from_0_25(tmp_path):
    """0.25.0+ ``_resolve_layer_attention``: ``use_swa`` makes every layer sliding (window ``swa_window_size``); the
    full-attention target has no sliding group, so the drafter's five layers get groups of their own, each
    holding about window / block + 1 blocks per request.  0.24.0 builds the same draft with full layers."""
    over = dict(dflash_config={"use_swa": True, "swa_window_size": 2048, "target_layer_ids": [1, 8, 15, 22, 29]})
    r = _plan(tmp_path, "0.25.0", **over)
    groups = r.extra["kv_groups"]
    assert {g["kind"] for g in groups} == {"full", "sliding"}
    assert "drafter KV cache (dflash)" in {l.item for l in r.ledger.items}
    old = _plan(tmp_path, "0.24.0", **over)
    assert old.extra["bytes_per_block"] == (32 + 5) * 16 * 4_096 and r.kv_tokens > old.kv_tokens


def test_mixed_or_windowless_sliding_dflash_drafts_are_refused(tmp_path):
    with pytest.raises(PlanInputError, match="mixes sliding and full layers"):
        _plan(tmp_path, "0.33.0", layer_types=["sliding_attention"] * 4 + ["full_attention"])
    with pytest.raises(PlanInputError, match="no window"):
        _plan(tmp_path, "0.33.0", dflash_config={"use_swa": True})


@pytest.mark.parametrize("version, v2", [("0.23.0", False), ("0.24.0", True)])
def test_model_runner_v2_takes_dflash_from_0_24(version, v2):
    """``config/vllm.py _get_v2_model_runner_unsupported_features``: 0.22.0/0.23.0 list only eagle/eagle3/mtp,
    0.24.0 adds dflash; EAGLE-3 runs V2 in both."""
    from tpkit.engines.vllm.inputs import uses_v2_runner
    from tpkit.engines.vllm.versions import resolve_rules

    rules = resolve_rules(version)
    dflash = parse_speculative_config({"method": "dflash", "model": "x", "num_speculative_tokens": 7})
    eagle3 = parse_speculative_config({"method": "eagle3", "model": "x", "num_speculative_tokens": 3})
    assert uses_v2_runner(llama3_8b(), rules, eagle3)
    assert uses_v2_runner(llama3_8b(), rules, dflash) is v2


QWEN38 = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "Qwen__Qwen3.8-27B" / "config.json"
"""Qwen3.8-27B: 16 full-attention layers of 4 KV heads × 256 and 48 Gated-DeltaNet layers"""


def _hybrid_plan(tmp_path, version, **over):
    from tpkit.models.config import from_config_dict

    model = from_config_dict(json.loads(QWEN38.read_text()), name="Qwen3.8-27B", source=str(QWEN38))
    spec = json.dumps({"method": "dflash", "model": _draft(tmp_path, hidden_size=5120, **over),
                       "num_speculative_tokens": 7})
    return plan_vllm(model, H200, ParallelSpec(tp=2), weights=W,
                     options=VllmOptions(engine_version=version, kv_cache_memory_bytes=Bytes(11 * 2**30),
                                         max_model_len=65536, speculative_config=spec))


@pytest.mark.parametrize("version", ["0.27.1", "0.33.0"])
def test_a_drafter_of_another_head_shape_is_a_group_of_its_own_in_a_hybrid(tmp_path, version):
    """vLLM groups a hybrid's layers by spec equality (``same_type_layers[layer_spec]``; ``FullAttentionSpec.merge``
    asserts ``num_kv_heads`` and ``head_size`` equal; ``kv_cache_utils.py _get_kv_cache_groups_uniform_page_size``
    0.27.1, ``kv_cache_planning.py`` 0.33.0).  At TP 2 a DFlash layer of 8 KV heads × 128 costs 4 × 128 × 2 × 2 B =
    2,048 B per token, as a Qwen3.8 full layer of 4 × 256 does (2 × 256 × 2 × 2 B), but it is another spec: the five
    drafter layers are a bucket of their own, the group size becomes 5 (min 5, max 48 ≥ 1.5 × 5) and a block is
    5 pages.  A drafter of the target's head shape (4 KV heads × 256) joins the 16 full layers (21 layers; group
    size 21)."""
    other = _hybrid_plan(tmp_path, version)
    page = other.extra["bytes_per_block"] // 5
    assert other.extra["bytes_per_block"] == 5 * page and page % 2_048 == 0
    same = _hybrid_plan(tmp_path, version, num_key_value_heads=4, head_dim=256)
    assert same.extra["bytes_per_block"] == 21 * page
