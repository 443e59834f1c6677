"""Issue 11's SGLang rules, each pinned on both sides of the release where it changes.

Boundaries were read in every released wheel 0.5.10 … 0.5.23 (and 0.3.6, 0.4.6, 0.4.10, 0.5.3); the docstrings of
``tpkit.engines.sglang.{swa,graphs,defaults,multimodal,mamba,spec,pool,baseline}`` cite file and function.
"""

import pytest

from sglang_fixtures import deepseek_v3, gpt_oss_120b, llama3_8b, plan
from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.baseline import plan_baseline
from tpkit.engines.sglang.defaults import (ReserveExtras, capacity_defaults, default_mem_fraction,
                                           vlm_fraction_factor)
from tpkit.engines.sglang.graphs import GraphContext, prefill_graphs
from tpkit.engines.sglang.mamba import plan_mamba_pool, slots_per_request
from tpkit.engines.sglang.multimodal import mm_reservation
from tpkit.engines.sglang.pool import compute_cell, max_running_requests, req_to_token_bytes
from tpkit.engines.sglang.swa import hybrid_swa
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, MiB

H200, H100, A100, B200, MI300X = (lookup_gpu(n) for n in ("H200", "H100", "A100-40GB", "B200", "MI300X"))


def _model(name):
    return load_model(name)


# rule 1: hybrid-SWA pools are an architecture allow-list ------------------------------------------------

@pytest.mark.parametrize("version, hybrid", [("0.4.9", False), ("0.4.10", True), ("0.4.10.post1", True),
                                             ("0.4.10.post2", False), ("0.5.0rc0", False), ("0.5.2", False),
                                             ("0.5.3", False), ("0.5.10", False), ("0.5.23", False)])
def test_gemma3_gets_one_full_pool_except_in_0_4_10_and_its_post1(version, hybrid):
    """Gemma sets disable_hybrid_swa_memory from 0.4.10.post2 (``server_args.py``, "Disable hybrid SWA memory for")."""
    assert hybrid_swa(_model("google/gemma-3-27b-it"), version)[0] is hybrid


@pytest.mark.parametrize("version, hybrid", [("0.5.6.post2", False), ("0.5.7", False), ("0.5.8", True),
                                             ("0.5.8.post1", True), ("0.5.9", True), ("0.5.10", True),
                                             ("0.5.23", True)])
def test_gpt_oss_and_llama4_are_hybrid_from_the_0_5_8_allow_list(version, hybrid):
    """0.5.8's ``configs/model_config.py is_hybrid_swa_model`` lists them; 0.5.7's GptOss branch of
    ``_handle_model_specific_adjustments`` ends with ``disable_hybrid_swa_memory = True`` (helper gx31)."""
    assert hybrid_swa(gpt_oss_120b(), version)[0] is hybrid
    assert hybrid_swa(_model("meta-llama/Llama-4-Scout-17B-16E-Instruct"), version)[0] is hybrid


def test_allow_list_grows_per_release_and_config_opt_in_from_0_5_13():
    gemma4 = gpt_oss_120b(architecture="Gemma4ForCausalLM")
    assert not hybrid_swa(gemma4, "0.5.10")[0] and hybrid_swa(gemma4, "0.5.11")[0]
    custom = gpt_oss_120b(architecture="MyHybridForCausalLM", extra={"is_hybrid_swa": True})
    assert not hybrid_swa(custom, "0.5.12")[0] and hybrid_swa(custom, "0.5.13")[0]


def test_non_hybrid_cell_counts_the_sliding_layers_as_full():
    gemma = _model("google/gemma-3-27b-it")
    cell = compute_cell(gemma, 1, 1, "bfloat16", version="0.5.23")
    assert cell.layout == "mha" and cell.full_layers == 62 and cell.bytes_per_token == 16 * 256 * 62 * 2
    old = compute_cell(gemma, 1, 1, "bfloat16", version="0.4.10")
    assert old.layout == "swa" and old.bytes_per_token == pytest.approx(16 * 256 * 2 * (10 + 0.8 * 52))


