"""Every vLLM rule pinned on both sides of the release that introduced it (versions.py's table, FACTS §3–§10)."""

import json
import math
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.engines.vllm.baseline import allreduce_costs as vllm_allreduce_costs
from tpkit.engines.vllm.blocksize import default_block_size, resolve_block_size
from tpkit.engines.vllm.capacity import max_concurrent_batches
from tpkit.engines.vllm.mamba import mamba_mode
from tpkit.engines.vllm.pages import build_layout
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.spec import LinearAttnSpec
from tpkit.parallel import ParallelSpec
from tpkit.hardware.topology import Topology
from tpkit.units import Bytes, GiB, KiB, MiB

from vllm_fixtures import H200, GivenWeights, deepseek_v3_like, llama3_8b

DATA = Path(__file__).resolve().parent / "data_vllm_issue11"
W = GivenWeights(Bytes(8_030_261_248 * 2))


def _model(stem):
    return from_config_dict(json.loads((DATA / f"{stem}.json").read_text()), name=stem, source=stem)


def _plan(version, model=None, par=ParallelSpec(), gpu=H200, **kw):
    return plan_vllm(model or llama3_8b(), gpu, par, VllmOptions(engine_version=version, **kw), weights=W)


@pytest.mark.parametrize("field, before, after, boundary", [
    ("default_utilization", 0.9, 0.92, "0.20.0"), ("cudagraph_estimate", False, True, "0.20.0"),
    ("ceil_requested", False, True, "0.14.0"), ("tokens_rule", "groups", "concurrency", "0.20.1"),
    ("sliding_in_flight", False, True, "0.26.0"), ("memory_rule", "increase", "consumed", "0.27.0"),
    ("custom_ar_buffer_mib", 8, 16, "0.27.0"), ("mnnvl_lamport", False, True, "0.27.0"),
    ("one_line_log", False, True, "0.28.0"), ("hybrid_prefix_caching", False, True, "0.28.0"),
    ("fit_check_reserves_block", False, True, "0.29.0"), ("v2_runner_default", False, True, "0.29.0"),
    ("cublas_after_snapshot", True, False, "0.33.0"), ("mla_preferred_block", False, True, "0.18.0"),
    ("chunked_local_hybrid", False, True, "0.14.0"), ("torch_symm_mem_allreduce", False, True, "0.11.0"),
    ("huge_gpu_batch", False, True, "0.28.0"), ("dcp", False, True, "0.10.2"), ("mamba_all_mode", True, False, "0.32.0"),
    ("flashinfer_sampler", "no", "if_installed", "0.8.0"), ("flashinfer_sampler", "if_installed", "no", "0.11.1"),
    ("flashinfer_sampler", "no", "yes", "0.21.0"), ("triton_topk_topp", False, True, "0.17.0"),
])
def test_each_rule_starts_at_its_release(field, before, after, boundary):
    major, minor, patch = (int(p) for p in boundary.split("."))
    previous = resolve_rules(f"{major}.{minor}.{patch - 1}" if patch else f"{major}.{minor - 1}.9")
    assert getattr(previous, field) == before
    assert getattr(resolve_rules(boundary), field) == after


def test_requested_memory_is_ceiled_from_0_14():
    total = H200.total_bytes.bytes
    assert _plan("0.13.0").extra["requested_bytes"] == math.floor(total * 0.9)
    assert _plan("0.14.0").extra["requested_bytes"] == math.ceil(total * 0.9)


def test_default_utilization_and_graph_estimate_arrive_together_in_0_20():
    old, new = _plan("0.19.1"), _plan("0.20.0")
    assert (old.extra["gpu_memory_utilization"], new.extra["gpu_memory_utilization"]) == (0.9, 0.92)
    assert old.extra["cuda_graph_bytes"] == 0 < new.extra["cuda_graph_bytes"]


def test_log_wording_per_release():
    lines = {v: _plan(v).engine_log for v in ("0.11.0", "0.12.0", "0.13.0", "0.14.0", "0.27.0", "0.28.0")}
    assert re.fullmatch(r"Model loading took \d+\.\d{4} GiB and … seconds", lines["0.11.0"][0])
    assert re.fullmatch(r"Model loading took \d+\.\d{4} GiB memory and … seconds", lines["0.12.0"][0])
    assert re.fullmatch(r"Available KV cache memory: \d+\.\d\d GiB", lines["0.13.0"][1])
    assert re.fullmatch(r"Model loading took \d+(\.\d{1,2})? GiB memory and … seconds", lines["0.14.0"][0])
    assert re.fullmatch(r"GPU KV cache size: [\d,]+ tokens", lines["0.27.0"][-2])
    assert re.fullmatch(r"GPU KV cache size: [\d,]+ tokens, Maximum concurrency for [\d,]+ tokens per request: "
                        r"\d+\.\d\dx", lines["0.28.0"][-1])


def test_fit_check_keeps_a_null_block_from_0_29():
    model = llama3_8b()
    need = 8192 // 16 * MiB(2)  # one request of 8,192 tokens: 512 blocks of 2 MiB
    kw = dict(max_model_len=8192, kv_cache_memory_bytes=need)
    assert _plan("0.28.0", model, **kw).verdict.fits
    assert not _plan("0.29.0", model, **kw).verdict.fits


def test_in_flight_batches_per_release_runner_and_pp():
    r25, r26, r28, r29 = (resolve_rules(v) for v in ("0.25.0", "0.26.0", "0.28.0", "0.29.0"))
    assert max_concurrent_batches(r25, 1) == 1 and max_concurrent_batches(r25, 4) == 1
    assert max_concurrent_batches(r26, 1) == 2                        # async scheduling, V1 runner
    assert max_concurrent_batches(r28, 4) == 4                        # V1 runner + pp > 1: async off
    assert max_concurrent_batches(r29, 4) == 5                        # Model Runner V2: pp + 1
    assert max_concurrent_batches(r29, 1, async_scheduling=False) == 1


