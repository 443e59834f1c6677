"""What vLLM's 'Model loading took' holds beyond the checkpoint's tensors (helper wts, issue 11): per-layer rotary
caches of Gemma/Gemma-2 on vLLM ≤ 0.5.4, the MLA absorbed decode matrices of vLLM 0.7.1–0.7.3 (V0) and, from 0.8.0,
the dequantised copy of a quantised MLA ``kv_b_proj`` (helper v8p); and the V1 MLA chunked-prefill workspace of vLLM
0.8.0–0.8.5, which the profile charges outside the load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.mla import mla_absorbed_bytes
from tpkit.engines.vllm.policy import rotary_cache_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

CONFIGS = Path(__file__).resolve().parents[1] / "validation/configs"


def _spec(name: str):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))


@pytest.mark.parametrize("version, copies", [("0.5.4", 42), ("0.5.5", 1), ("0.6.0", 1), ("current", 1), ("v0", 1)])
def test_gemma2_rotary_cache_is_per_layer_up_to_vllm_0_5_4(version, copies):
    gemma2 = _spec("google--gemma-2-9b-it.json")
    assert rotary_cache_bytes(gemma2, 2, version).bytes == copies * 8192 * 256 * 2


def test_per_layer_rotary_rule_leaves_other_model_types_alone():
    llama = _spec("meta-llama--Llama-3.1-8B-Instruct.json")
    shared = rotary_cache_bytes(llama, 2)
    assert rotary_cache_bytes(llama, 2, "0.5.4") == rotary_cache_bytes(llama, 2, "0.6.0") == shared


def test_gemma2_vllm_0_5_4_load_matches_the_print():
    gemma2 = _spec("google--gemma-2-9b-it.json")
    w = plan_weights(gemma2, ParallelSpec(tp=8), engine="vllm").bytes_per_rank + rotary_cache_bytes(gemma2, 2, "0.5.4")
    # vLLM 0.5.4 'Loading model weights took 2.3463 GB' (GiB), gemma-2-9b on 8 × L4 (vllm-project/vllm#7593)
    assert w.gib == pytest.approx(2.3463, rel=0.015)


@pytest.mark.parametrize("release, present", [((0, 7, 0), False), ((0, 7, 1), True), ((0, 7, 3), True),
                                              ((0, 8, 0), False)])
def test_mla_absorbed_matrices_only_in_0_7_1_to_0_7_3(release, present):
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")
    extra = mla_absorbed_bytes(lite, ParallelSpec(tp=8), release, act_bytes=2)
    # 27 layers × 2 heads/rank: W_QR 2048·2·64 + W_Q_UK 2048·2·512 + W_UV_O 2·512·2048, bf16
    assert extra.bytes == (27 * (2048 * 2 * 64 + 2048 * 2 * 512 + 2 * 512 * 2048) * 2 if present else 0)


def test_mla_absorption_off_for_awq_before_0_7_3_and_fp8_requantised():
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")
    assert mla_absorbed_bytes(lite, ParallelSpec(tp=8), (0, 7, 1), act_bytes=2, quantization="awq").bytes == 0
    assert mla_absorbed_bytes(lite, ParallelSpec(tp=8), (0, 7, 3), act_bytes=2, quantization="awq").bytes > 0
    fp8 = mla_absorbed_bytes(lite, ParallelSpec(tp=8), (0, 7, 1), act_bytes=2, quantization="fp8")
    bf16 = mla_absorbed_bytes(lite, ParallelSpec(tp=8), (0, 7, 1), act_bytes=2)
    w_qr = 27 * 2048 * 2 * 64 * 2
    assert fp8.bytes - w_qr == (bf16.bytes - w_qr) // 2  # absorbed matrices at 1 B, W_QR stays bf16


def test_deepseek_v2_lite_vllm_0_7_1_ledger_carries_the_absorbed_matrices():
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")
    gpu = lookup_gpu("A100-SXM-40GB")
    r = plan_vllm(lite, gpu, ParallelSpec(tp=8), VllmOptions(engine_version="0.7.1"), search_fixes=False)
    line = next(l for l in r.ledger.items if l.item == "MLA absorbed decode matrices")
    assert line.bytes.gib == pytest.approx(0.224, abs=0.001)
    later = plan_vllm(lite, gpu, ParallelSpec(tp=8), VllmOptions(engine_version="0.8.5"), search_fixes=False)
    assert all(l.item != "MLA absorbed decode matrices" for l in later.ledger.items)
    # 'Loading model weights took 3.97 GB' on vLLM 0.7.1: weights + absorbed + rotary cache
    w = plan_weights(lite, ParallelSpec(tp=8), engine="vllm").bytes_per_rank + line.bytes
    assert w.gib == pytest.approx(3.97, rel=0.01)
    assert GiB(3.97).bytes > w.bytes


# MXFP4 MoE on the Marlin backend (GPUs below compute capability 9.0) ------------------------------------------------

@pytest.mark.parametrize("cc, padded", [((8, 0), True), ((8, 9), True), ((9, 0), False), ((10, 0), False),
                                        (None, False)])
def test_marlin_mxfp4_padding_by_compute_capability(cc, padded):
    from tpkit.engines.vllm.mxfp4 import marlin_mxfp4_padding_bytes

    oss = _spec("openai--gpt-oss-20b.json")
    extra = marlin_mxfp4_padding_bytes(oss, ParallelSpec(), (0, 19, 0), cc)
    # 24 layers × 32 experts × 3 × (2944·3072 − 2880·2880) × 17/32 B,
    # + the bf16 biases' padding (2·64 + 192) × 2 B
    per_expert = 3 * (2944 * 3072 - 2880 * 2880) * 17 / 32 + (2 * 64 + 192) * 2
    assert extra.bytes == (round(24 * 32 * per_expert) if padded else 0)


@pytest.mark.parametrize("release, padded", [((0, 10, 0), False), ((0, 10, 1), True), ((0, 10, 2), True),
                                             ((0, 14, 1), True), ((0, 29, 0), True)])
def test_marlin_mxfp4_padding_by_release(release, padded):
    """MXFP4 (and its Marlin padding) arrives with vLLM 0.10.1 (0.10.1 / 0.10.1.1 Mxfp4MoEMethod.create_weights pad
    like 0.10.2); 0.10.0 has no mxfp4.py (helper new4, 2026-12-04)."""
    from tpkit.engines.vllm.mxfp4 import marlin_mxfp4_padding_bytes

    oss = _spec("openai--gpt-oss-20b.json")
    assert (marlin_mxfp4_padding_bytes(oss, ParallelSpec(), release, (8, 0)).bytes > 0) is padded
    llama = _spec("meta-llama--Llama-3.1-8B-Instruct.json")
    assert marlin_mxfp4_padding_bytes(llama, ParallelSpec(), release, (8, 0)).bytes == 0


@pytest.mark.parametrize("release, marlin, triton", [((0, 10, 0), False, False), ((0, 10, 1), True, False),
                                                     ((0, 10, 2), True, False),
                                                     ((0, 11, 0), True, False), ((0, 11, 2), True, False),
                                                     ((0, 12, 0), False, True), ((0, 14, 1), False, True)])
def test_hopper_mxfp4_backend_by_release(release, marlin, triton):
    """Hopper runs Marlin on 0.10.2–0.11.2 (get_mxfp4_backend: 'not has_triton_kernels()' → MARLIN; triton_kernels
    neither vendored nor required in those wheels) and the vendored triton_kernels from 0.12.0 (helper mv13,
    2026-12-04: vp_300's 0.11.2 H100 log prints 'Using Marlin backend'); 0.10.1 / 0.10.1.1 too (_should_use_marlin:
    torch older than 2.8.0 → Marlin, and both pin torch==2.7.1; helper mx29), 0.10.0 has no MXFP4."""
    from tpkit.engines.vllm.mxfp4 import marlin_mxfp4_padding_bytes, triton_mxfp4_extra_bytes

    oss = _spec("openai--gpt-oss-20b.json")
    pad = marlin_mxfp4_padding_bytes(oss, ParallelSpec(), release, (9, 0))
    assert (pad.bytes > 0) is marlin
    if marlin:  # the same padding as below 9.0
        assert pad == marlin_mxfp4_padding_bytes(oss, ParallelSpec(), release, (8, 0))
    assert (triton_mxfp4_extra_bytes(oss, ParallelSpec(), release, (9, 0)).bytes > 0) is triton
    assert marlin_mxfp4_padding_bytes(oss, ParallelSpec(), release, (10, 0)).bytes == 0  # Blackwell not modelled


def test_both_mxfp4_backends_share_the_experts_a_rank_holds():
    """``mxfp4._experts_on_rank``, the one prologue of the Marlin padding and the Hopper triton_kernels extras:
    (intermediate per rank, hidden, experts × MoE layers), None off MXFP4 or before the backend's first release."""
    from tpkit.engines.vllm.mxfp4 import FIRST_RELEASE, TRITON_FIRST_RELEASE, _experts_on_rank

    oss = _spec("openai--gpt-oss-20b.json")  # 24 MoE layers × 32 experts, intermediate 2880, hidden 2880
    assert _experts_on_rank(oss, ParallelSpec(), (0, 19, 0), FIRST_RELEASE) == (2880, 2880, 24 * 32)
    assert _experts_on_rank(oss, ParallelSpec(tp=2), (0, 19, 0), FIRST_RELEASE) == (1440, 2880, 24 * 32)
    # EP: experts divided, the intermediate size whole; PP: layers divided (rounded up)
    assert _experts_on_rank(oss, ParallelSpec(tp=4, ep=4), (0, 19, 0), FIRST_RELEASE) == (2880, 2880, 24 * 8)
    assert _experts_on_rank(oss, ParallelSpec(pp=5), (0, 19, 0), FIRST_RELEASE) == (2880, 2880, 5 * 32)
    assert _experts_on_rank(oss, ParallelSpec(), (0, 11, 0), TRITON_FIRST_RELEASE) is None
    assert _experts_on_rank(oss, ParallelSpec(), (0, 12, 0), TRITON_FIRST_RELEASE) is not None
    assert _experts_on_rank(oss, ParallelSpec(), None, FIRST_RELEASE) is None
    assert _experts_on_rank(_spec("meta-llama--Llama-3.1-8B-Instruct.json"), ParallelSpec(), (0, 19, 0),
                            FIRST_RELEASE) is None


