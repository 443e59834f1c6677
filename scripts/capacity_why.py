"""What each capacity hit of scripts/explain_capacity_check.py rests on (issue 12; helper cap32, docs/accuracy.md §7).

The check scores a log a hit when its printed capacity lies in the token range ``tpkit explain`` rebuilds from the log
with the capacity lines removed.  That range is the anchors' print rounding carried through the engine's arithmetic,
plus, where the rebuild needs them, terms no line of the log prints: allowances (the rank spread for unprinted ranks,
the ROCm bound on what SGLang loses after its pre sample, vLLM's worker spreads) and sourced charges (torch's stream
pool, the expert-location metadata's first kernels, DeepGEMM's cuBLASLt workspace, the RoPE pre-expansion, the
multimodal reservation).  For every hit this module says which of them the hit needs: each is switched off (``SWITCHES``, one module attribute each,
restored after) and the row re-checked; a hit that stays a hit with every switch off rests on the print rounding
alone (and on the inputs the log leaves open, ``TAGS``, which no switch removes: the default fraction over the
catalog GPUs that fit, pre estimated from the config, a release range whose ends count differently, a pin's own
rounding).

    PYTHONPATH=src python scripts/explain_capacity_check.py --why
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager


def _rest_unchanged(rows, rest, *args, **kwargs):
    return rest


def _none2(*args, **kwargs):
    return None, None


def _none_why(*args, **kwargs):
    return None, ""


def _none(*args, **kwargs):
    return None


def _rocm_corpus(parsed, ctx):
    """round cap31a's bound (the corpus' largest sum per GPU model, every model class), for the comparison"""
    from tpkit.explain.context import is_rocm

    if not is_rocm(ctx):
        return None
    from tpkit.explain.sgrocm import rocm_pre_gap

    return rocm_pre_gap(parsed, ctx, reference="corpus", every_class=True)


def _rocm_device_every_class(parsed, ctx):
    """the device bound without the model-class test, for the comparison"""
    from tpkit.explain.context import is_rocm

    if not is_rocm(ctx):
        return None
    from tpkit.explain.sgrocm import rocm_pre_gap

    return rocm_pre_gap(parsed, ctx, every_class=True)


SWITCHES = {
    "rank_spread": ("tpkit.explain.sglang", "_rank_spread_row", _rest_unchanged,
                    "KV budget (rest), ranks not printed"),
    "rocm_bound": ("tpkit.explain.sgload", "rocm_gap", _none, "lost after the pre sample (ROCm bound)"),
    "stream_pool": ("tpkit.explain.sgload", "stream_pool_for", _none_why,
                    "torch stream pool (forward stream, after the pre sample)"),
    "metadata_kernels": ("tpkit.explain.sgload", "metadata_kernels_for", _none_why,
                         "expert-location metadata's first kernels (after the pre sample)"),
    "deepgemm_workspace": ("tpkit.explain.sgload", "deepgemm_workspace_for", _none_why,
                           "DeepGEMM's cuBLASLt workspace (after the pre sample)"),
    "rope_reserve": ("tpkit.explain.sglang", "rope_reserve_for", _none, None),
    "mm_reservation": ("tpkit.explain.sglang", "mm_reservation_for", _none_why,
                       "multimodal caches reserved out of the KV budget"),
    "vllm_worker_spread": ("tpkit.explain.vllm", "worker_spread", _none2,
                           "available KV memory of the printed line's worker"),
    "vllm_min_worker": ("tpkit.explain.vllm", "min_over_workers", _none2,
                        "available KV memory of the smallest worker"),
}
"""name → (module, attribute, what replaces it, the ledger row it adds (None: the RoPE row, ``ROPE_ITEM``)): the
terms no line prints that the rebuild may add.  allowances widen one end (rank_spread, rocm_bound, vllm_*); charges
move the range (stream_pool, metadata_kernels, deepgemm_workspace, rope_reserve, mm_reservation)."""

KINDS = {"stream_pool": "charge", "metadata_kernels": "charge", "deepgemm_workspace": "charge", "rope_reserve": "charge",
         "mm_reservation": "charge",
         "rank_spread": "spread", "vllm_worker_spread": "spread", "vllm_min_worker": "spread",
         "rocm_bound": "device bound"}
"""what each switch is: a charge sized from a source or a measurement (not printed by the log), a cross-rank spread
measured on the corpus (``startup.rankspread``), the ROCm bound from the card's total (``explain.sgrocm``)"""

