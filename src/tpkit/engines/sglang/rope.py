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
With the default context (``context_len`` = ``max_position_embeddings``) a cache of max_position_embeddings rows always
grows; a YaRN cache of ``original × factor`` rows above the context + 256 does not.

The new tensor is allocated while the old one is alive, so torch's caching allocator takes a new segment for it
unless a cached free block already fits: a request up to 1 MiB comes from a 2 MiB small-pool segment, one below
10 MiB from a 20 MiB segment (``c10/cuda/CUDACachingAllocator.cpp``: kSmallSize, kSmallBuffer, kMinLargeAlloc,
kLargeBuffer), a larger one is rounded up to 2 MiB.  An old cache below 10 MiB was carved at model init from a
segment it shares with the parameters allocated after it, so ``empty_cache`` does not return it when it is freed:
the free memory SGLang samples for the KV budget (``profile_max_num_token``; 0.5.23 ``KVCacheConfigurator``) is
lower than 'Load weight end' printed by 0 … the new segment (0 when the new cache fits a cached block).  An old
cache of 10 MiB or more had a segment of its own (model init frees nothing before it, so no cached block held it),
which the sample's ``empty_cache`` returns: the net charge is 0 … the difference of the two 2 MiB-rounded sizes,
unless its block left more than 1 MiB of that segment (``_rest_shared``): the allocator split that rest off at model
init and a parameter may hold it, so the high end keeps the old segment and charges the new one whole (GLM-5.1 on
ROCm before 0.5.23: a 24.75 MiB bf16 cache, cast from the float32 one into a 26 MiB segment its float32 temporaries
freed, charges 0 … 26 MiB).

The cache built at model init (``cache_positions``) has ``max_position_embeddings`` rows, except under YaRN: from
0.4.2 the models take ``get_rope`` from SGLang's own ``layers/rotary_embedding`` (read 0.4.2, 0.4.10, 0.5.2, 0.5.5,
0.5.6, 0.5.9 ``rotary_embedding.py``; 0.5.10, 0.5.20, 0.5.23 ``rotary_embedding/factory.py``), which hands a
``rope_type`` "yarn" or "deepseek_yarn" config its ``original_max_position_embeddings`` as the module's
max_position, and ``YaRNScalingRotaryEmbedding`` / ``DeepseekScalingRotaryEmbedding`` (and, 0.5.9+,
``YaRNScalingMRotaryEmbedding`` for a yarn config with ``mrope_section``; ≤ 0.5.8 that config takes the plain YaRN
class) ``_compute_cos_sin_cache`` build ``original × factor`` rows — unlike vLLM, an MRoPE section does not opt
out.  Exception read in 0.5.23 only (absent in 0.5.20): a yarn config with ``mrope_section`` and ``video_rope``
takes ``BailingMRotaryEmbedding`` with max_position rows.  llama3, default MRoPE and plain rope keep
``max_position_embeddings`` rows (SGLang's ``MRotaryEmbedding`` does not enlarge them, unlike vLLM's).
``LinearScalingRotaryEmbedding`` and ``DynamicNTKScalingRotaryEmbedding`` (a ``factor``, not ``alpha``) build
``max_position × factor`` rows and ``Phi3LongRoPEScaledRotaryEmbedding`` registers its short (original rows) and
long (max_position rows) caches and their concatenation, 2 × (original + max_position) rows (read 0.4.2, 0.5.2,
0.5.9, 0.5.23).  Gemma-3 (``models/gemma3_causal.py``) takes ``get_rope`` with a default config on every layer
from 0.5.10 (max_position rows, ``policy.rotary_cache_bytes`` counts its two caches).  Up to 0.4.1 the models
took the ``get_rope`` of the vLLM they pin (0.5.5 … 0.6.4.post1): tpkit's vLLM rule at 0.6.4
(``engines.vllm.rotary.rotary_cache_positions``).  ``_ensure_cos_sin_cache_length``
compares the reserve with those rows (``needed_max_pos < cos_sin_cache.shape[0]``: nothing to do), whatever the
scaling.

