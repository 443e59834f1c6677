"""Are SGLang's prefill CUDA graphs on?  Their term enters the default reserve only when they are (pure).

SGLang resolves the prefill graph backend before it computes the reserve (``handle_cuda_graph_config`` runs
before ``handle_gpu_memory_settings``; 0.5.10 ``_handle_piecewise_cuda_graph`` before
``_handle_gpu_memory_settings``), and ``reserve_for_graph_mb`` adds ``8 MiB × #prefill sizes`` (MLA: 1536 MiB)
only for a backend that is not DISABLED.  Which configurations turn the default backend off, per release
(every wheel 0.5.10 … 0.5.23 read):

    releases        default backend      turned off for
    0.5.10–0.5.14   tc_piecewise         non-CUDA GPUs; the arch list ``piecewise_cuda_graph_disabled_model_archs``
                    (torch.compile)      (Qwen3-Next, DeepSeek-V3.2/V4, Bailing-V2.5 …); speculative decoding
                                         (0.5.10 only); DP attention; pp > 1; an MoE a2a backend; multimodal
                                         models (0.5.14: unless Cohere2Vision); --cpu-offload-gb
                                         (``server_args.py _handle_piecewise_cuda_graph`` /
                                         ``_disable_tc_piecewise_cudagraph_if_incompatible``)
    0.5.15–0.5.22   breakable on CUDA,   non-CUDA GPUs (the tc_piecewise rules); MLA (≤ 0.5.17, DSA exempt from
                    tc_piecewise else    0.5.17); DP attention (≤ 0.5.16); an MoE a2a backend (≤ 0.5.16; later
                                         only one not in none/deepep/megamoe/flashinfer); multimodal models
                                         (0.5.15 all; from 0.5.16 those not on
                                         ``multimodal_breakable_cuda_graph_supported_model_archs``); pp > 1
                                         (from 0.5.19, ``apply_cuda_graph_compatibility``); KDA linear
                                         attention (from 0.5.20); the DeepSeek-V3 arch on SM100, whose default
                                         attention backend is trtllm_mla
                                         (``disable_prefill_cuda_graph_for_deepseek_trtllm_mla``)
                                         (``server_args.py`` / ``arg_groups/cuda_graph_hook.py
                                         disable_breakable_cudagraph_if_incompatible``)
    0.5.23          breakable on CUDA,   as 0.5.22
                    disabled elsewhere

--disable-cuda-graph: from 0.5.14 it sets both phases' backend DISABLED (``_handle_cuda_graph_config``, 0.5.14 /
0.5.15 ``server_args.py``; 0.5.23 ``arg_groups/cuda_graph_hook.py``), so the prefill graphs are off; 0.5.10–0.5.13
keep the piecewise graphs (``_handle_piecewise_cuda_graph`` never reads ``disable_cuda_graph``, and
``ModelRunner`` captures them apart from the decode graphs).
"""

from __future__ import annotations

from tpkit.engines.sglang.swa import is_sm100
from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import GpuSpec, is_nvidia
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

__all__ = ["GraphContext", "prefill_graphs"]

_TC_DISABLED_ARCHS: tuple[tuple[str, frozenset[str]], ...] = (
    ("0.5.10", frozenset({"DeepseekV32ForCausalLM", "Qwen3NextForCausalLM", "GlmMoeDsaForCausalLM",
                          "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"})),
    ("0.5.13", frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "Qwen3NextForCausalLM",
                          "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"})),
)
"""``piecewise_cuda_graph_disabled_model_archs`` (0.5.12's two extra DeepSeek-V4 names are in the 0.5.13 set)"""

