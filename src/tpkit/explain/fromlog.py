"""``tpkit plan --from-log LOG``: the log's measured start-up terms replace the catalog's (pure).

The planner's start-up terms are estimates with a band (``tpkit.memory.band``); a term the log measured is
handed to the planner through ``measured_terms`` and has no band.  What SGLang's log measures:

    term               from the log                                            SGLang, same GPU, any layout
    cuda_context       device total − pre_model_load_memory − distributed init  context + process overhead
    nccl_init          'Init torch distributed ends. mem usage'                 NCCL + custom all-reduce + init
    nccl_warmup, custom_allreduce, process_overhead      0 (inside the two above)
    weights            'Load weight end. mem usage'                              only for the log's tp/pp/quant

vLLM's log measures the weights ('Model loading took'), the activation peak and the CUDA-graph estimate
when it prints them (V0 0.7–0.10, DEBUG, ≥ 0.21); its start-up terms stay the planner's.  The distributed-init
term was measured at the log's TP size: planning another TP re-uses it (NCCL buffers grow a little with peers).
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.explain.result import Explanation
from tpkit.units import Bytes

__all__ = ["MeasuredStartup", "measured_startup"]


@dataclass(frozen=True, kw_only=True, slots=True)
class MeasuredStartup:
    terms: dict
    """term → Bytes (``tpkit.memory.band.measured_terms``)"""
    notes: tuple[str, ...]
    layout: dict
    """the log's tp, pp, quantization, model: the conditions under which the weights were measured"""


def _mid(iv) -> Bytes | None:
    return None if iv is None else Bytes(max(iv.mid.bytes, 0))


def measured_startup(e: Explanation, *, gpu_total: Bytes | None = None) -> MeasuredStartup:
    """The start-up terms the log measured, for a plan on ``gpu_total`` (the plan's GPU)."""
    a, ctx, terms, notes = e.anchored, e.context, {}, []
    layout = {"tp": ctx.get("tp", 1), "pp": ctx.get("pp", 1), "quantization": ctx.get("quantization"),
              "model": getattr(ctx.model, "name", None)}
    if ctx.engine == "sglang" and a is not None and a.pre is not None:
        total = gpu_total or a.device_total
        if total is not None:
            init = a.init_dist.mid if a.init_dist is not None else Bytes(0)
            # 'Load weight begin' misses the stream pool SGLang 0.5.9+ takes after its pre sample at world size 1;
            # the plan charges that pool itself (engines.sglang.streams), so it is not part of the context here
            stream = a.stream_pool.mid if a.stream_pool is not None else Bytes(0)
            context = total - a.pre.mid - init - stream
            if context.bytes >= 0:
                terms.update(cuda_context=context, nccl_init=init, nccl_warmup=Bytes(0),
                             custom_allreduce=Bytes(0), process_overhead=Bytes(0))
                notes.append(f"start-up terms measured in the log: CUDA context + process {context.gib:.2f} GiB "
                             f"(device total − pre_model_load_memory − distributed init), distributed init "
                             f"{init.gib:.2f} GiB at tp {layout['tp']}")
            else:
                notes.append("the log's pre-load memory is larger than this GPU's total: the log's start-up terms "
                             "are not used (another GPU?)")
        if a.weights is not None:
            terms["weights"] = _mid(a.weights)
    elif ctx.engine == "vllm" and a is not None:
        if a.weights is not None:
            terms["weights"] = _mid(a.weights)
        view_rows = {r.item: r for r in a.rows}
        act = view_rows.get("activation peak (profile run)")
        if act is not None and act.value is not None:
            terms["activation_peak"] = _mid(act.value)
        if a.graph_estimate is not None:
            terms["cuda_graphs"] = _mid(a.graph_estimate)
        notes.append("vLLM: the weights" + (", activation peak" if "activation_peak" in terms else "")
                     + (", CUDA-graph estimate" if "cuda_graphs" in terms else "")
                     + " measured in the log; the start-up terms stay the planner's")
    return MeasuredStartup(terms={k: v for k, v in terms.items() if v is not None}, notes=tuple(notes), layout=layout)
