"""What a vision-language model changes in SGLang's sizing (issue 11 rule 2; pure).

    default fraction   f × 0.95 × clamp(1 − 0.1 × (L·H² / (24·1024²) − 1), 0.8, 1.05), not rounded again
                       (``defaults.vlm_fraction_factor``; 0.4.10+, none in 0.4.6 and earlier)
    prefill graphs     off for multimodal models not on the breakable-graph list (``graphs.prefill_graphs``)
    KV budget          from 0.5.18 the multimodal caches allocated after the pool are reserved out of the KV
                       budget: ``SGLANG_VLM_CACHE_SIZE_MB`` (100) + ``SGLANG_MM_FEATURE_CACHE_MB`` (1024) when the
                       feature transport is CUDA IPC (0.5.18 ``mem_cache/kv_cache_configurator.py
                       mm_runtime_reservation_gb``).  From 0.5.20 Qwen3-VL on an SM90 GPU with ≥ 60 GiB turns
                       the VLM cache off and the CUDA-IPC transport on (one node), and raises the feature cache
                       to 3072 MiB with ``--max-running-requests`` ≥ 400
                       (``arg_groups/model_overrides/qwen3_vl.py _qwen3vl_hopper_serving_overrides``); the same
                       override raises the decode graph max bs to ``--max-running-requests`` (≤ 512).
    feature transport  ``--mm-feature-transport`` (0.5.16+; absent from 0.5.15, which has only the
                       ``SGLANG_USE_CUDA_IPC_TRANSPORT`` variable): unset resolves to cpu in 0.5.16 and 0.5.18+
                       (0.5.18 / 0.5.19 ``server_args.py``: cuda_vmm only for validated multi-node GB200/GB300
                       MNNVL, not modelled), and to cuda_ipc on one CUDA node in 0.5.17 (``server_args.py
                       _handle_multimodal_feature_transport``, "Auto policy: single-node CUDA serving defaults to the
                       bounded CUDA-IPC pool").  With cuda_ipc before 0.5.18 the tokenizer manager's processor
                       allocates the ``SGLANG_MM_FEATURE_CACHE_MB`` (1024 MiB) pool on the base GPU
                       (``multimodal/processors/base_processor.py`` → ``utils/cuda_ipc_transport_utils.py
                       MmItemMemoryPool``; the scheduler's own processor skips it) while the scheduler starts: the
                       engine initialises the tokenizer manager before it waits for the scheduler to be ready
                       (``entrypoints/engine.py _launch_subprocesses``, 0.5.17), so the pool is on the GPU when the
                       KV pool is sized after the weight load; tpkit takes it from the KV budget (helper sgf14).
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import GpuSpec, is_nvidia
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, MiB

__all__ = ["VLM_CACHE_MIB", "FEATURE_CACHE_MIB", "mm_reservation", "large_hopper_qwen3_vl", "multimodal_runner_factor",
           "MM_TRANSPORTS", "MM_TRANSPORT_FROM", "CUDA_VMM_FROM", "IPC_DEFAULT_RELEASES", "resolved_transport"]

VLM_CACHE_MIB = 100
"""``SGLANG_VLM_CACHE_SIZE_MB`` default (environ.py)"""
FEATURE_CACHE_MIB = 1024
"""``SGLANG_MM_FEATURE_CACHE_MB`` default (environ.py)"""
_QWEN3_VL_TYPES = frozenset({"qwen3_vl", "qwen3_vl_moe"})
MM_TRANSPORTS = ("cpu", "cuda_ipc", "cuda_vmm")
"""``--mm-feature-transport`` choices (0.5.16 – 0.5.17: cpu / cuda_ipc; 0.5.18 – 0.5.19: + cuda_vmm)"""
MM_TRANSPORT_FROM = "0.5.16"
"""first release with ``--mm-feature-transport`` (absent from the 0.5.15 ``server_args.py``)"""
CUDA_VMM_FROM = "0.5.18"
"""first release whose ``--mm-feature-transport`` offers cuda_vmm (0.5.17: ``Literal["cpu", "cuda_ipc"]``)"""
IPC_DEFAULT_RELEASES = ("0.5.17",)
"""releases whose unset ``--mm-feature-transport`` resolves to cuda_ipc on one CUDA node (0.5.16 and 0.5.18 – 0.5.19:
cpu)"""


def resolved_transport(version: str, flag: str | None, *, nnodes: int = 1, cuda: bool = True) -> tuple[str, str]:
    """(the feature transport SGLang ``version`` runs with, why): ``flag`` when given; else cuda_ipc in 0.5.17 on
    one CUDA node (``is_cuda()``: an NVIDIA GPU, not ROCm), cpu otherwise (``_handle_multimodal_feature_transport``;
    PD disaggregation and encoder-only serving, also cpu there, are not tpkit inputs)."""
    if flag is not None:
        return flag, f"--mm-feature-transport {flag}"
    if version in IPC_DEFAULT_RELEASES and nnodes == 1 and cuda:
        return "cuda_ipc", f"--mm-feature-transport unset: cuda_ipc on one CUDA node (SGLang {version}'s auto policy)"
    return "cpu", "--mm-feature-transport unset: cpu"


def large_hopper_qwen3_vl(model: ModelSpec, gpu_mem_mib: float, gpu: GpuSpec, version: str) -> bool:
    """SGLang 0.5.20+'s profiled Qwen3-VL serving path: SM90, ≥ 60 GiB (nvidia-smi MiB), Qwen3-VL wrapper."""
    return (at_least(version, "0.5.20") and model.is_multimodal
            and model.extra.get("wrapper_model_type") in _QWEN3_VL_TYPES
            and gpu.compute_capability is not None and gpu.compute_capability[0] == 9 and gpu_mem_mib >= 60 * 1024)


