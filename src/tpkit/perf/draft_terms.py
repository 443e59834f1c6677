"""Two terms of an EAGLE-3 draft step that the generic decoder layer does not hold (pure; issue 13, helper draft13).

1. The sampling kernels over the draft vocab stream below the copy rate.  SGLang's softmax + ``fast_topk`` after
   every draft forward (``spec.draft_topk_kernels``) run one block per row over 32,000 fp32 probabilities; on the
   H200 reference they move their bytes at about half the device-to-device copy rate, and the top-k's final gather
   at a fifth.  Measured: ``docs/runs/spec_h200_2026-12-05.json`` (``bench/spec_reference.py``, 1× H200, torch
   2.11, 2026-12-05), torch.profiler of the draft step at B = 64 × topk 8 (512 rows) of both heads, without and
   with the fc (4 profiles; docs/benchmarks.md §3.6, §3.7):

       kernel                                  µs in the 4 profiles        bytes / launch   rate after the
                                                                                             2.65 µs floor
       softmax (cunn_SoftMaxForward, fp32)      58.7  60.4  58.8  58.3       131.1 MB        2.34 TB/s  0.547
       radix digit counts (4 launches)         137.2 138.2 137.6 137.0       65.5 MB each    2.07 TB/s  0.484
       gatherTopK                               74.4  74.9  74.4  74.5       65.5 MB         0.91 TB/s  0.214

   (fraction of the copy rate ``hbm_efficiency`` × 4.8 TB/s = 4.272 TB/s; the medians 58.75, 34.35 per launch and
   74.45 µs; ``C["draft_softmax_bw_fraction"]`` etc.).  At one row the top-k's kernels take 1.8–2.5 µs each (the
   (1, 1) profiles), the ``small_kernel_us`` floor, so the fractions only matter from ~32 rows up; the softmax
   there takes 10.1–10.6 µs: one block reduces the whole 32,000-wide row, at ``C["row_block_gbps"]`` (34.1 GB/s),
   charged as the kernel's ``cta_bytes`` (8 B per logit of one row).  They are the
   kernels' own (PyTorch's ``cunn_SoftMaxForward`` and ``mbtopk`` radix select, the ones SGLang calls through
   ``torch.softmax`` / ``torch.topk``), assumed to carry over to other GPUs as a fraction, like the other
   H200-measured constants.  ``torch.max`` / ``torch.argmax`` (topk 1) were not measured apart: left at the copy rate.

2. The EAGLE-3 midlayer's two extra kernels.  Its decoder layer normalises the embeddings and the incoming hidden
   states separately and concatenates them before the qkv GEMM (sglang 0.5.6 ``models/llama_eagle3.py``
   ``LlamaDecoderLayer.forward``: ``input_layernorm(embeds)``, ``hidden_norm(hidden_states)``, ``torch.cat``;
   vllm 0.11.0 ``models/llama_eagle3.py`` the same), where a plain layer runs one (fused add +) RMSNorm: one RMSNorm
   and one concat more per draft forward, on every rank (the layer's input is replicated).
"""

from __future__ import annotations

from tpkit.perf.constants import C
from tpkit.perf.kernels import Kernel

__all__ = ["EAGLE3_MIDLAYER_EXTRA_KERNELS", "eagle3_midlayer_kernels", "sampling_bw_fraction"]

EAGLE3_MIDLAYER_EXTRA_KERNELS = ("EAGLE3 hidden_norm", "EAGLE3 cat(embeds, hidden)")
"""kernels an EAGLE-3 decoder layer runs besides a plain layer's (sglang 0.5.6 / vllm 0.11.0 llama_eagle3.py)"""

_FRACTION_KEYS = {"softmax": "draft_softmax_bw_fraction", "radix": "draft_topk_pass_bw_fraction",
                  "gather": "draft_topk_gather_bw_fraction"}


def sampling_bw_fraction(kind: str) -> float:
    """Measured fraction of the copy rate at which a draft sampling kernel streams: ``softmax``, ``radix`` (a digit
    count pass of torch.topk's radix select) or ``gather`` (its final gather)."""
    try:
        return C[_FRACTION_KEYS[kind]].value
    except KeyError:
        raise ValueError(f"unknown draft sampling kernel {kind!r}; use one of {', '.join(_FRACTION_KEYS)}") from None


def eagle3_midlayer_kernels(hidden: int, rows: int) -> list[Kernel]:
    """The EAGLE-3 layer's ``hidden_norm`` (reads and writes ``rows`` × ``hidden`` bf16) and the concat of the two
    normalised halves (reads 2 × hidden, writes 2 × hidden per row), for a draft forward of ``rows`` tokens."""
    row = 2.0 * rows * hidden                                         # bytes of one bf16 hidden-wide activation
    return [Kernel(kind="small", name=EAGLE3_MIDLAYER_EXTRA_KERNELS[0], bytes=2.0 * row),
            Kernel(kind="small", name=EAGLE3_MIDLAYER_EXTRA_KERNELS[1], bytes=4.0 * row)]
