"""vLLM's FlashInfer backend below SM 9.0 under speculative decoding: the whole engine on PIECEWISE CUDA graphs.

One home for the release window and its test, shared by ``perf.runtime_vllm`` (the target's backend) and
``perf.spec_sync`` (the drafter's own backend) without an import between those two (lead, session 32: moved out of
runtime_vllm when spec_sync's use of it made an import cycle)."""

from __future__ import annotations

__all__ = ["FLASHINFER_SPEC_PIECEWISE", "flashinfer_spec_piecewise"]

FLASHINFER_SPEC_PIECEWISE = ((0, 11, 0), (0, 33, 0))
"""[first, end) vLLM releases whose FlashInfer backend, on a GPU below SM 9.0, declares full CUDA graphs for
single-token decode only, so a speculative deployment runs the whole engine under PIECEWISE graphs (helper sp19a,
2026-12-05; wheels read: 0.11.0, 0.19.1, 0.21.0, 0.23.0, 0.26.0, 0.28.0–0.34.0).  ``FlashInferMetadataBuilder``:
class attribute ``cudagraph_support = UNIFORM_SINGLE_TOKEN_DECODE`` (0.11.0 v1/attention/backends/flashinfer.py);
from 0.19.1 ``get_cudagraph_support`` returns ``UNIFORM_BATCH`` only where trtllm-gen / XQA decode can run
(``utils/flashinfer.py supports_trtllm_attention``: SM100/SM103 in 0.19.1–0.26.0; SM90 and SM12x as well in 0.29.0
and 0.30.0), ``UNIFORM_SINGLE_TOKEN_DECODE`` on SM8x in every release read up to 0.32.0.  With
``num_speculative_tokens`` > 0 the uniform decode batch has 1 + k query tokens per request, and the cudagraph
resolution (0.11.0 ``gpu_model_runner.py`` after capture-support checks; 0.23.0–0.32.0 ``config/compilation.py
resolve_cudagraph_mode_and_sizes``, called by the V1 runner and by Model Runner V2) turns FULL_AND_PIECEWISE into
PIECEWISE when any layer's support is below ``UNIFORM_BATCH`` ('is not supported with spec-decode for attention
backend …; setting cudagraph_mode=PIECEWISE'): the verify then runs every layer's attention (for a hybrid model both
splitting ops, ``unified_attention_with_output`` and ``qwen_gdn_attention_core``) eagerly between graph pieces.  The
public server logs of Qwen3.8-27B MTP on 4× RTX 3090, ``--attention-backend FLASHINFER`` (vLLM 0.26.0; bench/data
source p18_q38_4x3090) print 'CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention
backend FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting
cudagraph_mode=PIECEWISE' and capture only 'CUDA graphs (mixed prefill-decode, PIECEWISE)'.  From 0.33.0
FlashInfer's native decode below SM 9.0 runs FA2, which takes uniform multi-token queries
(``_use_fa2_native_decode``: ``UNIFORM_BATCH``; read 0.33.0, 0.34.0; 0.31.0 and 0.32.0 have no such path).  SM90
and SM12x (single-token before their XQA path, then head-dim, NVFP4-KV and DCP conditions) are not modelled here."""


def flashinfer_spec_piecewise(backend: str, cc: tuple[int, int] | None, version: tuple[int, int, int],
                              algorithm: str | None) -> bool:
    """Whether a speculative vLLM deployment on ``backend`` runs PIECEWISE graphs only
    (``FLASHINFER_SPEC_PIECEWISE``): FLASHINFER on a GPU below SM 9.0 from 0.11.0 to 0.32.x."""
    first, end = FLASHINFER_SPEC_PIECEWISE
    return (algorithm is not None and backend == "FLASHINFER" and cc is not None and cc[0] < 9
            and first <= tuple(version) < end)
