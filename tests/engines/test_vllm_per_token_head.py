"""vLLM's per-token-head KV dtypes (engines/vllm/kvdtype.py ``per_token_head_bytes``, helper kvd23; read in the
0.19.1, 0.20.0–0.30.0 and 0.34.0 wheels): a 1-byte element (int4: two values a byte) plus one fp32 scale per K and
per V head vector of every token, in plan, explain and plan --from-log alike (one home: layer_bytes.per_token_bytes).
Each page below is computed by hand from v1/kv_cache_interface.py AttentionSpec.unpadded_page_size_bytes (0.26.0):
block × kv_heads × (h_k + h_v) × 1 + 2 × block × kv_heads × 4."""

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.kvdtype import INT4_SLIDING_HALVED, accepted_values, kv_dtype, per_token_head_bytes
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _plan(**kw):
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(**kw), weights=W)


# Llama-3-8B, block 16: 32 layers × 8 KV heads per rank, head_dim 128
@pytest.mark.parametrize("value,version,page", [
    ("int8_per_token_head", "0.20.0", 16 * 32 * 8 * (128 + 128) + 2 * 16 * 32 * 8 * 4),   # 1,081,344 B
    ("fp8_per_token_head", "0.26.0", 16 * 32 * 8 * (128 + 128) + 2 * 16 * 32 * 8 * 4),    # 1,081,344 B
    ("int4_per_token_head", "0.25.0", 16 * 32 * 8 * (64 + 64) + 2 * 16 * 32 * 8 * 4),     # 557,056 B
])
def test_plan_pins_one_hand_computed_page_per_dtype(value, version, page):
    bf16 = _plan(block_size=16, engine_version=version)
    plan = _plan(kv_cache_dtype=value, block_size=16, engine_version=version)
    assert plan.extra["bytes_per_block"] == page
    assert page == {"int4_per_token_head": 557_056}.get(value, 1_081_344)
    assert plan.extra["kv_blocks"] > bf16.extra["kv_blocks"]  # smaller pages, more of them
    assert plan.extra["vllm"]["attention_backend"] == "TRITON_ATTN"  # the only backend that takes them


@pytest.mark.parametrize("value,lacks,first", [("int8_per_token_head", "0.19.1", "0.20.0"),
                                               ("fp8_per_token_head", "0.19.1", "0.20.0"),
                                               ("int4_per_token_head", "0.24.0", "0.25.0")])
def test_a_release_that_lacks_the_dtype_refuses_it(value, lacks, first):
    release = tuple(int(x) for x in lacks.split("."))
    assert value not in accepted_values(release)
    with pytest.raises(PlanInputError, match=rf"{value} is not accepted by vLLM {lacks}.*arrived in {first}"):
        _plan(kv_cache_dtype=value, block_size=16, engine_version=lacks)


def test_int4_sliding_pages_keep_full_width_until_0_28():
    """0.25.0–0.27.1 SlidingWindowSpec.real_page_size_bytes ignores the int4 mode; 0.28.0 customize_spec halves it."""
    int4, int8 = kv_dtype("int4_per_token_head"), kv_dtype("int8_per_token_head")
    assert per_token_head_bytes(int4, 128, 128, kind="full", release=(0, 26, 0)) == 64 + 64 + 8
    assert per_token_head_bytes(int4, 128, 128, kind="sliding", release=(0, 27, 1)) == 128 + 128 + 8
    assert per_token_head_bytes(int4, 128, 128, kind="sliding", release=INT4_SLIDING_HALVED) == 64 + 64 + 8
    assert per_token_head_bytes(int8, 256, 256, kind="sliding", release=(0, 20, 0)) == 512 + 8


def test_mla_models_are_refused():
    with pytest.raises(PlanInputError, match="no MLA attention backend"):
        kv_dtype("int8_per_token_head", (0, 29, 0), mla=True)


def test_explain_starts_an_inferred_release_range_at_the_kv_dtypes_first_release():
    """explain.flagmerge.kv_dtype_floor: the run started, so its release parses the logged --kv-cache-dtype."""
    from tpkit.explain.flagmerge import kv_dtype_floor

    notes: list[str] = []
    assert kv_dtype_floor("≥ 0.11 (worker process name)", "int8_per_token_head", notes) == "≥ 0.20"
    assert "accepted from vLLM 0.20.0" in notes[0]
    assert kv_dtype_floor("0.18–0.27", "int4_per_token_head", []) == "0.25–0.27"
    assert kv_dtype_floor("0.21–0.27", "int8_per_token_head", []) == "0.21–0.27"  # already inside
    assert kv_dtype_floor("0.11–0.19", "int8_per_token_head", []) == "0.11–0.19"  # formats disagree: left as is
    assert kv_dtype_floor("≥ 0.11", "auto", []) == "≥ 0.11"


def test_a_drafters_kv_layers_take_the_per_token_head_layout():
    """drafter._kv: the MTP layer of a Llama-shaped target under int8_per_token_head costs 8 heads × (256 + 8) B."""
    from tpkit.engines.vllm.drafter import _kv

    model = llama3_8b()
    int8 = kv_dtype("int8_per_token_head")
    assert _kv(model, model, 1, 1, 1, True, None, int8, (0, 24, 0)).per_token_bytes == 8 * (256 + 8)
    assert _kv(model, model, 1, 1, 1, True).per_token_bytes == 8 * 256
