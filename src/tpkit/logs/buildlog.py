"""A native build's error lines, kept as warnings so a start-up failure cut before its exception line can name them
(round ex34: QwenLM/Qwen3-VL#1267).

Triton and torch inductor build C launchers and kernels with the system compiler while vLLM profiles or warms the
model; the compiler runs as a child process whose stderr is the engine's, so its errors land in the log as bare
lines, above the Python traceback of the ``subprocess.CalledProcessError`` that follows.  The linker's two lines have
fixed shapes: GNU ld prints ``<ld path>: cannot find -l<name>`` (binutils ``ld``), and GCC's driver, seeing ld fail,
prints ``collect2: error: ld returned <status> exit status`` (GCC ``collect2``).  A line of either shape is a
``warning`` of kind ``exception`` (the status does not change: such a line alone is not the engine's failure); a
start failure whose traceback is cut names the first one logged before it, the tool's own message, which the
driver's summary follows (``failures.cut_header``)."""

from __future__ import annotations

import re

__all__ = ["BUILD_NEEDLES", "build_notices", "first_build_error"]

BUILD_NEEDLES = ("collect2: error: ", "ld: cannot find ")
_BUILD_ERROR = re.compile(r"(?:^|\s)((?:collect2: error: |\S{0,200}\bld: cannot find )[^\n]{1,200})")
_PREFIX = "native build error: "


def build_notices(message: str) -> list[tuple]:
    """(kind, severity, sizes, counts, detail) for a linker / compiler-driver error line."""
    if not any(n in message for n in BUILD_NEEDLES):
        return []
    m = _BUILD_ERROR.search(message)
    return [("exception", "warning", (), (), _PREFIX + m.group(1).strip())] if m else []


def first_build_error(warnings) -> str | None:
    """The detail of the first build-error warning among ``warnings`` (Failure records), without its prefix."""
    found = [w.detail[len(_PREFIX):] for w in warnings if w.kind == "exception" and w.detail.startswith(_PREFIX)]
    return found[0] if found else None
