"""CUDA-graph memory estimate subtracted before KV sizing (vLLM ≥ 0.20; ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS``
"1" from 0.20.0, "0" in 0.18/0.19, which measure and print it without subtracting).

What vLLM measures (``v1/worker/gpu_worker.py Worker.determine_available_memory`` → the runner's
``profile_cudagraph_memory``, wheels 0.18.0–0.33.0):

* **V1 runner** (``v1/worker/gpu_model_runner.py``, 0.18–0.33): with a minimal KV cache it warms up and captures the
  two largest graphs of each mode into a throw-away pool and reads the *driver's* free memory around each capture
  (``torch.cuda.mem_get_info``), then ``max_mode(first) + Σ_mode (n_mode − 1) × max(second, 1 MiB)``; the first
  FULL capture runs attention at ``min(max_model_len, max_num_tokens // size)`` tokens per sequence.  It prints
  "Estimated CUDA graph memory: X GiB total".  PIECEWISE sizes: 1, 2, 4, 8…248 step 8, 256…max step 16 with
  ``max = min(2 × max_num_seqs, 512)`` (``config/vllm.py _set_cudagraph_sizes``); FULL (decode) sizes stop at
  ``max_num_seqs``: 51 + 35 graphs at the defaults.
* **Model Runner V2** (``v1/worker/gpu/model_runner.py``): ``profile_cudagraph_memory`` returns 0 in every wheel
  0.19.0–0.28.0 ("TBD whether we keep this API"), so nothing is subtracted; from 0.29.0
  (``v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory``) it captures every PIECEWISE graph and the two
  largest FULL ones into a throw-away pool and extrapolates the FULL rest the same way; its PIECEWISE and FULL
  first samples add instead of taking the max (the fit below does not separate the two).  Which models V2 runs
  by default: ``inputs.uses_v2_runner``.

The estimate by its mechanism (``mechanism_estimate``; helper vcg10, wheels 0.20.0, 0.23.0, 0.29.0, 0.33.0, whose
``profile_cudagraph_memory`` and ``_warmup_and_capture`` read alike on these points):

* **first sample** ``max_mode(first)``: the pool's buffers at the largest capture size (the activations one
  piece holds at ≤ 512 tokens: tens of MiB) and every lazily created device allocation of the first capture.  The
  PIECEWISE warm-ups build no attention metadata (``force_attention`` only for FULL), so an attention backend's
  workspace is created in the FULL mode's first sample: FlashInfer's ``VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE``
  (394 MiB in ``envs.py`` of every release read; ``v1/attention/backends/flashinfer.py``); FlashAttention 3 (Hopper)
  its split-KV accumulators (``graph_fa3``, helper vx25); FA2 and Triton attention none.  The rest of the first
  sample is driver-side and not derivable: ``FIRST_CAPTURE_BYTES``, fitted.
* **per graph** ``(n − 1) × second sample``: the second capture adds no pool buffer the first did not (it is smaller
  and reuses the pool), only the instantiated graph itself, whose driver memory grows with its kernel nodes: one
  decoder layer's kernels per layer, for a PIECEWISE graph (one CUDA graph per piece between attention calls) and
  a FULL graph alike.  So the per-graph term is ``PER_GRAPH_LAYER_BYTES`` × layers, fitted.

Both constants are fitted (least absolute error) on every printed estimate of the explain corpus
(``GRAPH_EVIDENCE``, 58 logs of 35 studies, 0.18–0.31, T4 to H200 and GB10); the ± is the 90th percentile of the
leave-one-study-out absolute error over the single-GPU logs.  The median of the printed estimates (0.65 GiB, the term
before vcg10) errs by 0.27 GiB median and 1.07 GiB p90 over these logs; this by 0.09 / 0.82 (0.17 / 0.84 leaving each
study out).  A printed estimate (``explain``) is used as printed.  Not refitted with the rows added since (helper vx25:
every refit slides along a flat first-sample / per-graph ridge that the validation set rejects; docs/accuracy.md §5).
"""

from __future__ import annotations

from tpkit.engines.vllm.graph_evidence import GRAPH_EVIDENCE, ROCM_GRAPH_EVIDENCE
from tpkit.engines.vllm.versions import VllmRules
from tpkit.records import dataclass
from tpkit.units import Bytes, GiB, KiB, MiB, gib_text, mib_text

