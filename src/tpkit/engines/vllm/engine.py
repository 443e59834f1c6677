"""vLLM as a tpkit engine: ``VllmOptions`` and ``plan_vllm`` (imported when a plan is asked for)."""

from __future__ import annotations

from tpkit.engines.engine import Engine
from tpkit.engines.vllm.options import VllmOptions

__all__ = ["ENGINE"]


def _plan(model, gpu, parallel, options, *, machine=None, extra_uses=(), others_growth=None):
    from tpkit.engines.vllm.policy import plan_vllm

    if others_growth is None:
        return plan_vllm(model, gpu, parallel, options, machine=machine, extra_uses=extra_uses)
    return plan_vllm(model, gpu, parallel, options, machine=machine, extra_uses=extra_uses, others_growth=others_growth)


ENGINE = Engine(name="vllm", label="vLLM", options=VllmOptions, plan=_plan,
                summary="vLLM's gpu_memory_utilization budget, profile run and KV blocks")
