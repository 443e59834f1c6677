"""From available KV bytes to blocks, printed tokens, concurrency and the max_model_len check
(vLLM 0.33 ``vllm/v1/core/kv_cache_planning.py`` ``get_kv_cache_configs``,
``vllm/v1/core/kv_cache_utils.py`` ``get_max_concurrency_for_kv_cache_config`` / ``get_kv_cache_capacity``; 0.11 as
noted).

    num_blocks           = available // bytes_per_block                     (min over workers)
    blocks per request   = Σ_groups blocks one request of max_model_len holds
    max_concurrency      = num_blocks / blocks per request                  (null block included)
    printed tokens       ≥ 0.20.1: int(max_concurrency × max_model_len) (``_report_kv_cache_config``; 0.21.0's
                           figure, backported into the 0.20.1 and 0.20.2 patch releases)
                         V1 < 0.20.1: num_blocks // num_groups × min block size (× dcp when dcp > 1)
                         V0  : num_blocks × block_size
    fit check            needed(max_model_len) ≤ available (≥ 0.29: available − one block); otherwise the
                         "estimated maximum model length" is the largest length that fits (binary search)

Sliding-window (and chunked-local) groups hold the window plus the tokens in flight
(``v1/kv_cache_interface.py SlidingWindowSpec/ChunkedLocalAttentionSpec.max_memory_usage_bytes``): one batch
of ``max_num_batched_tokens`` up to 0.25, ``max_concurrent_batches × max_num_batched_tokens`` from 0.26.0
(``config/vllm.py VllmConfig.max_concurrent_batches``, same in 0.26–0.33): with async scheduling (the default
from 0.16 unless the V1 model runner runs pp > 1 or a speculative method other than EAGLE/MTP/draft-model/
ngram-GPU) it is ``pp + 1`` on Model Runner V2 and 2 on the V1 runner at pp = 1; without it, ``pp``.
Decode context parallel (``--decode-context-parallel-size D``, ≥ 0.10.2): each rank stores every D-th token,
so full/MLA groups need ``cdiv(cdiv(max_model_len, D), block)`` blocks per request
(``FullAttentionSpec.max_memory_usage_bytes``).

The extensible KV cache's commit granule (vLLM ≥ 0.34; helper g34, 2026-12-05): the pool measured after warm-up
becomes a block count only where every per-layer segment, rounded up to 2 MiB, fits (``granule_floor``).
vLLM 0.34.0, read in the wheel:

* ``v1/worker/extensible_kv_cache.py measure_kv_cache_blocks``: ``num_blocks = kv_cache.blocks_within(bytes)``,
  ``blocks_within`` = the most blocks N with ``physical_bytes_for(N) <= bytes``, ``physical_bytes_for(N)`` =
  Σ over segments of ceil(N × stride / granule) × granule.
* ``ExtensibleKVCache._segments``: one segment per layer region (offset ``tensor.offset + l × layer_stride``) for a
  block-compact layer-outermost layout, of stride that layer's page; one segment for a block-outermost layout.  The
  default layout is layer-outermost (``v1/attention/backends/utils.py _DEFAULT_LAYOUT_PREFERENCE``: LBNHC first;
  FlashInfer on SM 10.x LBHNC first); only DeepSeek-V4's indexer (``DeepseekV4IndexerBackend``) and the optional
  ``KPOOL_TAIL`` backend require block-outermost (BLHNC).
* ``v1/core/kv_cache_planning.py get_kv_cache_config_from_groups``: the groups alias from byte 0 and each layer of a
  group owns a region, so a hybrid has ``group_size`` regions (the largest group's layers; padding slots own none);
  ``layers_by_spec`` gives every spec its own regions (a DeepSeek-V3.2 indexer cache is a layer of its own,
  ``DeepseekV32IndexerCache``, beside the MLA latent: two regions per layer).
* ``utils/extensible_tensor.py granule_size``: max(driver granularity, 2 MiB) rounded up to the driver's (CUDA
  2 MiB; ROCm reports 4 KiB, so 2 MiB too).

So N is ``available // bytes_per_block`` less up to ⌈segments × 2 MiB / bytes_per_block⌉ blocks.  0.33.0 and earlier
do not round the count: 0.33.0 ``v1/worker/utils.py allocate_kv_cache`` allocates one ``torch.zeros`` of
num_blocks × bytes_per_block, 0.28.0 ``gpu_model_runner.py _allocate_kv_cache_tensors`` one ``torch.zeros`` per
layer of num_blocks × page; the caching allocator rounds each segment up (≤ 2 MiB) outside the count, so the
block count stays ``available // bytes_per_block`` there and the granule applies to the extensible pool only.
DeepSeek-V4 (block-outermost, one segment: at most one block less) keeps its own capacity path and is not
rounded here."""

