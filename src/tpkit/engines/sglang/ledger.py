"""The ledger of one SGLang plan, from its sizing (``sizing.SglangSizing``): capacity → baseline uses → weights →
slack reserve → KV pool → what is left, with the info lines SGLang's own log prints (``build_ledger``), and the room
left for activations and CUDA graphs (``graph_room``).
"""

from __future__ import annotations

from tpkit.engines.sglang.sizing import SglangSizing
from tpkit.memory.ledger import Ledger, LineItem
from tpkit.units import Bytes, gib_text

__all__ = ["build_ledger", "graph_room"]


def _pool_lines(s: SglangSizing) -> list[LineItem]:
    rows = s.pool.padded_tokens
    if s.kv_pool_refused:
        return [LineItem(item="KV pool", bytes=s.kv_bytes,
                         source=f"not allocated: {s.tokens:,} tokens + {s.page_size:,} padding rows × cell "
                                f"{s.cell.bytes_per_token:,.0f} B ask for {s.kv_pool_refused.bytes:,} B, more than is "
                                f"free (CUDA out of memory)")]
    if s.cell.layout == "swa" and s.cell.full_layers and s.cell.swa_layers:
        full = sum((b.total_bytes for b in s.pool.buffers if b.name in ("k", "v")), Bytes(0))
        swa = s.kv_bytes - full
        return [LineItem(item="KV pool, full-attention layers", bytes=full,
                         source=f"{s.cell.full_layers} layers × K,V × ({s.pool.num_tokens:,} + {s.page_size}) rows"),
                LineItem(item="KV pool, sliding-window layers", bytes=swa,
                         source=f"{s.cell.swa_layers} layers × K,V × ({s.swa_tokens:,} + {s.page_size}) rows "
                                f"({_swa_pool_text(s)})")]
    if not s.pool.buffers:  # no token: SGLang stops with 'Not enough memory' before it allocates (pool.pool_buffers)
        return [LineItem(item="KV pool", bytes=s.kv_bytes,
                         source=f"not allocated: the budget holds no page of {s.page_size:,} token(s) × cell "
                                f"{s.cell.bytes_per_token:,.0f} B ({s.cell.source})")]
    return [LineItem(item="KV pool", bytes=s.kv_bytes,
                     source=f"{s.pool.num_tokens:,} tokens + {s.page_size} padding = {rows:,} rows × cell "
                            f"{s.cell.bytes_per_token:,.0f} B ({s.cell.source})")]


def _swa_pool_text(s: SglangSizing) -> str:
    """Which SGLang configurator sized the two SWA pools and why (``swa_cap.swa_pool_choice``)."""
    if s.swa_pool is None:
        return f"swa_full_tokens_ratio {s.cell.swa_ratio:g}"
    return f"sglang pool_configurator.py {s.swa_pool.configurator}: {s.swa_pool.why}"


def _mamba_lines(s: SglangSizing) -> list[LineItem]:
    if s.mamba is None:
        return []
    return [LineItem(item="linear-attention state pool", bytes=s.mamba_bytes, source=s.mamba.source)]


