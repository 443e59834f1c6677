"""An SGLang OOM inside the piecewise CUDA-graph capture: the decode graphs' remedies do not reach it (round ex38).

SGLang captures two kinds of graphs: the decode graphs (``CudaGraphRunner``, "Capture cuda graph begin", the
"Capturing batches (bs=…)" bar, sized by ``--cuda-graph-max-bs``) and the piecewise (prefill) graphs of the compiled
model (``PiecewiseCudaGraphRunner.capture``, 0.5.6 wheel; ``runner/prefill_cuda_graph_runner.py``, 0.5.15), whose bar
is "Capturing num tokens ({num_tokens=} {avail_mem=:.2f} GB)", capturing the token shapes from the largest down, up to
``--piecewise-cuda-graph-max-tokens`` (0.5.4–0.5.19 register it; 4096 by default in 0.5.6).  The piecewise capture
is turned on by ``--enable-piecewise-cuda-graph`` up to 0.5.9 and on by default from 0.5.10, where
``--disable-piecewise-cuda-graph`` turns it off; ``--disable-cuda-graph`` does not (``can_run_piecewise_cuda_graph``
reads neither it nor the decode batch list, 0.5.6 ``model_runner.py``; ``engines.sglang.defaults``).  So for an OOM
whose last capture line is the piecewise one (the bar, or 'Capture piecewise CUDA graph begin' with no end), a smaller
``--cuda-graph-max-bs`` or ``--disable-cuda-graph`` leaves the failing capture as it was: the fixes that reach it are
fewer token shapes, the capture off, or more slack (a smaller ``--mem-fraction-static``, kept from the decode rules).
"""

from __future__ import annotations

from tpkit.explain.diagnose import Fix, unshown

__all__ = ["piecewise_tokens", "piecewise_fixes"]

_CAPTURE = ("graph_begin_avail", "graph_end_avail", "graph_max_bs", "capture_num_tokens")


def piecewise_tokens(parsed, failure) -> int | None:
    """The largest token shape the piecewise capture printed before ``failure`` (0: none printed) when the last
    capture line before it is the piecewise capture's and not its end; None otherwise."""
    seen = [a for a in parsed.anchors if a.name in _CAPTURE and a.line_no <= failure.line_no]
    if not seen:
        return None
    last = max(seen, key=lambda a: a.line_no)
    if last.group != "piecewise" or last.name == "graph_end_avail":
        return None
    start = max((a.line_no for a in seen if a.group != "piecewise" or a.name == "graph_end_avail"), default=0)
    shapes = [int(a.count.value) for a in seen if a.name == "capture_num_tokens" and a.line_no > start and a.count]
    return max(shapes, default=0)


def piecewise_fixes(parsed, fixes: list[Fix], tokens: int, tokens_printed) -> tuple[str, list[Fix]]:
    """(words for the cause, the fixes): the decode-graph fixes dropped, the piecewise ones offered as suggestions
    (the log prints no per-shape graph memory), a smaller ``--mem-fraction-static`` kept."""
    enabled = any("--enable-piecewise-cuda-graph" in (s.text or "") for s in parsed.settings
                  if s.source == "command_line")
    words = ("; the capture that failed is the piecewise (prefill) one" +
             (f" (its bar was at {tokens} tokens)" if tokens else "") +
             ", which --cuda-graph-max-bs and --disable-cuda-graph do not change" +
             ("; the command's --enable-piecewise-cuda-graph turns it on: without that flag (SGLang ≤ 0.5.9) it "
              "is not captured" if enabled else ""))
    kept = [f for f in fixes if f.flags.startswith("--mem-fraction-static")]
    if tokens >= 2:
        half = tokens // 2
        # the two flags are SGLang's, not ``tpkit plan``'s: the parenthesis keeps them advice (nothing to re-plan)
        kept.append(unshown(Fix(flags=f"--piecewise-cuda-graph-max-tokens {half} (half the bar's largest shape)",
                                kv_tokens=tokens_printed,
                                fits=False, why=f"captures token shapes up to {half} only (half the largest the bar "
                                                "printed): the largest shapes' graphs are not made"),
                            "the graph memory per shape is not printed (taken ∝ the shape: a rule of thumb)"))
    if not enabled:
        kept.append(unshown(Fix(flags="--disable-piecewise-cuda-graph (SGLang 0.5.10+)", kv_tokens=tokens_printed,
                                fits=False,
                                why="the piecewise capture that failed is not run (prefill runs without its graphs)"),
                            "what prefill then needs outside the graphs is not printed"))
    return words, kept
