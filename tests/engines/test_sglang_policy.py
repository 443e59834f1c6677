"""plan_sglang end to end: ledger narrative, verdicts with fixes, errors, machine profiles, log lines."""

import json

import pytest

from sglang_fixtures import deepseek_v3, gpt_oss_120b, ledger_problems, llama3_8b, plan
from tpkit.engines.sglang import SglangOptions
from tpkit.errors import PlanInputError, is_user_error
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.units import Bytes, GiB, MiB


def test_ledger_narrates_in_order_and_adds_up():
    r = plan(tp=2, mem_fraction_static=0.85)
    items = [l.item for l in r.ledger.items]
    reserve = next(l.item for l in r.ledger.items if l.kind == "reserve")
    assert r.ledger.items[0].kind == "capacity"
    assert items.index("CUDA context") < items.index("weights") < items.index(reserve) < items.index("KV pool")
    assert "custom all-reduce buffers" in items and "NCCL process group" in items
    assert ledger_problems(r) == []
    assert all(l.source for l in r.ledger.items)


def test_tokens_follow_the_rest_formula():
    r = plan(mem_fraction_static=0.8, weights=GiB(15))
    pre = r.ledger.get("free before weights (pre_model_load_memory)").bytes
    stream = Bytes(r.extra["sglang"]["stream_pool_bytes"])  # 0.5.9+ at tp 1: engines.sglang.streams
    assert stream == MiB(70)
    rope = Bytes(r.extra["sglang"]["rope_reserve_bytes"])  # 0.5.6+ after the weights: engines.sglang.rope
    assert rope == MiB(1)  # nominal of 0 … the 2 MiB the 64 MiB cache grows by
    workspace = Bytes(r.extra["sglang"]["deepgemm_workspace_bytes"])  # 0.5.15+ on SM 9.0: engines.sglang.streams
    assert workspace == MiB(32)
    rest = pre - stream - workspace - GiB(15) - rope - pre * 0.2
    assert r.kv_tokens == rest.bytes // 131_072
    assert r.kv_pool.total_bytes == Bytes((r.kv_tokens + 1) * 131_072)
    assert r.max_concurrency == pytest.approx(r.kv_tokens / 131_072)


def test_tp1_has_no_nccl_or_custom_allreduce_terms():
    items = [l.item for l in plan(tp=1).ledger.items]
    assert "NCCL process group" not in items and "custom all-reduce buffers" not in items


def test_fp8_kv_roughly_doubles_tokens_and_max_total_tokens_caps():
    bf16, fp8 = plan(), plan(kv_cache_dtype="fp8_e4m3")
    assert fp8.kv_tokens in range(2 * bf16.kv_tokens - 2, 2 * bf16.kv_tokens + 3)
    assert fp8.kv_pool.dtype == "fp8_e4m3"
    assert plan(max_total_tokens=100_000, page_size=64).kv_tokens == 99_968


def test_weights_over_budget_says_which_knob_and_by_how_much():
    r = plan(weights=GiB(72.3))
    assert not r.verdict.fits and r.kv_tokens == 0 and r.engine_log == ()
    msg = r.verdict.message
    assert "72.30 GiB exceed" in msg and "--tp 2" in msg and "--mem-fraction-static ≥ 0.9" in msg
    f_min = float(msg.split("--mem-fraction-static ≥ ")[1][:5])
    assert plan(weights=GiB(72.3), mem_fraction_static=f_min).verdict.fits
    assert not plan(weights=GiB(72.3), mem_fraction_static=round(f_min - 0.002, 3)).verdict.fits


def test_model_too_big_for_any_fraction_suggests_tp_only():
    r = plan(weights=GiB(120))
    assert not r.verdict.fits and r.verdict.knob == "--tp" and "fraction" not in r.verdict.message


@pytest.mark.parametrize("fraction", [0, -0.1, 1.5, True])
def test_fraction_outside_range_is_refused(fraction):
    with pytest.raises(PlanInputError, match=r"\(0, 1\]") as info:
        SglangOptions(mem_fraction_static=fraction)
    assert repr(fraction) in str(info.value) and is_user_error(info.value)


def test_tp_must_divide_heads_and_context_must_fit_the_model():
    with pytest.raises(PlanInputError, match="--tp 3 does not divide the 32 attention heads"):
        plan(tp=3)
    with pytest.raises(PlanInputError, match="exceeds the model limit 131072"):
        plan(context_length=200_000)
    with pytest.raises(PlanInputError, match="kv-cache-dtype"):
        SglangOptions(kv_cache_dtype="int3")


