"""Diagnosis: which phase failed, by how much and why, and fixes re-planned from the same measured numbers.

A fix changes one knob and re-does the engine's arithmetic on the log's own anchors (SGLang: pre-load
memory, weights, free after weights, the cell; vLLM: requested, non-KV memory, available KV, bytes per
token).  Terms a knob changes that the log cannot measure are scaled and the fix says so (``note``):
``--tp 2N`` halves the sharded weights and, for GQA models with enough KV heads, the cell; fp8 weights halve
16-bit weights; an fp8 KV cache halves a 16-bit cell.

The engines' diagnoses live in ``sgdiagnose`` (SGLang) and ``vdiagnose`` (vLLM); ``explain.result`` imports the one
its log needs (a log of one engine does not compile the other's rules).  This module keeps what both share.
"""

from __future__ import annotations

import re
from dataclasses import field, replace

from tpkit.records import dataclass
from tpkit.units import Bytes, GiB, format_bytes

__all__ = ["Fix", "Diagnosis", "MARGIN", "RENAMED", "INSTEAD", "release_fixes", "capture_error_not_memory",
           "pool_error_not_memory", "custom_allreduce_fix", "failure_texts",
           "MAX_FRACTION", "OTHERS_NEGLIGIBLE_FRACTION", "fp8_could_halve_weights", "bytes_text", "kv_heads_shard", "names_a_cause"]

MARGIN = GiB(1)
"""headroom a re-planned fraction leaves above the bare need (activations of the first batch)"""
MAX_FRACTION = 0.95