# rule 2: vision-language models ----------------------------------------------------------------------------

def test_vlm_factor_reads_num_hidden_layers_with_default_24():
    assert vlm_fraction_factor({"depth": 27, "hidden_size": 1152})[0] == pytest.approx(0.924765625, abs=1e-15)
    assert vlm_fraction_factor({"num_hidden_layers": 27, "hidden_size": 1152})[0] == pytest.approx(
        0.909736328125, abs=1e-15)
    assert vlm_fraction_factor({"num_hidden_layers": 64, "hidden_size": 4096})[0] == pytest.approx(0.95 * 0.8)
    assert vlm_fraction_factor(None)[0] == 1.0


def _fraction(model, version, **options):
    r = plan(model, gpu="H100", tp=2, weights=GiB(26), engine_version=version, **options)
    return r.extra["sglang"]["mem_fraction_static"]


@pytest.mark.parametrize("version, factor", [("0.2.15", 0.95), ("0.4.2", 0.95), ("0.4.4", 0.95), ("0.4.5", 0.90),
                                             ("0.4.8", 0.90), ("0.4.9", 1.0), ("0.4.10", 1.0)])
def test_model_runner_scales_any_multimodal_fraction_before_0_4_9(version, factor):
    """0.2.15–0.4.4 ``ModelRunner.__init__`` × 0.95, 0.4.5–0.4.8 × 0.90, also a user's fraction (sg_007's log:
    "Automatically reduce --mem-fraction-static to 0.836"); from 0.4.9 only the default is scaled."""
    gemma = _model("google/gemma-3-27b-it")
    assert _fraction(gemma, version, mem_fraction_static=0.88) == pytest.approx(0.88 * factor)
    assert _fraction(llama3_8b(), version, mem_fraction_static=0.88) == 0.88


@pytest.mark.parametrize("version, factor", [("0.4.8", 0.90), ("0.4.9", 0.90), ("0.4.10", None)])
def test_multimodal_default_is_x090_in_0_4_9_and_the_vision_factor_from_0_4_10(version, factor):
    """0.4.8 (ModelRunner) and 0.4.9 (server_args) × 0.90 on the capacity-class default (H100 tp 2: 10.5 GiB
    reserved, 0.868); 0.4.10 ``adjust_mem_fraction_for_vlm`` (not rounded)."""
    gemma = _model("google/gemma-3-27b-it")
    f = _fraction(gemma, version)
    if factor is None:
        factor, _ = vlm_fraction_factor(gemma.extra["vision_config"])
    assert f == pytest.approx(round((81559 - 10.5 * 1024) / 81559, 3) * factor)


@pytest.mark.parametrize("version, reserved_mib", [("0.5.16", 0), ("0.5.17", 1024), ("0.5.18", 100),
                                                   ("0.5.19", 100), ("0.5.20", 1024)])
def test_multimodal_cache_comes_out_of_the_kv_budget_from_0_5_18(version, reserved_mib):
    """Helper sgf14: 0.5.17 alone resolves the unset --mm-feature-transport to cuda_ipc on one CUDA node, whose
    1024 MiB feature pool the tokenizer manager allocates before the pool is sized
    (tests/engines/test_sglang_mm_feature_transport.py)."""
    qwen_vl = _model("Qwen/Qwen3-VL-8B-Instruct")
    assert mm_reservation(qwen_vl, H200, 143_771, version, None)[0] == MiB(reserved_mib)


def test_qwen3_vl_feature_cache_needs_a_large_hopper_and_grows_with_400_requests():
    qwen_vl = _model("Qwen/Qwen3-VL-8B-Instruct")
    assert mm_reservation(qwen_vl, A100, 40_960, "0.5.23", None)[0] == MiB(100)
    assert mm_reservation(qwen_vl, H100, 81_559, "0.5.23", 400)[0] == MiB(3072)
    assert mm_reservation(_model("google/gemma-3-27b-it"), H200, 143_771, "0.5.23", None)[0] == MiB(100)
    assert mm_reservation(llama3_8b(), H200, 143_771, "0.5.23", None)[0] == MiB(0)