def test_default_fraction_follows_engine_version():
    assert plan(engine_version="0.4.3").extra["sglang"]["mem_fraction_static"] == 0.88
    assert plan().extra["sglang"]["mem_fraction_static"] == 0.830
    assert plan(engine_version="0.9.0").warnings[0].startswith("SGLang 0.9.0 is newer")


def _machine(free_gib):
    return MachineProfile(gpus=tuple(GpuState(index=i, name="NVIDIA H100 80GB HBM3", total_bytes=GiB(79.19),
                                              free_bytes=GiB(f)) for i, f in enumerate(free_gib)))


def test_machine_profile_plans_from_the_tightest_rank():
    r = plan(tp=2, machine=_machine([78.0, 75.0, 10.0]), mem_fraction_static=0.85)
    assert r.ledger.items[0].bytes == GiB(75.0) and "GPU 1" in r.ledger.items[0].item
    assert r.ledger.rank_label.startswith("rank 1") and r.verdict.fits
    assert r.kv_tokens < plan(tp=2, mem_fraction_static=0.85).kv_tokens


def test_unbalanced_machine_fails_like_sglangs_check():
    r = plan(tp=2, machine=_machine([78.0, 60.0]))
    assert not r.verdict.fits and r.verdict.knob == "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK"
    with pytest.raises(PlanInputError, match="tp×pp×dp = 4"):
        plan(tp=4, machine=_machine([78.0, 78.0]))


def test_log_lines_use_sglang_text_with_gib_values():
    r = plan(tp=8, mem_fraction_static=0.9)
    k_gib = r.kv_pool.buffers[0].total_bytes.gib
    assert f"KV Cache is allocated. #tokens: {r.kv_tokens}, K size: {k_gib:.2f} GB, V size: {k_gib:.2f} GB" \
        in r.engine_log
    assert r.engine_log[-1].startswith("Memory pool end. avail mem=")
    mla = plan(deepseek_v3(), gpu="H200", tp=8, weights=GiB(80))
    assert any(line.startswith("KV Cache is allocated.") and "KV size:" in line for line in mla.engine_log)
    swa = plan(gpt_oss_120b(), gpu="RTX-PRO-6000", weights=GiB(60.8))
    assert swa.engine_log[1].startswith("Use sliding window memory pool. full_layer_tokens=")
    assert swa.extra["sglang"]["swa_tokens"] == int(swa.kv_tokens * 0.8)


def test_small_slack_warns_about_cuda_graphs():
    r = plan(mem_fraction_static=0.99)
    assert any("CUDA graphs" in w for w in r.warnings)
    assert not any("CUDA graphs" in w for w in plan().warnings)


def test_result_serialises_to_json():
    data = json.loads(json.dumps(plan(tp=2).to_json_dict()))
    assert data["engine"] == "sglang" and data["kv_tokens"] > 0 and data["sglang"]["rule_era"] == "0.5.20"


def test_req_to_token_for_huge_contexts_does_not_fit_in_the_slack():
    long_context = llama3_8b(max_position_embeddings=10_000_000)
    r = plan(long_context, gpu="H200", weights=GiB(16))
    assert not r.verdict.fits and r.verdict.knob == "--context-length" and "req_to_token" in r.verdict.message
    assert plan(long_context, gpu="H200", weights=GiB(16), context_length=131_072).verdict.fits


def test_suggested_fixes_each_make_the_plan_fit():
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.engines.sglang import plan_sglang
    from tpkit.parallel import ParallelSpec

    model, h100 = load_model("meta-llama/Llama-3.1-70B-Instruct"), lookup_gpu("H100")
    r = plan_sglang(model, h100, ParallelSpec(tp=2), SglangOptions())
    msg = r.verdict.message
    assert not r.verdict.fits and "--tp 4" in msg and "--quantization fp8" in msg
    f_min = float(msg.split("≥ ")[1][:5])
    assert plan_sglang(model, h100, ParallelSpec(tp=4), SglangOptions()).verdict.fits
    assert plan_sglang(model, h100, ParallelSpec(tp=2), SglangOptions(quantization="fp8")).verdict.fits
    assert plan_sglang(model, h100, ParallelSpec(tp=2), SglangOptions(mem_fraction_static=f_min)).verdict.fits
    one_gpu = plan_sglang(model, h100, ParallelSpec(tp=1), SglangOptions())
    assert "fp8" not in one_gpu.verdict.message  # fp8 70B (≈ 68 GiB) still exceeds one H100's budget