Every rotary module grows, not one (``rotary_modules``): ``reserve_rope_cache_for_long_sequences`` walks
``model.children()`` recursively and calls ``_ensure_cos_sin_cache_length`` on each child that has it and a
``cos_sin_cache`` (``srt/utils/common.py``, read 0.5.6, 0.5.9, 0.5.10, 0.5.11–0.5.14, 0.5.20–0.5.22), so each distinct
module ``get_rope`` built (its ``_ROPE_DICT`` shares one per key) grows once, in the order the layers hold them: Gemma-3
(0.5.10+) its local and global default caches; Grok with a top-level ``rope_type`` one ``ScalingRotaryEmbedding``
per layer (``_grok_scaling_modules``); Gemma 4 (``models/gemma4_causal.py``, 0.5.11–0.5.23) one per layer type
of its ``rope_parameters`` (``get_rope(head_dim, rotary_dim=head_dim, rope_scaling={"rope_type": ...},
partial_rotary_factor=...)``, head_dim ``global_head_dim`` on full layers; ``proportional`` → ``Gemma4RotaryEmbedding``,
whose cache is head_dim wide, 0.5.11 / 0.5.23 ``rotary_embedding/rope_variant.py``).  The allocator is followed through
the walk (``_grow_all``): a later cache may be carved from a block an earlier growth freed or left over (a 20 MiB
segment's remainder, an old cache's own segment), and an old cache's own segment that ends up wholly free comes back at
``empty_cache``.

The Qwen3-VL vision tower's rope is one of those modules (``tower_rotary_modules``): from 0.5.7
``Qwen3VLMoeVisionModel.__init__`` (``models/qwen3_vl.py``, read 0.5.7, 0.5.8, 0.5.9, 0.5.10, 0.5.11–0.5.15, 0.5.17,
0.5.18, 0.5.20, 0.5.23 and sglang-kt 0.7.0; 0.5.3–0.5.6 build none) takes ``get_rope(head_size=vision head_dim,
rotary_dim=head_dim // 2, max_position=8192)``, head_dim = the vision config's hidden_size // num_heads, and the
wrapper registers ``self.visual`` before the language model, so the walk grows that cache first, to the text
context's reserve (Qwen3.5-27B's tower at context 262,144: 262,400 × 36 × 4 B = 36.04 MiB from an old cache of
1.13 MiB).  Its subclasses share it (Qwen3-VL-MoE, Qwen3.5, Qwen3.5-MoE); ``--language-model-only`` (0.5.18+) sets
``visual = None`` (``engines.sglang.towers``), and no tower is grown then.
"""

from __future__ import annotations

import math

from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import is_amd
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, MiB, mib_text

__all__ = ["FIRST_RELEASE", "OWN_ROPE_RELEASE", "RopeReserve", "RotaryModule", "cache_positions", "rope_reserve",
           "rotary_dim", "rotary_modules", "rope_reserve_term", "tower_rotary_modules", "VISION_ROPE_RELEASE"]

FIRST_RELEASE = "0.5.6"
"""first SGLang release whose ``load_model`` pre-expands the RoPE cache after 'Load weight end'"""
OWN_ROPE_RELEASE = "0.4.2"
"""first SGLang release whose models take ``get_rope`` from SGLang's own ``layers/rotary_embedding``"""
BAILING_VIDEO_RELEASE = "0.5.23"
"""first release read whose yarn + ``mrope_section`` + ``video_rope`` config takes ``BailingMRotaryEmbedding``"""
_YARN_TYPES = ("yarn", "deepseek_yarn")
PINNED_VLLM = (0, 6, 4)
"""a vLLM release inside the range SGLang ≤ 0.4.1 pins (0.5.5 … 0.6.4.post1): the same rotary rules all through"""
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


GEMMA3_GET_ROPE_RELEASE = "0.5.10"
"""first SGLang release whose Gemma-3 attention builds get_rope caches (0.5.9: none)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class RotaryModule:
    """One rotary module SGLang builds at model init: its cache's rows and width, and how they were found."""

    rows: int
    dim: int
    how: str


def _family(model: ModelSpec) -> str:
    return str((model.extra or {}).get("wrapper_model_type") or model.model_type).removesuffix("_text")