_MM_BREAKABLE: tuple[tuple[str, frozenset[str]], ...] = (
    ("0.5.16", frozenset({"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"})),
    ("0.5.18", frozenset({"InternS2MobiusForConditionalGeneration", "KimiK25ForConditionalGeneration",
                          "KimiK3ForConditionalGeneration", "MuseGlimmerForConditionalGeneration"})),
    ("0.5.19", frozenset({"Cohere2VisionForConditionalGeneration", "PaddleOCRVLForConditionalGeneration"})),
    ("0.5.20", frozenset({"Glm5NextForConditionalGeneration"})),
    ("0.5.22", frozenset({"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration",
                          "Qwen4ExpForConditionalGeneration"})),
    ("0.5.23", frozenset({"MuseSparkForConditionalGeneration"})),
)
"""(first release, multimodal archs added to the breakable-graph allow-list)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphContext:
    """The launch facts the prefill-graph rules read."""

    version: str
    """SGLang release"""
    pp: int = 1
    """pipeline-parallel size"""
    speculative: bool = False
    """speculative decoding on"""
    dp_attention: bool = False
    """--enable-dp-attention"""
    a2a_backend: str = "none"
    """--moe-a2a-backend"""
    cpu_offload: bool = False
    """--cpu-offload-gb > 0: turns torch.compile piecewise graphs off (0.5.10 ``_handle_piecewise_cuda_graph`` "CPU
    offload (breaks dynamo)", 0.5.14/0.5.15 ``_disable_tc_piecewise_cudagraph_if_incompatible``, 0.5.20
    ``arg_groups/cuda_graph_hook.py``); the breakable backend (0.5.15+ on CUDA) has no such rule"""
    cuda_graph_disabled: bool = False
    """--disable-cuda-graph"""


def prefill_graphs(model: ModelSpec, gpu: GpuSpec, ctx: GraphContext) -> tuple[bool, str]:
    """(prefill CUDA graphs on?, why) for the default prefill graph backend of ``ctx.version``."""
    v = ctx.version
    if not at_least(v, "0.5.10"):
        return False, f"SGLang {v} captures no prefill CUDA graphs"
    if ctx.cuda_graph_disabled and at_least(v, "0.5.14"):
        return False, f"prefill CUDA graphs off: --disable-cuda-graph (SGLang {v} sets both phases DISABLED)"
    if not is_nvidia(gpu.vendor):
        return False, f"{gpu.vendor} GPU: SGLang's prefill graph backend is not available off CUDA"
    reason = _tc_piecewise_off(model, ctx) if not at_least(v, "0.5.15") else _breakable_off(model, gpu, ctx)
    if reason:
        return False, f"prefill CUDA graphs off: {reason} (SGLang {v})"
    backend = "torch.compile piecewise" if not at_least(v, "0.5.15") else "breakable"
    return True, f"{backend} prefill CUDA graphs on (SGLang {v})"


def _tc_piecewise_off(model: ModelSpec, ctx: GraphContext) -> str:
    v = ctx.version
    disabled = [names for first, names in _TC_DISABLED_ARCHS if at_least(v, first)][-1]
    checks = (
        (model.architecture in disabled, f"{model.architecture} is on the piecewise-graph disabled list"),
        (ctx.speculative and not at_least(v, "0.5.11"), "speculative decoding"),
        (ctx.dp_attention, "DP attention"),
        (ctx.pp > 1, "pp > 1"),
        (ctx.a2a_backend != "none", f"MoE a2a backend {ctx.a2a_backend}"),
        (ctx.cpu_offload, "--cpu-offload-gb"),
        (model.is_multimodal and not (at_least(v, "0.5.14") and
                                      model.architecture == "Cohere2VisionForConditionalGeneration"),
         "multimodal model"),
    )
    return next((why for hit, why in checks if hit), "")


def _breakable_off(model: ModelSpec, gpu: GpuSpec, ctx: GraphContext) -> str:
    v = ctx.version
    allowed_mm = frozenset().union(*(names for first, names in _MM_BREAKABLE if at_least(v, first)))
    kda = model.num_linear_layers > 0 and not model.extra.get("linear_num_value_heads")
    sm100 = is_sm100(gpu)
    a2a_ok = ("none",) if not at_least(v, "0.5.17") else ("none", "deepep", "megamoe", "flashinfer")
    checks = (
        (model.is_mla and not at_least(v, "0.5.18"), "MLA attention"),
        (kda and at_least(v, "0.5.20"), "KDA linear attention"),
        (ctx.a2a_backend not in a2a_ok, f"MoE a2a backend {ctx.a2a_backend}"),
        (ctx.dp_attention and not at_least(v, "0.5.17"), "DP attention"),
        (model.is_multimodal and (not at_least(v, "0.5.16") or model.architecture not in allowed_mm),
         "multimodal model not on the breakable-graph list"),
        (ctx.pp > 1 and at_least(v, "0.5.19"), "pp > 1"),
        (model.architecture == "DeepseekV3ForCausalLM" and sm100,
         "DeepSeek-V3 arch on SM100 uses trtllm_mla, which turns prefill graphs off"),
    )
    return next((why for hit, why in checks if hit), "")