def test_linear_attention_hybrid_plans_state_pool_then_kv():
    from tpkit.models.spec import LinearAttnSpec

    hybrid = llama3_8b(layer_kinds=("linear", "linear", "linear", "full") * 8,
                       linear_attn=LinearAttnSpec(state_bytes_per_layer=Bytes(2_170_880)))
    r = plan(hybrid, tp=2, weights=GiB(8), context_length=32_768)
    state = r.ledger.get("linear-attention state pool").bytes
    rest = r.ledger.get("KV budget (rest)").bytes
    assert r.verdict.fits and Bytes(0) < state < rest
    assert r.kv_tokens == (rest - state).bytes // (4 * 256 * 8 * 2)  # 8 full layers, 4 KV heads/rank
    slots = r.extra["sglang"]["mamba_slots"]
    assert r.max_running_requests == min(slots // 3, 2048)
    assert ledger_problems(r) == []


def test_state_pool_that_eats_the_last_page_gets_a_replanned_fraction():
    """Budget above one KV page, but not after the linear-attention state pool: the verdict blamed
    --max-total-tokens (never given) and suggested a fraction below the one in use (0.899 < 0.9)."""
    import re

    from tpkit.models.spec import LinearAttnSpec
    from tpkit.units import MiB

    hybrid = llama3_8b(layer_kinds=("linear", "linear", "linear", "full") * 8,
                       linear_attn=LinearAttnSpec(state_bytes_per_layer=Bytes(2_170_880)))
    first = plan(hybrid, weights=GiB(8))
    pre = first.ledger.get("free before weights (pre_model_load_memory)").bytes
    stream = Bytes(first.extra["sglang"]["stream_pool_bytes"])  # taken after the pre sample (0.5.9+, tp 1)
    rope = Bytes(first.extra["sglang"]["rope_reserve_bytes"])  # after the weights (0.5.6+, engines.sglang.rope)
    workspace = Bytes(first.extra["sglang"]["deepgemm_workspace_bytes"])  # DeepGEMM's, after the pre sample (0.5.15+)
    weights = pre - pre * (1 - 0.9) - stream - workspace - rope - MiB(210)  # KV budget 210 MiB; one page of 4096 tokens is 128 MiB
    r = plan(hybrid, weights=weights, mem_fraction_static=0.9, page_size=4096)
    assert r.kv_tokens == 0 and r.ledger.get("KV budget (rest)").bytes > MiB(128)
    assert r.verdict.knob != "--max-total-tokens" and "max-total-tokens" not in r.verdict.message
    f = float(re.search(r"--mem-fraction-static ≥ ([0-9.]+)", r.verdict.message).group(1))
    assert f > 0.9
    assert plan(hybrid, weights=weights, mem_fraction_static=f, page_size=4096).verdict.fits
    assert not plan(hybrid, weights=weights, mem_fraction_static=round(f - 0.001, 3), page_size=4096).verdict.fits


def test_explicit_fp32_dtype_gives_an_fp32_kv_cache():
    """kv_cache_dtype auto follows the served dtype: --dtype float32 was planned with a bf16 KV cache
    (half the cell) while the weights were counted at 4 B per element."""
    bf16, fp32 = plan(), plan(dtype="float32")
    assert fp32.extra["sglang"]["kv_cache_dtype"] == "float32"
    assert fp32.extra["sglang"]["cell_bytes_per_token"] == 2 * bf16.extra["sglang"]["cell_bytes_per_token"]
    assert fp32.kv_pool.buffers[0].element_bytes == 4
    assert plan(dtype="auto").extra["sglang"]["kv_cache_dtype"] == "bfloat16"


@pytest.mark.parametrize("value", ["fp4_e2m1", "nvfp4", "mxfp8", "fp4_mx_block16"])
def test_fp4_and_mx_kv_dtypes_are_refused_with_the_release_that_accepts_them(value):
    """SGLang accepts fp4_e2m1 from 0.5.9 (not in 0.5.4) and mxfp8 / nvfp4 / fp4_mx_block16 in 0.5.23; tpkit does
    not model their packed layout: a user error naming the value, never a bf16 cell (helper kvd)."""
    with pytest.raises(PlanInputError, match=rf"--kv-cache-dtype {value}: SGLang accepts it .*does not model"):
        SglangOptions(kv_cache_dtype=value)
    assert SglangOptions(kv_cache_dtype="fp8_e4m3").kv_cache_dtype == "fp8_e4m3"