from __future__ import annotations

from tpkit.engines.vllm.pages import KvLayout, cdiv
from tpkit.engines.vllm.versions import VllmRules
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["KvCapacity", "plan_capacity", "needed_bytes", "estimate_max_model_len", "max_concurrent_batches",
           "KV_COMMIT_GRANULE", "segment_strides", "physical_bytes_for", "blocks_within", "granule_floor"]


@dataclass(frozen=True, kw_only=True, slots=True)
class KvCapacity:
    """What vLLM derives from the available KV bytes of the limiting rank."""

    num_blocks: int
    """blocks allocated (including vLLM's null block in V1)"""
    tokens: int
    """"GPU KV cache size: N tokens" as the era prints it (V0: blocks × block size)"""
    max_concurrency: float
    """requests of max_model_len tokens that fit at once"""
    blocks_per_request: int
    needed: Bytes
    """KV bytes one request of max_model_len needs (the fit check's left side)"""
    fits: bool
    """one request of max_model_len fits"""
    estimated_max_model_len: int
    """the largest max_model_len that fits (0 when not even one token fits)"""


def max_concurrent_batches(rules: VllmRules, pp: int, *, v2_runner: bool | None = None,
                           async_scheduling: bool = True) -> int:
    """Batches in flight at once (``VllmConfig.max_concurrent_batches``, ≥ 0.26); 1 before 0.26, where the
    sliding need counts one batch.  ``v2_runner`` None: the release's default runner."""
    if not rules.sliding_in_flight:
        return 1
    v2 = rules.v2_runner_default if v2_runner is None else v2_runner
    if async_scheduling and not (not v2 and pp > 1):
        return pp + 1 if v2 else 2
    return pp


def _blocks_per_request(layout: KvLayout, length: int, in_flight: int, dcp: int = 1) -> int:
    return sum(g.blocks_per_request(length, in_flight, dcp) for g in layout.groups)


def needed_bytes(layout: KvLayout, length: int, in_flight: int, rules: VllmRules, dcp: int = 1) -> Bytes:
    """KV bytes one request of ``length`` tokens needs, as the era's fit check counts them."""
    if rules.era == "0.33":
        return layout.bytes_per_block * _blocks_per_request(layout, length, in_flight, dcp)
    return sum((layout.group_block_bytes(g) * g.blocks_per_request(length, in_flight, dcp) for g in layout.groups),
               Bytes(0))


def _budget_for_check(layout: KvLayout, available: Bytes, rules: VllmRules) -> Bytes:
    return available - layout.bytes_per_block if rules.fit_check_reserves_block else available


