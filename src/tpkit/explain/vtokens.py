"""vLLM: the printed KV token count rebuilt from the available memory and the page layout (``explain.vlayout``) by
the rules of the log's release (``tpkit.engines.vllm.capacity``); where the TP size or the release is not pinned,
every candidate that changes the count is rebuilt and named.  Used by ``explain.vllm``."""

from __future__ import annotations

from tpkit.explain.context import Context, engine_release
from tpkit.explain.interval import Iv
from tpkit.explain.refusals import REFUSED
from tpkit.explain.vlayout import token_layout
from tpkit.units import Bytes


def log_rules(ctx: Context):
    """The vLLM rules of the log's release (``ctx.rules_version``); 0.33's when it is unknown or unread."""
    from tpkit.engines.vllm.versions import RULES, resolve_rules

    try:
        if ctx.rules_version and ctx.get("vllm_v0_engine"):
            return resolve_rules(f"{ctx.rules_version}:v0")
        return resolve_rules(ctx.rules_version) if ctx.rules_version else RULES["0.33"]
    except REFUSED:
        return RULES["0.33"]


def _engine_rules(ctx: Context, release: str):
    """The rules of one end of the log's release range under the log's engine generation: ``:v1`` where the line
    formats say V1 and the release's default engine is V0 (``context.engine_release``, as ``ctx.rules_version``)."""
    from tpkit.engines.vllm.versions import resolve_rules

    return resolve_rules(engine_release(release, ctx.engine, ctx.version, bool(ctx.get("vllm_v0_engine"))))


def _tokens(layout, available: Iv, ctx: Context, rules, pp: int) -> tuple[int, int]:
    """The printed token count for the low and high end of ``available`` (``engines.vllm.capacity.plan_capacity``:
    ≥ 0.20.1 int(max_concurrency × max_model_len), V1 < 0.20.1 blocks // groups × block, V0 blocks × block)."""
    from tpkit.engines.vllm.capacity import max_concurrent_batches, plan_capacity
    from tpkit.engines.vllm.batch_defaults import mm_prefix_batch_floor
    from tpkit.engines.vllm.maxlen import derived_max_model_len

    length = int(ctx.get("context_length") or derived_max_model_len(ctx.model, rules)[0])
    batched = int(ctx.get("max_num_batched_tokens") or 2048)
    if not ctx.get("max_num_batched_tokens") and getattr(rules, "mm_prefix_batch_floor", False):
        batched = max(batched, mm_prefix_batch_floor(ctx.model) or 0)  # Gemma 4 prefix-LM default (≥ 0.22)
    # the log's 'async_scheduling': False (--no-async-scheduling): one batch in flight (config/vllm.py
    # max_concurrent_batches), else the release's default
    runner = ctx.get("vllm_use_v2_model_runner")  # the runner the log shows (Model Runner V2 keeps pp + 1 in flight)
    batches = max_concurrent_batches(rules, pp, async_scheduling=False) if ctx.get("async_scheduling") is False \
        else None if runner is None else max_concurrent_batches(rules, pp, v2_runner=str(runner) == "1")
    out = []
    for end in (available.low, available.high):
        cap = plan_capacity(layout, Bytes(max(end.bytes, 0)), max_model_len=length, max_num_batched_tokens=batched,
                            pp=pp, rules=rules, concurrent_batches=batches)
        out.append(int(cap.tokens))
    return min(out), max(out)


