"""Exact weight bytes from ``*.safetensors`` headers (no tensor data read; no safetensors/torch import).

    in:  a checkpoint directory, ModelSpec, ParallelSpec
    out: ``WeightsPlan`` with ``method = "safetensors headers"``

A safetensors file starts with an 8-byte little-endian header length N and N bytes of JSON:
``{"tensor name": {"dtype": "BF16", "shape": [...], "data_offsets": [begin, end]}, "__metadata__": {...}}``.
Bytes of a tensor = end − begin.  Each tensor is classified by its name into a breakdown line and a
sharding rule (the same rules as the derivation, ``tpkit.models.params``), then divided per rank.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
from pathlib import Path

from tpkit.errors import ConfigError, PlanInputError
from tpkit.models.layout import padded_vocab, stage_layers
from tpkit.models.spec import ModelSpec, QuantSpec
from tpkit.models.weights_plan import WeightLine, WeightsPlan
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["TensorInfo", "read_header", "read_checkpoint", "classify", "plan_from_safetensors"]

_MAX_HEADER = 100 * 2**20
_LAYER = re.compile(r"(?:^|\.)layers\.(\d+)\.")
_SCALE_SUFFIXES = ("weight_scale_inv", "weight_scale", "scales", "qzeros", "g_idx", "weight_shape",
                   "weight_zero_point", "input_scale", "_scales", "weight_global_scale")
_VISION = ("vision_tower", "visual.", "vision_model", "multi_modal_projector", "vision_embed", "mm_projector")
_DTYPE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "I16": 2, "U16": 2,
                "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}
"""bytes per element of the safetensors dtypes whose size is a whole byte (others are not size-checked)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class TensorInfo:
    """One tensor entry of a safetensors header."""

    name: str
    """tensor name as stored"""
    dtype: str
    """safetensors dtype string (BF16, F8_E4M3, I32, U8 …)"""
    shape: tuple[int, ...]
    """dimensions (elements)"""
    nbytes: int
    """bytes of the tensor data (end − begin offsets)"""


_REMEDY = ("re-download it (or remove it from the directory), or pass the checkpoint's config.json alone to derive "
           "the weights from the config")
"""how to go on from a damaged weights file: every header error ends with it"""


def read_header(path: Path) -> list[TensorInfo]:
    """Tensors listed in one safetensors file's header, each checked against the file's data size; a file that
    cannot be read as one is a ``ConfigError`` that names the file, what is wrong and how to go on."""
    try:
        with open(path, "rb") as fh:
            file_size = os.fstat(fh.fileno()).st_size
            head = fh.read(40)
            if head.startswith(b"version https://git-lfs"):
                raise ConfigError(f"{path}: a Git LFS pointer file ({file_size:,} bytes), not the weights: the "
                                  "repository was cloned without git-lfs; run `git lfs pull` in it, or pass its "
                                  "config.json alone to derive the weights from the config")
            fh.seek(0)
            try:
                return _read_header(fh, path, file_size)
            except ConfigError as exc:
                raise ConfigError(f"{exc}; {_REMEDY}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read as a safetensors file ({exc.strerror or exc}); "
                          "remove it from the checkpoint directory or replace it") from None


_REMEDY = ("re-download it (or remove it from the directory), or pass the checkpoint's config.json alone to derive "
           "the weights from the config")
"""how to go on from a damaged weights file: every header error ends with it"""


def _read_header(fh, path: Path, file_size: int) -> list[TensorInfo]:
    head = fh.read(8)
    if len(head) != 8:
        raise ConfigError(f"{path}: too short for a safetensors file (no 8-byte header length)")
    (size,) = struct.unpack("<Q", head)
    if size > _MAX_HEADER:
        raise ConfigError(f"{path}: header length {size} bytes is implausible; is this a safetensors file?")
    if 8 + size > file_size:
        raise ConfigError(f"{path}: header length {size:,} bytes runs past the end of the "
                          f"{file_size:,}-byte file; the file is truncated or not a safetensors file")
    raw = fh.read(size)
    header = _parse_header(path, raw)
    data_size = file_size - 8 - size
    return [_tensor(path, name, meta, data_size) for name, meta in header.items() if name != "__metadata__"]


