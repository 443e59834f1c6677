"""``tpkit explain`` sizes an ``auto`` vLLM KV cache in the served ``--dtype`` the log prints, as the planner does
(``engines.vllm.inputs.served_dtype``; vLLM's ``--kv-cache-dtype auto`` is the model dtype, ``engines.vllm.kvdtype``).
vl_553 (helper mv21, 2026-12-04): xuchu0726/ai-inference-service's FP32 baseline, vLLM 0.11.2 Seed-OSS-36B-Instruct
upcast to float32 at tp 2 on two A100-SXM4-80GB: 9.43 GiB hold 38,624 tokens of 4-byte KV (64 layers x 4 KV heads
x 128 x 2 x 4 B = 262,144 B per token and rank). Before, explain rebuilt 77,120-77,280 (2-byte KV, a blind miss)."""

from pathlib import Path

import pytest
from explain_testlib import log_bytes

from tpkit.engines.vllm.inputs import served_dtype
from tpkit.errors import PlanInputError
from tpkit.explain import explain_log
from tpkit.models import load_model

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
SEED = str(CONFIGS / "ByteDance-Seed--Seed-OSS-36B-Instruct.json")
FLAGS = {"model": SEED, "gpu": "A100-SXM-80GB"}


def test_float32_served_model_rebuilds_four_byte_kv():
    e = explain_log(log_bytes("vl_553"), flags=FLAGS)
    assert e.context.get("dtype") == "float32"
    lo, hi = e.kv_predicted_range
    assert lo <= e.kv_printed == 38_624 <= hi
    assert hi < 40_000  # not the 2-byte reading (77,120-77,280)


def test_the_same_lines_served_in_bfloat16_rebuild_two_byte_kv():
    raw = log_bytes("vl_553").replace(b"'dtype': 'float32'", b"'dtype': 'bfloat16'")
    raw = b"\n".join(line for line in raw.split(b"\n") if b"Upcasting" not in line)
    e = explain_log(raw, flags=FLAGS)
    assert e.context.get("dtype") == "bfloat16"
    lo, hi = e.kv_predicted_range
    assert 77_000 < lo <= hi < 77_400  # twice the tokens in the same 9.43 GiB


def test_a_bfloat16_log_is_unchanged():
    e = explain_log(log_bytes("vl_551"), flags=FLAGS)
    lo, hi = e.kv_predicted_range
    assert lo <= e.kv_printed == 290_448 <= hi


def test_served_dtype_resolves_as_vllm():
    model = load_model(SEED)
    assert served_dtype(model, "float32") == ("float32", 4)
    assert served_dtype(model, "torch.float32") == ("float32", 4)
    assert served_dtype(model, None) == ("bfloat16", 2)
    assert served_dtype(model, "auto") == ("bfloat16", 2)
    assert served_dtype(model, "float16") == ("float16", 2)
    with pytest.raises(PlanInputError):
        served_dtype(model, "int8")
