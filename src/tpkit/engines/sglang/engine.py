"""SGLang as a tpkit engine: ``SglangOptions`` and ``plan_sglang`` (imported when a plan is asked for)."""

from __future__ import annotations

from tpkit.engines.engine import Engine
from tpkit.engines.sglang.options import SglangOptions

__all__ = ["ENGINE"]


def _plan(model, gpu, parallel, options, *, machine=None, extra_uses=()):
    from tpkit.engines.sglang.policy import plan_sglang

    return plan_sglang(model, gpu, parallel, options, machine=machine, extra_uses=extra_uses)


ENGINE = Engine(name="sglang", label="SGLang", options=SglangOptions, plan=_plan,
                summary="SGLang's pre_model_load_memory, mem_fraction_static and token pool")
