"""The release at which SGLang's ROCm aiter factor moves into ServerArgs, as ``tpkit explain`` reads a printed fraction
(``explain.sgrelease.aiter_factor``; helper gs30, session 30, docs/accuracy.md §6.4 round gs30).

sglang 0.5.4's ``ModelRunner.model_specific_adjustment`` multiplies mem_fraction_static by 0.85 after the
'server_args=' line is printed; 0.5.4.post1's ``ServerArgs._handle_attention_backend_compatibility`` multiplies by 0.90
before it (both wheels read), as ``engines.sglang.choices.rocm_aiter_factor`` has it.  So a fraction an 0.5.4.post1 log
prints already carries the factor.  sg_734 (michael-amd/sglang-ci, Qwen3-30B-A3B-Thinking-2507 at tp 8 on MI300X, the
v0.5.4.post1 image of 2025-10-28) prints 0.765 (= 0.85 × 0.90) and 5,972,107 tokens; the rebuilt range lies 139
tokens above it with the fix (a miss of 0.002 %), 16 % below it without.
"""

from pathlib import Path

from explain_testlib import log_bytes

from tpkit.explain import explain_log

_ROOT = Path(__file__).resolve().parents[2]
_QWEN = str(_ROOT / "tests/validation/configs/Qwen--Qwen3-30B-A3B-Instruct-2507.json")
_PRINTED = 5_972_107


def _explain(version: str):
    raw = b"\n".join(l for l in log_bytes("sg_734").splitlines()
                     if b"KV Cache is allocated" not in l and b"max_total_num_tokens=" not in l) + b"\n"
    return explain_log(raw, flags={"model": _QWEN, "gpu": "MI300X", "tp": 8, "engine_version": version})


def test_a_printed_fraction_from_0_5_4_post1_is_not_scaled_again():
    e = _explain("0.5.4.post1")
    assert abs(e.anchored.fraction - 0.765) < 1e-9
    lo, hi = e.kv_predicted_range  # × 0.85 again: -16 %
    # helper cap32: the printed count lies in the range (5,966,548-5,972,786: the ROCm device bound widens its low end
    # by (1 - f) x up to 0.50 GiB, explain.sgrocm); round cap31a's corpus bound gave 5,971,733-5,972,786
    assert lo <= _PRINTED <= hi and (hi - lo) / _PRINTED < 2e-3


def test_a_printed_fraction_of_0_5_4_is_scaled_by_the_model_runner():
    e = _explain("0.5.4")
    assert abs(e.anchored.fraction - 0.765 * 0.85) < 1e-9 and "aiter" in e.anchored.fraction_source
    assert e.kv_predicted_range[1] < _PRINTED
