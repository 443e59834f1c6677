"""Predicted vs measured speculative passes on the H200 reference run (CPU only, no torch).

    python bench/spec_compare.py [docs/runs/spec_h200_2026-12-05.json] [--kernel flash|mask]

Reads a ``bench/spec_reference.py`` JSON and predicts each row with tpkit perf's own functions, kernel layout
``reference`` (the profile ``bench/decode_compare.py`` uses), the run's GPU (``machine.gpu``; H200 for the recorded
run), TP 1, engine sglang, EAGLE3:

    T_decode(B)     ``plan._forward`` of Batch(B sequences, 1 token, context C)
    T_verify(B, D)  ``plan._forward`` of Batch(B, D tokens, context C), attention ``decode`` (the reference
                    profile's own kernel: no KV split, one block per (sequence, KV head))
    draft step      ``plan._draft_forward`` (B sequences, topk tokens each) of perf's EAGLE-3 head, as SGLang
                    ``DRAFT_RELEASE`` (0.5.6, the release the reference follows) runs it

and prints three markdown tables: decode / verify / ratio, the verify attention alone, and the draft step
(measured without and with the fc, each against perf's step without / with the fc: ``target_hidden``; "as run":
perf's rules on the kernels the reference launched, i.e. at topk 1 its ``torch.topk(·, 1)`` radix select where SGLang
runs ``torch.max``: ``reference_topk1_us``).  ``--kernel`` picks the verify attention kernel the tables read: ``mask``
(default: SDPA with the additive causal mask, which torch 2.11 on the H200 runs as cuDNN's fused attention, the
backend of the decode rows' attention too) or ``flash`` (FlashAttention-2 split-KV, causal bottom-right, GQA not
folded).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "docs" / "runs" / "spec_h200_2026-12-05.json"


GPU = "H200"
"""the catalog GPU the predictions are made for: the recorded run's (``bench/draft_compare.py`` sets it from its
run's ``machine.gpu``)"""


def _ctx(model_id: str, context: int, tokens: int, topk: int = 1, version: str | None = None):
    """perf's context for one row (plan._context of a PerfRequest with impl ``reference``; ``version``: the SGLang
    release, newest when None) on ``GPU``."""
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.perf import plan
    from tpkit.perf.request import PerfRequest
    from tpkit.perf.spec import SpecSettings

    steps = max(1, tokens - 1) if topk == 1 else 1
    drafts = steps + 1 if topk == 1 else 2
    spec = SpecSettings(algorithm="EAGLE3", num_steps=steps, topk=topk, num_draft_tokens=drafts)
    req = PerfRequest(model=load_model(model_id), gpu=lookup_gpu(GPU), tp=1, batch=1, context=context,
                      engine="sglang", engine_version=version, impl="reference", spec=spec)
    ctx = plan._context(req)
    return ctx, spec, plan.default_policy(ctx.setup.link)


def predict_pass(model_id: str, batch: int, tokens: int, context: int):
    """perf's forward of ``batch`` sequences × ``tokens`` tokens over ``context`` cached ones: (µs, attention µs)."""
    from tpkit.perf import plan

    ctx, _, policy = _ctx(model_id, context, max(tokens, 2))
    out, _ = plan._forward(ctx, ctx.req.model, plan._batch(ctx, batch, tokens), policy, attention="decode")
    return out.total_us, dict(out.by_kind_us).get("attention", 0.0)


DRAFT_RELEASE = "0.5.6"
"""the SGLang release whose draft step ``bench/spec_reference.py`` follows (``speculative/eagle_worker.py``
``draft_forward``: softmax + ``fast_topk`` after every draft forward, topk 1 included; from 0.5.13 a chain takes an
argmax instead, ``perf.spec.SGLANG_TOPK1_ARGMAX_FIRST``)"""


def predict_draft(model_id: str, batch: int, topk: int, context: int, *, fc: bool = False) -> float:
    """perf's EAGLE-3 draft step (``plan._draft_forward``) as ``plan._spec_point`` calls it for SGLang
    ``DRAFT_RELEASE``: ``batch`` sequences × ``topk`` rows, softmax + top-k on all of them; ``fc``: fed the target's
    hidden states (the fc runs)."""
    from tpkit.perf import plan

    ctx, spec, policy = _ctx(model_id, context, 2, topk, DRAFT_RELEASE)
    return plan._draft_forward(ctx, spec, batch, topk, policy, target_hidden=fc, sample_rows=batch * topk).total_us


