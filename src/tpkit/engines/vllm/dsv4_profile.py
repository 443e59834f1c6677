"""DeepSeek-V4's own memory in vLLM's load and profile run (helper v417, 2026-12-05, session 15).

Two terms, read in the vLLM wheels (``pip download --no-deps vllm==X``):

**Buffers sized by max_num_batched_tokens, made with the model** (``batched_buffers``).  ``DeepseekV4Model.__init__``
allocates ``topk_indices_buffer`` (max_num_batched_tokens × ``index_topk`` int32, shared by every indexer layer) and
``_mtp_hidden_buffer`` (max_num_batched_tokens × ``hc_mult`` · hidden in the model dtype, the pre-``hc_head``
residual stream kept for the MTP drafter, allocated with or without speculative decoding).  Read in
``model_executor/models/deepseek_v4.py`` (0.20.0, 0.20.2, 0.21.0) and ``models/deepseek_v4/nvidia/model.py``
(0.22.0, 0.23.0, 0.24.0, 0.25.0, 0.26.0); from 0.21.0 the MTP buffer only on the last pipeline stage (pp > 1 is
refused for DeepSeek-V4).  They are built inside the loader's device context, so "Model loading took" holds them.
Evidence: the same GPUs and flags print 74.08 GiB under ``vllm serve`` (8,192 batched tokens: vp_415, vp_416,
vp_614) and 74.35 GiB under the ``vllm.LLM`` probe (16,384, the LLM class's default on a ≥ 70 GiB GPU that is not
an A100: ``engine/arg_utils.py EngineArgs.get_batch_defaults``): 8,192 × (4 · 4,096 · 2 + 512 · 4) B = 0.27 GiB.

**The attention phase of the profile's dummy forward** (``attention_phase``; vLLM 0.23.0 – 0.25.x, the NVIDIA
FlashMLA path: ``models/deepseek_v4/attention.py DeepseekV4Attention.forward`` / ``attention_impl``,
``nvidia/flashmla.py forward_mqa``, ``nvidia/model.py DeepseekV4Model.forward`` / ``DeepseekV4DecoderLayer``, read
in the 0.23.0, 0.24.0 and 0.25.0 wheels, which agree line for line there; 0.22.0 runs the attention as one custom op
and its mHC as other ops, not read for this).  Per token, at a compress-ratio-4 layer, with a = the activation
bytes, n = heads per rank, P = FlashMLA's padded head count (64 up to 64 heads, else 128), D = head_dim:

* held by the decoder loop: the previous layer's residual stream and output (the model's loop keeps them bound
  while the layer runs) and the layer's new ones from ``mhc_fused_post_pre_tilelang``: 2 × (hc_mult · H + H) · a;
* ``o_padded`` (P × D · a), made before the input GEMMs;
* ``fused_wqa_wkv`` output (q_lora_rank + D) · a and ``fused_q_kv_rmsnorm``'s two new outputs, the same again;
* the compressor's score GEMM, fp32: 2 · coff · D · 4 B (coff 2 at ratio 4), the indexer compressor's 2 · 2 ·
  index_head_dim · 4 B and the indexer's weights_proj (index_n_heads · a);
* then ``attention_impl``'s ``execute_in_parallel`` (``utils/multi_stream_utils.py``: with CUDA aux streams it
  calls the aux functions first, then the default stream's): first moment, the indexer on its aux stream, whose fp8
  query (index_n_heads · index_head_dim B) and fp32 weights (index_n_heads · 4 B) are live while
  ``sparse_attn_indexer``'s profile branch allocates its dummy logits block (512 MiB,
  ``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB``, freed on return); second moment, ``wq_b`` → q (n · D · a) and its
  zero-padded copy (``_fused_qnorm_rope_kv_insert`` with no metadata: ``F.pad`` to P heads, P · D · a).

Under both moments lies the ``WorkspaceManager`` buffer (``v1/worker/workspace.py``: it only grows and is kept):
the largest request of the pass, the fused-MoE workspaces (``profile_moe.moe_workspace_bytes``: the first MoE layer
runs before the first ratio-4 layer's attention), the indexer's K-gather workspace
(``sparse_indexer.indexer_profile_reservation`` less the logits block) or FlashMLA's dummy-run reservation
(``PREFILL_CHUNK_SIZE`` 4 × (⌈max_model_len / 4⌉ + window + max_num_batched_tokens) × D bf16).  This is the overlap
helper v11a left out (``profile_moe.attention_takes_workspace``): the backends take views of one buffer, so the
buffer is the maximum of the requests, not their sum.

Evidence: vp_415 and vp_417 differ only in the batched tokens (8,192 vs 16,384) and print 2.74 GiB more non-KV,
non-weight memory for 8,192 more tokens (351 KiB a token); at tp 2 this phase grows by 352 KiB a token (256 KiB
live at the padded-q moment + the 96 KiB MoE workspace), where the generic attention estimate grew by 90 KiB.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, gib_text

__all__ = ["BUFFERS_FROM", "BUFFERS_UNTIL", "FORWARD_FROM", "FORWARD_UNTIL", "PREFILL_CHUNK_SIZE", "BUFFERS_ITEM",
           "batched_buffers", "padded_heads", "flashmla_dummy_workspace", "attention_phase", "forward_applies",
           "with_dsv4_forward"]

BUFFERS_FROM = (0, 20, 0)
"""first release with ``DeepseekV4Model``'s max_num_batched_tokens buffers (the first with DeepSeek-V4)"""
BUFFERS_UNTIL = (0, 27, 0)
"""first release not read for them (0.26.0 read and still has both)"""
FORWARD_FROM = (0, 23, 0)
"""first release whose DeepSeek-V4 attention forward is the one modelled (0.22.0: one custom op, other mHC ops)"""
FORWARD_UNTIL = (0, 26, 0)
"""first release not modelled (the plan refuses DeepSeek-V4 after 0.25.1)"""
PREFILL_CHUNK_SIZE = 4
"""``DeepseekV4Attention.PREFILL_CHUNK_SIZE`` (models/deepseek_v4/attention.py, 0.22.0–0.26.0)"""
LOGITS_BLOCK = 512 * 2**20
"""``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB`` default, the indexer's dummy logits block in the profile branch"""
BUFFERS_ITEM = "DeepSeek-V4 max_num_batched_tokens buffers"