def estimate_max_model_len(layout: KvLayout, available: Bytes, upper: int, in_flight: int,
                           rules: VllmRules, dcp: int = 1) -> int:
    """Largest length in [1, upper] whose need fits (vLLM's binary search); 0 if none."""
    budget = _budget_for_check(layout, available, rules)
    if rules.engine == "V0":
        return min(upper, max(available // layout.bytes_per_block, 0) * layout.block_size)
    return longest_fitting(lambda n: needed_bytes(layout, n, in_flight, rules, dcp) <= budget, upper)


def longest_fitting(fits, upper: int) -> int:
    """vLLM's binary search (``kv_cache_utils.py`` ``estimate_max_model_len``): the largest length n in [1, upper]
    with ``fits(n)``, the need growing with n; 0 when not even 1 fits."""
    if not fits(1):
        return 0
    lo, hi, best = 1, upper, 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best


def _printed_tokens(layout: KvLayout, blocks: int, concurrency: float, length: int, rules: VllmRules,
                    dcp: int) -> int:
    if rules.tokens_rule == "concurrency":
        return int(concurrency * length)
    if rules.tokens_rule == "groups":
        return blocks // len(layout.groups) * layout.block_size * dcp
    return blocks * layout.block_size


def plan_capacity(layout: KvLayout, available: Bytes, *, max_model_len: int, max_num_batched_tokens: int,
                  pp: int, rules: VllmRules, concurrent_batches: int | None = None, dcp: int = 1) -> KvCapacity:
    """Blocks, printed tokens, concurrency and the fit check for one rank.

    ``concurrent_batches``: batches in flight for the sliding need (default: ``max_concurrent_batches`` of the
    release's default runner at this pp); ``dcp``: decode-context-parallel size."""
    batches = max_concurrent_batches(rules, pp) if concurrent_batches is None else concurrent_batches
    in_flight = max_num_batched_tokens * batches
    blocks = max(available // layout.bytes_per_block, 0) if available > Bytes(0) else 0
    per_request = _blocks_per_request(layout, max_model_len, in_flight, dcp)
    concurrency = (blocks * layout.block_size / max_model_len if rules.engine == "V0"
                   else blocks / per_request)
    tokens = _printed_tokens(layout, blocks, concurrency, max_model_len, rules, dcp)
    if rules.engine == "V0":
        need = layout.bytes_per_block * cdiv(max_model_len, layout.block_size)
        fits = blocks * layout.block_size >= max_model_len
    else:
        need = needed_bytes(layout, max_model_len, in_flight, rules, dcp)
        fits = available > Bytes(0) and need <= _budget_for_check(layout, available, rules)
    est = max_model_len if fits else estimate_max_model_len(layout, available, max_model_len, in_flight, rules,
                                                            dcp)
    return KvCapacity(num_blocks=blocks, tokens=tokens, max_concurrency=concurrency, blocks_per_request=per_request,
                      needed=need, fits=fits, estimated_max_model_len=est)


KV_COMMIT_GRANULE = Bytes(2 << 20)
"""``utils/extensible_tensor.py _MIN_GRANULARITY`` / ``granule_size`` (vLLM 0.34.0): 2 MiB on CUDA and ROCm"""


def segment_strides(layout: KvLayout, *, indexer_page: int = 0) -> tuple[int, ...]:
    """The block stride of every segment of the extensible KV cache on the limiting rank (one per layer region).

    One kind of layer: one region per layer of its page (a uniform-type drafter's layers at theirs); a hybrid:
    ``group_size`` regions of the unified page.  ``indexer_page``: bytes of one block of a DeepSeek-V3.2 indexer
    cache per MLA layer, which vLLM registers as a layer of its own (tpkit folds it into the MLA page)."""
    if len({g.kind for g in layout.groups}) > 1 or len(layout.groups) > 1:
        page = layout.bytes_per_block.bytes // max(layout.group_size, 1)
        return (page,) * layout.group_size
    strides: list[int] = []
    for g in layout.groups:
        if indexer_page and g.kind == "mla" and 0 < indexer_page < g.page_bytes.bytes:
            strides += [g.page_bytes.bytes - indexer_page, indexer_page] * g.num_layers
        else:
            strides += [g.page_bytes.bytes] * g.num_layers
    if not layout.draft_in_groups and layout.draft_layers:
        strides += [layout.draft_page_bytes.bytes] * layout.draft_layers
    return tuple(s for s in strides if s > 0)


def physical_bytes_for(num_blocks: int, strides: tuple[int, ...], granule: Bytes = KV_COMMIT_GRANULE) -> Bytes:
    """``ExtensibleKVCache.physical_bytes_for``: the bytes a commit of ``num_blocks`` maps, each segment rounded up
    to the granule."""
    g = granule.bytes
    return Bytes(sum(-(-num_blocks * s // g) * g for s in strides))


def blocks_within(num_bytes: Bytes, strides: tuple[int, ...], granule: Bytes = KV_COMMIT_GRANULE) -> int:
    """``ExtensibleKVCache.blocks_within``: the most blocks whose physical footprint fits in ``num_bytes``."""
    per_block = sum(strides)
    if num_bytes.bytes <= 0 or per_block <= 0:
        return 0
    hi = num_bytes.bytes // per_block
    lo = max((num_bytes.bytes - len(strides) * granule.bytes) // per_block, 0)  # fits: each segment loses < 1 granule
    while lo < hi:  # the footprint grows with the count: the largest fitting count by bisection
        mid = (lo + hi + 1) // 2
        if physical_bytes_for(mid, strides, granule) <= num_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo


def granule_floor(available: Bytes, layout: KvLayout, *, indexer_page: int = 0) -> tuple[Bytes, int]:
    """(the KV bytes the block count takes after ``blocks_within``: its blocks × ``layout.bytes_per_block``, the
    number of segments).  Where tpkit's segments do not add up to its bytes per block (a layout it cannot split
    by region) the available bytes are returned unrounded."""
    strides = segment_strides(layout, indexer_page=indexer_page)
    if available.bytes <= 0 or sum(strides) != layout.bytes_per_block.bytes:
        return available, 0
    return layout.bytes_per_block * blocks_within(available, strides), len(strides)