VARIANTS = {
    "rocm_corpus": ("tpkit.explain.sgload", "rocm_gap", _rocm_corpus),
    "rocm_device_every_class": ("tpkit.explain.sgload", "rocm_gap", _rocm_device_every_class),
}
"""other bounds in place of the one explain uses, for the comparison (docs/accuracy.md §7, round cap32)"""


def _row_item(name: str) -> str:
    item = SWITCHES[name][3]
    if item is None:
        from tpkit.engines.sglang.rope import ROPE_ITEM

        item = ROPE_ITEM
    return item


def terms(stripped) -> list[str]:
    """The switches whose ledger row the rebuild of ``stripped`` (the explain result of the log without its
    capacity lines) holds, and the ``TAGS`` that apply."""
    items = {r.item for r in getattr(stripped.anchored, "rows", ()) or ()}
    found = [name for name in SWITCHES if _row_item(name) in items]
    return found + tags(stripped, items)


TAGS = ("pre_estimated", "fraction_open", "release_open")


def tags(stripped, items: set) -> list[str]:
    """Open inputs the range spans, which no switch removes: pre estimated from the config (no 'Load weight begin'),
    SGLang's default fraction over several catalog GPUs, the hull of a vLLM release range's rules."""
    a = stripped.anchored
    out = []
    if "pre_model_load_memory (estimated)" in items:
        out.append("pre_estimated")
    if getattr(a, "fraction_range", None) is not None and a.fraction_range[0] != a.fraction_range[1]:
        out.append("fraction_open")
    if stripped.kv_predicted_alternatives:
        out.append("release_open")
    return out


@contextmanager
def switched(names, table=None):
    """Every attribute of ``names`` (``SWITCHES`` or ``table``'s) replaced, restored on leaving."""
    table = table or SWITCHES
    saved = []
    try:
        for name in names:
            module, attr, repl = table[name][:3]
            mod = importlib.import_module(module)
            saved.append((mod, attr, getattr(mod, attr)))
            setattr(mod, attr, repl)
        yield
    finally:
        for mod, attr, old in reversed(saved):
            setattr(mod, attr, old)


def width(row: dict) -> tuple[int | None, float | None]:
    """(tokens, % of the printed count) of the row's rebuilt range, None without one."""
    rng = row.get("range")
    if not rng or row.get("printed") is None:
        return None, None
    w = rng[1] - rng[0]
    return w, (100.0 * w / row["printed"] if row["printed"] > 0 else None)  # a pin of 0 (no budget): no %


def rests_on(case: dict, row: dict, recheck) -> dict:
    """For a hit: {"class": "rounding" | "needs", "needs": [switches the hit needs], "present": [...], "tags": [...],
    "width_off": tokens with every present switch off}.  ``recheck(case)`` re-runs the check's row (under whatever is
    switched)."""
    present = [t for t in row.get("terms", []) if t in SWITCHES]
    tagged = [t for t in row.get("terms", []) if t in TAGS]
    out = {"present": present, "tags": tagged + ([f"pin:{row['pin']}"] if row.get("pin") else []), "needs": [],
           "width_off": width(row)[0]}
    if not present:
        out["class"] = "rounding"
        return out
    with switched(present):
        off = recheck(case)
    out["width_off"] = width(off)[0]
    if off["outcome"] == "hit":
        out["class"] = "rounding"
        return out
    out["class"] = "needs"
    for name in present:
        with switched([name]):
            if recheck(case)["outcome"] != "hit":
                out["needs"].append(name)
    if not out["needs"]:  # none alone, some together: every present one is a way in
        out["needs"] = ["any of " + " / ".join(present)]
    return out


def label(why: dict) -> str:
    """The audit column: what the hit rests on, in words."""
    if why["class"] == "rounding":
        text = "print rounding"
        if why["present"]:
            text += f" (also holds without {', '.join(why['present'])})"
    else:
        text = "needs " + " + ".join(why["needs"])
    if why["tags"]:
        text += f"; open: {', '.join(why['tags'])}"
    return text


