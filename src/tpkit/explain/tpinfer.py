"""The tensor-parallel size of a vLLM log that does not print it, from what the log does print (issue 12).

Used only where no dump, flag, command line, rank prefix or default rule (``explain.context``) gave the tp.

* Bounds read from the log's text (``tp_hints``):
  - vLLM's ``rank R in world size N is assigned as DP rank d, PP rank p, TP rank t``
    (``vllm/distributed/parallel_state.py initialize_model_parallel``; the world is tp × pp × dp, so
    t + 1 ≤ tp ≤ N, and tp = N / (pp × dp) when the log states pp and dp, or N = 1; the wording as the corpus
    logs print it from parallel_state.py:954 to :1208, vl_025/vl_021/vl_031/vl_050, releases ~0.8–0.11 — read off
    those logs, not a wheel);
  - NCCL's ``comm 0x… rank r nranks N`` (``NCCL_DEBUG=INFO``): every communicator (tp group, pp group, world) has
    at most the world's ranks, so tp ≤ the largest N;
  - ``CUDA_VISIBLE_DEVICES=a,b,…`` in a command line quoted in the log: the ranks of one node use at most the
    GPUs it makes visible, so tp ≤ their count (an upper bound only: a run may use fewer).
  (``tensor_parallel_size=`` / ``--tensor-parallel-size`` / ``-tp`` are read by ``logs.settings`` and
  ``explain.result.free_form_settings``; rank prefixes by ``explain.runtp.tp_from_ranks``.)
* The weights per rank: vLLM prints ``Model loading took X GiB`` (torch-allocated bytes after − before the load,
  ``vllm/v1/worker/gpu_model_runner.py load_model``), which is the planner's weight ledger for the rank
  (``models.weights.plan_weights`` with ``engine="vllm"`` plus the rotary cos/sin cache,
  ``engines.vllm.policy.rotary_cache_bytes``).  A tp of ``TP_CANDIDATES`` survives when the model accepts it
  (tp divides the attention heads, which vLLM asserts in ``vllm/config/parallel.py``/``model.py
  verify_with_parallel_config``), it lies in the text bounds, and its predicted weights band (± the config-derived
  share, ``memory.band.estimated_weights``) overlaps the printed value's print-rounding interval.  One survivor is
  the tp; several are listed; none is said.
"""

from __future__ import annotations

import re

from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text
from tpkit.explain.refusals import REFUSED

__all__ = ["TpHint", "TpInference", "tp_hints", "infer_tp", "predicted_weights", "process_tp_hint"]


@dataclass(frozen=True, kw_only=True, slots=True)
class TpHint:
    """A bound on the tp that one line of the log gives."""

    low: int
    high: int | None
    """None: no upper bound"""
    text: str
    """what the line says, and why it bounds the tp"""
    line_no: int
    rank: int | None = None
    """the highest TP rank the line names, where it names one"""


@dataclass(frozen=True, kw_only=True, slots=True)
class TpInference:
    """The tp sizes the log's numbers leave, with the arithmetic."""

    candidates: tuple[int, ...]
    """the tp sizes that survive every check"""
    evidence: tuple[str, ...]
    weights_used: bool
    """a 'Model loading took' figure took part"""

    @property
    def tp(self) -> int | None:
        return self.candidates[0] if len(self.candidates) == 1 else None

    def to_dict(self) -> dict:
        return {"tp": self.tp, "candidates": list(self.candidates), "evidence": list(self.evidence),
                "weights_used": self.weights_used}

    def text(self) -> str:
        if self.tp is not None:
            return f"tp {self.tp} inferred: {'; '.join(self.evidence)}"
        if not self.candidates:
            return f"no tp fits the log's numbers ({'; '.join(self.evidence)})"
        return f"tp {'/'.join(map(str, self.candidates))} fit the log's numbers ({'; '.join(self.evidence)})"


_WORLD = re.compile(rb"rank (\d+) in world size (\d+) is assigned as DP rank (\d+), PP rank (\d+), TP rank (\d+)")
_NRANKS = re.compile(rb"\bcomm 0x[0-9a-fA-F]+ rank (\d+) nranks (\d+)\b")
_VISIBLE = re.compile(rb"\bCUDA_VISIBLE_DEVICES=['\"]?([0-9]+(?:,[0-9]+)*)['\"]?")
_TP_PROCESS = re.compile(rb"\((?:Worker(?:_DP\d{1,4})?(?:_PP\d{1,4})?(?:_PCP\d{1,4})?_TP(\d{1,4})"
                         rb"|VllmWorker (?:PP\d{1,4}_)?TP(\d{1,4}))(?=[_ )])")
