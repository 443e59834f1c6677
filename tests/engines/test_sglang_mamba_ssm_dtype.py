"""SGLang's ``--mamba-ssm-dtype`` as a plan input (helper sgf14, 2026-12-05; issue 11: round sgb14's nine boots of one
2× A100 Qwen3.6/3.8-27B deployment pin bfloat16, and tpkit sized the Gated DeltaNet temporal state in fp32).

Read in the sglang wheels: 0.5.3 – 0.5.8 ``server_args.py`` ``mamba_ssm_dtype: str = "float32"`` (choices float32 /
bfloat16) always exported as ``SGLANG_MAMBA_SSM_DTYPE``, which ``mamba2_state_dtype()`` reads (0.5.4 – 0.5.8
``configs/mamba_utils.py``); 0.5.9 – 0.5.19 default None, choices + float16, and ``mamba2_state_dtype(config)``: the
flag, else the config's ``mamba_ssm_dtype`` (``text_config`` for VL wrappers), else float32.  The slot is
``BaseLinearStateParams.mamba_cache_per_req`` (conv in the conv dtype + temporal in the SSM dtype) × layers."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.mamba import plan_mamba_pool, ssm_state_choice
from tpkit.errors import PlanInputError
from tpkit.explain.context import build_context
from tpkit.explain.fromlog import log_flag_values
from tpkit.hardware.catalog import lookup_gpu
from tpkit.logs.reader import parse_log
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
A100 = lookup_gpu("A100-PCIe-80GB")


def _qwen36(ssm_dtype: str | None = "float32"):
    cfg = json.loads((CONFIGS / "Qwen--Qwen3.6-27B.json").read_text())
    if ssm_dtype is None:
        cfg["text_config"].pop("mamba_ssm_dtype", None)
    else:
        cfg["text_config"]["mamba_ssm_dtype"] = ssm_dtype
    return from_config_dict(cfg, name="Qwen/Qwen3.6-27B", source="test")


def test_the_gdn_slot_holds_conv_in_bf16_and_temporal_in_the_ssm_dtype():
    model = _qwen36()
    la = model.linear_attn
    # 48 value heads × 128 × 128 in fp32; conv (2·16·128 + 48·128) × 3 in bf16
    assert la.temporal_bytes_per_layer.bytes == 48 * 128 * 128 * 4
    assert la.state_bytes_per_layer.bytes == 48 * 128 * 128 * 4 + (2 * 16 * 128 + 48 * 128) * 3 * 2
    fp32 = plan_mamba_pool(model, 1, 48, GiB(20), "0.5.17")
    bf16 = plan_mamba_pool(model, 1, 48, GiB(20), "0.5.17", ssm_bytes=2)
    assert bf16.per_slot.bytes == 48 * (48 * 128 * 128 * 2 + (2 * 16 * 128 + 48 * 128) * 3 * 2)
    assert fp32.per_slot.bytes == 48 * la.state_bytes_per_layer.bytes
    assert bf16.slots > 1.9 * fp32.slots


@pytest.mark.parametrize("version, config, flag, expected", [
    ("0.5.17", "float32", "bfloat16", 2), ("0.5.17", "float32", None, 4), ("0.5.17", "bfloat16", None, 2),
    ("0.5.9", "bfloat16", None, 2), ("0.5.8", "bfloat16", None, 4), ("0.5.8", "bfloat16", "bfloat16", 2),
    ("0.5.19", None, None, 4), ("0.5.19", "float32", "float16", 2)])
def test_the_flag_then_the_config_from_0_5_9_then_float32(version, config, flag, expected):
    assert ssm_state_choice(_qwen36(config), version, flag)[0] == expected


@pytest.mark.parametrize("spec", [False, True])
def test_bfloat16_doubles_the_slots_and_float32_is_the_default(spec):
    """Without speculative decoding the ρ split keeps the KV share (the slots double); with EAGLE 5/1/6 on 4
    running requests (the sgb14 boots) the slot count is capped and the smaller state leaves more KV."""
    model = _qwen36()
    kw = dict(engine_version="0.5.17", mem_fraction_static=0.92, context_length=169000, page_size=64,
              max_running_requests=4, mm_feature_transport="cpu")
    if spec:
        kw.update(speculative_algorithm="EAGLE", speculative_num_steps=5, speculative_eagle_topk=1,
                  speculative_num_draft_tokens=6)
    plans = [plan_sglang(model, A100, ParallelSpec(), SglangOptions(**kw, **extra))
             for extra in ({}, {"mamba_ssm_dtype": "float32"}, {"mamba_ssm_dtype": "bfloat16"})]
    assert plans[0].kv_tokens == plans[1].kv_tokens
    if spec:
        assert plans[2].kv_tokens > plans[0].kv_tokens * 1.15
    else:
        slots = [p.extra["sglang"]["mamba_slots"] for p in plans]
        assert slots[2] > 1.9 * slots[0]
        assert abs(plans[2].kv_tokens - plans[0].kv_tokens) < 0.01 * plans[0].kv_tokens


def test_float16_arrives_in_0_5_9_and_other_values_are_refused():
    with pytest.raises(PlanInputError, match="float16 is accepted from SGLang 0.5.9"):
        SglangOptions(engine_version="0.5.8", mamba_ssm_dtype="float16")
    SglangOptions(engine_version="0.5.9", mamba_ssm_dtype="float16")
    SglangOptions(engine_version="0.5.8", mamba_ssm_dtype="bfloat16")
    with pytest.raises(PlanInputError, match="--mamba-ssm-dtype must be one of float32, bfloat16, float16"):
        SglangOptions(engine_version="0.5.17", mamba_ssm_dtype="fp8")


def test_a_log_s_server_args_feed_the_flag():
    line = ("[2026-08-08 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3.6-27B', mem_fraction_static=0.92, "
            "mamba_ssm_dtype='bfloat16', mamba_full_memory_ratio=0.9)\n")
    ctx = build_context(parse_log(line))
    assert ctx.get("mamba_ssm_dtype") == "bfloat16"
    assert ("mamba_ssm_dtype", "mamba_ssm_dtype", "bfloat16") in log_flag_values(ctx)


def test_the_command_line_takes_the_flag():
    base = [sys.executable, "-m", "tpkit", "plan", "Qwen/Qwen3.5-9B", "--engine", "sglang", "--gpu", "H100",
            "--engine-version", "0.5.17", "--json"]
    out = subprocess.run(base + ["--mamba-ssm-dtype", "bfloat16"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    bad = subprocess.run(base + ["--mamba-ssm-dtype", "fp8"], capture_output=True, text=True)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "bfloat16" in bad.stderr + bad.stdout