def test_mla_block_size_by_gpu_and_release():
    model, hopper, blackwell = deepseek_v3_like(), (9, 0), (10, 0)
    assert [default_block_size(model, resolve_rules(v), hopper) for v in ("0.17.0", "0.18.0")] == [64, 16]
    assert default_block_size(model, resolve_rules("0.18.0"), hopper, fp8_kv=True) == 64
    assert [default_block_size(model, resolve_rules(v), blackwell) for v in ("0.14.0", "0.15.0", "0.18.0")] \
        == [128, 64, 32]
    assert default_block_size(model, resolve_rules("0.33"), (8, 0)) == 16
    # 0.34.0: CacheConfig.DEFAULT_BLOCK_SIZE 64, which FLASH_ATTN_MLA, FLASHINFER_MLA and TRITON_MLA take (helper cur17)
    assert [default_block_size(model, resolve_rules(v), cap) for v in ("0.33.0", "0.34.0")
            for cap in (hopper, blackwell, (8, 0))] == [16, 32, 16, 64, 64, 64]
    assert default_block_size(model, resolve_rules("0.34.0"), hopper, fp8_kv=True) == 64  # FlashMLA
    assert [default_block_size(llama3_8b(), resolve_rules(v), hopper) for v in ("0.33.0", "0.34.0")] == [16, 64]
    # user sizes: forced before 0.18 (≤ 0.11 anything but 64; 0.12–0.17 only non-multiples of 64), kept after
    assert resolve_block_size(model, 128, resolve_rules("0.11.0"), hopper)[0] == 64
    assert resolve_block_size(model, 128, resolve_rules("0.12.0"), hopper) == (128, None)
    assert resolve_block_size(model, 16, resolve_rules("0.18.0"), hopper) == (16, None)
    with pytest.raises(PlanInputError, match="multiple of 16"):
        resolve_block_size(model, 24, resolve_rules("current"), hopper)


def _llama4_like():
    """Llama-4's attention pattern: every 4th layer global, the others chunked-local (chunk 8,192)."""
    kinds = tuple("full" if (i + 1) % 4 == 0 else "sliding" for i in range(48))
    return replace(llama3_8b(), name="llama4-like", model_type="llama4_text", num_layers=48, layer_kinds=kinds,
                   sliding_window=8192)


