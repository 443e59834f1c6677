"""vLLM's rotary cos/sin caches: rows, width and element size per release (built at model init, so "Model loading
took" / "model weights take" include them).

Rows (``rotary_cache_positions``), read in the release wheels' ``model_executor/layers/rotary_embedding.py``
(≤ 0.9) / ``rotary_embedding/`` (0.10.2 on): 0.5.4, 0.6.6, 0.7.0, 0.7.1, 0.7.2, 0.7.3, 0.8.0, 0.8.5, 0.9.0, 0.10.2,
0.11.0, 0.12.0, 0.13.0, 0.14.1, 0.19.0, 0.20.0, 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.25.0, 0.26.0, 0.27.1, 0.29.0,
0.30.0, 0.31.0, 0.32.0, 0.33.0.  ``get_rope`` hands each scaling class the model's ``max_position_embeddings``
(mpe) or the rope dict's ``original_max_position_embeddings`` (original):

* default, ``llama3``, ``ntk``, dynamic with ``alpha``: mpe rows (``RotaryEmbedding._compute_cos_sin_cache``).
* ``linear``: mpe × factor (``LinearScalingRotaryEmbedding``: ``max_len = max_position_embeddings ×
  scaling_factor``), every release read.
* ``dynamic`` with ``factor``: mpe × factor up to 0.21 (``DynamicNTKScalingRotaryEmbedding``: ``max_len =
  max_position_embeddings × scaling_factor``, read 0.5.4 … 0.21.0); from 0.22.0 mpe (``torch.arange(
  self.max_position_embeddings)``, the factor only moves the base; read 0.22.0 … 0.33.0).
* ``yarn`` / ``deepseek_yarn`` / ``deepseek_llama_scaling``: original × factor (``YaRNScalingRotaryEmbedding`` /
  ``DeepseekScalingRotaryEmbedding``: ``torch.arange(max_position_embeddings × scaling_factor)`` with max_position =
  original).  A ``yarn`` dict with ``mrope_section``: the plain YaRN class up to 0.10 (original × factor); from
  0.11.0 ``MRotaryEmbedding(original, scaling_factor=...)``, whose cache spans P × original positions and builds
  them with YaRN's ``_compute_cos_sin_cache``: P × original × factor.
* MRoPE (``mrope_section``, default type): mpe up to 0.7.1; from 0.7.2 ``MRotaryEmbedding`` enlarges the cache to
  P × mpe (``cache_max_position_num = max_position_embeddings * 4``, "In Qwen2.5-VL, the maximum index value is
  related to the duration of the input video").  P = 4, except from 0.32.0 the Qwen3-VL / Qwen3.5 decoders pass
  ``mrope_positions_factor`` 1 unless video pruning is on (``models/qwen3_vl.py`` ``mrope_positions_factor``,
  used by ``qwen3_vl.py``, ``qwen3_vl_moe.py``, ``qwen3_5.py``; absent in 0.31.0).
* ``longrope`` / ``su``: ``Phi3LongRoPEScaledRotaryEmbedding`` keeps a short cache (original rows) and a long
  one (mpe rows): 0.7.0 on registers only their concatenation (original + mpe rows); 0.5.4 and 0.6.6 register
  both and the concatenation too (2 × (original + mpe)).

Width: ``tpkit.engines.rotary.rotary_dim`` (head_dim × partial_rotary_factor, config ``rotary_dim``, MLA
``qk_rope_head_dim``).

Element: the model dtype (``RotaryEmbedding.__init__``: ``cache.to(dtype)``, ``dtype`` = the default dtype at model
init; ``use_flashinfer`` is commented out to False in the base class from 0.11.0), every release read, with two
float32 exceptions: attention that asks ``get_rope`` for ``dtype=torch.float32`` (``GptOssAttention``, 0.10.2 …
0.33.0 ``models/gpt_oss.py``), and from 0.14 the DeepSeek-scaling cache of an MLA model with scaled RoPE when the
``rotary_embedding`` custom op is enabled on CUDA with a head of 64/128/256/512 (``DeepseekScalingRotaryEmbedding
.__init__`` sets ``use_flashinfer``, and the base then keeps the float32 cache; read 0.14.0, 0.14.1, 0.19.0,
0.29.0, 0.33.0, absent in 0.13.0).  The op is on when custom ops are "all": ``--enforce-eager`` (optimization level O0,
compilation mode NONE; 0.14.1 ``config/vllm.py``); with the default inductor compile they are "none".
``flashinfer-python`` is a hard requirement of the 0.14.1 wheel.  Not modelled: ROCm AITER's extra bfloat16 copy
(``cos_sin_cache_bf16``, 0.29.0+, only with ``VLLM_ROCM_USE_AITER``).

Gemma-3's local layers (a config ``rope_local_base_freq``) ask for a second, default cache of mpe rows
(``models/gemma3.py``: sliding layers take ``rope_local_base_freq`` and ``{"rope_type": "default"}``, read 0.10.2;
0.33.0 per layer type from ``rope_parameters``): both caches are counted.

A ``rope_parameters`` keyed by layer type (Gemma 4, vLLM 0.19.0–0.27.1 ``models/gemma4.py``): one cache per distinct
layer-type rope (``tpkit.engines.rotary.per_layer_type_ropes``), each rows by the rule above for its own dict, width
head_size for ``proportional`` (``Gemma4RotaryEmbedding`` calls the base with ``rotary_dim = head_size``; 0.19.0 /
0.27.1 ``rotary_embedding/gemma4_rope.py``), else head_size × its partial factor; the full layers' head_size is
``global_head_dim``.  Gemma-4-26B-A4B: 262,144 × 256 (sliding) + 262,144 × 512 (full) × 2 B = 384 MiB.
"""

