"""Pure memory planning: the ledger, the KV-pool plan and the plan result (no torch).

The names below are imported on first use, so a module that needs only the KV-pool types (``tpkit explain``
through ``engines.sglang.pool``) does not compile the ledger, the plan result and the band.
"""

from tpkit.lazy import lazy_getattr

__all__ = ["Ledger", "LineItem", "KVBuffer", "KVPoolPlan", "PlanResult", "Verdict"]

_HOME = {"Ledger": "ledger", "LineItem": "ledger", "KVBuffer": "kvpool", "KVPoolPlan": "kvpool",
         "PlanResult": "result", "Verdict": "result"}


__getattr__ = lazy_getattr(__name__, _HOME)
