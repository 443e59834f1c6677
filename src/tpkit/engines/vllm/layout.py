"""vLLM's parallel flags → the layout one rank sees (vLLM ≤ 0.33; sources below).

- ``--data-parallel-size N`` is tpkit's ``--dp N``: N engine cores, each with its own scheduler, KV pool and
  "GPU KV cache size" line (every DP rank is planned alike; the tightest GPU decides with ``--machine``).
- ``--enable-expert-parallel``: MoE layers use ``FusedMoEParallelConfig.make``
  (``model_executor/layers/fused_moe/config.py``): EP size = tp × dp, one expert shard per rank
  (E / (tp·dp) experts, unsplit); attention and dense layers stay TP-sharded and are replicated over DP.
  Without it, vLLM tensor-shards the experts over tp × dp (``FusedMoEParallelConfig.make`` →
  ``flatten_tp_across_dp_and_pcp``: "There are 2 engine instances and the tensors are sharded across 2 devices";
  read in the 0.14.1, 0.19.0, 0.29.0 and 0.33.0 wheels): ``ParallelSpec.expert_tp`` = tp × dp, which the weights
  plan and the MXFP4 padding use (helper mv7, 2026-12-04; before, the experts were split over tp only and the
  per-rank expert bytes were high by a factor dp: vp_198, gpt-oss-20b dp 4 on L4s).
- ``--decode-context-parallel-size D`` (≥ 0.10.2; ``config/parallel.py``): D TP ranks share one request's
  KV, each keeping every D-th token; ``tp % D == 0``; KV heads per rank unchanged; sliding-window layers
  refuse it (``SlidingWindowSpec.max_memory_usage_bytes`` asserts "DCP not support sliding window").
- Notes on flags the plan takes that change nothing (``--enable-expert-parallel`` on a dense model) or that vLLM
  refuses at start-up on this GPU with the memory unchanged (``--dtype bfloat16`` below SM 8.0; helper ux24).
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.versions import VllmRules
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec

__all__ = ["resolve_parallel", "resolve_dcp", "dense_expert_parallel_note", "bf16_before_ampere_note"]


def resolve_parallel(parallel: ParallelSpec, options: VllmOptions, model: ModelSpec, *,
                     machine: bool = False) -> ParallelSpec:
    """The layout with vLLM's ``--data-parallel-size`` and ``--enable-expert-parallel`` applied."""
    if parallel.pp > model.num_layers:  # checked first: per-stage data is built from pp
        raise PlanInputError(f"--pp {parallel.pp} exceeds the model's {model.num_layers} layers: a pipeline stage "
                             f"would hold no layer; use --pp ≤ {model.num_layers}")
    dp = parallel.dp
    if options.data_parallel_size is not None:
        if parallel.dp not in (1, options.data_parallel_size):
            raise PlanInputError(f"--dp {parallel.dp} and --data-parallel-size {options.data_parallel_size} "
                                 "disagree; they are the same setting, pass one of them")
        if machine and parallel.dp != options.data_parallel_size:
            raise PlanInputError(f"with --machine, give the data-parallel size as --dp {options.data_parallel_size}: "
                                 "tpkit picks the machine's GPUs (tp × pp × dp) from --dp before vLLM's flags "
                                 "are read")
        dp = options.data_parallel_size
    ep = parallel.ep
    if options.enable_expert_parallel and model.moe is not None:
        if parallel.ep not in (1, parallel.tp * dp):
            raise PlanInputError(f"--enable-expert-parallel shards the experts over tp × dp = {parallel.tp * dp} "
                                 f"ranks, but --ep is {parallel.ep}; drop --ep (vLLM has no separate EP size)")
        ep = parallel.tp * dp
    # without expert parallelism the experts are tensor-sharded over tp × dp (module docstring)
    expert_tp = parallel.tp * dp if model.moe is not None and dp > 1 and ep == 1 else parallel.expert_tp
    if (dp, ep, expert_tp) == (parallel.dp, parallel.ep, parallel.expert_tp):
        return parallel
    return replace(parallel, dp=dp, ep=ep, expert_tp=expert_tp)


def resolve_dcp(options: VllmOptions, parallel: ParallelSpec, kinds: tuple[str, ...], rules: VllmRules) -> int:
    """The decode-context-parallel size, checked against the release, --tp and the model's layers."""
    dcp = options.decode_context_parallel_size or 1
    if dcp == 1:
        return 1
    if not rules.dcp:
        raise PlanInputError(f"--decode-context-parallel-size does not exist in vLLM {rules.label} (it arrived in "
                             "0.10.2); drop it or plan a newer --engine-version")
    if parallel.tp % dcp:
        divisors = ", ".join(str(d) for d in range(1, parallel.tp + 1) if parallel.tp % d == 0)
        raise PlanInputError(f"--decode-context-parallel-size {dcp} must divide --tp {parallel.tp} (DCP reuses the "
                             f"TP ranks); use one of {divisors}")
    if "sliding" in kinds:
        raise PlanInputError("--decode-context-parallel-size: vLLM does not support DCP with sliding-window "
                             "layers ('DCP not support sliding window'); drop it for this model")
    return dcp


