"""The sparse-attention indexer's profile reservation for every model that builds it (``tpkit.engines.vllm.
sparse_indexer``; helper idx12): DeepSeek-V3.2 and GLM-5 (``index_topk`` + MLA) as well as DeepSeek-V4, on both
sides of each release boundary read in the vllm wheels (0.10.2, 0.11.0, 0.12.0, 0.13.0, 0.18.0, 0.19.0, 0.19.1,
0.20.0, 0.31.0, 0.32.0, 0.33.0)."""

import json
from pathlib import Path

import pytest

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
IDX = "profile phase: sparse indexer profile reservation"
MIB = 2**20


def _plan(config, version, max_model_len, gpu="H200-SXM-141GB", tp=8):
    from tpkit.engines.registry import get_engine
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models.config import from_config_dict
    from tpkit.parallel import ParallelSpec

    path = CONFIGS / f"{config}.json"
    model = from_config_dict(json.loads(path.read_text()), name=config, source=str(path))
    engine = get_engine("vllm")
    return engine.plan(model, lookup_gpu(gpu), ParallelSpec(tp=tp),
                       engine.options(engine_version=version, max_model_len=max_model_len,
                                      max_num_batched_tokens=2048))


def _reservation(config, version, max_model_len):
    items = {l.item: l.bytes.bytes for l in _plan(config, version, max_model_len).ledger.items}
    if IDX not in items:
        return None
    return items[IDX] - items["profile phase: attention"]


def _ws(entries, head=128):
    return -(-entries * head // 256) * 256 + -(-entries * 4 // 256) * 256


@pytest.mark.parametrize("config", ["deepseek-ai--DeepSeek-V3.2", "zai-org--GLM-5.1"])
@pytest.mark.parametrize("version, expected", [
    ("0.10.2", None),                                          # no indexer in the DeepSeek-V2 model code
    ("0.11.0", 2 * (65536 * 2) * 132),                         # fake op: (T, 132) block + its two copies, T = 2·len
    ("0.12.0", 2 * (65536 * 2) * 132),
    ("0.13.0", _ws(65536 * 40)),                               # workspace manager, T = 40·len
    ("0.18.0", _ws(65536 * 40)),
    ("0.19.0", _ws(65536 * 40) + 512 * MIB),                   # + the dummy logits block
    ("0.19.1", _ws(65536 * 40) + 512 * MIB),
    ("0.20.0", _ws(65536 * 40) + MIB + 512 * MIB),             # + the radix top-k workspace
    ("0.31.0", _ws(65536 * 40) + MIB + 512 * MIB),
    ("0.32.0", _ws(65536 * 8 * 5) + MIB + 512 * MIB),          # factor 5 at <= 256 Ki tokens: still 40
])
def test_dsa_models_reserve_the_indexer_workspace_per_release(config, version, expected):
    # before helper idx12 only model_type deepseek_v4 got the phase: DeepSeek-V3.2 / GLM-5 had none
    assert _reservation(config, version, 65536) == expected


@pytest.mark.parametrize("version, per_token", [("0.31.0", 40), ("0.32.0", 16), ("0.33.0", 16)])
def test_long_context_factor_drops_to_2_from_0_32(version, per_token):
    # config/vllm.py 0.32.0+: sparse_mla_prefill_workspace_factor = 5 if max_model_len <= 256 Ki else 2
    from tpkit.engines.vllm.sparse_indexer import indexer_profile_reservation
    from tpkit.engines.vllm.versions import parse_version
    from tpkit.models.config import from_config_dict

    model = from_config_dict(json.loads((CONFIGS / "zai-org--GLM-5.1.json").read_text()), name="glm", source="t")
    length = 300_000  # above GLM-5.1's 202,752 positions: the function alone (the plan refuses the length)
    got = indexer_profile_reservation(model, parse_version(version), max_model_len=length)
    assert got[0] == _ws(length * per_token) + MIB + 512 * MIB


def test_deepseek_v4_divides_by_its_compress_ratio_and_arrives_in_0_20():
    from tpkit.engines.vllm.sparse_indexer import indexer_entries
    from tpkit.models.config import from_config_dict

    path = CONFIGS / "deepseek-ai--DeepSeek-V4-Flash.json"
    model = from_config_dict(json.loads(path.read_text()), name="v4", source=str(path))
    assert indexer_entries(model, (0, 19, 1), 8192) is None
    assert indexer_entries(model, (0, 20, 0), 8192) == 8192 * 40 // 4
    assert indexer_entries(model, (0, 33, 0), 8192) == 8192 * 8 * 5 // 4


def test_a_model_without_index_topk_gets_no_phase():
    from tpkit.engines.vllm.sparse_indexer import indexer_profile_reservation
    from tpkit.models.config import from_config_dict

    cfg = json.loads((CONFIGS / "deepseek-ai--DeepSeek-V3.2.json").read_text())
    cfg.pop("index_topk")
    model = from_config_dict(cfg, name="v3-dense-attention", source="test")
    assert indexer_profile_reservation(model, (0, 29, 0), max_model_len=65536) is None
