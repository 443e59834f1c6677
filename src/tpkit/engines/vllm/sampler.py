"""The profile run's sampler phase (``sampler_phase``): the dummy sampler run vLLM makes after the forward, on one row
per request (R rows, vocabulary V, hidden H, activation bytes a, T tokens), by the sampler the release and the GPU
give (``SAMPLERS``; ``VllmRules.flashinfer_sampler``, ``triton_topk_topp``, ``v2_dummy_sampler``).  Split from
``profile.py`` (helper tidy29), which takes the larger of this phase and the forward's:

    sampler     T·H·a + R × V × 38 B         at the top-k/top-p peak of the dummy sampler run (top_k = V − 1,
                                             top_p = 0.9): logits bf16 (2) and fp32 (4), sorted values (4) and
                                             int64 indices (8) plus the sort's own scratch, softmax/cumsum (4),
                                             two bool masks, the re-scattered logits (4).  38 B is MEASURED:
                                             tests/engines/test_vllm_gpu.py replays that op sequence on an H200
                                             (torch 2.11: 38.0 B/logit at 1024 × 151,936, 1024 × 128,256 and
                                             256 × 128,256).  It is vLLM's PyTorch-native sampler; the FlashInfer
                                             sampler needs less (below).
    FlashInfer  T·H·a + R × V × 14 B         vLLM's FlashInfer top-k/top-p path (``flashinfer_sample`` →
    sampler                                  ``top_k_top_p_sampling_from_logits``, top-k first): the caller's bf16
                                             logits (2), the fp32 copy (4), the top-k masked logits (4) and their
                                             softmax probabilities (4).  14 B is read from the source (vllm 0.21 /
                                             0.28 wheels), not measured.  Which sampler runs is a release rule
                                             (``VllmRules.flashinfer_sampler``); where it depends on whether
                                             flashinfer is installed (0.8.0–0.11.0) the estimate is the
                                             PyTorch-native 38 B of a plain ``pip install vllm`` (flashinfer-python
                                             is no requirement of those wheels) ± 24 B down to FlashInfer's 14 B
                                             (the official docker image installs it); for a GPU of unknown compute
                                             capability (≥ 0.21) the midpoint, both ends inside its band.  A log's
                                             topk_topp_sampler line names the sampler (``VllmOptions``).
    Triton      T·H·a + R × V × 14 B         vLLM ≥ 0.17.0's PyTorch-native path with ≥ 8 rows
    top-k/top-p   + B × V × 4 B              (``apply_top_k_top_p_triton``, ``VllmRules.triton_topk_topp``): the
                                             caller's bf16 logits (2), the float32 copy (4) that temperature and
                                             the kernel change in place, the softmax probabilities (4) and
                                             ``random_sample``'s exponential draw (4, the division in place), plus
                                             the kernel's cached float32 buffer of B = min(next_pow2(min(SMs, R)),
                                             SMs) rows (``_TRITON_BUFFER_CACHE``); read in the 0.17.0–0.20.0
                                             wheels (``v1/sample/sampler.py Sampler.forward``/``sample``,
                                             ``ops/topk_topp_sampler.py``, ``ops/topk_topp_triton.py``), not
                                             measured.  A GPU of unknown SM count is taken at 132 SMs (H100 SXM).

    V2 sampler  T·H·a + R × V × a            Model Runner V2 (``v1/worker/gpu/model_runner.py _dummy_sampler_run``,
    (greedy)    (+ R × V × 4 B, 0.18–0.25)   ``sample/sampler.py``): the dummy batch keeps the default request
                                             states (temperature 0, top-k = V, top-p 1, no penalties, no logprobs),
                                             so no top-k/top-p runs: the caller's logits in the activation dtype,
                                             argmax'd by ``gumbel_sample`` (R × blocks scratch only); 0.18–0.25 first
                                             copy them to a new float32 tensor (``"v2_fp32"``), 0.26–0.32 do not
                                             (``"v2_greedy"``).  From 0.33 a second pass with the warm-up sampling
                                             parameters runs the float32 / top-k / top-p pipeline, charged as V1's
                                             FlashInfer or Triton estimate (``VllmRules.v2_dummy_sampler``).
"""

from __future__ import annotations

from tpkit.memory.band import estimated
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["sampler_phase", "SAMPLERS", "SAMPLER_BYTES_PER_LOGIT", "FLASHINFER_SAMPLER_BYTES_PER_LOGIT",
           "TRITON_SAMPLER_BYTES_PER_LOGIT", "TRITON_MIN_ROWS"]


SAMPLER_BYTES_PER_LOGIT = 38
"""bytes alive per (row, vocab) element at the sampler's top-k/top-p peak (measured on H200, see module doc)"""


FLASHINFER_SAMPLER_BYTES_PER_LOGIT = 14
"""the same with vLLM's FlashInfer top-k/top-p sampler (read from the source, see module doc)"""


