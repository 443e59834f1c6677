"""Warnings about how ``--gpu-memory`` was read (pure; no torch): a size in decimal GB, the spelling of a card's
marketing name, is planned as written and the warning says what else it may have meant."""

from __future__ import annotations

import re

__all__ = ["decimal_size_note"]


_DECIMAL_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT])B\s*", re.IGNORECASE)
"""a ``--gpu-memory`` written in decimal units (``80GB``), the spelling of a card's marketing name"""


def decimal_size_note(args, gpu, catalog=None) -> tuple[str, ...]:
    """The warning for ``--gpu-memory 80GB``: read as 80 × 10^9 B (74.51 GiB), as tpkit's units say, but a card
    sold as '80GB' reports more to CUDA (an H100 80GB: 79.19 GiB = 85.03 GB), and a user copying nvidia-smi's
    figure meant GiB.  The plan keeps the decimal reading; the warning gives the number in GiB, the binary spelling
    and the catalog cards whose name carries the same figure, or, with ``--gpu``, says that card's total is already
    given (``--gpu RTX-4090 --gpu-memory 24GB`` restates its advertised size and plans a smaller card)."""
    m = _DECIMAL_SIZE.fullmatch(args.gpu_memory or "")
    if m is None or m.group(2).upper() != "G":
        return ()
    from tpkit.hardware.catalog import list_gpus
    from tpkit.units import format_bytes

    number = m.group(1)
    named = [g for g in list_gpus() if re.search(rf"(?<![\d.]){re.escape(number)}GB", g.name)]
    cards = ""
    if catalog is not None and abs(catalog.total_bytes.bytes / (float(number) * 1e9) - 1) <= 0.10:  # ux24
        cards = (f"; --gpu {catalog.name} already gives the CUDA total ({format_bytes(catalog.total_bytes)}) that a "
                 f"card sold as '{number}GB' reports: if {number}GB is the card's advertised size, drop --gpu-memory")
    elif named:
        card = named[0]
        cards = (f"; a card sold as '{number}GB' reports another total to CUDA ({card.name}: "
                 f"{format_bytes(card.total_bytes)} = {format_bytes(card.total_bytes, binary=False)}): "
                 f"name it with --gpu {card.name}")
    return (f"--gpu-memory {args.gpu_memory} is read as {number} × 10^9 B = {format_bytes(gpu.total_bytes)} "
            f"(GB = 10^9 B, GiB = 2^30 B); CUDA and nvidia-smi count in GiB/MiB: if you meant GiB, write "
            f"--gpu-memory {number}GiB{cards}",)