__all__ = ["GraphEstimate", "capture_sizes", "full_capture_sizes", "graph_counts",
           "CUDAGRAPH_MODES",
           "estimate_cudagraph_memory", "mechanism_estimate",
           "FIRST_CAPTURE_BYTES", "PER_GRAPH_LAYER_BYTES", "FLASHINFER_WORKSPACE_BYTES", "ESTIMATE_BAND_BYTES",
           "ROCM_PER_GRAPH_LAYER_BYTES"]

FLASHINFER_WORKSPACE_BYTES = MiB(394)
"""``VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE`` default, 394 MiB (``envs.py``, 0.20.0, 0.23.0, 0.29.0, 0.33.0): the
FlashInfer backend's workspace, created at its first decode, i.e. in the FULL mode's first capture sample"""
FIRST_CAPTURE_BYTES = GiB(0.155)
"""the first capture sample without a backend workspace (driver-side, not derivable): fitted, least absolute error,
on ``GRAPH_EVIDENCE`` (0.15–0.165 GiB leaving any study out but study 28 (0.025) and the WSL2 series (0.06))"""
PER_GRAPH_LAYER_BYTES = KiB(153)
"""the second capture sample per decoder layer (the instantiated graph's driver memory): fitted with
``FIRST_CAPTURE_BYTES`` (148–155 KiB leaving any study out but study 28 (244) and the WSL2 series (190))"""
ROCM_PER_GRAPH_LAYER_BYTES = KiB(1122)
"""the second capture sample per decoder layer on ROCm (vLLM ≥ 0.26, where the estimate is subtracted on ROCm:
``VllmRules.cudagraph_estimate_rocm``): the median of ``ROCM_GRAPH_EVIDENCE`` (1.096 MiB, vp_254), EVIDENCE"""
ESTIMATE_BAND_BYTES = GiB(0.41)
"""± of the estimate: 90th percentile of the leave-one-study-out absolute error over the single-GPU logs of
``GRAPH_EVIDENCE``"""


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphEstimate:
    """The CUDA-graph memory estimate and how it was formed."""

    bytes: Bytes
    uncertainty: Bytes
    """± of ``bytes`` (``ESTIMATE_BAND_BYTES``)"""
    sizes: tuple[int, ...]
    """captured PIECEWISE batch sizes (tokens)"""
    full_sizes: tuple[int, ...]
    """captured FULL (decode) batch sizes"""
    formula: str


def capture_sizes(*, max_num_seqs: int, max_num_batched_tokens: int,
                  compute_capability: tuple[int, int] | None,
                  max_capture_size: int | None = None, given_sizes: tuple[int, ...] | None = None,
                  decode_query_len: int = 1, release: tuple[int, int, int] | None = None) -> tuple[int, ...]:
    """The batch sizes vLLM captures (``vllm/config/vllm.py`` ``_set_cudagraph_sizes``): 1, 2, 4, 8…248 step 8,
    256… step 16 up to ``--max-cudagraph-capture-size`` (``max_capture_size``; vLLM's default
    ``min(2 × max_num_seqs × decode_query_len, 512)``, 1024 on SM 10.x from 0.28.0: 0.27.1 and earlier take 512 on
    every GPU), capped by ``max_num_batched_tokens``.  A given value is neither raised to nor capped at the default
    (0.15.0, 0.20.0, 0.29.0, 0.33.0; helper mcs10).

    Helper cap11 (wheels 0.11.1, 0.15.0–0.33.0): ``given_sizes`` (``--cudagraph-capture-sizes``) replaces the ladder:
    de-duplicated, sorted, the sizes above ``max_num_batched_tokens`` dropped (0.11.1–0.33.0).  ``decode_query_len``
    is 1 + the speculative tokens (``VllmConfig.uniform_decode_query_len``; ``1 + num_speculative_tokens`` in
    0.15.0–0.27.1): it widens the default top, and from 0.29.0 the decode sizes ``n × decode_query_len`` (n on the
    request ladder up to ``max_num_seqs``) within that default top and the batched tokens are added.  From 0.23.0
    ``max_num_batched_tokens`` itself is added when it lies under the top (0.20.0 has no such step).  ``release``
    None: the latest rules."""
    rel = release or (99, 0, 0)
    defaulted = max_capture_size is None
    ceiling = 1024 if (compute_capability or (0, 0))[0] == 10 and rel >= (0, 28, 0) else 512
    if defaulted:
        max_capture_size = min(max_num_seqs * decode_query_len * 2, ceiling)
    if given_sizes is not None:
        return tuple(sorted({s for s in given_sizes if s <= max_num_batched_tokens}))
    top = min(max_capture_size, max_num_batched_tokens)
    sizes = {s for s in [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, top + 1, 16)) if s <= top}
    if rel >= (0, 23, 0) and max_num_batched_tokens <= top:
        sizes.add(max_num_batched_tokens)
    if rel >= (0, 29, 0) and defaulted and decode_query_len > 1:
        reqs = min(max_num_seqs, ceiling)
        counts = {n for n in (1, 2, 4) if n <= reqs} | set(range(8, min(reqs + 1, 256), 8)) \
            | set(range(256, reqs + 1, 16)) | {reqs}
        sizes |= {n * decode_query_len for n in counts
                  if n * decode_query_len <= max_capture_size and n * decode_query_len <= max_num_batched_tokens}
    return tuple(sorted(sizes))


