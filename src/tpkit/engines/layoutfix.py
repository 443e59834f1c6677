"""The layout fixes a verdict may offer: more GPUs (``--tp``) on a whole card, a larger MIG slice or the whole card
on a MIG slice (helper mig18b, 2026-12-05).

One generator for every command that names a fix (``tpkit plan``'s vLLM and SGLang verdicts, ``tpkit explain``'s
diagnoses, ``tpkit plan --from-log``): a fix is only named when a re-run with its flags is accepted by the same CLI
and re-planned to fit.  A MIG slice refuses tp / pp / dp > 1 (``hardware.catalog.refuse_mig_layout``: MIG instances
have no peer access and no NVLink, vLLM's tp across two partitions fails at start-up, vllm-project/vllm#7211), so on
a slice no ``--tp`` fix is offered; in its place the smallest larger slice of the same card
(``hardware/data/mig.json``) and the whole card, each re-planned through the same planner.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tpkit.hardware.gpu import GpuSpec

__all__ = ["TP_CANDIDATES", "tp_candidates", "larger_gpus", "slice_then_whole", "layout_fixes", "NO_TP_ON_MIG",
           "on_mig"]

TP_CANDIDATES = (2, 4, 8, 16, 32)

NO_TP_ON_MIG = "tensor parallelism across MIG instances is not supported"


def on_mig(gpu) -> bool:
    """Whether ``gpu`` is a MIG slice (``GpuSpec.mig_profile``)."""
    return getattr(gpu, "mig_profile", None) is not None


def tp_candidates(gpu, tp: int, candidates: tuple[int, ...] = TP_CANDIDATES) -> tuple[int, ...]:
    """The TP sizes above ``tp`` a fix may name on ``gpu``: none on a MIG slice (``refuse_mig_layout``)."""
    if on_mig(gpu):
        return ()
    return tuple(t for t in candidates if t > tp)


def larger_gpus(gpu) -> tuple["GpuSpec", ...]:
    """For a MIG slice: the larger slices of the same card (by CUDA total, then SMs), then the whole card; () for a
    whole card."""
    if not on_mig(gpu) or not gpu.mig_parent:  # a slice of a card tpkit does not know (explain.runfacts.as_slice)
        return ()
    from tpkit.hardware.catalog import list_mig_profiles, lookup_gpu

    slices = []
    for name in list_mig_profiles(gpu.mig_parent):
        s = lookup_gpu(name)
        if (s.total_bytes.bytes, s.sm_count or 0) > (gpu.total_bytes.bytes, gpu.sm_count or 0):
            slices.append(s)
    slices.sort(key=lambda s: (s.total_bytes.bytes, s.sm_count or 0))
    return (*slices, lookup_gpu(gpu.mig_parent))


def slice_then_whole(gpu, plan: Callable[["GpuSpec"], tuple[object, bool] | None]) -> list[tuple["GpuSpec", object, bool]]:
    """For a MIG slice: the smallest larger slice of the same card whose re-plan fits, then the whole card, as
    (GPU, re-plan, fits); ``plan(GpuSpec)`` re-plans the run there ((result, fits), or None where it cannot be
    planned).  The one rule ``layout_fixes`` and ``explain.migfix`` share; [] off a slice."""
    alternatives = larger_gpus(gpu)
    if not alternatives:
        return []
    out = []
    for s in alternatives[:-1]:
        planned = plan(s)
        if planned is not None and planned[1]:
            out.append((s, *planned))
            break
    whole = plan(alternatives[-1])
    if whole is not None:
        out.append((alternatives[-1], *whole))
    return out


def layout_fixes(gpu, tp: int, fits: Callable[..., bool], note: Callable[..., str] | None = None,
                 engine: str = "sglang") -> list[tuple[str, str]]:
    """The layout fixes that re-plan to fit, as (flags, text): ``fits(tp=…)`` / ``fits(gpu=GpuSpec)`` re-plans the
    same run with that change.  A whole card: the smallest larger ``--tp`` that fits, in the engine's
    spelling (which tpkit plan takes too): vLLM parses ``--tensor-parallel-size`` / ``-tp`` and no ``--tp``,
    SGLang ``--tp`` as argparse's prefix of ``--tp-size`` (``engines.cliflags``, helper fix22).  A MIG slice: the
    smallest larger slice of the same card that fits, and the whole card (when it fits and is not that slice), each
    saying that tp across MIG instances is not supported."""
    if not on_mig(gpu):
        t = next((t for t in tp_candidates(gpu, tp) if fits(tp=t)), None)
        if t is None:
            return []
        spelled = "--tensor-parallel-size" if engine == "vllm" else "--tp"  # tpkit plan takes both
        return [(f"{spelled} {t}", f"{spelled} {t}" + (note(tp=t) if note is not None else ""))]
    out: list[tuple[str, str]] = []
    for spec, _, ok in slice_then_whole(gpu, lambda s: (None, fits(gpu=s))):
        if ok:
            what = "the whole card, MIG off" if not on_mig(spec) else "a larger MIG slice of the same card"
            out.append((f"--gpu {spec.name}", f"--gpu {spec.name} ({what}; {NO_TP_ON_MIG})"))
    return out
