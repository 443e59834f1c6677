"""Pure memory planning: the ledger, the KV-pool plan and the plan result (no torch).

The names below are imported on first use, so a module that needs only the KV-pool types (``tpkit explain``
through ``engines.sglang.pool``) does not compile the ledger, the plan result and the band.
"""

import importlib

__all__ = ["Ledger", "LineItem", "KVBuffer", "KVPoolPlan", "PlanResult", "Verdict"]

_HOME = {"Ledger": "ledger", "LineItem": "ledger", "KVBuffer": "kvpool", "KVPoolPlan": "kvpool",
         "PlanResult": "result", "Verdict": "result"}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
