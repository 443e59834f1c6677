"""Pure memory planning: the ledger, the KV-pool plan and the plan result (no torch)."""

from tpkit.memory.ledger import Ledger, LineItem
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan
from tpkit.memory.result import PlanResult, Verdict

__all__ = ["Ledger", "LineItem", "KVBuffer", "KVPoolPlan", "PlanResult", "Verdict"]
