"""vLLM's DeepSeek-sparse-attention indexer: the memory its op takes in the profile run, for every model that builds
one (helper idx12, 2026-12-05; generalises helper v11b's DeepSeek-V4-only rule).

Who builds the indexer (``registry.py`` and the model files, vllm 0.11.0 – 0.33.0 wheels):
    DeepseekV2 / V3 / V32 / GlmMoeDsa ``…ForCausalLM`` (``deepseek_v2.py``; 0.29+ ``vllm/models/deepseek_v32``) and
    ``Glm4MoeLiteForCausalLM``: an ``Indexer`` on every MLA layer when the config has ``index_topk`` (``is_v32``);
    its op sees ``total_seq_lens`` = ``get_max_prefill_buffer_size`` (``v1/attention/backends/mla/indexer.py``).
    DeepseekV4 (0.20.0+): only compress-ratio-4 layers, ``total_seq_lens`` = that // 4.

What the op allocates when the dummy run gives it no attention metadata (profile run), index_head_dim d:
    0.11.0 – 0.12.0  total = max_model_len × 2   ``sparse_attn_indexer_fake``: a (total, d + 4) uint8 block and
                     contiguous copies of its fp8 part (total, d) and scale part (total, 4): 2 × total × (d + 4) B,
                     freed when the op returns
    0.13.0 – 0.18.x  total = max_model_len × 40  ``current_workspace_manager().get_simultaneous``: (total, d) fp8 +
                     (total, 4) uint8, each rounded up to 256 B, kept by the workspace manager
    0.19.0 – 0.19.x  + a dummy ``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB`` (512 MiB) block, alive until the op returns
    0.20.0 – 0.31.x  + the 1 MiB ``RADIX_TOPK_WORKSPACE_SIZE`` in the same workspace request
    0.32.0 – 0.33.0  total = max_model_len × (576·2 // 132 = 8) × ``sparse_mla_prefill_workspace_factor``, whose
                     default is 5 for max_model_len ≤ 256 Ki tokens, else 2 (``config/vllm.py``)
(0.14.x, 0.18.1 and 0.31.1 not read; their neighbours bound them.)  Not modelled: the fp4 indexer cache
(``use_fp4_cache``), the PCP + DCP all-gather buffers (0.30+), a non-default factor or logits size, and the sharing
of the workspace manager's one buffer with the sparse-MLA backend's fp8_ds_mla prefill workspace and the fused MoE
(the buffer only grows, so the larger request wins)."""

from __future__ import annotations

from tpkit.engines.vllm.dsv4 import FIRST as DSV4_FIRST  # first release with DeepSeek-V4
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["SPARSE_INDEXER_FIRST", "INDEXER_WORKSPACE_FIRST", "INDEXER_LOGITS_DUMMY_FIRST", "INDEXER_RADIX_FIRST",
           "INDEXER_FACTOR_FIRST", "indexer_entries", "indexer_profile_reservation", "indexer_graph_profile_bytes"]

SPARSE_INDEXER_FIRST = (0, 11, 0)
"""first release whose DeepSeek-V2 model code builds the indexer (``is_v32``; absent from the 0.10.2 wheel)"""
INDEXER_WORKSPACE_FIRST = (0, 13, 0)
"""first release that reserves the K-gather buffer through the workspace manager, with the × 40 prefill buffer"""
INDEXER_LOGITS_DUMMY_FIRST = (0, 19, 0)
"""first release with the 512 MiB dummy logits block in the profile branch (absent from 0.18.0)"""
INDEXER_RADIX_FIRST = (0, 20, 0)
"""first release that adds the radix top-k workspace to the profile request (absent from 0.19.1)"""
INDEXER_FACTOR_FIRST = (0, 32, 0)
"""first release whose prefill buffer is 8 × ``sparse_mla_prefill_workspace_factor`` per token (0.31.0: × 40)"""


MAX_LOGITS_BYTES = 512 * 2**20
"""``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB`` default (512), as bytes (uint8 elements)"""
RADIX_TOPK_BYTES = 2**20
"""``RADIX_TOPK_WORKSPACE_SIZE`` (``model_executor/layers/sparse_attn_indexer.py``)"""
FACTOR_LONG_FROM = 256 * 1024
"""max_model_len above which the default ``sparse_mla_prefill_workspace_factor`` drops from 5 to 2"""


