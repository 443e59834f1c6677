"""What SGLang's bare 'Not enough memory. Please try to increase --mem-fraction-static.' says by release, when the
log prints no number to size the pool from (helper cr33a, 2026-12-07; docs/accuracy.md §7.3).

From 0.5.14 a KV budget ≤ 0 after the weights raises ``ValueError('Loaded weights leave no GPU memory for the KV cache
under --mem-fraction-static=F. Raise … above S (minimum viable = …)')`` first
(``model_executor/model_runner_kv_cache_mixin.py`` in the 0.5.14 and 0.5.15 wheels,
``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes`` from 0.5.16; read in 0.5.14, 0.5.15, 0.5.16,
0.5.18 and 0.5.23, absent from 0.5.9–0.5.13).  The 'Not enough memory' ``RuntimeError`` is raised by
``MemoryPoolConfig.__post_init__`` (``model_executor/pool_configurator.py``, 0.5.13–0.5.23) when the pool sized
from that positive budget holds ≤ 0 tokens: the budget floored to whole pages of KV cells, or what a configurator
takes from it first (the DeepSeek-V4 compressed-attention state pools, ``_get_c128_state_fixed_bytes``).  So on
0.5.14+ the error means the weights floor was cleared and the pool's own sizing left nothing; before 0.5.14 it also
covers a budget ≤ 0 after the weights.  Neither says how much larger a fraction must be: no fix is called a fit
from it."""

from __future__ import annotations

__all__ = ["FLOOR_CHECK_FROM", "not_enough_memory_words", "floor_error_words"]

FLOOR_CHECK_FROM = (0, 5, 14)
"""the first SGLang release whose weights check ('Loaded weights leave no GPU memory') runs before the pool sizing"""


def not_enough_memory_words(failure, ctx, fraction: float | None) -> str | None:
    """The cause for a bare 'Not enough memory' by the log's release (every release its version text allows on one
    side of 0.5.14); None for another failure, an unknown release or a range across 0.5.14 (the generic words
    stand)."""
    if "Not enough memory" not in f"{failure.evidence} {failure.detail or ''}":
        return None
    from tpkit.engines.sglang.versions import parse_version
    from tpkit.logs.engine import releases_in

    found = [parse_version(r) for r in releases_in(ctx.version)]
    if not found or found[0] < FLOOR_CHECK_FROM <= found[-1]:
        return None  # no release, or a range on both sides of the boundary: the generic words stand
    at = f" at mem_fraction_static {fraction:g}" if fraction else ""
    if found[0] >= FLOOR_CHECK_FROM:
        return (f"the KV pool held no token{at}: SGLang {ctx.rules_version} raises 'Not enough memory' only after its "
                "weights check passed (from 0.5.14 a budget ≤ 0 after the weights raises 'Loaded weights leave no GPU "
                "memory for the KV cache' first), so the weights left a positive KV budget and the pool sized from it "
                "came to ≤ 0 tokens (less than one page of KV cells, or per-request state pools taken from it first); "
                "a larger --mem-fraction-static gives the pool room, how much larger the log's numbers do not say")
    return (f"the KV pool held no token{at}: before 0.5.14 SGLang's 'Not enough memory' covers both a budget ≤ 0 after "
            f"the weights and a pool sized to ≤ 0 tokens (SGLang {ctx.rules_version}); the log's numbers do not say "
            "which, nor how much larger a --mem-fraction-static would do")


def floor_error_words(failure, fraction: float | None) -> str | None:
    """The cause for SGLang's weights check ('Loaded weights leave no GPU memory for the KV cache under
    --mem-fraction-static=F') pasted without its 'Raise … above S (minimum viable = M)' part (elided or cut): the
    budget free after the load − pre-load memory × (1 − F) was ≤ 0, so the fraction that clears it is above
    1 − free after the load / pre-load memory, a number the paste does not keep.  None for another failure (the
    printed S or M is read by ``sgdiagnose._weights_floor_fix``)."""
    text = f"{failure.evidence} {failure.detail or ''}"
    if "leave no GPU memory for the KV cache" not in text:
        return None
    run = failure.count("run_mem_fraction_static")
    f = float(run.value) if run is not None else fraction
    at = f"{f:g}" if f else "the run's fraction"
    draft = (" (the message adds that draft weights are counted: a speculative draft model's weights are part of "
             "what was loaded)") if "draft weights" in text else ""
    return (f"the loaded weights leave no KV budget at mem_fraction_static {at}: SGLang's weights check (0.5.14+) found "
            f"free memory after the load − pre-load memory × (1 − {at}) ≤ 0{draft}; the fraction that clears it is "
            "above 1 − free after the load / pre-load memory (the message's 'minimum viable'), which this paste "
            "does not keep, and clearing it does not yet show the pool holds a token")
