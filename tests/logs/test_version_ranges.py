"""vLLM release ranges intersected from the line formats (logs/engine.py, helper kvd): each marker pinned on both
sides of its boundary (read in the 0.17.0, 0.18.0, 0.25.0 and 0.28.0 wheels)."""

from tpkit.logs.engine import intersect_ranges, release_range
from tpkit.logs.reader import parse_log

AVAIL = 'msg="Available KV cache memory: 5.38 GiB"\n'


def _version(text: str) -> str | None:
    return parse_log(text).engine.version


def test_ranges_are_read_and_intersected():
    assert release_range("≥ 0.18 (x)") == ((0, 18, 0), (999, 999, 999))
    assert release_range("0.8–0.27 (y)") == ((0, 8, 0), (0, 27, 999))
    assert intersect_ranges(["≥ 0.8 (V1)", "≥ 0.18 (a)", "0.8–0.27 (b)"]) == "0.18–0.27"
    assert intersect_ranges(["≥ 0.8 (V1)", "≥ 0.28 (a)"]) == "≥ 0.28"
    assert intersect_ranges(["≤ 0.10", "≥ 0.11"]) is None  # formats that disagree: no range


def test_engine_core_prefix_without_dp_means_0_18_or_later():
    """v1/engine/utils.py names the process 'EngineCore' without DP from 0.18.0 (0.17.0: always EngineCore_DP0)."""
    two_lines = "(EngineCore pid=86) INFO GPU KV cache size: 78,384 tokens\n"
    assert _version(two_lines) == "0.18–0.27"
    assert _version("(EngineCore_DP0 pid=86) INFO GPU KV cache size: 78,384 tokens\n") == "0.10–0.27"


def test_the_capacity_line_alone_is_0_27_or_older_and_with_the_concurrency_0_28_or_later():
    """v1/core/kv_cache_utils.py: two records up to 0.27 (0.25.0 read), one record from 0.28.0."""
    one = "INFO GPU KV cache size: 150,745 tokens, Maximum concurrency for 124,000 tokens per request: 1.22x\n"
    assert _version(one) == "≥ 0.28"
    assert _version("INFO GPU KV cache size: 78,384 tokens\n") == "0.8–0.27"


def test_sglang_time_only_rank_prefix_means_0_3_3_or_older():
    """sglang/srt/utils.py configure_logger: datefmt '%H:%M:%S' in 0.2.15–0.3.3, '%Y-%m-%d %H:%M:%S' from 0.3.4
    (read in the 0.2.15, 0.3.2, 0.3.3, 0.3.4, 0.4.2, 0.4.10 and 0.5.23 wheels)."""
    line = "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=176.33 GB\n"
    old = _version("[22:30:52 TP0] " + line)
    assert old is not None and old.startswith("0.2.15–0.3.3")
    assert _version("[2024-10-20 22:30:52 TP0] " + line) == "0.2.15–0.5.15"
    assert _version("[HH:MM:SS] " + line) == "0.2.15–0.5.15"  # a template, no rank: nothing is read off it
