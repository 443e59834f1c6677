"""SGLang weight-phase failures that are not a lack of memory (round cr35a, 2026-12-07; ex34's lead: SGLang's load-sync
error read as an OOM).

``explain.sgweights.weights_failure`` reads a failure in the weights phase as an out-of-memory while loading and
offers memory fixes (twice the TP size, fp8 weights).  That reading needs the log to say memory: a torch/CUDA OOM
(reader kind ``cuda_oom``) or a failure text with a memory word.  Two other kinds of weight-phase failure reach it:

- **SGLang's load-sync check.**  After a rank has loaded its weights, ``ModelRunner.load_model`` waits for every TP
  rank at ``dist.monitored_barrier(get_tp_group().cpu_group, timeout=UNBALANCED_MODEL_LOADING_TIMEOUT_S,
  wait_all_ranks=True)`` and turns the barrier's ``RuntimeError`` into ``ValueError("TP rank {tp_rank} could finish
  the model loading, but there are other ranks that didn't finish loading. It is likely due to unexpected failures
  (e.g., OOM) or a slow node.")`` (``sglang/srt/model_executor/model_runner.py`` ``load_model``, read in the 0.4.4,
  0.4.5.post1, 0.5.9 and 0.5.10 wheels; ``model_runner_components/load_model_utils.py`` in 0.5.16 and 0.5.23; not in
  0.4.0–0.4.3).  The rank that raises it *finished* its load; the failure is another rank's, whose error this log does
  not show ("OOM" is the engine's guess beside "a slow node").  No memory fix is planned from it: the cause names the
  other rank's output (or a slow node) as what to read.
- **Any other exception class named by the log** (a weight shape that does not match its parameter, a shard past the
  tensor's dimension): ``explain.diagnose.pool_error_not_memory`` with ``phase="weights"`` — the run names a Python
  exception, no failure is of a memory kind and no failure text mentions memory.  More GPUs, fp8 weights or another
  fraction would not help.

Both need that no failure of the run is a memory one (a ``cuda_oom`` anywhere keeps the OOM reading: a log holding the
other rank's OOM is read as that OOM).  A traceback cut before its exception line is ``explain.unnamed``'s."""

from __future__ import annotations

import re

from tpkit.explain.diagnose import pool_error_not_memory

__all__ = ["weights_error_not_memory", "LOAD_SYNC"]

LOAD_SYNC = re.compile(r"TP rank (\d+) could finish the model loading, but there are other ranks that didn't finish")
"""SGLang's load-sync ValueError (``ModelRunner.load_model``, 0.4.4–0.5.23; the module docstring)"""

_MEMORY_KINDS = ("cuda_oom", "no_kv_memory", "kv_budget_non_positive", "kv_too_small", "host_oom_killed")
"""reader kinds (``logs.failures.KINDS``) that are a lack of memory: any of them keeps the OOM reading"""


def weights_error_not_memory(parsed) -> tuple[str, None, list] | None:
    """(cause, short, fixes) for a weight-phase failure the log shows is not a lack of memory on this rank; else None
    (the OOM reading stays)."""
    failures = list(getattr(parsed, "failures", ()) or ())
    if not failures or any(f.kind in _MEMORY_KINDS for f in failures):
        return None
    for f in failures:
        for text in (f.detail, f.evidence):
            if text and (m := LOAD_SYNC.search(text)):
                return _load_sync_cause(m.group(1)), None, []
    root = pool_error_not_memory(parsed, "weights")
    if root is None:
        return None
    return (f"loading the weights failed with {root}, which is not a lack of memory (no failure of the run is an "
            "out-of-memory and none mentions memory): more GPUs, fp8 weights or another --mem-fraction-static would "
            "not help; the exception names what to fix"), None, []


def _load_sync_cause(rank: str) -> str:
    return (f"TP rank {rank} finished loading its weights, but another rank did not within SGLang's load-sync wait "
            "(ModelRunner.load_model's monitored barrier, SGLang 0.4.4+): the failure is that other rank's, and its "
            "error is not in this log. SGLang guesses an out-of-memory or a slow node; nothing here says which, so no "
            "memory fix is planned: read the other ranks' output (the first rank that raised an error names the "
            "cause)")
