"""vLLM V0 profile-run OOMs: a CUDA OOM raised inside the profile run (helper rt23, 2026-12-06, issue 12).

What the wheels say (vllm 0.6.1.post2, 0.6.2, 0.6.4, 0.7.2 and 0.9.1's V0 ``worker/`` read):

- ``worker/worker.py`` ``determine_num_available_blocks``: ``torch.cuda.empty_cache()``, then
  ``model_runner.profile_run()``, and only then ``num_gpu_blocks = (total × gpu_memory_utilization − peak) //
  block`` (0.7.2 and 0.9.1: the same inside ``memory_profiling``).  The profile run allocates from the whole
  device; the utilization enters after it, so no ``--gpu-memory-utilization`` cures an OOM inside it, in either
  direction.
- ``worker/model_runner.py`` ``profile_run`` (decoder-only; ``_dummy_run`` in 0.7.2 and 0.9.1): a dummy batch of
  ``max_num_batched_tokens`` tokens over ``max_num_seqs`` sequences (``max_num_batched_tokens // max_num_seqs``
  each, the rest spread one by one); a multimodal model runs ``min(max_num_seqs, max_num_batched_tokens //
  max_mm_tokens)`` sequences (at least 1), each with the per-prompt limit of dummy items; the sampler runs top-k
  over the full vocabulary for every sequence.
- ``worker/enc_dec_model_runner.py`` ``profile_run`` (0.6.2, 0.6.4, 0.9.1; 0.6.1.post2 raises for a multimodal
  encoder-decoder model): ``max_num_seqs`` sequences with no cap from the budget, and each takes the model's
  encoder dummy data: Mllama's ``dummy_encoder_data_for_mllama`` is one 1024×1024 image per allowed image
  (``limit_mm_per_prompt``, default 1) at ``max_num_tiles`` tiles, so the vision pass grows with max_num_seqs
  alone (Llama-3.2-11B-Vision at 256 sequences: 256 × 4 tiles × 1,608 padded patches × 1,280 × 5 kept layers ×
  2 B = 19.63 GiB, the allocation a corpus log prints).
- ``config.py`` ``SchedulerConfig`` (0.6.2): without chunked prefill ``max_num_batched_tokens`` defaults to
  ``max(max_model_len, 2048)`` (a multimodal model: at least 4096); ``--max-model-len`` moves the profile only
  through that default (``explain.replan.same_profile``).

The rule (:func:`charged_peak`), shared by ``tpkit explain``'s fixes of such a log (``explain.vprofilefix``) and
``tpkit plan --from-log LOG`` (``cli.fromlog_replan.relayout_plan``), through ``explain.replan.relayout``: the OOM
prints the torch memory in use and the allocation that failed, so the profile needed at least ``demand =
allocated by PyTorch + the failed request``.  The planner's torch memory of the log's own run is its weights line
(the log's measured load where printed) plus its activation peak; what it misses, ``demand − both`` (the
encoder's pass of a model whose V0 encoder tpkit does not model, Mllama's), is charged on top of the planner's
activation peak at the plan's batch, scaled by the part of the batch it lives in: ``max_num_seqs`` for a
multimodal encoder-decoder model (``ENCODER_PER_SEQUENCE``), else the larger of the max_num_seqs and
max_num_batched_tokens ratios (no smaller than any dummy item count either runner derives from them).  The
demand is a lower bound (the OOM stopped the run at its first failed allocation), so a fix's tokens are at most
what it leaves."""

from __future__ import annotations

import re

from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

__all__ = ["ENCODER_PER_SEQUENCE", "ProfileOom", "profile_oom", "charged_peak", "activation_line"]

ENCODER_PER_SEQUENCE = frozenset({"MllamaForConditionalGeneration"})
"""architectures vLLM V0 runs on ``EncoderDecoderModelRunner`` with multimodal encoder dummy data per sequence
(0.6.2 and 0.6.4 ``enc_dec_model_runner.profile_run`` + ``mllama.dummy_encoder_data_for_mllama``; the log says
'EncoderDecoderModelRunner requires XFormers backend')"""

_PROFILE = re.compile(r"profile_run|determine_num_available_blocks")
"""V0's worker method around the profile run, or the runner's profile frame (V1's is determine_available_memory)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class ProfileOom:
    """A V0 profile-run OOM: the torch memory the profile needed at least, and how its dummy batch scales."""
    demand: Bytes
    """allocated by PyTorch + the allocation that failed, as the OOM prints them"""
    words: str
    """where ``demand`` was read, for notes"""
    per_sequence: bool
    """the model's encoder dummy data is one set per dummy sequence (``ENCODER_PER_SEQUENCE``)"""
    release: str | None
    """the rules both sides plan it by: ``"<release>:v0"`` for a V0 log of 0.8–0.10 (``explain.runfacts.v0_formats``,
    as ``cli.fromlog.v0_engine_release``), else the context's"""