from __future__ import annotations

import math

import dataclasses

from tpkit.engines.rotary import per_layer_type_ropes, rope_config, rotary_dim
from tpkit.models.spec import ModelSpec
from tpkit.records import dataclass

__all__ = ["RotaryCache", "rotary_caches", "rotary_cache_positions", "mrope_positions_factor"]

LATEST = (0, 33, 0)
_YARN = ("yarn", "deepseek_yarn", "deepseek_llama_scaling")
MROPE_X4_RELEASE = (0, 7, 2)
"""first release whose MRotaryEmbedding spans 4 × max_position rows (0.7.1: max_position)"""
MROPE_YARN_RELEASE = (0, 11, 0)
"""first release whose yarn + mrope_section config takes MRotaryEmbedding (0.10.2: the plain YaRN class)"""
DYNAMIC_UNSCALED_RELEASE = (0, 22, 0)
"""first release whose dynamic-NTK cache keeps max_position rows (0.21.0: max_position × factor)"""
MROPE_FACTOR_ONE_RELEASE = (0, 32, 0)
"""first release whose Qwen3-VL / Qwen3.5 decoders pass mrope_positions_factor 1 (0.31.0: 4 for all)"""
LONGROPE_ONE_BUFFER_RELEASE = (0, 7, 0)
"""first release whose longrope module registers only the concatenated cache (0.6.6: three buffers)"""
DEEPSEEK_FP32_RELEASE = (0, 14, 0)
"""first release whose DeepseekScalingRotaryEmbedding keeps a float32 cache under the custom op (0.13.0: no)"""
_MROPE_FACTOR_ONE = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})
_FP32_ROPE = frozenset({"gpt_oss"})
_FLASHINFER_HEADS = (64, 128, 256, 512)


@dataclass(frozen=True, kw_only=True, slots=True)
class RotaryCache:
    """One cos/sin cache vLLM's ``get_rope`` builds: ``rows`` positions × ``dim`` elements of ``elem`` bytes."""

    rows: int
    """positions (count)"""
    dim: int
    """elements per position (the rotary width)"""
    elem: int
    """bytes per element"""
    how: str
    """how rows, width and element size were found (the ledger source)"""

    @property
    def bytes(self) -> int:
        """the cache's size in bytes"""
        return self.rows * self.dim * self.elem