def test_gpt_oss_20b_on_a100_vllm_0_19_load_matches_the_print():
    oss = _spec("openai--gpt-oss-20b.json")
    r = plan_vllm(oss, lookup_gpu("A100-SXM-80GB"), ParallelSpec(), VllmOptions(engine_version="0.19.0"),
                  search_fixes=False)
    load = sum((l.bytes for l in r.ledger.items
                if l.item in ("model weights", "rotary cos/sin cache", "MXFP4 MoE padding (Marlin)")), GiB(0))
    # 'Model loading took 13.72 GiB' (gpt-oss-20b, A100 80 GB, vLLM 0.19.0)
    assert load.gib == pytest.approx(13.72, rel=0.005)
    h100 = plan_vllm(oss, lookup_gpu("H100-SXM-80GB"), ParallelSpec(), VllmOptions(engine_version="0.19.0"),
                     search_fixes=False)
    assert all(l.item != "MXFP4 MoE padding (Marlin)" for l in h100.ledger.items)


def _deepseek_v3(**quant_edits):
    cfg = json.loads((CONFIGS / "deepseek-ai--DeepSeek-V3.json").read_text())
    if quant_edits.get("drop_quant"):
        cfg.pop("quantization_config", None)
    elif quant_edits:
        cfg["quantization_config"] = {**cfg["quantization_config"], **quant_edits}
    return from_config_dict(cfg, name="deepseek-ai/DeepSeek-V3", source="test")


