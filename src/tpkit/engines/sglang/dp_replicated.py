"""What SGLang's DeepSeek model keeps whole on every rank under ``--enable-dp-attention`` beyond the attention-TP
split tpkit's weights plan makes (``tpkit.models.weights._ATTN_TP_CATEGORIES``: attention and the input embedding
over tp / dp, the lm_head over tp) — helper gx32, 2026-12-07.

Read in ``models/deepseek_v2.py`` (``DeepseekV2Model.__init__``, ``DeepseekV2ForCausalLM.__init__``), wheels 0.3.6.post3,
0.4.0 – 0.4.5, 0.4.10, 0.5.2 – 0.5.9, 0.5.15, 0.5.23:

* **The input embedding**: ``VocabParallelEmbedding(vocab, hidden, enable_tp=not enable_dp_attention)`` up to **0.5.7**
  (0.5.6, 0.5.6.post1, 0.5.6.post2, 0.5.7 read) — with DP attention ``tp_size = 1``
  (``layers/vocab_parallel_embedding.py``): the whole table (vocab padded to 64) on every rank, not a 1 / (tp / dp)
  share; from **0.5.8** ``use_attn_tp_group=is_dp_attention_enabled()`` (0.5.8, 0.5.8.post1, 0.5.9;
  ``get_embedding_tp_kwargs()`` from 0.5.15): split over the attention-TP group, as tpkit plans it.  The two agree
  where dp = tp (attention TP 1): every DP-attention case of the set.
* **The lm_head**: ``ReplicatedLinear(hidden, vocab, bias=False)`` (no quant config, no vocab padding) under DP
  attention in 0.3.6.post3 – **0.4.4** (with ``LogitsProcessor(skip_all_gather=True)``); ``ParallelLMHead`` over
  the full TP group from **0.4.5**, over the attention-TP group only with ``--enable-dp-lm-head`` (0.4.7 – 0.5.23:
  ``use_attn_tp_group=enable_dp_lm_head``; a flag tpkit does not take).
* The attention projections: ``ColumnParallelLinear`` / ``RowParallelLinear`` over the attention-TP group (tp / dp;
  before 0.4.5 ``--enable-dp-attention`` sets dp = tp, ``versions.attention_dp_size``, so they are whole): tpkit
  plans them so.

Models: the DeepSeek-V2 model classes and those built on them (``mla_copies.MLA_COPY_ARCHITECTURES``); other
models' embeddings under DP attention were not read here.
"""

from __future__ import annotations

from tpkit.engines.sglang.mla_copies import MLA_COPY_ARCHITECTURES
from tpkit.engines.sglang.versions import LATEST, at_least
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, format_bytes

__all__ = ["dp_attention_replicated", "EMBED_ATTN_TP_FROM", "LM_HEAD_PARALLEL_FROM"]

EMBED_ATTN_TP_FROM = "0.5.8"
"""first release that splits DeepSeek's input embedding over the attention-TP group under DP attention (0.5.7: whole)"""
LM_HEAD_PARALLEL_FROM = "0.4.5"
"""first release whose DeepSeek lm_head is a ``ParallelLMHead`` under DP attention (0.4.4: ``ReplicatedLinear``)"""


def dp_attention_replicated(model: ModelSpec, parallel: ParallelSpec, *, version: str | None,
                            weights) -> tuple[Bytes, str]:
    """(bytes per rank, source) the DP-attention rank holds beyond ``weights``' embedding and lm_head lines; (0, "")
    without DP attention, for another model, or where the plan has no such lines (another PP stage)."""
    version = version or LATEST
    lines = {l.item: l.bytes for l in getattr(weights, "lines", ())}
    if not parallel.dp_attention or model.architecture not in MLA_COPY_ARCHITECTURES or not lines:
        return Bytes(0), ""
    from tpkit.dtypes import DTYPES
    from tpkit.models.layout import padded_vocab

    elem = DTYPES[str(getattr(weights, "dtype", None) or "bfloat16")].bytes
    whole = (  # (the plan's line, whether this release keeps it whole, its whole size in elements, what and until)
        ("embedding", not at_least(version, EMBED_ATTN_TP_FROM) and parallel.attn_tp > 1,
         padded_vocab(model.vocab_size, 1) * model.hidden_size, "the input embedding whole on every rank "
                                                                 "(enable_tp=False, up to 0.5.7)"),
        ("lm_head", not at_least(version, LM_HEAD_PARALLEL_FROM), model.vocab_size * model.hidden_size,
         "the lm_head a ReplicatedLinear (up to 0.4.4)"))
    extra, parts = Bytes(0), []
    for item, kept_whole, elements, what in whole:
        if kept_whole and item in lines and elements * elem > lines[item].bytes:
            more = Bytes(elements * elem - lines[item].bytes)
            extra = extra + more
            parts.append(f"{what}: +{format_bytes(more)}")
    if not extra.bytes:
        return Bytes(0), ""
    return extra, f"DP attention keeps {'; '.join(parts)} (engines/sglang/dp_replicated.py)"