def _family(model: ModelSpec) -> str:
    extra = model.extra or {}
    mt = model.model_type
    if mt.endswith("_text"):
        return str(extra.get("wrapper_model_type") or mt[: -len("_text")])
    return mt


def mrope_positions_factor(model: ModelSpec, release: tuple[int, int, int] = LATEST) -> int:
    """P of ``MRotaryEmbedding``: 4, or 1 for the Qwen3-VL / Qwen3.5 families from 0.32.0 (video pruning off)."""
    fam = _family(model)
    if release >= MROPE_FACTOR_ONE_RELEASE and (fam in _MROPE_FACTOR_ONE or
                                                model.model_type.removesuffix("_text") in _MROPE_FACTOR_ONE):
        return 1
    return 4


def _original(model: ModelSpec, rope: dict):
    return rope.get("original_max_position_embeddings") or (model.extra or {}).get("original_max_position_embeddings")


def rotary_cache_positions(model: ModelSpec, release: tuple[int, int, int] | None = None) -> tuple[int, str]:
    """(rows, how) of the model's main rotary cache in vLLM ``release`` (None: the newest read); see the module
    docstring."""
    rel = tuple(release) if release else LATEST
    mpe = model.max_position_embeddings
    rope = rope_config(model)
    kind = str(rope.get("rope_type") or rope.get("type") or "default")
    kind = {"su": "longrope", "mrope": "default"}.get(kind, kind)
    mrope = "mrope_section" in rope
    factor = rope.get("factor")
    original = _original(model, rope)
    if kind in _YARN and original and factor:
        if kind == "yarn" and mrope and rel >= MROPE_YARN_RELEASE:
            p = mrope_positions_factor(model, rel)
            return (math.ceil(original * p * factor),
                    f"rope_scaling yarn + mrope_section: {p} × original_max_position_embeddings {original:,} × "
                    f"{factor:g} (MRotaryEmbedding, vLLM 0.11+)")
        return (math.ceil(original * factor),
                f"rope_scaling {kind}: original_max_position_embeddings {original:,} × {factor:g}")
    if kind == "default" and mrope and rel >= MROPE_X4_RELEASE:
        p = mrope_positions_factor(model, rel)
        return mpe * p, f"MRoPE: {p} × max_position_embeddings {mpe:,} (MRotaryEmbedding, vLLM 0.7.2+)"
    if kind == "linear" and factor:
        return math.ceil(mpe * factor), f"rope_scaling linear: max_position_embeddings {mpe:,} × {factor:g}"
    if kind == "dynamic" and factor and "alpha" not in rope and rel < DYNAMIC_UNSCALED_RELEASE:
        return (math.ceil(mpe * factor),
                f"rope_scaling dynamic: max_position_embeddings {mpe:,} × {factor:g} (vLLM ≤ 0.21)")
    if kind == "longrope" and original:
        copies = 1 if rel >= LONGROPE_ONE_BUFFER_RELEASE else 2
        return (copies * (int(original) + mpe),
                f"rope_scaling longrope: {'2 × (' if copies == 2 else ''}original_max_position_embeddings "
                f"{int(original):,} + max_position_embeddings {mpe:,}{')' if copies == 2 else ''}")
    return mpe, "max_position_embeddings"


DSV4_ROPE_RELEASE = (0, 20, 0)
"""first vLLM release with DeepSeek-V4 (``DeepseekV4ScalingRotaryEmbedding``; read in 0.20.0, 0.22.0, 0.23.0, 0.25.0,
0.26.0)"""


