"""What a vLLM-Ascend OOM's lower-utilization fix still lacks for a fit, now that the reader takes vLLM-Ascend's own
'Available memory: N, total memory: M' bytes line as the worker's KV budget and the device total (``logs.ascendmem``;
helper fx38, 2026-12-08, issue 12; docs/accuracy.md §7.3 round fx38).

The fix (``explain.npuplan.npu_vllm_diagnosis`` → ``explain.voom._lower_utilisation``) is re-planned from the log's
numbers where both the KV budget and its bytes per token are known: the budget from N (or vLLM's 'Available KV cache
memory'), the bytes per token from the model's config or from the budget over vLLM's printed 'GPU KV cache size: T
tokens' (vLLM-Ascend runs vLLM's own scheduler and ``v1/core/kv_cache_utils.py``, which print it).  This module only
words what is missing, so the refusal-free suggestion says which line would make it a fit."""

from __future__ import annotations

__all__ = ["missing_for_fit"]


def missing_for_fit(a) -> str:
    """'; missing for a fit: …' for a vLLM-Ascend OOM whose utilization fix is not a fit: the KV budget line when the
    log prints none, else its bytes per token (no model config and no printed token count) or, with both, that the
    smaller pool does not pass vLLM's checks (the fix's own note says which)."""
    if a is None or a.available is None:
        return ("; missing for a fit: the KV cache's own size (vLLM-Ascend v0.9.1rc2–v0.14.0rc1 prints 'Available "
                "memory: N, total memory: M' in bytes at INFO, vLLM's 'Available KV cache memory' from v0.15.0rc1; "
                "this log shows neither)")
    if not a.token_bytes:
        from tpkit.explain.diagnose import bytes_text

        return ("; missing for a fit: the KV cache's bytes per token — the log prints the KV budget "
                f"({bytes_text(a.available.mid)}) but no model config is known and no 'GPU KV cache size: … tokens' "
                "line is printed")
    return "; not a fit: the smaller pool fails a check the fix's note names"
