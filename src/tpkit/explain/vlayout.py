"""vLLM: the KV page layout of the limiting rank from the model config, as the planner builds it
(``tpkit.engines.vllm.pages``): the KV dtype (a checkpoint's scheme included), a hybrid's mamba mode and a
speculative drafter's KV layers.  Used by ``explain.vllm`` to rebuild the capacity from the available memory."""

from __future__ import annotations

from tpkit.explain.context import Context
from tpkit.explain.refusals import REFUSED


def token_layout(ctx: Context, tp: int, pp: int, block: int, rules) -> tuple[object | None, str]:
    """The KV layout of the limiting rank (``engines.vllm.pages.build_layout``), with the mamba mode of a hybrid
    (``engines.vllm.mamba.mamba_mode``: prefix caching as the log states it, else the release default)."""
    if ctx.model is None:
        return None, "no model config"
    try:
        from tpkit.engines.vllm.mamba import mamba_mode
        from tpkit.engines.vllm.pages import build_layout
        from tpkit.parallel import ParallelSpec

        from tpkit.engines.vllm.kvdtype import checkpoint_kv_dtype, kv_dtype

        requested = str(ctx.get("kv_cache_dtype", "auto") or "auto")
        if requested.strip().lower() == "auto":  # a ModelOpt checkpoint's KV scheme, as the release applies it
            requested = checkpoint_kv_dtype(getattr(ctx.model, "quant", None), rules.release) or requested
        fmt = kv_dtype(requested, rules.release, mla=ctx.model.mla is not None, label=rules.label)
        served, served_bytes = _served(ctx)
        nbytes = fmt.element_bytes or served_bytes
        draft, spec_tokens, spec_how = _draft(ctx, tp, pp, nbytes, fmt, rules.release)
        if draft == "refused":
            return None, spec_how
        mamba = None
        if "linear" in getattr(ctx.model, "kinds", ()) and rules.engine == "V1":
            cc = getattr(ctx.gpu, "compute_capability", None) if ctx.gpu is not None else None
            mamba = mamba_mode(ctx.model, rules, spec_tokens=spec_tokens,
                               prefix_caching=ctx.get("enable_prefix_caching"), compute_capability=cc)
        page_rules = rules
        if ctx.spec is not None and ctx.spec.eagle_family:  # as the plan: chunked-local + EAGLE, hybrid manager off
            from dataclasses import replace

            page_rules = replace(rules, chunked_local_hybrid=False)
        layout = build_layout(ctx.model, ParallelSpec(tp=tp, pp=pp), block_size=block, era=rules.era,
                              dtype_bytes=nbytes, dtype_name=fmt.element_dtype or served, rules=page_rules,
                              mamba=mamba, kv_format=fmt, draft=draft, spec_tokens=spec_tokens)
        how = f"; mamba {mamba.mode}: {mamba.reason}" if mamba is not None else ""
        how += _draft_text(layout, draft, spec_how, ctx)
        if fmt.layout == "nvfp4":
            how += f"; --kv-cache-dtype {fmt.name}: h/2 data + h/16 scale bytes per head vector"
        if fmt.layout == "per_token_head":
            data = "h/2" if fmt.nibbles else "h"
            how += f"; --kv-cache-dtype {fmt.name}: {data} data + one fp32 scale per K / V head"
        return layout, f"{layout.bytes_per_block.bytes:,} B per block of {layout.block_size} ({ctx.model_source}){how}"
    except REFUSED as exc:
        return None, f"block not computable ({type(exc).__name__}: {str(exc)[:120]})"


def _served(ctx: Context) -> tuple[str, int]:
    """The dtype an ``auto`` KV cache takes: the served ``--dtype`` as the log prints it (non-default args, engine
    config), resolved as the planner does (``engines.vllm.inputs.served_dtype``; vLLM's ``--kv-cache-dtype auto``
    is the model dtype, ``engines.vllm.kvdtype``); bfloat16 where the log's word is not a dtype tpkit plans."""
    from tpkit.engines.vllm.inputs import served_dtype
    from tpkit.errors import PlanInputError

    try:
        return served_dtype(ctx.model, ctx.get("dtype"))
    except PlanInputError:
        return "bfloat16", 2


def _draft(ctx: Context, tp: int, pp: int, kv_bytes: int, fmt, release=None) -> tuple[object, int, str]:
    """(the drafter's KV layers or None — "refused" when they cannot be rebuilt —, speculative tokens per step,
    the words): the plan's drafter (``engines.vllm.drafter.drafter_kv``, the same layers ``tpkit plan
    --speculative-config`` puts in the pages) for the run's speculative config (``Context.spec``)."""
    spec = ctx.spec
    if spec is None:
        return None, 0, ""
    if spec.has_drafter and fmt.layout not in ("dense", "per_token_head"):
        return "refused", 0, (f"block not computable: --kv-cache-dtype {fmt.name} with a speculative drafter "
                              "(tpkit does not model the drafter's packed KV pages, as tpkit plan)")
    from tpkit.engines.vllm.drafter import drafter_kv
    from tpkit.errors import TpkitError
    from tpkit.parallel import ParallelSpec

    try:
        from tpkit.engines.vllm.speculative import check_method_release

        check_method_release(spec, release)
        kv, tokens, source = drafter_kv(ctx.model, spec, ParallelSpec(tp=tp, pp=pp), kv_bytes=kv_bytes,
                                        release=release, kv_format=fmt)
    except TpkitError as exc:
        return "refused", 0, (f"block not computable: the {spec.method} drafter of the speculative config "
                              f"({ctx.spec_source}) cannot be sized ({str(exc)[:160]}); pass --speculative-config "
                              "with \"model\": the draft's config.json, directory or HF id")
    return kv, tokens, source


def _draft_text(layout, draft, source: str, ctx: Context) -> str:
    """The drafter's part of the page layout, in words (``engines.vllm.pages.build_layout``: vLLM registers the
    drafter's attention layers in the same forward context, so ``get_kv_cache_spec`` gives them pages)."""
    if ctx.spec is None:
        return f"; {ctx.spec_missing}" if ctx.spec_missing else ""
    spec = ctx.spec
    head = f"; speculative {spec.method} ({ctx.spec_source})"
    if draft is None:
        return head + ": no drafter model, no drafter KV layers"
    if not layout.draft_in_groups:
        where = ("their pages join every block of the one uniform-type group (vLLM ≥ 0.11 "
                 "UniformTypeKVCacheSpecs): + "
                 f"{layout.draft_bytes_per_block.bytes:,} B per block")
    elif layout.draft_merged:
        where = f"the same spec as the target's {draft.kind} layers: they join those groups"
    else:
        where = "another spec than the target's: a group of their own, page unified"
    return f"{head}: + {draft.num_layers} {draft.label} in the KV pages ({source}); {where}"