def rotary_modules(model: ModelSpec, version: str) -> tuple[RotaryModule, ...]:
    """The distinct rotary modules (each with its own cos/sin cache) SGLang ``version`` builds for ``model``, in
    the order the decoder layers hold them (see the module docstring): Gemma-3 none before 0.5.10, two default
    caches of max_position rows from 0.5.10; a config whose ``rope_parameters`` is keyed by layer type (Gemma 4)
    one per layer type (``tpkit.engines.rotary.per_layer_type_ropes``: rows by ``cache_positions`` for that
    type's rope_type, which SGLang's ``gemma4_causal.py`` passes alone); else one (``cache_positions`` ×
    ``rotary_dim``)."""
    import dataclasses

    from tpkit.engines.rotary import per_layer_type_ropes

    if (model.extra or {}).get("learned_positions"):
        return ()  # GPT-2 / OPT: learned position embeddings, no get_rope (sglang models/gpt2.py)
    family = _family(model)
    own = at_least(version, OWN_ROPE_RELEASE)
    if family == "gemma3" and own:
        if not at_least(version, GEMMA3_GET_ROPE_RELEASE):
            return ()
        rows, how = cache_positions(model, version)
        dim = rotary_dim(model)
        return (RotaryModule(rows=rows, dim=dim, how="Gemma-3 local layers' default rope: " + how),
                RotaryModule(rows=rows, dim=dim, how="Gemma-3 global layers' default rope: " + how))
    grok = _grok_scaling_modules(model)
    if grok:
        return grok
    layered = per_layer_type_ropes(model) if own else ()
    if layered:
        out = []
        for lr in layered:
            kind = str(lr.rope.get("rope_type") or "default")
            one = dataclasses.replace(model, extra={**(model.extra or {}), "rope_scaling": {"rope_type": kind},
                                                    "rope_parameters": None})
            rows, how = cache_positions(one, version)
            out.append(RotaryModule(rows=rows, dim=lr.width,
                                    how=f"{lr.layer_type} layers' {kind} rope, head {lr.head_size}: "
                                    + how + (" (proportional: full head width)" if kind == "proportional" else "")))
        return tuple(out)
    rows, how = cache_positions(model, version)
    return (RotaryModule(rows=rows, dim=rotary_dim(model), how=how),)


GROK_ARCHS = ("Grok1ForCausalLM", "Grok1ModelForCausalLM")
"""``EntryClass`` of SGLang's ``models/grok.py`` (read 0.5.6, 0.5.6.post2, 0.5.9, 0.5.23)"""


def _grok_scaling_modules(model: ModelSpec) -> tuple[RotaryModule, ...]:
    """Grok's per-layer rope (``models/grok.py``, read 0.5.6, 0.5.6.post2, 0.5.9, 0.5.23): where the config has a
    top-level ``rope_type`` (xai-org/grok-2: "original", with ``original_max_position_embeddings`` and
    ``scaling_factor``), ``get_rope_scaling`` returns a dict and every ``Grok1Attention`` replaces its ``get_rope``
    module by its own ``ScalingRotaryEmbedding`` — built in the layer, not through ``get_rope``'s ``_ROPE_DICT``,
    so one cache per decoder layer, each of ``torch.arange(original × scaling_factor)`` rows (its
    ``_compute_cos_sin_cache``) × head_dim (head_dim / 2 with ``rope_rotate_half_dims``); the pre-expansion's walk
    reaches each one (``model.children()`` recursively), and each grows.  Empty for any other model or config."""
    extra = model.extra or {}
    if model.architecture not in GROK_ARCHS or not extra.get("rope_type"):
        return ()
    original, factor = extra.get("original_max_position_embeddings"), extra.get("scaling_factor")
    if not original or not factor:
        return ()
    rows = math.ceil(float(original) * float(factor))
    dim = model.head_dim // 2 if extra.get("rope_rotate_half_dims") else model.head_dim
    how = (f"Grok ScalingRotaryEmbedding per layer (rope_type {extra['rope_type']}): original_max_position_embeddings "
           f"{int(original):,} × scaling_factor {float(factor):g}")
    return tuple(RotaryModule(rows=rows, dim=dim, how=how) for _ in range(model.num_layers))


VISION_ROPE_RELEASE = "0.5.7"
"""first SGLang release whose Qwen3-VL vision tower builds its rope through ``get_rope`` (0.5.6: none)"""
VISION_ROPE_POSITIONS = 8192
"""``max_position`` of that ``get_rope`` (``models/qwen3_vl.py Qwen3VLMoeVisionModel``, 0.5.7–0.5.23)"""
_VISION_ROPE_WRAPPERS = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
"""wrapper ``model_type``s whose SGLang model is ``Qwen3VLForConditionalGeneration`` or a subclass of it"""


