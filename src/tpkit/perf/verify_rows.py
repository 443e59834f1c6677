"""How a verify pass reads the KV cache, and vLLM TRITON_MLA's verify as one decode row per query token (pure
engine facts; ``perf.plan`` picks the attention mode, ``perf.work`` charges the bytes).

    in:  the pass's ``Runtime`` (engine, version, attention backend, verify path)
    out: the ``perf.work`` attention mode of the verify pass

vLLM TRITON_MLA from 0.31 runs the verify's 1 + k query tokens of a request as 1 + k separate decode rows
(read in the vllm 0.31.0 and 0.33.0 wheels, ``v1/attention/backends/mla/triton_mla.py``):

    ``TritonMLAMetadataBuilder``      ``query_len_support = QueryLenSupport.UNIFORM`` ("forward_mqa flattens a
                                      uniform multi-token block to one decode row per query token")
    ``TritonMLAImpl.forward_mqa``     ``block_table.repeat_interleave(query_len, dim=0)`` and, causal, per-row
                                      ``seq_lens + arange(1 - query_len, 1)``: row t of a request attends to the
                                      cached prefix plus block tokens 0..t
    ``decode_attention_fwd``          (``v1/attention/ops/triton_decode_attention.py``
                                      ``_decode_grouped_att_m_fwd``) grid ``(rows, head blocks, NUM_KV_SPLITS)``:
                                      every program streams its own row's KV extent; nothing is shared between the
                                      rows of one request

So each verify row reads the request's whole cached latent: 1 + k times the bytes of a plain step's row.  0.30 and
earlier keep causal multi-token blocks off the decode path (0.30.0 ``triton_mla.py`` flattens only the non-causal
DSpark draft block; the causal verify takes the MLA prefill path, ``perf.runtime_vllm``).  The rtx6kpro Kimi images
(models/kimi-k26-mtp-long-ctx-wip/README.md, Phase 1: "The Triton decode kernel indexes block_table with cur_batch
= 0..num_decode_tokens-1 — treats each query as a separate 'request'") run the same flattening before 0.31.

Measured check (not a fit): on 8× RTX PRO 6000 (rtx6kpro models/kimi-k26.md DCP=1 tables, Kimi-K2.6, TRITON_MLA,
EAGLE-3 k = 3) the speculative cycle grows with context 3.3× as fast as the plain step at 4 requests (0.52 vs 0.16 ms
per 1,000 tokens of context, 0 → 83k), 3.7× at 8 requests (0 → 20.8k); kimi-k26-v4.md the same (0.53 vs 0.155 ms,
0 → 65k, 4 requests); and the image's kernel microbench (patches/triton_mla_tuning.py) grows linearly in rows.
Other MLA backends keep one read per request: FlashMLA packs the query tokens with the heads (``QueryLenSupport.
UNIFORM``, no flattening), FlashInfer MLA and FlashAttention MLA take variable-length queries (``VARLEN``), the
sparse backends attend to the indexer's top-k only (``perf.work._dsa_attention``).
"""

from __future__ import annotations

__all__ = ["VLLM_VERIFY_ROWS_FIRST", "verify_rows_per_token", "verify_attention_mode"]

VLLM_VERIFY_ROWS_FIRST = (0, 31, 0)
"""first vLLM release whose TRITON_MLA verify runs one decode row per query token (``QueryLenSupport.UNIFORM``)"""


def verify_rows_per_token(engine: str, backend: str, version: tuple, *, mla: bool, speculative: bool,
                          prefill: bool) -> bool:
    """vLLM TRITON_MLA on an MLA model whose verify takes the decode path (``prefill`` False: from
    ``VLLM_VERIFY_ROWS_FIRST``, or an image carrying the fix when the newest facts are used): each of the verify's
    query tokens streams the request's whole cached latent."""
    return (engine == "vllm" and backend == "TRITON_MLA" and mla and speculative and not prefill
            and tuple(version) >= VLLM_VERIFY_ROWS_FIRST)


def verify_attention_mode(runtime) -> str:
    """The ``perf.work`` attention mode of the verify pass under ``runtime`` (a ``perf.runtime.Runtime``):
    ``mla_prefill`` (MLA prefill path), ``decode_rows`` (one decode row per query token, each reading the whole
    cached latent), ``decode`` (split-KV decode kernel, one read per request) or ``extend_nosplit``."""
    if runtime.verify_mla_prefill:
        return "mla_prefill"
    if runtime.verify_rows_per_token:
        return "decode_rows"
    return "decode" if runtime.verify_split_kv else "extend_nosplit"