def profile_oom(parsed, ctx, model=None) -> ProfileOom | None:
    """The log's primary failure as a V0 profile-run OOM (a CUDA OOM in the kv_pool phase whose traceback or message
    names the profile run or V0's ``determine_num_available_blocks``, on a log of the V0 engine), with both sizes
    printed; None otherwise.  ``model``: the config planned (default the context's: ``tpkit plan MODEL --from-log``
    names it where the log's path is not on this machine)."""
    failure = parsed.primary_failure if parsed is not None else None
    if (failure is None or failure.kind != "cuda_oom" or failure.phase != "kv_pool" or ctx is None
            or ctx.engine != "vllm" or not _v0(parsed)
            or not _PROFILE.search(f"{failure.phase_evidence} {failure.evidence}")):
        return None
    asked, allocated = failure.size("requested"), failure.size("torch_allocated")
    if asked is None or allocated is None:
        return None
    from tpkit.explain.runfacts import v0_formats

    release = ctx.rules_version
    if release and v0_formats(parsed, release):
        release = f"{release}:v0"
    arch = getattr(model if model is not None else ctx.model, "architecture", None)
    return ProfileOom(demand=Bytes(allocated.value.bytes + asked.value.bytes),
                      words=f"{allocated.text} allocated by PyTorch + the {asked.text} it asked for (line "
                            f"{failure.line_no})", per_sequence=arch in ENCODER_PER_SEQUENCE, release=release)


def _v0(parsed) -> bool:
    """The log is the V0 engine's: its line formats say so (``logs.engine``), or a module path of V0's worker
    package ('vllm/worker/…'; V1's runners live under 'vllm/v1/worker/') is the only generation evidence."""
    guess = parsed.engine
    if guess is None or guess.engine_generation == "V1":
        return False
    return guess.engine_generation == "V0" or any(_V0_WORKER.search(ev.claim) for ev in guess.evidence)


_V0_WORKER = re.compile(r"module path 'vllm/worker/")


def activation_line(result) -> Bytes | None:
    """The planner's 'activation peak (profile run …)' line of a plan."""
    return _line(result, "activation peak (profile run")


def _line(result, start: str) -> Bytes | None:
    """The first ledger line of a plan whose item starts with ``start`` (its bytes), None where there is none."""
    line = next((x for x in result.ledger.items if x.item.startswith(start)), None)
    return None if line is None else Bytes(abs(line.bytes.bytes))


def _ratio(oom: ProfileOom, own: dict, new: dict) -> float:
    """How the part of the profile the planner misses scales from the log's batch to the plan's."""
    seqs = int(new["max_num_seqs"]) / int(own["max_num_seqs"])
    if oom.per_sequence:
        return seqs
    return max(seqs, int(new["max_num_batched_tokens"]) / int(own["max_num_batched_tokens"]))


def charged_peak(oom: ProfileOom, own, new) -> tuple[Bytes, str] | None:
    """(the activation peak to charge the plan ``new``, the note): its planned peak + (``oom.demand`` − the weights
    and activation peak of ``own``, the plan of the log's own run) × the batch ratio; None where the planner's own
    plan already reaches the demand or a plan lacks the lines."""
    w0, p0, p1 = _line(own, "model weights"), activation_line(own), activation_line(new)
    e0, e1 = own.extra or {}, new.extra or {}
    if w0 is None or p0 is None or p1 is None or not all(
            k in x for x in (e0, e1) for k in ("max_num_seqs", "max_num_batched_tokens")):
        return None
    missed = oom.demand.bytes - w0.bytes - p0.bytes
    if missed <= 0:
        return None
    k = _ratio(oom, e0, e1)
    extra = Bytes(round(missed * k))
    by = "max_num_seqs" if oom.per_sequence else "the larger of the max_num_seqs and max_num_batched_tokens ratios"
    note = (f"the profile run OOMed: it needed at least {oom.words}, {gib_text(Bytes(missed))} more than the "
            f"planner's weights {gib_text(w0)} and activation peak {gib_text(p0)} at the log's batch "
            f"({e0['max_num_seqs']} seqs, {e0['max_num_batched_tokens']} tokens); charged × {k:.3g} ({by}: "
            f"{e1['max_num_seqs']} seqs, {e1['max_num_batched_tokens']} tokens) on top of the planned peak: "
            f"{gib_text(extra)} (explain.vprofile)")
    return Bytes(p1.bytes + extra.bytes), note
