"""``tpkit.perf``: decode speed of a tensor-parallel deployment and whether speculative decoding pays (pure).

    in:  ModelSpec, GpuSpec, TP / link / batch / context, engine, speculative settings, an optional
         measured all-reduce profile
    out: ``PerfResult`` (plain step and tok/s, every collective costed, speculative cycle and speed-up by
         batch, crossover batch, best settings, all-reduce backends, a verdict in the engine's flags)

Modules, in call order:

    constants   every number the model uses, with unit, source and confidence
    device      GPU datasheet rates × measured efficiencies
    impl        kernel layout of the implementation (reference bench, SGLang, vLLM)
    runtime     engine facts by version, GPU and backend: overlap under speculation, CUDA-graph coverage,
                the verify pass's attention path (``Runtime``, version parsing, default backends); the facts
                per engine with their sources in ``runtime_sglang`` and ``runtime_vllm``
    graphs      SGLang's decode CUDA-graph batch sizes per release: a pass runs at the next captured size
                (the padded rows run the GEMMs, not the attention), or without a graph above the largest
    experts     expected distinct routed experts for T tokens
    work        the kernels of one forward on one rank (bytes, FLOPs)
    forward     kernels through a roofline → µs
    calls       collectives per forward from the model's structure
    allreduce   one collective's cost: measured profile → shipped profile → analytical NVLink/PCIe model
    policy      all-reduce backends as engines run them (nccl, custom, oneshot, symm_mem)
    accept      acceptance length of a draft chain/tree
    spec        draft models and speculative settings
    plan        ``plan_perf(PerfRequest) -> PerfResult``
    workload    a closed-loop benchmark's tok/s: client threads over multi-turn requests, prefills and the tail at
                falling concurrency, on the plain step and the speculative cycle at every concurrency
    verdict     the answer in engine flags; confidence of each number
    result      frozen results and their JSON form

Imports: units, errors, hardware, models, parallel and ``tpkit.comm.profile``, plus two pure engine rules shared with
the planner (``engines.sglang.spec``: the speculative running-request cap; ``engines.sglang.defaults``: the default
``cuda_graph_max_bs``); never torch.  (``runtime`` encodes facts read in the engines' sources; it never imports an
engine.)
"""

from tpkit.perf.plan import PerfRequest, plan_perf
from tpkit.perf.result import PerfResult
from tpkit.perf.spec import SpecSettings

__all__ = ["PerfRequest", "PerfResult", "SpecSettings", "plan_perf"]
