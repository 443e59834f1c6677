"""``PerfRequest``: what ``plan_perf`` is asked, and its checks (pure; split from ``perf.plan``).

    in:  the model, GPU, TP/EP/DP, link, batch, context, engine and speculative settings
    out: a frozen request, refused with ``PlanInputError`` (the flag, the value, the fix) where it cannot be answered
"""

from __future__ import annotations

import math

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:  # types only: tpkit.comm.profile loads when a profile file is given
    from tpkit.comm.profile import BenchProfile
    from tpkit.perf.spec import SpecSettings

__all__ = ["PerfRequest", "check_request", "kv_bytes_of"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PerfRequest:
    """What to predict."""

    model: ModelSpec
    """the target model"""
    gpu: GpuSpec
    """catalog GPU (needs bandwidth and TFLOP/s)"""
    tp: int = 1
    """tensor-parallel size (count)"""
    ep: int = 1
    """expert-parallel size (count)"""
    dp_attention: int = 1
    """DP-attention groups (SGLang --enable-dp-attention --dp N); 1 = off"""
    num_gpus: int | None = None
    """GPUs on the machine (count; default tp)"""
    link: str | None = None
    """``nvlink``, ``xgmi`` (AMD Instinct Infinity Fabric mesh) or ``pcie``; None = NVLink when the GPU has it, the
    xGMI mesh when the catalog GPU has one, else PCIe (``plan.default_link_kind``)"""
    batch: int = 1
    """sequences decoded together (count)"""
    context: int = 1024
    """tokens already in each sequence's KV cache (count)"""
    engine: str = "sglang"
    """``sglang`` or ``vllm`` (flags and kernel layout)"""
    impl: str | None = None
    """kernel layout profile (default: the engine's; ``reference`` for bench/decode_reference.py)"""
    spec: SpecSettings | None = None
    """speculative settings; None = plain decoding only"""
    draft: ModelSpec | None = None
    """the draft model (STANDALONE, or an EAGLE head given by path)"""
    draft_path: str | None = None
    """--speculative-draft-model-path as given (echoed in the flags)"""
    accept_length: float | None = None
    """measured accepted tokens per cycle; None = per-family default"""
    backend: str | None = None
    """force an all-reduce policy (nccl, custom, oneshot, symm_mem); None = the engine's default"""
    profile: BenchProfile | None = None
    """measured all-reduce profile"""
    profile_name: str = ""
    """its file name"""
    fabric_gbps: float | None = None
    """PCIe host-fabric aggregate bandwidth (GB/s); None = published default"""
    p2p: bool | None = None
    """CUDA peer access between the TP group's GPUs over PCIe (``--p2p`` / ``--no-p2p``); None = the GPU catalog's
    ``pcie_p2p`` fact (none on GeForce boards and the cloud A10 / A10G / L4 / T4); NVLink and xGMI meshes have it"""
    kv_cache_dtype: str = "auto"
    """``auto`` (the checkpoint's: fp8 if it asks for it, else bf16), ``bf16`` or ``fp8``"""
    engine_version: str | None = None
    """engine version (``0.5.10``, ``0.21.0``); None = the newest version whose sources tpkit read"""
    attention_backend: str | None = None
    """the engine's attention backend (its own spelling); None = the engine's default for this GPU and model"""
    eager: bool = False
    """no CUDA graphs (SGLang --disable-cuda-graph, vLLM --enforce-eager)"""
    sglang_spec_v2: bool | None = None
    """SGLang spec v2 (SGLANG_ENABLE_SPEC_V2=1: the overlapped draft worker) on/off; None = the release's default"""
    nvfp4_gemm_backend: str | None = None
    """vLLM's VLLM_NVFP4_GEMM_BACKEND (``perf.fp4_backend``): ``marlin`` runs NVFP4 weights as W4A16 (bf16 rate);
    None = the engine's own choice for the GPU"""
    max_running_requests: int | None = None
    """SGLang --max-running-requests (count, whole server): caps plain and speculative decoding alike; None = the
    release's default: no cap for plain decoding, the speculative cap under speculation (32 or 48,
    ``engines.sglang.spec.spec_running_cap``)"""


def kv_bytes_of(req: PerfRequest) -> int:
    """Bytes per KV element: --kv-cache-dtype, or the checkpoint's fp8 KV scheme under "auto" (else 2)."""
    if req.kv_cache_dtype not in ("auto", "bf16", "fp8"):
        raise PlanInputError(f"--kv-cache-dtype must be auto, bf16 or fp8, got {req.kv_cache_dtype!r}")
    if req.kv_cache_dtype == "auto":
        return 1 if req.model.quant is not None and req.model.quant.kv_cache_fp8 else 2
    return 1 if req.kv_cache_dtype == "fp8" else 2


def check_request(req: PerfRequest) -> None:
    """Refuse a request the model cannot answer, with the flag, the value and the fix (``PlanInputError``)."""
    for name in ("tp", "ep", "dp_attention", "batch"):
        value = getattr(req, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            flag = {"dp_attention": "--dp"}.get(name, "--" + name)
            raise PlanInputError(f"{flag} must be a whole number ≥ 1, got {value!r}")
    if isinstance(req.context, bool) or not isinstance(req.context, int) or req.context < 0:
        raise PlanInputError(f"--context must be a whole number of tokens ≥ 0, got {req.context!r}")
    if req.context > req.model.max_position_embeddings:
        raise PlanInputError(f"--context {req.context} exceeds {req.model.name}'s limit of "
                             f"{req.model.max_position_embeddings} tokens; use a smaller --context")
    if req.tp % req.dp_attention:
        raise PlanInputError(f"--dp {req.dp_attention} must divide --tp {req.tp}: perf models one TP group, and --dp "
                             f"is SGLang's DP-attention groups inside it (each of --tp/--dp GPUs); use e.g. --tp "
                             f"{req.tp * req.dp_attention} --dp {req.dp_attention}, or leave --dp out for data-parallel "
                             "replicas (each replica decodes its own batch at the speed perf gives for one)")
    if req.tp % req.ep:  # perf models one TP group: its tp GPUs hold the experts (as ParallelSpec checks for plan)
        ok = " or ".join(str(e) for e in range(1, req.tp + 1) if req.tp % e == 0) if req.tp <= 64 else "1"
        raise PlanInputError(f"--ep {req.ep} must divide the {req.tp} GPU(s) of --tp {req.tp} that hold the experts "
                             f"(tpkit perf models one TP group); use --ep {ok}, or keep --ep {req.ep} with --tp "
                             f"{math.lcm(req.tp, req.ep)}")
    if req.num_gpus is not None and req.num_gpus < req.tp:
        raise PlanInputError(f"--tp {req.tp} needs {req.tp} GPUs but --num-gpus is {req.num_gpus}; raise --num-gpus "
                             "or lower --tp")
    heads = req.model.num_attention_heads
    if heads % (req.tp // req.dp_attention):
        ok = ", ".join(str(t * req.dp_attention) for t in (1, 2, 4, 8, 16, 32) if heads % t == 0)
        raise PlanInputError(f"--tp {req.tp} does not divide {req.model.name}'s {heads} attention heads; use a TP "
                             f"size that divides them: --tp {ok}")
    if req.engine not in ("sglang", "vllm"):
        raise PlanInputError(f"--engine must be sglang or vllm, got {req.engine!r}")
    if req.nvfp4_gemm_backend is not None:  # imported only when given (the cold-import budget)
        from tpkit.perf.fp4_backend import check_nvfp4_gemm_backend
        check_nvfp4_gemm_backend(req.nvfp4_gemm_backend, req.engine)
    if req.sglang_spec_v2 is not None and req.engine != "sglang":
        raise PlanInputError("--sglang-spec-v2 is an SGLang setting (SGLANG_ENABLE_SPEC_V2); vLLM has no spec "
                             "v1/v2 switch: drop it or use --engine sglang")
    if req.sglang_spec_v2 is not None and req.spec is None:
        raise PlanInputError("--sglang-spec-v2 needs --speculative-algorithm (EAGLE, EAGLE3, NEXTN/MTP or "
                             "STANDALONE): it selects how SGLang runs speculative decoding")
    if req.max_running_requests is not None:
        value = req.max_running_requests
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise PlanInputError(f"--max-running-requests must be a whole number ≥ 1, got {value!r}")
        if req.engine != "sglang":
            raise PlanInputError("--max-running-requests is an SGLang setting; vLLM sets no running-request cap "
                                 "under speculation (its --max-num-seqs keeps the same default with or without it): "
                                 "drop it or use --engine sglang")
    if req.accept_length is not None and req.spec is None:
        raise PlanInputError("--accept-length needs --speculative-algorithm (EAGLE, EAGLE3, NEXTN/MTP or STANDALONE)")
