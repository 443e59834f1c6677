"""SGLang's DeepSeek-V4 (``DeepseekV4ForCausalLM``) KV pools: the bytes one full-pool token costs and the split of
the pools (sglang 0.5.12 ``model_executor/pool_configurator.py`` ``DSV4PoolConfigurator._get_bytes_per_full_token``
/ ``_compute_dsv4_sizes`` / ``calculate_pool_sizes``; ring sizes ``mem_cache/deepseek_v4_memory_pool.py``
``get_compress_state_ring_size``; the layout fields ``configs/model_config.py`` ``ModelConfig``: qk_nope =
head_dim − qk_rope_head_dim, window = sliding_window, compress_ratios as the config lists them, MTP slot included).

Per full token, L = len(compress_ratios) layers, n4 / n128 the layers of ratio 4 / 128, r = --swa-full-tokens-ratio
(0.8), W = sliding window (the SWA page of the compress states), ring4 / ring128 the compress-state ring sizes::

    kv       = qk_nope + 2 × qk_rope + 8                 fp8 nope, bf16 rope, scales + pad (584 B for V4-Flash)
    indexer  = index_head_dim + index_head_dim // 128 × 4
    states   = 2·2·head_dim·4 (c4), 2·head_dim·4 (c128), 2·2·index_head_dim·4 (c4 indexer)   fp32
    cell     = r·kv·L + kv·n4/4 + kv·n128/128 + indexer·n4/4
               + r·(ring4/W)·(c4 + c4 indexer states)·n4 + r·(ring128/W)·c128 state·n128
    spec     cell × (L + 1) / L   (0.5.12 – 0.5.14, a draft worker reserved)

    full  = floor_page(int(budget / cell)); swa = floor_page(int(full × r)); c4 = full // 4; c128 = full // 128;
    c4_state = swa // W × ring4; c128_state = swa // W × ring128

Ring sizes: 0.5.12 – 0.5.14 give 8 / 128 without speculative decoding and 16 / 256 with it.  Builds before 0.5.12 (the
0.5.11.dev builds that first served V4; the 0.5.11 release has no V4 pools) used 16 / 256 with no (L+1)/L factor:
inferred, not read — sglang#25118 (0.5.11.dev20260512) prints c4_state_pool_size = swa // 128 × 16 and
c128_state_pool_size = swa // 128 × 256 with no speculative algorithm, and its printed bytes_per_full_token
(176,983.05) is this formula's with those rings.  0.5.13 and 0.5.14 keep the formula (0.5.13
slices compress_ratios by PP stage; tpkit refuses pp > 1).  From 0.5.15 the c128 states are priced per request
(``_get_c128_state_fixed_bytes``, below); 0.5.20+ adds an SWA cap mode, page padding and unified / fp4-indexer
variants: not modelled, refused.

0.5.13+ slice ``compress_ratios[start_layer:end_layer]`` (0.5.13 – 0.5.19 ``DSV4PoolConfigurator.__init__``), and
``ModelRunner.end_layer`` is ``num_hidden_layers``: at pp 1 the MTP slot (the list's last entry, a 0 for V4-Flash)
drops out, L = 43 for V4-Flash (sg_484 prints bytes_per_full_token=7705.45 = this formula with L 43, r 0.1).

0.5.15 – 0.5.19 (``pool_configurator.py`` ``DSV4PoolConfigurator._get_bytes_per_full_token`` /
``_get_c128_state_fixed_bytes`` / ``calculate_pool_sizes``; the class is the same in the five wheels, refactors
only): the c128 compress states leave the per-token cell (``c128_state_ratio = 0``) and are priced per request
before the split::

    slots = max_running_requests // dp + 1                (decode disaggregation: + extra slots)
    rows  = ceil128(slots × ring128 + ring128 + 1)
    fixed = rows × 2·head_dim × 4 B × n128
    full  = floor_page(int((budget − fixed) / cell))

``dsv4_budget_tokens`` is this formula for every modelled release (fixed = 0 before 0.5.15); ``tpkit plan``
(``engines.sglang.budget.kv_budget``) and ``tpkit explain`` (``explain.sgpool``) both call it.
``max_running_requests`` is the user's, else 256 (0.5.15 – 0.5.19 ``arg_groups/deepseek_v4_hook.py`` sets it for
DeepSeek-V4 before the pools), so the configurator's estimate from the context length is not reached.  0.5.20 rewrites
the configurator (SWA cap, page padding): not modelled, refused.
Not modelled either: SGLANG_OPT_USE_ONLINE_COMPRESS (c128 ring 1, 3 × head_dim state) and HiSparse (c4 shrink).
"""