def test_llama4_chunked_local_layers_are_full_attention_before_0_14():
    model = _llama4_like()
    old = build_layout(model, ParallelSpec(), block_size=16, era="0.11", dtype_bytes=2, dtype_name="bf16",
                       rules=resolve_rules("0.13.0"))
    new = build_layout(model, ParallelSpec(), block_size=16, era="0.11", dtype_bytes=2, dtype_name="bf16",
                       rules=resolve_rules("0.14.0"))
    assert [g.kind for g in old.groups] == ["full"] and old.groups[0].num_layers == 48
    assert sorted({g.kind for g in new.groups}) == ["chunked", "full"]
    chunked = next(g for g in new.groups if g.kind == "chunked")
    assert chunked.blocks_per_request(131_072, 8192) == -(-(8192 + 8192) // 16)  # no +1, unlike sliding


def test_llama4_with_eagle_turns_the_hybrid_manager_off():
    model = _llama4_like()
    spec = json.dumps({"method": "eagle3", "model": str(DATA / "SpecForge--llama3-8B-eagle3.json"),
                       "num_speculative_tokens": 3})
    with_eagle = _plan("current", model, kv_cache_memory_bytes=GiB(20), speculative_config=spec)
    plain = _plan("current", model, kv_cache_memory_bytes=GiB(20))
    assert {g["kind"] for g in with_eagle.extra["kv_groups"]} == {"full"}
    assert {g["kind"] for g in plain.extra["kv_groups"]} == {"chunked", "full"}


def _hybrid(model_type):
    kinds = tuple("full" if i % 4 == 3 else "linear" for i in range(8))
    return replace(llama3_8b(), name=model_type, model_type=model_type, num_layers=8, layer_kinds=kinds,
                   linear_attn=LinearAttnSpec(state_bytes_per_layer=MiB(4)))


@pytest.mark.parametrize("model_type, version, mode, pages", [
    ("kimi_linear", "0.27.0", "none", 1), ("kimi_linear", "0.28.0", "align", 2),
    ("qwen3_next", "0.32.0", "align", 2), ("qwen3_next", "0.33.0", "align", 3),    # GDN checkpoint (Hopper)
    ("nemotron_h", "0.31.0", "all", None), ("nemotron_h", "0.32.0", "align", 3),   # Mamba2 checkpoint
])
def test_mamba_pages_per_request(model_type, version, mode, pages):
    m = mamba_mode(_hybrid(model_type), resolve_rules(version), compute_capability=(9, 0))
    assert (m.mode, m.fixed_blocks) == (mode, pages)


def test_mamba_speculative_blocks_add_to_align_mode():
    assert mamba_mode(_hybrid("kimi_linear"), resolve_rules("current"), spec_tokens=3).fixed_blocks == 5
    assert mamba_mode(_hybrid("qwen3_next"), resolve_rules("current"), compute_capability=(8, 0)).fixed_blocks == 2


def test_align_mode_lowers_concurrency_of_a_hybrid():
    model = _hybrid("kimi_linear")
    old, new = (_plan(v, model, kv_cache_memory_bytes=GiB(20), max_model_len=8192) for v in ("0.27.0", "0.28.0"))
    assert old.extra["kv_blocks"] == new.extra["kv_blocks"] and new.max_concurrency < old.max_concurrency


def _links(nvlink, cc=(9, 0), n=8):
    """An assumed (catalog-style) uniform group: NVLink mesh or PCIe."""
    return Topology.uniform(n, nvlink=nvlink, p2p=True, compute_capability=cc, source="test",
                            assumed=frozenset({"nvlink", "p2p"})).group()


def test_allreduce_buffers_on_h200_tp8_per_release():
    gpu = H200
    car_26, other_26 = vllm_allreduce_costs(gpu, _links(True), 8, resolve_rules("0.26.0"),
                                            disable_custom_all_reduce=False)
    car_27, other_27 = vllm_allreduce_costs(gpu, _links(True), 8, resolve_rules("0.27.0"),
                                            disable_custom_all_reduce=False)
    assert car_26.bytes == Bytes(2_560) + KiB(256) + KiB(256) + MiB(8)        # max_size capped by symm-mem
    assert car_27.bytes == Bytes(4_864) + KiB(256) + MiB(16) + MiB(8)
    assert [c.bytes for c in other_26] == [MiB(64)]                            # symm-mem buffer
    assert [c.bytes for c in other_27] == [MiB(64), MiB(96)]                   # + MNNVL Lamport
    car_10, other_10 = vllm_allreduce_costs(gpu, _links(True), 8, resolve_rules("0.10.2"),
                                            disable_custom_all_reduce=False)
    assert car_10.bytes == Bytes(2_560) + MiB(8) * 3 and other_10 == ()      # no symm-mem before 0.11


def test_custom_allreduce_is_off_over_pcie_beyond_two_gpus():
    l40s = lookup_gpu("L40S")
    links = _links(False, cc=(8, 9))
    four, _ = vllm_allreduce_costs(l40s, links, 4, resolve_rules("current"), disable_custom_all_reduce=False)
    two, _ = vllm_allreduce_costs(l40s, links, 2, resolve_rules("current"), disable_custom_all_reduce=False)
    assert four.bytes == Bytes(0) and "PCIe" in four.source
    assert two.bytes == Bytes(4_864) + MiB(8) + MiB(16) + MiB(8)


def test_symm_mem_buffer_stays_with_disable_custom_all_reduce():
    car, other = vllm_allreduce_costs(H200, _links(True), 4, resolve_rules("current"), disable_custom_all_reduce=True)
    assert car is None and [c.bytes for c in other] == [MiB(32)]


def test_b200_batch_default_rises_in_0_28():
    b200 = lookup_gpu("B200")
    assert _plan("0.27.0", gpu=b200).extra["max_num_batched_tokens"] == 8192
    assert _plan("0.28.0", gpu=b200).extra["max_num_batched_tokens"] == 16384


def _batch(version, gpu):
    extra = _plan(version, gpu=gpu).extra
    return extra["max_num_batched_tokens"], extra["max_num_seqs"]


def test_v1_batch_defaults_per_release_and_device():
    """engine/arg_utils.py _set_default_args_v1 (vllm 0.7.2, 0.7.3, 0.8.0, 0.8.3, 0.8.4, 0.8.5, 0.9.0 wheels): by the
    device NAME up to 0.8.4 (tokens; max_num_seqs 1024 everywhere before 0.8.4, by name in 0.8.4), by memory
    ≥ 70 GiB in 0.8.5 (A100-80GB included), ≥ 70 GiB and not A100 from 0.9.0."""
    h100, l40s, a100 = lookup_gpu("H100-SXM-80GB"), lookup_gpu("L40S"), lookup_gpu("A100-SXM-80GB")
    h20 = lookup_gpu("H20-96GB")  # ≥ 70 GiB, but no "h100"/"h200" in its name
    assert _batch("0.7.3:v1", l40s) == (2048, 1024) and _batch("0.8.3", l40s) == (2048, 1024)
    assert _batch("0.8.3", h100) == (8192, 1024) and _batch("0.8.3", h20) == (2048, 1024)
    assert _batch("0.8.4", l40s) == (2048, 256) and _batch("0.8.4", h20) == (2048, 256)
    assert _batch("0.8.4", h100) == (8192, 1024) and _batch("0.8.4", a100) == (2048, 256)
    assert _batch("0.8.5", h20) == (8192, 1024) and _batch("0.8.5", a100) == (8192, 1024)
    assert _batch("0.8.5", l40s) == (2048, 256)
    assert _batch("0.9.0", a100) == (2048, 256) and _batch("0.9.0", h20) == (8192, 1024)


def test_gb10_gets_the_small_batch_defaults_in_every_memory_rule_release():
    """engine/arg_utils.py reads the device memory through NVML and falls back to 0 bytes when the query fails
    (0.10.2–0.29.0 wheels); GB10's NVML reports no memory total, so its 119.63 GiB count as 0: 2048 / 256 before
    and after 0.28.0 (tpkit gave it 8192 / 1024 before 0.28 until helper mv11), while an H100 keeps 8192 / 1024."""
    gb10, h100 = lookup_gpu("GB10"), lookup_gpu("H100-SXM-80GB")
    for version in ("0.9.0", "0.11.0", "0.13.0", "0.27.0", "0.28.0", "current"):
        assert _batch(version, gb10) == (2048, 256), version
        assert _batch(version, h100) == (8192, 1024), version
    assert _batch("0.8.4", gb10) == (2048, 256)  # the name rule: no "h100"/"h200" in "GB10"


def test_v1_profile_sampler_starts_in_0_8_and_0_7_3_takes_the_request_rows():
    """v1/worker/gpu_model_runner.py profile_run: 0.7.1/0.7.2 compute the logits of every batched token, 0.7.3 of
    the max_num_seqs rows, neither runs a sampler; 0.8.0 adds _dummy_sampler_run (38 B per logit, native)."""
    l40s = lookup_gpu("L40S")
    def sampler_line(version):
        return next(p for p in _plan(version, gpu=l40s).ledger.items if "logits" in p.item)
    vocab = llama3_8b().vocab_size
    old, mid, new = sampler_line("0.7.2:v1"), sampler_line("0.7.3:v1"), sampler_line("0.8.0")
    hidden = 2048 * llama3_8b().hidden_size * 2
    assert old.item.endswith("logits") and old.bytes == Bytes(hidden + 2048 * vocab * 2)
    assert mid.item.endswith("logits") and mid.bytes == Bytes(hidden + 1024 * vocab * 2)
    assert new.item.endswith("logits + sampler") and new.bytes == Bytes(hidden + 1024 * vocab * 38)
    assert not resolve_rules("0.7.3:v1").dummy_sampler and resolve_rules("0.8.0").dummy_sampler
    assert resolve_rules("0.7.2:v1").profile_logits_all_tokens and not resolve_rules("0.7.3:v1").profile_logits_all_tokens


def test_kv_cache_memory_bytes_arrives_in_0_10_2():
    with pytest.raises(PlanInputError, match="arrived in 0.10.2"):
        _plan("0.10.1", kv_cache_memory_bytes=GiB(10))
    assert _plan("0.10.2", kv_cache_memory_bytes=GiB(10)).extra["available_kv_bytes"] == GiB(10).bytes


def test_custom_allreduce_stays_on_rocm_xgmi_boards():
    mi300x = lookup_gpu("MI300X")
    links = _links(False, cc=None)
    car, other = vllm_allreduce_costs(mi300x, links, 8, resolve_rules("current"), disable_custom_all_reduce=False)
    assert car.bytes == Bytes(4_864) + MiB(8) + MiB(16) + MiB(8) and other == ()  # no CUDA symm-mem on ROCm


def test_gated_delta_net_state_is_in_the_model_dtype():
    """Qwen3-Next: conv (4 − 1) × (2·16·128 + 32·128)/tp + temporal 32/tp × 128 × 128, all bf16 (vLLM's
    mamba_ssm_cache_dtype "auto"); SGLang's fp32 temporal state would be 2,146,304 B at TP 1."""
    from tpkit.engines.vllm.layer_bytes import gdn_state_bytes

    extra = {"linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
             "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4}
    assert gdn_state_bytes(extra, 1, 2) == (3 * 8192 + 32 * 128 * 128) * 2 == 1_097_728
    assert gdn_state_bytes(extra, 4, 2) == (3 * 2048 + 8 * 128 * 128) * 2
    assert gdn_state_bytes(extra, 4, 2, spec_tokens=2) == (5 * 2048 + 8 * 128 * 128) * 2


def _context(plan):
    return next(l.bytes for l in plan.ledger.items if l.item == "CUDA context")


@pytest.mark.parametrize("charged, outside", [("0.3.0", "0.3.1"), ("0.6.4", "0.6.3"), ("0.6.4", "0.6.5")])
def test_v0_context_rule_on_both_sides_of_each_boundary(charged, outside):
    """worker.py: ≤ 0.3.0 total − free; 0.3.1–0.6.3 init_gpu_memory − free; 0.6.4 (total − free) − torch
    allocated; ≥ 0.6.5 memory_profiling over init_device's free memory (vllm 0.2.6 … 0.6.6 wheels).  Helper v04
    (2026-12-05): net of the cached free segments that 0.2.5–0.6.3 also count (``_kept``)."""
    assert not resolve_rules(charged).v0_context_outside and resolve_rules(outside).v0_context_outside
    a, b = _plan(charged, max_num_batched_tokens=8192), _plan(outside, max_num_batched_tokens=8192)
    assert b.extra["available_kv_bytes"] - a.extra["available_kv_bytes"] == _context(b).bytes - _kept(b) + _kept(a)


def _kept(plan):
    """the cached free segments 0.2.5–0.6.3 count as peak (helper v04, engines/vllm/v0_reserved.py): 0.6.3 has them,
    0.6.4 not"""
    return sum(l.bytes.bytes for l in plan.ledger.items if "cached free segments" in l.item)


def test_v0_budget_leaves_the_cuda_context_out_from_0_6_5():
    """vllm 0.6.4 worker.py charges (total − free) − torch allocated, the context included; 0.6.5 measures the
    non-torch increase over init_device's free memory, read after the context (memory_profiling baseline)."""
    old, new = _plan("0.6.4", max_num_batched_tokens=2048), _plan("0.6.5", max_num_batched_tokens=2048)
    assert not resolve_rules("0.6.4").v0_context_outside and resolve_rules("0.6.5").v0_context_outside
    gained = new.extra["available_kv_bytes"] - old.extra["available_kv_bytes"]
    assert gained == _context(new).bytes > 0
    assert new.kv_tokens > old.kv_tokens
    # the V0 engine keeps the 0.6.5 accounting through 0.10 (VLLM_USE_V1=0); V1 0.8.x charges the context again
    assert _plan("0.8.2:v0", max_num_batched_tokens=2048).extra["available_kv_bytes"] \
        == new.extra["available_kv_bytes"]
    v1 = _plan("0.8.5")
    assert not resolve_rules("0.8.5").v0_context_outside
    assert "inside the budget" in next(l.source for l in v1.ledger.items if l.item == "CUDA context")


def test_engine_suffix_names_the_engine_of_a_release():
    assert resolve_rules("0.8.2:v0").engine == "V0" and resolve_rules("0.8.2").engine == "V1"
    v1 = resolve_rules("0.7.3:v1")
    assert v1.engine == "V1" and v1.memory_rule == "v0_peak" and resolve_rules("0.7.3").engine == "V0"
    # its worker sizes memory like 0.8.0's; only the profile differs (logits, no dummy sampler run: test below;
    # 0.7.x's fused MoE keeps its GEMM outputs apart: tests/engines/test_vllm_moe_pre08.py)
    assert v1.moe_cache3_separate and not resolve_rules("0.8.0").moe_cache3_separate
    assert replace(v1, release=(0, 8, 0), dummy_sampler=True, moe_cache3_separate=False) == resolve_rules("0.8.0")
    assert _plan("0.7.3:v1").extra["available_kv_bytes"] > _plan("0.8.0").extra["available_kv_bytes"]
    for bad in ("0.11.0:v0", "0.6.0:v1", "0.8.2:v2"):
        with pytest.raises(PlanInputError, match="engine suffix"):
            resolve_rules(bad)


def test_profile_sampler_follows_the_release_and_the_gpu():
    """topk_topp_sampler.py: FlashInfer when installed 0.8.0–0.11.0 (0.8.x: below 0.2.3, helper lora12); opt-in 0.11.1–0.20; default from
    0.21 on the capabilities FlashInferBackend supports.  The native path sorts up to 0.16 and runs the Triton
    top-k/top-p kernel from 0.17.0 (helper v90).  From 0.21.0 the V1 runner's dummy sampler run calls the sampler a
    second time with a seeded generator, which takes the native path whatever the sampler ("Also warm
    forward_native", v1/worker/gpu_model_runner.py; helper gpt20): the V1 profile peak is the native path's."""
    from tpkit.engines.vllm.profile_lines import profile_sampler
    from tpkit.engines.vllm.sampler import FLASHINFER_SAMPLER_BYTES_PER_LOGIT, TRITON_SAMPLER_BYTES_PER_LOGIT

    hopper, turing = (9, 0), (7, 5)
    assert [profile_sampler(resolve_rules(v), hopper) for v in ("0.8.5", "0.9.0", "0.11.0", "0.11.1", "0.12.0",
                                                                   "0.16.0", "0.17.0", "0.20.0", "0.21.0", "current",
                                                                   "v0")] == \
        ["native_unless_installed", "native_unless_installed", "native_unless_installed", "native", "native", "native", "triton",
         "triton", "triton", "triton", "native"]
    assert profile_sampler(resolve_rules("current"), turing) == "triton"
    assert profile_sampler(resolve_rules("0.16.0"), turing) == "native"
    assert profile_sampler(resolve_rules("0.20.0"), None) == "triton"
    assert profile_sampler(resolve_rules("current"), None) == "triton"   # the native pass runs on any GPU
    # a log's FlashInfer line: one FlashInfer call up to 0.20, then the seeded native call from 0.21
    assert profile_sampler(resolve_rules("0.20.0"), hopper, "flashinfer") == "flashinfer"
    assert profile_sampler(resolve_rules("0.21.0"), hopper, "flashinfer") == "triton"
    assert not resolve_rules("0.20.0").v1_native_sampler_warmup and resolve_rules("0.21.0").v1_native_sampler_warmup
    rows = 1024  # H200 defaults: max_num_seqs 1024, 8192 batched tokens; the sampler is the limiting phase
    phase = {v: next(l for l in _plan(v, enforce_eager=True).ledger.items if l.item == "profile phase: logits + sampler")
             for v in ("0.20.0", "0.21.0")}
    assert TRITON_SAMPLER_BYTES_PER_LOGIT == FLASHINFER_SAMPLER_BYTES_PER_LOGIT == 14
    # 0.20 samples natively (FlashInfer opt-in), 0.21's seeded warm-up call too: the same Triton path and its cached
    # float32 buffer of H200's 132 SMs' rows on both sides
    assert phase["0.20.0"].bytes == phase["0.21.0"].bytes
    assert "Triton top-k/top-p" in phase["0.21.0"].source and "Triton top-k/top-p" in phase["0.20.0"].source
    assert rows * 128_256 * 14 + 132 * 128_256 * 4 < phase["0.20.0"].bytes.bytes


def test_0_8_samples_with_flashinfer_when_an_old_flashinfer_is_installed():
    """vLLM 0.8.2 / 0.8.5 ``TopKTopPSampler.__init__`` takes FlashInfer when a flashinfer-python below 0.2.3 is
    installed (the 0.8-era image's 0.2.1.post2; vl_873 / vp_608 print "Using FlashInfer"), native otherwise (vp_005's
    0.8.5 prints the ≥ 0.2.3 fallback): the install decides, as in 0.9.0–0.11.0.  Without a log line the 0.8.x
    nominal stays PyTorch-native (38 B) with a band down to FlashInfer's 14 B (helper lora12); 0.7.x runs no
    sampler."""
    from tpkit.engines.vllm.profile_lines import profile_sampler

    hopper = (9, 0)
    assert profile_sampler(resolve_rules("0.8.2"), hopper) == "native_unless_installed"
    assert profile_sampler(resolve_rules("0.8.2"), hopper, "flashinfer") == "flashinfer"
    assert profile_sampler(resolve_rules("0.7.3:v1"), hopper) == "none"
    line = next(l for l in _plan("0.8.2", enforce_eager=True).ledger.items
                if l.item == "profile phase: logits + sampler")
    assert "× 38 ± 24 B" in line.source and "FlashInfer 14 B if installed" in line.source
    from tpkit.memory.band import at_band_end

    kv = {}
    for end in (0, -1):
        with at_band_end(end):
            kv[end] = (_plan("0.8.2", enforce_eager=True).extra["available_kv_bytes"],
                       _plan("0.8.2", enforce_eager=True, topk_topp_sampler="native").extra["available_kv_bytes"])
    assert kv[0][0] == kv[0][1]  # the nominal is unchanged: PyTorch-native
    assert kv[-1][0] > kv[-1][1]  # the band reaches FlashInfer's smaller peak (combined with the other terms)


def test_derived_max_model_len_applies_the_rope_scaling_factor_per_release():
    """_get_and_verify_max_len: the rope_scaling factor multiplies the length for types other than su / longrope /
    llama3 (Gemma-3 excluded); YaRN counts from original_max_position_embeddings × factor before 0.30 and is taken
    as already scaled from 0.30 (config/model.py, vllm 0.29.0 vs 0.30.0 wheels)."""
    from tpkit.engines.vllm.maxlen import derived_max_model_len

    cfg = json.loads((DATA / "meta-llama--Llama-3.1-8B-Instruct.json").read_text())
    yarn = {**cfg, "max_position_embeddings": 40_960,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32_768}}
    m = from_config_dict(yarn, name="yarn4", source="test")
    assert derived_max_model_len(m, resolve_rules("0.29.0"))[0] == 131_072
    assert derived_max_model_len(m, resolve_rules("0.30.0"))[0] == 40_960
    assert _plan("0.29.0", model=m, max_model_len=131_072).context_length == 131_072
    with pytest.raises(PlanInputError, match="limit of 40,960"):
        _plan("0.30.0", model=m, max_model_len=131_072)
    linear = from_config_dict({**cfg, "rope_scaling": {"type": "linear", "factor": 2.0}}, name="lin", source="test")
    assert derived_max_model_len(linear, resolve_rules("current"))[0] == 2 * cfg["max_position_embeddings"]
    llama3 = from_config_dict(cfg, name="llama3", source="test")  # rope_type llama3: not scaled
    assert derived_max_model_len(llama3, resolve_rules("0.29.0"))[0] == cfg["max_position_embeddings"]


def test_custom_allreduce_arrives_in_0_3_0():
    """vLLM 0.2.6/0.2.7 all-reduce only through torch.distributed (no custom_all_reduce.py in the wheels); 0.3.0's
    worker.py Worker.init_model calls init_custom_ar (8 MiB meta + 8 MiB buffer + 8 MiB rank_data, TP 2/4/6/8)."""
    assert resolve_rules("0.2.7").custom_ar_world_sizes == ()
    assert resolve_rules("0.3.0").custom_ar_world_sizes == (2, 4, 6, 8)
    old, new = (vllm_allreduce_costs(H200, _links(True), 4, resolve_rules(v), disable_custom_all_reduce=False)[0]
                for v in ("0.2.7", "0.3.0"))
    assert old.bytes == Bytes(0) and new.bytes == Bytes(2_560) + MiB(8) * 3
    a100, tp4 = lookup_gpu("A100-80GB"), ParallelSpec(tp=4)  # a catalog SXM board: NVLink mesh
    plans = {v: _plan(v, par=tp4, gpu=a100) for v in ("0.2.6", "0.3.0")}
    items = {v: {i.item: i.bytes for i in p.ledger.items} for v, p in plans.items()}
    assert items["0.2.6"].get("custom all-reduce buffers", Bytes(0)) == Bytes(0)
    assert items["0.3.0"]["custom all-reduce buffers"] == Bytes(2_560) + MiB(8) * 3


def test_v0_batch_defaults_per_release():
    """V0 max_num_batched_tokens (config.py SchedulerConfig, engine/arg_utils.py; vllm 0.5.4, 0.6.0–0.6.6, 0.7.0,
    0.8.5 wheels): the long-context chunked-prefill budget is 512 up to 0.6.4 and 2048 from 0.6.5; multimodal
    models keep chunked prefill off from 0.6.2 and get at least 4096 (0.6.0–0.6.2) / 5120 (≥ 0.6.3) tokens."""
    text, vlm = llama3_8b(), replace(llama3_8b(), is_multimodal=True)

    def tokens(version, model, length):
        return _plan(version, model, max_model_len=length).extra["max_num_batched_tokens"]

    assert [tokens(v, text, 65536) for v in ("0.6.4", "0.6.5", "0.8.5:v0")] == [512, 2048, 2048]
    assert [tokens(v, text, 8192) for v in ("0.6.4", "0.6.5")] == [8192, 8192]          # no chunking at ≤ 32K
    assert [tokens(v, vlm, 65536) for v in ("0.6.1", "0.6.2", "v0")] == [4096, 65536, 65536]
    assert [tokens(v, vlm, 2048) for v in ("0.5.4", "0.6.2", "0.6.3")] == [2048, 4096, 5120]
    assert _plan("0.6.5", text, max_model_len=65536, max_num_batched_tokens=1024).extra["max_num_batched_tokens"] \
        == 1024


QWEN36 = str(Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "Qwen__Qwen3.6-35B-A3B"
             / "config.json")


@pytest.mark.parametrize("arch, before, first", [
    ("Qwen3_5MoeForConditionalGeneration", "0.16.0", "0.17.0"),
    ("Qwen3_5ForConditionalGeneration", "0.16.0", "0.17.0"),
    ("Qwen3_5MoeForCausalLM", "0.26.0", "0.27.0"),
    ("Qwen3_5ForCausalLM", "0.26.0", "0.27.0"),
])
def test_qwen35_config_sets_the_gdn_temporal_state_dtype(arch, before, first):
    """vLLM's Qwen3_5ForConditionalGenerationConfig (model_executor/models/config.py, first in the 0.17.0 wheel,
    not in 0.16.0) turns the config's mamba_ssm_dtype "float32" into mamba_ssm_cache_dtype; the text-only
    Qwen3_5(Moe)ForCausalLM get it through Qwen3_5ForCausalLMConfig from 0.27.0 (not in 0.26.0).  Before, the
    temporal state stays in the conv dtype (bf16)."""
    from tpkit.engines.vllm.layer_bytes import ssm_state_bytes
    from tpkit.models import load_model

    model = replace(load_model(QWEN36), architecture=arch)
    assert model.extra["mamba_ssm_dtype"] == "float32"
    assert ssm_state_bytes(model, resolve_rules(before), 2) == 2
    assert ssm_state_bytes(model, resolve_rules(first), 2) == 4
    assert ssm_state_bytes(model, resolve_rules("current"), 2) == 4


def test_qwen35_fp32_state_sets_the_block_and_the_printed_tokens():
    """vl_012 (vLLM 0.24.0, Qwen3.6-35B-A3B NVFP4, fp8 KV, prefix caching on, max_model_len 131072, 5.98 GiB):
    the GDN page is conv 3 × 8192 × 2 B + temporal 32 × 128 × 128 × 4 B = 2,146,304 B, so the fp8 attention
    block grows to 2,096 tokens (1,024 B/token); 10 layers per group → 21,463,040 B per block; 299 blocks /
    (cdiv(131072, 2096) + 3 groups × 2 align pages = 69) × 131072 = 567,978 printed.  With the state in bf16
    (0.16 rule) the block would be 1,072 tokens and the print 593,380–594,396."""
    from tpkit.engines.vllm.capacity import plan_capacity
    from tpkit.engines.vllm.mamba import mamba_mode
    from tpkit.engines.vllm.pages import build_layout
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec

    model = load_model(QWEN36)
    rules = resolve_rules("0.24.0")
    mamba = mamba_mode(model, rules, prefix_caching=True)
    layout = build_layout(model, ParallelSpec(tp=1), block_size=16, era=rules.era, dtype_bytes=1,
                          dtype_name="fp8", rules=rules, mamba=mamba)
    assert layout.block_size == 2096 and layout.bytes_per_block == Bytes(21_463_040)
    cap = plan_capacity(layout, Bytes(int(5.98 * 2**30)), max_model_len=131072, max_num_batched_tokens=8192,
                        pp=1, rules=rules)
    assert cap.num_blocks == 299 and cap.tokens == 567_978


@pytest.mark.parametrize("version, torch_only", [("0.2.0", True), ("0.2.4", True), ("0.2.5", False),
                                                 ("0.2.6", False), ("0.3.0", False), ("0.3.1", False)])
def test_v0_0_2_0_to_0_2_4_charge_torch_peak_only(version, torch_only):
    """worker/worker.py profile_num_available_blocks: 0.2.0–0.2.4 charge torch.cuda.max_memory_allocated()
    against the device total; 0.2.5 switches to total − free (context, NCCL and other processes charged)."""
    assert resolve_rules(version).v0_torch_peak_only is torch_only


def _kv(result):
    return next(l.bytes.bytes for l in result.ledger.items if l.item == "KV cache")


def _held(result):
    return sum(l.bytes.bytes for l in result.ledger.items if "all-reduced activations held" in l.item)


@pytest.mark.parametrize("version, held", [("0.2.4", False), ("0.2.5", True), ("0.2.6", False), ("0.2.7", False),
                                           ("0.3.0", False), ("0.5.4", False), ("0.10.0", False)])
def test_only_0_2_5_charges_the_all_reduced_activations(version, held):
    """0.2.5 measures total − free after the profile and does not set TORCH_NCCL_AVOID_RECORD_STREAMS (vllm 0.2.5
    wheel); 0.2.4 charges max_memory_allocated (freed blocks not counted); 0.2.6 sets the variable in
    worker/worker.py Worker.init_model (0.2.6, 0.2.7, 0.3.0–0.4.1, 0.5.4 wheels)."""
    assert resolve_rules(version).v0_allreduce_held is held


def test_held_allreduce_bytes_formula():
    """(2 L + 1) all-reduces of T × H activations + the logits all-gather (input and output), none at tp 1."""
    from tpkit.engines.vllm.profile import held_allreduce_bytes
    m = llama3_8b()
    got, how = held_allreduce_bytes(m, ParallelSpec(tp=4), tokens=4096, rows=256, act_bytes=2)
    want = (2 * m.num_layers + 1) * 4096 * m.hidden_size * 2 + 256 * m.vocab_size * 2 + 256 * (m.vocab_size // 4) * 2
    assert got.bytes == want and "65 all-reduces" in how
    assert held_allreduce_bytes(m, ParallelSpec(), tokens=4096, rows=256, act_bytes=2)[0].bytes == 0


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_0_2_5_at_tp_above_1_holds_the_all_reduced_activations_and_0_2_6_does_not(tp):
    """Both measure total − free; 0.2.5 also charges the blocks its all-reduces keep reserved (PR #2031's own
    Llama-2-70B tp-4 figures: 13.1 GiB more than 0.2.4's measure, against 0.1 GiB at tp 1)."""
    from tpkit.engines.vllm.profile import held_allreduce_bytes
    par = ParallelSpec(tp=tp)
    r25, r26 = _plan("0.2.5", par=par), _plan("0.2.6", par=par)
    assert _held(r26) == 0
    block = 2 * 32 * 16 * (8 // tp) * 128 * 2
    if tp == 1:
        assert _held(r25) == 0 and _kv(r25) == _kv(r26)
        return
    held = held_allreduce_bytes(llama3_8b(), par, tokens=r25.extra["max_num_batched_tokens"],
                                rows=r25.extra["max_num_seqs"], act_bytes=2)[0].bytes
    assert _held(r25) == held > 0
    gap = _kv(r26) + _kept(r26) - _kv(r25)  # helper v04: 0.2.6 counts the cached free segments, 0.2.5 its held blocks
    assert _kept(r25) == 0 and held - block < gap <= held + block


@pytest.mark.parametrize("tp", [1, 4])
def test_v0_0_2_4_keeps_the_start_up_memory_out_of_the_budget_and_0_2_5_charges_it(tp):
    par = ParallelSpec(tp=tp)
    old, new = _plan("0.2.4", par=par), _plan("0.2.5", par=par)
    startup = sum(l.bytes.bytes for l in old.ledger.items if l.kind == "use"
                  and l.item in ("CUDA context", "NCCL communicator init", "NCCL first all-reduce buffers",
                                 "cuBLAS/cuBLASLt handles"))
    assert startup > 0
    block = 2 * 32 * 16 * (8 // tp) * 128 * 2  # one block of Llama-3-8B at tp (K and V, 16 tokens, bf16)
    held = _held(new)  # 0.2.5's all-reduced activations (tp > 1), its own rule below
    assert (held > 0) is (tp > 1)
    # helper v04: 0.2.5 at tp 1 also counts the cached free segments (engines/vllm/v0_reserved.py)
    assert startup - block < _kv(old) - _kv(new) - held - _kept(new) <= startup + block
    assert any("not charged by V0 0.2.0–0.2.4" in l.source for l in old.ledger.items)


def test_v0_0_2_4_budget_above_the_free_memory_is_shown_as_a_shortfall_line():
    """0.2.4 never compares its budget with the free memory: at utilisation 0.999 the KV allocation cannot fit in
    what the start-up uses left, and the ledger says so instead of a negative reserve."""
    r = _plan("0.2.4", gpu_memory_utilization=0.999)
    items = {l.item: l for l in r.ledger.items}
    assert "requested beyond the free memory after the start-up uses" in items
    assert items["requested beyond the free memory after the start-up uses"].bytes < Bytes(0)
    assert "requested beyond the free memory after the start-up uses" not in {
        l.item for l in _plan("0.2.4").ledger.items}


def test_install_dependent_sampler_is_planned_as_a_plain_pip_install_gives_it():
    """0.9.0–0.11.0 sample with FlashInfer only when flashinfer-python is installed, which the wheel does not
    require (METADATA: absent in 0.10.0, the "flashinfer" extra in 0.10.2 / 0.11.0, Requires-Dist from 0.12.0): the
    plan takes the PyTorch-native 38 B per logit of a plain pip install, its band reaching FlashInfer's 14 B.  From
    0.11.1 the FlashInfer sampler is opt-in (VLLM_USE_FLASHINFER_SAMPLER=1): native, no band."""
    from tpkit.engines.vllm.profile_lines import profile_sampler
    from tpkit.engines.vllm.sampler import FLASHINFER_SAMPLER_BYTES_PER_LOGIT, SAMPLER_BYTES_PER_LOGIT

    hopper, volta = (9, 0), (7, 0)
    assert profile_sampler(resolve_rules("0.11.0"), None) == "native_unless_installed"
    assert profile_sampler(resolve_rules("0.10.2"), volta) == "native"
    assert profile_sampler(resolve_rules("0.8.5"), hopper) == "native_unless_installed"  # helper lora12
    assert profile_sampler(resolve_rules("0.8.5"), volta) == "native"
    assert profile_sampler(resolve_rules("0.11.1"), hopper) == "native"

    def phase(version, **kw):
        plan = _plan(version, enforce_eager=True, **kw)
        return next(l for l in plan.ledger.items if l.item == "profile phase: logits + sampler")

    rows, vocab = 1024, 128_256  # H200 defaults: max_num_seqs 1024; Llama-3 vocabulary
    pip, opt_in = phase("0.11.0"), phase("0.11.1")
    assert pip.bytes == opt_in.bytes  # the same native 38 B per logit on both sides of 0.11.1
    assert "pip install" in pip.source and "FlashInfer 14 B if installed" in pip.source
    assert pip.bytes.bytes - rows * vocab * SAMPLER_BYTES_PER_LOGIT < rows * vocab  # + the hidden T × H × a only
    assert (SAMPLER_BYTES_PER_LOGIT, FLASHINFER_SAMPLER_BYTES_PER_LOGIT) == (38, 14)


def test_a_log_stated_sampler_replaces_the_release_default():
    """TopKTopPSampler.__init__ logs which sampler it takes; ``VllmOptions.topk_topp_sampler`` (from that line or
    ``--topk-topp-sampler``) replaces the release's default on V1 runs with the dummy sampler."""
    from tpkit.engines.vllm.profile_lines import profile_sampler

    hopper = (9, 0)
    assert profile_sampler(resolve_rules("0.10.2"), hopper, "flashinfer") == "flashinfer"
    assert profile_sampler(resolve_rules("0.10.2"), hopper, "native") == "native"
    assert profile_sampler(resolve_rules("current"), hopper, "native") == "triton"  # ≥ 0.17 native = Triton kernel
    assert profile_sampler(resolve_rules("0.16.0"), hopper, "flashinfer") == "flashinfer"
    assert profile_sampler(resolve_rules("0.7.2:v1"), hopper, "flashinfer") == "none"  # no dummy sampler run
    assert profile_sampler(resolve_rules("v0"), hopper, "flashinfer") == "native"
    native = _plan("0.10.2", enforce_eager=True, topk_topp_sampler="native").extra["available_kv_bytes"]
    flashinfer = _plan("0.10.2", enforce_eager=True, topk_topp_sampler="flashinfer").extra["available_kv_bytes"]
    default = _plan("0.10.2", enforce_eager=True).extra["available_kv_bytes"]
    assert default == native < flashinfer
    with pytest.raises(PlanInputError, match="topk-topp-sampler"):
        VllmOptions(topk_topp_sampler="fast")


def test_flashinfer_sampler_of_0_8_is_charged_as_0_9s():
    """vLLM 0.8.x V1 samples from probabilities where 0.9.0 samples from logits, but the bytes agree (helper near11,
    2026-12-05; 0.8.3 / 0.8.5 wheels, flashinfer-python 0.2.1.post2 sdist): ``Sampler.forward``'s float32 copy (4)
    beside the caller's logits (a), ``forward_cuda``'s float32 softmax (4), and ``top_k_top_p_sampling_from_probs``,
    whose default ``filter_apply_order="top_k_first"`` allocates ``top_k_renorm_probs``' output (4) before
    ``top_p_sampling_from_probs``: 14 B per logit at bf16, as ``top_k_top_p_sampling_from_logits`` (0.9.0+)."""
    from tpkit.engines.vllm.profile_lines import profile_sampler

    hopper = (9, 0)
    assert profile_sampler(resolve_rules("0.8.5"), hopper, "flashinfer") == "flashinfer"
    assert profile_sampler(resolve_rules("0.8.5"), hopper) == "native_unless_installed"  # the install decides
    rows, vocab = 256, llama3_8b().vocab_size
    flags = dict(enforce_eager=True, max_num_seqs=rows, max_num_batched_tokens=2048)
    flashinfer = _plan("0.8.5", topk_topp_sampler="flashinfer", **flags).extra["available_kv_bytes"]
    native = _plan("0.8.5", topk_topp_sampler="native", **flags).extra["available_kv_bytes"]
    assert flashinfer - native == rows * vocab * (38 - 14)


def test_printed_token_count_of_a_hybrid_changes_in_the_0_20_1_patch_release():
    """vLLM 0.20.1 and 0.20.2 backport 0.21.0's ``_report_kv_cache_config`` (v1/core/kv_cache_utils.py: 'GPU KV cache
    size' = int(max_concurrency × max_model_len)); 0.20.0 prints num_blocks // num_groups × block.  On a sliding +
    full hybrid (Gemma 3) the two figures differ while the blocks and the concurrency do not (helper mv1: vp_044, a
    gemma-4-26B-A4B-it start-up of 0.20.2, printed 984,297 tokens = 30.04 × 32,768)."""
    model = _model("google--gemma-3-27b-it")
    plans = {v: _plan(v, model, gpu_memory_utilization=0.9, max_model_len=32768, max_num_batched_tokens=8192)
             for v in ("0.20.0", "0.20.1", "0.20.2", "0.21.0")}
    old, new = plans["0.20.0"], plans["0.20.1"]
    assert old.extra["kv_blocks"] == new.extra["kv_blocks"] and old.max_concurrency == new.max_concurrency
    assert new.kv_tokens == int(new.max_concurrency * 32768) > old.kv_tokens
    assert old.kv_tokens == old.extra["kv_blocks"] // 7 * 16  # 7 KV groups (6 sliding, 1 full) of 16-token blocks
    assert all(p.kv_tokens == int(p.max_concurrency * 32768) for p in (plans["0.20.2"], plans["0.21.0"]))


@pytest.mark.parametrize("version, engine", [
    ("0.7.3", "V0"), ("0.8.0", "V0"), ("0.8.2", "V0"), ("0.8.3", "V0"), ("0.8.5", "V0"), ("0.9.0", "V0"),
    ("0.9.1", "V1"), ("0.9.2", "V1"), ("0.10.0", "V1"), ("0.33.0", "V1")])
def test_pipeline_parallel_runs_v0_on_0_8_0_to_0_9_0(version, engine):
    """vLLM 0.8.0–0.9.0 fall back to V0 for --pipeline-parallel-size > 1 with the default executor backend
    (engine/arg_utils.py _is_v1_supported_oracle: 'PP' in 0.8.0–0.8.2, 'Pipeline Parallelism without Ray distributed
    executor' in 0.8.3–0.8.5, without ray / mp / external_launcher in 0.9.0); 0.9.1 accepts the default backend.
    0.7.x runs V0 anyway; pp 1 and an explicit ':v1' (a launch that named the backend) keep V1."""
    pp = _plan(version, par=ParallelSpec(tp=1, pp=2), max_num_batched_tokens=2048)
    fell = [w for w in pp.warnings if "--pipeline-parallel-size > 1" in w]
    assert bool(fell) == (engine == "V0" and version != "0.7.3")
    assert pp.engine_version == (f"{version}:v0" if fell else version)
    assert resolve_rules(pp.engine_version).engine == engine
    assert _plan(version, par=ParallelSpec(tp=2, pp=1), max_num_batched_tokens=2048).engine_version == version
    if (0, 8, 0) <= tuple(map(int, version.split("."))) < (0, 9, 1):
        kept = _plan(f"{version}:v1", par=ParallelSpec(tp=1, pp=2), max_num_batched_tokens=2048)
        assert kept.engine_version == f"{version}:v1" and not any("--pipeline-parallel-size" in w for w in kept.warnings)
        # the V0 fallback sizes memory like the explicit V0 engine
        assert pp.kv_tokens == _plan(f"{version}:v0", par=ParallelSpec(tp=1, pp=2),
                                     max_num_batched_tokens=2048).kv_tokens


@pytest.mark.parametrize("version, engine", [
    ("0.7.3", "V0"), ("0.8.0", "V0"), ("0.8.4", "V0"), ("0.9.2", "V0"), ("0.10.1", "V0"), ("0.10.1.1", "V0"),
    ("0.10.2", "V1"), ("0.11.0", "V1"), ("0.33.0", "V1")])
@pytest.mark.parametrize("gpu_name", ["T4", "V100-32GB"])
def test_compute_capability_below_8_runs_v0_on_0_8_0_to_0_10_1(version, engine, gpu_name):
    """vLLM 0.8.0–0.10.1.1 fall back to V0 on CUDA GPUs of compute capability < 8.0 (engine/arg_utils.py
    _is_v1_supported_oracle, 'Compute Capability < 8.0'); 0.10.2 drops the check.  0.7.x runs V0 anyway; an Ampere
    GPU and a GPU of unknown capability keep V1; an explicit ':v1' is refused like VLLM_USE_V1=1."""
    gpu = lookup_gpu(gpu_name)
    assert gpu.compute_capability[0] < 8
    res = _plan(version, gpu=gpu, max_num_batched_tokens=2048)
    fell = [w for w in res.warnings if w.startswith("compute capability")]
    assert bool(fell) == (engine == "V0" and version != "0.7.3")
    assert res.engine_version == (f"{version}:v0" if fell else version)
    assert resolve_rules(res.engine_version).engine == engine
    if fell:
        assert res.kv_tokens == _plan(f"{version}:v0", gpu=gpu, max_num_batched_tokens=2048).kv_tokens
        with pytest.raises(PlanInputError, match="refuse VLLM_USE_V1=1 below 8.0"):
            _plan(f"{version}:v1", gpu=gpu, max_num_batched_tokens=2048)
        ampere = lookup_gpu("A100-SXM-40GB")
        assert _plan(version, gpu=ampere, max_num_batched_tokens=2048).engine_version == version
        unknown = replace(gpu, compute_capability=None)
        assert _plan(version, gpu=unknown, max_num_batched_tokens=2048).engine_version == version
