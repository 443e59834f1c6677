"""vLLM's DeepSeek-V4 (``DeepseekV4ForCausalLM``) KV cache: the layers' pages, the KV-cache groups, the blocks the
available memory buys, the blocks one request holds and the printed "GPU KV cache size" / "Maximum concurrency".
Read in the wheels 0.20.0 (the first with the model; 0.19.1 has none) to 0.25.1; other releases are refused.

Layers per decoder layer i < num_hidden_layers (r = max(1, compress_ratios[i])).  With MTP speculative decoding
(``--speculative-config`` method mtp) each of the ``num_nextn_predict_layers`` MTP layers is one more
``DeepseekV4DecoderLayer`` whose attention takes compress ratio 1 (``layer_id`` ≥ ``num_hidden_layers``: "MTP layer
is not included in the compress ratio list", read in 0.20.0 / 0.21.0 ``model_executor/models/deepseek_v4.py``,
0.22.0 – 0.25.0 ``models/deepseek_v4/…``), so it adds one SWA cache layer and nothing else (``mtp_layers``; helper
fix11, 2026-12-05).  Element sizes with ``--kv-cache-dtype fp8`` (vLLM prints "Using DeepSeek's fp8_ds_mla
KV cache format"); B = the cache block size, 256 (``DeepseekV4FlashMLASparseBackend.get_supported_kernel_block_sizes``
[256]); every page is rounded up to 576 B (``alignment=576``, ``kv_cache_interface._apply_alignment_padding``)::

    SWA cache     every layer   block 64, window = sliding_window   64 × 584 B   (``DeepseekV4SWACache``)
    MLA attention r > 1         block B                            B/r × 584 B  (``DeepseekV4MLAAttention``)
    indexer keys  r == 4        block B                            B/4 × (ihd + ihd/128 × 4) B  (``DeepseekV4IndexerCache``)
    compressor    r > 1         block 4 (r 4) / 8 (r 128), window 8 / 128, fp32 state of 2·coff·head_dim
    states        (attention's head_dim; the indexer's with index_head_dim), coff = 2 for r 4 else 1
                                                                    (``CompressorStateCache``)

584 B is vLLM's fixed DeepSeek-V4 fp8_ds_mla token (448 fp8 NoPE + 128 bf16 RoPE + 8 scale B,
``MLAAttentionSpec.real_page_size_bytes`` / ``SlidingWindowMLASpec.real_page_size_bytes``, model_version
"deepseek_v4").

Groups (``v1/core/kv_cache_utils.py`` ``group_and_unify_kv_cache_specs``, ``_get_kv_cache_groups_uniform_groups``,
``_approximate_gcd``): the full group holds every MLA attention and indexer layer; the sliding layers group by
(block, window).  Each sliding layer's page is padded up to the nearest full-group page.  The tuple count d is the
``_approximate_gcd`` of the groups' most-common-page counts (lower bound: the full group's).  Each sliding group is
split into cdiv(n, d) groups, n being its layers per page size.

Blocks from the available bytes A:
    0.20.0 – 0.22.1  A // (Σ distinct full-group pages × longest page bucket of any group)
                     (``_get_kv_cache_config_deepseek_v4``)
    0.23.0 – 0.25.1  A // Σ_page page × (most layers of that page in one group)
                     (0.23 ``_bucket_layers_by_page_size``; 0.24 ``_get_kv_cache_config_packed``)
Blocks per request (0.20.0 – 0.26.0 ``get_max_concurrency_for_kv_cache_config``): cdiv(Σ_groups need_g,
full-group page sum).  need_g = the group's page sum × the most pages any of its layers needs:
cdiv(max_model_len, B) for full layers, cdiv(min(window − 1 + max_num_batched_tokens, max_model_len), block) + 1 for
sliding ones (``SlidingWindowSpec.max_admission_blocks_per_request``).
Printed tokens (``_report_kv_cache_config``; 0.24 ``get_kv_cache_capacity``): 0.20.0 blocks // groups × the
smallest group block (4); 0.20.1+ int(concurrency × max_model_len).
Fit check (0.20.0 – 0.26.0 ``_max_memory_usage_bytes_from_groups``, ``_check_enough_kv_cache_memory``): one request
of max_model_len needs Σ_groups T × (its most pages per request) × Σ distinct full-group pages, T the most layers of
one page in any group; above the available bytes vLLM raises and names the longest length that fits (binary
search, ``_estimate_max_model_len_from_groups``).
Not read, refused: 0.26.0 (``group_and_unify_kv_cache_specs`` changed, sliding need × batches in flight), 0.27+
(blocks per request summed per group), 0.28+ (specs and layout rewritten).
"""

from __future__ import annotations

from collections import Counter

from tpkit.engines.vllm.capacity import longest_fitting
from tpkit.engines.vllm.pages import cdiv
from tpkit.engines.vllm.versions import parse_version
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

