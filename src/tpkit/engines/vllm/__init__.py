"""vLLM memory policy (pure): budget, profile-run estimate, CUDA-graph estimate, KV pages and blocks.

    plan_vllm(model, gpu, parallel, VllmOptions(...), machine=None, weights=None) -> PlanResult

Modules, in vLLM's start-up order: ``versions`` (rule sets as data), ``options``/``inputs`` (flags and
defaults), ``baseline`` (start-up memory at the init snapshot), ``profile`` (activation peak estimate),
``graphs`` (CUDA-graph estimate), ``budget`` (requested and available KV bytes, ledger), ``pages`` (page sizes,
groups), ``capacity`` (blocks, printed tokens, fit check), ``verdict`` and ``logs`` (vLLM's words).
"""

from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.policy import plan_vllm, rotary_cache_bytes
from tpkit.engines.vllm.versions import CURRENT, RULES, resolve_rules

__all__ = ["plan_vllm", "VllmOptions", "resolve_rules", "RULES", "CURRENT", "rotary_cache_bytes"]
