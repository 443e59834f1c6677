"""SGLang's FlashInfer TRTLLM MoE expert-width padding (helper pad30, 2026-12-07, session 30; issue 11: gs_557,
Qwen3-30B-A3B at tp 4 on B200 with SGLang 0.5.15, +3.5 %, 192 → 256 per rank).

Read in the 0.5.7, 0.5.8, 0.5.8.post1, 0.5.9 – 0.5.13, 0.5.15, 0.5.16, 0.5.18 and 0.5.23 wheels:
``layers/moe/fused_moe_triton/layer.py`` ``FusedMoE.__init__`` rounds ``intermediate_size_per_partition`` up to 128
for flashinfer_trtllm from 0.5.8; the ``auto`` backend is flashinfer_trtllm for bf16 ``Qwen3MoeForCausalLM`` on
compute capability 10.x from 0.5.8 (``engines.sglang.trtllm_moe``)."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions
from tpkit.engines.sglang.load import load_usage
from tpkit.engines.sglang.trtllm_moe import trtllm_moe_backend, trtllm_moe_padding
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.spec import QuantSpec
from tpkit.parallel import ParallelSpec

CONFIG = Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen3-30B-A3B.json"
B200, H100 = lookup_gpu("B200"), lookup_gpu("H100-SXM-80GB")
FP8 = QuantSpec(method="fp8", weight_bits=8, scale_bytes=4, raw_method="fp8")
PAD_TP4 = 48 * 128 * 3 * (256 - 192) * 2048 * 2  # layers × experts × (w13 2ΔI + w2 ΔI) × hidden × bf16


def _qwen3():
    return from_config_dict(json.loads(CONFIG.read_text()), name="Qwen/Qwen3-30B-A3B", source="test")


def _pad(version="0.5.15", tp=4, gpu=B200, model=None, **flags):
    options = SglangOptions(engine_version=version, **flags)
    return trtllm_moe_padding(model or _qwen3(), ParallelSpec(tp=tp), options, gpu, 2)[0].bytes


def test_gs557_geometry_pads_192_to_256():
    assert _pad() == PAD_TP4
    assert abs(PAD_TP4 / 2**30 - 4.5) < 0.01  # the 18.80 − 14.24 GiB gap of gs_557


@pytest.mark.parametrize(("version", "padded"), [("0.5.7", False), ("0.5.8", True), ("0.5.23", True)])
def test_release_boundary(version, padded):
    assert (_pad(version) == PAD_TP4) is padded
    assert _pad(version) in (0, PAD_TP4)


def test_width_already_a_multiple_is_not_padded():
    assert _pad(tp=2) == 0 and _pad(tp=1) == 0  # 384, 768 (gs_556, gs_053)
    assert _pad(tp=8) == 48 * 128 * 3 * (128 - 96) * 2048 * 2  # 96 → 128


def test_gpu_arch_boundary():
    assert _pad(gpu=H100) == 0  # SM 9.0: auto is not flashinfer_trtllm
    assert _pad(gpu=H100, moe_runner_backend="flashinfer_trtllm") == PAD_TP4  # asked for: padded on any GPU


def test_other_backends_quantised_and_a2a_are_not_padded():
    assert _pad(moe_runner_backend="triton") == 0
    assert _pad(moe_a2a_backend="deepep") == 0
    assert _pad(model=replace(_qwen3(), quant=FP8)) == 0  # fp8 / NVFP4 experts: not modelled
    assert _pad(quantization="fp8") == 0
    assert _pad(model=replace(_qwen3(), architecture="MixtralForCausalLM")) == 0  # no auto choice read for it


def test_load_usage_counts_the_padding_and_says_so():
    model, par = _qwen3(), ParallelSpec(tp=4)
    padded, _, source = load_usage(model, par, SglangOptions(engine_version="0.5.15"), gpu=B200)
    plain, _, _ = load_usage(model, par, SglangOptions(engine_version="0.5.15", moe_runner_backend="triton"), gpu=B200)
    assert padded.bytes - plain.bytes == PAD_TP4
    assert "FlashInfer TRTLLM MoE padding" in source
    assert "SM 10.x" in trtllm_moe_backend(model, SglangOptions(engine_version="0.5.15"), B200)


def test_a_moe_runner_backend_no_release_accepts_is_refused_with_the_choices():
    """Bad input (lead, session 30): SGLang's parser refuses a value outside its choices; so does tpkit, naming it."""
    import pytest

    from tpkit.engines.sglang.options import MOE_RUNNER_BACKENDS, SglangOptions
    from tpkit.errors import PlanInputError

    with pytest.raises(PlanInputError, match=r"--moe-runner-backend 'bogus' is not an SGLang MoE runner backend.*"
                                             r"flashinfer_trtllm"):
        SglangOptions(moe_runner_backend="bogus")
    for value in MOE_RUNNER_BACKENDS:
        assert SglangOptions(moe_runner_backend=value).moe_runner_backend == value