@pytest.mark.parametrize("release, dtype_bytes", [((0, 7, 0), 0), ((0, 7, 1), 4), ((0, 7, 2), 4), ((0, 7, 3), 2),
                                                  ((0, 8, 0), 2), ((0, 8, 4), 2), ((0, 14, 1), 2), ((0, 33, 0), 2)])
def test_mla_keeps_a_dequantised_kv_b_copy_from_vllm_0_7_1(release, dtype_bytes):
    from tpkit.engines.vllm.mla import mla_dequant_kv_b_bytes

    # fp8 DeepSeek-V3 at tp 16: 61 layers × 512 × 8 heads × (128 + 128) × dtype (W_UK_T / W_UV views of the copy;
    # 0.7.1–0.7.3 V0: W_UK / W_UV, float32 from scaled_dequantize in 0.7.1–0.7.2; helper v11c)
    extra = mla_dequant_kv_b_bytes(_deepseek_v3(), ParallelSpec(tp=16), release, act_bytes=2)
    assert extra.bytes == 61 * 512 * 8 * 256 * dtype_bytes


def test_mla_kv_b_copy_before_0_8_0_is_v0_only_and_fp8_only_before_0_7_3():
    from tpkit.engines.vllm.mla import mla_dequant_kv_b_bytes

    tp8 = ParallelSpec(tp=8)
    # 0.7.3 V1 runs FlashAttention, not the MLA backend
    assert mla_dequant_kv_b_bytes(_deepseek_v3(), tp8, (0, 7, 3), act_bytes=2, engine="V1").bytes == 0
    assert mla_dequant_kv_b_bytes(_deepseek_v3(), tp8, (0, 8, 0), act_bytes=2, engine="V1").bytes > 0
    # a non-fp8 quantisation turns MLA off in 0.7.1–0.7.2; 0.7.3 dequantises any
    awq = _deepseek_v3(quant_method="awq", bits=4, group_size=128)
    assert mla_dequant_kv_b_bytes(awq, tp8, (0, 7, 2), act_bytes=2).bytes == 0
    assert mla_dequant_kv_b_bytes(awq, tp8, (0, 7, 3), act_bytes=2).bytes > 0


