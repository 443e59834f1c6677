"""tpkit: the memory and communication core of tensor-parallel LLM serving.

The planner path (``units``, ``hardware``, ``models``, ``startup``, ``engines``, ``memory``, ``cli plan``)
never imports torch; see ``src/tpkit/README.md`` for the layer map.  The public API below is imported on
first use, so ``import tpkit`` stays cheap::

    from tpkit import ParallelSpec, get_engine, load_model, lookup_gpu
    engine = get_engine("vllm")
    result = engine.plan(load_model("meta-llama/Llama-3.1-8B-Instruct"), lookup_gpu("H100"),
                         ParallelSpec(tp=2), engine.options(max_model_len=8192))
"""

import importlib

__version__ = "0.1.0"

_HOME = {
    "Bytes": "tpkit.units", "parse_bytes": "tpkit.units", "format_bytes": "tpkit.units",
    "TpkitError": "tpkit.errors", "ParallelSpec": "tpkit.parallel",
    "load_model": "tpkit.models.load", "ModelSpec": "tpkit.models.spec",
    "lookup_gpu": "tpkit.hardware.catalog", "GpuSpec": "tpkit.hardware.gpu",
    "Engine": "tpkit.engines.engine", "get_engine": "tpkit.engines.registry", "engine_names": "tpkit.engines.registry",
    "SglangOptions": "tpkit.engines.sglang.options", "plan_sglang": "tpkit.engines.sglang.policy",
    "VllmOptions": "tpkit.engines.vllm.options", "plan_vllm": "tpkit.engines.vllm.policy",
    "PlanResult": "tpkit.memory.result", "Ledger": "tpkit.memory.ledger", "LineItem": "tpkit.memory.ledger",
}
"""public name → the module that defines it"""

__all__ = ["__version__", *_HOME]


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module 'tpkit' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)


def __dir__() -> list[str]:
    return sorted(__all__)
