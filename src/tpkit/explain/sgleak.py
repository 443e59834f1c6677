"""SGLang's idle-time pool check: "… memory leak detected!" is an accounting fault, not a lack of memory (lead, session
35; ex35's lead on a held-back SGLang log).

When the scheduler is idle it checks that every KV slot (and every request slot) is free, cached in the radix tree or
held by a session; a mismatch raises ``ValueError("{pool} memory leak detected! …")`` (``token_to_kv_pool_allocator``,
``req_to_token_pool``; hybrid models add their Mamba / SWA pool counts).  Read in the wheels: 0.4.6.post4
(``managers/scheduler.py`` ``check_memory``: always raises); 0.5.9 and 0.5.16 (``raise_error_or_warn`` under
``SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_IDLE``); 0.5.23 (``managers/scheduler_components/invariant_checker.py``
``_report_leak`` / ``_check_req_pool``, same switch, default on; also "KV double free" and "KV page use-after-free").
The check counts slots, it does not allocate: the pool had room (the message prints how many slots were free), so no
fraction, chunk size or GPU count changes it.  What it shows is a slot that the engine lost track of (a bug of that
release's scheduler / cache path), which the cause says, with the switch that turns the stop into a warning.
"""

from __future__ import annotations

import re

__all__ = ["POOL_CHECK", "pool_check_failure"]

POOL_CHECK = re.compile(r"(\w+) memory leak detected!|KV (?:double free|page use-after-free)")
"""the idle check's messages (module docstring)"""


def pool_check_failure(parsed) -> tuple[str, None, list] | None:
    """(cause, short, fixes) when a failure of the run is SGLang's idle pool check; else None."""
    for f in getattr(parsed, "failures", ()) or ():
        for text in (f.detail, f.evidence):
            if text and (m := POOL_CHECK.search(text)):
                pool = m.group(1) or "KV page"
                return _cause(pool), None, []
    return None


def _cause(pool: str) -> str:
    return (f"SGLang's idle-time pool check stopped the server: {pool} slots are neither free, cached nor held "
            "(\"memory leak detected\" counts slots, it allocates nothing, and the pool still had free slots). This is "
            "not a lack of GPU memory, so no --mem-fraction-static, --chunked-prefill-size or tp change fixes it: it "
            "is slot bookkeeping lost by that release's scheduler or cache path (report it with the release and "
            "flags). In SGLang 0.5.9 and later (the releases read) SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_IDLE=0 makes the check warn instead of "
            "stop; the lost slots stay lost until a restart")
