"""Issue 11's hand-computed SGLang cases, pinned (H200, numbers derived by hand from the engines' source).

Each case feeds the inputs the hand computation takes as inputs — the free memory before weights
(``pre_model_load_memory``) and the weight bytes per rank (target, and the draft where given) — and checks
every number the hand computation derives from them: the default fraction, the KV budget, the cell, the token
count, max_running_requests and the req_to_token table.  Source: the engine-facts hand computation of
2026-12-01 (cases S1–S7, SGLang 0.5.23 and 0.5.10 wheels); configs from the embedded catalog.

S1 and S2 run at world size 1 on 0.5.23: their budget is the hand computation's minus the 70 MiB torch stream pool
SGLang's forward stream takes after the pre sample (``engines.sglang.streams``, read after the hand computation;
helper sgr, 2026-12-03), and the tokens are that budget over the cell.

Every case runs a release with SGLang's RoPE pre-expansion after 'Load weight end' (0.5.6+, ``engines.sglang.rope``,
read after the hand computation; helper srp, 2026-12-04), a band term the hand computation has not: ``_plan`` gives it
as measured 0 (``memory.band.measured_terms``), and ``test_the_rope_pre_expansion_takes_its_nominal_off_each_case``
checks the plan without that pin is 1 MiB lower (0 … one 2 MiB rounding step of each model's cos/sin cache).

The 0.5.23 cases on the H200 (compute capability 9.0) also lose DeepGEMM's 32 MiB cuBLASLt workspace after the pre
sample (0.5.15+, every world size: ``engines.sglang.streams.deepgemm_workspace``, read after the hand computation by
helper cap33; charged by the planner from helper gx33, 2026-12-07): their budget is the hand computation's minus
``WORKSPACE_BYTES`` and the token counts follow; the 0.5.10 cases do not move.
"""

from dataclasses import replace

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.baseline import plan_baseline
from tpkit.engines.sglang.rope import ROPE_TERM
from tpkit.engines.sglang.streams import STREAM_POOL_BYTES, WORKSPACE_BYTES
from tpkit.hardware.catalog import lookup_gpu
from tpkit.memory.band import measured_terms
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, MiB


def _h200_with_free(pre: Bytes, parallel: ParallelSpec, version: str):
    """An H200 (nvidia-smi 143,771 MiB) whose predicted pre_model_load_memory is exactly ``pre``."""
    h200 = lookup_gpu("H200")
    uses = sum((u.bytes for u in plan_baseline(h200, parallel, "0.5.20", None, version=version).uses), Bytes(0))
    gpu = replace(h200, total_bytes=pre + uses)
    assert plan_baseline(gpu, parallel, "0.5.20", None, version=version).free_before_weights == pre
    return gpu


def _plan(model, parallel, pre, weights, draft=None, rope_pinned=True, **options):
    options.setdefault("engine_version", "0.5.23")
    gpu = _h200_with_free(pre, parallel, options["engine_version"])
    assert gpu.nvidia_smi_total_mib == 143_771
    with measured_terms({ROPE_TERM: Bytes(0)} if rope_pinned else {}, source="the hand computation has none"):
        return plan_sglang(load_model(model), gpu, parallel, SglangOptions(**options), weights=weights,
                           draft_weights=draft)


def _check(result, *, fraction, budget, cell, tokens, running, req_to_token):
    x = result.extra["sglang"]
    assert x["mem_fraction_static"] == pytest.approx(fraction, rel=0, abs=1e-15)
    assert abs(x["kv_budget_bytes"] - budget) <= 1  # SGLang: int(GiB float × 2^30); tpkit: exact bytes
    assert x["budget_cell_bytes_per_token"] == cell
    assert result.kv_tokens == tokens
    assert result.max_running_requests == running
    assert x["req_to_token_bytes"] == req_to_token


