"""How decoder layers and vocab rows split over PP stages and TP ranks (pure).

The engines split the decoder layers over pipeline stages by different rules (``PP_SPLITS``); the engine picks one
and passes its name (``engines.vllm.pages.pp_split`` for vLLM's releases)."""

from __future__ import annotations

import math

from tpkit.errors import PlanInputError
from tpkit.parallel import parse_partition

__all__ = ["PP_SPLITS", "PARTITION_ENV", "parse_partition", "partition_split", "stage_sizes", "stage_layers",
           "largest_stage", "split_note", "padded_vocab"]

PP_SPLITS = {
    "sglang": "SGLang ≥ 0.5.6 get_pp_indices (srt/distributed/utils.py, read in 0.5.6, 0.5.11, 0.5.18, 0.5.19 and "
              "0.5.23): the last num_layers % pp stages get one more layer",
    "sglang-last": "SGLang ≤ 0.5.5 get_pp_indices (srt/distributed/utils.py, read in 0.4.4.post2, 0.5.3.post3, 0.5.4 "
                   "and 0.5.5): every stage gets num_layers // pp and the last stage also takes the whole remainder",
    "vllm": "vLLM ≥ 0.8.0 get_pp_indices (distributed/utils.py, read in 0.8.0, 0.8.3, 0.9.1 and 0.34.0): the "
            "remainder goes one layer each to partitions[-2], [-3], … (every stage but the last)",
    "vllm-last": "vLLM ≤ 0.7.3 get_pp_indices (distributed/utils.py, read in 0.6.4, 0.7.2 and 0.7.3): every stage "
                 "gets num_layers // pp and the last stage also takes the whole remainder",
}
"""the engines' default layer-split rules by name.  A split set by hand (``VLLM_PP_LAYER_PARTITION`` /
``SGLANG_PP_LAYER_PARTITION``, tpkit ``--pp-layer-partition``) is passed instead as its layer counts, "16,32"
(``partition_split``)."""

PARTITION_ENV = {"vllm": "VLLM_PP_LAYER_PARTITION", "sglang": "SGLANG_PP_LAYER_PARTITION"}
"""the environment variable that sets the layer count of each PP stage by hand, per engine: vLLM reads it in
``get_pp_indices`` from 0.5.4 (``distributed/utils.py``, read in 0.5.4, 0.6.0, 0.6.4, 0.8.0, 0.9.0, 0.11.1, 0.19.0
and 0.32.0 / 0.33.0; 0.5.3 has no such variable), SGLang in its ``get_pp_indices`` (read in 0.4.4.post2 – 0.5.23;
from 0.5.19 not on a pp size 1 group).  Both split the string on ",", convert each part with ``int()`` and raise
``ValueError`` unless there are pp parts that sum to the model's decoder layers; stage i then holds the layers
from sum(parts[:i]) on.  Neither checks a part's sign."""


def partition_split(sizes: tuple[int, ...]) -> str:
    """The ``split`` argument of ``stage_sizes`` for a split set by hand: the layer counts joined by ","."""
    return ",".join(str(int(n)) for n in sizes)


def _is_partition(split: str) -> bool:
    return bool(split) and all(c.isdigit() or c == "," for c in split) and split[0].isdigit()


def stage_sizes(num_layers: int, pp: int, split: str = "sglang") -> tuple[int, ...]:
    """Decoder layers on each PP stage under ``split`` (a key of ``PP_SPLITS``, or a hand-set partition "16,32":
    ``partition_split``, checked as the engines check it: pp parts summing to ``num_layers``)."""
    if _is_partition(split):
        sizes = parse_partition(split, pp)
        if sum(sizes) != num_layers:
            raise PlanInputError(f"--pp-layer-partition {split} sums to {sum(sizes)} layers but the model has "
                                 f"{num_layers} decoder layers; the parts must add up to {num_layers} (vLLM and "
                                 "SGLang refuse it: 'sum(partitions)=… does not match num_hidden_layers=…')")
        return sizes
    if split not in PP_SPLITS:
        raise PlanInputError(f"unknown PP layer split {split!r}; expected one of {', '.join(PP_SPLITS)}")
    base, extra = divmod(num_layers, pp)
    sizes = [base] * pp
    if split == "sglang":  # "sglang-last" and "vllm-last": the last stage takes the remainder (below)
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


def largest_stage(items: tuple, pp: int, split: str) -> tuple:
    """The slice of per-layer ``items`` (e.g. layer kinds) on the stage with the most layers under ``split``, the
    last of equal stages; all of them at pp 1."""
    if pp < 2:
        return items
    sizes = stage_sizes(len(items), pp, split)
    stage = max(range(pp), key=lambda i: (sizes[i], i))
    return items[sum(sizes[:stage]):sum(sizes[:stage + 1])]


def split_note(num_layers: int, pp: int, split: str) -> str:
    """In words, for a plan's ledger: the decoder layers on each PP stage under ``split`` and the rule's source
    ("decoder layers per PP stage 10/10/12: vLLM ≤ 0.7.3 get_pp_indices (…)")."""
    sizes = "/".join(map(str, stage_sizes(num_layers, pp, split)))
    if _is_partition(split):
        return (f"decoder layers per PP stage {sizes}: set by hand (--pp-layer-partition {split}, the engines' "
                f"VLLM_PP_LAYER_PARTITION / SGLANG_PP_LAYER_PARTITION; get_pp_indices takes it as given)")
    return f"decoder layers per PP stage {sizes}: {PP_SPLITS[split]}"


def padded_vocab(vocab: int, tp: int) -> int:
    """Vocab rows per TP rank: pad to 64 (to 64·tp when that is not divisible by tp), divide by tp."""
    pad = 64 if math.ceil(vocab / 64) * 64 % tp == 0 else 64 * tp
    return math.ceil(vocab / pad) * pad // tp
