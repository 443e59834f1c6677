"""Notes on vLLM flags that a plan takes but that change nothing, or that vLLM itself refuses at start-up on this
GPU while the memory plan stays the same (pure; helper ux24, session 24).  Each returns a tuple of warning lines."""

from __future__ import annotations

from tpkit.engines.vllm.options import VllmOptions
from tpkit.hardware.gpu import GpuSpec
from tpkit.models.spec import ModelSpec

__all__ = ["dense_expert_parallel_note", "bf16_before_ampere_note"]


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


def bf16_before_ampere_note(options: VllmOptions, gpu: GpuSpec) -> tuple[str, ...]:
    """``--dtype bfloat16`` on a GPU below compute capability 8.0 (T4, V100, Quadro RTX, RTX 20xx): vLLM refuses it
    when the worker starts ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0 … You can use
    float16 instead …": ``worker/worker.py`` ``_check_if_gpu_supports_dtype`` in the V0 releases, the CUDA
    platform's ``check_if_supports_dtype`` in V1).  float16 has the same 2 bytes per element, so the plan's numbers
    hold for ``--dtype half``; the note says which flag to serve with."""
    cc = gpu.compute_capability
    if (options.dtype or "").lower() not in ("bfloat16", "bf16") or cc is None or cc >= (8, 0):
        return ()
    return (f"--dtype {options.dtype} on {gpu.name} (compute capability {cc[0]}.{cc[1]}): vLLM refuses it at "
            "start-up ('Bfloat16 is only supported on GPUs with compute capability of at least 8.0'); serve with "
            "--dtype half (float16: the same 2 bytes per element, so this plan's numbers hold)",)
