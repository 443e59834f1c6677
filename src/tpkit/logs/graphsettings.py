"""vLLM's CUDA-graph settings in a printed ``compilation_config`` (helper cap11, 2026-12-05): the capture cap, the
``cudagraph_mode`` and the final ``cudagraph_capture_sizes`` list, as the engine config (``config/compilation.py``
``CompilationConfig.__repr__``, enums as ``<CUDAGraphMode.PIECEWISE: 1>``) or the non-default args print them."""

from __future__ import annotations

from tpkit.logs.dumps import MAX_DIGITS, literal_dict
from tpkit.logs.lazyre import lazy

__all__ = ["compilation_pairs"]

_GRAPH_MODE = lazy(r"'cudagraph_mode': (?:<CUDAGraphMode\.|'?)([A-Z_]+)\b")
_GRAPH_SIZES = lazy(r"'cudagraph_capture_sizes': \[([\d, ]*)\]")
_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def _mode_name(value) -> str | None:
    """A ``CUDAGraphMode`` name from its printed forms ('PIECEWISE', "<CUDAGraphMode.PIECEWISE: 1>"), else None."""
    if not isinstance(value, str):
        return None
    text = value.strip().strip("'\"<>")
    text = text.split("CUDAGraphMode.", 1)[-1].split(":", 1)[0].strip().upper()
    return text if text in _MODES else None


def compilation_pairs(value, raw: str = "") -> list[tuple[str, object]]:
    """The CUDA-graph settings of a printed ``compilation_config``: the capture cap, and (helper cap11) the
    ``cudagraph_mode`` and the final ``cudagraph_capture_sizes`` list, read from ``raw`` too where the engine
    config prints enums (``<CUDAGraphMode.PIECEWISE: 1>``) that no literal reader takes; a list cut by the log's
    '...' is not read."""
    if isinstance(value, str) and value.startswith("{"):
        value = literal_dict(value.replace("true", "True").replace("false", "False").replace("null", "None"))
    pairs = []
    if isinstance(value, dict):
        pairs = [(k, v) for k, v in value.items() if k in ("max_capture_size", "max_cudagraph_capture_size")]
        mode = _mode_name(value.get("cudagraph_mode"))
        if mode:
            pairs.append(("cudagraph_mode", mode))
        sizes = value.get("cudagraph_capture_sizes")
        if isinstance(sizes, (list, tuple)) and sizes and all(isinstance(x, int) for x in sizes):
            pairs.append(("cudagraph_capture_sizes", tuple(sizes)))
    keys = {k for k, _ in pairs}
    if raw and "cudagraph_mode" not in keys and (m := _GRAPH_MODE.search(raw)):
        pairs.append(("cudagraph_mode", m.group(1)))
    if raw and "cudagraph_capture_sizes" not in keys and (m := _GRAPH_SIZES.search(raw)) and m.group(1).strip():
        sizes = m.group(1).replace(",", " ").split()
        if all(len(x) <= MAX_DIGITS for x in sizes):  # a longer number is a damaged line, not a setting
            pairs.append(("cudagraph_capture_sizes", tuple(int(x) for x in sizes)))
    return pairs
