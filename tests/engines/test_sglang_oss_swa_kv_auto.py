"""Helper gx31 (session 31). gpt-oss's hybrid SWA pool in SGLang 0.5.8 – 0.5.9: on the 0.5.8 allow-list, but the
GptOss branch of ``ServerArgs._handle_model_specific_adjustments`` sets ``disable_hybrid_swa_memory`` with a
trtllm_mha attention backend (the SM 10.x default) and, in 0.5.8 / 0.5.8.post1, with speculative decoding.  And
``--kv-cache-dtype auto`` taking the checkpoint's fp8 KV from 0.5.3."""

from __future__ import annotations

import pytest

from sglang_fixtures import gpt_oss_120b, plan
from tpkit.engines.sglang.pool import compute_cell
from tpkit.engines.sglang.swa import allow_list, gpt_oss_one_pool, hybrid_swa, is_sm100
from tpkit.hardware.catalog import lookup_gpu
from tpkit.units import GiB


def _oss():
    return gpt_oss_120b()


@pytest.mark.parametrize("version, one_pool", [("0.5.7", False), ("0.5.8", True), ("0.5.8.post1", True),
                                               ("0.5.9", True), ("0.5.10", False), ("0.5.23", False)])
def test_trtllm_mha_default_on_sm100_disables_the_hybrid_pool_in_0_5_8_to_0_5_9(version, one_pool):
    why = gpt_oss_one_pool(_oss(), version, sm100=True, attention_backend=None, speculative=False)
    assert bool(why) is one_pool
    assert not gpt_oss_one_pool(_oss(), version, sm100=False, attention_backend=None, speculative=False)
    given = gpt_oss_one_pool(_oss(), version, sm100=False, attention_backend="trtllm_mha", speculative=False)
    assert bool(given) is one_pool
    assert not gpt_oss_one_pool(_oss(), version, sm100=True, attention_backend="triton", speculative=False)


@pytest.mark.parametrize("version, one_pool", [("0.5.7", False), ("0.5.8", True), ("0.5.8.post1", True),
                                               ("0.5.9", False), ("0.5.10", False)])
def test_speculative_decoding_disables_it_in_0_5_8_only(version, one_pool):
    why = gpt_oss_one_pool(_oss(), version, sm100=False, attention_backend="fa3", speculative=True)
    assert bool(why) is one_pool


def test_other_architectures_are_not_touched():
    llama4 = gpt_oss_120b(architecture="Llama4ForConditionalGeneration")
    assert not gpt_oss_one_pool(llama4, "0.5.8", sm100=True, attention_backend=None, speculative=True)


def test_allow_list_boundaries():
    assert "GptOssForCausalLM" in allow_list("0.5.8") and "Step3p5ForCausalLM" not in allow_list("0.5.8")
    assert "Step3p5ForCausalLM" in allow_list("0.5.9")


@pytest.mark.parametrize("version, hybrid", [("0.5.6.post2", False), ("0.5.7", True), ("0.5.8", True)])
def test_mimo_v2_flash_is_hybrid_from_0_5_7(version, hybrid):
    mimo = gpt_oss_120b(architecture="MiMoV2FlashForCausalLM")
    assert hybrid_swa(mimo, version)[0] is hybrid


def test_one_pool_reason_wins_over_the_list():
    hybrid, why = hybrid_swa(_oss(), "0.5.9", one_pool="trtllm_mha")
    assert not hybrid and why == "trtllm_mha"


def test_cell_of_gpt_oss_120b_at_tp4():
    """36 layers (18 full, 18 sliding), 8 KV heads → 2 per rank, head dim 64, bf16: 512 B per layer."""
    two = compute_cell(_oss(), 4, 1, "bfloat16", version="0.5.8.post1")
    assert two.layout == "swa" and two.bytes_per_token == pytest.approx(512 * 18 + 0.8 * 512 * 18)
    one = compute_cell(_oss(), 4, 1, "bfloat16", version="0.5.8.post1", one_pool="x")
    assert one.layout == "mha" and one.bytes_per_token == 512 * 36
    assert compute_cell(_oss(), 4, 1, "bfloat16", version="0.5.7").bytes_per_token == 512 * 36


def test_is_sm100():
    assert is_sm100(lookup_gpu("B200")) and not is_sm100(lookup_gpu("H100")) and not is_sm100(lookup_gpu("MI300X"))


@pytest.mark.parametrize("gpu, version, hybrid", [("H100", "0.5.8.post1", True), ("A100-SXM-80GB", "0.5.8.post1", True),
                                                  ("B200", "0.5.8.post1", False), ("B200", "0.5.10", True),
                                                  ("H100", "0.5.7", False)])
def test_plan_picks_the_pool_by_gpu_and_release(gpu, version, hybrid):
    """tp 8: one KV head per rank × (64 + 64) × 2 B = 256 B a layer; 36 layers one pool, 18 + 0.8 × 18 hybrid."""
    result = plan(gpt_oss_120b(), gpu=gpu, tp=8, weights=GiB(30), engine_version=version)
    assert result.kv_pool.cell_bytes.bytes == pytest.approx(256 * 18 * 1.8 if hybrid else 256 * 36, abs=1)


# --kv-cache-dtype auto follows the checkpoint's fp8 KV from 0.5.3 (ModelRunner.configure_kv_cache_dtype) ----------

@pytest.mark.parametrize("version, kv", [("0.4.10.post1", "bfloat16"), ("0.5.2", "bfloat16"), ("0.5.3", "fp8_e4m3"),
                                         ("0.5.13", "fp8_e4m3"), ("0.5.23", "fp8_e4m3")])
def test_auto_follows_the_checkpoint_fp8_kv_from_0_5_3(version, kv):
    from tpkit.engines.sglang import SglangOptions
    from tpkit.engines.sglang.kvdtype import resolve_kv_dtype
    from tpkit.models.spec import QuantSpec

    model = gpt_oss_120b(quant=QuantSpec(method="fp8", weight_bits=8, kv_cache_fp8=True), torch_dtype="bfloat16")
    assert resolve_kv_dtype(model, SglangOptions(engine_version=version))[0] == kv
    assert resolve_kv_dtype(model, SglangOptions(engine_version=version, kv_cache_dtype="bf16"))[0] == "bfloat16"
