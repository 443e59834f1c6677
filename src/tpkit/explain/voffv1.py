"""vLLM's opt-in V1 engine before 0.8.0 ignores ``--cpu-offload-gb``: the weights load whole (helper cr37, 2026-12-07).

Read in the vLLM 0.7.3 wheel: ``maybe_offload_to_cpu`` (``model_executor/models/utils.py``) moves a layer's
parameters to host memory only while ``_CPU_OFFLOAD_BYTES`` is below ``_CPU_OFFLOAD_MAX_BYTES``, a module global that
starts at 0 and is set only by ``set_cpu_offload_max_bytes``.  Its one caller is V0's ``worker/model_runner.py``
(``GPUModelRunnerBase.load_model``: ``set_cpu_offload_max_bytes(int(cache_config.cpu_offload_gb * 1024**3))``); no
module under ``vllm/v1/`` calls it, so V1's ``GPUModelRunner.load_model`` builds every layer with a cap of 0 and
offloads nothing — while ``config.py`` still logs 'CPU offload is not supported with torch.compile yet. Disabling
torch.compile.' for the flag.  vLLM 0.8.0 closes the gap by running V0 for it (``engine/arg_utils.py``
``_is_v1_supported_oracle``: "No CPU offloading yet" → ``_raise_or_fallback``), and by 0.11.0 the V1 runner sets the
cap itself (``v1/worker/gpu_model_runner.py``).  V0 is 0.7's default engine (``VLLM_USE_V1=0``).

So a log of a V1 0.7.x engine ('Initializing a V1 LLM engine (v0.7…)') whose launch asked for ``cpu_offload_gb`` > 0
measured its whole weights ('Loading model weights took …'), and the offload it asked for is the cure only under V0.
The fix is re-planned from that measurement (class (a) of round cr33c's standard): the weights V0 keeps on the GPU are
the measured ones × the planner's weights with the offload / without (``explain.replan.scaled_weights``, V0's rules of
the same release, ``engines.offload``: whole parameters of the decoder layers, and the profile run's copy of one
offloaded layer); it fits only where that plan fits and the band's pessimistic end holds one request of the plan's
``max_model_len`` (vLLM's one-request check).

The launch's value is read from the log's text: the last ``cpu_offload_gb=N`` (an ``LLM(...)`` keyword, a dumped
config) or ``--cpu-offload-gb N`` before the V1 engine's start line — a command printed before the engine starts is
the one that started it (the engine's config dump of 0.7 does not print the field).
"""

from __future__ import annotations

import re
from dataclasses import replace

from tpkit.engines.vllm.load_lines import OFFLOAD_IGNORED_SOURCE
from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.explain.refusals import REFUSED
from tpkit.units import Bytes, gib_text

__all__ = ["OFFLOAD_SAID", "V1_START", "asked_offload", "v1_release", "with_v0_offload"]

V1_START = re.compile(rb"Initializing a V1 LLM engine \(v(0\.7\.[0-9]+)[^)]*\)")
"""the V1 engine core's start line and its release (``v1/engine/core.py`` ``EngineCore.__init__``, 0.7.x)"""

OFFLOAD_SAID = re.compile(rb"(?<![\w-])(?:cpu_offload_gb['\"]?\s*[=:]\s*|--cpu-offload-gb[= ]\s*)([0-9]+(?:\.[0-9]+)?)"
                          rb"(?![0-9.])")
"""the launch's offload: a keyword (``LLM(..., cpu_offload_gb=12)``, a config's ``'cpu_offload_gb': 12``) or the CLI
flag (``--cpu-offload-gb 12``)"""

_SOURCE = OFFLOAD_IGNORED_SOURCE
"""the planner's reading of the same wheel (``engines.vllm.load_lines.offload_ignored``): one home for the rule"""


def v1_release(raw: bytes) -> tuple[str, int] | None:
    """(release, byte offset of the start line) of the last V1 0.7.x engine start the log prints, or None."""
    found = list(V1_START.finditer(raw))
    if not found:
        return None
    m = found[-1]
    return m.group(1).decode("ascii"), m.start()


def asked_offload(raw: bytes, before: int) -> tuple[float, int] | None:
    """(GiB, line number) of the last offload setting printed before byte ``before`` (the engine's start), or None
    where none is printed or it is 0."""
    found = [m for m in OFFLOAD_SAID.finditer(raw, 0, before)]
    if not found:
        return None
    m = found[-1]
    gib = float(m.group(1))
    return (gib, raw.count(b"\n", 0, m.start()) + 1) if gib > 0 else None


