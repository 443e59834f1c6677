"""The crash pins of scripts/capacity_crash_pins.py (helper cap7): SGLang's 'Not enough memory. Please try to
increase --mem-fraction-static' and vLLM's 'No available memory for the cache blocks' pin the pool at 0 tokens,
read only as the record; each scores a hit only when what tpkit rebuilds from the anchors admits 0, and a miss
when the same log's anchors are raised so that the rebuilt pool is positive."""

import pytest
from explain_testlib import cases, log_bytes, script

from tpkit.explain import explain_log


def _pin(case_id, data=None):
    check = script("explain_capacity_check")
    entry = check.model_map()[case_id]
    flags = check.cli_flags(check.source_flags(entry))
    if check.model_flag(entry):
        flags["model"] = check.model_flag(entry)
    data = log_bytes(case_id) if data is None else data
    return check.find_pin(data, explain_log(data), explain_log(check.strip_capacity(data), flags=flags))


def _hit(pin):
    return pin.rebuilt is not None and pin.low <= pin.rebuilt[1] and pin.rebuilt[0] <= pin.high


@pytest.mark.parametrize("case_id, kind, rebuilt", [
    # Qwen3-VL-32B on an H100 at the default 0.772: budget -1.70…-1.68 GiB over a 262,144 B cell
    # helper miss27: the vision tower's rope grows first (0.5.7+: 262,400 x 36 x 4 B in a new 38 MiB segment): 152 lower
    ("sg_102", "sglang_not_enough_memory", (-7_106, -6_896)),
    # DeepSeek-V3.2 at 0.944, page 64: budget -3.59…-3.58 GiB over 43,188 B, floored to the page
    ("sg_105", "sglang_not_enough_memory", (-89_408, -89_088)),
    ("vl_342", "vllm_no_cache_blocks", (0, 0)),   # 'Available KV cache memory: -1.30 GiB'
    ("vl_344", "vllm_no_cache_blocks", (0, 0)),   # -2.51 GiB, NemotronH block 992
    ("vl_256", "vllm_no_cache_blocks", (-1, -1)),  # no config: the budget's sign only
])
def test_a_pool_crash_pins_zero_tokens_and_the_anchors_admit_it(case_id, kind, rebuilt):
    pin = _pin(case_id)
    assert pin.kind == kind and (pin.low, pin.high) == (-(1 << 62), 0)
    assert pin.rebuilt == rebuilt and _hit(pin)


def test_the_sglang_pin_misses_when_the_anchors_leave_a_positive_pool():
    """sg_102 with 'Load weight end' 20 GB higher: the rebuilt pool is ~75,000 tokens, which the crash denies."""
    data = log_bytes("sg_102").replace(b"avail mem=16.21 GB", b"avail mem=36.21 GB")
    pin = _pin("sg_102", data)
    assert pin.kind == "sglang_not_enough_memory" and pin.rebuilt[0] > 70_000 and not _hit(pin)


def test_the_vllm_pin_misses_when_the_available_memory_is_positive():
    data = log_bytes("vl_342").replace(b"Available KV cache memory: -1.30 GiB", b"Available KV cache memory: 1.30 GiB")
    pin = _pin("vl_342", data)
    assert pin.kind == "vllm_no_cache_blocks" and pin.rebuilt[0] > 10_000 and not _hit(pin)


def test_the_pins_read_the_record_not_the_raise_line_nor_a_quote():
    """vl_007's traceback prints only the ``raise ValueError("No available memory…`` source line; a markdown
    table cell quoting the error is not the record; vl_005 (the error text cut) stays unpinned."""
    check = script("explain_capacity_check")
    raise_line = log_bytes("vl_007")
    assert b'raise ValueError("No available memory for the cache blocks' in raise_line
    assert explain_log(raise_line).context.engine == "vllm"
    assert check.pin_vllm_no_blocks(raise_line.decode(), explain_log(raise_line), explain_log(raise_line)) is None
    data = log_bytes("vl_342")
    quoted = b"\n".join(b"| run 6 | " + ln + b" |" if b"ValueError: No available" in ln else ln
                        for ln in data.split(b"\n"))
    assert check.pin_vllm_no_blocks(quoted.decode(), explain_log(quoted), explain_log(quoted)) is None
    sg = log_bytes("sg_102").replace(b"RuntimeError: Not enough memory", b"| r01 | 'Not enough memory")
    assert explain_log(sg).context.engine == "sglang" and b"Not enough memory" in sg
    assert check.pin_not_enough_memory(sg.decode(), explain_log(sg), explain_log(sg)) is None
    assert _pin("vl_005") is None


def test_the_dsv4_sizing_line_is_read_as_the_printed_capacity_and_removed_with_the_capacity_lines():
    """sg_121 (SGLang 0.5.11 dev, DeepSeek-V4-Flash, the assembled config): 'DSv4 memory calculation:
    bytes_per_full_token=176983.05, available_bytes=87.26 GB, full_token=529408' prints the pool's token count
    (sglang 0.5.12 ``DSV4PoolConfigurator.calculate_pool_sizes``): the reader takes 529,408, not the per-token
    bytes before it; the check removes the line, and the DSV4 cell (``engines.sglang.dsv4``) rebuilds it: a hit; the printed available_bytes
    lies in the budget tpkit rebuilds from 'Load weight end', the pre sample and the fraction 0.88."""
    from tpkit.logs import parse_log

    check = script("explain_capacity_check")
    data = log_bytes("sg_121")
    kv = [a for a in parse_log(data).anchors if a.name == "kv_tokens"]
    assert [(a.count.value, a.line_no) for a in kv] == [(529_408, 22)]
    assert explain_log(data).kv_printed == 529_408
    stripped = check.strip_capacity(data)
    assert b"memory calculation" not in stripped and explain_log(stripped).kv_printed is None
    row = check.check(next(c for c in cases() if c["id"] == "sg_121"), check.model_map())
    # with the assembled config (helper dsv4): the DSV4 cell rebuilds the printed count from the anchors
    assert row["outcome"] == "hit" and row["printed"] == 529_408 and "DSV4" in row["cell_source"]
    rest = explain_log(stripped, flags=check.cli_flags(check.source_flags(check.model_map()["sg_121"]))).anchored.rest
    assert rest.low.bytes / 2**30 <= 87.265 and rest.high.bytes / 2**30 >= 87.255
    other = data.replace(b"full_token=529408", b"full_token=1000")
    assert [a.count.value for a in parse_log(other).anchors if a.name == "kv_tokens"] == [1000]