def _tp_unknown(ctx: Context, pp: int, block: int, rules, available: Iv, layout, tb_source: str):
    """The layout when the log names no TP size (``runtp.tp_default_evidence`` found no default either): kept
    when every TP size of ``TP_CANDIDATES`` the model accepts rebuilds the same tokens (MLA: one latent head per
    rank); else None, with the rebuilt tokens per TP size in the source text (the cell of each rank is the model's
    KV heads ÷ tp, ``vllm/config/model.py get_num_kv_heads``, so one printed available memory fits several
    capacities)."""
    from tpkit.explain.context import TP_CANDIDATES

    seen: dict[tuple[int, int], list[int]] = {}
    for tp in TP_CANDIDATES:
        cand, _ = token_layout(ctx, tp, pp, block, rules)
        if cand is None:
            continue
        try:
            rng = _tokens(cand, available, ctx, rules, pp)
        except REFUSED:  # a length the rules refuse: leave this TP size out
            continue
        seen.setdefault(rng, []).append(tp)
    if len(seen) <= 1:
        return layout, tb_source + ("; tp not printed, the same for tp " + ", ".join(map(str, TP_CANDIDATES))
                                    if seen else "")
    each = "; ".join(f"tp {'/'.join(map(str, tps))} → {lo:,}–{hi:,}" for (lo, hi), tps in seen.items())
    why = ctx.tp_inferred.text() if ctx.tp_inferred is not None else (
        "nothing in the log bounds it: no 'Model loading took' line, world size, NCCL nranks or CUDA_VISIBLE_DEVICES")
    return None, f"tp not printed and the KV bytes per token depend on it ({each}; {why}): pass --tp"


def version_ends(ctx: Context) -> tuple[str, str] | None:
    """(oldest, newest) release of an inferred range: "0.18–0.27" (``logs.engine.intersect_ranges``: the releases
    every line format allows), "≥ 0.18" (newest: the current rules, ``versions.CURRENT``), a printed pre-release or
    development build (``logs.engine.pre_release_ends``); None for a printed release or none."""
    from tpkit.engines.vllm.versions import CURRENT
    from tpkit.logs.engine import pre_release_ends, release_range

    text = ctx.version or ""
    if "–" not in text and "≥" not in text:
        return pre_release_ends(text)
    rng = release_range(text)
    if rng is None:
        return None
    (a, b, c), (x, y, z) = rng
    first = f"{a}.{b}" if c == 0 else f"{a}.{b}.{c}"
    last = CURRENT if x == 999 else (f"{x}.{y}" if z == 999 else f"{x}.{y}.{z}")
    return first, last


def _hybrid_default(ctx: Context, rules) -> bool | None:
    """For a V1 hybrid (linear-attention layers) whose log states no prefix-caching setting: the release's default
    (``VllmRules.hybrid_prefix_caching``: off for hybrids up to 0.27 — ``config/model.py
    is_prefix_caching_supported`` ≤ 0.25, ``engine/arg_utils.py _set_default_chunked_prefill_and_prefix_caching_args``
    keeps it opt-in in 0.26–0.27 —, on from 0.28), which sets the mamba groups' pages per request
    (``engines.vllm.mamba``); None otherwise (not a hybrid, V0, or the log or a flag states it)."""
    if ctx.model is None or "linear" not in getattr(ctx.model, "kinds", ()) or rules.engine != "V1":
        return None
    if ctx.get("enable_prefix_caching") is not None:
        return None
    return bool(rules.hybrid_prefix_caching)


def _ssm_bytes(ctx: Context, rules) -> int | None:
    """For a model with linear-attention layers: the bytes per element of the SSM state as the release reads them
    (``engines.vllm.layer_bytes.ssm_state_bytes``: the config's ``mamba_ssm_dtype`` from the release that reads it,
    ``VllmRules.ssm_dtype_from_config``; NemotronH's default, ``VllmRules.nemotron_h_ssm_default``), which sets the
    state page and so the attention block; None otherwise (0 stands for "the KV dtype")."""
    from tpkit.engines.vllm.layer_bytes import ssm_state_bytes

    if ctx.model is None or "linear" not in getattr(ctx.model, "kinds", ()):
        return None
    return ssm_state_bytes(ctx.model, rules, 0)