def draft_kernels(model_id: str, batch: int, topk: int, context: int, *, fc: bool = False):
    """(kernels, DeviceRates, ImplProfile) of the step ``predict_draft`` times, on ``GPU``: the draft's layers as
    ``plan._forward`` lists them (``perf.forward.forward_kernels``, decode attention, unquantised EAGLE-3 head) and
    ``spec.draft_step_kernels`` (tests/perf/test_draft_by_gpu.py checks they sum to ``predict_draft``): what
    ``bench/draft_by_gpu.py`` splits into terms."""
    from tpkit.perf import plan
    from tpkit.perf.work import forward_kernels
    from tpkit.perf.spec import draft_step_kernels

    ctx, spec, _ = _ctx(model_id, context, 2, topk, DRAFT_RELEASE)
    extra, _ = draft_step_kernels(ctx.req, ctx.draft, spec, batch, topk, ctx.runtime(spec).version, target_hidden=fc,
                                  sample_rows=batch * topk)
    b = plan._batch(ctx, batch, topk)
    splits = ctx.runtime(None).mla_kv_splits(ctx.draft, b.context + b.tokens_per_sequence, ctx.req.gpu.sm_count)
    layers = forward_kernels(ctx.draft, ctx.shard, b, ctx.impl, quant=None, kv_bytes=ctx.kv_bytes, attention="decode",
                             kv_splits=splits)
    return layers + list(extra), ctx.dev, ctx.impl


def reference_topk1_us(model_id: str, batch: int, context: int) -> float:
    """µs perf charges for the sampling the reference runs at topk 1 minus what SGLang runs there: the reference
    calls ``torch.topk(probs, 1)`` (radix select: 13 kernels, ``perf.spec.draft_topk_kernels`` of a topk > 1
    setting on the same rows), SGLang 0.5.6 ``fast_topk`` calls ``torch.max`` (one reduction).  Added to the
    prediction in the "as run" column: the cost model's rules on the kernels the reference launched."""
    from tpkit.perf.forward import kernel_us
    from tpkit.perf.spec import SpecSettings, draft_topk_kernels

    ctx, chain, _ = _ctx(model_id, context, 2, 1, DRAFT_RELEASE)
    tree = SpecSettings(algorithm="EAGLE3", num_steps=1, topk=2, num_draft_tokens=2)
    ver = (0, 5, 6)

    def us(ks):
        return sum(k.count * kernel_us(k, ctx.dev, ctx.impl) for k in ks if k.name != "draft softmax")

    return us(draft_topk_kernels(ctx.draft, tree, batch, version=ver)) - \
        us(draft_topk_kernels(ctx.draft, chain, batch, version=ver))


def _err(pred: float, meas: float) -> str:
    return f"{(pred / meas - 1) * 100:+.1f} %"


