"""How decoder layers and vocab rows split over PP stages and TP ranks (pure).

The engines split the decoder layers over pipeline stages by different rules (``PP_SPLITS``); the engine picks one
and passes its name (``engines.vllm.pages.pp_split`` for vLLM's releases)."""

from __future__ import annotations

import math

from tpkit.errors import PlanInputError

__all__ = ["PP_SPLITS", "stage_sizes", "stage_layers", "split_note", "padded_vocab"]

PP_SPLITS = {
    "sglang": "SGLang get_pp_indices (srt/distributed/utils.py, read in 0.5.23): the last num_layers % pp stages "
              "get one more layer",
    "vllm": "vLLM ≥ 0.8.0 get_pp_indices (distributed/utils.py, read in 0.8.0, 0.8.3, 0.9.1 and 0.34.0): the "
            "remainder goes one layer each to partitions[-2], [-3], … (every stage but the last)",
    "vllm-last": "vLLM ≤ 0.7.3 get_pp_indices (distributed/utils.py, read in 0.6.4, 0.7.2 and 0.7.3): every stage "
                 "gets num_layers // pp and the last stage also takes the whole remainder",
}
"""the layer-split rules by name (without ``VLLM_PP_LAYER_PARTITION`` / ``SGLANG_PP_LAYER_PARTITION``, which set
the split by hand and which tpkit does not read)"""


def stage_sizes(num_layers: int, pp: int, split: str = "sglang") -> tuple[int, ...]:
    """Decoder layers on each PP stage under ``split`` (a key of ``PP_SPLITS``)."""
    if split not in PP_SPLITS:
        raise PlanInputError(f"unknown PP layer split {split!r}; expected one of {', '.join(PP_SPLITS)}")
    base, extra = divmod(num_layers, pp)
    sizes = [base] * pp
    if split == "sglang":
        for i in range(pp - extra, pp):
            sizes[i] += 1
    elif split == "vllm":
        for i in range(2, extra + 2):
            sizes[-i] += 1
    else:
        sizes[-1] += extra
    return tuple(sizes)


def stage_layers(num_layers: int, pp: int, stage: int, split: str = "sglang") -> range:
    """Decoder layers of PP ``stage`` under ``split`` (``stage_sizes``)."""
    sizes = stage_sizes(num_layers, pp, split)
    start = sum(sizes[:stage])
    return range(start, start + sizes[stage])


def split_note(num_layers: int, pp: int, split: str) -> str:
    """In words, for a plan's ledger: the decoder layers on each PP stage under ``split`` and the rule's source
    ("decoder layers per PP stage 10/10/12: vLLM ≤ 0.7.3 get_pp_indices (…)")."""
    sizes = "/".join(map(str, stage_sizes(num_layers, pp, split)))
    return f"decoder layers per PP stage {sizes}: {PP_SPLITS[split]}"


def padded_vocab(vocab: int, tp: int) -> int:
    """Vocab rows per TP rank: pad to 64 (to 64·tp when that is not divisible by tp), divide by tp."""
    pad = 64 if math.ceil(vocab / 64) * 64 % tp == 0 else 64 * tp
    return math.ceil(vocab / pad) * pad // tp
