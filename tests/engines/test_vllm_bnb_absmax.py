"""Round rl35 (lead 2): vLLM ≥ 0.9.2 dequantises in-flight nf4's nested absmax to fp32 inside the load.

``model_loader/bitsandbytes_loader.py``: ``dequantize_dq`` (0.9.2) / ``_dequantize_dq`` (0.10.1 – 0.26.0) replace
each quant state's uint8 absmax + nested fp32 state with a float32 absmax per block of 64; absent in 0.9.1.
vp_1126 / vp_1127 (0.10.1.1) print 'Model loading took' 3.93 / 4.15 GiB for Llama-2-7b / Mistral-7B in nf4.
"""

import pytest

from tpkit.engines.vllm.bnb_absmax import BNB_ABSMAX_ITEM, bnb_absmax_extra, bnb_absmax_lines
from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

from vllm_fixtures import llama3_8b

LINEAR_8B = 32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336)  # Llama-3-8B's decoder linears


def _plan(quantization="bitsandbytes"):
    return plan_weights(llama3_8b(), ParallelSpec(tp=1), dtype="bfloat16", quantization=quantization, engine="vllm")


@pytest.mark.parametrize("release, charged", [((0, 9, 1), False), ((0, 9, 2), True), ((0, 10, 1), True),
                                              ((0, 26, 0), True)])
def test_fp32_absmax_from_0_9_2(release, charged):
    plan = _plan()
    nested = next(ln.bytes.bytes for ln in plan.lines if ln.item == "quant scales")
    extra = bnb_absmax_extra(plan, release).bytes
    assert extra == ((LINEAR_8B // 64 * 4 - nested) if charged else 0)
    assert bool(bnb_absmax_lines(plan, release)) is charged


def test_one_fp32_scale_per_64_values_replaces_the_nested_uint8_ones():
    plan = _plan()
    nested = next(ln.bytes.bytes for ln in plan.lines if ln.item == "quant scales")
    assert LINEAR_8B // 64 < nested < LINEAR_8B // 64 * 1.02  # uint8 per block + fp32 per 256 blocks
    assert nested + bnb_absmax_extra(plan, (0, 10, 1)).bytes == LINEAR_8B // 64 * 4


@pytest.mark.parametrize("quantization", [None, "fp8"])
def test_no_line_without_in_flight_bitsandbytes(quantization):
    assert bnb_absmax_extra(_plan(quantization), (0, 10, 1)).bytes == 0


@pytest.mark.parametrize("version, charged", [("0.9.1", False), ("0.10.1.1", True)])
def test_plan_ledger_carries_the_line_inside_the_load(version, charged):
    ledger = plan_vllm(llama3_8b(), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1),
                       VllmOptions(engine_version=version, quantization="bitsandbytes")).ledger
    assert any(ln.item == BNB_ABSMAX_ITEM for ln in ledger.items) is charged


@pytest.mark.parametrize("release, refused", [((0, 27, 0), False), ((0, 28, 0), True), ((0, 34, 0), True)])
def test_bitsandbytes_refused_from_the_release_that_removed_it(release, refused):
    """0.27.0's wheel has the bitsandbytes loader and method; 0.28.0's and later have neither (BNB_REMOVED_IN)."""
    from tpkit.engines.vllm.bnb_absmax import check_bnb_release
    from tpkit.errors import PlanInputError

    if refused:
        with pytest.raises(PlanInputError, match=r"not in vLLM .*removed .* in 0\.28\.0.*--engine-version 0\.27\.0"):
            check_bnb_release(release)
    else:
        check_bnb_release(release)


def test_cli_plan_refuses_bitsandbytes_on_a_release_without_it_and_plans_it_before(capsys):
    from tpkit.cli import main

    args = ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "L4", "--tp", "1",
            "--quantization", "bitsandbytes", "--max-model-len", "8192"]
    assert main(args + ["--engine-version", "0.28.0"]) == 2
    err = capsys.readouterr().err
    assert "removed its bitsandbytes loader" in err and "Traceback" not in err
    assert main(args + ["--engine-version", "0.27.0", "--json"]) == 0