def tables(run: dict, kernel: str) -> tuple[list[str], dict]:
    rows = run["rows"]
    have = {r.get("attention_kernel") for r in rows if r["kind"] == "verify"}
    kernel = kernel if kernel in have else "mask"
    dec = {(r["model"], r["batch"]): r for r in rows if r["kind"] == "decode"}
    out = [f"verify attention kernel: {kernel}", "",
           "| model | B | D | T_decode(B) meas / pred µs | err | T_verify meas / pred µs | err | "
           "ratio meas / pred | err | T_decode(B·D) meas µs |",
           "|---|---:|---:|---|---:|---|---:|---|---:|---:|"]
    stats = {"decode": [], "verify": [], "ratio": [], "draft": [], "draft_fc": [], "draft_as_run": [], "attention": []}
    att_lines = ["| model | B | D | verify attention meas / pred µs | err | decode attention (B) meas µs |",
                 "|---|---:|---:|---|---:|---:|"]
    for r in rows:
        if r["kind"] != "verify" or r.get("attention_kernel", "mask") != kernel or r.get("step_us") is None:
            continue
        m, b, t, c = r["model"], r["batch"], r["tokens"], r["context"]
        d = dec.get((m, b))
        if d is None:
            continue
        pd, _ = predict_pass(m, b, 1, c)
        pv, pa = predict_pass(m, b, t, c)
        ratio_m, ratio_p = r["step_us"] / d["step_us"], pv / pd
        bd = dec.get((m, b * t))
        bd_text = f"{bd['step_us']:,.0f}" if bd else "—"
        stats["decode"].append(pd / d["step_us"] - 1)
        stats["verify"].append(pv / r["step_us"] - 1)
        stats["ratio"].append(ratio_p / ratio_m - 1)
        out.append(f"| {m.split('/')[-1]} | {b} | {t} | {d['step_us']:,.0f} / {pd:,.0f} | {_err(pd, d['step_us'])} | "
                   f"{r['step_us']:,.0f} / {pv:,.0f} | {_err(pv, r['step_us'])} | {ratio_m:.3f} / {ratio_p:.3f} | "
                   f"{_err(ratio_p, ratio_m)} | {bd_text} |")
        if r.get("attention_only_us"):
            stats["attention"].append(pa / r["attention_only_us"] - 1)
            att_lines.append(f"| {m.split('/')[-1]} | {b} | {t} | {r['attention_only_us']:,.0f} / {pa:,.0f} | "
                             f"{_err(pa, r['attention_only_us'])} | {d.get('attention_only_us') or 0:,.0f} |")
    draft_lines = ["| draft head | B | topk | rows | measured µs (no fc / fc) | predicted µs (no fc / fc) | err no fc | "
                   "err fc | as run µs (no fc) | err as run |", "|---|---:|---:|---:|---|---|---:|---:|---:|---:|"]
    fc = {(r["model"], r["batch"], r["tokens"]): r for r in rows if r["kind"] == "draft_fc"}
    for r in rows:
        if r["kind"] != "draft" or r.get("step_us") is None:
            continue
        target = r["model"].split(" for ", 1)[1]
        p = predict_draft(target, r["batch"], r["tokens"], r["context"])
        pf = predict_draft(target, r["batch"], r["tokens"], r["context"], fc=True)
        f = fc.get((r["model"], r["batch"], r["tokens"]))
        run = p + (reference_topk1_us(target, r["batch"], r["context"]) if r["tokens"] == 1 else 0.0)
        stats["draft"].append(p / r["step_us"] - 1)
        stats["draft_as_run"].append(run / r["step_us"] - 1)
        if f:
            stats["draft_fc"].append(pf / f["step_us"] - 1)
        draft_lines.append(f"| {target.split('/')[-1]} | {r['batch']} | {r['tokens']} | {r['batch'] * r['tokens']} | "
                           f"{r['step_us']:,.0f} / {f['step_us'] if f else 0:,.0f} | {p:,.0f} / {pf:,.0f} | "
                           f"{_err(p, r['step_us'])} | {_err(pf, f['step_us']) if f else '—'} | {run:,.0f} | "
                           f"{_err(run, r['step_us'])} |")
    return out + [""] + att_lines + [""] + draft_lines, stats


def summary(stats: dict) -> list[str]:
    lines = []
    for key, errs in stats.items():
        if errs:
            inside = sum(abs(e) <= 0.15 for e in errs)
            lines.append(f"{key}: {len(errs)} rows, mean error {statistics.mean(errs) * 100:+.1f} %, max |error| "
                         f"{max(abs(e) for e in errs) * 100:.1f} %, within 15 %: {inside}/{len(errs)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--kernel", default="mask", choices=("flash", "mask"))
    args = ap.parse_args(argv)
    try:
        run = json.loads(Path(args.path).read_text())
    except (OSError, ValueError) as exc:
        print(f"cannot read the spec_reference JSON {args.path!r}: {exc}; give the path of a "
              "bench/spec_reference.py --out file", file=sys.stderr)
        return 2
    global GPU
    from tpkit.hardware.catalog import lookup_gpu

    GPU = lookup_gpu(run.get("machine", {}).get("gpu") or "H200").name  # the run's GPU (the recorded H200 run's default)
    print(f"GPU {GPU} (the run's machine.gpu)\n")
    lines, stats = tables(run, args.kernel)
    print("\n".join(lines))
    print()
    print("\n".join(summary(stats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
