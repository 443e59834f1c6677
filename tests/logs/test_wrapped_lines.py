"""A memory record that a terminal or a copy wrapped onto the next line is read as one record
(``tpkit.logs.rules.apply_rules_wrapped``, ``rules.next_line``).  Helper x12b (2026-12-05)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from logs_testlib import log_bytes

from tpkit.logs import parse_log

SG402 = ("Load weight end. elapsed=2415.46 s, type=Gemma4ForConditionalGeneration,\n"
         "avail mem=97.30 GB, mem usage=15.56 GB.\n"
         "SWAKVPool mem usage: 79.94 GB, swa size: 798276, full size: 997846\n"
         "Capture target decode CUDA graph end. elapsed=22.18 s, mem usage=1.91 GB,\n"
         "avail mem=14.18 GB.\n")


def _anchors(text: str, **kw) -> dict[str, str]:
    return {a.name: (a.size.text if a.size else a.count.text) for a in parse_log(text, **kw).anchors}


def test_wrapped_load_line_is_read_as_one_record():
    got = _anchors(SG402)
    assert got["load_end_avail"] == "97.30 GB" and got["weights_mem_usage"] == "15.56 GB"
    assert got["graph_end_avail"] == "14.18 GB" and got["graph_mem_usage"] == "1.91 GB"
    assert [a.line_no for a in parse_log(SG402).anchors if a.name == "load_end_avail"] == [1]
    assert _anchors(SG402, read_every_line=True) == got


def test_wrap_inside_a_number_or_a_word():
    # a terminal's hard wrap keeps every character: the number and the word come back whole
    assert _anchors("Load weight end. type=X, avail mem=97.3\n0 GB, mem usage=15.56 GB.")["load_end_avail"] == "97.30 GB"
    assert _anchors("Load weight end. type=X, avail\nmem=97.30 GB, mem usage=15.56 GB.")["load_end_avail"] == "97.30 GB"
    # a re-flow at a space drops the space
    assert _anchors("Load weight end. type=X, avail mem=97.30 GB, mem\nusage=15.56 GB.")["weights_mem_usage"] == "15.56 GB"


def test_a_new_record_is_not_a_continuation():
    stamped = "[2026-01-01 00:00:00 TP0] Load weight end. type=X,\n[2026-01-01 00:00:01 TP0] avail mem=97.30 GB."
    assert "load_end_avail" not in _anchors(stamped)
    own_needle = "Load weight end. type=X,\nMemory pool end. avail mem=12.13 GB"
    assert _anchors(own_needle) == {"pool_end_avail": "12.13 GB"}
    complete = "Load weight end. type=X, avail mem=97.30 GB, mem usage=15.56 GB.\navail mem=1.00 GB"
    assert _anchors(complete)["load_end_avail"] == "97.30 GB"


def test_wrapped_vllm_startup_check_reads_the_request():
    text = ("Free memory on device cuda:1 (112.72/139.8 GiB) on startup is less than\n"
            "desired GPU memory utilization (0.82, 114.64 GiB).")
    got = _anchors(text)
    assert got["requested_memory"] == "114.64 GiB" and got["startup_free"] == "112.72"


def test_swa_pool_full_size_is_the_printed_capacity():
    from tpkit.explain import explain_log

    assert explain_log(SG402.encode()).kv_printed == 997846
    assert explain_log(log_bytes("sg_402")).kv_printed == 997846
    assert "kv_capacity" not in {m.what for m in parse_log(SG402).missing}


def _wrap(text: str, width: int) -> str:
    return "\n".join(line[i:i + width] for line in text.splitlines() for i in range(0, max(len(line), 1), width))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["sg_009", "sg_402", "vl_060", "vl_736"]), st.integers(min_value=1, max_value=160))
def test_any_wrap_width_never_crashes(case_id, width):
    text = _wrap(log_bytes(case_id).decode("utf-8", "replace"), width)
    parsed = parse_log(text)
    json.dumps(parsed.to_dict())
    _ = parsed.select_rank(), parsed.status, parsed.primary_failure, parsed.missing


def test_wrapped_copy_of_a_clean_log_keeps_its_load_numbers():
    """sg_009's load lines, wrapped at random points without their headers (a copy of the messages only)."""
    rng = random.Random(20261205)
    lines = [l.split("] ", 1)[1] for l in log_bytes("sg_009").decode().splitlines()
             if "Load weight end" in l and "] " in l]
    assert lines
    for line in lines:
        cut = rng.randrange(len("Load weight end. ") + 1, len(line) - 1)
        want = _anchors(line)
        assert _anchors(line[:cut] + "\n" + line[cut:]) == want, line
