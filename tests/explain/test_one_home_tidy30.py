"""One home per concept in ``tpkit.explain`` (helper tidy30, 2026-12-07, session 30).

* SGLang's run-time pool errors were listed twice, as the failure pattern (``logs.failures._POOL_SLOTS``) and as the
  frames of a cut traceback (``explain.unnamed.SLOT_FRAMES``).  ``logs.failures.POOL_SLOT_ERRORS`` is now the one
  table; the pattern, the scan's needles and the unnamed-error diagnosis are read from it, and the tests below fail
  if one of them drifts from it.
* ``explain.unnamed`` imported three private names of ``explain.diagnose``; what they test is now the public
  ``diagnose.names_a_cause``, and no module of ``src/tpkit/explain`` imports another module's private name
  (checked with ``src/tpkit/logs`` in tests/core/test_no_private_imports.py).
"""

from __future__ import annotations

import pytest

from tpkit.explain import unnamed
from tpkit.explain.diagnose import names_a_cause
from tpkit.explain.result import explain_log
from tpkit.logs import failures
from tpkit.logs.failures import FAILURE_NEEDLES, POOL_SLOT_ERRORS, detect



@pytest.mark.parametrize("frame", sorted(POOL_SLOT_ERRORS))
def test_every_pool_slot_error_is_read_as_a_full_pool(frame):
    message = POOL_SLOT_ERRORS[frame]
    assert [k for k, *_ in detect(f"RuntimeError: {message}", "")] == ["pool_exhausted"]
    cut = message.split(". Please")[0]  # an issue title / a cut paste of the request-slot error
    assert [k for k, *_ in detect(f"RuntimeError: {cut}", "")] == ["pool_exhausted"]
    assert any(n in message for n in FAILURE_NEEDLES)  # the scan's prefilter lets the line through


def test_the_pattern_admits_no_other_wording():
    """The pattern is the table's messages and nothing else: an "Extend out of memory" no SGLang wheel prints (0.2.15–
    0.5.23: ``phase_str`` is Prefill or Decode) and a CUDA OOM are not full pools."""
    for line in ("RuntimeError: Extend out of memory. Try to lower your batch size.",
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"):
        assert "pool_exhausted" not in [k for k, *_ in detect(line, "")]
    assert failures._POOL_SLOTS.pattern.count("|") == len(POOL_SLOT_ERRORS) - 1


def test_the_unnamed_diagnosis_reads_the_same_table():
    assert unnamed.POOL_SLOT_ERRORS is POOL_SLOT_ERRORS
    assert not hasattr(unnamed, "SLOT_FRAMES")


@pytest.mark.parametrize("frame", sorted(POOL_SLOT_ERRORS))
def test_a_traceback_cut_in_any_pool_allocator_quotes_its_error(frame):
    log = ("[2025-01-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 8192\n"
           "[2025-01-01 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
           '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1, in event_loop_overlap\n'
           "    batch = self.get_next_batch_to_run()\n"
           f'  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py", line 292, in {frame}\n')
    d = explain_log(log.encode()).diagnosis
    assert d.phase == "first_request" and frame in d.cause and POOL_SLOT_ERRORS[frame] in d.cause and not d.fixes


@pytest.mark.parametrize("texts, named", [
    (["traceback cut before its exception line"], False),
    (["Scheduler hit an exception"], False),
    (["CUDA out of memory. Tried to allocate 2.00 GiB"], True),
    (["CUDA error: an illegal memory access was encountered"], True),
    (["AssertionError: the KV commit"], True),
    ([], False),
])
def test_names_a_cause(texts, named):
    assert names_a_cause(texts) is named