def _dsv4_caches(model: ModelSpec, rel: tuple[int, int, int]) -> tuple[RotaryCache, ...]:
    """DeepSeek-V4's caches (helper v417): each attention layer calls ``get_rope`` with ``rope_dim`` =
    qk_rope_head_dim and ``is_deepseek_v4`` (vLLM 0.20.0–0.21.x ``model_executor/models/deepseek_v4.py``, 0.22.0+
    ``models/deepseek_v4/common/rope.py build_deepseek_v4_rope``), with ``rope_theta`` on the uncompressed layers and
    ``compress_rope_theta`` on the compressed ones.  ``get_rope`` (``rotary_embedding/__init__.py``) takes the width
    from ``rope_dim`` and keys its cache on the rope parameters, so the two thetas build two caches; each is a
    ``DeepseekV4ScalingRotaryEmbedding`` (``deepseek_scaling_rope.py``), whose cos/sin cache is float32 with
    original_max_position_embeddings × factor rows whatever the model dtype.  The indexer and the compressors reuse
    the layer's embedding."""
    extra = model.extra or {}
    dim = int(extra.get("qk_rope_head_dim") or rotary_dim(model))
    rows, how = rotary_cache_positions(model, rel)
    ratios = [int(r) for r in (extra.get("compress_ratios") or [])]
    thetas = []
    if not ratios or any(r <= 1 for r in ratios):
        thetas.append(("rope_theta", rope_config(model).get("rope_theta") or extra.get("rope_theta")))
    if any(r > 1 for r in ratios):
        theta = extra.get("compress_rope_theta")
        if theta is not None and all(theta != t for _, t in thetas):
            thetas.append(("compress_rope_theta", theta))
    return tuple(RotaryCache(rows=rows, dim=dim, elem=4,
                             how=f"{how}; {name} {value}: DeepseekV4ScalingRotaryEmbedding, rope_dim = "
                                 "qk_rope_head_dim, float32 (vLLM 0.20+)")
                 for name, value in thetas)


def rotary_caches(model: ModelSpec, act_bytes: int, release: tuple[int, int, int] | None = None, *,
                  custom_rope_op: bool = False, cuda: bool = True) -> tuple[RotaryCache, ...]:
    """The rotary caches vLLM ``release`` builds once for the model (one per distinct rope config; the per-layer
    copies of ≤ 0.5.4 Gemma are the caller's).  ``custom_rope_op``: the ``rotary_embedding`` custom op is enabled
    (``--enforce-eager``), which keeps a DeepSeek-scaling cache in float32 on CUDA from 0.14."""
    rel = tuple(release) if release else LATEST
    if (model.extra or {}).get("learned_positions"):
        return ()  # GPT-2 / OPT: learned position embeddings, no get_rope (vLLM models/gpt2.py, models/opt.py)
    layered = per_layer_type_ropes(model)
    if layered:
        out = []
        for lr in layered:
            one = dataclasses.replace(model, extra={**(model.extra or {}), "rope_scaling": lr.rope})
            rows, how = rotary_cache_positions(one, rel)
            kind = str(lr.rope.get("rope_type") or "default")
            out.append(RotaryCache(rows=rows, dim=lr.width, elem=act_bytes,
                                   how=f"{lr.layer_type} layers' {kind} rope ({how}; head {lr.head_size}"
                                   + (", proportional: full head width" if kind == "proportional" else "") + ")"))
        return tuple(out)
    if model.model_type == "deepseek_v4" and rel >= DSV4_ROPE_RELEASE:
        return _dsv4_caches(model, rel)
    dim = rotary_dim(model)
    rows, how = rotary_cache_positions(model, rel)
    elem, why = act_bytes, ""
    if model.model_type in _FP32_ROPE:
        elem, why = 4, " (float32: get_rope dtype=torch.float32)"
    elif (model.mla is not None and rel >= DEEPSEEK_FP32_RELEASE and custom_rope_op and cuda
          and str(rope_config(model).get("rope_type") or rope_config(model).get("type") or "default") != "default"
          and dim in _FLASHINFER_HEADS):
        elem, why = 4, " (float32: DeepseekScalingRotaryEmbedding use_flashinfer with the custom op on, vLLM 0.14+)"
    caches = [RotaryCache(rows=rows, dim=dim, elem=elem, how=how + why)]
    if (model.extra or {}).get("rope_local_base_freq") is not None:
        caches.append(RotaryCache(rows=model.max_position_embeddings, dim=dim, elem=act_bytes,
                                  how="local layers' default cache (rope_local_base_freq): max_position_embeddings"))
    return tuple(caches)
