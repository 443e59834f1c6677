"""vLLM's mixed-precision kernel line names the checkpoint's format, and Machete keeps AWQ zero points in the
activation dtype (helper cap10, 2026-12-05).

``Using <Kernel> for <linear method>`` (vLLM's ``choose_mp_linear_kernel`` callers: ``auto_awq.py``
AutoAWQMarlinLinearMethod in the 0.29.0 wheel, ``gptq_marlin.py`` / ``compressed_tensors_wNa16.py`` in the 0.11.0 and
0.14.0 wheels) sets the ``quantization`` setting where no dump names it (``logs.settings._KERNEL_LINE``).
``MacheteLinearKernel.process_weights_after_loading`` (``kernels/linear/mixed_precision/machete.py``,
``transform_w_zp``) unpacks the int4 zero points and stores ``-scale × zp`` in the activation dtype, so 'Model
loading took' holds 2 bytes per group's zero point where the checkpoint packs 4 bits
(``explain.tpinfer.predicted_weights``).  vl_732 (vLLM 0.31.0 on an H200, Qwen2.5-7B-Instruct-AWQ; its config line is
cut before ``quantization=``) then has one tp that fits its printed 5.38 GiB load: tp 1, whose rebuild holds the
printed 651,504 tokens."""

from explain_testlib import log_bytes, script

from tpkit.explain import explain_log
from tpkit.explain.tpinfer import predicted_weights
from tpkit.logs.settings import kernel_line, settings_from_record
from tpkit.models import load_model

CHECK = script("explain_capacity_check")
AWQ = "tests/validation/configs/Qwen--Qwen2.5-14B-Instruct-AWQ.json"


def test_kernel_line_names_the_format():
    line = "INFO 10-08 16:50:23 [auto_awq.py:451] Using MacheteLinearKernel for AutoAWQMarlinLinearMethod"
    assert kernel_line(line) == ("MacheteLinearKernel", "AutoAWQMarlinLinearMethod")
    (s,) = settings_from_record(line, line_no=3)
    assert (s.name, s.value, s.source) == ("quantization", "awq", "log_line")
    (s,) = settings_from_record("Using MarlinLinearKernel for CompressedTensorsWNA16", line_no=1)
    assert s.value == "compressed-tensors"
    assert kernel_line("Using MXFP4 kernel for MoE") is None
    assert settings_from_record("Using CutlassFP8ScaledMMLinearKernel for Fp8LinearMethod", line_no=1) == []


def test_a_dump_outranks_the_kernel_line():
    text = ("INFO [core.py:1] Initializing a V1 LLM engine (v0.29.0) with config: model='m', quantization=awq_marlin\n"
            "INFO [auto_awq.py:451] Using MarlinLinearKernel for AutoAWQMarlinLinearMethod\n")
    assert explain_log(text.encode()).context.values.get("quantization") == "awq_marlin"


def test_machete_keeps_awq_zero_points_in_the_activation_dtype():
    from pathlib import Path

    model = load_model(str(Path(__file__).resolve().parents[2] / AWQ))
    marlin = predicted_weights(model, 1)[0].bytes
    machete = predicted_weights(model, 1, kernel="MacheteLinearKernel")[0].bytes
    # 48 layers of q/k/v/o (5120 → 5120 + 2 × 1024, 5120 → 5120) and gate/up/down (5120 ↔ 13824), group 128:
    # every group's zero point grows from 0.5 to 2 bytes
    per_layer = (5120 * (5120 + 2 * 1024) + 5120 * 5120 + 3 * 5120 * 13824) // 128
    assert machete - marlin == 48 * per_layer * 3 // 2
    assert predicted_weights(model, 1, kernel="MarlinLinearKernel")[0].bytes == marlin


def test_vl_732_tp_from_the_awq_load():
    flags = {"model": CHECK.model_flag(CHECK.model_map()["vl_732"]), "gpu": "H200"}
    e = explain_log(log_bytes("vl_732"), flags=flags)
    assert e.context.values.get("quantization") == "awq"
    assert e.context.values.get("tp") == 1
    stripped = explain_log(CHECK.strip_capacity(log_bytes("vl_732")), flags=flags)
    low, high = stripped.kv_predicted_range
    assert low <= 651_504 <= high