def _draft_lines(s: SglangSizing, *, before: bool) -> list[LineItem]:
    """Draft weights and draft KV pool: "use" lines inside the budget (0.5.14+), info lines from the slack before."""
    spec = s.spec
    if spec is None or spec.loaded_before_pool != before:
        return []
    where = "" if before else " (after the target's pool, from the slack)"
    kind = "use" if before else "info"
    d = spec.draft
    peak = ""
    if spec.weights_at_load.bytes > spec.weights.bytes:
        peak = (f"; {gib_text(spec.weights_at_load)} while the draft loads (its own shared tensors, freed by "
                "set_embed: the draft's 'Load weight end' mem usage prints this)")
    lines = [LineItem(item=f"draft weights ({spec.algorithm}){where}", bytes=spec.weights, kind=kind,
                      source=f"{spec.weights_source}; {d.source}{peak}")]
    if before and s.draft_freed_after_pool:
        lines.append(LineItem(
            item="draft's own shared tensors at load (freed by set_embed after the pool is sized)",
            bytes=s.draft_freed_after_pool,
            source="the draft's embedding / lm_head before set_embed swaps in the target's: the target's pool is "
                   "sized first (sglang 0.5.14+ managers/scheduler.py init_memory_pools, then "
                   "speculative/eagle_worker_v2.py alloc_memory_pool → init_lm_head; "
                   "engines.sglang.budget.draft_weights_at_sizing); they return to the slack after 'Memory pool end'"))
    if s.draft_pool is not None:
        heads, k_dim, v_dim = spec.draft_kv_dims
        if before and not s.draft_in_budget:  # the cell did not carry the draft (spec.draft_cell_counted)
            where, kind = " (after the target's pool, from the slack)", "info"
        aside = s.budget_cell_bytes_per_token - s.cell.bytes_per_token
        lines.append(LineItem(
            item=f"draft KV pool{where}", bytes=s.draft_kv_bytes, kind=kind,
            source=f"{spec.draft_layers} draft layer(s) × {heads} head(s) × ({k_dim} + {v_dim}) × "
                   f"{s.draft_pool.buffers[0].element_bytes} B × ({s.pool.num_tokens:,} + {s.page_size}) rows"
                   + (f"; the budget set aside {aside:,.0f} B/token for it "
                      "(int(cell × draft layers / target layers))" if before and s.draft_in_budget else "")
                   + ("; the target's cell does not carry the draft layers: no --speculative-draft-model-path and an "
                      "architecture SGLang does not fill it for (spec_aux_hidden_state.py, 0.5.14–0.5.19; "
                      "engines.sglang.spec.draft_cell_counted)" if before and not s.draft_in_budget else "")))
    return lines


def _budget_line(s: SglangSizing) -> LineItem:
    parts = ["free before weights"] + (["stream pool"] if s.stream_pool else []) + (
        ["DeepGEMM workspace"] if s.deepgemm_workspace else []) + (
        ["first kernels"] if s.first_kernels else []) + ["weights"]
    if s.rope_reserve:
        parts.append("RoPE pre-expansion")
    if s.draft_weights_before:
        parts.append("draft weights")
    if s.lora:
        parts.append("LoRA memory pool")
    parts.append("slack")
    if s.mm_reserved:
        parts.append("multimodal caches")
    return LineItem(item="KV budget (rest)", bytes=s.rest, kind="info",
                    source=" − ".join(parts) + " (sglang kv_cache_configurator.py _profile_available_bytes)")


def _tail_lines(s: SglangSizing) -> list[LineItem]:
    """req_to_token, the printed pool-end free memory, what the slack pays after it, and what is left."""
    extra = f" + {s.spec.num_draft_tokens} draft tokens" if s.spec else ""
    lines = [LineItem(item="req_to_token pool (from the slack)", bytes=s.req_to_token, kind="info",
                      source=f"int32 [{s.req_to_token_rows:,} × ({s.context_len:,} + 4{extra})]; "
                             f"max_running_requests {s.max_running_requests:,} ({s.running_rule})"),
             LineItem(item="Memory pool end (free after the pools)", bytes=s.pool_end_free, kind="info",
                      source="slack + unused KV budget − req_to_token (= free before weights − weights − pools − "
                             "req_to_token); SGLang prints it")]
    lines += list(s.baseline.after_pool) and [LineItem(item=u.item, bytes=u.bytes, kind="info", source=u.source)
                                              for u in s.baseline.after_pool]
    lines += _draft_lines(s, before=False)
    freed = " + the draft's shared tensors set_embed frees" if s.draft_freed_after_pool else ""
    lines.append(LineItem(item="left for activations + CUDA graphs", bytes=graph_room(s),
                          kind="info", source=f"Memory pool end − what the slack pays after it{freed}"
                                              + ("" if s.cuda_graphs else "; --disable-cuda-graph: no decode "
                                                 "graphs are captured from it")))
    return lines