from __future__ import annotations

import dataclasses

from tpkit.engines.sglang.versions import parse_version
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

FIRST_RELEASE = "0.5.12"
"""the first release wheel with ``DSV4PoolConfigurator`` (0.5.11's has no DeepSeek-V4 pools)"""
LAST_MODELLED = "0.5.19"
"""the newest release whose DSV4 configurator this module reproduces (0.5.12 – 0.5.14 read: the same
``_get_bytes_per_full_token`` and ``_compute_dsv4_sizes``; 0.5.15 – 0.5.19 read: c128 states priced per request;
0.5.20 rewrites the class)"""
STAGE_SLICE_FIRST = "0.5.13"
"""the first release that slices ``compress_ratios`` to the stage's layers (the MTP slot drops out at pp 1)"""
FIXED_C128_FIRST = "0.5.15"
"""the first release that prices the c128 compress states per request (``_get_c128_state_fixed_bytes``)"""
DEFAULT_RUNNING = 256
"""0.5.15 – 0.5.19 ``arg_groups/deepseek_v4_hook.py``: max_running_requests when the user sets none"""
STATE_BYTES = 4
"""compress states are fp32 (``state_dtype_size = 4``)"""
INDEXER_QUANT_BLOCK = 128


@dataclass(frozen=True, kw_only=True)
class Dsv4Layout:
    """The DeepSeek-V4 attention facts SGLang sizes its pools from (``ModelConfig`` fields)."""

    qk_nope_head_dim: int
    """head_dim − qk_rope_head_dim (elements)"""
    qk_rope_head_dim: int
    """(elements)"""
    index_head_dim: int
    """the c4 indexer's key width (elements)"""
    window: int
    """sliding_window (tokens): the SWA page of the compress states"""
    compress_ratios: tuple[int, ...]
    """0 / 4 / 128 per layer, MTP slot included"""

    def layers(self, ratio: int | None = None) -> int:
        """Layers (MTP slot included) of ``ratio``; all of them for None."""
        return len(self.compress_ratios) if ratio is None else sum(1 for r in self.compress_ratios if r == ratio)

    def kv_bytes(self) -> int:
        """Bytes of one token's KV entry in one layer: fp8 nope, bf16 rope, scales + pad (584 for V4-Flash)."""
        return self.qk_nope_head_dim + 2 * self.qk_rope_head_dim + 8

    def indexer_bytes(self) -> int:
        """Bytes of one token's c4 indexer key in one layer: fp8 elements and a 4-byte scale per 128 of them."""
        return self.index_head_dim + self.index_head_dim // INDEXER_QUANT_BLOCK * 4


@dataclass(frozen=True, kw_only=True)
class Dsv4Cell:
    """Bytes per full-pool token and the rules it was built with."""

    bytes_per_full_token: float
    swa_ratio: float
    """--swa-full-tokens-ratio: SWA pool tokens per full-pool token"""
    ring4: int
    """c4 compress-state ring size (slots per window)"""
    ring128: int
    """c128 compress-state ring size (slots per window)"""
    window: int
    """sliding window (tokens)"""
    speculative: bool
    source: str
    c128_per_request: bool = False
    """0.5.15+: the c128 states are not in the cell nor in the split (``c128_state_fixed_bytes``)"""
    c128_fixed_rows: int = 0
    """0.5.15+: rows of the per-request c128 state pool once priced (``dsv4_budget_tokens``; 0: not priced yet)"""


@dataclass(frozen=True, kw_only=True)
class Dsv4Pools:
    """Token / slot counts of the DSV4 pools (``_DSV4PoolSizes``): ``full``, ``swa``, ``c4``, ``c128`` in tokens,
    ``c4_state`` / ``c128_state`` in compress-state slots."""

    full: int
    swa: int
    c4: int
    c128: int
    c4_state: int
    c128_state: int