def mm_reservation(model: ModelSpec, gpu: GpuSpec, gpu_mem_mib: float, version: str,
                   max_running_requests: int | None, *, language_model_only: bool = False,
                   transport: str | None = None, nnodes: int = 1) -> tuple[Bytes, str]:
    """(bytes reserved out of the KV budget for the multimodal caches, why); 0 for text models and < 0.5.18.
    ``--language-model-only`` from 0.5.20 makes ``ModelConfig.is_multimodal`` False (``configs/model_config.py``
    ``is_lm_only``), which ``mm_runtime_reservation_gb`` reads: nothing reserved; in 0.5.18 ``is_multimodal`` is
    computed before the flag reaches the HF config, so the reservation stays (0.5.19 not read).
    ``transport``: ``--mm-feature-transport`` (None: unset, ``resolved_transport``); a GPU transport adds the
    1024 MiB feature pool: before 0.5.18 allocated by the tokenizer manager before the pool is sized, from 0.5.18
    in ``mm_runtime_reservation_gb`` (cuda_ipc / cuda_vmm, 0.5.19 ``mem_cache/kv_cache_configurator.py``)."""
    if not model.is_multimodal:
        return MiB(0), ""
    if language_model_only and at_least(version, "0.5.20"):
        return MiB(0), "--language-model-only: ModelConfig.is_multimodal False, no multimodal cache reserved"
    mode, why = resolved_transport(version, transport, nnodes=nnodes, cuda=is_nvidia(gpu.vendor))
    gpu_pool = mode in ("cuda_ipc", "cuda_vmm")
    if not at_least(version, "0.5.18"):
        if gpu_pool and at_least(version, MM_TRANSPORT_FROM):
            return MiB(FEATURE_CACHE_MIB), (
                f"{why}: the tokenizer manager's CUDA-IPC feature pool, SGLANG_MM_FEATURE_CACHE_MB "
                f"{FEATURE_CACHE_MIB} MiB on the base GPU, allocated while the scheduler starts, before the KV pool "
                f"is sized (SGLang {version} entrypoints/engine.py _launch_subprocesses, "
                "multimodal/processors/base_processor.py MmItemMemoryPool)")
        return MiB(0), f"SGLang {version} allocates the multimodal caches after the pool, from the slack"
    if transport in (None, "cuda_ipc") and large_hopper_qwen3_vl(model, gpu_mem_mib, gpu, version):
        # the 0.5.20 override's own transport; an explicit cpu is taken as the user's (the override not re-read)
        feature = 3 * 1024 if max_running_requests is not None and max_running_requests >= 400 else FEATURE_CACHE_MIB
        return MiB(feature), (f"Qwen3-VL on a large Hopper GPU: VLM cache 0, CUDA-IPC feature cache {feature} MiB "
                              "(SGLANG_MM_FEATURE_CACHE_MB) reserved out of the KV budget")
    if gpu_pool:
        return MiB(VLM_CACHE_MIB + FEATURE_CACHE_MIB), (
            f"SGLANG_VLM_CACHE_SIZE_MB {VLM_CACHE_MIB} MiB + {why}: SGLANG_MM_FEATURE_CACHE_MB {FEATURE_CACHE_MIB} MiB "
            "reserved out of the KV budget (kv_cache_configurator.py mm_runtime_reservation_gb)")
    return MiB(VLM_CACHE_MIB), f"SGLANG_VLM_CACHE_SIZE_MB {VLM_CACHE_MIB} MiB reserved out of the KV budget"


def multimodal_runner_factor(version: str) -> tuple[float, str] | None:
    """The factor ``ModelRunner.__init__`` applies to ANY fraction (the user's too) of a multimodal model before
    0.4.9: × 0.95 in 0.2.15–0.4.4, × 0.90 in 0.4.5–0.4.8 (``model_executor/model_runner.py``, "Automatically
    reduce --mem-fraction-static … because this is a multimodal model"); None from 0.4.9, where ``server_args.py``
    scales the default only."""
    if at_least(version, "0.4.9"):
        return None
    factor = 0.90 if at_least(version, "0.4.5") else 0.95
    return factor, f"multimodal × {factor:.2f} (SGLang {version} ModelRunner, any fraction)"
