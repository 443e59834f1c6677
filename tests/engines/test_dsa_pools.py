"""DeepSeek sparse attention (DSA; SGLang "NSA") KV pools: the lightning-indexer keys beside the MLA latent.

Every number is the source arithmetic of the released wheels (helper dsa, 2026-12-03):

* SGLang ``mem_cache/memory_pool.py`` ``NSATokenToKVPool`` (0.5.3 – 0.5.23): per layer a uint8 buffer of
  ``page_size × (index_head_dim + index_head_dim // 128 × 4)`` per page: 128 fp8 keys + one fp32 scale = 132 B.
* SGLang cell (``get_cell_size_per_token`` 0.5.4 – 0.5.10, ``pool_configurator.py`` 0.5.20 – 0.5.23): the latent
  ``(kv_lora_rank + rope) × element`` plus the 132 B, per layer; 0.5.3's ``profile_max_num_token`` counts the
  latent only (PR #11309 added the keys).
* ``calculate_mla_kv_cache_dim``: with fp8 KV (non-trtllm) the stored latent record is 512 + 16 + 64 × 2 = 656 B.
* vLLM 0.11.0 – 0.29.0 ``deepseek_v2.py`` ``DeepseekV32IndexerCache``: an ``MLAAttentionSpec`` of 132 uint8 per
  token, summed with the latent in one ``UniformTypeKVCacheSpecs`` page.
"""

import json
from pathlib import Path

import pytest

from tpkit.engines.sglang.pool import (compute_cell, nsa_indexer_bytes_per_layer, nsa_latent_store_bytes, nsa_model,
                                       pool_buffers)
from tpkit.engines.vllm.pages import dsa_indexer_token_bytes
from tpkit.errors import ConfigError, PlanInputError
from tpkit.models.config import from_config_dict

CONFIGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs"


def _load(name: str, **edits):
    cfg = json.loads((CONFIGS / name / "config.json").read_text())
    cfg.update(edits)
    return from_config_dict(cfg, name=name, source=name)


@pytest.fixture(scope="module")
def v32():
    return _load("deepseek-ai__DeepSeek-V3.2")


@pytest.fixture(scope="module")
def glm5():
    return _load("zai-org__GLM-5.1")


def test_config_reads_the_indexer_fields(v32, glm5):
    assert (v32.dsa.index_head_dim, v32.dsa.index_n_heads, v32.dsa.index_topk) == (128, 64, 2048)
    assert (glm5.dsa.index_head_dim, glm5.dsa.index_n_heads, glm5.dsa.index_topk) == (128, 32, 2048)
    assert nsa_model(v32) and nsa_model(glm5)


def test_a_dsa_config_without_index_head_dim_is_refused():
    with pytest.raises(ConfigError, match="index_head_dim"):
        _load("deepseek-ai__DeepSeek-V3.2", index_head_dim=None)


def test_index_topk_on_an_unlisted_architecture_is_not_nsa():
    other = _load("deepseek-ai__DeepSeek-V3.2", architectures=["SomethingElseForCausalLM"])
    assert not nsa_model(other) and nsa_indexer_bytes_per_layer(other) == 0


@pytest.mark.parametrize("version, index", [("0.5.3", 0), ("0.5.4", 132), ("0.5.10", 132), ("0.5.23", 132)])
def test_indexer_bytes_per_layer_by_release(v32, version, index):
    assert nsa_indexer_bytes_per_layer(v32, version) == index


@pytest.mark.parametrize("version, dtype, per_layer", [
    ("0.5.3", "fp8_e4m3", 576), ("0.5.3", "bfloat16", 1152),     # before PR #11309: latent only
    ("0.5.4", "fp8_e4m3", 708), ("0.5.4", "bfloat16", 1284),     # 576 + 132, 1152 + 132
    ("0.5.10", "fp8_e4m3", 708), ("0.5.23", "bfloat16", 1284)])
def test_sglang_cell_per_token(v32, glm5, version, dtype, per_layer):
    assert compute_cell(v32, 8, 1, dtype, version=version).bytes_per_token == per_layer * 61
    assert compute_cell(glm5, 8, 1, dtype, version=version).bytes_per_token == per_layer * 78


def test_sglang_kpool_divides_the_indexer_row_from_0_5_23(v32):
    pooled = _load("deepseek-ai__DeepSeek-V3.2", index_kpool=4)
    assert nsa_indexer_bytes_per_layer(pooled, "0.5.22") == 132
    assert nsa_indexer_bytes_per_layer(pooled, "0.5.23") == 33


def test_shared_indexer_layers_are_refused_where_sglang_elides_them():
    shared = _load("zai-org__GLM-5.1", indexer_types=["full"] * 3 + ["shared"] * 75)
    assert compute_cell(shared, 8, 1, "bfloat16", version="0.5.10").bytes_per_token == 1284 * 78
    with pytest.raises(PlanInputError, match="shared"):
        compute_cell(shared, 8, 1, "bfloat16", version="0.5.20")


