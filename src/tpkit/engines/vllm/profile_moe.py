"""The fused-MoE layer's tensors in vLLM's profile run, split from ``engines/vllm/profile.py`` (helper v11a): the
MoE phase (``moe_phase``), the ``WorkspaceManager`` buffers that stay allocated after it (``moe_workspace_bytes``)
and which attention backends share that buffer (``attention_takes_workspace``)."""

from __future__ import annotations

from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["FUSED_MOE_CHUNK", "FP8_METHODS", "moe_phase", "moe_workspace_bytes", "attention_takes_workspace",
           "moe_profile_phase"]

FUSED_MOE_CHUNK = 32_768
"""VLLM_FUSED_MOE_CHUNK_SIZE default (tokens per fused-MoE chunk)"""
FP8_METHODS = {"fp8", "fbgemm_fp8", "fp8_e4m3", "compressed-tensors-fp8"}
"""quantisation methods whose experts quantise their input and intermediate to fp8"""


def moe_phase(model: ModelSpec, parallel: ParallelSpec, tokens: int, a: int,
         workspace_experts: str | None = None, cache3_separate: bool = False,
         shared_held: bool = False) -> tuple[Bytes, str]:
    """Tensors alive inside ``fused_experts_impl`` (vllm 0.10.1 wheel, ``fused_moe/fused_moe.py``; dispatch from
    ``FusedMoE.forward_impl`` and ``NaiveAll2AllManager``), as (Bytes per rank, why):

    * local: residual + MoE input + router logits, T × (2H + E) × a;
    * DP > 1 (with or without EP: ``do_naive_dispatch_combine``): ``naive_multicast`` copies hidden states and
      router logits of all DP ranks into new M × H and M × E buffers, M = T × dp;
    * ``select_experts``: top-k weights fp32 + ids int32, M × k × 8 B;
    * the experts' buffers: per chunk of tokens (``_chunked_experts``, with ``cache3_separate`` for releases before
      0.8.0) or, with ``workspace_experts`` (``"bf16"`` or ``"fp8"``; vLLM 0.18.0–0.33.0,
      ``VllmRules.moe_unchunked_workspace``), the unchunked modular kernel's workspaces (``_unchunked_experts``).

    N = expert width per rank: the full width with EP, else ``moe_intermediate_size / (tp × dp)``
    (``FusedMoEParallelConfig.make`` folds DP into TP without EP).

    ``shared_held`` (releases before 0.11.0, ``VllmRules.moe_shared_output_held``): a model with shared experts
    computes them first and keeps their output, T × H × a, until it is added to the routed result.
    """
    moe = model.moe
    k, h, e = moe.experts_per_token, model.hidden_size, moe.num_experts
    dp = parallel.dp
    gathered = tokens * dp
    width = moe.moe_intermediate_size if parallel.ep > 1 else moe.moe_intermediate_size // (parallel.tp * dp)
    dispatch = gathered * (h + e) * a if dp > 1 else 0
    rows = tokens * (2 * h + e) * a + dispatch + gathered * k * 8
    if workspace_experts is not None:
        fused, why = _unchunked_experts(gathered, k, width, h, a, fp8=workspace_experts == "fp8")
        return Bytes(rows + fused), why
    fp8 = bool(model.quant and model.quant.method in FP8_METHODS)
    fused, why = _chunked_experts(gathered, k, width, h, a, fp8=fp8, cache3_separate=cache3_separate)
    shared = tokens * h * a if shared_held and moe.num_shared_experts else 0
    return Bytes(rows + fused + shared), why + (
        "; + the shared experts output T × H, held through the routed experts" if shared else "")