def dense_expert_parallel_note(options: VllmOptions, model: ModelSpec) -> tuple[str, ...]:
    """``--enable-expert-parallel`` on a model without MoE layers: vLLM reads the flag only where it builds a
    ``FusedMoE`` layer (``model_executor/layers/fused_moe/config.py`` ``FusedMoEParallelConfig.make``, read in the
    0.14.1, 0.19.0, 0.29.0 and 0.33.0 wheels as the module docstring says),
    so a dense model is laid out and sized as without it.  Said, so a user does not read an unchanged plan as the
    flag being dropped (helper ux24)."""
    if not options.enable_expert_parallel or model.moe is not None:
        return ()
    return ("--enable-expert-parallel: this model has no MoE (expert) layers, and vLLM applies the flag only to its "
            "FusedMoE layers (fused_moe/config.py FusedMoEParallelConfig.make), so it changes nothing here: the plan "
            "is the same as without it (drop it, or plan a MoE model)",)


def bf16_before_ampere_note(options: VllmOptions, gpu: GpuSpec, model=None) -> tuple[str, ...]:
    """``--dtype bfloat16`` on a GPU below compute capability 8.0 (T4, V100, Quadro RTX, RTX 20xx): vLLM refuses it
    when the worker starts ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0 … You can use
    float16 instead …": ``worker/worker.py`` ``_check_if_gpu_supports_dtype`` in the V0 releases, the CUDA
    platform's ``check_if_supports_dtype`` in V1).  float16 has the same 2 bytes per element, so the plan's numbers
    hold for ``--dtype half``; the note says which flag to serve with.

    With ``--dtype auto`` (or none) and a bfloat16 checkpoint vLLM casts instead: ``_resolve_auto_dtype``
    (config/model.py; config.py in 0.9.1, the first release read with it — 0.8.5's ``_get_and_verify_dtype`` keeps a
    bf16 config's dtype, which the worker then refuses —; 0.28.0 read) takes the checkpoint's dtype only when the platform lists it, and CUDA's
    ``supported_dtypes`` (platforms/cuda.py) is [float16, float32] from compute capability 6.0 to 7.x, so the model
    is served in float16 with the warning "Your device … doesn't support torch.bfloat16. Falling back to
    torch.float16 for compatibility."; the memory is the same 2 bytes per element, said so the user knows which
    dtype runs (helper ux25; ux24's question)."""
    cc = gpu.compute_capability
    if cc is None or cc >= (8, 0):
        return ()
    checkpoint = str(getattr(model, "torch_dtype", "") or "").lower().replace("torch.", "")
    if (options.dtype or "auto").lower() == "auto" and checkpoint in ("bfloat16", "bf16"):
        from tpkit.engines import release_tuple

        release = release_tuple(str(options.engine_version).split(":")[0]) if options.engine_version else None
        if release is not None and release < (0, 9, 1):  # 0.8.5 _get_and_verify_dtype keeps a bf16 config's dtype
            return (f"{gpu.name} (compute capability {cc[0]}.{cc[1]}) has no bfloat16, and vLLM "
                    f"{str(options.engine_version).split(':')[0]} keeps this checkpoint's bfloat16 under --dtype auto, so the worker "
                    "refuses it at start-up ('Bfloat16 is only supported on GPUs with compute capability of at least "
                    "8.0'); serve with --dtype half (float16: the same 2 bytes per element, so this plan's numbers "
                    "hold)",)
        return (f"{gpu.name} (compute capability {cc[0]}.{cc[1]}) has no bfloat16: with --dtype auto vLLM serves this "
                "bfloat16 checkpoint in float16 ('Your device … doesn't support torch.bfloat16. Falling back to "
                "torch.float16 for compatibility.'; config/model.py _resolve_auto_dtype), the same 2 bytes per "
                "element, so this plan's memory holds; pass --dtype half to say so yourself",)
    if (options.dtype or "").lower() not in ("bfloat16", "bf16"):
        return ()
    return (f"--dtype {options.dtype} on {gpu.name} (compute capability {cc[0]}.{cc[1]}): vLLM refuses it at "
            "start-up ('Bfloat16 is only supported on GPUs with compute capability of at least 8.0'); serve with "
            "--dtype half (float16: the same 2 bytes per element, so this plan's numbers hold)",)