SAMPLERS = ("native", "flashinfer", "either", "none", "triton", "native_unless_installed", "v2_greedy", "v2_fp32")
"""which top-k/top-p sampler the dummy sampler run uses; ``"either"``: it depends on the GPU (unknown compute
capability), the midpoint; ``"native_unless_installed"``: it depends on the install, PyTorch-native as a plain
``pip install`` gives it, with a band down to FlashInfer (vLLM 0.8.0–0.11.0); ``"none"``: no
sampler run, the profile computes the rows' logits only (vLLM 0.7.x V1 ``profile_run``); ``"triton"``: the native
path through the Triton kernel (≥ 0.17.0; the full sort below 8 rows); ``"v2_greedy"`` / ``"v2_fp32"``: Model
Runner V2's dummy sampler run, no top-k/top-p (the logits, plus their float32 copy for ``"v2_fp32"``)"""


TRITON_SAMPLER_BYTES_PER_LOGIT = 14
"""bytes alive per (row, vocab) element at the Triton top-k/top-p path's peak (read from the source, module doc)"""


TRITON_MIN_ROWS = 8
"""``apply_top_k_top_p`` takes the Triton kernel from 8 rows (``logits.shape[0] >= 8``), the sort below"""


_DEFAULT_SMS = 132


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def sampler_phase(model: ModelSpec, tokens: int, rows: int, a: int, sampler: str,
                  sm_count: int | None = None) -> tuple[Bytes, str]:
    """(bytes, formula) of the sampler phase on one rank: the hidden states of ``tokens`` and the ``rows`` rows'
    logits at the peak of ``sampler`` (one of ``SAMPLERS``); ``sm_count``: the GPU's SMs (the Triton buffer)."""
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    logits = rows * model.vocab_size
    hidden = tokens * model.hidden_size * a
    if sampler == "triton" and rows < TRITON_MIN_ROWS:
        sampler = "native"
    if sampler == "triton":
        sms = sm_count or _DEFAULT_SMS
        buf_rows = min(_next_pow2(min(sms, rows)), sms)
        per = TRITON_SAMPLER_BYTES_PER_LOGIT
        return (Bytes(hidden + logits * per + buf_rows * model.vocab_size * 4),
                f"R {rows:,} rows × V {model.vocab_size:,} × {per} B (PyTorch-native path, Triton top-k/top-p) "
                f"+ its buffer {buf_rows:,} rows × V × 4 B ({sms} SMs{'' if sm_count else ', assumed'}) "
                f"+ hidden T × H × {a} B")
    if sampler == "either":
        lo, hi = FLASHINFER_SAMPLER_BYTES_PER_LOGIT, SAMPLER_BYTES_PER_LOGIT
        mid = (lo + hi) / 2
        spread = estimated(Bytes(round(logits * mid)), Bytes(round(logits * (hi - mid))), term="vllm_sampler",
                           item="top-k/top-p sampler (FlashInfer if installed, else PyTorch-native)",
                           source=f"{lo}–{hi} B per logit: FlashInfer when flashinfer-python is installed "
                                  "(optional in vLLM 0.9–0.11), else PyTorch-native")
        return Bytes(hidden) + spread, (f"R {rows:,} rows × V {model.vocab_size:,} × {mid:g} ± {hi - mid:g} B "
                                        f"(FlashInfer {lo} B if installed, PyTorch-native {hi} B) "
                                        f"+ hidden T × H × {a} B")
    if sampler == "native_unless_installed":
        lo, hi = FLASHINFER_SAMPLER_BYTES_PER_LOGIT, SAMPLER_BYTES_PER_LOGIT
        spread = estimated(Bytes(logits * hi), Bytes(logits * (hi - lo)), term="vllm_sampler",
                           item="top-k/top-p sampler (PyTorch-native unless flashinfer-python is installed)",
                           source=f"{hi} B per logit: PyTorch-native, as a plain `pip install vllm` gives it "
                                  f"(flashinfer-python only an optional extra in vLLM 0.8.0–0.11.0); ± {hi - lo} B "
                                  f"covers FlashInfer's {lo} B (installed, e.g. the official docker image)")
        return Bytes(hidden) + spread, (f"R {rows:,} rows × V {model.vocab_size:,} × {hi} ± {hi - lo} B "
                                        f"(assumed PyTorch-native as pip installs it; FlashInfer {lo} B if installed) "
                                        f"+ hidden T × H × {a} B")
    if sampler in ("v2_greedy", "v2_fp32"):
        per, how = (a + 4, f"{a} + 4 B (logits, float32 copy)") if sampler == "v2_fp32" else (a, f"{a} B (logits)")
        return Bytes(hidden + logits * per), (f"R {rows:,} rows × V {model.vocab_size:,} × {how}: Model Runner V2's "
                                              f"greedy dummy batch, no top-k/top-p + hidden T × H × {a} B")
    if sampler == "none":  # 0.7.x V1: compute_logits of the R rows (activation dtype), no sampler
        return Bytes(hidden + logits * a), (f"R {rows:,} rows × V {model.vocab_size:,} × {a} B (logits only, no "
                                            f"sampler run) + hidden T × H × {a} B")
    per = FLASHINFER_SAMPLER_BYTES_PER_LOGIT if sampler == "flashinfer" else SAMPLER_BYTES_PER_LOGIT
    return Bytes(hidden + logits * per), (f"R {rows:,} rows × V {model.vocab_size:,} × {per} B "
                                          f"({'FlashInfer' if sampler == 'flashinfer' else 'PyTorch-native'} "
                                          f"top-k/top-p) + hidden T × H × {a} B")
