"""GPU names printed in a log (nvidia-smi tables, warnings, tuned-config file names), resolved through the
GPU catalog; and catalog GPUs whose total matches a printed total capacity."""

from __future__ import annotations

import re

from tpkit.errors import TpkitError
from tpkit.hardware.catalog import list_gpus, lookup_gpu
from tpkit.logs.printed import PrintedSize

__all__ = ["gpu_in", "gpus_with_total", "GPU_NEEDLES", "mig_slice_named", "mig_profile_of"]

GPU_NEEDLES = ("NVIDIA", "Tesla", "GeForce", "Instinct", "device_name=")
_NAME = re.compile(r"(?:device_name=)?\b(NVIDIA|Tesla|Quadro|AMD Instinct|AMD)[ _]"
                   r"((?:GeForce[ _])?(?:RTX[ _])?(?:PRO[ _])?[A-Z]{0,3}\d{1,4}[A-Za-z]{0,3}(?:[ _-][\w-]{1,12}){0,4})")
_MIG_AFTER = re.compile(r"[ _-]MIG[ _-](\d+g[.\-_]\d+gb(?:\+me)?)", re.I)
"""a MIG profile printed after the board's name, as torch and nvidia-smi -L name a slice ('NVIDIA A100-SXM4-40GB MIG
1g.5gb'): the GPU is the slice, not the card (``hardware.catalog`` MIG slices, helper mig18)"""
_STOP = {"On", "Off", "Default", "N/A", "Driver", "with", "is", "has", "GPU", "and", "on", "for", "P0", "Version"}


def _candidates(vendor: str, rest: str) -> list[str]:
    words = [w for w in re.split(r"[ _]", rest) if w]
    kept = []
    for word in words:
        if word in _STOP or word.endswith(("MiB", "W")) and word[:-3].isdigit():
            break
        kept.append(word)
    # a laptop part is its own card ('NVIDIA GeForce RTX 5090 Laptop GPU': 24 GB, the desktop RTX 5090 32 GB): never
    # shortened past the word 'Laptop' to the desktop board's name (helper cat20, 2026-12-06)
    shortest = next((i + 1 for i, w in enumerate(kept) if w.lower() == "laptop"), 1)
    return [f"{vendor} {' '.join(kept[:n])}" for n in range(len(kept), shortest - 1, -1)]


def gpu_in(message: str) -> tuple[str, str | None] | None:
    """(text as printed, catalog name or None) of the first GPU name in the message."""
    first = None
    for m in _NAME.finditer(message[:4000]):
        names = _candidates(m.group(1), m.group(2))
        for name in names:
            try:
                card = lookup_gpu(name).name
            except TpkitError:
                continue
            mig = _MIG_AFTER.search(message, m.start() + len(name) - 1, m.end() + 16)
            if mig:
                text = f"{name} MIG {mig.group(1)}"
                try:
                    return text, lookup_gpu(text).name
                except TpkitError:  # a profile tpkit does not know: a slice all the same, never the whole card
                    return text, None
            return name, card
        if first is None and names:
            first = names[0]
            mig = _MIG_AFTER.search(message, m.start(), m.end() + 16)
            if mig:  # a slice of a board the catalog does not hold: still a slice, named in full (helper nc19:
                # 'NVIDIA RTX PRO 4500 Blackwell MIG 1g.16gb' was read as 'NVIDIA RTX PRO 4500 Blackwell MIG 1g')
                board = " ".join(re.split(r"[ _]+", message[m.start():mig.start()].removeprefix("device_name=")))
                first = f"{board} MIG {mig.group(1)}"
    return (first, None) if first else None


_PRINTED_MIG = re.compile(r"\bMIG[ _-](\d+g[.\-_]\d+gb(?:\+me)?)$", re.I)
"""the profile at the end of a GPU name ``gpu_in`` read as a slice"""


def mig_slice_named(parsed) -> str | None:
    """The log's printed GPU name when it names a MIG slice (known to tpkit or not, ``gpu_in``), else None."""
    gpu = getattr(getattr(parsed, "run", None), "gpu", None)
    text = str(gpu.key or gpu.value) if gpu is not None else ""
    return text if _PRINTED_MIG.search(text) else None


def mig_profile_of(name: str) -> str:
    """The profile at the end of a name ``mig_slice_named`` gave ('1g.16gb')."""
    return _PRINTED_MIG.search(name).group(1)


def gpus_with_total(total: PrintedSize) -> tuple[str, ...]:
    """Catalog GPUs whose CUDA-reported total prints as ``total`` (within its rounding, +0.5 %: driver releases move
    the total by up to ~0.2 GiB).  Only totals printed for the GPU itself compete (``GpuSpec.total_printed``): a
    total derived from nvidia-smi or assumed from a sibling board would make a printed match ambiguous (or a wrong
    one unique) without evidence of its own."""
    slack = total.value * 0.005
    return tuple(g.name for g in list_gpus() if g.total_printed and total.contains(g.total_bytes, slack=slack))