def tower_rotary_modules(model: ModelSpec, version: str, *, language_model_only: bool = False,
                         ) -> tuple[RotaryModule, ...]:
    """The vision tower's rotary module that SGLang ``version``'s pre-expansion walk reaches before the language
    model's (see the module docstring): the Qwen3-VL family's tower from 0.5.7, unless ``--language-model-only``
    (0.5.18+) leaves it unbuilt; empty for every other model, or a ``vision_config`` without its sizes."""
    extra = model.extra or {}
    vision = extra.get("vision_config")
    if (not model.is_multimodal or extra.get("wrapper_model_type") not in _VISION_ROPE_WRAPPERS
            or not isinstance(vision, dict) or not at_least(version, VISION_ROPE_RELEASE)):
        return ()
    if language_model_only and at_least(version, "0.5.18"):
        return ()
    hidden, heads = vision.get("hidden_size"), vision.get("num_heads")
    if not isinstance(hidden, int) or not isinstance(heads, int) or heads <= 0 or hidden // heads < 2:
        return ()
    head = hidden // heads
    return (RotaryModule(rows=VISION_ROPE_POSITIONS, dim=head // 2,
                         how=f"the vision tower's rope (models/qwen3_vl.py: head {head}, rotary {head // 2}, "
                             f"max_position {VISION_ROPE_POSITIONS:,})"),)


def rotary_dim(model: ModelSpec) -> int:
    """The rotary dimension of the model's attention: ``tpkit.engines.rotary.rotary_dim`` (MLA
    ``qk_rope_head_dim``; else the config's ``rotary_dim``, or head_dim × its partial rotary factor, GLM-4 0.5 by
    default), the rule SGLang's and vLLM's ``get_rope`` share."""
    from tpkit.engines.rotary import rotary_dim as shared

    return shared(model)


def cache_positions(model: ModelSpec, version: str) -> tuple[int, str]:
    """(rows, how) of the rotary cos/sin cache SGLang ``version`` builds at model init (see the module docstring):
    from 0.4.2 ``original_max_position_embeddings × factor`` for a yarn / deepseek_yarn config,
    ``max_position_embeddings × factor`` for linear and dynamic (factor) scaling, 2 × (original + max_position)
    for longrope, else ``max_position_embeddings``; before 0.4.2 vLLM's rule of the 0.5.5–0.6.4 releases those
    SGLang releases pin (``Requires-Dist: vllm==0.5.5`` in 0.3.0, ``vllm>=0.6.3.post1,<=0.6.4.post1`` in 0.4.1)."""
    from tpkit.engines.rotary import rope_config

    if not at_least(version, OWN_ROPE_RELEASE):
        from tpkit.engines.vllm.rotary import rotary_cache_positions

        return rotary_cache_positions(model, PINNED_VLLM)
    rope = rope_config(model)
    family = str((model.extra or {}).get("wrapper_model_type") or model.model_type).removesuffix("_text")
    if family == "gemma3":  # 0.5.10+ models/gemma3_causal.py: get_rope with {"rope_type": "default"} on every layer
        return model.max_position_embeddings, "max_position_embeddings (Gemma-3: default rope on every layer)"
    if rope:
        kind = str(rope.get("rope_type") or rope.get("type") or "default")
        kind = {"su": "longrope"}.get(kind, kind)
        video = "mrope_section" in rope and rope.get("video_rope") and at_least(version, BAILING_VIDEO_RELEASE)
        original = (rope.get("original_max_position_embeddings")
                    or (model.extra or {}).get("original_max_position_embeddings"))
        factor = float(rope.get("factor") or 1.0)
        mpe = model.max_position_embeddings
        if kind in _YARN_TYPES and not video:
            original = original or mpe
            return (math.ceil(original * factor),
                    f"rope_scaling {kind}: original_max_position_embeddings {int(original):,} × {factor:g}")
        if kind == "linear" or (kind == "dynamic" and "alpha" not in rope):
            return math.ceil(mpe * factor), f"rope_scaling {kind}: max_position_embeddings {mpe:,} × {factor:g}"
        if kind == "longrope" and original:
            return (2 * (int(original) + mpe), f"rope_scaling longrope: 2 × (original_max_position_embeddings "
                                               f"{int(original):,} + max_position_embeddings {mpe:,})")
    return model.max_position_embeddings, "max_position_embeddings"