def layout_of(config: dict, *, where: str = "config.json") -> Dsv4Layout:
    """The layout from a DeepSeek-V4 config (``head_dim``, ``qk_rope_head_dim``, ``index_head_dim``,
    ``sliding_window``, ``compress_ratios``); a missing or malformed field is a ``PlanInputError`` naming it."""
    def num(key: str) -> int:
        v = config.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise PlanInputError(f"{where}: DeepSeek-V4 needs a positive integer {key!r} to size SGLang's KV pools, "
                                 f"got {v!r:.40}; use the checkpoint's config.json")
        return v
    ratios = config.get("compress_ratios")
    if not isinstance(ratios, (list, tuple)) or not ratios or any(
            not isinstance(r, int) or isinstance(r, bool) or r not in (0, 4, 128) for r in ratios):
        raise PlanInputError(f"{where}: DeepSeek-V4 needs 'compress_ratios', a list of 0 / 4 / 128 per layer "
                             f"(SGLang 0.5.12 sizes only those), got {ratios!r:.80}")
    head, rope = num("head_dim"), num("qk_rope_head_dim")
    if rope >= head:
        raise PlanInputError(f"{where}: qk_rope_head_dim {rope} must be below head_dim {head}")
    return Dsv4Layout(qk_nope_head_dim=head - rope, qk_rope_head_dim=rope, index_head_dim=num("index_head_dim"),
                      window=num("sliding_window"), compress_ratios=tuple(ratios))


def check_version(version: str) -> None:
    """Refuse releases whose DSV4 configurator is not the one modelled (after 0.5.19)."""
    if parse_version(version) > parse_version(LAST_MODELLED):
        raise PlanInputError(
            f"SGLang {version}: DeepSeek-V4's pool sizing after {LAST_MODELLED} is not modelled (0.5.20 rewrites "
            "DSV4PoolConfigurator: an SWA cap mode, page padding, unified / fp4-indexer variants); "
            f"plan with --engine-version {LAST_MODELLED} or earlier (tpkit plan and tpkit explain model 0.5.12 – "
            f"{LAST_MODELLED})")


def stage_layout(layout: Dsv4Layout, version: str, num_hidden_layers: int) -> Dsv4Layout:
    """The layers SGLang counts at pp 1: all of ``compress_ratios`` before 0.5.13, ``[:num_hidden_layers]`` from
    0.5.13 (``compress_ratios[start_layer:end_layer]``; the MTP slot drops out)."""
    if parse_version(version) < parse_version(STAGE_SLICE_FIRST) or num_hidden_layers >= len(layout.compress_ratios):
        return layout
    if num_hidden_layers <= 0:
        raise PlanInputError(f"DeepSeek-V4 needs a positive num_hidden_layers, got {num_hidden_layers}")
    return Dsv4Layout(qk_nope_head_dim=layout.qk_nope_head_dim, qk_rope_head_dim=layout.qk_rope_head_dim,
                      index_head_dim=layout.index_head_dim, window=layout.window,
                      compress_ratios=layout.compress_ratios[:num_hidden_layers])


def c128_fixed(version: str) -> bool:
    """True for releases that price the c128 compress states per request (0.5.15+)."""
    return parse_version(version) >= parse_version(FIXED_C128_FIRST)


