"""How decoder layers and vocab rows split over PP stages and TP ranks (pure, SGLang's rules)."""

from __future__ import annotations

import math

__all__ = ["stage_layers", "padded_vocab"]


def stage_layers(num_layers: int, pp: int, stage: int) -> range:
    """Decoder layers of PP ``stage`` (SGLang ``get_pp_indices``: the last ``num_layers % pp`` get one more)."""
    base, extra = divmod(num_layers, pp)
    first_long = pp - extra
    start = stage * base + max(0, stage - first_long)
    return range(start, start + base + (1 if stage >= first_long else 0))


def padded_vocab(vocab: int, tp: int) -> int:
    """Vocab rows per TP rank: pad to 64 (to 64·tp when that is not divisible by tp), divide by tp."""
    pad = 64 if math.ceil(vocab / 64) * 64 % tp == 0 else 64 * tp
    return math.ceil(vocab / pad) * pad // tp
