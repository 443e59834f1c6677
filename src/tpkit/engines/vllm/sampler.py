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

    rejection   T·H·a + R × V × P B          under a speculative config the V1 runner's ``_dummy_sampler_run`` then
    sampler     (+ the Triton buffer)        runs the rejection sampler once (``rejection_bytes_per_logit``; helper
    (spec)                                   rs30, after rs29): one draft token per request, ``logits =
                                             torch.randn(R + R, V)`` in the activation dtype a, ``draft_probs`` None.
                                             ``RejectionSampler.forward`` keeps ``bonus_logits = logits[bonus]`` (a),
                                             the bonus sampler output's raw-logits copy (``max_num_logprobs=-1``,
                                             ``logprobs_mode_override="raw_logits"``: 0.11.1–0.11.x ``.clone()`` in
                                             the logits' dtype, a; from 0.12 float32, 4), the float32 target rows
                                             (4), from 0.14 their ``.clone()`` (4); then
                                             ``apply_sampling_constraints`` (top-k/top-p in place: the Triton kernel
                                             from 0.17 with ≥ 8 rows, else the full sort), the target ``softmax`` (4),
                                             ``sample_recovered_tokens``'s float32 ``q`` (4) and from 0.17 ``inv_q =
                                             q.reciprocal()`` (4).  P = 3a + raw + 4 + 4·clone + (Triton: 8 +
                                             4·inv_q; sort: the native sampler's own 36 B of the measured 38 B, whose
                                             float32 copy is the sorted target tensor, i.e. + 32).  The bonus
                                             call's own peak (3a + raw + the ordinary sampler's own) never exceeds
                                             the target step's.  a = 2, ≥ 0.17,
                                             ≥ 8 rows: 30 B against the Triton sampler's 14: +16 B × R × V (the
                                             gemma-4-31B n-gram twins' 4.00 GiB step, docs/accuracy.md §6.4 round
                                             rs30: 16 × 1,024 × 262,144 B).  The phase is the larger of
                                             the two runs (the ordinary run's temporaries are freed first).  Read in
                                             the 0.10.1–0.33.0 wheels (``VllmRules.dummy_rejection``); default
                                             ``--logprobs-mode`` (the processed modes skip the clone), greedy draft
                                             sampling (0.24+: ``draft_sample_method`` "probabilistic" adds draft
                                             probabilities, not planned); 0.29's second, all-greedy call holds less.
                                             Model Runner V2's dummy sampler run has no rejection sampler (0.24.0,
                                             0.29.0, 0.33.0 ``v1/worker/gpu/model_runner.py``).
"""

from __future__ import annotations

from tpkit.memory.band import estimated
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["sampler_phase", "SAMPLERS", "SAMPLER_BYTES_PER_LOGIT", "FLASHINFER_SAMPLER_BYTES_PER_LOGIT",
           "TRITON_SAMPLER_BYTES_PER_LOGIT", "TRITON_MIN_ROWS", "REJECTION_FORMS", "rejection_bytes_per_logit",
           "dummy_rejection"]


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


REJECTION_FORMS = ("none", "raw_clone", "raw_fp32", "target_clone", "inv_q")
"""the dummy rejection-sampler run's form by release (``VllmRules.dummy_rejection``; module doc, "rejection sampler")"""


_DEFAULT_SMS = 132


def dummy_rejection(rules, spec, v2_runner: bool) -> str:
    """The dummy rejection-sampler run's form in a plan's profile (``REJECTION_FORMS``): the release's
    (``VllmRules.dummy_rejection``) on the V1 runner under a speculative config (any method: ``_dummy_sampler_run``
    tests ``self.speculative_config`` only) with the dummy sampler run, else ``"none"``."""
    if spec is None or v2_runner or rules.engine != "V1" or not rules.dummy_sampler:
        return "none"
    return rules.dummy_rejection


def rejection_bytes_per_logit(form: str, a: int, rows: int) -> tuple[int, bool]:
    """(bytes per (row, vocab) element, whether the Triton kernel runs) at the peak of the dummy rejection-sampler
    run of ``form`` (``REJECTION_FORMS``, not ``"none"``) on ``rows`` rows with logits of ``a`` bytes (module doc)."""
    if form not in REJECTION_FORMS[1:]:
        raise ValueError(f"form must be one of {REJECTION_FORMS[1:]}, got {form!r}")
    raw = a if form == "raw_clone" else 4
    base = 3 * a + raw + 4 + (4 if form in ("target_clone", "inv_q") else 0)
    if form == "inv_q" and rows >= TRITON_MIN_ROWS:
        return base + 12, True
    # the full sort: the native sampler's measured bytes less its 2-byte caller logits and its float32 copy, which
    # is the target tensor already in ``base``
    return base + SAMPLER_BYTES_PER_LOGIT - 2 - 4, False


def _with_rejection(phase: tuple[Bytes, str], model: ModelSpec, tokens: int, rows: int, a: int, form: str,
                    sm_count: int | None) -> tuple[Bytes, str]:
    """``phase`` (the ordinary dummy sampler run), or the dummy rejection-sampler run where that holds more."""
    per, triton = rejection_bytes_per_logit(form, a, rows)
    buf = ""
    extra = 0
    if triton:
        sms = sm_count or _DEFAULT_SMS
        buf_rows = min(_next_pow2(min(sms, rows)), sms)
        extra = buf_rows * model.vocab_size * 4
        buf = f" + the Triton buffer {buf_rows:,} rows × V × 4 B"
    held = Bytes(tokens * model.hidden_size * a + rows * model.vocab_size * per + extra)
    if held.bytes <= phase[0].bytes:
        return phase
    return held, (f"R {rows:,} rows × V {model.vocab_size:,} × {per} B: the dummy rejection-sampler run of the "
                  f"speculative config (R + R random logits, bonus raw copy, float32 target rows"
                  f"{', clone' if form in ('target_clone', 'inv_q') else ''}, probabilities, q"
                  f"{', 1/q' if form == 'inv_q' else ''}; "
                  f"{'Triton' if triton else 'sorted'} top-k/top-p){buf} + hidden T × H × {a} B "
                  f"(the ordinary sampler run: {phase[1]})")


def _next_pow2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def sampler_phase(model: ModelSpec, tokens: int, rows: int, a: int, sampler: str,
                  sm_count: int | None = None, rejection: str = "none") -> tuple[Bytes, str]:
    """(bytes, formula) of the sampler phase on one rank: the hidden states of ``tokens`` and the ``rows`` rows'
    logits at the peak of ``sampler`` (one of ``SAMPLERS``); ``sm_count``: the GPU's SMs (the Triton buffer);
    ``rejection``: the form of the dummy rejection-sampler run that follows under a speculative config
    (``REJECTION_FORMS``; V1 runner), the phase then the larger of the two runs."""
    phase = _ordinary_phase(model, tokens, rows, a, sampler, sm_count)
    if rejection == "none" or sampler not in ("native", "triton", "flashinfer"):
        return phase
    return _with_rejection(phase, model, tokens, rows, a, rejection, sm_count)


def _ordinary_phase(model: ModelSpec, tokens: int, rows: int, a: int, sampler: str,
                    sm_count: int | None) -> tuple[Bytes, str]:
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
