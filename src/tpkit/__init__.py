"""tpkit: the memory and communication core of tensor-parallel LLM serving.

The planner path (``units``, ``hardware``, ``models``, ``startup``, ``engines``, ``memory``, ``cli plan``)
never imports torch; see ``src/tpkit/README.md`` for the layer map.  The public API below is imported on
first use, so ``import tpkit`` stays cheap::

    from tpkit import ParallelSpec, get_engine, load_model, lookup_gpu
    engine = get_engine("vllm")
    result = engine.plan(load_model("meta-llama/Llama-3.1-8B-Instruct"), lookup_gpu("H100"),
                         ParallelSpec(tp=2), engine.options(max_model_len=8192))
"""

from tpkit.lazy import lazy_getattr

__version__ = "0.1.0"

_HOME = {
    "Bytes": "units", "parse_bytes": "units", "format_bytes": "units",
    "TpkitError": "errors", "ParallelSpec": "parallel",
    "load_model": "models.load", "ModelSpec": "models.spec",
    "lookup_gpu": "hardware.catalog", "GpuSpec": "hardware.gpu",
    "Engine": "engines.engine", "get_engine": "engines.registry", "engine_names": "engines.registry",
    "SglangOptions": "engines.sglang.options", "plan_sglang": "engines.sglang.policy",
    "VllmOptions": "engines.vllm.options", "plan_vllm": "engines.vllm.policy",
    "PlanResult": "memory.result", "Ledger": "memory.ledger", "LineItem": "memory.ledger",
}
"""public name → the module that defines it (relative to ``tpkit``)"""

__all__ = ["__version__", *_HOME]


__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