def summary(rows: list[dict]) -> list[str]:
    """The audit's figures by class, by allowance and by width (lines of text)."""
    hits = [r for r in rows if r["outcome"] == "hit"]
    by = {"rounding": [r for r in hits if r["why_audit"]["class"] == "rounding"],
          "needs": [r for r in hits if r["why_audit"]["class"] == "needs"]}
    clean = [r for r in by["rounding"] if not r["why_audit"]["tags"]]
    lines = [f"audit: {len(hits)} hits; within the print rounding with every switch off: {len(by['rounding'])} "
             f"({len(clean)} with no open input, {len(by['rounding']) - len(clean)} spanning an open input); need a "
             f"term no line prints: {len(by['needs'])} of {len(rows)} logs"]
    counts: dict[str, int] = {}
    for r in by["needs"]:
        for n in r["why_audit"]["needs"]:
            counts[n] = counts.get(n, 0) + 1
    lines.append("needs, by term: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    kinds: dict[str, int] = {}
    for r in by["needs"]:
        named = {n for need in r["why_audit"]["needs"] for n in need.replace("any of ", "").split(" / ")}
        key = " + ".join(sorted({KINDS[n] for n in named}))
        kinds[key] = kinds.get(key, 0) + 1
    lines.append("needs, by kind (charge: sourced / measured size not printed; spread: corpus-measured cross-rank "
                 "allowance; device bound: the ROCm card's total): "
                 + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
    tagc: dict[str, int] = {}
    for r in hits:
        for t in r["why_audit"]["tags"]:
            t = t.split(":")[0]
            tagc[t] = tagc.get(t, 0) + 1
    lines.append("open inputs among the hits: " + ", ".join(f"{k} {v}" for k, v in sorted(tagc.items())))
    for name, group in (("all hits", hits), ("rounding", by["rounding"]), ("needs", by["needs"])):
        pct = sorted(width(r)[1] for r in group if width(r)[1] is not None)
        if pct:
            q = lambda p: pct[min(len(pct) - 1, int(p * len(pct)))]  # noqa: E731
            lines.append(f"width, % of the printed count, {name} ({len(pct)}): median {q(0.5):.3f} %, "
                         f"p90 {q(0.9):.3f} %, max {pct[-1]:.3f} %; ≤ 0.1 %: {sum(p <= 0.1 for p in pct)}, 0.1–1 %: "
                         f"{sum(0.1 < p <= 1 for p in pct)}, > 1 %: {sum(p > 1 for p in pct)}")
    return lines


def variant_outcomes(rows: list[dict], cases: dict, recheck) -> list[str]:
    """Hits and widths of the ROCm rows under each ``VARIANTS`` bound and with no bound, beside explain's."""
    amd = [r for r in rows if r.get("rocm")]
    lines = []
    for name, table in [("device (explain)", None), *[(v, v) for v in VARIANTS], ("none", "off")]:
        got = []
        for r in amd:
            if table is None:
                got.append(r)
            elif table == "off":
                with switched(["rocm_bound"]):
                    got.append(recheck(cases[r["id"]]))
            else:
                with switched([table], VARIANTS):
                    got.append(recheck(cases[r["id"]]))
        hits = [g for g in got if g["outcome"] == "hit"]
        ws = sorted(width(g)[0] for g in hits if width(g)[0] is not None)
        pct = sorted(width(g)[1] for g in hits if width(g)[1] is not None)
        med = f"median width {ws[len(ws) // 2]:,} tokens ({pct[len(pct) // 2]:.3f} %)" if ws else ""
        gained = [g["id"] for r, g in zip(amd, got) if r["outcome"] != "hit" and g["outcome"] == "hit"]
        lost = [r["id"] for r, g in zip(amd, got) if r["outcome"] == "hit" and g["outcome"] != "hit"]
        lines.append(f"ROCm bound {name}: {len(hits)}/{len(amd)} ROCm rows hit; {med}; hits gained over explain's: "
                     f"{' '.join(gained) or 'none'}; lost: {' '.join(lost) or 'none'}")
    return lines


def audit(rows: list[dict], cases: dict, recheck) -> list[str]:
    """Each hit's ``rests_on`` (``row["why_audit"]``, ``row["width"]``) and the audit's lines: the table with the
    width and what each hit rests on, the summary, the ROCm bounds compared."""
    out = ["| case | engine | printed | rebuilt range | width (tokens, % of printed) | outcome | rests on |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        w, pct = width(r)
        r["width"] = w
        if r["outcome"] == "hit":
            r["why_audit"] = rests_on(cases[r["id"]], r, recheck)
        rng = f"{r['range'][0]:,}–{r['range'][1]:,}" if r.get("range") else "—"
        shown = "—" if w is None else f"{w:,}" + ("" if pct is None else f" ({pct:.3f} %)")
        rest = label(r["why_audit"]) if r.get("why_audit") else ", ".join(r.get("terms", [])) or "—"
        printed = "—" if r["printed"] is None else f"{r['printed']:,}"
        out.append(f"| {r['id']} | {r['engine']} | {printed} | {rng} | {shown} | {r['outcome']} | {rest} |")
    return out + [""] + summary(rows) + variant_outcomes(rows, cases, recheck)