FIRST = (0, 20, 0)
"""the first release wheel with ``DeepseekV4ForCausalLM`` (0.19.1 has none)"""
LAST = (0, 25, 1)
"""the newest release whose DeepSeek-V4 KV layout this module reproduces"""
PACKED_FROM = (0, 23, 0)
"""0.23.0: bytes per block summed over page buckets (``_bucket_layers_by_page_size``)"""
CONCURRENCY_TOKENS_FROM = (0, 20, 1)
"""0.20.1: printed tokens = int(max_concurrency × max_model_len)"""
SUPPORTED = f"{'.'.join(map(str, FIRST))} – {'.'.join(map(str, LAST))}"
"""the modelled releases, as error messages name them"""
ERAS = ((FIRST, (0, 20, 0)), (CONCURRENCY_TOKENS_FROM, (0, 22, 1)), (PACKED_FROM, LAST))
"""(first, last release read) of each era: the 0.20.0 tokens rule; the tuple layout; the packed layout"""
KV_TOKEN_BYTES = 584
ALIGN = 576
BLOCK = 256
SWA_BLOCK = 64
STATE_BLOCK = {4: 4, 128: 8}
INDEXER_QUANT_BLOCK = 128
FP8_NAMES = ("fp8", "fp8_ds_mla")


def config_of(model) -> dict:
    """The DeepSeek-V4 config fields this module reads, from a parsed model (``models.spec.ModelSpec``)."""
    extra = model.extra
    return {"num_hidden_layers": model.num_layers, "compress_ratios": extra.get("compress_ratios"),
            "head_dim": model.head_dim, "qk_rope_head_dim": extra.get("qk_rope_head_dim"),
            "index_head_dim": extra.get("index_head_dim"), "sliding_window": model.sliding_window}


