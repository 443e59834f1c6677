"""The host's GPU count written as free text in a log's pasted environment ('GPU:  8 * A800', '- devices: 8×H800
80G', '| GPU | 2×RTX5090, …'): helper fx35b, 2026-12-07, docs/accuracy.md §7.3 round fx35b (issue 12).

Read only from a **labelled environment field**: a line that opens (after list / quote / table / bold marks) with
one of the labels an issue's environment section uses — 'GPU', 'GPUs', 'GPU models', 'Device(s)', 'Hardware',
'Accelerator(s)' — then the count, a multiplication sign (x, X, ×, *) and a name the GPU catalog knows
(``hardware.catalog.lookup_gpu``, longest words first).  Such a field describes the machine the reporter has; it is
read as the host's count.  Not read:

- a count in prose ('on 8xH100', 'with 2× A100 80GB', 'each equipped with 8×A100'): it may be the GPUs the run used,
  or one node of several, not the host's;
- a model name ('Mixtral-8x22B', '8x7B'): the word after the sign must start with a letter and name a catalog GPU,
  and the count must follow the label directly;
- fields that disagree with each other (none is taken).

Also the one reader of an nvidia-smi table's GPU rows (``nvidia_smi_rows``), which ``explain.hostgpus`` counts and
``explain.result.host_cards`` names.
"""

from __future__ import annotations

import re

from tpkit.errors import TpkitError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.records import dataclass

__all__ = ["FreeTextCount", "NVSMI_ROW", "host_count_written", "nvidia_smi_rows"]


NVSMI_ROW = re.compile(rb"^\|\s+(\d{1,2})\s+((?:NVIDIA|Tesla|Quadro|GeForce)\b[^|\n]*?)\s+(?:On|Off)\s+\|", re.M)
"""a GPU's row of an nvidia-smi table, its index and name ('|   0  NVIDIA GeForce RTX 3080        Off |
00000000:05:00.0 Off |'; older drivers print 'GeForce …' without 'NVIDIA')"""


def nvidia_smi_rows(raw: bytes) -> list[re.Match]:
    """The GPU rows of the nvidia-smi tables in the log's first 4 MiB (``NVSMI_ROW``: group 1 the index, 2 the name;
    nvidia-smi lists every GPU the driver exposes, whatever ``CUDA_VISIBLE_DEVICES`` says)."""
    return list(NVSMI_ROW.finditer(raw[:4 << 20]))


@dataclass(frozen=True, kw_only=True, slots=True)
class FreeTextCount:
    """A host GPU count written in a labelled environment field."""
    count: int
    gpu: str
    """the catalog name of the GPU the field names"""
    line_no: int
    text: str
    """the field as written (trimmed to 80 characters)"""


_FIELD = re.compile(
    rb"^[ \t>*\-|#]*(?:\*\*)?(?:GPUs?(?: models?)?|Devices?|Hardware|Accelerators?)(?:\*\*)?[ \t]*(?::|\|)?"
    rb"(?:\*\*)?[ \t]*(\d{1,2})[ \t]*(?:[xX*]|\xc3\x97)[ \t]*([A-Za-z][^\r\n]{0,60})", re.M | re.I)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*")
_VENDOR = {"nvidia", "amd", "tesla", "geforce", "instinct"}


def _gpu_named(text: str) -> str | None:
    """The catalog GPU the first words of ``text`` name (the longest run of words the catalog knows), or None."""
    words = _WORD.findall(text)[:6]
    while words and words[0].lower() in _VENDOR:
        words = words[1:]
    if not words or not words[0][0].isalpha():
        return None
    for n in range(len(words), 0, -1):
        try:
            return lookup_gpu(" ".join(words[:n]), by_memory=False).name
        except TpkitError:
            continue
    return None


def host_count_written(raw: bytes) -> FreeTextCount | None:
    """The host's GPU count from the log's labelled environment fields (module doc), or None."""
    found: list[FreeTextCount] = []
    for m in _FIELD.finditer(raw):
        n = int(m.group(1))
        gpu = _gpu_named(m.group(2).decode("utf-8", "replace"))
        if n < 1 or gpu is None:
            continue
        text = m.group(0).decode("utf-8", "replace").strip()[:80]
        found.append(FreeTextCount(count=n, gpu=gpu, line_no=raw.count(b"\n", 0, m.start()) + 1, text=text))
    if not found or len({f.count for f in found}) > 1:
        return None
    return found[0]
