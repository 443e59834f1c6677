"""Text for ``tpkit explain`` (plain text; every size names its unit, GiB = 2^30 B)."""

from __future__ import annotations

from tpkit.explain.diagnose import SUGGESTION
from tpkit.explain.result import Explanation
from tpkit.units import format_bytes

__all__ = ["format_explanation"]

_MARK = {"reproduced": "✓ reproduced", "differs": "✗ DIFFERS"}


def _value(row) -> str:
    if row.count is not None:
        return f"{row.count:,}" if isinstance(row.count, int) else f"{row.count}"
    if row.value is None:
        return "?"
    return format_bytes(row.value.mid)



def _short(value) -> str:
    """A run setting as the run line shows it: a long list (vLLM's CUDA-graph capture sizes) as its first sizes, its
    last and its length."""
    if isinstance(value, (list, tuple)) and len(value) > 6:
        return "(" + ", ".join(str(x) for x in value[:3]) + f", …, {value[-1]}: {len(value)} sizes)"
    return str(value)


def format_explanation(e: Explanation) -> str:
    """The text of ``tpkit explain``: the run, the anchored ledger, the KV tokens, the diagnosis, notes and what was not
    found."""
    out = _run_lines(e) + [""] + _ledger_lines(e) + [""] + _kv_lines(e) + [""] + _diagnosis_lines(e.diagnosis)
    notes = list(e.context.notes) + list(e.parsed.notes)
    if notes or e.missing:
        out.append("")
    for n in notes:
        out.append(f"note: {n}")
    for m in e.missing:
        out.append(f"missing: {m}")
    return "\n".join(out) + "\n"


def _run_lines(e: Explanation) -> list[str]:
    """The run: engine and its evidence, model, GPU, settings, speculative decoding, rank, contradictions."""
    ctx, out = e.context, []
    version = f" {ctx.version}" if ctx.version else " (version not printed)"
    lo, dash, hi = version.partition("–")
    if dash and lo.strip() == hi.strip():  # a range the formats pin to one release: "0.10.2–0.10.2" (ux24)
        version = f"{lo} (the only release its line formats allow)"
    out.append(f"engine      {ctx.engine or 'unknown'}{version}")
    for ev in e.parsed.engine.evidence[:3]:
        out.append(f"            evidence: line {ev.line_no}: {ev.claim}")
    model = getattr(ctx.model, "name", None) or e.parsed.run.value("model") or "not printed"
    out.append(f"model       {model}  [{ctx.model_source}]")
    gpu = f"{ctx.gpu.name} ({format_bytes(ctx.gpu.total_bytes)})" if ctx.gpu is not None else "unknown (pass --gpu)"
    out.append(f"gpu         {gpu}  [{ctx.gpu_source}]")
    if ctx.gpu_inferred is not None:
        out.append(f"            {ctx.gpu_inferred.text()}")
    shown = ", ".join(f"{k}={_short(v)}" for k, v in ctx.values.items()
                      if k != "speculative" and v not in (None, False))
    out.append(f"run         {shown or 'no settings printed'}")
    for k, src in ctx.sources.items():
        if str(src).startswith("inferred"):
            out.append(f"            {k}: {src}")
    if ctx.tp_inferred is not None:
        out.append(f"            tp from the memory arithmetic: {ctx.tp_inferred.text()}")
    out += _spec_lines(ctx)
    out.append(f"rank        {e.rank} ({e.rank_reason})")
    for c in ctx.contradictions:
        out.append(f"! {c.text()}")
    return out


def _spec_lines(ctx) -> list[str]:
    """Speculative decoding as read (method, draft model, tokens, draft tp), as the run line printed it, or missing."""
    out = []
    if ctx.spec is not None:
        sp = ctx.spec
        shown = ", ".join(f"{k}={v}" for k, v in (("method", sp.method), ("model", sp.model),
                                                   ("num_speculative_tokens", sp.num_speculative_tokens),
                                                   ("draft_tensor_parallel_size", sp.draft_tensor_parallel_size))
                          if v is not None)
        out.append(f"speculative {shown}  [{ctx.spec_source}]")
    elif ctx.values.get("speculative"):
        spec = ctx.values["speculative"]
        shown = (", ".join(f"{k}={v}" for k, v in spec.items() if v is not None) if isinstance(spec, dict)
                 else str(spec))  # the run line's key=value form, not a Python dict
        out.append(f"speculative {shown}")
    if ctx.spec_missing:
        out.append(f"speculative ? {ctx.spec_missing}")
    return out


def _ledger_lines(e: Explanation) -> list[str]:
    """The anchored ledger: each row's value and printed line, its meaning, then its derivation or check."""
    out = ["Ledger of one GPU, anchored on the printed numbers (GiB = 2^30 B)"]
    for r in e.rows:
        printed = f'"{r.printed}" line {r.line_no}' if r.printed else r.kind
        out.append(f"  {r.item:<46} {_value(r):>14}   {printed}")
        out.append(f"  {'':<46} {'':>14}   = {r.meaning}")
        if r.derived is not None:
            mark = _MARK.get(r.check or "", "")
            out.append(f"  {'':<46} {'':>14}   derived {r.derived.text()} from {r.derived_from}  {mark}")
        elif r.check:
            out.append(f"  {'':<46} {'':>14}   {_MARK.get(r.check, r.check)} {r.note}")
        elif r.note:
            out.append(f"  {'':<46} {'':>14}   {r.note}")
    return out


def _kv_lines(e: Explanation) -> list[str]:
    """The printed KV tokens beside the range rebuilt from the anchors."""
    kv = e.kv_predicted_range
    return ["KV tokens   printed " + (f"{e.kv_printed:,}" if e.kv_printed is not None else "—")
            + "   rebuilt from the anchors " + (f"{kv[0]:,}–{kv[1]:,}" if kv else "—"
                                                   + (f" ({e.kv_source})" if e.kv_source else ""))]


def _diagnosis_lines(d) -> list[str]:
    """The diagnosis: status and phase, cause, shortfall, evidence, findings and the fixes with their KV tokens."""
    out = [f"Diagnosis   {d.status}" + (f", phase {d.phase}" if d.phase else "")]
    if d.cause:
        out.append(f"  cause: {d.cause}")
    if d.short_by is not None:
        out.append(f"  short by: {format_bytes(d.short_by)}")
    if d.evidence:
        out.append(f"  evidence: {d.evidence}")
    for f in d.findings:
        out.append(f"  - {f}")
    if d.fixes:
        catalog = any("planned from the catalog" in f.note for f in d.fixes)
        out.append("  fixes (planned from the catalog, not measured: see each note):" if catalog else
                   "  fixes (re-planned from the same measurements):")
        for f in d.fixes:
            tokens = f"{f.kv_tokens:,} KV tokens" if f.kv_tokens is not None else "KV tokens not computable"
            label = 'fits ' if f.fits else 'maybe' if f.note.startswith(SUGGESTION) else 'NO   '
            out.append(f"    {label} {f.flags:<44} {tokens}; {f.why}"
                       + (f" ({f.note})" if f.note else ""))
    return out