def graph_room(s: SglangSizing) -> Bytes:
    """Free memory left for activations and CUDA graphs: 'Memory pool end' − what the slack pays after it + the
    draft's shared tensors ``set_embed`` frees after the pool (``KvBudget.draft_freed_after_pool``)."""
    return s.pool_end_free - s.after_pool + s.draft_freed_after_pool


def _stream_lines(s: SglangSizing) -> list[LineItem]:
    """torch's stream pool (0.5.9+ at world size 1) and DeepGEMM's cuBLASLt workspace (0.5.15+ on compute capability
    9.0+ but 12.0), both taken after the pre sample (``engines.sglang.streams``)."""
    from tpkit.engines.sglang.streams import STREAM_POOL_SOURCE, WORKSPACE_ITEM, WORKSPACE_SOURCE

    out = [LineItem(item="CUDA stream pool (forward stream, after the pre sample)", bytes=s.stream_pool,
                    source=STREAM_POOL_SOURCE)] if s.stream_pool else []
    if s.deepgemm_workspace:
        out.append(LineItem(item=WORKSPACE_ITEM, bytes=s.deepgemm_workspace, source=WORKSPACE_SOURCE))
    if s.first_kernels:  # 0.4.6.post5–0.4.9.x at world size 1 (engines.sglang.streams.metadata_kernels)
        out.append(LineItem(item="expert-location metadata's first kernels (after the pre sample)",
                            bytes=s.first_kernels,
                            source="SGLang 0.4.6.post5–0.4.9.x ModelRunner.initialize builds the expert-location "
                                   "metadata on the GPU after the pre sample (the process's first kernels at world "
                                   "size 1); the size 0.5.8+ prints at tp 1 as 'Init torch distributed ends. mem "
                                   "usage' (start-up table sglang_tp1_init[>=0.5.8]); the load's extra is less by as much"))
    return out


def _rope_lines(s: SglangSizing) -> list[LineItem]:
    """SGLang 0.5.6+'s RoPE cache pre-expansion after the weights (``engines.sglang.rope``; a band term)."""
    if not s.rope_reserve:
        return []
    from tpkit.engines.sglang.rope import ROPE_ITEM

    return [LineItem(item=ROPE_ITEM, bytes=s.rope_reserve, source=s.rope_source + " (a band term: 0 … that)")]


def build_ledger(s: SglangSizing) -> Ledger:
    """capacity → baseline uses → weights → slack reserve → KV pool → remaining, plus info lines."""
    f = s.fraction.value
    mm = [LineItem(item="multimodal caches (reserved from the KV budget)", bytes=s.mm_reserved, kind="reserve",
                   source=s.mm_source)] if s.mm_reserved else []
    lines = [s.baseline.capacity, *s.baseline.uses,
             LineItem(item="free before weights (pre_model_load_memory)", bytes=s.pre, kind="info",
                      source="capacity − the uses above; SGLang measures it (min over ranks)"),
             *_stream_lines(s),
             LineItem(item="weights", bytes=s.weights, source=s.weights_source),
             *_rope_lines(s),
             *[l for l in _draft_lines(s, before=True) if not l.item.startswith("draft KV")],
             *([LineItem(item="LoRA memory pool (A/B buffers)", bytes=s.lora, source=s.lora_source)] if s.lora else []),
             LineItem(item=f"slack (1 − {f:.3f}) × free before weights", bytes=s.slack, kind="reserve",
                      source=f"mem_fraction_static {f:.3f}: {s.fraction.source}"),
             *mm,
             _budget_line(s),
             *_mamba_lines(s),
             *_pool_lines(s),
             *[l for l in _draft_lines(s, before=True) if l.item.startswith("draft KV")],
             *_tail_lines(s)]
    return Ledger(items=tuple(lines), rank_label=s.baseline.rank_label)