def test_s1_gemma3_27b_one_full_pool_vlm_factor_and_cache_reservation():
    """Not hybrid SWA (one pool over 62 layers); f = 0.907 × 0.95 × 0.9576171875; 100 MiB VLM cache reserved."""
    r = _plan("google/gemma-3-27b-it", ParallelSpec(tp=1), GiB(139), MiB(52_320))
    budget = 68_184_519_066 - STREAM_POOL_BYTES.bytes - WORKSPACE_BYTES.bytes  # hand: 134,246 tokens without both
    _check(r, fraction=0.825130849609375, budget=budget, cell=507_904, tokens=budget // 507_904, running=2048,
           req_to_token=1_074_298_896)
    assert r.kv_tokens == 134_036  # 134,102 before the workspace (gx33)
    assert r.extra["sglang"]["cell_layout"] == "mha" and r.extra["sglang"]["reserved_mib"] == 13_440
    assert r.extra["sglang"]["mm_reserved_bytes"] == 100 * 2**20
    assert not r.extra["sglang"]["prefill_cuda_graphs"]
    assert r.kv_pool.total_bytes.bytes == (134_036 + 1) * 507_904


def test_s2_qwen3_vl_8b_depth_is_not_num_hidden_layers_and_hopper_feature_cache():
    """L = 24 (the vision config names its depth ``depth``), H = 1152; 1 GiB CUDA-IPC feature cache on H200."""
    r = _plan("Qwen/Qwen3-VL-8B-Instruct", ParallelSpec(tp=1), GiB(139), MiB(16_700))
    budget = 106_600_425_670 - STREAM_POOL_BYTES.bytes - WORKSPACE_BYTES.bytes  # hand: 722,930 tokens without both
    _check(r, fraction=0.907 * 0.924765625, budget=budget, cell=147_456, tokens=budget // 147_456, running=2048,
           req_to_token=2_148_565_008)
    assert r.kv_tokens == 722_205  # 722,432 before the workspace (gx33)
    assert r.extra["sglang"]["mm_reserved_bytes"] == 2**30


_DSV3_W = Bytes(84_288_733_184)  # 78.5 GiB target weights per rank (input)


def test_s3_deepseek_v3_nextn_0_5_23_draft_weights_before_the_pool_and_cell_growth():
    r = _plan("deepseek-ai/DeepSeek-V3", ParallelSpec(tp=8), GiB(138), _DSV3_W, MiB(1434),
              speculative_algorithm="NEXTN")
    _check(r, fraction=0.886, budget=45_491_874_168 - WORKSPACE_BYTES.bytes, cell=70_272 + 1_152, tokens=636_457,
           running=48,
           req_to_token=32_114_208)
    spec = r.extra["sglang"]["speculative"]
    assert spec["algorithm"] == "EAGLE" and spec["draft_method"] == "mtp" and spec["loaded_before_pool"]
    assert (spec["num_steps"], spec["eagle_topk"], spec["num_draft_tokens"]) == (3, 1, 4)
    assert r.extra["sglang"]["reserved_mib"] == 16_384  # no spec term; MLA prefill graph term 1536
    # hand: 636,927 tokens, pool 44,758,204,416 B, draft KV 733,741,056 B without the workspace
    assert r.kv_pool.total_bytes.bytes == 44_725_176_576 and spec["draft_kv_bytes"] == 733_199_616


def test_s4_deepseek_v3_nextn_0_5_10_reserve_grows_and_the_draft_comes_from_the_slack():
    r = _plan("deepseek-ai/DeepSeek-V3", ParallelSpec(tp=8), GiB(138), _DSV3_W, MiB(1434),
              speculative_algorithm="NEXTN", engine_version="0.5.10")
    _check(r, fraction=0.868, budget=44_328_357_462, cell=70_272, tokens=630_811, running=48,
           req_to_token=31_458_816)
    x = r.extra["sglang"]
    assert x["reserved_mib"] == 18_944 and not x["prefill_cuda_graphs"]
    assert r.kv_pool.total_bytes.bytes == 44_328_420_864 and x["speculative"]["draft_kv_bytes"] == 726_695_424
    assert x["after_pool_bytes"] == 1434 * 2**20 + 726_695_424 + 102_760_448  # draft weights + draft KV + cuBLAS