# prefill CUDA graphs (rules 2, 9) --------------------------------------------------------------------------

def _graphs(model, version, gpu=H200, **ctx):
    return prefill_graphs(model, gpu, GraphContext(version=version, **ctx))[0]


def test_multimodal_prefill_graphs_off_unless_allow_listed():
    vl = _model("Qwen/Qwen3-VL-8B-Instruct")
    assert not _graphs(vl, "0.5.23") and not _graphs(vl, "0.5.14")
    kimi_vl = _model("moonshotai/Kimi-K2.5")  # multimodal MLA, breakable-allow-listed from 0.5.18
    assert not _graphs(kimi_vl, "0.5.17") and _graphs(kimi_vl, "0.5.18")


@pytest.mark.parametrize("version, on", [("0.5.14", True), ("0.5.15", False), ("0.5.17", False), ("0.5.18", True)])
def test_mla_prefill_graphs_off_under_breakable_until_0_5_18(version, on):
    assert _graphs(deepseek_v3(), version) is on


@pytest.mark.parametrize("version, on", [("0.5.14", False), ("0.5.16", False), ("0.5.17", True)])
def test_dp_attention_prefill_graphs_on_from_0_5_17(version, on):
    assert _graphs(llama3_8b(), version, dp_attention=True) is on


@pytest.mark.parametrize("version, on", [("0.5.14", False), ("0.5.15", True), ("0.5.18", True), ("0.5.19", False)])
def test_pipeline_parallel_prefill_graphs(version, on):
    assert _graphs(llama3_8b(), version, pp=2) is on


@pytest.mark.parametrize("version, on", [("0.5.10", False), ("0.5.11", True)])
def test_speculative_decoding_turned_piecewise_graphs_off_in_0_5_10_only(version, on):
    assert _graphs(llama3_8b(), version, speculative=True) is on


def test_prefill_graphs_off_on_amd_and_for_deepseek_v3_on_sm100():
    assert not _graphs(llama3_8b(), "0.5.23", gpu=MI300X)
    assert not _graphs(deepseek_v3(), "0.5.23", gpu=B200) and _graphs(deepseek_v3(), "0.5.23", gpu=H200)
    assert not _graphs(_model("Qwen/Qwen3-Next-80B-A3B-Instruct"), "0.5.14")  # tc_piecewise arch list
    assert _graphs(_model("Qwen/Qwen3-Next-80B-A3B-Instruct"), "0.5.15")


def test_reserve_leaves_out_the_prefill_term_when_graphs_are_off():
    kw = dict(gpu_mem_mib=143_771, tp=1, pp=1, cpp=8192, max_bs=256, is_mla=False)
    on = default_mem_fraction("0.5.20", **kw).reserved_mib
    off = default_mem_fraction("0.5.20", **kw, extras=ReserveExtras(prefill_graphs=False)).reserved_mib
    assert on - off == 58 * 8


# reserve terms (rule 9) --------------------------------------------------------------------------------------

def _reserved(version, era, **extras):
    return default_mem_fraction(era, gpu_mem_mib=143_771, tp=8, pp=1, cpp=8192, max_bs=512, is_mla=True,
                                extras=ReserveExtras(version=version, **extras)).reserved_mib


def test_dp_attention_pads_the_graph_term_by_max_bs_and_dp():
    assert _reserved("0.5.23", "0.5.20", attn_dp=8) - _reserved("0.5.23", "0.5.20") == 3 * 512 * 8 + 1.5 * 512 * 8


@pytest.mark.parametrize("version, era, extra", [("0.5.14", "0.5.10", 0), ("0.5.15", "0.5.15", 2048),
                                                 ("0.5.17", "0.5.15", 2048 + 1024)])
def test_deepep_reserve(version, era, extra):
    assert _reserved(version, era, deepep=True) - _reserved(version, era) == extra


