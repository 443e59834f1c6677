"""SGLang's RoPE pre-expansion: a new cos/sin cache allocated after 'Load weight end', before the KV budget is sampled.

Read in the release wheels (``pip download --no-deps sglang==X``): from 0.5.6 (read 0.5.6, 0.5.7, 0.5.8, 0.5.9,
0.5.10, 0.5.20, 0.5.23; absent in 0.5.5) ``ModelRunner.load_model`` (``model_executor/model_runner.py``) calls
``reserve_rope_cache_for_long_sequences`` (``srt/utils/common.py``) right after it prints 'Load weight end'.  It
takes ``reserve = ceil_128(context_len + speculative_num_steps × speculative_num_draft_tokens × 2 + 256)``
(``SGLANG_SPEC_EXPANSION_SAFETY_FACTOR`` 2, ``SGLANG_ROPE_CACHE_SAFETY_MARGIN`` 256, ``SGLANG_ROPE_CACHE_ALIGN``
128, ``environ.py``) and, on every rotary module whose cache holds ``reserve − 1`` rows or fewer,
``RotaryEmbedding._ensure_cos_sin_cache_length`` (``layers/rotary_embedding``) builds a new cache of
``((reserve − 1 + 128) // 128) × 128`` rows × rotary_dim with ``torch.cat`` and drops the old one.  The cache is
float32 on CUDA (``RotaryEmbedding.__init__`` casts to the model dtype only off CUDA; HIP keeps float32 from 0.5.23).
With the default context (``context_len`` = ``max_position_embeddings``) the cache always grows.

The new tensor is allocated while the old one is alive, so torch's caching allocator takes a new segment for it
unless a cached free block already fits: a request up to 1 MiB comes from a 2 MiB small-pool segment, one below
10 MiB from a 20 MiB segment (``c10/cuda/CUDACachingAllocator.cpp``: kSmallSize, kSmallBuffer, kMinLargeAlloc,
kLargeBuffer), a larger one is rounded up to 2 MiB.  An old cache below 10 MiB was carved at model init from a
segment it shares with the parameters allocated after it, so ``empty_cache`` does not return it when it is freed:
the free memory SGLang samples for the KV budget (``profile_max_num_token``; 0.5.23 ``KVCacheConfigurator``) is
lower than 'Load weight end' printed by 0 … the new segment (0 when the new cache fits a cached block).  An old
cache of 10 MiB or more had a segment of its own (model init frees nothing before it, so no cached block held it),
which the sample's ``empty_cache`` returns: the net charge is 0 … the difference of the two 2 MiB-rounded sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.engines.sglang.versions import at_least
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes, MiB

__all__ = ["FIRST_RELEASE", "RopeReserve", "rope_reserve", "rotary_dim"]

FIRST_RELEASE = "0.5.6"
"""first SGLang release whose ``load_model`` pre-expands the RoPE cache after 'Load weight end'"""
MARGIN, ALIGN, SPEC_FACTOR = 256, 128, 2
"""``SGLANG_ROPE_CACHE_SAFETY_MARGIN``, ``SGLANG_ROPE_CACHE_ALIGN``, ``SGLANG_SPEC_EXPANSION_SAFETY_FACTOR`` defaults
(``environ.py``, 0.5.6–0.5.23)"""
SMALL_SIZE, SMALL_BUFFER = MiB(1), MiB(2)
MIN_LARGE_ALLOC, LARGE_BUFFER, ROUND_LARGE = MiB(10), MiB(20), MiB(2)
"""torch's CUDA caching allocator constants (``c10/cuda/CUDACachingAllocator.cpp``): requests ≤ kSmallSize come from
kSmallBuffer segments, requests < kMinLargeAlloc from kLargeBuffer segments, larger ones rounded to kRoundLarge"""


@dataclass(frozen=True, kw_only=True, slots=True)
class RopeReserve:
    """The pre-expansion of one run: the new cache tensor and the free memory it may take (0 … ``high``)."""

    tensor: Bytes
    """bytes of the new cos/sin cache (rows × rotary_dim × element)"""
    high: Bytes
    """the most free memory it takes: the allocator segment a new block of that size needs"""
    rows: int
    source: str


def rotary_dim(model: ModelSpec) -> int:
    """The rotary dimension of the model's attention (MLA: ``qk_rope_head_dim``; else ``head_dim`` × the config's
    ``partial_rotary_factor``, or its ``rotary_dim``)."""
    if model.mla is not None:
        return int(model.mla.qk_rope_head_dim)
    extra = model.extra or {}
    if extra.get("rotary_dim"):
        return int(extra["rotary_dim"])
    factor = float(extra.get("partial_rotary_factor") or 1.0)
    return int(model.head_dim * factor)


def _segment(size: int) -> int:
    """Bytes of the segment torch's caching allocator maps for a new block of ``size`` bytes."""
    size = -(-size // 512) * 512
    if size <= SMALL_SIZE.bytes:
        return SMALL_BUFFER.bytes
    if size < MIN_LARGE_ALLOC.bytes:
        return LARGE_BUFFER.bytes
    return -(-size // ROUND_LARGE.bytes) * ROUND_LARGE.bytes


def rope_reserve(model: ModelSpec, version: str, *, context_len: int | None = None, spec_steps: int = 0,
                 spec_draft_tokens: int = 0, vendor: str | None = None, dtype_bytes: int = 2) -> RopeReserve | None:
    """The RoPE pre-expansion of SGLang ``version`` for ``model`` (None before 0.5.6, or when the cache already
    holds the reserve: a ``context_len`` well below ``max_position_embeddings`` with plain rope).  ``vendor``
    "AMD": the cache is in the model dtype (``dtype_bytes``) before 0.5.23."""
    if not at_least(version, FIRST_RELEASE):
        return None
    base = int(context_len or model.max_position_embeddings)
    reserve = base + int(spec_steps or 0) * int(spec_draft_tokens or 0) * SPEC_FACTOR + MARGIN
    reserve = (reserve + ALIGN - 1) // ALIGN * ALIGN
    needed = reserve - 1
    scaled = bool((model.extra or {}).get("rope_scaling"))
    if needed < model.max_position_embeddings and not scaled:
        return None
    rows = (needed + ALIGN) // ALIGN * ALIGN
    amd = vendor is not None and str(vendor).upper() == "AMD"
    elem = dtype_bytes if amd and not at_least(version, "0.5.23") else 4
    dim = rotary_dim(model)
    tensor = rows * dim * elem
    seg = _segment(tensor)
    old = model.max_position_embeddings * dim * elem
    if old >= MIN_LARGE_ALLOC.bytes:  # the old cache's own segment comes back at the sample's empty_cache
        seg = max(0, seg - _segment(old))
    return RopeReserve(tensor=Bytes(tensor), high=Bytes(seg), rows=rows, source=(
        f"SGLang {version} reserve_rope_cache_for_long_sequences after 'Load weight end' (0.5.6+ model_runner.py "
        f"load_model): a new cos/sin cache of {rows:,} rows (ceil_128(context {base:,} + 256"
        + (f" + {spec_steps}×{spec_draft_tokens}×2 speculative" if spec_steps and spec_draft_tokens else "")
        + f")) × {dim} × {elem} B = {tensor / 2**20:.2f} MiB, allocated while the old one lives: 0 … "
        + (f"one caching-allocator segment of {seg / 2**20:.0f} MiB" if old < MIN_LARGE_ALLOC.bytes else
           f"{seg / 2**20:.0f} MiB (the new 2 MiB-rounded segment less the old cache's own, returned by empty_cache)")
        + " leaves the free memory the KV budget samples"))