def _segment(size: int) -> int:
    """Bytes of the segment torch's caching allocator maps for a new block of ``size`` bytes."""
    size = -(-size // 512) * 512
    if size <= SMALL_SIZE.bytes:
        return SMALL_BUFFER.bytes
    if size < MIN_LARGE_ALLOC.bytes:
        return LARGE_BUFFER.bytes
    return -(-size // ROUND_LARGE.bytes) * ROUND_LARGE.bytes


def _round(size: int) -> int:
    return max(512, -(-size // 512) * 512)


def _rest_shared(size: int) -> bool:
    """True when a large block of ``size`` bytes leaves more than 1 MiB of the segment it is carved from, so that
    torch's caching allocator splits the rest off (``shouldSplit``: a large-pool remainder > kSmallSize) and a
    later request of 1 MiB … that rest may take it.  The segment is ``_segment(size)`` in both ways SGLang builds
    the cache at model init: on CUDA the float32 ``torch.cat`` result gets a new segment; off CUDA before 0.5.23
    ``RotaryEmbedding.__init__`` casts it to the model dtype (``cache.to(dtype)``, read 0.5.11, 0.5.18
    ``layers/rotary_embedding/base.py``) after ``_compute_cos_sin_cache`` has freed its float32 ``freqs`` / ``cos``
    / ``sin`` temporaries, each rows × rotary_dim / 2 × 4 B (the cast cache's size), whose segments are the cached
    blocks the cast takes.  E.g. GLM-5.1's 202,752 rows × 64 × 2 B = 24.75 MiB in a 26 MiB segment: 1.25 MiB
    split off at init, and which parameter took it the log does not say."""
    seg = _segment(size)
    return seg - _round(size) > SMALL_SIZE.bytes


def _grow_all(growths: list[tuple[int, int]]) -> int:
    """Bytes of device memory torch's caching allocator holds after the walk's growths, less those it held before
    (after ``empty_cache``): each (old, new) cache in walk order allocates ``new`` while ``old`` lives, then frees
    ``old``.  Blocks: best fit among the cached free blocks of the request's pool (≤ 1 MiB small, else large), split
    when the rest is ≥ 512 B (small) or > 1 MiB (large); else a new segment (``_segment``).  An old cache below
    10 MiB sits in a segment it shares with parameters (freed, its block is reusable but never returned); one of
    10 MiB or more had its own segment, which ``empty_cache`` returns when nothing in it is used, unless
    ``_rest_shared``: its block left more than 1 MiB of that segment, split off at model init, which a parameter
    allocated after it may hold, so the segment may never come back (the high end counts it as kept)."""
    free: list[list] = []  # [size, segment id or None (shared), small pool]
    used: dict[int, int] = {}
    size_of: dict[int, int] = {}
    added = 0
    old_own: list[int] = []
    for old, new in growths:
        old_seg = None
        if old >= MIN_LARGE_ALLOC.bytes and not _rest_shared(old):
            old_seg = len(size_of)
            old_own.append(old_seg)
            size_of[old_seg] = _segment(old)
            used[old_seg] = size_of[old_seg]  # the block spans its segment (a rest ≤ 1 MiB is not split off)
        req = _round(new)
        small = req <= SMALL_SIZE.bytes
        fits = [b for b in free if b[2] == small and b[0] >= req]
        if fits:
            block = min(fits, key=lambda b: b[0])
            free.remove(block)
            rest = block[0] - req
            if rest >= (512 if small else SMALL_SIZE.bytes + 1):
                free.append([rest, block[1], small])
            else:
                req = block[0]
            if block[1] is not None:
                used[block[1]] += req
        else:
            seg = len(size_of)
            size_of[seg] = _segment(req)
            added += size_of[seg]
            used[seg] = req
            if size_of[seg] - req >= (512 if small else SMALL_SIZE.bytes + 1):
                free.append([size_of[seg] - req, seg, small])
        r_old = size_of[old_seg] if old_seg is not None else _round(old)
        free.append([r_old, old_seg, r_old <= SMALL_SIZE.bytes])
        if old_seg is not None:
            used[old_seg] -= r_old
    returned = sum(size_of[seg] for seg in old_own if used[seg] <= 0)
    return max(0, added - returned)


def rope_reserve(model: ModelSpec, version: str, *, context_len: int | None = None, spec_steps: int = 0,
                 spec_draft_tokens: int = 0, vendor: str | None = None, dtype_bytes: int = 2,
                 language_model_only: bool = False) -> RopeReserve | None:
    """The RoPE pre-expansion of SGLang ``version`` for ``model``: every rotary module (the vision tower's,
    ``tower_rotary_modules``, then ``rotary_modules``, in the walk's order) whose cache holds fewer rows than the
    reserve grows (None before 0.5.6, or when none does: a ``context_len`` at least 257 below every cache's rows).
    ``vendor`` "AMD": the cache is in the model dtype (``dtype_bytes``) before 0.5.23.  ``high`` is the
    allocator's net new segments over the whole walk (``_grow_all``)."""
    if not at_least(version, FIRST_RELEASE):
        return None
    base = int(context_len or model.max_position_embeddings)
    reserve = base + int(spec_steps or 0) * int(spec_draft_tokens or 0) * SPEC_FACTOR + MARGIN
    reserve = (reserve + ALIGN - 1) // ALIGN * ALIGN
    needed = reserve - 1
    rows = (needed + ALIGN) // ALIGN * ALIGN
    amd = is_amd(vendor)
    elem = dtype_bytes if amd and not at_least(version, "0.5.23") else 4
    walk = tower_rotary_modules(model, version, language_model_only=language_model_only) + rotary_modules(model,
                                                                                                       version)
    grown = [m for m in walk if needed >= m.rows]  # else: the cache holds the reserve
    if not grown:
        return None
    growths = [(m.rows * m.dim * elem, rows * m.dim * elem) for m in grown]
    tensor = Bytes(sum(new for _, new in growths))
    seg = Bytes(_grow_all(growths))
    same = len(grown) > 2 and len({m.dim for m in grown}) == 1  # Grok: one per layer
    dims = f"{len(grown)} × {grown[0].dim}" if same else " + ".join(f"{m.dim}" for m in grown)
    return RopeReserve(tensor=tensor, high=seg, rows=rows, source=(
        f"SGLang {version} reserve_rope_cache_for_long_sequences after 'Load weight end' (0.5.6+ model_runner.py "
        f"load_model): {len(grown)} new cos/sin cache{'s' if len(grown) > 1 else ''} of {rows:,} rows "
        f"(ceil_128(context {base:,} + 256"
        + (f" + {spec_steps}×{spec_draft_tokens}×2 speculative" if spec_steps and spec_draft_tokens else "")
        + f")) × ({dims}) × {elem} B = {mib_text(tensor)}, each allocated while its old one lives: 0 … "
        + f"{mib_text(seg, 0)} (new allocator segments less the old caches' own segments that empty_cache "
          "returns) leaves the free memory the KV budget samples"
        + ("; an old cache left more than 1 MiB of its segment, split off at model init for a parameter to take, "
           "so its segment may not come back" if any(old >= MIN_LARGE_ALLOC.bytes and _rest_shared(old)
                                                     for old, _ in growths) else "")))


ROPE_TERM = "rope_reserve"
"""the band term of the pre-expansion (``tpkit.memory.band``)"""
ROPE_ITEM = "RoPE cache pre-expansion (after 'Load weight end')"
"""its ledger line (the planner's) and derived row (``tpkit explain``'s)"""


def rope_reserve_interval(found: RopeReserve | None) -> tuple[Bytes, Bytes]:
    """(low, high) bytes of free memory the pre-expansion takes before the KV budget is sampled: 0 … the allocator
    segment (``RopeReserve.high``), or (0, 0) without one.  The one rule ``tpkit explain`` (its derived row) and
    ``tpkit plan`` (``rope_reserve_term``, a band term over the same interval) charge."""
    if found is None:
        return Bytes(0), Bytes(0)
    return Bytes(0), found.high


def rope_reserve_term(found: RopeReserve | None) -> Bytes:
    """The bytes the planner charges for the pre-expansion: ``rope_reserve_interval`` as an estimated term
    (nominal the middle, ± half the interval), so the plan's band spans the same 0 … segment as explain's rebuilt
    range; 0 without one."""
    from tpkit.memory.band import estimated

    low, high = rope_reserve_interval(found)
    if not high:
        return Bytes(0)
    half = Bytes((high.bytes - low.bytes) // 2)
    return estimated(low + half, half, term=ROPE_TERM, item=ROPE_ITEM, source=found.source)