def test_sglang_pool_buffers_hold_the_index_pages(v32):
    cell = compute_cell(v32, 8, 1, "fp8_e4m3", version="0.5.10")
    plan = pool_buffers(cell, 975_424, 0, 64)
    index = [b for b in plan.buffers if b.name == "index_k_with_scale"][0]
    assert index.count == 61 and index.shape == ((975_424 + 64 + 1) // 64, 64 * 132)


def test_stored_latent_record(v32):
    assert nsa_latent_store_bytes(v32, "fp8_e4m3") == 656
    assert nsa_latent_store_bytes(v32, "fp8_e4m3", trtllm_backend=True) == 576
    assert nsa_latent_store_bytes(v32, "bfloat16") == 1152


def test_printed_sglang_sizes_match_the_source_arithmetic():
    """Public logs: gs_011 (PR #11309, B200, fp8): 975,424 tokens, 'KV size: 43.67 GB'; sg_020 (GLM-5-FP8,
    ROCm, fp8, page 1): 3,262,823 tokens, 186.77 GB — both (656 + 132) B per token and layer."""
    assert round(975_424 * (656 + 132) * 61 / 2**30, 2) == 43.67
    assert round(3_262_823 * (656 + 132) * 78 / 2**30, 2) == 186.77


@pytest.mark.parametrize("release, index", [((0, 10, 2), 0), ((0, 11, 0), 132), ((0, 29, 0), 132)])
def test_vllm_indexer_bytes_by_release(v32, release, index):
    assert dsa_indexer_token_bytes(v32, release) == index


def test_vllm_layout_page_sums_latent_and_indexer(v32):
    from tpkit.engines.vllm.pages import build_layout
    from tpkit.parallel import ParallelSpec

    layout = build_layout(v32, ParallelSpec(tp=8), block_size=64, era="0.33", dtype_bytes=2, dtype_name="bfloat16")
    assert layout.bytes_per_block.bytes == 61 * 64 * (1152 + 132)


def test_indexer_weights_are_counted_as_the_checkpoint_lists_them(v32):
    """DeepSeek-V3.2's tensor list: per layer indexer.wq_b [8192, 1536], wk [128, 7168], weights_proj [64, 7168],
    k_norm weight + bias [128] each: 13,959,424 parameters."""
    from tpkit.models.params import count_params

    plain = _load("deepseek-ai__DeepSeek-V3.2", index_topk=None)
    assert plain.dsa is None
    assert count_params(v32) - count_params(plain) == 61 * (8192 * 1536 + 128 * 7168 + 64 * 7168 + 2 * 128)


@pytest.mark.parametrize("gpu, version, flag, want", [
    ("B200", "0.5.10", "auto", ("fp8_e4m3", 64)),        # SM 10: fp8 by default
    ("H200", "0.5.10", "auto", ("bfloat16", 64)),        # SM 9: bf16 (0.5.5+)
    ("H200", "0.5.10", "fp8_e4m3", ("fp8_e4m3", 64)),    # an explicit dtype stays
    ("MI300X", "0.5.8", "fp8_e4m3", ("fp8_e4m3", 1)),    # ROCm: page 1 from 0.5.8
    ("MI300X", "0.5.5", "fp8_e4m3", ("fp8_e4m3", 64))])
def test_sglang_dsa_dtype_and_page_defaults(gpu, version, flag, want):
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.choices import nsa_kv_defaults
    from tpkit.hardware.catalog import lookup_gpu

    opts = SglangOptions(kv_cache_dtype=flag, engine_version=version)
    model_dtype = "fp8_e4m3" if flag == "fp8_e4m3" else "bfloat16"
    assert nsa_kv_defaults(lookup_gpu(gpu), opts, model_dtype, 1, version) == want


@pytest.mark.parametrize("release, user, want", [((0, 11, 0), None, 64), ((0, 14, 1), 16, 64), ((0, 17, 0), 128, 64)])
def test_vllm_sparse_mla_block_is_forced_to_64_in_0_11_to_0_17(v32, release, user, want):
    from tpkit.engines.vllm.blocksize import resolve_block_size
    from tpkit.engines.vllm.versions import rules_for

    block, note = resolve_block_size(v32, user, rules_for(release), (9, 0))
    assert block == want and (note is None) == (user is None)


def test_vllm_sparse_block_rule_ends_before_0_18(v32):
    from tpkit.engines.vllm.blocksize import default_block_size
    from tpkit.engines.vllm.versions import rules_for

    plain = _load("deepseek-ai__DeepSeek-V3.2", index_topk=None)
    rules = rules_for((0, 18, 0))
    assert default_block_size(v32, rules, (9, 0)) == default_block_size(plain, rules, (9, 0))
