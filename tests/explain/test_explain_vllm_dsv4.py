"""``tpkit explain`` on a vLLM DeepSeek-V4 log (vl_064: DeepSeek-V4-Flash, tp 2, H200, fp8_ds_mla, max_model_len
4096, 'Available KV cache memory: 29.07 GiB', 'GPU KV cache size: 82,301 tokens', release not printed) through
``explain.vdsv4`` / ``engines.vllm.dsv4``, and the log line that names the KV format."""

import pytest
from explain_testlib import ROOT, log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log

CONFIG = str(ROOT / "tests" / "logs" / "data" / "configs" / "deepseek-ai__DeepSeek-V4-Flash" / "config.json")
CAPACITY = (b"GPU KV cache size", b"Maximum concurrency")


def _stripped() -> bytes:
    return b"\n".join(line for line in log_bytes("vl_064").split(b"\n") if not any(c in line for c in CAPACITY))


def test_the_fp8_ds_mla_line_sets_the_kv_cache_dtype():
    run = parse_log(log_bytes("vl_064")).run
    assert run.kv_cache_dtype is not None and run.kv_cache_dtype.value == "fp8_ds_mla"
    assert run.kv_cache_dtype.line_no == 16


def test_each_dsv4_era_of_the_open_release_is_rebuilt_and_the_0_23_one_holds_the_printed_count():
    e = explain_log(_stripped(), flags={"model": CONFIG, "gpu": "H200"})
    alts = e.kv_predicted_alternatives
    assert len(alts) == 3, e.kv_source
    assert any(lo <= 82301 <= hi for lo, hi in alts)
    assert e.kv_predicted_range[0] <= 82301 <= e.kv_predicted_range[1]
    assert "0.23.0 rules give" in e.kv_source and "outside 0.20.0–0.25.1 not modelled" in e.kv_source


@pytest.mark.parametrize("version,inside", [("0.22.1", False), ("0.23.0", True), ("0.25.1", True)])
def test_a_pinned_release_gives_one_range(version, inside):
    e = explain_log(_stripped(), flags={"model": CONFIG, "gpu": "H200", "engine_version": version})
    lo, hi = e.kv_predicted_range
    assert (lo <= 82301 <= hi) is inside
    assert not e.kv_predicted_alternatives


def test_an_unmodelled_release_names_the_supported_ones():
    e = explain_log(_stripped(), flags={"model": CONFIG, "gpu": "H200", "engine_version": "0.33.0"})
    assert e.kv_predicted_range is None
    assert "0.20.0 – 0.25.1" in e.kv_source


def _stripped_844() -> bytes:
    return b"\n".join(line for line in log_bytes("vl_844").split(b"\n") if not any(c in line for c in CAPACITY))


def test_the_mtp_drafter_layer_joins_the_swa_groups_in_the_rebuild():
    """Helper cap14 (2026-12-05): vl_844 (DeepSeek-V4-Flash, MTP with 2 tokens, tp 2 over two GB10, vLLM
    0.21.1rc1.dev339, max_model_len 200,000, 8,192 batched tokens) rebuilds with the MTP layer's SWA cache
    (``engines.vllm.dsv4_plan.mtp_layers``, as the plan does): 3,756 blocks per request, not 3,751.  The printed
    1,001,650 = int(18,811 / 3,756 × 200,000): the smallest worker's 18,811 blocks of 1,051,776 B (18.43 GiB), 0.22 GiB
    below the printed worker's 18.65 GiB; that worker ran on the second node (--nnodes 2), which the log does not
    print."""
    e = explain_log(_stripped_844(), flags={"model": CONFIG, "gpu": "GB10"})
    assert "1 MTP layer(s) in the SWA groups" in e.kv_source and "3,756 blocks per request" in e.kv_source
    assert e.kv_predicted_range == (1012992, 1014057)
    assert int(18811 / 3756 * 200000) == 1001650 and 18811 * 1051776 / 2**30 < 18.645 - 0.2


def test_without_speculative_decoding_no_mtp_layer_is_added():
    e = explain_log(_stripped(), flags={"model": CONFIG, "gpu": "H200", "engine_version": "0.23.0"})
    assert "MTP layer" not in e.kv_source