def _cfg(model: ModelSpec, key: str) -> int:
    value = model.extra.get(key)
    if value is None:
        from tpkit.errors import PlanInputError

        raise PlanInputError(f"{model.name}: the DeepSeek-V4 config needs {key!r} (vLLM sizes its profile tensors "
                             "with it); add it to config.json")
    return int(value)


def _ratios(model: ModelSpec) -> list[int]:
    return [int(x) for x in (model.extra.get("compress_ratios") or [])]


def batched_buffers(model: ModelSpec, tokens: int, act_bytes: int, release: tuple[int, int, int]) -> tuple[int, str]:
    """(bytes, formula) of ``DeepseekV4Model.__init__``'s two buffers (module docstring); (0, "") outside
    BUFFERS_FROM – BUFFERS_UNTIL or for another model."""
    if model.model_type != "deepseek_v4" or not BUFFERS_FROM <= release < BUFFERS_UNTIL:
        return 0, ""
    hc, topk = _cfg(model, "hc_mult"), _cfg(model, "index_topk")
    mtp = tokens * hc * model.hidden_size * act_bytes
    idx = tokens * topk * 4
    return mtp + idx, (f"max_num_batched_tokens {tokens:,} × (hc_mult {hc} × H {model.hidden_size:,} × {act_bytes} B "
                       f"_mtp_hidden_buffer + index_topk {topk} × 4 B topk_indices_buffer) (DeepseekV4Model.__init__, "
                       "vLLM 0.20.0–0.26.0: made with the model, in the load delta)")


def padded_heads(heads_per_rank: int) -> int:
    """FlashMLA's query head count (``DeepseekV4FlashMLAAttention.get_padded_num_q_heads``: 64 or 128)."""
    if heads_per_rank > 128:
        from tpkit.errors import PlanInputError

        raise PlanInputError(f"vLLM's DeepSeek-V4 FlashMLA path takes at most 128 heads per rank, got "
                             f"{heads_per_rank}; plan with a larger --tp")
    return 64 if heads_per_rank <= 64 else 128


