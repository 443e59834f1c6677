"""torch's CUDA out-of-memory message, read: the sizes it prints and the other processes it lists (split out of
``logs.failures`` at its 500-line limit, lead, session 34; ``failures.detect`` calls ``oom_message`` on the window
after an OOM line)."""

from __future__ import annotations

from dataclasses import replace

from tpkit.logs.lazyre import lazy
from tpkit.logs.printed import PrintedSize, size_from_text
from tpkit.units import Bytes

__all__ = ["SIZE", "oom_message"]

SIZE = r"(\d{1,24}(?:\.\d{1,12})?) ?(GiB|MiB|KiB|bytes|GB|MB|KB|B)\b"
"""a printed size and its unit, as torch and the engines print them"""
_SZ = SIZE
_OOM_SIZES = (
    ("requested", lazy(r"Tried to allocate " + _SZ)),
    ("total", lazy(r"total capac(?:ity|ty) of " + _SZ)),
    ("free", lazy(r"of which " + _SZ + r" is free")),
    ("process_in_use", lazy(r"this process has " + _SZ + r" memory in use")),
    ("torch_allocated", lazy(_SZ + r" is allocated by PyTorch")),
    ("torch_reserved_unallocated", lazy(_SZ + r" is reserved by PyTorch but unallocated")),
    ("graph_pools", lazy(_SZ + r" allocated in private pools")),
    ("total", lazy(_SZ + r" total capacity")),
    ("torch_allocated", lazy(_SZ + r" already allocated")),
    ("free", lazy(_SZ + r" free\b")),
    ("torch_reserved", lazy(_SZ + r" reserved in total by PyTorch")),
)
"""torch's OOM message, read piece by piece; 'total capac(?:ity|ty) of': the misspelt 'has a total capacty of' that
torch printed in releases of late 2023 / early 2024 (sglang#51 and sglang#86 of 2024-01,
and public pastes of the same wording) is the same device total (helper cr31, 2026-12-07: the earlier
'capacit[yt]y?' never matched it)"""
_OTHER_PROCESS = lazy(r"Process (\d{1,24}) has " + _SZ + r" memory in use")
_GPU_INDEX = lazy(r"GPU (\d{1,24})(?: has a total|;)")


def oom_message(window: str) -> tuple[tuple, tuple, str]:
    """torch's OOM message's sizes (each at its first match) and the other processes it lists, each once
    (``_listed_once``: a log printing the message twice listed them twice, round cr34c)."""
    sizes = []
    for name, pattern in _OOM_SIZES:
        m = pattern.search(window)
        if m and all(n != name for n, _ in sizes):
            size = size_from_text(m.group(1), m.group(2), meaning=f"torch OOM message: {name.replace('_', ' ')}")
            if size is not None:
                sizes.append((name, size))
    own = _own_bytes(sizes)
    total = next((z.value.bytes for n, z in sizes if n == "total"), None)
    others, held_by_others = [], []
    for pid, num, unit in _listed_once(_OTHER_PROCESS.findall(window))[:16]:
        held = size_from_text(num, unit, meaning="torch OOM message: a listed process's memory in use")
        same = own is not None and total is not None and held is not None and held.value.bytes + own > total
        others.append(f"process {pid} holds {num} {unit}" + (
            " (this process itself, seen under another PID: with the memory PyTorch holds here it would exceed the "
            "card's total)" if same else ""))
        if held is not None and not same:
            held_by_others.append(held)
    if held_by_others:
        sizes.append(("other_processes", _sum_held(held_by_others)))
    gpu = _GPU_INDEX.search(window)
    detail = "; ".join(([f"GPU {gpu.group(1)}"] if gpu else []) + others)
    return tuple(sizes), (), detail


def _listed_once(listed: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """torch's 'Process N has X memory in use' listings, each process id once (its first): torch lists each NVML
    process once per message, so a repeat is the message printed again (a log that repeats the OOM), not another
    holder."""
    first: dict[str, tuple[str, str, str]] = {}
    return [first.setdefault(row[0], row) for row in listed if row[0] not in first]


def _sum_held(held: list[PrintedSize]) -> PrintedSize:
    """The memory the OOM message lists as other processes' ('Process N has X memory in use', torch's
    ``CUDACachingAllocator`` names every NVML process on the device but the failing one), summed: ``other_processes``,
    what explain plans a freed card from (``explain.planned``).  One process: its printed size; several: their sum,
    its rounding the sum of theirs."""
    if len(held) == 1:
        return held[0]
    one = held[0]
    return replace(one, value=Bytes(sum(h.value.bytes for h in held)), text=" + ".join(h.text for h in held),
                   rounding=Bytes(sum(h.rounding.bytes for h in held)),
                   meaning="torch OOM message: the listed processes' memory in use, summed")


def _own_bytes(sizes) -> int | None:
    """The memory the failing process's PyTorch holds (allocated + reserved but unallocated), when printed.

    torch's OOM message names the failing process "this process" only when an NVML process id equals its own
    ``getpid()``; inside a container's PID namespace the ids differ, so the process itself is listed as "Process N
    has X memory in use" (vllm#31273: 'Process 691170 has 139.65 GiB' beside '139.21 GiB is allocated by PyTorch'
    on a 139.72 GiB card, from the EngineCore of pid 556790).  A listed process whose memory, added to what
    PyTorch holds in the failing process, exceeds the card's total can only be that process (round ex28)."""
    got = {n: z.value.bytes for n, z in sizes}
    if "torch_allocated" not in got:
        return None
    return got["torch_allocated"] + got.get("torch_reserved_unallocated", 0)