def _rule_key(ctx: Context, rules) -> tuple:
    """What makes two releases count the printed tokens differently for this log (``_other_end``): the tokens
    rule, the era, the engine, the hybrid prefix-caching default and the SSM state's dtype (``_ssm_bytes``)."""
    return rules.tokens_rule, rules.era, rules.engine, _hybrid_default(ctx, rules), _ssm_bytes(ctx, rules)


def _rule_words(ctx: Context, rules) -> str:
    hybrid, ssm = _hybrid_default(ctx, rules), _ssm_bytes(ctx, rules)
    return f"{rules.tokens_rule} rule" + ("" if hybrid is None else
                                          f", prefix caching {'on' if hybrid else 'off'} for hybrids by default") + (
        "" if not ssm else f", SSM state {ssm} B per element from the config")


def _inner_releases(ends: tuple[str, str]) -> tuple[str, ...]:
    """The releases strictly between the two ends of a range where a vLLM rule changes
    (``versions.rule_change_releases``), oldest first: a rule set that holds only inside the range (vl_920's
    0.19.2rc1 nightly, read as ≥ 0.8: the groups tokens rule with Qwen3.5's config-read SSM dtype holds from 0.17.0 to
    0.20.0, at neither end) is rebuilt too (helper v920, 2026-12-05).  Empty where an end does not parse."""
    from tpkit.engines.vllm.versions import PlanInputError, parse_version, rule_change_releases

    try:
        low, high = parse_version(ends[0]), parse_version(ends[1])
    except PlanInputError:
        return ()
    return tuple(".".join(map(str, first)) for first in rule_change_releases() if low < first < high)


def _other_end(ctx: Context, tp: int, pp: int, block: int, rules, available: Iv, predicted: tuple[int, int],
               tb_source: str) -> tuple[tuple[int, int], str, tuple[tuple[int, int], ...]]:
    """Where the log's release is only known as a range and a release at the other end of it counts the KV cache
    by another rule (``VllmRules``: the tokens rule, the era, the engine; for a hybrid with linear-attention layers
    also the prefix-caching default, ``_rule_key``), the range rebuilt under both rules, each named in the source
    text (``--engine-version`` on the command line picks one): (the hull of the ranges, the source, the ranges one
    per rule; empty where one rule holds).  The hull is no prediction by itself: the engine printed one of the
    ranges, never a count between them."""
    from tpkit.logs.engine import pre_release_ends

    ends = version_ends(ctx)
    if ends is None:
        return predicted, tb_source, ()
    seen = {_rule_key(ctx, rules)}
    parts = [f"vLLM {rules.label} rules give {predicted[0]:,}–{predicted[1]:,} tokens ({_rule_words(ctx, rules)})"]
    low, high = predicted
    alternatives = [predicted]
    for end in (*ends, *_inner_releases(ends)):
        try:
            other = _engine_rules(ctx, end)
        except REFUSED:
            continue
        if _rule_key(ctx, other) in seen:
            continue
        layout, _ = token_layout(ctx, tp, pp, block, other)
        if layout is None:
            continue
        try:
            rng = _tokens(layout, available, ctx, other, pp)
        except REFUSED:
            continue
        seen.add(_rule_key(ctx, other))
        if rng in alternatives:  # other rules, the same count
            continue
        parts.append(f"vLLM {other.label} rules give {rng[0]:,}–{rng[1]:,} ({_rule_words(ctx, other)})")
        alternatives.append(rng)
        low, high = min(low, rng[0]), max(high, rng[1])
    if len(parts) == 1:
        return predicted, tb_source, ()
    how = (f"the printed build {ctx.version} is a pre-release or development build (PEP 440) open between "
           f"{ends[0]} and {ends[1]}" if pre_release_ends(ctx.version or "") else
           f"the release is inferred from the line formats as {ctx.version}")
    return (low, high), (f"{tb_source}; {how}: " + "; ".join(parts) + "; --engine-version picks one"), \
        tuple(alternatives)