def _round_up(x: int, a: int) -> int:
    return -(-x // a) * a


def _indexer_shape(model: ModelSpec) -> tuple[int, int] | None:
    """(index_head_dim, compress ratio of the indexed layers) of a model that builds the indexer, else None."""
    if getattr(model, "model_type", None) == "deepseek_v4":
        ratios = [int(x) for x in (model.extra.get("compress_ratios") or [])]
        head = model.extra.get("index_head_dim")
        return (int(head), 4) if 4 in ratios and head is not None else None
    if model.mla is not None and model.dsa is not None:
        return model.dsa.index_head_dim, 1
    return None


def _prefill_buffer(release: tuple[int, int, int], max_model_len: int) -> tuple[int, str]:
    """``get_max_prefill_buffer_size``: gathered indexer keys per layer, and its formula."""
    if release < INDEXER_WORKSPACE_FIRST:
        return max_model_len * 2, "max_model_len × 2"
    if release < INDEXER_FACTOR_FIRST:
        return max_model_len * 40, "max_model_len × 40"
    factor = 5 if max_model_len <= FACTOR_LONG_FROM else 2
    return max_model_len * 8 * factor, f"max_model_len × 8 × factor {factor}"


def indexer_entries(model: ModelSpec, release: tuple[int, int, int], max_model_len: int) -> int | None:
    """``total_seq_lens`` the indexer's op sees (None: no indexer in this model and release)."""
    shape = _indexer_shape(model)
    if shape is None or release < SPARSE_INDEXER_FIRST:
        return None
    if shape[1] != 1 and release < DSV4_FIRST:
        return None
    return _prefill_buffer(release, max_model_len)[0] // shape[1]


def indexer_profile_reservation(model: ModelSpec, release: tuple[int, int, int], *,
                                max_model_len: int) -> tuple[int, str] | None:
    """Bytes the sparse-attention indexer's op allocates in the profile's dummy run on top of the attention's live
    tensors, and the formula (module docstring); None for a model or release without the indexer."""
    entries = indexer_entries(model, release, max_model_len)
    if entries is None:
        return None
    head, ratio = _indexer_shape(model)
    per = _prefill_buffer(release, max_model_len)[1] + (f" / ratio {ratio}" if ratio != 1 else "")
    if release < INDEXER_WORKSPACE_FIRST:
        return (2 * entries * (head + 4),
                f"indexer fake-op K buffer {entries:,} entries ({per}) × ({head} + 4) B and its fp8 + scale copies "
                "(2 × entries × (d + 4) B, freed when the op returns)")
    total = _round_up(entries * head, 256) + _round_up(entries * 4, 256)
    text = f"indexer K-gather workspace {entries:,} entries ({per}) × ({head} + 4) B"
    if release >= INDEXER_RADIX_FIRST:
        total += RADIX_TOPK_BYTES
        text += " + 1 MiB radix top-k"
    text += " (kept by the workspace manager)"
    if release >= INDEXER_LOGITS_DUMMY_FIRST:
        total += MAX_LOGITS_BYTES
        text += " + the 512 MiB dummy logits block"
    return total, text + " (sparse_attn_indexer's profile branch)"


def indexer_graph_profile_bytes(model: ModelSpec, release: tuple[int, int, int], *, v2_runner: bool,
                                rocm: bool = False) -> Bytes:
    """What the sparse indexer adds to the first PIECEWISE sample of vLLM's CUDA-graph estimate (helper g593,
    2026-12-05): the 512 MiB dummy logits block (``MAX_LOGITS_BYTES``), else 0.

    ``v1/worker/gpu_model_runner.py profile_cudagraph_memory`` (V1 runner; 0.19.1, 0.20.0, 0.25.0, 0.27.1, 0.33.0
    read) empties torch's cache, then reads the driver's free memory around ``_warmup_and_capture`` of the largest
    PIECEWISE size.  Its eager warm-up ``_dummy_run`` builds attention metadata only for FULL
    (``force_attention``), so ``sparse_attn_indexer`` (``model_executor/layers/sparse_attn_indexer.py``) takes its
    profile branch and allocates the ``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB`` block (512 MiB default, ``envs.py``
    0.19.1–0.33.0) through torch's caching allocator.  The block was released by that ``empty_cache``, so it is
    taken from the driver again and stays cached after the op returns: the first sample holds it, the later samples
    reuse it.  The block exists from 0.19.0 (``INDEXER_LOGITS_DUMMY_FIRST``; the estimate is subtracted from
    0.20).  Model Runner V2 builds attention metadata for its PIECEWISE captures too (``v1/worker/gpu/
    cudagraph_utils.py prepare_inputs_to_capture``, 0.33.0), so no dummy there: 0.  Models without the indexer: 0.
    DeepSeek-V4 takes it too: its attention (indexer included) runs eagerly between the breakable graph segments
    (0.23.0+) and its warm-up is eager in every release.  ``rocm``: 0 (the op goes through AITER's
    ``rocm_aiter_sparse_attn_indexer`` there, not read)."""
    if v2_runner or rocm or release < INDEXER_LOGITS_DUMMY_FIRST or indexer_entries(model, release, 1) is None:
        return Bytes(0)
    return Bytes(MAX_LOGITS_BYTES)