def c128_state_rows(layout: Dsv4Layout, cell: "Dsv4Cell", version: str, *, max_running_requests: int | None,
                    attn_dp: int = 1) -> int:
    """Rows of the per-request c128 compress-state pool (0.5.15 – 0.5.19
    ``DSV4PoolConfigurator._get_c128_state_fixed_bytes``): ceil128((running // dp + 1) × ring128 + ring128 + 1);
    ``running`` None: 256, the DeepSeek-V4 hook's default; 0 before 0.5.15 (the states ride in the cell) or without
    c128 layers."""
    if not c128_fixed(version) or layout.layers(128) == 0:
        return 0
    running = DEFAULT_RUNNING if max_running_requests is None else max_running_requests
    if isinstance(running, bool) or not isinstance(running, int) or running <= 0 or attn_dp <= 0:
        raise PlanInputError(f"DeepSeek-V4: max_running_requests and attention DP must be positive integers, got "
                             f"{running!r:.40} and {attn_dp!r:.40}; pass --max-running-requests N (N ≥ 1)")
    slots = running // attn_dp + 1
    return -(-(slots * cell.ring128 + cell.ring128 + 1) // 128) * 128


def c128_state_fixed_bytes(layout: Dsv4Layout, cell: "Dsv4Cell", version: str, *,
                           max_running_requests: int | None, attn_dp: int = 1) -> int:
    """Bytes of the per-request c128 compress states taken from the budget before the split (0.5.15 – 0.5.19
    ``DSV4PoolConfigurator._get_c128_state_fixed_bytes``; 0 before 0.5.15, where the states ride in the cell):
    ``c128_state_rows`` × 2·head_dim fp32 × c128 layers."""
    rows = c128_state_rows(layout, cell, version, max_running_requests=max_running_requests, attn_dp=attn_dp)
    head = layout.qk_nope_head_dim + layout.qk_rope_head_dim
    return rows * 2 * head * STATE_BYTES * layout.layers(128)


@dataclass(frozen=True, kw_only=True)
class Dsv4Budget:
    """The full pool SGLang sizes from one KV budget, and the per-request c128 term taken off it first."""

    full_tokens: int
    c128_fixed_bytes: int
    """0 before 0.5.15"""
    cell: Dsv4Cell
    """the cell with ``c128_fixed_rows`` set (the pool split then counts the per-request c128 state pool)"""
    running: int | None
    """max_running_requests the states were priced at (the user's, else the hook's 256); None before 0.5.15"""


def dsv4_budget_tokens(layout: Dsv4Layout, cell: Dsv4Cell, version: str, available_bytes: int, page_size: int, *,
                       max_running_requests: int | None, attn_dp: int = 1,
                       max_total_tokens: int | None = None) -> Dsv4Budget:
    """Full-pool tokens from a KV budget, the one formula of ``tpkit plan`` and ``tpkit explain`` (0.5.12 – 0.5.19
    ``DSV4PoolConfigurator.calculate_pool_sizes``; a smaller ``--max-total-tokens``:
    ``calculate_pool_sizes_from_max_tokens``): floor_page(int((budget − c128 fixed) / cell)), the c128 fixed bytes
    0 before 0.5.15 (``c128_state_fixed_bytes``)."""
    rows = c128_state_rows(layout, cell, version, max_running_requests=max_running_requests, attn_dp=attn_dp)
    fixed = c128_state_fixed_bytes(layout, cell, version, max_running_requests=max_running_requests, attn_dp=attn_dp)
    page = max(int(page_size), 1)
    rest = max(int(available_bytes) - fixed, 0)
    full = int(rest / cell.bytes_per_full_token) // page * page if cell.bytes_per_full_token > 0 else 0
    if max_total_tokens is not None and max_total_tokens < full:
        full = max_total_tokens // page * page
    running = ((DEFAULT_RUNNING if max_running_requests is None else max_running_requests) if c128_fixed(version)
               else None)
    return Dsv4Budget(full_tokens=full, c128_fixed_bytes=fixed, running=running,
                      cell=dataclasses.replace(cell, c128_fixed_rows=rows) if rows else cell)


def ring_sizes(version: str, speculative: bool) -> tuple[int, int]:
    """(c4, c128) compress-state ring sizes: 0.5.12 ``get_compress_state_ring_size`` (8 / 128, speculative 16 /
    256); before 0.5.12, 16 / 256 always (inferred from sglang#25118's printed state pools, see the module)."""
    if parse_version(version) < parse_version(FIRST_RELEASE) or speculative:
        return 16, 256
    return 8, 128


def dsv4_cell(layout: Dsv4Layout, version: str, *, swa_ratio: float = 0.8, speculative: bool = False) -> Dsv4Cell:
    """Bytes per full token (``_get_bytes_per_full_token``, × (L+1)/L with a draft worker from 0.5.12)."""
    check_version(version)
    if not 0 < swa_ratio <= 1:
        raise PlanInputError(f"--swa-full-tokens-ratio must be in (0, 1], got {swa_ratio}")
    ring4, ring128 = ring_sizes(version, speculative)
    n, n4, n128 = layout.layers(), layout.layers(4), layout.layers(128)
    kv, indexer = layout.kv_bytes(), layout.indexer_bytes()
    head = layout.qk_nope_head_dim + layout.qk_rope_head_dim
    c4_state, c128_state = 2 * 2 * head * STATE_BYTES, 2 * head * STATE_BYTES
    c4_index_state = 2 * 2 * layout.index_head_dim * STATE_BYTES
    w = layout.window
    cell = (swa_ratio * kv * n + kv * n4 / 4 + kv * n128 / 128 + indexer * n4 / 4
            + swa_ratio * ring4 / w * c4_state * n4 + swa_ratio * ring4 / w * c4_index_state * n4)
    fixed = c128_fixed(version)
    if not fixed:  # 0.5.15+: c128_state_ratio = 0, the states are priced per request (c128_state_fixed_bytes)
        cell += swa_ratio * ring128 / w * c128_state * n128
    inflate = speculative and parse_version(version) >= parse_version(FIRST_RELEASE)
    if inflate:
        cell *= (n + 1) / n
    source = (f"DSV4: {swa_ratio:g} × {kv} B × {n} layers + {kv} B × ({n4}/4 + {n128}/128) + indexer {indexer} B × "
              f"{n4}/4 + fp32 compress states (rings {ring4} / {ring128} over window {w}"
              f"{'; c128 states per request, outside the cell' if fixed else ''})"
              f"{f' × {n + 1}/{n} (draft worker)' if inflate else ''} (sglang pool_configurator.py "
              "DSV4PoolConfigurator._get_bytes_per_full_token)")
    return Dsv4Cell(bytes_per_full_token=cell, swa_ratio=swa_ratio, ring4=ring4, ring128=ring128, window=w,
                    speculative=speculative, source=source, c128_per_request=fixed)


def dsv4_pools(cell: Dsv4Cell, available_bytes: int, page_size: int, *, fixed_bytes: int = 0) -> Dsv4Pools:
    """The pool split from the KV budget (``calculate_pool_sizes`` + ``_compute_dsv4_sizes``); SGLang asserts the
    page is a multiple of 128 for compressed attention.  ``fixed_bytes``: the per-request c128 states taken off the
    budget first (0.5.15+, ``c128_state_fixed_bytes``)."""
    available_bytes = max(available_bytes - fixed_bytes, 0)
    if page_size <= 0 or page_size % 128:
        raise PlanInputError(f"DeepSeek-V4 on SGLang needs --page-size a multiple of 128 (compressed attention), "
                             f"got {page_size}")
    full = max(0, int(available_bytes / cell.bytes_per_full_token)) // page_size * page_size
    return dsv4_pools_from_tokens(cell, full, page_size)


def dsv4_pools_from_tokens(cell: Dsv4Cell, full_tokens: int, page_size: int) -> Dsv4Pools:
    """The split for a given full-pool token count (``calculate_pool_sizes_from_max_tokens``)."""
    full = full_tokens // page_size * page_size
    swa = int(full * cell.swa_ratio) // page_size * page_size
    return Dsv4Pools(full=full, swa=swa, c4=full // 4, c128=full // 128,
                     c4_state=swa // cell.window * cell.ring4,
                     c128_state=cell.c128_fixed_rows if cell.c128_per_request else swa // cell.window * cell.ring128)


def dsv4_cell_fields(model, kv_dtype: str, version: str, swa_ratio: float, *, pp: int = 1,
                     speculative: bool = False) -> dict:
    """The fields of ``pool.CellSize`` (layout ``dsv4``) of a ``deepseek_v4`` ``ModelSpec``: bytes per full
    token, not divided by TP (one latent head).  SGLang stores the pools as fp8 nope + bf16 rope whatever
    ``--kv-cache-dtype`` says (0.5.12 ``DeepSeekV4SingleKVPool``), so ``kv_dtype`` is carried for display only."""
    if pp > 1:  # 0.5.12 counts every layer on each stage, 0.5.13+ slices compress_ratios by stage: not modelled
        raise PlanInputError(f"{model.name}: DeepSeek-V4 pools with pipeline parallelism (pp {pp}) are not modelled; "
                             "plan with --pp 1")
    extra = model.extra
    cfg = {"head_dim": model.head_dim, "qk_rope_head_dim": extra.get("qk_rope_head_dim"),
           "index_head_dim": extra.get("index_head_dim"), "sliding_window": model.sliding_window,
           "compress_ratios": extra.get("compress_ratios")}
    layout = stage_layout(layout_of(cfg, where=f"{model.name} config"), version, model.num_layers)
    cell = dsv4_cell(layout, version, swa_ratio=swa_ratio, speculative=speculative)
    return dict(layout="dsv4", bytes_per_token=cell.bytes_per_full_token, kv_dtype=kv_dtype, element_bytes=1,
                n_kv_heads=1, k_dim=layout.qk_nope_head_dim + layout.qk_rope_head_dim, v_dim=0,
                full_layers=layout.layers(), swa_ratio=swa_ratio, source=cell.source, dsv4=(layout, cell))


def dsv4_buffers(cell, tokens: int, page_size: int):
    """The pools of one rank at the configurator's prices (``KVPoolPlan``): SWA KV over every layer, c4 / c128
    compressed KV, the c4 indexer keys and the fp32 compress states; page padding is not counted (0.5.12's
    configurator does not count it either)."""
    from tpkit.memory.kvpool import KVBuffer, KVPoolPlan
    from tpkit.units import Bytes

    layout, dcell = cell.dsv4
    pools = dsv4_pools_from_tokens(dcell, tokens, page_size)
    kv, indexer = layout.kv_bytes(), layout.indexer_bytes()
    head, n4, n128 = cell.k_dim, layout.layers(4), layout.layers(128)
    buffers = (KVBuffer(name="swa_kv", count=layout.layers(), shape=(pools.swa, kv), element_bytes=1),
               KVBuffer(name="c4_kv", count=n4, shape=(pools.c4, kv), element_bytes=1),
               KVBuffer(name="c128_kv", count=n128, shape=(pools.c128, kv), element_bytes=1),
               KVBuffer(name="c4_indexer", count=n4, shape=(pools.c4, indexer), element_bytes=1),
               KVBuffer(name="c4_state", count=n4, shape=(pools.c4_state, 2 * 2 * head), element_bytes=STATE_BYTES),
               KVBuffer(name="c4_indexer_state", count=n4, shape=(pools.c4_state, 2 * 2 * layout.index_head_dim),
                        element_bytes=STATE_BYTES),
               KVBuffer(name="c128_state", count=n128, shape=(pools.c128_state, 2 * head), element_bytes=STATE_BYTES))
    return KVPoolPlan(num_tokens=pools.full, padded_tokens=pools.full + page_size,
                      cell_bytes=Bytes(round(dcell.bytes_per_full_token)),
                      buffers=tuple(b for b in buffers if b.count), page_size=page_size, dtype=cell.kv_dtype)


DSV4_PAGE_CUDA = 256
"""page size SGLang's DeepSeek-V4 hook sets on CUDA / ROCm (tokens)"""
DSV4_PAGE_NPU = 128
"""page size the same hook sets on Ascend NPUs, from 0.5.14 (tokens)"""


def dsv4_page_size(version: str, asked: int | None) -> tuple[int, str]:
    """(page size SGLang runs DeepSeek-V4 with, a note when it is not ``asked`` ('' otherwise)).  The dsv4 attention
    backend's hook overwrites ``page_size`` whatever ``--page-size`` says (no check, a log line "setting page_size
    to N"): 256, and 128 on an NPU from 0.5.14 (sglang 0.5.12 / 0.5.13 ``arg_groups/deepseek_v4_hook.py``
    ``apply_deepseek_v4_defaults``: 256 on every device; 0.5.14 the same hook with ``if server_args.device ==
    "npu"``; 0.5.15 – 0.5.23 ``arg_groups/overrides.py`` / ``model_overrides/deepseek_v4.py``
    ``_deepseek_v4_overrides``, same values).  tpkit's catalog has no NPU: a ``--page-size 128`` (what an NPU log
    prints) is kept as the NPU value from 0.5.14; any other value becomes 256, as SGLang does on a GPU."""
    if asked == DSV4_PAGE_NPU and parse_version(version) >= (0, 5, 14):
        return DSV4_PAGE_NPU, ""
    if asked in (None, DSV4_PAGE_CUDA):
        return DSV4_PAGE_CUDA, ""
    npu = " (128 on an Ascend NPU)" if parse_version(version) >= (0, 5, 14) else ""
    return DSV4_PAGE_CUDA, (f"--page-size {asked} replaced by {DSV4_PAGE_CUDA}: SGLang {version}'s DeepSeek-V4 "
                            f"attention backend (dsv4) sets page_size to {DSV4_PAGE_CUDA}{npu} whatever the flag says "
                            f"(deepseek_v4_hook); plan with --page-size {DSV4_PAGE_CUDA} or leave it out")