def _rebuilt_dsv4(ctx: Context, rules, available: Iv | None) -> "Rebuilt":
    """DeepSeek-V4 (``explain.vdsv4``): the batched tokens as printed, else the release's default on the log's GPU
    for the entrypoint the log shows (``engines.vllm.batch_defaults.default_batched_tokens``; the API server's unless
    ``logs.run.entrypoint_settings`` finds the offline LLM class; 2048 / 8192 when the GPU is not known)."""
    from tpkit.engines.vllm.dsv4 import BLOCK
    from tpkit.engines.vllm.batch_defaults import default_batched_tokens
    from tpkit.explain.vdsv4 import rebuilt_dsv4

    batched = ctx.get("max_num_batched_tokens")
    if not batched:
        entrypoint = str(ctx.get("vllm_entrypoint") or "serve")
        batched = (default_batched_tokens(ctx.gpu, rules, entrypoint) if ctx.gpu is not None
                   else 8192 if entrypoint == "llm" else 2048)
    predicted, token_bytes, source, alternatives = rebuilt_dsv4(ctx, available, version_ends(ctx), int(batched))
    return Rebuilt(predicted, token_bytes, source, BLOCK, alternatives)


class Rebuilt:
    """The KV tokens rebuilt from the available memory: the range (``predicted``), the KV bytes per token and their
    source, the block size the layout uses; a plain class: a dataclass costs ~1 ms of ``tpkit explain``'s cold start,
    issue 12."""

    __slots__ = ("predicted", "token_bytes", "source", "block", "alternatives")

    def __init__(self, predicted: tuple[int, int] | None, token_bytes: float | None, source: str, block: int,
                 alternatives: tuple[tuple[int, int], ...] = ()) -> None:
        self.predicted, self.token_bytes, self.source, self.block = predicted, token_bytes, source, block
        self.alternatives = alternatives
        """the ranges one per release rule where the release is open and the rules differ (``_other_end``);
        ``predicted`` is then their hull"""


def rebuild_tokens(ctx: Context, rules, tp: int, pp: int, block: int, available: Iv | None,
             tokens_printed: int | None) -> Rebuilt:
    """The tokens rebuilt from the layout (``token_layout``) over the available memory (``_tokens``; blocks ×
    block size where the rules refuse the length), widened over the TP sizes and releases the log leaves open;
    without a layout, the bytes per token measured as available / printed tokens."""
    from tpkit.explain.vdsv4 import is_dsv4

    if is_dsv4(ctx):  # its own groups and per-request count (explain.vdsv4, engines.vllm.dsv4)
        return _rebuilt_dsv4(ctx, rules, available)
    layout, tb_source = token_layout(ctx, tp, pp, block, rules)
    if layout is not None and ctx.get("tp") is None and available is not None:
        layout, tb_source = _tp_unknown(ctx, pp, block, rules, available, layout, tb_source)
    if layout is None:
        if tokens_printed and available is not None:
            return Rebuilt(None, available.mid.bytes / tokens_printed,
                            "measured: available KV memory / printed tokens", block)
        return Rebuilt(None, None, tb_source, block)
    predicted = None
    if available is not None:
        try:
            predicted = _tokens(layout, available, ctx, rules, pp)
        except REFUSED:  # a length the rules refuse: blocks × block size
            per_block = layout.bytes_per_block.bytes
            groups = max(1, len(getattr(layout, "groups", ()) or ()) if rules.tokens_rule == "groups" else 1)
            lo = max(available.low.bytes, 0) // per_block // groups * layout.block_size
            hi = max(available.high.bytes, 0) // per_block // groups * layout.block_size
            predicted = (int(lo), int(hi))
    alternatives = ()
    if predicted is not None and available is not None:
        predicted, tb_source, alternatives = _other_end(ctx, tp, pp, block, rules, available, predicted, tb_source)
    return Rebuilt(predicted, layout.bytes_per_block.bytes / layout.block_size, tb_source, layout.block_size,
                    alternatives)