def test_mla_kv_b_copy_needs_a_quantised_kv_b_proj():
    from tpkit.engines.vllm.mla import mla_dequant_kv_b_bytes

    tp8 = ParallelSpec(tp=8)
    assert mla_dequant_kv_b_bytes(_deepseek_v3(drop_quant=True), tp8, (0, 8, 4), act_bytes=2).bytes == 0
    assert mla_dequant_kv_b_bytes(_deepseek_v3(modules_to_not_convert=["kv_b_proj"]), tp8, (0, 8, 4),
                                  act_bytes=2).bytes == 0
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")  # bf16 checkpoint; --quantization fp8 online
    assert mla_dequant_kv_b_bytes(lite, tp8, (0, 9, 0), act_bytes=2).bytes == 0
    assert mla_dequant_kv_b_bytes(lite, tp8, (0, 9, 0), act_bytes=2, quantization="fp8").bytes == 27 * 512 * 2 * 256 * 2


@pytest.mark.parametrize("version, present", [("0.7.3:v1", False), ("0.7.3", True), ("0.8.4", True),
                                              ("0.8.5:v0", True), ("current", True)])
def test_plan_charges_the_kv_b_copy_on_both_engines_from_0_8_0(version, present):
    plan = plan_vllm(_deepseek_v3(), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=16),
                     VllmOptions(engine_version=version, max_model_len=4096))
    lines = [i for i in plan.ledger.items if i.item == "MLA kv_b_proj dequantised copy"]
    assert [int(i.bytes) for i in lines] == ([61 * 512 * 8 * 256 * 2] if present else [])


@pytest.mark.parametrize("version, rows", [("0.8.0", 131072), ("0.8.4", 131072), ("0.8.5", 131072),
                                           ("0.8.5:v0", 0), ("0.9.0", 0), ("current", 0)])
def test_v1_mla_prefill_workspace_is_charged_in_0_8_0_to_0_8_5(version, rows):
    plan = plan_vllm(_deepseek_v3(), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=16),
                     VllmOptions(engine_version=version, max_model_len=32768))
    lines = [i for i in plan.ledger.items if i.item == "MLA chunked-prefill workspace"]
    # min(max(8 × 32,768, 4 × max_num_seqs × 64), 128 Ki) rows × (512 + 64) × 2 B = 144 MiB
    assert [int(i.bytes) for i in lines] == ([rows * 576 * 2] if rows else [])
    if version.endswith(":v0"):
        return
    # not in "Model loading took": the same load as a release without the workspace
    without = plan_vllm(_deepseek_v3(), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=16),
                        VllmOptions(engine_version="0.9.0", max_model_len=32768))
    assert _loading_gib(plan) == pytest.approx(_loading_gib(without), abs=0.005)


def _loading_gib(plan) -> float:
    import re

    line = next(line for line in plan.engine_log if line.startswith("Model loading took"))
    return float(re.match(r"Model loading took ([0-9.]+) GiB", line).group(1))