OTHERS_NEGLIGIBLE_FRACTION = 0.01
"""other processes' memory on the device at most this share of its printed total reads as none, for either engine
(SGLang's ``explain.sgdevice``, vLLM's ``explain.voom.other_processes``): the three printed figures (total, free, this
process) are each rounded to 0.01 GiB / MiB, and the driver's own reservation is not 'this process'.  One home since
round cr34c (before: ``sgdevice``'s, which voom imported from the SGLang module)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Fix:
    """One re-planned fix: the flags to change, the KV tokens the plan then gets, whether it fits, and why."""
    flags: str
    kv_tokens: int | None
    fits: bool
    why: str
    note: str = ""

    def to_dict(self) -> dict:
        return {"flags": self.flags, "kv_tokens": self.kv_tokens, "fits": self.fits, "why": self.why,
                "note": self.note}


@dataclass(frozen=True, kw_only=True, slots=True)
class Diagnosis:
    """What failed in the log (phase, cause, by how much, the line that shows it) and the fixes re-planned from its
    measurements."""
    status: str
    """``ok`` or ``failed`` (the log shows an error): the issue's two values, which scripts test; a log in which no
    engine line, setting or failure was read is ``ok`` with ``cause`` saying that nothing was recognised"""
    phase: str | None
    cause: str
    short_by: Bytes | None = None
    evidence: str = ""
    fixes: tuple[Fix, ...] = ()
    findings: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return {"status": self.status, "phase": self.phase, "cause": self.cause,
                "short_by_bytes": None if self.short_by is None else self.short_by.bytes,
                "evidence": self.evidence, "fixes": [f.to_dict() for f in self.fixes],
                "findings": list(self.findings)}


def bytes_text(b: Bytes | int | float) -> str:
    """``b`` as tpkit prints a size (``units.format_bytes``), from Bytes or a plain byte count."""
    return format_bytes(b if isinstance(b, Bytes) else Bytes(int(b)))


def kv_heads_shard(model, tp: int) -> bool:
    """True when doubling TP halves the per-rank KV cell (GQA/MHA with ≥ 2·tp KV heads, not MLA)."""
    if model is None:
        return False
    if getattr(model, "is_mla", False):
        return False
    heads = getattr(model, "num_key_value_heads", None) or getattr(model, "num_kv_heads", None)
    return bool(heads) and heads >= 2 * tp


def _weights_16bit(model) -> bool:
    return model is not None and getattr(model, "quant", None) is None


def fp8_could_halve_weights(ctx) -> bool:
    """Whether '--quantization fp8' is a fix to offer: the log prints no quantization method (vLLM's engine config
    'quantization=…', SGLang's server args) and the model config, where known, carries none.  A checkpoint the engine
    already loads quantized (compressed-tensors FP8, AWQ, ModelOpt …) has no 16-bit weights to halve; the planned
    re-plan (``explain.planned``) applied the same test, the two diagnoses did not (helper mv11, 2026-12-04: vl_342,
    an FP8-dynamic checkpoint, was offered '--quantization fp8')."""
    if ctx.get("quantization"):
        return False
    return ctx.model is None or _weights_16bit(ctx.model)


_CUDA_ERROR = re.compile(r"CUDA error: ([^\n]{1,160})")
_MEMORY_WORDS = ("out of memory", "outofmemory", "cudaerrormemoryallocation", "alloc_failed", "tried to allocate")


def names_a_cause(texts) -> bool:
    """Whether any of ``texts`` (failures' details and evidence) names what failed: a memory word
    (``_MEMORY_WORDS``), a CUDA error or a Python exception class.  A run whose failure texts name none says only
    that it failed (``explain.unnamed``)."""
    return any(w in t.lower() for t in texts for w in _MEMORY_WORDS) or any(
        _CUDA_ERROR.search(t) or _EXCEPTION_NAME.search(t) for t in texts)


def capture_error_not_memory(parsed) -> str | None:
    """The CUDA error a failed CUDA-graph capture names when no failure of the run is a memory error, else None.

    Both engines wrap whatever the capture raises: SGLang's ``CudaGraphRunner.__init__`` turns every
    ``RuntimeError`` of ``capture()`` into "Capture cuda graph failed: {e}" followed by the same memory advice
    (``CUDA_GRAPH_CAPTURE_FAILED_MSG``, ``model_executor/cuda_graph_runner.py``; read in the 0.5.11 wheel), and vLLM
    re-raises from ``capture_model``.  The wrapper's wording therefore says nothing about the cause; the chained
    exception does.  A CUDA error such as "operation not permitted when stream is capturing" (a synchronising call
    inside the captured forward) is not a lack of memory: more slack would not help; nor is a Python exception of
    another kind raised inside the capture (helper ex22: sglang#1751 "failed to dispatch head_dim 96", FlashInfer has
    no kernel for that head size; sglang#4351 "mat1 and mat2 shapes cannot be multiplied" in an EAGLE draft graph;
    sglang#7495 DeepGEMM's "AssertionError: Unknown cases").  A log whose exception text is cut, or that names
    neither a CUDA error nor an exception class, keeps the memory reading (None)."""
    texts = [t for f in parsed.failures
             if f.kind in ("exception", "cuda_graph_capture_failed", "cuda_oom", "engine_start_failed")
             for t in (f.detail, f.evidence) if t]
    if any(w in t.lower() for t in texts for w in _MEMORY_WORDS) or any(f.kind == "cuda_oom" for f in parsed.failures):
        return None
    for t in texts:
        m = _CUDA_ERROR.search(t)
        if m:
            return m.group(1).strip()
    return _exception_named(parsed.failures) or _capture_wrapped(parsed.failures)


_WRAPPED_MIN_CHARS = 30
"""the shortest wrapped error read as a cause: every memory wording (``_MEMORY_WORDS``; 'CUDA error: out of memory'
ends at character 25) shows within it, so a text cut shorter says nothing"""


def _capture_wrapped(failures) -> str | None:
    """The error SGLang's capture wrapper quotes, "Capture cuda graph failed: {e}" (``CudaGraphRunner.__init__``,
    sglang 0.4.3.post2 and 0.5.9 wheels), when it is neither a CUDA error nor a Python exception class: a Triton
    launch error ("Triton Error [CUDA]: an illegal memory access was encountered", sglang#1467) or a gloo transport
    error ("[…gloo/transport/tcp/pair.cc:534] Connection closed by peer", sglang#4205) is not a lack of memory
    either (round ex28: sg_672, sg_673).  The caller has already found no memory word in any failure; a quoted text
    shorter than ``_WRAPPED_MIN_CHARS`` keeps the memory reading."""
    for f in failures:
        if f.kind == "cuda_graph_capture_failed" and len(f.detail.strip()) >= _WRAPPED_MIN_CHARS:
            return f.detail.strip()
    return None



_POOL_MEMORY_KINDS = ("cuda_oom", "no_kv_memory", "kv_budget_non_positive", "kv_too_small")
_EXCEPTION_NAME = re.compile(r"\b([A-Z][A-Za-z]*(?:Error|Exception))\b(:[^\n]{0,160})?")


def _exception_named(failures) -> str | None:
    """The first Python exception class (with its message) a failure of kind ``exception`` names, else None."""
    for f in failures:
        if f.kind != "exception":
            continue
        for t in (f.detail, f.evidence):
            m = _EXCEPTION_NAME.search(t or "")
            if m:
                return (m.group(1) + (m.group(2) or "")).rstrip(": ").strip()
    return None


def pool_error_not_memory(parsed, phase: str = "kv_pool") -> str | None:
    """The exception a run that failed while creating its KV pool names, when nothing in the run is a memory error;
    else None.

    SGLang sizes the pool first (``ModelRunnerKVCacheMixin._profile_available_bytes`` / the pool configurator) and
    then builds it (``_apply_memory_pool_config`` -> ``_init_pools``; ``model_executor/model_runner_kv_cache_mixin.py``,
    0.5.11 wheel).  A lack of memory surfaces as its own messages ("Not enough memory. Please try to increase
    --mem-fraction-static", a negative token count) or as a CUDA/HIP OOM while allocating; an exception of another
    kind raised inside ``_init_pools`` (sglang#25118: ``deepseekv4_memory_pool.create_buffer``'s ``assert
    self.store_dtype == torch.uint8`` with an fp8_e4m3fnuz cache on MI300X, build 0.5.11.dev20260512) is a code or
    option incompatibility: a smaller fraction, more GPUs or fp8 weights would not help.  A failure in the kv_pool
    phase qualifies when no failure of the run is of a memory kind, no failure text mentions memory, and some failure
    names a Python exception class (``AssertionError``, ``ValueError: ...``).  ``phase="first_request"`` asks the same
    of a run that failed serving (helper ex22: sglang#5637-style warm-up 503s, an ``AttributeError`` in the event
    loop, an embedding model's ``AssertionError`` in ``run_batch``): no memory knob applies there either."""
    failures = list(parsed.failures)
    if not failures or not any(f.phase == phase for f in failures):
        return None
    if any(f.kind in _POOL_MEMORY_KINDS for f in failures):
        return None
    texts = [t for f in failures for t in (f.detail, f.evidence) if t]
    if any("memory" in t.lower() or w in t.lower() for t in texts for w in _MEMORY_WORDS):
        return None
    return _exception_named(failures)


# ------------------------------------------------------------------------------------------------ release spelling
# Explain's fixes in the spelling of the log's release (helper fix22, session 22).  A fix is a restart with other
# flags; a flag the user's release does not parse turns a right diagnosis into a failed restart.  After the engine's
# diagnosis (explain.result), every ``--flag`` of every fix is checked with ``engines.cliflags.accepts`` against the
# release explain read (``Context.version``: printed, or the range the line formats give): a flag the release renamed
# is written in the release's spelling (``RENAMED``); a flag the release does not have stays, and the fix's note says
# so plainly, with what to do instead (``INSTEAD``, else: upgrade).  No version, or one older than the oldest
# checked: the fix stays as it is.  (``engines.cliflags`` is imported only then: the cold start of explain.)

_FIX_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

RENAMED = {
    ("sglang", "--cuda-graph-max-bs"): "--cuda-graph-max-bs-decode",
}
"""(engine, flag) → the later releases' name for the same setting.  SGLang: ``cuda_graph_max_bs_decode`` ("Maximum
batch size captured for the decode cuda graph", sglang 0.5.14–0.5.23 ``arg_groups/fields/exec_.py``) sits beside
``--cuda-graph-max-bs`` from 0.5.14; 0.5.20 registers ``--cuda-graph-max-bs`` no more (and argparse reads it as an
ambiguous prefix of the ``-decode`` / ``-prefill`` pair)."""

INSTEAD = {
    ("sglang", "--cuda-graph-max-bs"): "--disable-cuda-graph (no graphs, no graph memory)",
    ("vllm", "--kv-cache-memory-bytes"): "--gpu-memory-utilization (the KV cache gets what the fraction leaves)",
}
"""(engine, flag) → what a release without ``flag`` takes instead."""


def _release_text(version: str) -> str:
    return str(version).split(" (")[0]


def _flag_missing_note(engine: str, flag: str, version: str) -> str:
    """"SGLang 0.3.3 has no --x (first in 0.4.0): use ... instead, or upgrade"."""
    from tpkit.engines.cliflags import flag_releases, releases_checked

    newest = releases_checked(engine)[-1]
    where = ", ".join(f"first in {a}" if b == newest else f"in {a}–{b}" for a, b in flag_releases(engine, flag))
    renamed = RENAMED.get((engine, flag))
    if renamed and flag_releases(engine, renamed):
        where += f"; {renamed} from {flag_releases(engine, renamed)[0][0]}"
    name = "SGLang" if engine == "sglang" else "vLLM"
    instead = INSTEAD.get((engine, flag))
    return (f"{name} {_release_text(version)} has no {flag}" + (f" ({where})" if where else "") + ": "
            + (f"use {instead} instead, or upgrade" if instead else f"upgrade {name} to a release that has it"))


def _respell_fix(fix, engine: str, version: str):
    from tpkit.engines.cliflags import accepts

    flags, notes = fix.flags, []
    for flag in dict.fromkeys(_FIX_FLAG.findall(fix.flags)):
        if accepts(engine, flag, version) is not False:
            continue
        new = RENAMED.get((engine, flag))
        if new and accepts(engine, new, version):
            flags = re.sub(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", new, flags)
            continue
        notes.append(_flag_missing_note(engine, flag, version))
    if flags == fix.flags and not notes:
        return fix
    note = "; ".join(x for x in (fix.note, *notes) if x)
    return replace(fix, flags=flags, note=note)


def release_fixes(diagnosis, engine: str | None, version: str | None):
    """``diagnosis`` with its fixes in release ``version``'s flags (see the comment above ``RENAMED``)."""
    if not version or engine not in ("sglang", "vllm") or not diagnosis.fixes:
        return diagnosis
    fixes = tuple(_respell_fix(f, engine, version) for f in diagnosis.fixes)
    return diagnosis if fixes == diagnosis.fixes else replace(diagnosis, fixes=fixes)


def failure_texts(parsed) -> str:
    """The details and evidence of the run's errors, one text (what ``custom_allreduce_fix`` reads)."""
    return "\n".join(t for f in parsed.failures if f.severity == "error" for t in (f.detail, f.evidence) if t)


def custom_allreduce_fix(root: str) -> list[Fix]:
    """``--disable-custom-all-reduce`` first when the error comes from the custom all-reduce kernels: their
    CUDACHECK names ``custom_all_reduce.cuh`` (``logs.failures._CUSTOM_AR_CUDACHECK``), and without them vLLM
    all-reduces through NCCL (``distributed/device_communicators/cuda_communicator.py``: the ``CustomAllreduce`` is
    built only ``if use_custom_allreduce``, which is ``parallel_state._ENABLE_CUSTOM_ALL_REDUCE``, off under
    ``--disable-custom-all-reduce``; vLLM 0.11.0 wheel), so the graphs are still captured.  SGLang builds its custom
    all-reduce, v1 or the JIT v2 (``dispatch_custom_allreduce``), only ``if use_custom_allreduce``, which
    ``set_custom_all_reduce(not server_args.disable_custom_all_reduce)`` sets (srt/distributed/parallel_state.py and
    model_executor/model_runner.py, 0.5.10 and 0.5.15 wheels).  Whatever the step that printed the error (a
    CUDACHECK exit leaves no traceback to place it: vllm#42609, vl_1391), the kernels that failed are not built.
    The custom all-reduce's IPC buffers are freed too, so the KV cache can only grow; no token count is stated
    (round ex28: vllm#56180, vl_1153; round ex32: any phase, and SGLang)."""
    if "custom_all_reduce" not in root and "custom all-reduce" not in root:
        return []
    return [Fix(flags="--disable-custom-all-reduce", kv_tokens=None, fits=True,
                why="all-reduce through NCCL instead of the custom kernels that failed; CUDA graphs stay on")]


def oom_sizes(failure):
    """(a CUDA OOM?, the size it asked for, the size free, asked − free when both are printed)."""
    oom = failure.kind == "cuda_oom"
    req, free = failure.size("requested"), failure.size("free")
    return oom, req, free, (req.value - free.value if oom and req and free else None)


SUGGESTION = "a suggestion, not shown to fit"
"""how the note of a fix ``unshown`` offers begins (the text render labels such a fix 'maybe', not 'NO')"""


def unshown(fix: Fix, missing: str) -> Fix:
    """``fix`` offered as a suggestion, not a fit: explain's one standard for ``fits`` (round cr33c, docs/accuracy.md
    §7.3 'Every claimed fit audited'): a fix fits only where it is (a) re-planned from the log's printed numbers, or
    (b) planned from the catalog with the plan's band and fits at its pessimistic end; a rule of thumb or a number
    the log does not print (c) is still offered, with ``missing`` — what the log would have to print to show it
    fits — first in its note (``fits: false`` in the JSON)."""
    note = f"{SUGGESTION}: {missing}" + (f"; {fix.note}" if fix.note else "")
    return Fix(flags=fix.flags, kv_tokens=fix.kv_tokens, fits=False, why=fix.why, note=note)