def estimate_pins_available(a, failure) -> Iv | None:
    """The available KV memory narrowed by vLLM's printed 'the estimated maximum model length is L' (V1's
    one-request check, ``kv_cache_utils.estimate_max_model_len``, read in the 0.17.1 wheel; the same binary search
    in 0.8.x–0.27): L is the largest length with ``cdiv(L, block) × bytes per block ≤ available`` (a full-attention
    spec's ``max_memory_usage_bytes``), so vLLM's exact available memory lies in [n, n + 1) blocks' bytes, n =
    cdiv(L, block), inside the two-decimal print.  None where no estimate is printed, the anchors lack the bytes per
    token, or the interval misses the print (another spec: sliding window, hybrid, a pp stage's layers).  ``tpkit
    explain``'s fixes of that check and ``tpkit plan --from-log`` (``cli.fromlog_plan.non_kv_from_log``) both size
    from it, so a fix of ``--max-model-len L`` re-plans to L tokens on both sides (vl_455: 0.41 GiB printed, L 7,760:
    7,664 tokens at the print's middle, 7,760 pinned)."""
    import math

    too_small = failure is not None and failure.kind == "kv_too_small"
    est = failure.count("estimated_max_len") if too_small else None
    capacity = failure.count("kv_tokens") if too_small and est is None else None
    available, tb = getattr(a, "available", None), getattr(a, "token_bytes", None)
    block = int(getattr(a, "block_size", 0) or 0)
    if not tb or block <= 0:
        return None
    if est is not None and available is not None and int(est.value) > 0:
        n = -(-int(est.value) // block)
    elif capacity is not None and int(capacity.value) > 0 and int(capacity.value) % block == 0:
        # V0's 'the maximum number of tokens that can be stored in KV cache (N)': N = num_gpu_blocks × block, with
        # num_gpu_blocks = available // bytes per block (worker/worker.py determine_num_available_blocks, 0.8.3)
        n = int(capacity.value) // block
    else:
        return None
    per_block = tb * block
    low, high = Bytes(math.ceil(n * per_block)), Bytes(math.ceil((n + 1) * per_block) - 1)
    if available is not None:
        low, high = max(available.low, low), min(available.high, high)
    return Iv(low=low, high=high) if low <= high else None


def pool_tokens(ctx: Context, a, available: int) -> int | None:
    """The KV tokens vLLM prints for a pool of ``available`` bytes at the log's layout and release rules (helper
    fx35a, 2026-12-07): the count ``tpkit plan`` states (``engines.vllm.capacity.plan_capacity``, through
    ``_tokens``), so a fix's tokens and its re-plan are in one unit.  For a hybrid (sliding + full attention, e.g.
    gpt-oss) a block id holds one page per layer of one group, and vLLM prints ``num_blocks // len(grouped_layers) ×
    min_block_size`` ('GPU KV cache size', ``v1/core/kv_cache_utils.py`` ``_get_kv_cache_config_uniform_page_size``,
    read in the 0.10.2 wheel; ``int(max_concurrency × max_model_len)`` from 0.20.1, ``VllmRules.tokens_rule``):
    available ÷ (block bytes ÷ block) counts one group's slots, twice vLLM's figure for gpt-oss's two groups.
    None where no layout is built (no model, DeepSeek-V4's own groups, a refused length): the caller
    keeps the bytes-per-token count."""
    from tpkit.explain.vdsv4 import is_dsv4

    if ctx is None or ctx.model is None or is_dsv4(ctx):
        return None
    rules = log_rules(ctx)
    pp = int(ctx.get("pp", 1) or 1)
    layout, _ = token_layout(ctx, int(ctx.get("tp", 1) or 1), pp, int(a.block_size), rules)
    if layout is None:
        return None
    end = Bytes(max(int(available), 0))
    try:
        return _tokens(layout, Iv(low=end, high=end), ctx, rules, pp)[0]
    except REFUSED:  # a length the rules refuse: the bytes-per-token count stands
        return None