def _unchunked_experts(gathered: int, k: int, width: int, h: int, a: int, *, fp8: bool) -> tuple[int, str]:
    """The unchunked modular MoE kernel's buffers (bytes per rank, why; M = ``gathered`` tokens, N = ``width``, the
    activation dtype ``a`` bytes).  It runs all M tokens in one pass and takes two workspaces from the
    ``WorkspaceManager`` — (M, k, max(N, H)) shared with the (M, H) output, and (M, k, max(2N, H)) — in the activation
    dtype (``modular_kernel.py`` ``FusedMoEModularKernel._allocate_buffers`` with M_chunk = M_full,
    ``experts/triton_moe.py`` (0.22+; ``fused_moe.py`` 0.18–0.21) ``TritonExperts.workspace_shapes``, the base
    ``workspace_dtype`` = activation dtype; the CUTLASS and DeepGEMM FP8 experts ask for the same two sizes, with
    M·k rows).  The workspace stays allocated after the profile run (``v1/worker/workspace.py``: it only grows),
    which vLLM's totals count either way (consumed or peak); here it is the MoE phase's peak, and it stays under the
    attention and sampler phases that follow (``moe_workspace_bytes``, helper v11a).  FP8 experts (``fp8``) add the
    quantised input (M × H fp8 + an fp32 scale per 128) and the quantised intermediate (M·k·N fp8 + scales), once.
    Other formats (MXFP4, INT4, NVFP4 experts: Marlin, triton_kernels, FlashInfer layouts) keep the chunked formula
    (``_chunked_experts``)."""
    fused = gathered * k * (max(width, h) + max(2 * width, h)) * a
    quantised = (gathered * h + gathered * k * width) * (1 + 4 / 128) if fp8 else 0
    return fused + int(quantised), (
        f"fused MoE (modular kernel, one pass): workspaces M {gathered:,} tokens × k {k} × (max(N, H) + "
        f"max(2N, H)) × {a} B, N {width:,} (vLLM ≥ 0.18 WorkspaceManager, kept after the profile); + hidden/"
        f"residual/router rows, DP-gathered copies, top-k ids/weights{', fp8 inputs' if quantised else ''}")


def _chunked_experts(gathered: int, k: int, width: int, h: int, a: int, *, fp8: bool,
                     cache3_separate: bool) -> tuple[int, str]:
    """``fused_experts_impl``'s per-chunk buffers (bytes per rank, why; M = ``gathered`` tokens, N = ``width``, the
    activation dtype ``a`` bytes):

    * per chunk of C = min(M, VLLM_FUSED_MOE_CHUNK_SIZE) tokens: ``cache13`` C·k·max(2N, H) and ``cache2``
      C·k·N (activation dtype), output in place (``inplace=True``);
    * fp8 w8a8 (``fp8``: the model's quantisation in ``FP8_METHODS``): chunk input quantised (C × H fp8 + an fp32
      scale per 128) and ``cache2`` quantised (C·k·N fp8 + scales); from the second chunk on, the new
      ``qintermediate_cache2`` is allocated while the previous chunk's is still bound, so two copies are alive.

    ``cache3_separate`` (releases before 0.8.0, ``VllmRules.moe_cache3_separate``): ``intermediate_cache1`` (C, k, 2N)
    and ``intermediate_cache3`` (C, k, H) are two buffers, not views of one ``cache13``, so the chunk holds
    C·k·(2N + N + H) activations instead of C·k·(max(2N, H) + N) (vllm 0.4.1, 0.5.5, 0.6.3, 0.7.0–0.7.3 wheels,
    ``fused_moe.py`` ``fused_experts_impl`` / ``fused_experts``; 0.8.0 introduces ``cache13``)."""
    chunk = min(gathered, FUSED_MOE_CHUNK)
    outputs = 2 * width + h if cache3_separate else max(2 * width, h)
    fused = chunk * k * (outputs + width) * a
    quantised = 0
    if fp8:
        copies = 2 if gathered > chunk else 1
        quantised = chunk * h * (1 + 4 / 128) + copies * chunk * k * width * (1 + 4 / 128)
    layout = "2N + H + N: cache1, cache2 and cache3 apart (vLLM < 0.8.0)" if cache3_separate else "max(2N, H) + N"
    return fused + int(quantised), (f"fused MoE: M {gathered:,} tokens (chunk {chunk:,}) × k {k} × "
                                    f"({layout}), N {width:,}; + hidden/residual/router rows, DP-gathered copies, "
                                    f"top-k ids/weights{', fp8 inputs' if quantised else ''}")