def with_v0_offload(diagnosis, raw: bytes | None, a, ctx):
    """``diagnosis`` of a V1 0.7.x log whose launch asked for CPU offload: the cause says the engine ignored it and
    the fix ``VLLM_USE_V1=0`` (V0 honours the same offload) comes first, re-planned from the log's weights; the
    diagnosis unchanged where the rule does not apply."""
    if raw is None or diagnosis.phase not in ("kv_pool", "weights"):
        return diagnosis
    start = v1_release(raw)
    if start is None:
        return diagnosis
    release, at = start
    asked = asked_offload(raw, at)
    if asked is None:
        return diagnosis
    gib, line = asked
    measured = getattr(a, "weights", None) if a is not None else None
    said = (f"; the launch asked for cpu_offload_gb={gib:g} (line {line}), which vLLM's V1 engine before 0.8.0 "
            f"ignores ({_SOURCE}): the weights loaded whole"
            + (f" ({measured.text()} measured)" if measured is not None else ""))
    fix = _v0_fix(ctx, measured, release, gib)
    fixes = ((fix,) if fix is not None else ()) + tuple(diagnosis.fixes)
    return replace(diagnosis, cause=diagnosis.cause + said, fixes=fixes)


def _v0_fix(ctx, measured, release: str, gib: float) -> Fix | None:
    """The fix ``VLLM_USE_V1=0`` at the launch's offload, re-planned on V0's rules of ``release`` from the measured
    whole weights; None where the model or the GPU is unknown, nothing was measured or the planner refuses it."""
    if measured is None or measured.mid.bytes <= 0 or getattr(ctx, "model", None) is None:
        return None
    from tpkit.explain.replan import log_planner, log_quantization_planned, planned_weights, scaled_weights

    tp, pp = int(ctx.get("tp", 1) or 1), int(ctx.get("pp", 1) or 1)
    q = log_quantization_planned(ctx)
    changes = {"engine_version": release, "cpu_offload_gb": gib}
    whole, offloaded, banded = (log_planner(ctx, band=False, engine_version=release),
                                log_planner(ctx, band=False, **changes), log_planner(ctx, band=True, **changes))
    if whole is None or offloaded is None or banded is None:
        return None
    try:
        own = planned_weights(whole(tp=tp, pp=pp, quantization=q, measured={}))
        kept = planned_weights(offloaded(tp=tp, pp=pp, quantization=q, measured={}))
        if own is None or kept is None or own.bytes <= 0:
            return None
        on_gpu = scaled_weights(measured.mid, own=own, new=kept)
        result = offloaded(tp=tp, pp=pp, quantization=q, measured={"weights": on_gpu})
        band = banded(tp=tp, pp=pp, quantization=q, measured={"weights": on_gpu})
    except REFUSED:
        return None
    return _as_fix(result, band, measured, own=own, kept=kept, on_gpu=on_gpu, release=release, gib=gib)


def _as_fix(result, band, measured, *, own: Bytes, kept: Bytes, on_gpu: Bytes, release: str, gib: float) -> Fix:
    """The fix's words and verdict: a fit where the plan fits and the band's low end holds one request."""
    low, high = band.band.kv_tokens if band.band is not None else (0, 0)
    need = int(result.context_length or 1)
    fits = bool(result.verdict.fits) and bool(result.kv_tokens) and bool(band.verdict.fits) and low >= need
    why = (f"V0 (vLLM {release}'s default engine) honours cpu_offload_gb={gib:g}: {gib:g} GiB of the decoder layers' "
           "weights stay in host memory and are copied in layer by layer in every forward (slower decoding)")
    note = (f"re-planned on V0's rules of {release} from the log (explain.voffv1): weights on the GPU "
            f"{gib_text(on_gpu)} = the log's {measured.text()} × {gib_text(kept, label='')} / {gib_text(own)} "
            "(planned weights with the offload / without); the profile's copy of one offloaded layer, the "
            f"activation peak and the start-up terms planned; the band's pessimistic end holds {low:,} KV tokens "
            f"(band {low:,}–{high:,}), {'≥' if low >= need else 'below'} the {need:,} of one request of the plan's "
            "max_model_len; needs the offloaded bytes free in host memory, which the log does not show")
    if not fits:
        note = f"{SUGGESTION}: {note}"
    return Fix(flags="VLLM_USE_V1=0", kv_tokens=int(result.kv_tokens or 0), fits=fits, why=why, note=note)