"""a vLLM worker's process name with a TP rank: ``(Worker_TP1 pid=…)``, ``(Worker_PP0_TP3_EP3 …)`` (≥ 0.11) or
``(VllmWorker PP0_TP1 pid=…)`` (0.10.x); read off the raw text, so a header cut before its pid still counts"""


def process_tp_hint(raw: bytes) -> TpHint | None:
    """tp ≥ max(2, highest TP rank + 1) from vLLM's worker process names: vLLM appends ``_TP{rank}`` to a worker's
    name only when tp > 1 (``setup_proc_title_and_log_prefix``, v1/executor/multiproc_executor.py, 0.11.0 and
    0.20.0 wheels: ``if tp_size > 1: process_name += f"_TP{tp_rank}"``; 0.10.1 ``WorkerProc.__init__``:
    ``tp_str = f"TP{rank % tp_size}" if tp_size > 1 else ""``), so a 'TP0' alone already means tp ≥ 2.  A rank the
    excerpt leaves out would make it larger (no upper bound)."""
    found = [m for m in _TP_PROCESS.finditer(raw[:8_000_000])]
    if not found:
        return None
    top = max(found, key=lambda m: int(m.group(1) or m.group(2)))
    rank = int(top.group(1) or top.group(2))
    low = max(2, rank + 1)
    name = top.group(0)[1:].decode("ascii", "replace")
    return TpHint(low=low, high=None, line_no=_line(raw, top.start()), rank=rank,
                  text=f"vLLM's worker process name '{name}': tp ≥ {low} (vLLM adds '_TP<rank>' only when tp > 1, "
                       "multiproc_executor.py setup_proc_title_and_log_prefix)")


def _line(raw: bytes, pos: int) -> int:
    return raw.count(b"\n", 0, pos) + 1


def tp_hints(raw: bytes, *, pp: int | None = None, dp: int | None = None) -> tuple[TpHint, ...]:
    """The bounds on the tp that the log's text states (module doc); ``pp``/``dp`` as the log states them."""
    out: list[TpHint] = []
    worlds = list(_WORLD.finditer(raw))
    if worlds:
        size = max(int(m.group(2)) for m in worlds)
        top_tp = max(int(m.group(5)) for m in worlds)
        m = worlds[0]
        if size == 1 or (pp is not None and dp is not None and size % (pp * dp) == 0):
            exact = size // ((pp or 1) * (dp or 1))
            how = "world size 1" if size == 1 else f"world size {size} = tp × pp {pp} × dp {dp}"
            out.append(TpHint(low=exact, high=exact, line_no=_line(raw, m.start()),
                              text=f"vLLM's 'rank … in world size {size}' ({how}, parallel_state.py)"))
        else:
            out.append(TpHint(low=top_tp + 1, high=size, line_no=_line(raw, m.start()),
                              text=f"vLLM's 'rank … in world size {size} … TP rank {top_tp}': "
                                   f"{top_tp + 1} ≤ tp ≤ {size} (world = tp × pp × dp)"))
    ranks = list(_NRANKS.finditer(raw))
    if ranks:
        top = max(ranks, key=lambda m: int(m.group(2)))
        out.append(TpHint(low=1, high=int(top.group(2)), line_no=_line(raw, top.start()),
                          text=f"NCCL 'nranks {int(top.group(2))}': tp ≤ {int(top.group(2))} (no communicator "
                               "has more ranks than the world)"))
    process = process_tp_hint(raw)
    if process is not None:
        out.append(process)
    visible = _VISIBLE.search(raw)
    if visible:
        n = len(visible.group(1).split(b","))
        out.append(TpHint(low=1, high=n, line_no=_line(raw, visible.start()),
                          text=f"CUDA_VISIBLE_DEVICES lists {n} GPU{'s' if n > 1 else ''}: tp ≤ {n}"))
    return tuple(out)