def _parse_header(path: Path, raw: bytes) -> dict:
    try:
        header = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: safetensors header is not valid JSON ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: safetensors header is nested too deeply to be a tensor table") from None
    except ValueError as exc:  # e.g. an integer literal past Python's 4,300-digit limit
        raise ConfigError(f"{path}: safetensors header is not usable ({exc})") from None
    if not isinstance(header, dict):
        raise ConfigError(f"{path}: safetensors header must be a JSON object, got {type(header).__name__}")
    return header


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _tensor(path: Path, name: str, meta, data_size: int) -> TensorInfo:
    """One header entry, checked: ``{"dtype": str, "shape": [int…], "data_offsets": [begin, end]}`` with
    0 ≤ begin ≤ end ≤ the data size of the file, and end − begin = elements × dtype size (known dtypes)."""
    offsets = meta.get("data_offsets") if isinstance(meta, dict) else None
    ints = isinstance(offsets, list) and len(offsets) == 2 and all(
        isinstance(o, int) and not isinstance(o, bool) for o in offsets)
    if not ints or not isinstance(meta.get("dtype"), str) or not isinstance(meta.get("shape"), list):
        raise ConfigError(f"{path}: tensor {name!r} needs dtype, shape and data_offsets [begin, end] in the "
                          f"header, got {meta!r:.120}; the file is not a valid safetensors checkpoint")
    begin, end = offsets
    if not 0 <= begin <= end <= data_size:
        raise ConfigError(f"{path}: tensor {name!r} has data_offsets {offsets}; they must satisfy "
                          f"0 ≤ begin ≤ end ≤ {data_size:,} (the data bytes in this file); the file is truncated "
                          "or damaged")
    shape = meta["shape"]
    if not all(_is_count(d) for d in shape):
        raise ConfigError(f"{path}: tensor {name!r} has shape {shape!r:.80}; dimensions are whole numbers ≥ 0")
    element = _DTYPE_BYTES.get(meta["dtype"])
    if element is not None and math.prod(shape) * element != end - begin:
        raise ConfigError(f"{path}: tensor {name!r} is {meta['dtype']} {shape} = {math.prod(shape) * element:,} "
                          f"bytes, but its data_offsets span {end - begin:,}; the header is damaged")
    return TensorInfo(name=name, dtype=meta["dtype"], shape=tuple(shape), nbytes=end - begin)


def checkpoint_files(directory: Path) -> list[Path]:
    """The ``*.safetensors`` files of ``directory``; an entry that is not a readable regular file (a
    directory, a broken symlink) raises ``ConfigError`` naming it."""
    files = sorted(directory.glob("*.safetensors"))
    for f in files:
        if not f.is_file():
            what = "a broken symbolic link" if f.is_symlink() and not f.exists() else "not a regular file"
            raise ConfigError(f"{f} is {what}; a checkpoint directory holds *.safetensors files only: "
                              "remove or fix it, or pass the config.json alone")
    return files


def read_checkpoint(directory: Path) -> list[TensorInfo]:
    """Tensors of every ``*.safetensors`` file in ``directory``."""
    files = checkpoint_files(directory)
    if not files:
        raise ConfigError(f"{directory} holds no *.safetensors files")
    return [t for f in files for t in read_header(f)]


def classify(name: str, spec: ModelSpec) -> tuple[str, str, int | None]:
    """``(line item, shard rule, layer index or None)`` of a tensor name (rules as ``params.Part``)."""
    layer = _LAYER.search(name)
    idx = int(layer.group(1)) if layer else None
    if any(v in name for v in _VISION):
        return "vision tower", "col", None
    if idx is not None and idx >= spec.num_layers:
        return "mtp/nextn layers", "rep", idx
    module, _, param = name.rpartition(".")
    scale = param in _SCALE_SUFFIXES or param.endswith("_scales")
    item, shard = _module_rule(module, param, spec, idx)
    return ("quant scales" if scale else item), shard, idx


