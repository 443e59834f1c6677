"""SGLang's idle-time pool check ("… memory leak detected!") is read as slot bookkeeping, not as an out-of-memory
(explain.sgleak; wheels 0.4.6.post4 scheduler.check_memory, 0.5.9 / 0.5.16 raise_error_or_warn, 0.5.23
invariant_checker._report_leak).  Texts are built here (after sglang#16067's shape), so the tests hold from a clone."""

from __future__ import annotations

import pytest

from tpkit.explain import explain_log

_HEAD = ("[2026-01-12 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
         '  File "/env/sglang/srt/managers/scheduler.py", line 2701, in run_scheduler_process\n'
         "    raise ValueError(message)\n")
_LEAK = ("ValueError: token_to_kv_pool_allocator memory leak detected! full_available_size=6016, "
         "full_evictable_size=390685, self.token_to_kv_pool_allocator.size=396701\n")
_REQ = "ValueError: req_to_token_pool memory leak detected!available_size=10, session_held=0, total_size=12\n"
_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.10 GiB of which 1.10 GiB is free.\n")


def _diag(text: str):
    return explain_log(text.encode()).diagnosis


@pytest.mark.parametrize("error, pool", [(_LEAK, "token_to_kv_pool_allocator"), (_REQ, "req_to_token_pool")])
def test_the_idle_pool_check_is_not_a_lack_of_memory(error, pool):
    d = _diag(_HEAD + error)
    assert d.status == "failed"
    assert "idle-time pool check" in d.cause and pool in d.cause and "not a lack of GPU memory" in d.cause
    assert d.fixes == () and d.short_by is None


def test_a_real_oom_keeps_its_memory_reading():
    d = _diag(_HEAD + _OOM)
    assert "idle-time pool check" not in d.cause
