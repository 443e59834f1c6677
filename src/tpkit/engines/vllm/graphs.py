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
  largest FULL ones into a throw-away pool and extrapolates the FULL rest the same way.  Which models V2 runs by
  default: ``inputs.uses_v2_runner``.

Both are driver measurements of capture memory (graph objects, pool segments, lazily built workspaces) that the
model's shapes do not determine, so the size is **evidence-based**: the printed estimates of public start-ups
(``GRAPH_EVIDENCE``), their median as the nominal term and the farthest sample as its ± (as
``tpkit.startup`` builds its start-up table).  The printed values show no trend with model size (4–27B: 0.53–0.79
GiB) or with the graph count (1 + 1 graphs print 0.36–0.43 GiB, 11 + 7 print 1.21 GiB), so the term is not
scaled.  A printed estimate (``explain``) is used as printed.
"""

from __future__ import annotations

from tpkit.engines.vllm.versions import VllmRules
from tpkit.records import dataclass
from tpkit.units import Bytes, GiB

__all__ = ["GraphEstimate", "GraphSample", "GRAPH_EVIDENCE", "capture_sizes", "full_capture_sizes",
           "estimate_cudagraph_memory", "evidence_band"]


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphSample:
    """One printed "Estimated CUDA graph memory" of a public start-up (tp 1, FULL_AND_PIECEWISE)."""

    source: str
    """where it was printed (tpkit case id or search-index file id)"""
    model: str
    gpu: str
    release: str
    piecewise: int
    full: int
    printed_gib: float
    runner: str = "V1"


GRAPH_EVIDENCE: tuple[GraphSample, ...] = (
    GraphSample(source="search-index 51781852921", model="Qwen/Qwen3.5-9B", gpu="L40S", release="0.19.0",
                piecewise=51, full=35, printed_gib=0.78),
    GraphSample(source="search-index 55770092662", model="Qwen3.5-4B", gpu="44 GiB GPU", release="0.22.x",
                piecewise=51, full=35, printed_gib=0.64),
    GraphSample(source="search-index 54492899325", model="google/gemma-4-E4B-it", gpu="24 GiB GPU", release="0.22.1",
                piecewise=51, full=35, printed_gib=0.79),
    GraphSample(source="search-index 55021192520", model="Qwen2.5-VL-7B-Instruct", gpu="80 GiB GPU",
                release="0.23.0", piecewise=51, full=35, printed_gib=0.53),
    GraphSample(source="vl_076", model="Gemma-4 26B-A4B FP8", gpu="L40S", release="0.25.1",
                piecewise=51, full=35, printed_gib=0.66),
    GraphSample(source="vl_073", model="Qwen/Qwen3.8-27B", gpu="RTX-PRO-6000", release="0.29.0",
                piecewise=51, full=35, printed_gib=0.69, runner="V2"),
    GraphSample(source="search-index 54318626907", model="(not read)", gpu="≈ 31 GiB GPU", release="0.19.0",
                piecewise=51, full=35, printed_gib=0.27),
    GraphSample(source="search-index 52073719645", model="RedHatAI/Qwen3.6-35B-A3B-NVFP4 (WSL, 0.47 GiB KV left)",
                gpu="≈ 31 GiB GPU", release="0.19.2rc1.dev8", piecewise=51, full=35, printed_gib=0.08),
)
"""Printed estimates at the default capture set (51 PIECEWISE + 35 FULL graphs).  Other capture sets, not in the
median, all inside its band: 1 + 1 graphs 0.36 and 0.43 GiB, 3 + 2 0.27, 5 + 4 0.61, 11 + 7 1.21, 15 + 8 0.65,
35 + 19 0.37 (search-index 52377383460, 51912001300, 52101499359, 61544841280, 52221836498, 56878676544,
67144197265).  Left out: multi-GPU runs (1.97 GiB at tp 2 on a 179 GiB GPU, 4.99 GiB for a B200 MoE, vl_032) and
PIECEWISE-only runs (speculative decoding: 15 graphs 0.22 GiB; one prints −0.87 GiB)."""


def median(values: list[float]) -> float:
    """``statistics.median`` (the middle value, or the mean of the two middle ones), without importing
    ``statistics``: it pulls in decimal, fractions and random, a few ms of every vLLM plan's cold start."""
    data = sorted(values)
    n, i = len(data), len(data) // 2
    return data[i] if n % 2 else (data[i - 1] + data[i]) / 2


def evidence_band() -> tuple[Bytes, Bytes]:
    """(median, farthest sample's distance from it) of ``GRAPH_EVIDENCE``."""
    values = [s.printed_gib for s in GRAPH_EVIDENCE]
    mid = median(values)
    spread = max(abs(v - mid) for v in values)
    return GiB(mid), GiB(spread)


@dataclass(frozen=True, kw_only=True, slots=True)
class GraphEstimate:
    """The CUDA-graph memory estimate and how it was formed."""

    bytes: Bytes
    uncertainty: Bytes
    """± of ``bytes`` (the farthest printed sample)"""
    sizes: tuple[int, ...]
    """captured PIECEWISE batch sizes (tokens)"""
    full_sizes: tuple[int, ...]
    """captured FULL (decode) batch sizes"""
    formula: str


def capture_sizes(*, max_num_seqs: int, max_num_batched_tokens: int,
                  compute_capability: tuple[int, int] | None) -> tuple[int, ...]:
    """The batch sizes vLLM captures by default (``vllm/config/vllm.py`` ``_set_cudagraph_sizes``)."""
    ceiling = 1024 if (compute_capability or (0, 0))[0] == 10 else 512
    top = min(max_num_seqs * 2, ceiling, max_num_batched_tokens)
    sizes = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, top + 1, 16))
    return tuple(s for s in sizes if s <= top)


def full_capture_sizes(sizes: tuple[int, ...], max_num_seqs: int) -> tuple[int, ...]:
    """FULL decode graphs of FULL_AND_PIECEWISE: the capture sizes up to ``max_num_seqs``."""
    return tuple(s for s in sizes if s <= max_num_seqs)


def estimate_cudagraph_memory(rules: VllmRules, *, v2_runner: bool, max_num_seqs: int, max_num_batched_tokens: int,
                              compute_capability: tuple[int, int] | None) -> GraphEstimate:
    """The estimate vLLM subtracts before KV sizing, for one rank (FULL_AND_PIECEWISE)."""
    sizes = capture_sizes(max_num_seqs=max_num_seqs, max_num_batched_tokens=max_num_batched_tokens,
                          compute_capability=compute_capability)
    full = full_capture_sizes(sizes, max_num_seqs)
    if v2_runner and rules.release < (0, 29, 0):
        return GraphEstimate(bytes=Bytes(0), uncertainty=Bytes(0), sizes=sizes, full_sizes=full,
                             formula="Model Runner V2: profile_cudagraph_memory returns 0 (vLLM 0.19–0.28), "
                                     "nothing subtracted")
    nominal, spread = evidence_band()
    runner = "Model Runner V2" if v2_runner else "V1 runner"
    formula = (f"{runner}, {len(sizes)} PIECEWISE + {len(full)} FULL graphs: median of {len(GRAPH_EVIDENCE)} printed "
               f"estimates {nominal.gib:.2f} GiB ± {spread.gib:.2f} (farthest sample; driver-measured, not derivable)")
    return GraphEstimate(bytes=nominal, uncertainty=spread, sizes=sizes, full_sizes=full, formula=formula)
