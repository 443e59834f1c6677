"""Whether the memory a vLLM weights-load OOM lists as other processes' accounts for the failure (helper cr36b,
2026-12-07; docs/accuracy.md §7.3 round cr36b).

torch's OOM message names every process NVML lists on the device ('Process N has X memory in use',
``c10/cuda/CUDACachingAllocator.cpp``; ``voom.other_processes`` reads it).  ``voom.freed_card_fix`` plans freeing that
memory on the empty card (the plan of the log's own settings).  That plan fitting shows the run fits a free card; it
does not show that the listed memory is what stopped it: where the same plan still fits the card *less* that memory,
the listed process is not in the way (a release's regression, another checkpoint, a transient), and freeing it is
not shown to cure the failure.  The SGLang catalog path applies the same test (``explain.planned._freed_card``); this
module gives the vLLM weights path the same rule, on the same nominal plan (``vcatalogfit.own_plan``), so that only a
process whose memory the plan cannot do without keeps its "free it" fix a fit.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.units import Bytes

__all__ = ["held_accounts"]


def held_accounts(ctx, a, held) -> tuple[bool | None, str]:
    """(accounts, words) for ``held`` (the ``PrintedSize`` the OOM lists as other processes'): True where the plan of
    the log's own settings fails on the card less ``held`` (that memory accounts for the failure), False where it
    still fits there (it does not), None where no plan can be made (no model or GPU, a refused layout, a card
    smaller than the memory listed)."""
    from tpkit.explain.vcatalogfit import own_plan

    if ctx is None or ctx.model is None or ctx.gpu is None:
        return None, "the model or the GPU is not known"
    left = int(ctx.gpu.total_bytes.bytes - held.value.bytes)
    if left <= 0:
        return None, f"the {held.text} listed is not less than the card's total"
    shared = own_plan(replace(ctx, gpu=replace(ctx.gpu, total_bytes=Bytes(left))), a)
    if shared is None:
        return None, "the plan of the log's settings cannot be made on the card less that memory"
    if shared.verdict.fits:
        return False, (f"with the {held.text} the OOM lists as another process's held, the plan of the log's own "
                       f"settings still fits the card ({int(shared.kv_tokens):,} KV tokens per rank): that process "
                       "does not account for the failure, so freeing it is not shown to cure it")
    return True, (f"with the {held.text} the OOM lists as another process's held, the plan of the log's own settings "
                  f"fails ({shared.verdict.message[:120]}): that memory accounts for the failure")