@pytest.mark.parametrize("version, era, algo, extra", [("0.5.3", "0.5.3", "EAGLE", 2048),
                                                       ("0.5.13", "0.5.10", "EAGLE", 4096),
                                                       ("0.5.13", "0.5.10", "STANDALONE", 6144),
                                                       ("0.5.14", "0.5.10", "EAGLE", 0)])
def test_speculative_reserve_until_draft_weights_were_measured(version, era, algo, extra):
    assert _reserved(version, era, speculative=algo) - _reserved(version, era) == extra


@pytest.mark.parametrize("era, cpp, bs", [("0.5.15", 2048, 24), ("0.5.20", 4096, 48)])
def test_small_gpu_capacity_defaults_change_in_0_5_20(era, cpp, bs):
    cap = capacity_defaults(24_564, 1, era, chunked_prefill_size=None, cuda_graph_max_bs=None,
                            max_running_requests=None)
    assert (cap.chunked_prefill_size, cap.cuda_graph_max_bs) == (cpp, bs)


# version boundaries of rule 9 / 10 ---------------------------------------------------------------------------

@pytest.mark.parametrize("version, v2", [("0.5.11", False), ("0.5.12", True)])
def test_custom_allreduce_v2_default_from_0_5_12(version, v2):
    base = plan_baseline(H200, ParallelSpec(tp=8), "0.5.10", None, version=version)
    car = next(u for u in base.uses if u.item == "custom all-reduce buffers")
    assert ("CustomAllReduceV2" in car.source) is v2


def test_cublas_comes_after_the_kv_pool():
    base = plan_baseline(H200, ParallelSpec(tp=2), "0.5.20", None)
    assert not any("cuBLAS" in u.item for u in base.uses)
    assert [u.item for u in base.after_pool] == ["cuBLAS workspace (after the KV pool, from the slack)"]
    r = plan(gpu="H200")
    ledger = {l.item: l for l in r.ledger.items}
    left = ledger["left for activations + CUDA graphs"].bytes
    assert ledger["Memory pool end (free after the pools)"].bytes - left == base.after_pool[0].bytes


@pytest.mark.parametrize("version, rows", [("0.5.11", 100), ("0.5.12", 101)])
def test_req_to_token_padding_row_from_0_5_12(version, rows):
    running, got, _ = max_running_requests("0.5.10", tokens=10**6, context_len=8192, user=100, dp=1, version=version)
    assert (running, got) == (100, rows)


@pytest.mark.parametrize("version, running", [("0.5.13", 2048), ("0.5.14", 5000)])
def test_user_running_cap_rule_from_0_5_14(version, running):
    """0.5.3–0.5.13 cap the user's value by the 2048–4096 estimate; 0.5.14+ by tokens // 2."""
    assert max_running_requests("0.5.10", tokens=400_000, context_len=131_072, user=5000, dp=1,
                                version=version)[0] == running


def test_req_to_token_gets_the_draft_token_columns():
    assert req_to_token_bytes(49, 163_840, 4).bytes == 49 * (163_840 + 8) * 4


# rule 6: mamba state slots -----------------------------------------------------------------------------------

@pytest.mark.parametrize("version, slots", [("0.5.13", 3), ("0.5.14", 5), ("0.5.23", 5)])
def test_qwen3_next_state_slots_per_request(version, slots):
    assert slots_per_request(_model("Qwen/Qwen3-Next-80B-A3B-Instruct"), version)[0] == slots


@pytest.mark.parametrize("version, slots", [("0.5.15", 3), ("0.5.16", 5)])
def test_kimi_linear_state_slots_per_request(version, slots):
    kimi_linear = llama3_8b(architecture="KimiLinearForCausalLM")
    assert slots_per_request(kimi_linear, version)[0] == slots


@pytest.mark.parametrize("version, padding", [("0.5.16", 0), ("0.5.17", 1)])
def test_state_pool_padding_slot_from_0_5_17(version, padding):
    qn = _model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    pool = plan_mamba_pool(qn, 4, 36, GiB(86), version)
    assert pool.allocated_slots - pool.slots == padding


# speculative decoding (rule 5) -------------------------------------------------------------------------------