def _round_up(x: int, a: int) -> int:
    return -(-x // a) * a


@dataclass(frozen=True, kw_only=True, slots=True)
class Dsv4Group:
    """One vLLM KV-cache group: its layers' pages (bytes, after padding) and what one request needs."""

    name: str
    """the group's kind: the attention + indexer group, or a sliding group by (block, window)"""
    pages: tuple[int, ...]
    """bytes of one block of each layer slot in the group, after padding to the common page"""
    block_size: int
    """tokens per block of this group"""
    window: int | None
    """tokens the group keeps per request (sliding window); None: full attention"""

    def page_sum(self) -> int:
        return sum(self.pages)

    def pages_per_request(self, max_model_len: int, max_num_batched_tokens: int) -> int:
        if self.window is None:
            return cdiv(max_model_len, self.block_size)
        return cdiv(min(self.window - 1 + max_num_batched_tokens, max_model_len), self.block_size) + 1


@dataclass(frozen=True, kw_only=True, slots=True)
class Dsv4Capacity:
    """vLLM's DeepSeek-V4 KV cache for one rank: the groups, the blocks the budget buys and the printed figures."""

    groups: tuple[Dsv4Group, ...]
    """the KV-cache groups (``build_groups``)"""
    bytes_per_block: int
    """bytes one block index costs across every group's slots"""
    num_blocks: int
    """blocks the available KV memory buys (available bytes // bytes_per_block)"""
    blocks_per_request: int
    """blocks one request of max_model_len holds over the groups"""
    max_concurrency: float
    """requests of max_model_len that fit ('Maximum concurrency for … tokens per request')"""
    tokens: int
    """the printed 'GPU KV cache size: N tokens' (the release's rule)"""
    needed_bytes: int
    """what one request of max_model_len needs by the fit check"""
    fits: bool
    estimated_max_model_len: int
    """the longest length that passes the fit check (max_model_len when it fits; 0 when not one token does)"""


def parse_release(version: str) -> tuple[int, int, int]:
    """The release ``version`` names, read like every other vLLM version (``engines.vllm.versions.parse_version``:
    ``0.20.0rc1`` → (0, 20, 0), ``0.23.1rc1.dev5+g…`` → (0, 23, 1))."""
    return parse_version(str(version).strip())


def check_release(version: str) -> tuple[int, int, int]:
    """The release tuple of ``version`` when its DeepSeek-V4 KV layout is modelled (``FIRST``–``LAST``: the wheels
    0.20.0–0.25.1 read, see the module docstring); else a ``PlanInputError`` naming the supported range."""
    rel = parse_release(version)
    if not FIRST <= rel <= LAST:
        raise PlanInputError(
            f"vLLM {version}: DeepSeek-V4's KV cache layout is modelled for vLLM {SUPPORTED} only (0.19 has no "
            "DeepseekV4ForCausalLM; 0.26+ changed the grouping and the per-request count); "
            "pass --engine-version 0.25.1")
    return rel


def layer_ratios(config: dict, *, where: str = "config.json") -> tuple[int, ...]:
    """max(1, compress_ratios[i]) for the num_hidden_layers decoder layers (``DeepseekV4DecoderLayer``)."""
    n = config.get("num_hidden_layers")
    ratios = config.get("compress_ratios")
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise PlanInputError(f"{where}: DeepSeek-V4 needs a positive integer 'num_hidden_layers', got {n!r:.40}")
    if not isinstance(ratios, (list, tuple)) or len(ratios) < n or any(
            not isinstance(r, int) or isinstance(r, bool) or r not in (0, 1, 4, 128) for r in ratios[:n]):
        raise PlanInputError(f"{where}: DeepSeek-V4 needs 'compress_ratios', one of 0 / 4 / 128 for each of the "
                             f"{n} layers, got {ratios!r:.80}")
    return tuple(max(1, r) for r in ratios[:n])


def _num(config: dict, key: str, where: str) -> int:
    v = config.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise PlanInputError(f"{where}: DeepSeek-V4 needs a positive integer {key!r}, got {v!r:.40}")
    return v


def layer_pages(config: dict, *, where: str = "config.json",
                mtp_layers: int = 0) -> dict[str, tuple[int, int, int | None, int]]:
    """Per page kind: (page bytes before group padding, block size, window or None for full, layer count);
    ``mtp_layers`` MTP layers add SWA layers (module doc)."""
    ratios = layer_ratios(config, where=where)
    head, rope, ihd = _num(config, "head_dim", where), _num(config, "qk_rope_head_dim", where), \
        _num(config, "index_head_dim", where)
    window = _num(config, "sliding_window", where)
    if (head, rope) != (512, 64):  # the 584 B token is fixed for this shape (backends: head size 512 only)
        raise PlanInputError(f"{where}: vLLM sizes DeepSeek-V4's fp8_ds_mla token at 584 B for head_dim 512 / "
                             f"qk_rope_head_dim 64, got {head} / {rope}")
    n4, n128 = ratios.count(4), ratios.count(128)
    idx_token = ihd + ihd // INDEXER_QUANT_BLOCK * 4
    return {
        "swa": (_round_up(SWA_BLOCK * KV_TOKEN_BYTES, ALIGN), SWA_BLOCK, window, len(ratios) + mtp_layers),
        "c4a": (_round_up(BLOCK // 4 * KV_TOKEN_BYTES, ALIGN), BLOCK, None, n4),
        "c128a": (_round_up(BLOCK // 128 * KV_TOKEN_BYTES, ALIGN), BLOCK, None, n128),
        "c4i": (_round_up(BLOCK // 4 * idx_token, ALIGN), BLOCK, None, n4),
        "c4a_state": (_round_up(STATE_BLOCK[4] * 2 * 2 * head * 4, ALIGN), STATE_BLOCK[4], 2 * 4, n4),
        "c128a_state": (_round_up(STATE_BLOCK[128] * 2 * head * 4, ALIGN), STATE_BLOCK[128], 128, n128),
        "c4i_state": (_round_up(STATE_BLOCK[4] * 2 * 2 * ihd * 4, ALIGN), STATE_BLOCK[4], 2 * 4, n4),
    }


def approximate_gcd(values: list[int], lower_bound: int) -> int:
    """The d in [lower_bound, max(values)] with the least Σ round-up padding; ties go to the larger d."""
    best_d, best_pad = max(1, lower_bound), None
    for d in range(max(1, lower_bound), max(values) + 1):
        pad = sum((d - x % d) % d for x in values)
        if best_pad is None or pad <= best_pad:
            best_d, best_pad = d, pad
    return best_d


def build_groups(config: dict, *, where: str = "config.json",
                 mtp_layers: int = 0) -> tuple[tuple[Dsv4Group, ...], list[dict[int, int]]]:
    """The KV-cache groups (full first) and, per group, layers by padded page size."""
    kinds = layer_pages(config, where=where, mtp_layers=mtp_layers)
    full = [k for k, v in kinds.items() if v[2] is None and v[3] > 0]
    full_pages = [kinds[k][0] for k in full for _ in range(kinds[k][3])]
    full_sizes = sorted(set(full_pages))
    sliding: dict[tuple[int, int], list[str]] = {}
    for k, (_, block, window, count) in kinds.items():
        if window is not None and count > 0:
            sliding.setdefault((block, window), []).append(k)
    tuples_full = Counter(full_pages).most_common(1)[0][1]
    counts = [tuples_full] + [Counter(p for k in ks for p in [kinds[k][0]] * kinds[k][3]).most_common(1)[0][1]
                              for ks in sliding.values()]  # UniformTypeKVCacheSpecs.get_num_layer_tuples
    d = approximate_gcd(counts, counts[0])
    groups = [Dsv4Group(name="full", pages=tuple(full_pages), block_size=BLOCK, window=None)]
    buckets = [dict(Counter(full_pages))]
    for (block, window), ks in sliding.items():
        per_size: dict[int, int] = {}
        for k in ks:
            cand = min(x for x in full_sizes if x >= kinds[k][0])
            per_size[cand] = per_size.get(cand, 0) + kinds[k][3]
        n = set(per_size.values())
        if len(n) != 1:
            raise PlanInputError(f"{where}: vLLM requires the same layer count per page size in a DeepSeek-V4 "
                                 f"sliding group, got {per_size}")
        layers = n.pop()
        splits = cdiv(layers, d)
        for i in range(splits):
            share = len(range(i, layers, splits))
            groups.append(Dsv4Group(name=f"sliding {window} (block {block}) {i + 1}/{splits}",
                                    pages=tuple(p for p in per_size for _ in range(share)),
                                    block_size=block, window=window))
            buckets.append({p: share for p in per_size})
    return tuple(groups), buckets


def bytes_per_block(groups: tuple[Dsv4Group, ...], buckets: list[dict[int, int]], release: tuple[int, int, int]) -> int:
    """What one block costs across every layer (0.20.0 – 0.22.1 / 0.23.0+ rules, module doc)."""
    sizes = set(p for b in buckets for p in b)
    if release >= PACKED_FROM:
        return sum(p * max(b.get(p, 0) for b in buckets) for p in sizes)
    return sum(set(groups[0].pages)) * max(n for b in buckets for n in b.values())


def needed_bytes(groups: tuple[Dsv4Group, ...], buckets: list[dict[int, int]], max_model_len: int,
                 max_num_batched_tokens: int) -> int:
    """The fit check's need for one request of ``max_model_len`` (module doc)."""
    tuples = max(n for b in buckets for n in b.values())
    tuple_bytes = sum(set(groups[0].pages))
    return sum(tuples * g.pages_per_request(max_model_len, max_num_batched_tokens) * tuple_bytes for g in groups)


def estimate_max_model_len(groups, buckets, available_bytes: int, upper: int, max_num_batched_tokens: int) -> int:
    """vLLM's binary search for the longest length in [1, upper] whose need fits; 0 when none does."""
    return longest_fitting(lambda n: needed_bytes(groups, buckets, n, max_num_batched_tokens) <= available_bytes, upper)


def plan_dsv4(config: dict, available_bytes: int, *, version: str, max_model_len: int,
              max_num_batched_tokens: int, kv_cache_dtype: str = "fp8", where: str = "config.json",
              mtp_layers: int = 0) -> Dsv4Capacity:
    """Blocks, per-request blocks, concurrency and printed tokens of one rank (module doc); ``mtp_layers``: the MTP
    drafter's layers (0 without MTP speculative decoding)."""
    release = check_release(version)
    if str(kv_cache_dtype).lower() not in FP8_NAMES:
        raise PlanInputError(f"vLLM DeepSeek-V4: only --kv-cache-dtype fp8 (vLLM's fp8_ds_mla layout) is modelled, "
                             f"got {kv_cache_dtype!r}; pass --kv-cache-dtype fp8")
    if max_model_len <= 0 or max_num_batched_tokens <= 0:
        raise PlanInputError(f"vLLM DeepSeek-V4: max_model_len and max_num_batched_tokens must be positive, got "
                             f"{max_model_len} and {max_num_batched_tokens}")
    if not isinstance(mtp_layers, int) or isinstance(mtp_layers, bool) or mtp_layers < 0:
        raise PlanInputError(f"vLLM DeepSeek-V4: mtp_layers must be a whole number ≥ 0, got {mtp_layers!r}")
    groups, buckets = build_groups(config, where=where, mtp_layers=mtp_layers)
    per_block = bytes_per_block(groups, buckets, release)
    blocks = max(int(available_bytes) // per_block, 0)
    usage = sum(g.page_sum() * g.pages_per_request(max_model_len, max_num_batched_tokens) for g in groups)
    per_request = cdiv(usage, groups[0].page_sum())
    concurrency = blocks / per_request
    if release >= CONCURRENCY_TOKENS_FROM:
        tokens = int(concurrency * max_model_len)
    else:
        tokens = blocks // len(groups) * min(g.block_size for g in groups)
    need = needed_bytes(groups, buckets, max_model_len, max_num_batched_tokens)
    fits = 0 < need <= int(available_bytes)
    est = max_model_len if fits else estimate_max_model_len(groups, buckets, int(available_bytes), max_model_len,
                                                            max_num_batched_tokens)
    return Dsv4Capacity(groups=groups, bytes_per_block=per_block, num_blocks=blocks, blocks_per_request=per_request,
                        max_concurrency=concurrency, tokens=tokens, needed_bytes=need, fits=fits,
                        estimated_max_model_len=est)