def flashmla_dummy_workspace(model: ModelSpec, tokens: int, max_model_len: int) -> Bytes:
    """Bytes FlashMLA's dummy run asks the workspace manager for, the largest over the layers
    (``forward_mqa`` with no metadata): 4 × (N + window + max_num_batched_tokens) × D × 2 B, N = ⌈max_model_len / r⌉
    for a compressed layer (ratio r), 0 for a sliding-window-only one."""
    window = int(model.sliding_window or 0)
    compressed = [r for r in _ratios(model) if r > 1]
    n = -(-max_model_len // min(compressed)) if compressed else 0
    return Bytes(PREFILL_CHUNK_SIZE * (n + window + tokens) * model.head_dim * 2)


def forward_applies(model: ModelSpec, release: tuple[int, int, int], engine: str) -> bool:
    """Whether ``attention_phase`` describes this run: DeepSeek-V4 on the V1 engine of FORWARD_FROM – FORWARD_UNTIL."""
    return model.model_type == "deepseek_v4" and engine == "V1" and FORWARD_FROM <= release < FORWARD_UNTIL


def attention_phase(model: ModelSpec, tp: int, tokens: int, act_bytes: int, *, max_model_len: int,
                    moe_workspace: Bytes, indexer_workspace: Bytes) -> tuple[Bytes, str]:
    """(bytes, formula) of the profile's attention phase at a ratio-4 layer (module docstring): the larger of its two
    moments (the indexer's logits block, the padded query) plus the kept workspace buffer, max(MoE, indexer,
    FlashMLA requests)."""
    a, h = act_bytes, model.hidden_size
    hc, q_lora = _cfg(model, "hc_mult"), _cfg(model, "q_lora_rank")
    d = model.head_dim
    n = max(1, model.num_attention_heads // tp)
    p = padded_heads(n)
    ratios = _ratios(model)
    has_indexer = 4 in ratios
    idx_heads = _cfg(model, "index_n_heads") if has_indexer else 0
    idx_dim = _cfg(model, "index_head_dim") if has_indexer else 0
    coff = 2 if has_indexer else 1
    held = 2 * (hc * h + h) * a
    base = held + p * d * a + 2 * (q_lora + d) * a + 2 * coff * d * 4
    if has_indexer:
        base += 2 * 2 * idx_dim * 4 + idx_heads * a
    indexer = base + idx_heads * idx_dim + idx_heads * 4 if has_indexer else 0
    padded = base + n * d * a + p * d * a
    m1 = tokens * indexer + LOGITS_BLOCK if has_indexer else 0
    m2 = tokens * padded
    flash = flashmla_dummy_workspace(model, tokens, max_model_len)
    kept = max(moe_workspace, indexer_workspace, flash)
    which = ("the MoE workspaces" if kept == moe_workspace else
             "the indexer's K-gather workspace" if kept == indexer_workspace else "FlashMLA's dummy-run reservation")
    if m1 > m2:
        moment = (f"T {tokens:,} × {indexer:,} B (decoder-held residual streams and outputs, o_padded, q/kv inputs, "
                  f"scores, the indexer's fp8 query) + the indexer's 512 MiB dummy logits block")
    else:
        moment = (f"T {tokens:,} × {padded:,} B (decoder-held residual streams and outputs, o_padded, q/kv inputs, "
                  "scores, q and its padded copy)")
    return Bytes(max(m1, m2)) + kept, (
        f"DeepSeek-V4 attention (vLLM 0.23–0.25 DeepseekV4Attention / FlashMLA dummy run, engines.vllm.dsv4_profile): "
        f"{moment} + the kept WorkspaceManager buffer {gib_text(kept)} ({which}; MoE "
        f"{gib_text(moe_workspace, label='')}, indexer {gib_text(indexer_workspace, label='')}, FlashMLA "
        f"{gib_text(flash)})")


def with_dsv4_forward(act, model: ModelSpec, parallel, r, rules):
    """``act`` with DeepSeek-V4's own attention phase where its forward was read (this module,
    vLLM 0.23.0–0.25.x V1; helper v417): it replaces the generic attention phase and the indexer phase built on it,
    and the kept ``WorkspaceManager`` buffer (max of the MoE, indexer and FlashMLA requests) also lies under the
    sampler phase that runs after the forward (``v1/worker/workspace.py``: it only grows)."""
    from tpkit.engines.vllm.profile_moe import moe_workspace_bytes
    from tpkit.engines.vllm.sparse_indexer import indexer_profile_reservation

    if not forward_applies(model, rules.release, rules.engine):
        return act
    tokens = r.max_num_batched_tokens
    moe_ws = (moe_workspace_bytes(model, parallel, tokens, r.act_bytes)
              if model.moe is not None and rules.moe_unchunked_workspace else Bytes(0))
    got = indexer_profile_reservation(model, rules.release, max_model_len=r.max_model_len)
    idx_ws = Bytes(max(0, got[0] - LOGITS_BLOCK)) if got is not None else Bytes(0)
    nbytes, formula = attention_phase(model, parallel.tp, tokens, r.act_bytes, max_model_len=r.max_model_len,
                                      moe_workspace=moe_ws, indexer_workspace=idx_ws)
    kept = max(moe_ws, idx_ws, flashmla_dummy_workspace(model, tokens, r.max_model_len))
    parts = []
    for part in act.parts:
        if part.item == "profile phase: sparse indexer profile reservation":
            continue  # inside the DeepSeek-V4 attention phase
        if part.item == "profile phase: attention":
            part = replace(part, bytes=nbytes, source=f"estimate: {formula}")
        elif part.item in ("profile phase: logits + sampler", "profile phase: logits"):
            part = replace(part, bytes=part.bytes + kept,
                           source=part.source + f" + the kept WorkspaceManager buffer {gib_text(kept)} "
                                                "(DeepSeek-V4: max of the MoE, indexer and FlashMLA requests)")
        parts.append(part)
    top = max(parts, key=lambda p: p.bytes.bytes)
    return replace(act, peak=top.bytes, parts=tuple(parts),
                   limiting_phase=top.item.removeprefix("profile phase: "))