def moe_workspace_bytes(model: ModelSpec, parallel: ParallelSpec, tokens: int, a: int) -> Bytes:
    """The two ``WorkspaceManager`` buffers of the unchunked modular MoE kernel (``moe_phase``'s ``workspace_experts``
    case, vLLM 0.18.0–0.33.0): M·k·(max(N, H) + max(2N, H)) in the activation dtype, M = tokens × dp.

    Helper v11a (wheels 0.29.0, 0.30.0): ``v1/worker/workspace.py WorkspaceManager._ensure_workspace_size`` only
    grows its buffer and ``get_simultaneous`` hands out views of it
    (``fused_moe/modular_kernel.py``), so once the first MoE layer of the profile's forward has taken it, it stays
    allocated under every later phase of the pass: the attention of the following layers and the sampler run after
    the forward.  vLLM's ``memory_profiling`` (``utils/mem_utils.py``, 0.27+) charges it in the total consumed and
    the transient peak above it, i.e. their sum.  The cold compile runs before the forward
    (``compilation/piecewise_backend.py PiecewiseBackend.__init__ → compile_all_ranges``), so its scratch does not
    sit on the workspace, nor does a multimodal encoder pass (before the text forward)."""
    moe = model.moe
    k, h = moe.experts_per_token, model.hidden_size
    width = moe.moe_intermediate_size if parallel.ep > 1 else moe.moe_intermediate_size // (parallel.tp * parallel.dp)
    return Bytes(tokens * parallel.dp * k * (max(width, h) + max(2 * width, h)) * a)


def attention_takes_workspace(model: ModelSpec) -> bool:
    """MLA models (DeepSeek-V2/V3, GLM-5's DSA, Kimi) and DeepSeek-V4: their attention backends take their own
    scratch from the same ``WorkspaceManager`` buffer as the MoE kernel (``v1/attention/backends/mla/
    triton_mla.py``, ``flashmla_sparse.py``, ``mla/prefill/flashinfer.py`` / ``trtllm_ragged.py``,
    ``get_simultaneous``; 0.29.0 wheel), so one buffer serves both and the attention phase is not simply on top of
    the MoE workspace (helper v11a: not modelled, the kept-workspace rule is left out for them)."""
    return model.mla is not None or model.model_type == "deepseek_v4"


def moe_profile_phase(phases: dict, model: ModelSpec, parallel: ParallelSpec, tokens: int, a: int,
                      workspace_experts: str | None, cache3_separate: bool, shared_held: bool, *,
                      v0_eager: bool) -> Bytes:
    """Add the profile pass's "MoE layer" phase to ``phases`` (``moe_phase``; V0's eager forward also holds the
    layer's input, ``engines.vllm.profile`` "V0 eager forward") → the MoE workspace the ``WorkspaceManager`` keeps
    under every later phase (``moe_workspace_bytes``; 0 where the release runs no such kernel or the attention
    backend shares the buffer: ``attention_takes_workspace``)."""
    b, f = moe_phase(model, parallel, tokens, a, workspace_experts, cache3_separate, shared_held)
    if v0_eager:
        b, f = (Bytes(b.bytes + tokens * model.hidden_size * a),
                f + f" + the layer input V0's eager loop holds, T × H × {a} B")
    phases["MoE layer"] = (b, f)
    if workspace_experts is not None and not attention_takes_workspace(model):
        return moe_workspace_bytes(model, parallel, tokens, a)
    return Bytes(0)