@pytest.mark.parametrize("version, before", [("0.5.13", False), ("0.5.14", True)])
def test_draft_weights_are_measured_before_the_pool_from_0_5_14(version, before):
    r = plan(deepseek_v3(num_nextn_layers=1), gpu="H200", tp=8, weights=GiB(78.5), engine_version=version,
             speculative_algorithm="NEXTN")
    x = r.extra["sglang"]
    assert x["speculative"]["loaded_before_pool"] is before
    assert (x["budget_cell_bytes_per_token"] == 70_272 + 1_152) is before
    items = [l.item for l in r.ledger.items]
    assert ("draft weights (EAGLE)" in items) is before
    assert ("draft weights (EAGLE) (after the target's pool, from the slack)" in items) is not before


def test_speculative_defaults_and_flag_checks():
    llama = _model("meta-llama/Llama-3.1-8B-Instruct")
    draft = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
    r = plan_sglang(llama, H200, ParallelSpec(), SglangOptions(speculative_algorithm="EAGLE3",
                                                               speculative_draft_model_path=draft))
    spec = r.extra["sglang"]["speculative"]
    assert (spec["num_steps"], spec["eagle_topk"], spec["num_draft_tokens"]) == (5, 4, 8)
    assert r.max_running_requests == 48 and spec["draft_layers"] == 1
    chain = plan_sglang(llama, H200, ParallelSpec(), SglangOptions(
        speculative_algorithm="EAGLE3", speculative_draft_model_path=draft, speculative_num_steps=3))
    assert chain.extra["sglang"]["speculative"]["num_draft_tokens"] == 4  # topk 1: steps + 1
    with pytest.raises(PlanInputError, match="needs --speculative-draft-model-path"):
        plan_sglang(llama, H200, ParallelSpec(), SglangOptions(speculative_algorithm="EAGLE3"))
    with pytest.raises(PlanInputError, match="needs --speculative-algorithm"):
        SglangOptions(speculative_num_steps=3)
    with pytest.raises(PlanInputError, match="STANDALONE with --enable-dp-attention"):
        plan_sglang(llama, H200, ParallelSpec(tp=8, dp=8, dp_attention=True), SglangOptions(
            speculative_algorithm="STANDALONE", speculative_draft_model_path=draft))


# DP attention (item 3) ---------------------------------------------------------------------------------------