def test_v1_mla_prefill_workspace_rows_follow_the_batch_when_the_context_is_short():
    from tpkit.engines.vllm.mla import mla_prefill_workspace_bytes

    v3 = _deepseek_v3()
    # vllm#17242's run (max_model_len 138, one sequence, block 64): max(1,104, 256) rows
    assert mla_prefill_workspace_bytes(v3, (0, 8, 4), engine="V1", max_model_len=138, max_num_seqs=1, block_size=64,
                                       act_bytes=2).bytes == 1104 * 576 * 2
    assert mla_prefill_workspace_bytes(v3, (0, 8, 4), engine="V1", max_model_len=138, max_num_seqs=256,
                                       block_size=64, act_bytes=2).bytes == 4 * 256 * 64 * 576 * 2
    assert mla_prefill_workspace_bytes(v3, (0, 7, 3), engine="V1", max_model_len=32768, max_num_seqs=256,
                                       block_size=64, act_bytes=2).bytes == 0


def test_gpt_oss_120b_tp4_on_a100_vllm_0_10_1_load_matches_the_print():
    """vp_029 (dennislee22/vLLM-benchmarking, vLLM 0.10.1.1, 4 x A100-80GB over Ray): 'Model loading took 17.2217
    GiB' per rank = the checkpoint's share + the Marlin padding of 0.10.1's create_weights (I 720 → 768, H 2880 →
    3072 per rank); on 0.10.0 there is no MXFP4 path, so no padding (helper new4, 2026-12-04)."""
    from tpkit.engines.vllm.mxfp4 import marlin_mxfp4_padding_bytes

    oss = _spec("openai--gpt-oss-120b.json")
    pad = marlin_mxfp4_padding_bytes(oss, ParallelSpec(tp=4), (0, 10, 1), (8, 0))
    assert pad.gib == pytest.approx(1.95, abs=0.01)
    assert marlin_mxfp4_padding_bytes(oss, ParallelSpec(tp=4), (0, 10, 0), (8, 0)).bytes == 0
    r = plan_vllm(oss, lookup_gpu("A100-SXM-80GB"), ParallelSpec(tp=4),
                  VllmOptions(engine_version="0.10.1.1", gpu_memory_utilization=0.8, max_model_len=16384,
                              max_num_batched_tokens=2048), search_fixes=False)
    load = sum((l.bytes for l in r.ledger.items
                if l.item in ("model weights", "rotary cos/sin cache", "MXFP4 MoE padding (Marlin)")), GiB(0))
    assert load.gib == pytest.approx(17.2217, rel=0.005)


def _mla_page(version, kv_cache_dtype="auto", **kw):
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")
    r = plan_vllm(lite, lookup_gpu("A100-SXM-40GB"), ParallelSpec(tp=1),
                  VllmOptions(engine_version=version, kv_cache_dtype=kv_cache_dtype, **kw), search_fixes=False)
    return r.extra["bytes_per_block"]


@pytest.mark.parametrize("version, elements", [("0.7.1", 576), ("0.7.2", 640), ("0.7.3", 640), ("0.8.2:v0", 576),
                                               ("0.8.5", 576)])
def test_v0_mla_cache_entry_padded_to_256_bytes_in_0_7_2_and_0_7_3(version, elements):
    """vLLM 0.7.2–0.7.3's V0 CacheEngine pads an MLA latent entry (512 + 64) to 256 bytes of the model dtype
    (``_align_cache`` / ``align_to_256bytes``, VLLM_CUDA_MEM_ALIGN_KV_CACHE default 1): 640 elements; 0.7.1 and
    0.8.0+ do not.  vp_320 (0.7.2) and vp_325 (0.7.3) print blocks of 640 elements per layer-token."""
    assert _mla_page(version) == 27 * elements * 2 * 16  # 27 MLA layers, 16-token block, bf16


def test_v0_mla_padding_counts_model_dtype_elements_times_the_cache_dtype():
    """``get_cache_block_size`` aligns with model_config.dtype (128 elements of bf16), then multiplies by the cache
    dtype's size: an fp8 cache keeps 640 one-byte elements."""
    assert _mla_page("0.7.3", kv_cache_dtype="fp8") == 27 * 640 * 1 * 16
    assert _mla_page("0.7.1", kv_cache_dtype="fp8") == 27 * 576 * 1 * 16