def _module_rule(module: str, param: str, spec: ModelSpec, idx: int | None) -> tuple[str, str]:
    last = module.rsplit(".", 1)[-1]
    if "embed_tokens" in module or last in ("wte", "word_embeddings"):
        return "embedding", "vocab"
    if last == "lm_head" or module.endswith("shared_head.head"):
        return "lm_head", "vocab"
    row = last in ("o_proj", "down_proj", "w2", "out_proj") or "down_proj" in param
    if last in ("gate", "router", "shared_expert_gate") or "correction_bias" in param:
        return "router", "rep"
    if "shared_expert" in module:
        return "shared experts", ("rep" if row and param == "bias" else ("row" if row else "col"))
    if ".experts" in module or module.endswith("experts"):
        return "routed experts", "expert"
    if "norm" in last or "norm" in param or last in ("ln_1", "ln_2"):
        return "norms", "rep"
    if ".self_attn" in module or ".attn" in module or ".attention" in module:
        item = "linear attention (KDA)" if idx is not None and spec.kind_of(idx) == "linear" else "attention"
        if last in ("k_proj", "v_proj"):
            return item, ("rep" if spec.mla else "kv")
        if last in ("q_a_proj", "kv_a_proj_with_mqa", "f_a_proj", "g_a_proj"):
            return item, "rep"
        return item, ("rep" if row and param == "bias" else ("row" if row else "col"))
    if ".mlp" in module or ".feed_forward" in module:
        return "dense MLP", ("rep" if row and param == "bias" else ("row" if row else "col"))
    return "other (replicated)", "rep"


def _rank_bytes(nbytes: int, shard: str, spec: ModelSpec, par: ParallelSpec) -> int:
    tp = par.tp
    if shard in ("col", "row"):
        return math.ceil(nbytes / tp)
    if shard == "kv":
        return nbytes * max(1, spec.num_kv_heads // tp) // spec.num_kv_heads
    if shard == "vocab":
        return math.ceil(nbytes * padded_vocab(spec.vocab_size, tp) / spec.vocab_size)
    if shard == "expert":
        experts = spec.moe.num_experts if spec.moe else 1
        local = math.ceil(experts / par.ep) / experts
        return math.ceil(nbytes * local / max(1, tp // par.ep))
    return nbytes


def _stage_of(item: str, idx: int | None, spec: ModelSpec, pp: int, pp_split: str = "sglang") -> int:
    if idx is not None:
        return next(s for s in range(pp) if idx in stage_layers(spec.num_layers, pp, s, pp_split))
    return pp - 1 if item in ("lm_head", "norms") else 0


def plan_from_safetensors(spec: ModelSpec, par: ParallelSpec, directory: Path, *, dtype: str,
                          quant: QuantSpec | None, pp_split: str = "sglang") -> WeightsPlan:
    """Per-rank weight bytes from the checkpoint's safetensors headers (largest PP stage; the layers split by
    ``pp_split``, ``tpkit.models.layout.PP_SPLITS``)."""
    if par.pp > spec.num_layers:
        raise PlanInputError(f"--pp {par.pp} exceeds the model's {spec.num_layers} layers")
    tensors = read_checkpoint(directory)
    per_stage: list[dict[str, list[int]]] = [{} for _ in range(par.pp)]
    total = mtp = 0
    for t in tensors:
        item, shard, idx = classify(t.name, spec)
        if item == "mtp/nextn layers":
            mtp += t.nbytes
            continue
        total += t.nbytes
        row = per_stage[_stage_of(item, idx, spec, par.pp, pp_split)].setdefault(item, [0, 0])
        row[0] += 1
        row[1] += _rank_bytes(t.nbytes, shard, spec, par)
    best = par.stage if getattr(par, "stage", None) is not None else max(
        range(par.pp), key=lambda s: sum(v[1] for v in per_stage[s].values()))
    n_files = len(checkpoint_files(directory))
    lines = [WeightLine(item=item, bytes=Bytes(b),
                        source=f"{n} tensors in {n_files} safetensors headers ({directory}); "
                               f"sharded per rank by name (tp={par.tp}, ep={par.ep})")
             for item, (n, b) in per_stage[best].items()]
    if mtp:
        lines.append(WeightLine(item="mtp/nextn layers", bytes=Bytes(0),
                                source=f"{mtp:,} bytes of layers ≥ {spec.num_layers} in the checkpoint: "
                                       "not loaded unless MTP/EAGLE speculative decoding is on"))
    return WeightsPlan(bytes_per_rank=sum((l.bytes for l in lines), Bytes(0)), lines=tuple(lines),
                       total_bytes=Bytes(total), method="safetensors headers", dtype=dtype, quant=quant,
                       stage=best, notes=spec.assumptions, mtp_bytes=Bytes(mtp), pp_split=pp_split,
                       stage_bytes=tuple(Bytes(sum(v[1] for v in st.values())) for st in per_stage)
                       if par.pp > 1 else ())