def test_dp_attention_layout_counts_tp_gpus_and_shards_attention_over_tp_over_dp():
    par = ParallelSpec(tp=8, dp=8, ep=8, dp_attention=True)
    assert (par.num_gpus, par.attn_tp, par.attn_dp) == (8, 1, 8)
    assert par.to_dict() == {"tp": 8, "pp": 1, "dp": 8, "ep": 8, "dp_attention": True}
    with pytest.raises(PlanInputError, match="must divide"):
        ParallelSpec(tp=8, dp=3, dp_attention=True)
    ds = _model("deepseek-ai/DeepSeek-V3")
    tp8 = plan_weights(ds, ParallelSpec(tp=8, ep=8)).bytes_per_rank.bytes
    dpa = plan_weights(ds, par).bytes_per_rank.bytes
    attention_params = 1536 * 7168 + 128 * 192 * 1536 + 576 * 7168 + 128 * 256 * 512 + 7168 * 128 * 128
    assert attention_params == 187_105_280
    sharded = 128 * 192 * 1536 + 128 * 256 * 512 + 7168 * 128 * 128  # q_b, kv_b, o: fp8 + 128×128 fp32 scales
    scales = (-(-128 * 192 // 128) * -(-1536 // 128) + -(-128 * 256 // 128) * -(-512 // 128)
              + -(-7168 // 128) * -(-128 * 128 // 128)) * 4
    per_layer = sharded * 7 // 8 + scales * 7 // 8
    embed = 129_280 * 7168 * 2 * 7 // 8
    assert dpa - tp8 == 61 * per_layer + embed


def test_dp_attention_divides_user_running_requests_and_needs_tp_to_divide_heads():
    r = plan(deepseek_v3(), gpu="H200", tp=8, weights=GiB(88.5), enable_dp_attention=True,
             max_running_requests=512)
    assert r.max_running_requests == 512  # ParallelSpec without dp: dp = 1 attention rank
    par = ParallelSpec(tp=8, dp=8, dp_attention=True)
    r8 = plan_sglang(deepseek_v3(), H200, par, SglangOptions(max_running_requests=512), weights=GiB(88.5))
    assert r8.max_running_requests == 64 and r8.extra["sglang"]["attn_dp_size"] == 8


@pytest.mark.parametrize("version", ["0.5.12", "0.5.13", "0.5.17"])
def test_state_pool_with_speculative_decoding_per_release(version):
    """D = 4 draft tokens, 48 running requests, r = 3 (≤ 0.5.13) or 5 slots per request."""
    qn = _model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    rest, slot, d, running = GiB(86), 19_316_736, 4, 48
    pool = plan_mamba_pool(qn, 4, 36, rest, version, draft_tokens=d, max_running=running)
    assert pool.per_slot.bytes == slot
    if version == "0.5.12":
        inter = slot * running * d
        assert pool.intermediate.bytes == inter and pool.slots == int((rest.bytes - inter) * 0.9 / 1.9) // slot
    elif version == "0.5.13":
        assert pool.slots == int(int(rest.bytes * 0.9 / 1.9) // (slot * (1 + d / 3)))
        assert pool.intermediate.bytes == slot * min(running, pool.slots // 3) * d and pool.allocated_slots == pool.slots
    else:
        budget = int(rest.bytes * 0.9 / 1.9)
        assert pool.slots == int((budget - slot * (1 + d)) // (slot * (1 + d / 5)))
        assert pool.intermediate.bytes == slot * (min(running, pool.slots // 5) + 1) * d
        assert pool.allocated_slots == pool.slots + 1


def test_old_releases_refuse_a_draft_that_does_not_fit_in_the_slack():
    r = plan(deepseek_v3(num_nextn_layers=1), gpu="H200", tp=8, weights=GiB(78.5), engine_version="0.5.10",
             speculative_algorithm="NEXTN", mem_fraction_static=0.995)
    assert not r.verdict.fits and "come out of the slack" in r.verdict.message


# ROCm: aiter's × 0.85 on the fraction (0.4.7 … 0.5.4 ``ModelRunner.model_specific_adjustment``, then ServerArgs) ----

@pytest.mark.parametrize("version, scaled", [("0.4.6", False), ("0.4.7", True), ("0.5.4", True), ("0.5.5", True),
                                             ("0.5.17", True), ("0.5.23", True)])
def test_rocm_aiter_scales_any_fraction_from_0_4_7(version, scaled):
    def f(gpu, **options):
        r = plan(llama3_8b(), gpu=gpu, engine_version=version, mem_fraction_static=0.8, **options)
        return r.extra["sglang"]["mem_fraction_static"]
    assert f("MI300X") == pytest.approx(0.8 * (0.85 if scaled else 1.0))
    assert f("MI300X", context_length=8192) == 0.8  # only contexts longer than 8192
    assert f("H100") == 0.8  # CUDA: no aiter


def test_rocm_aiter_for_mla_needs_16_or_128_kv_heads_per_rank():
    def f(tp):
        r = plan(deepseek_v3(), gpu="MI300X", tp=tp, weights=GiB(90), engine_version="0.5.3", mem_fraction_static=0.8)
        return r.extra["sglang"]["mem_fraction_static"]
    assert f(8) == pytest.approx(0.68) and f(1) == pytest.approx(0.68)  # 16 and 128 heads: aiter
    assert f(4) == 0.8  # 32 heads per rank: triton


@pytest.mark.parametrize("version, v_dim", [("0.5.6", 128), ("0.5.7", 64), ("0.5.23", 64)])
def test_cell_counts_v_head_dim_from_0_5_7(version, v_dim):
    """0.5.6 ``profile_max_num_token`` counts head_dim × 2; 0.5.7 ``model_runner_kv_cache_mixin.py`` head_dim +
    v_head_dim."""
    r = plan(llama3_8b(v_head_dim=64), engine_version=version, mem_fraction_static=0.8)
    assert r.kv_pool.cell_bytes.bytes == 8 * (128 + v_dim) * 32 * 2


# rule 6: how the state pool is sized and charged, by release (helper hyb) -------------------------------------

@pytest.mark.parametrize("version, slots", [("0.5.3", 512), ("0.5.4", None)])
def test_state_pool_fixed_512_slots_up_to_0_5_3_then_the_ratio_split(version, slots):
    """≤ 0.5.3 ``model_runner.py``: a fixed 512 slots (no --max-running-requests); 0.5.4 ``handle_max_mamba_cache``:
    rest × 0.9/1.9 // per-slot."""
    from tpkit.engines.sglang.mamba import FIXED_SLOTS, RATIO_SPLIT_FROM

    qn = _model("Qwen/Qwen3-Next-80B-A3B-Instruct")
    pool = plan_mamba_pool(qn, 4, 36, GiB(86), version)
    ratio_slots = int(GiB(86) * (0.9 / 1.9) // pool.per_slot)
    assert pool.slots == (slots if slots is not None else ratio_slots)
    assert pool.slots != ratio_slots if slots else pool.slots == ratio_slots
    assert (FIXED_SLOTS, RATIO_SPLIT_FROM) == (512, "0.5.4")
    capped = plan_mamba_pool(qn, 4, 36, GiB(86), "0.5.3", max_running=48)
    assert capped.slots == 48 and capped.total_bytes == capped.per_slot * 48


@pytest.mark.parametrize("version, charged", [("0.5.16", 186), ("0.5.17", 187)])
def test_padding_slot_charged_to_the_kv_budget_from_0_5_17(version, charged):
    """0.5.16 ``kv_cache_configurator.py handle_max_mamba_cache`` returns rest − N × per_req; 0.5.17
    ``_handle_max_mamba_cache`` rest − (N + 1) × per_req."""
    from tpkit.engines.sglang.mamba import charged_slots

    assert charged_slots(186, version) == charged


def test_mamba2_and_short_conv_state_bytes_match_the_printed_pools():
    """sg_014 (granite-4.0-h-micro: 36 Mamba-2 layers, 64 heads × 64, d_state 128, 1 group, d_conv 4, intermediate
    4096) prints 'max_mamba_cache_size: 38, conv_state size: 0.03GB, ssm_state size: 2.74GB' (39 slots); sg_015
    (LFM2-700M: 10 short-conv layers, hidden 1536, conv_L_cache 3) prints 85,292 slots and conv 4.88 GB, ssm 0.00.
    The state per request and layer has one home, ``models.linear_attn`` (``ModelSpec.linear_attn``), which
    ``plan_mamba_pool`` divides by tp (helper rev20: a copy here in engines.sglang.mamba was never called)."""
    from tpkit.models.linear_attn import linear_attn_spec

    granite = linear_attn_spec({"mamba_n_heads": 64, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1,
                                "mamba_d_conv": 4, "mamba_expand": 2, "hidden_size": 2048}, "granite")
    ssm = granite.temporal_bytes_per_layer.bytes
    conv = granite.state_bytes_per_layer.bytes - ssm
    assert (conv, ssm) == (4352 * 3 * 2, 64 * 64 * 128 * 4)
    assert round(conv * 36 * 39 / 2**30, 2) == 0.03 and round(ssm * 36 * 39 / 2**30, 2) == 2.74
    lfm2 = linear_attn_spec({"model_type": "lfm2", "hidden_size": 1536, "conv_L_cache": 3}, "lfm2")
    assert lfm2.temporal_bytes_per_layer is None
    assert round(lfm2.state_bytes_per_layer.bytes * 10 * 85_293 / 2**30, 2) == 4.88


# rule: before 0.4.0 Llama / Qwen2 hold a separate lm_head even when the config ties it -----------------------

def _tied(arch="LlamaForCausalLM"):
    from dataclasses import replace
    return replace(llama3_8b(), tie_word_embeddings=True, architecture=arch)


@pytest.mark.parametrize("version, untied", [("0.2.15", True), ("0.3.5", True), ("0.3.6.post3", True),
                                             ("0.4.0", False), ("0.4.2", False), ("0.5.23", False)])
@pytest.mark.parametrize("arch", ["LlamaForCausalLM", "Qwen2ForCausalLM"])
def test_tied_llama_and_qwen2_get_their_own_lm_head_before_0_4_0(version, untied, arch):
    """``srt/models/llama.py`` / ``qwen2.py`` build ``ParallelLMHead`` unconditionally up to 0.3.6.post3 and reuse
    ``embed_tokens`` for a tied config from 0.4.0: the load usage grows by vocab × hidden × 2 B before 0.4.0."""
    from tpkit.engines.sglang.load import load_usage, loads_untied_lm_head

    model = _tied(arch)
    assert loads_untied_lm_head(model, version) is untied
    opts = SglangOptions(engine_version=version)
    grown = load_usage(model, ParallelSpec(), opts)[0].bytes - load_usage(
        model, ParallelSpec(), SglangOptions(engine_version="0.4.0"))[0].bytes
    head = model.vocab_size * model.hidden_size * 2
    if untied:
        assert abs(grown - head) <= model.vocab_size * 2  # vocab padding at most
    else:
        assert grown == 0


def test_untied_lm_head_rule_leaves_untied_configs_and_other_architectures_alone():
    from dataclasses import replace

    from tpkit.engines.sglang.load import loads_untied_lm_head

    assert not loads_untied_lm_head(llama3_8b(), "0.3.5")  # config unties already: nothing to add
    assert not loads_untied_lm_head(_tied("Gemma2ForCausalLM"), "0.3.5")
    assert loads_untied_lm_head(replace(_tied(), architecture="LlamaForCausalLM"), "0.3.6")


@pytest.mark.parametrize("version", ["0.5.13", "0.5.14", "0.5.23"])
def test_eagle3_budget_sees_the_draft_embedding_from_0_5_14(version):
    """0.5.14+ sizes the target pool after the draft loads and before ``set_embed`` frees the draft's own
    embedding (``scheduler.py init_memory_pools`` → ``eagle_worker_v2.py alloc_memory_pool`` → ``init_lm_head``):
    the budget is charged the draft at load; the embedding returns to the slack after the pool. ≤ 0.5.13 sizes the
    pool before the draft loads: nothing of the draft is charged."""
    llama = _model("meta-llama/Llama-3.1-8B-Instruct")
    draft = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"
    r = plan_sglang(llama, H200, ParallelSpec(), SglangOptions(
        speculative_algorithm="EAGLE3", speculative_draft_model_path=draft, engine_version=version))
    items = {l.item: l for l in r.ledger.items}
    x = r.extra["sglang"]
    spec = x["speculative"]
    embed = 128_256 * 4096 * 2  # the draft's own bf16 embedding (target hidden 4096, vocab 128,256)
    assert spec["draft_weights_at_load_bytes"] - spec["draft_weights_bytes"] == embed
    freed = items.get("draft's own shared tensors at load (freed by set_embed after the pool is sized)")
    uses = (items["free before weights (pre_model_load_memory)"].bytes - items["weights"].bytes
            - Bytes(x["stream_pool_bytes"]) - Bytes(x["deepgemm_workspace_bytes"]) - Bytes(x["rope_reserve_bytes"])
            - items[next(k for k in items if k.startswith("slack"))].bytes)  # DeepGEMM's: 0.5.15+ on SM 9.0 (gx33)
    if version == "0.5.13":
        assert freed is None and x["kv_budget_bytes"] == uses.bytes
        return
    assert freed is not None and freed.bytes.bytes == embed and freed.kind == "use"
    assert x["kv_budget_bytes"] == uses.bytes - spec["draft_weights_at_load_bytes"]
    left = items["left for activations + CUDA graphs"].bytes
    end = items["Memory pool end (free after the pools)"].bytes
    assert (left - end).bytes == embed - x["after_pool_bytes"]