def full_capture_sizes(sizes: tuple[int, ...], max_num_seqs: int, decode_query_len: int = 1,
                       v2_runner: bool = False) -> tuple[int, ...]:
    """FULL decode graphs of FULL_AND_PIECEWISE / FULL_DECODE_ONLY: the capture sizes up to
    ``max_num_seqs × decode_query_len``.  The V1 runner takes those of at least ``decode_query_len`` tokens
    (``v1/cudagraph_dispatcher.py initialize_cudagraph_keys``, 0.29.0); Model Runner V2 rounds each size up to a
    multiple of ``decode_query_len`` and keeps the distinct ones within the top capture size
    (``v1/worker/gpu/cudagraph_utils.py _init_candidates``, 0.29.0).  Without speculation both are the sizes up to
    ``max_num_seqs``."""
    top = max_num_seqs * decode_query_len
    if not v2_runner or decode_query_len == 1:
        return tuple(s for s in sizes if decode_query_len <= s <= top)
    cap = max(sizes, default=0)
    rounded = {-(-s // decode_query_len) * decode_query_len for s in sizes}
    return tuple(sorted(s for s in rounded if s <= top and s <= cap))


CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
"""vLLM's ``CUDAGraphMode`` names (``config/compilation.py``, 0.11.1–0.33.0)"""


def graph_counts(mode: str, sizes: tuple[int, ...], full: tuple[int, ...]) -> tuple[int, int]:
    """(PIECEWISE graphs, FULL graphs) captured under ``mode`` (``CUDAGraphMode``: ``mixed_mode`` over every capture
    size, ``decode_mode`` FULL over the decode sizes ``full`` where the mode has a separate decode routine;
    ``config/compilation.py`` and ``v1/worker/gpu/cudagraph_utils.py _init_candidates``, 0.29.0): PIECEWISE all
    sizes, FULL all sizes as FULL graphs, FULL_DECODE_ONLY the decode sizes only, FULL_AND_PIECEWISE both, NONE
    none."""
    return {"NONE": (0, 0), "PIECEWISE": (len(sizes), 0), "FULL": (0, len(sizes)),
            "FULL_DECODE_ONLY": (0, len(full)), "FULL_AND_PIECEWISE": (len(sizes), len(full))}[mode]


def mechanism_estimate(*, piecewise: int, full: int, layers: int, attention_backend: str,
                       rocm: bool = False, piecewise_warmup: Bytes = Bytes(0), full_buffers: Bytes = Bytes(0)) -> Bytes:
    """vLLM's printed "Estimated CUDA graph memory" from its mechanism (``v1/worker/gpu_model_runner.py
    profile_cudagraph_memory``, 0.20.0–0.33.0; ``v1/worker/gpu/cudagraph_utils.py`` for Model Runner V2 from
    0.29.0): ``max(first PIECEWISE sample, first FULL sample) + Σ_mode (n_mode − 1) × second sample``, with the
    first sample ``FIRST_CAPTURE_BYTES`` or, for FlashInfer, its 394 MiB workspace created in the first FULL
    capture, and the second sample ``PER_GRAPH_LAYER_BYTES`` × ``layers`` (``ROCM_PER_GRAPH_LAYER_BYTES`` on ROCm).
    ``piecewise_warmup``: memory the first PIECEWISE warm-up takes on top (``sparse_indexer.
    indexer_graph_profile_bytes``: the sparse indexer's 512 MiB dummy logits block); ``full_buffers``: what the first
    FULL capture allocates in the pool (``graph_fa3``: FlashAttention 3's split-KV accumulators)."""
    first, _ = _first_capture(attention_backend, piecewise, full, piecewise_warmup, full_buffers)
    return first + _per_graph_layer(rocm) * (_later_graphs(piecewise, full) * layers)


def _first_capture(attention_backend: str, piecewise: int, full: int,
                   piecewise_warmup: Bytes = Bytes(0), full_buffers: Bytes = Bytes(0)) -> tuple[Bytes, str]:
    """The first capture sample and its label: the larger of the modes' first samples.  FULL: FlashInfer's
    workspace when FULL graphs run (created in the FULL mode's first sample), else ``FIRST_CAPTURE_BYTES``.
    PIECEWISE: ``FIRST_CAPTURE_BYTES`` + ``piecewise_warmup`` (allocated by the eager warm-up, which runs without
    attention metadata; helper g593)."""
    full_first = FLASHINFER_WORKSPACE_BYTES if attention_backend == "FLASHINFER" and full > 0 else FIRST_CAPTURE_BYTES
    full_label = "FlashInfer workspace 394 MiB" if full_first == FLASHINFER_WORKSPACE_BYTES else \
        f"{gib_text(FIRST_CAPTURE_BYTES, 3)}"
    if full > 0 and full_buffers > full_first:  # FA3's split-KV accumulators (graph_fa3)
        full_first, full_label = full_buffers, f"FA3 split-KV accumulators {mib_text(full_buffers, 0)}"
    pw_first = FIRST_CAPTURE_BYTES + piecewise_warmup
    if piecewise > 0 and piecewise_warmup.bytes and pw_first > full_first:
        return pw_first, (f"{gib_text(FIRST_CAPTURE_BYTES, 3)} + the first PIECEWISE warm-up's "
                          f"{gib_text(piecewise_warmup)} (sparse indexer dummy logits)")
    if full > 0 or piecewise == 0:
        return full_first, full_label
    return FIRST_CAPTURE_BYTES, f"{gib_text(FIRST_CAPTURE_BYTES, 3)}"


def _later_graphs(piecewise: int, full: int) -> int:
    """Graphs after each mode's first: the ones charged at the second sample's cost."""
    return max(piecewise - 1, 0) + max(full - 1, 0)


def _per_graph_layer(rocm: bool) -> Bytes:
    """The second capture sample per decoder layer (ROCm's from its own logs)."""
    return ROCM_PER_GRAPH_LAYER_BYTES if rocm else PER_GRAPH_LAYER_BYTES


def estimate_cudagraph_memory(rules: VllmRules, *, v2_runner: bool, max_num_seqs: int, max_num_batched_tokens: int,
                              compute_capability: tuple[int, int] | None, layers: int,
                              attention_backend: str, rocm: bool = False,
                              max_capture_size: int | None = None, given_sizes: tuple[int, ...] | None = None,
                              decode_query_len: int = 1, mode: str = "FULL_AND_PIECEWISE",
                              piecewise_warmup: Bytes = Bytes(0), heads: int = 0, head_dim_v: int = 0) -> GraphEstimate:
    """The estimate vLLM subtracts before KV sizing, for one rank: ``mechanism_estimate`` ±
    ``ESTIMATE_BAND_BYTES``; ``attention_backend`` is the resolved one (``backend_choice.auto_attention_backend``);
    ``rocm``: an AMD GPU (``ROCM_PER_GRAPH_LAYER_BYTES``; the caller drops the estimate where the release skips it on ROCm);
    ``max_capture_size``: ``--max-cudagraph-capture-size``, ``given_sizes``: ``--cudagraph-capture-sizes`` (None:
    vLLM's default); ``decode_query_len``: 1 + speculative tokens; ``mode``: the ``CUDAGraphMode``
    (``graph_counts``; the caller returns no estimate for NONE); ``piecewise_warmup``: what the first PIECEWISE
    warm-up adds to its sample (``mechanism_estimate``); ``heads`` / ``head_dim_v``: query heads per rank and V head
    size, for FlashAttention 3's accumulators in the first FULL capture (``graph_fa3``, FLASH_ATTN on Hopper)."""
    sizes = capture_sizes(max_num_seqs=max_num_seqs, max_num_batched_tokens=max_num_batched_tokens,
                          compute_capability=compute_capability, max_capture_size=max_capture_size,
                          given_sizes=given_sizes, decode_query_len=decode_query_len, release=rules.release)
    if decode_query_len > 1:  # lazy: speculative starts only (test_cold_imports); graph_spec says when vLLM rounds
        from tpkit.engines.vllm.graph_spec import spec_decode_rounded_sizes, spec_decode_rounding_applies

        if spec_decode_rounding_applies(rules.release, v2_runner=v2_runner, mode=mode,
                                        decode_query_len=decode_query_len):
            sizes = spec_decode_rounded_sizes(sizes, decode_query_len)
    full = full_capture_sizes(sizes, max_num_seqs, decode_query_len, v2_runner=v2_runner)
    wide = (rules.sm100_wide_graphs and not rocm and (compute_capability or (0, 0))[0] == 10
            and given_sizes is None and max_capture_size is None)
    if wide:  # ≥ 0.34 on SM 10.x: separate prefill and decode grids (wide_capture_sizes)
        from tpkit.engines.vllm.graph_grids import wide_capture_sizes  # lazy: SM 10.x only (test_cold_imports)

        sizes, full = wide_capture_sizes(max_num_seqs=max_num_seqs, max_num_batched_tokens=max_num_batched_tokens,
                                         decode_query_len=decode_query_len)
    if v2_runner and rules.release < (0, 29, 0):
        return GraphEstimate(bytes=Bytes(0), uncertainty=Bytes(0), sizes=sizes, full_sizes=full,
                             formula="Model Runner V2: profile_cudagraph_memory returns 0 (vLLM 0.19–0.28), "
                                     "nothing subtracted")
    n_pw, n_full = graph_counts(mode, sizes, full)
    buffers = Bytes(0)
    if n_full and attention_backend == "FLASH_ATTN" and (compute_capability or (0, 0))[0] == 9:  # lazy: FA3 only
        from tpkit.engines.vllm.graph_fa3 import first_full_buffers
        buffers = first_full_buffers(sizes, full, mode=mode, max_num_seqs=max_num_seqs, heads=heads, rocm=rocm,
                                     head_dim_v=head_dim_v, decode_query_len=decode_query_len,
                                     compute_capability=compute_capability)
    nominal = mechanism_estimate(piecewise=n_pw, full=n_full, layers=layers, attention_backend=attention_backend,
                                 rocm=rocm, piecewise_warmup=piecewise_warmup, full_buffers=buffers)
    per = _per_graph_layer(rocm)
    runner = "Model Runner V2" if v2_runner else "V1 runner"
    _, first = _first_capture(attention_backend, n_pw, n_full, piecewise_warmup, buffers)
    shown = "" if mode == "FULL_AND_PIECEWISE" else f" ({mode})"
    formula = (f"{runner}, {attention_backend}, {n_pw} PIECEWISE + {n_full} FULL graphs{shown}: first capture "
               f"{first} + {_later_graphs(n_pw, n_full)} graphs × {layers} layers × "
               f"{per.bytes // 1024} KiB = {gib_text(nominal)} ± {gib_text(ESTIMATE_BAND_BYTES, label='')} "
               + (f"(graphs.mechanism_estimate; ROCm: the per-graph term from {len(ROCM_GRAPH_EVIDENCE)} MI300X "
                  f"logs, graph_evidence.ROCM_GRAPH_EVIDENCE)" if rocm else
                  f"(graphs.mechanism_estimate; constants fitted on "
                  f"{sum(g.fitted for g in GRAPH_EVIDENCE)} printed estimates)"))
    return GraphEstimate(bytes=nominal, uncertainty=ESTIMATE_BAND_BYTES, sizes=sizes, full_sizes=full,
                         formula=formula)