def predicted_weights(model, tp: int, *, pp: int = 1, dtype: str | None = None,
                      quantization: str | None = None, kernel: str | None = None) -> tuple[Bytes, Bytes, Bytes]:
    """vLLM's 'Model loading took' for ``model`` at ``tp``: (nominal, low, high) — the planner's weights per rank
    plus the rotary cache, the band ± the config-derived share (exact when read from safetensors).

    ``kernel``: the mixed-precision kernel the log prints for its weight-only linear method
    (``logs.settings.kernel_line``).  ``MacheteLinearKernel`` (Hopper) keeps the zero points of a zero-point format
    (AWQ) in the activation dtype after loading: its ``process_weights_after_loading`` unpacks them from int32 and
    stores ``-scale × zero_point`` (``transform_w_zp``, vllm/model_executor/kernels/linear/mixed_precision/machete.py,
    0.29.0 wheel), so each group's zero point takes 2 bytes where the checkpoint packs it in 4 bits; measured by
    'Model loading took' (allocated after − before the load, post-processing included)."""
    from tpkit.engines.vllm.policy import rotary_cache_bytes
    from tpkit.memory.band import WEIGHTS_DERIVED_QUANTIZED_SHARE, WEIGHTS_DERIVED_SHARE
    from tpkit.models.weights import plan_weights
    from tpkit.parallel import ParallelSpec

    from tpkit.dtypes import lookup_dtype

    named = lookup_dtype(dtype) if dtype else None
    act_bytes = 4 if named is not None and named.bytes == 4 else 2  # auto: an fp32 checkpoint loads as bf16
    if kernel == "MacheteLinearKernel":
        from dataclasses import replace

        from tpkit.models.quant import resolve_quant

        quant = resolve_quant(model.quant, quantization)
        if quant is not None and quant.has_zero_point:
            model, quantization = replace(model, quant=replace(quant, zero_point_bytes=act_bytes)), None
    # the 0.8.0+ layer split over PP stages (``engines.vllm.pages.pp_split``): the release is not known here
    plan = plan_weights(model, ParallelSpec(tp=tp, pp=pp), dtype=dtype, quantization=quantization, engine="vllm",
                        pp_split="vllm")
    nominal = plan.bytes_per_rank + rotary_cache_bytes(model, act_bytes)
    if "derived" not in str(getattr(plan, "method", "")):
        return nominal, nominal, nominal
    share = WEIGHTS_DERIVED_QUANTIZED_SHARE if getattr(plan, "quant", None) is not None else WEIGHTS_DERIVED_SHARE
    spread = Bytes(round(nominal.bytes * share))
    return nominal, nominal - spread, nominal + spread


def infer_tp(*, model, weights=None, hints: tuple[TpHint, ...] = (), candidates: tuple[int, ...] = (1, 2, 4, 8),
             pp: int = 1, dtype: str | None = None, quantization: str | None = None,
             predict=predicted_weights) -> TpInference | None:
    """The tp sizes of ``candidates`` that the model, the text bounds and the printed weights leave (module doc).

    ``weights``: the printed 'Model loading took' as (``PrintedSize``, line number), or None.  ``predict(model, tp, pp=, dtype=, quantization=)`` →
    (nominal, low, high).  None when nothing in the log bears on the tp (no bound, no weights figure)."""
    if not hints and weights is None:
        return None
    evidence: list[str] = []
    left = list(candidates)
    heads = getattr(model, "num_attention_heads", None) if model is not None else None
    if heads:
        dropped = [t for t in left if heads % t]
        left = [t for t in left if not heads % t]
        if dropped:
            evidence.append(f"tp {'/'.join(map(str, dropped))} do not divide the {heads} attention heads")
    for h in hints:
        left = [t for t in left if h.low <= t and (h.high is None or t <= h.high)]
        evidence.append(f"line {h.line_no}: {h.text}")
    used = False
    if weights is not None and model is not None and left:
        size, line_no = weights
        rows, fits = [], []
        for t in left:
            try:
                nominal, lo, hi = predict(model, t, pp=pp, dtype=dtype, quantization=quantization)
            except REFUSED:  # a tp the planner refuses (pp, experts) is not a candidate
                continue
            ok = lo <= size.high and size.low <= hi
            rows.append((t, nominal, lo, hi, ok))
            if ok:
                fits.append(t)
        if rows:
            used = True
            others = ", ".join(f"tp {t} → {gib_text(n)}" for t, n, _, _, ok in rows if not ok)
            if len(fits) == 1:
                t, n, lo, hi = next((t, n, lo, hi) for t, n, lo, hi, ok in rows if ok)
                evidence.insert(0, f"line {line_no}: Model loading took {size.text} matches the tp {t} weights "
                                   f"{gib_text(n)} ({gib_text(lo, label='')}–{gib_text(hi, label='')} "
                                   "with the weights band)"
                                + (f"; {others}" if others else ""))
            else:
                each = "; ".join(f"tp {t} → {gib_text(n)} ({gib_text(lo, label='')}–{gib_text(hi, label='')})"
                                 for t, n, lo, hi, _ in rows)
                evidence.insert(0, f"line {line_no}: Model loading took {size.text} (its print rounding "
                                   f"{gib_text(size.low, label='')}–{gib_text(size.high)}); predicted weights {each}")
            left = fits
    elif weights is None:
        evidence.append("no 'Model loading took' line to compare the weights per rank with")
    elif model is None:
        evidence.append(f"line {weights[1]}: Model loading took {weights[0].text}, but no model config to predict "
                        "the weights per rank from (pass --model)")
    return TpInference(candidates=tuple(left), evidence=tuple(evidence), weights_used=used)