def test_s5_deepseek_v3_eagle3_head_0_5_23_and_0_5_10():
    kw = dict(speculative_algorithm="EAGLE3", speculative_draft_model_path="SpecForge/deepseek-v3-671b-eagle3")
    new = _plan("deepseek-ai/DeepSeek-V3", ParallelSpec(tp=8), GiB(138), _DSV3_W, MiB(410), **kw)
    _check(new, fraction=0.886, budget=46_565_615_992 - WORKSPACE_BYTES.bytes, cell=71_424, tokens=651_490,
           running=48,
           req_to_token=32_114_208)
    assert new.extra["sglang"]["speculative"]["draft_kv_bytes"] == 651_491 * 512  # 1 GQA head × 256 × 2 B (hand: 651,960)
    old = _plan("deepseek-ai/DeepSeek-V3", ParallelSpec(tp=8), GiB(138), _DSV3_W, MiB(410),
                engine_version="0.5.10", **kw)
    _check(old, fraction=0.868, budget=44_328_357_462, cell=70_272, tokens=630_811, running=48,
           req_to_token=31_458_816)
    assert old.extra["sglang"]["speculative"]["draft_kv_bytes"] == 322_975_744


def test_s6_deepseek_v3_tp8_dp_attention_8():
    par = ParallelSpec(tp=8, dp=8, ep=8, dp_attention=True)
    r = _plan("deepseek-ai/DeepSeek-V3", par, GiB(138), GiB(88.5), enable_dp_attention=True)
    _check(r, fraction=0.758, budget=17_291_538_333 - WORKSPACE_BYTES.bytes, cell=70_272, tokens=245_588,
           running=2048,  # hand: 246,065 tokens without the workspace
           req_to_token=1_342_865_424)
    x = r.extra["sglang"]
    assert x["reserved_mib"] == 34_816 and x["attn_dp_size"] == 8
    assert x["scheduler_log_line"].startswith("max_total_num_tokens=245588, chunked_prefill_size=1024, …, "
                                              "max_running_requests=2048, context_len=163840")


def test_s7_qwen3_next_five_state_slots_per_request_and_0_5_10():
    r = _plan("Qwen/Qwen3-Next-80B-A3B-Instruct", ParallelSpec(tp=4), GiB(138), GiB(37.5))
    _check(r, fraction=0.897, budget=92_648_887_025 - WORKSPACE_BYTES.bytes, cell=12_288, tokens=3_967_043,
           running=454,  # hand: 3,969,773 tokens without the workspace
           req_to_token=477_109_360)
    assert r.extra["sglang"]["mamba_slots"] == 2270 and r.extra["sglang"]["reserved_mib"] == 14_800
    old = _plan("Qwen/Qwen3-Next-80B-A3B-Instruct", ParallelSpec(tp=4), GiB(138), GiB(37.5),
                engine_version="0.5.10")
    assert old.extra["sglang"]["mem_fraction_static"] == 0.900 and old.extra["sglang"]["mamba_slots"] == 2282
    assert old.kv_tokens == 3_988_657 and old.max_running_requests == 760


def test_dp_attention_plan_from_the_cli_uses_tp_gpus():
    from tpkit.cli import main

    assert main(["plan", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--dp", "8", "--ep", "8",
                 "--num-gpus", "8", "--enable-dp-attention", "--json"]) == 0


@pytest.mark.parametrize("model, parallel, weights, kw, nominal", [
    # Gemma-3 (0.5.10+): its two 64 MiB caches both grow, 66 + 66 − 64 − 64 = 4 MiB → nominal 2 MiB
    ("google/gemma-3-27b-it", ParallelSpec(tp=1), MiB(52_320), {}, MiB(2)),
    ("deepseek-ai/DeepSeek-V3", ParallelSpec(tp=8), _DSV3_W, {"engine_version": "0.5.10"}, MiB(1)),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", ParallelSpec(tp=4), GiB(37.5), {}, MiB(1)),
])
def test_the_rope_pre_expansion_takes_its_nominal_off_each_case(model, parallel, weights, kw, nominal):
    pinned = _plan(model, parallel, GiB(138), weights, **kw).extra["sglang"]
    charged = _plan(model, parallel, GiB(138), weights, rope_pinned=False, **kw).extra["sglang"]
    assert pinned["rope_reserve_bytes"] == 0 and charged["rope_reserve_bytes"] == nominal.bytes
    assert pinned["kv_budget_bytes"] - charged["kv_budget_bytes"] == nominal.bytes
