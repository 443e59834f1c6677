"""Round cr38 (2026-12-08): SGLang crash logs (and three vLLM ones) without a fit, read for classes.

- ``explain.sgoomcut``: a torch OOM message that stops right after 'GPU ' (older PyTorch allocators stream the int8
  device index as a raw byte; GPU 0's is a NUL, where copies of the message end) has lost its total, free memory and
  per-process figures; the cause says so (sg_511, sg_512, sg_517, sg_518), and only there.
- vl_1489: the thread's card (an H100 limited to 20000 MiB) and the thinker stage's utilization 0.3 (FLAGS_FOR,
  models.json) size the --gpu-memory-utilization fix; it stays a suggestion (two other stages share the card).
"""

from __future__ import annotations

import re

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.explain.sgoomcut import cut_after_gpu

CUT_LOGS = {"sg_511": 82, "sg_512": 21, "sg_517": 37, "sg_518": 72}


@pytest.mark.parametrize("case_id", sorted(CUT_LOGS))
def test_a_message_cut_after_gpu_is_named(case_id):
    e = explain_log(log_bytes(case_id))
    cause = e.diagnosis.cause
    assert f"torch's OOM message stops at 'GPU ' (line {CUT_LOGS[case_id]})" in cause
    assert "NUL character" in cause and "nvidia-smi at the failure" in cause
    assert not any(f.fits for f in e.diagnosis.fixes)  # nothing is re-planned from figures the log lost


def _whole(case_id: str, rest: str) -> bytes:
    """``case_id``'s log with its cut OOM line completed by ``rest``."""
    lines = log_bytes(case_id).decode().split("\n")
    n = CUT_LOGS[case_id] - 1
    lines[n] = re.sub(r"GPU[\s`]*$", "GPU " + rest, lines[n])
    return "\n".join(lines).encode()


def test_the_whole_message_gets_no_cut_clause_and_its_sizes_are_read():
    data = _whole("sg_518", "0 has a total capacity of 79.15 GiB of which 500.00 MiB is free. Of the allocated "
                            "memory 70.00 GiB is allocated by PyTorch.")
    e = explain_log(data)
    assert "stops at 'GPU '" not in e.diagnosis.cause
    assert e.parsed.primary_failure.size("free") is not None
    # the message whose NUL byte was dropped ('GPU  has', the rest kept) is not cut either
    e2 = explain_log(_whole("sg_518", " has a total capacity of 79.15 GiB of which 500.00 MiB is free."))
    assert "stops at 'GPU '" not in e2.diagnosis.cause


def test_only_a_cuda_oom_that_ends_at_gpu_counts():
    for case_id in ("sg_028", "sg_030", "sg_450", "sg_801", "sg_516"):
        f = explain_log(log_bytes(case_id)).parsed.primary_failure
        assert not cut_after_gpu(f), case_id  # whole messages, or cut later ('95.00')
    assert not cut_after_gpu(None)


FLAGS_1489 = {"gpu_memory": "20000MiB", "gpu_memory_utilization": 0.3}


def test_vl_1489_thread_facts_size_the_utilization_as_a_suggestion():
    e = explain_log(log_bytes("vl_1489"), flags=FLAGS_1489)
    util = [f for f in e.diagnosis.fixes if f.flags.startswith("--gpu-memory-utilization")]
    assert len(util) == 1 and not util[0].fits
    value = float(util[0].flags.split()[1])
    # the printed -2.77 GiB is made up at (u - 0.3) x 20000 MiB: u > 0.3 + 2.77 GiB / 19.53 GiB
    assert value > 0.3 + 2.77 * 2**30 / (20000 * 2**20)
    assert util[0].note.startswith("a suggestion, not shown to fit: the device's free memory at start-up")
    assert not any(f.fits for f in e.diagnosis.fixes)


def test_vl_1489_without_the_thread_facts_sizes_no_utilization():
    e = explain_log(log_bytes("vl_1489"))
    assert not any(f.flags.startswith("--gpu-memory-utilization") for f in e.diagnosis.fixes)
