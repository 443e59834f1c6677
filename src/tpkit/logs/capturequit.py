"""A CUDA-graph capture left before its last batch, its error unprinted (round ex37: sglang PR#11275).

Both engines capture inside their all-reduce communicator's capture context, whose ``finally`` registers the graph
buffers and logs "Registering {n} cuda graph addresses" on leaving it (``CustomAllreduce.capture`` →
``register_graph_buffers``: SGLang ``srt/distributed/device_communicators/custom_all_reduce.py``, 0.5.15 wheel; vLLM's
counterpart logs the same line).  The capture loop inside it is a tqdm bar over the batch sizes ("Capturing batches
(bs=… avail_mem=… GB)" in SGLang, "Capturing CUDA graphs (…)" in vLLM), which prints its last state k/N when the loop
ends.  So a registration whose last bar before it stands below N/N left the loop early: an exception was raised in
the capture, and the registration ran on the way out.  Its error line comes only after the registration, whose
gather across ranks can hang first (the PR: "Errors during graph capture … can cause a hang like this and the error
message is not shown"); an excerpt that ends there places the failure in the capture without saying what it was.
In the corpus (113 logs with the registration line, 467 registrations with a bar before them) every bar before a
registration stood at N/N.
"""

from __future__ import annotations

import bisect

from tpkit.logs.lazyre import lazy

__all__ = ["NEEDLE", "abandoned_capture"]

NEEDLE = "cuda graph addresses"
_REGISTER = lazy(r"Registering (\d{1,9}) cuda graph addresses")
_BAR = lazy(r"Capturing (?:batches \(bs=\d{1,6} avail_mem=[\d.]{1,12} ?GB\)|CUDA graphs? \([^)\n]{0,120}\)|"
            r"num tokens \([^)\n]{0,120}\))[^\n]{0,400}?(\d{1,6})/(\d{1,6}) \[")
_STATE = lazy(r"(\d{1,6})/(\d{1,6}) \[")
_END = lazy(r"Capture (?:draft )?cuda graph end|Graph capturing finished")
"""the engines' lines for a finished capture (SGLang's "Capture cuda graph end. Time elapsed", vLLM's "Graph
capturing finished in"): after one, the run went on"""
_LOOKBACK = 20000
_REG_HEAD = 32
"""characters before NEEDLE that hold 'Registering N ' (12 + at most 9 digits + 1)"""


def _registrations(text: str):
    """``_REGISTER``'s matches, found through ``str.find`` of NEEDLE (a log of serving traffic repeats the line
    thousands of times; a regex scan of 100 MB is several times slower than the substring search)."""
    pos = text.find(NEEDLE)
    while pos >= 0:
        m = _REGISTER.search(text, max(0, pos - _REG_HEAD), pos + len(NEEDLE))
        if m is not None:
            yield m
        pos = text.find(NEEDLE, pos + len(NEEDLE))


def _bar_starts(text: str) -> list[int]:
    """Where each "Capturing " stands (every ``_BAR`` match starts there): one substring pass over the log."""
    out, pos = [], text.find("Capturing ")
    while pos >= 0:
        out.append(pos)
        pos = text.find("Capturing ", pos + 10)
    return out


def _last_bar(text: str, starts: list[int], start: int, end: int):
    """The last ``_BAR`` match that starts in ``[start, end)`` and ends by ``end``: the candidates of ``starts``
    (``_bar_starts``) tried backwards from ``end``, so no window is scanned again for each registration."""
    i = bisect.bisect_left(starts, end) - 1
    while i >= 0 and starts[i] >= start:
        m = _BAR.match(text, starts[i], end)
        if m is not None:
            return m
        i -= 1
    return None


def abandoned_capture(text: str) -> tuple[int, str, str] | None:
    """(line number, evidence, detail) of the first registration that follows a capture bar below N/N with no
    finished capture after it, else None."""
    if NEEDLE not in text:
        return None
    starts = _bar_starts(text)
    for reg in _registrations(text):
        bar = _last_bar(text, starts, max(0, reg.start() - _LOOKBACK), reg.start())
        if bar is None:
            continue
        line_end = text.find("\n", bar.start())
        line = text[bar.start():reg.start() if line_end < 0 else min(line_end, reg.start())]
        done, total = map(int, _STATE.findall(line)[-1])
        if done >= total or _END.search(text, reg.end()):
            continue
        line_no = text.count("\n", 0, reg.start()) + 1
        detail = (f"the capture stopped at batch {done + 1} of {total}: the bar stood at {done}/{total} when "
                  f"'Registering {reg.group(1)} cuda graph addresses' was logged, which the all-reduce communicator "
                  "logs on leaving the capture context, so the capture loop was left early; the log ends without "
                  "its exception line")
        return line_no, reg.group(0), detail
    return None