@pytest.mark.parametrize("offload_gb, kept_layers", [(0, 27), (30, 0)])
def test_v0_mla_absorbed_matrices_of_offloaded_layers_stay_on_cpu(offload_gb, kept_layers):
    """vLLM 0.7.2 builds the absorbed matrices outside ``device_loading_context``, from the offloaded (CPU) weights
    of the layers --cpu-offload-gb moved: the GPU keeps only the other layers' (vp_320: 'model weights take
    0.80GiB' with every layer of DeepSeek-Coder-V2-Lite moved)."""
    lite = _spec("deepseek-ai--DeepSeek-Coder-V2-Lite-Instruct.json")
    opts = VllmOptions(engine_version="0.7.2", cpu_offload_gb=offload_gb or None, enforce_eager=True)
    r = plan_vllm(lite, lookup_gpu("L40S"), ParallelSpec(tp=1), opts, search_fixes=False)
    line = next((l for l in r.ledger.items if l.item == "MLA absorbed decode matrices"), None)
    full = mla_absorbed_bytes(lite, ParallelSpec(tp=1), (0, 7, 2), act_bytes=2)
    assert (line.bytes.bytes if line else 0) == full.bytes * kept_layers // 27


def _phase(plan, name: str) -> int:
    return int(next(i.bytes for i in plan.ledger.items if i.item == f"profile phase: {name}"))


@pytest.mark.parametrize("version, on", [("0.7.3", False), ("0.8.0:v0", True), ("0.8.3:v0", True),
                                         ("0.10.0:v0", True), ("0.8.3:v1", False)])
def test_v0_mla_profile_workspace_with_prefix_caching_from_0_8_0(version, on):
    """vLLM 0.8.0–0.10 V0 MLA (attention/backends/mla/common.py): with prefix caching on, begin_forward allocates
    the context workspace inside the profile run and forward allocates the simulated up-projection (helper v11c)."""
    v3, tp16 = _deepseek_v3(), ParallelSpec(tp=16)
    opts = dict(engine_version=version, max_model_len=8192, max_num_batched_tokens=8192, enforce_eager=True)
    off = plan_vllm(v3, lookup_gpu("H100-SXM-80GB"), tp16, VllmOptions(**opts))
    on_ = plan_vllm(v3, lookup_gpu("H100-SXM-80GB"), tp16, VllmOptions(**opts, enable_prefix_caching=True))
    rows = min(max(8 * 8192, 4 * 256 * 16), 131072)  # 65,536
    kept = rows * (512 + 64) * 2  # 72 MiB, in every phase
    simulated = rows * (128 // 16) * (128 + 128) * 2  # 256 MiB, in the attention phase only
    if not on:
        assert _phase(on_, "attention") == _phase(off, "attention")
        assert _phase(on_, "logits + sampler") == _phase(off, "logits + sampler")
        return
    assert _phase(on_, "attention") - _phase(off, "attention") == kept + simulated
    assert _phase(on_, "logits + sampler") - _phase(off, "logits + sampler") == kept
    assert _phase(on_, "MoE layer") - _phase(off, "MoE layer") == kept


def test_v0_mla_profile_workspace_off_by_default_and_with_chunked_prefill():
    from tpkit.engines.vllm.mla import mla_v0_profile_workspace

    v3 = _deepseek_v3()
    kw = dict(engine="V0", max_model_len=4096, max_num_seqs=256, block_size=16, act_bytes=2)
    assert mla_v0_profile_workspace(v3, ParallelSpec(tp=8), (0, 8, 3), chunked_prefill=False, prefix_caching=False,
                                    **kw)[2] == 0
    # chunked prefill alone turns it on: max(8 × 4,096, 4 × 256 × 16) = 32,768 rows; 16 heads per rank at tp 8
    kept, sim, rows = mla_v0_profile_workspace(v3, ParallelSpec(tp=8), (0, 8, 3), chunked_prefill=True,
                                               prefix_caching=False, **kw)
    assert (rows, kept.bytes, sim.bytes) == (32768, 32768 * 576 * 2, 32768 * 16 * 256 * 2)
    assert mla_v0_profile_workspace(v3, ParallelSpec(tp=8), (0, 8, 3), chunked_prefill=True, prefix_caching=True,
                                    **{**kw, "engine": "V1"})[2] == 0
