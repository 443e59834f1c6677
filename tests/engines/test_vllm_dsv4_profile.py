"""DeepSeek-V4's load buffers and profile attention phase in vLLM (``tpkit.engines.vllm.dsv4_profile``, helper v417):
the module's hand arithmetic, both sides of each release boundary, and the prints of vp_415 (``vllm serve``, 8,192
batched tokens) and vp_417 (``vllm.LLM``, 16,384) on the same two H200s with the same flags: 'Model loading took'
74.08 / 74.35 GiB, 'Available KV cache memory' 32.08 / 29.07 GiB."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm.dsv4_profile import (BUFFERS_ITEM, attention_phase, batched_buffers, flashmla_dummy_workspace,
                                             forward_applies, padded_heads)
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

CONFIG = Path(__file__).resolve().parents[1] / "validation" / "configs" / "deepseek-ai--DeepSeek-V4-Flash.json"
GIB = 2 ** 30
ATT = "profile phase: attention"
PEAK = "activation peak (profile run, estimate)"


def _model():
    return from_config_dict(json.loads(CONFIG.read_text()), name="deepseek-ai/DeepSeek-V4-Flash", source=str(CONFIG))


def _plan(version="0.23.0", batched=None, **kw):
    engine = get_engine("vllm")
    opts = dict(gpu_memory_utilization=0.78, max_model_len=4096, kv_cache_dtype="fp8", enforce_eager=True,
                quantization="deepseek_v4_fp8") | kw
    if batched is not None:
        opts["max_num_batched_tokens"] = batched
    return engine.plan(_model(), lookup_gpu("H200"), ParallelSpec(tp=2), engine.options(engine_version=version, **opts))


def _items(plan):
    return {l.item: l for l in plan.ledger.items}


def test_batched_buffers_are_the_mtp_residual_and_topk_indices():
    # _mtp_hidden_buffer T × hc_mult 4 × H 4,096 × 2 B + topk_indices_buffer T × index_topk 512 × 4 B
    nbytes, how = batched_buffers(_model(), 8192, 2, (0, 23, 0))
    assert nbytes == 8192 * (4 * 4096 * 2 + 512 * 4) == 285_212_672
    assert "DeepseekV4Model.__init__" in how
    # the printed loads differ by 74.35 − 74.08 GiB between 16,384 and 8,192 batched tokens
    more = batched_buffers(_model(), 16384, 2, (0, 23, 0))[0] - nbytes
    assert abs(more / GIB - (74.35 - 74.08)) < 0.01


@pytest.mark.parametrize("release, present", [((0, 19, 1), False), ((0, 20, 0), True), ((0, 26, 0), True),
                                              ((0, 27, 0), False)])
def test_batched_buffers_release_range(release, present):
    assert (batched_buffers(_model(), 8192, 2, release)[0] > 0) is present


def test_batched_buffers_only_for_deepseek_v4():
    other = replace(_model(), model_type="deepseek_v3")
    assert batched_buffers(other, 8192, 2, (0, 23, 0)) == (0, "")


def test_load_line_follows_the_batched_tokens_as_the_prints_do():
    serve, llm = _items(_plan(batched=8192)), _items(_plan(batched=16384))
    assert serve[BUFFERS_ITEM].bytes.bytes == 285_212_672
    grew = llm[BUFFERS_ITEM].bytes.bytes - serve[BUFFERS_ITEM].bytes.bytes
    assert abs(grew / GIB - 0.27) < 0.01  # 'Model loading took 74.35 GiB' (vp_417) vs '74.08 GiB' (vp_415)


def test_load_line_absent_before_deepseek_v4_support():
    # tpkit's DeepSeek-V4 plan refuses releases before 0.20.0; the buffer rule itself starts there
    with pytest.raises(PlanInputError):
        _plan(version="0.19.1", batched=8192)
    assert BUFFERS_ITEM in _items(_plan(version="0.20.0", batched=8192))


@pytest.mark.parametrize("release, engine, applies", [((0, 22, 1), "V1", False), ((0, 23, 0), "V1", True),
                                                      ((0, 25, 1), "V1", True), ((0, 26, 0), "V1", False),
                                                      ((0, 23, 0), "V0", False)])
def test_forward_release_range(release, engine, applies):
    assert forward_applies(_model(), release, engine) is applies


@pytest.mark.parametrize("heads, padded", [(32, 64), (64, 64), (65, 128), (128, 128)])
def test_flashmla_pads_the_query_heads(heads, padded):
    assert padded_heads(heads) == padded


def test_flashmla_refuses_more_than_128_heads():
    with pytest.raises(PlanInputError, match="at most 128 heads"):
        padded_heads(129)


def test_hand_computed_phase_at_tp2():
    # held: 2 × (4·4,096 + 4,096) × 2 = 81,920; o_padded 64 × 512 × 2 = 65,536; qr_kv and its normed copy
    # 2 × 1,536 × 2 = 6,144; compressor scores 2 × 2 × 512 × 4 = 8,192; indexer compressor 2 × 2 × 128 × 4 = 2,048;
    # indexer weights 64 × 2 = 128  ->  base 163,968
    base = 163_968
    padded = base + 32 * 512 * 2 + 64 * 512 * 2
    indexer = base + 64 * 128 + 64 * 4
    assert padded == 262_272 and indexer == 172_416
    ws = 16384 * 6 * (4096 + 4096) * 2  # Marlin / Triton: M·k·max(N, K) + M·k·max(2N, K), N 1,024
    nbytes, how = attention_phase(_model(), 2, 16384, 2, max_model_len=4096, moe_workspace=Bytes(ws),
                                  indexer_workspace=Bytes(40960 * 132))
    assert nbytes.bytes == 16384 * padded + ws  # the padded-q moment, over the indexer's 16,384 × 172,416 + 512 MiB
    assert "q and its padded copy" in how
    small, how = attention_phase(_model(), 2, 1024, 2, max_model_len=4096,
                                 moe_workspace=Bytes(1024 * 6 * 8192 * 2), indexer_workspace=Bytes(40960 * 132))
    assert small.bytes == 1024 * indexer + 512 * 2**20 + 1024 * 6 * 8192 * 2  # few tokens: the logits block wins
    assert "512 MiB dummy logits" in how


def test_kept_buffer_is_the_largest_request_not_the_sum():
    # vp_593's shape: 1,048,576 max_model_len, 4,096 batched tokens
    flash = flashmla_dummy_workspace(_model(), 4096, 1048576)
    assert flash == Bytes(4 * (262144 + 128 + 4096) * 512 * 2)
    idx = 1048576 * 40 // 4 * 132 + 2**20
    moe = 4096 * 6 * 8192 * 2
    nbytes, how = attention_phase(_model(), 2, 4096, 2, max_model_len=1048576, moe_workspace=Bytes(moe),
                                  indexer_workspace=Bytes(idx))
    live = max(4096 * 172_416 + 512 * 2**20, 4096 * 262_272)
    assert nbytes.bytes == live + idx
    assert "the indexer's K-gather workspace" in how


@pytest.mark.parametrize("version, own", [("0.22.1", False), ("0.23.0", True), ("0.25.1", True)])
def test_plan_uses_the_phase_from_0_23(version, own):
    items = _items(_plan(version=version, batched=8192))
    assert ("DeepSeek-V4 attention" in items[ATT].source) is own
    assert ("profile phase: sparse indexer profile reservation" in items) is not own


def test_plan_grows_with_the_batched_tokens_as_vp415_and_vp417_print():
    # vp_415 / vp_417: 2.74 GiB more non-KV, non-weight memory for 8,192 more batched tokens (same GPUs and flags)
    serve, llm = _items(_plan(batched=8192)), _items(_plan(batched=16384))
    grew = (llm[PEAK].bytes.bytes - serve[PEAK].bytes.bytes) / GIB
    assert abs(grew - 2.74) < 0.1
    # the generic estimate (0.22.1) grew by under a tenth of that
    old_s, old_l = _items(_plan(version="0.22.1", batched=8192)), _items(_plan(version="0.22.1", batched=16384))
    assert (old_l[PEAK].bytes.bytes - old_s[PEAK].bytes.bytes) / GIB < 0.3


def test_sampler_phase_sits_on_the_kept_buffer():
    items = _items(_plan(batched=8192))
    assert "kept WorkspaceManager buffer 0.75 GiB" in items["profile phase: logits + sampler"].source


@pytest.mark.parametrize("release, caches", [((0, 19, 1), [(1048576, 512, 2)]),
                                             ((0, 20, 0), [(1048576, 64, 4), (1048576, 64, 4)]),
                                             ((0, 25, 0), [(1048576, 64, 4), (1048576, 64, 4)])])
def test_rotary_caches_are_two_fp32_rope_dim_tables_from_0_20(release, caches):
    # DeepseekV4ScalingRotaryEmbedding: rope_dim = qk_rope_head_dim 64, float32, 65,536 × 16 rows; rope_theta 10,000
    # (uncompressed layers) and compress_rope_theta 160,000 (compressed ones) key two get_rope caches.  Before 0.20.0
    # vLLM has no DeepSeek-V4, and the generic rule (head_dim × dtype) stands.
    from tpkit.engines.vllm.rotary import rotary_caches

    got = rotary_caches(_model(), 2, release)
    assert [(c.rows, c.dim, c.elem) for c in got] == caches


def test_one_rotary_cache_without_compress_rope_theta():
    from tpkit.engines.vllm.rotary import rotary_caches

    m = _model()
    m = replace(m, extra={k: v for k, v in m.extra.items() if k != "compress_rope_theta"})
    assert len(rotary_caches(m, 2, (0, 23, 0))) == 1


def test_printed_loads_match_with_buffers_and_rotary():
    # 'Model loading took 74.08 GiB' (vllm serve, 8,192) and '74.35 GiB' (vllm.LLM, 16,384): weights + rotary + buffers
    for batched, printed in ((8192, 74.08), (16384, 74.35)):
        items = _items(_plan(batched=batched))
        loaded = sum(items[k].bytes.bytes for k in ("model weights", "rotary cos/sin cache", BUFFERS_ITEM)) / GIB
        assert abs(loaded - printed) < 0.1
