#!/usr/bin/env python3
"""Score tpkit on every validation case and write the validation section of docs/accuracy.md.

    python scripts/validate.py            # print the summary and rewrite docs/accuracy.md between its markers
    python scripts/validate.py --print    # print the section only

Every case of ``tests/validation/cases/{sglang,vllm}.json`` is predicted from its model config, GPU and flags
alone (``tests/validation/harness.py``: the same code for every case), at the nominal and at both ends of its error
band.  The section lists EVERY case: printed value, prediction, error, band, whether the printed value fell inside;
median and p90 of |error| per engine over all scored cases; cases marked ``engine_anomaly`` are scored separately
(and listed); cases tpkit cannot represent yet are listed with the reason; a case marked ``duplicate_of`` another
(the same run recorded twice, ``tests/validation/same_run.py``) is listed as such and not scored.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "validation"))

import harness  # noqa: E402

DOC = ROOT / "docs" / "accuracy.md"
BEGIN, END = "<!-- validate.py: begin -->", "<!-- validate.py: end -->"
LABEL = {"sglang": "SGLang", "vllm": "vLLM"}
TARGET = {"sglang": (0.02, 0.05), "vllm": (0.03, 0.08)}


def _gpu_class(case: dict) -> str:
    name = (case.get("gpu") or case.get("gpu_note") or "").upper()
    for key, cls in (("H100", "H100/H200/H20"), ("H200", "H100/H200/H20"), ("H20", "H100/H200/H20"),
                     ("B200", "B200/GB200"), ("GB200", "B200/GB200"), ("A100", "A100"), ("L40S", "L4/L40S"),
                     ("L4", "L4/L40S"), ("PRO-6000", "RTX PRO 6000"), ("MI300", "MI300X")):
        if key in name:
            return cls
    return "consumer"


def _gpu(case: dict) -> str:
    name = case.get("gpu") or (case.get("gpu_note") or "custom").split(":")[0]
    par = f"tp{case['tp']}" + (f" pp{case['pp']}" if case["pp"] > 1 else "") + \
        (f" dp{case['dp']}" if case["dp"] > 1 else "") + (f" ep{case['ep']}" if case["ep"] > 1 else "")
    return f"{name} {par}"


def _num(x: float, metric: str) -> str:
    return f"{x:.2f}" if metric in ("max_concurrency", "available_kv_gib") else f"{int(x):,}"


def _source(case: dict) -> str:
    if case.get("source_url"):
        return f"[link]({case['source_url']})"
    return "index id (no URL)" if "index" in (case.get("source") or "") else "see cases.json"


def _row(r: harness.Row) -> str:
    c, m = r.case, r.case["printed"]["metric"]
    return (f"| {c['id']} | {c['model'].split('/')[-1][:34]} | {_gpu(c)} | {c['tpkit_engine_version']} | "
            f"{', '.join(c['families'])} | {m.replace('_', ' ')} | {_num(r.printed, m)} | {_num(r.predicted, m)} | "
            f"{r.error * 100:+.1f} % | {_num(r.low, m)} – {_num(r.high, m)} | {'yes' if r.inside else '**no**'} | "
            f"{_source(c)} |")


HEAD = ("| case | model | GPU, layout | rules | family | printed | value | predicted | error | band | inside | "
        "source |\n|---|---|---|---|---|---|---|---|---|---|---|---|")


def section() -> tuple[str, dict]:
    out = [BEGIN, "", "## 6. Validation on public start-ups (issue 11)", "",
           f"Reproduce: `python scripts/validate.py` (no GPU; {date.today().isoformat()}, this repository's "
           "CPU-only test machine). Cases: `tests/validation/cases/{sglang,vllm}.json`, built by "
           "`scripts/build_validation_set.py` from the data helpers' collections of public start-up logs and the "
           "shared set; configs in `tests/validation/configs/`. Each case is predicted from its model config, GPU and "
           "flags alone (`tests/validation/harness.py`, one code path for all), at the nominal and with every "
           "estimated term at its low and high end (the plan's band, §5). Error = (predicted − printed) / printed. "
           "Cases marked `engine_anomaly` (a patched or pre-fix engine) are scored separately; cases tpkit cannot "
           "represent yet are listed with the reason and not scored; a run recorded twice (the same source and "
           "printed run, `tests/validation/same_run.py`) is scored once and its other record listed as "
           "\"duplicate of X\".", ""]
    stats = {}
    headline = ["| engine | scored | median \\|error\\| | p90 \\|error\\| | inside band | target (median / p90 / "
                "inside) | scored apart | listed, not predicted |", "|---|---|---|---|---|---|---|---|"]
    tables = []
    for engine in harness.ENGINES:
        rows, skipped = harness.score(engine)
        normal = [r for r in rows if r.headline]
        odd = [r for r in rows if r.anomaly]
        capped = [r for r in rows if r.capped and not r.anomaly]
        s = harness.summary(normal)
        stats[engine] = {**s, "anomalies": len(odd), "capped": len(capped), "skipped": len(skipped),
                         "listed": len(rows) + len(skipped)}
        med, p90 = TARGET[engine]
        odd_text = "—" if not odd else f"{len(odd)} (median {harness.summary(odd)['median'] * 100:.1f} %)"
        odd_text += f"; capped runs: {len(capped)}" if capped else ""
        headline.append(f"| {LABEL[engine]} | {s['n']} | {s['median'] * 100:.2f} % | {s['p90'] * 100:.1f} % | "
                        f"{s['inside'] * 100:.0f} % ({sum(r.inside for r in normal)}/{s['n']}) | ≤ {med:.0%} / ≤ "
                        f"{p90:.0%} / ≥ 80 % | {odd_text} | {len(skipped)} |")
        # the same figures with each case's own log left out of the start-up fit (harness.score own_log_out)
        own_rows, own_skipped = harness.score(engine, own_log_out=True, reuse=(rows, skipped))
        own_normal = [r for r in own_rows if r.headline]
        o = harness.summary(own_normal)
        refit = sum(1 for r in own_rows if harness.own_log_rows(r.case["id"]))
        stats[engine]["own_log_out"] = {**o, "refit": refit}
        headline.append(f"| {LABEL[engine]} (own log out of the start-up fit: {refit} cases) | {o['n']} | "
                        f"{o['median'] * 100:.2f} % | {o['p90'] * 100:.1f} % | {o['inside'] * 100:.0f} % "
                        f"({sum(r.inside for r in own_normal)}/{o['n']}) | ≤ {med:.0%} / ≤ {p90:.0%} / ≥ 80 % | "
                        f"as above | {len(own_skipped)} |")
        classes: dict[str, int] = {}
        fams: dict[str, int] = {}
        for r in rows:
            classes[_gpu_class(r.case)] = classes.get(_gpu_class(r.case), 0) + 1
            for f in r.case["families"]:
                fams[f] = fams.get(f, 0) + 1
        tables += [f"### 6.{harness.ENGINES.index(engine) + 1} {LABEL[engine]}: every case", "",
                   f"{len(rows) + len(skipped)} cases listed: {len(normal)} scored, {len(odd)} engine anomalies, "
                   f"{len(capped)} capped runs, {len(skipped)} not predicted. Scored by GPU class: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(classes.items())) + "; by family: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(fams.items())) + ".", "", HEAD,
                   *[_row(r) for r in normal], ""]
        if odd:
            tables += ["Engine anomalies (scored apart):", "", HEAD, *[_row(r) for r in odd], ""]
        if capped:
            tables += ["Capped runs (`--max-total-tokens`: the printed value is the flag, so they check only that the "
                       "free memory reaches the cap; scored apart):", "", HEAD, *[_row(r) for r in capped], ""]
        tables += ["Listed, not predicted:", "", "| case | model | GPU | printed | why not | source |",
                   "|---|---|---|---|---|---|"]
        for c in skipped:
            printed = c.get("printed") or {}
            tables.append(f"| {c['id']} | {c['model'][:40]} | {c.get('gpu') or c.get('gpu_note') or '?'} | "
                          f"{printed.get('metric', '—')} {printed.get('value', '')} | {c['why_not']} | {_source(c)} |")
        tables += ["", ""]
    out += headline + ["", "Median and p90 are over every scored case of the engine (no subset; only engine "
                       "anomalies and capped runs, whose printed value is a flag, are scored apart and listed); the band is the "
                       "plan with every estimated term at its ends (start-up terms by GPU family, weights derived from "
                       "a config, vLLM's activation and CUDA-graph estimates). "
                       "The \"own log out\" rows plan each case whose own log is behind used start-up evidence rows "
                       "(`scripts/mine_startup_evidence.py` `evidence_validation_hits`) with a start-up table built "
                       "without those rows (`harness.predict_own_log_out`); every other case as above.", ""]
    out += tables
    out += _weights_table() + [END]
    return "\n".join(out) + "\n", stats


def _weights_table() -> list[str]:
    lines = ["### 6.3 Weights: derived vs printed", "",
             "Where a case prints its weights (vLLM 'Model loading took'; SGLang's load usage = avail before − after "
             "loading), next to tpkit's bytes derived from the config. This sets the weights' ± share in the band "
             "(`tpkit.memory.band`). For vLLM the derived figure is the weights plus the rotary cos/sin caches that "
             "vLLM builds at model init, which 'Model loading took' holds (0.38 GiB for Gemma-4-26B-A4B, a few MiB "
             "for most models), the caching allocator's rounding of the tensors (up to 1 MiB a tensor, "
             "engines/vllm/weight_blocks.py) and what an MLA backend builds inside the load (the absorbed decode "
             "matrices of 0.7.1–0.7.3 V0, the dequantised kv_b_proj of a quantised checkpoint; "
             "engines/vllm/mla.py).", "", "| case | model | quantization | printed GiB | derived GiB | derived − "
             "printed |", "|---|---|---|---|---|---|"]
    for engine in harness.ENGINES:
        for case in harness.load_cases(engine):
            w = case.get("printed_weights_gib")
            if not case["predict"] or not w or case.get("duplicate_of"):  # a run counted once (same_run.py)
                continue
            try:
                model, _, par, opts = harness.inputs(case)
            except Exception:  # noqa: BLE001 — refused inputs are listed in the case tables
                continue
            lines.append(_weights_row(engine, case, w, model, par, opts))
    return lines + ["", "vLLM prints the weights themselves: unquantised within 0.1–1.4 %, FP8 checkpoints within 0.2 %, online FP8 "
                    "(`--quantization fp8` on a bf16 checkpoint) −0.4 % (vl_050, 0.11.0) and −2.9 % (vp_018 / vp_019, "
                    "0.27.1: not explained by the source, see below). SGLang's "
                    "load usage also holds what the model allocates while loading (0.02–0.28 GiB on text models, "
                    "≈ 10 % on the VLMs whose vision tower tpkit does not count).", ""]


def _weights_row(engine: str, case: dict, w: dict, model, par, opts) -> str:
    """One row of §6.3: the printed weights against the plan's, with what each engine's print also holds."""
    from tpkit.models.weights import plan_weights

    if engine == "sglang":
        model, par = _sglang_weights_inputs(model, par, opts)
    plan = plan_weights(model, par, dtype=getattr(opts, "dtype", None),
                        quantization=getattr(opts, "quantization", None),
                        engine="sglang" if engine == "sglang" else None)  # SGLang's Gemma 3 / 4 embedding
    extra = 0.0
    if engine == "sglang":
        plan, extra = _sglang_weights_extra(case, model, par, opts, plan)
    else:
        plan, extra = _vllm_weights_extra(case, model, par, opts, plan)
    d = plan.bytes_per_rank.gib + extra
    return (f"| {case['id']} | {case['model'].split('/')[-1][:34]} | "
            f"{plan.quant.method if plan.quant else '—'} | {w['gib']:.2f} ({w['what'].split()[0]}) | "
            f"{d:.2f} | {d - w['gib']:+.2f} ({(d - w['gib']) / w['gib'] * 100:+.1f} %) |")


def _sglang_weights_inputs(model, par, opts):
    """SGLang's own weights rules: pre-0.4.0 untied lm_head; attention split over tp / dp under DP attention."""
    from dataclasses import replace

    from tpkit.engines.sglang.load import loads_untied_lm_head

    if loads_untied_lm_head(model, opts.engine_version):
        model = replace(model, tie_word_embeddings=False)
    if opts.enable_dp_attention:  # as the plan does (policy.py)
        from tpkit.engines.sglang.versions import attention_dp_size

        dp = attention_dp_size(opts.engine_version, tp=par.tp, dp=par.dp, dp_attention=True)
        par = replace(par, dp=dp, dp_attention=True)
    return model, par


def _sglang_weights_extra(case, model, par, opts, plan):
    """(plan, GiB) with SGLang's load-time extras: int4 packed experts on HIP, the padded expert width, MLA's w_kc /
    w_vc copies, DP-attention replicas."""
    from tpkit.engines.sglang.int4 import int4_applies, int4_weights
    from tpkit.engines.sglang.load import dp_replicated, mla_copies, trtllm_pad

    gpu = harness.gpu_of(case)
    if int4_applies(model, gpu, opts, plan):  # SGLANG_INT4_WEIGHT (engines/sglang/int4.py)
        plan = int4_weights(plan, model, par)
    pad_gib = trtllm_pad(model, par, opts, gpu, plan)[0].gib  # engines/sglang/trtllm_moe.py
    pad_gib += mla_copies(model, par, opts, gpu, plan)[0].gib
    pad_gib += dp_replicated(model, par, opts, plan)[0].gib
    return plan, pad_gib



def _vllm_weights_extra(case, model, par, opts, plan):
    """(plan, GiB): the tower the release does not build left out (engines/vllm/towers.py), and what 'Model loading
    took' also holds, read from the plan's ledger (0 where a plan has none of them)."""
    from tpkit.engines.vllm.policy import tower_weights

    plan = tower_weights(model, opts, plan)
    try:
        from tpkit.engines.registry import get_engine
        from tpkit.engines.vllm.dsv4_profile import BUFFERS_ITEM as DSV4_BUFFERS_ITEM
        from tpkit.engines.vllm.load_lines import (ALLOCATOR_ITEM, BNB_ABSMAX_ITEM, GEMMA4_PLE_BUFFER_ITEM,
                                                   MLA_ABSORBED_ITEM, MLA_KV_B_COPY_ITEM)
        from tpkit.engines.vllm.rocm_fnuz_load import FNUZ_ITEM

        ledger = get_engine("vllm").plan(model, harness.gpu_of(case), par, opts).ledger
        # the rotary cos/sin caches built at model init (load_lines.rotary_cache_bytes), the allocator's rounding
        # (weight_blocks.py), Gemma 4's per-layer-embedding buffer (t4g4), DeepSeek-V4's batched-token buffers
        # (v417), what the MLA backend builds inside the load (0.7.3 _process_weights_after_loading: mla15), nf4's
        # fp32 absmax (rl35), the e4m3fnuz mask ROCm 0.9–0.20 keeps cached in the load print (rocm_fnuz_load.py)
        extra = ledger.get("rotary cos/sin cache").bytes.gib
        held = (ALLOCATOR_ITEM, GEMMA4_PLE_BUFFER_ITEM, DSV4_BUFFERS_ITEM, MLA_ABSORBED_ITEM, MLA_KV_B_COPY_ITEM,
                BNB_ABSMAX_ITEM, FNUZ_ITEM)
        extra += sum(l.bytes.gib for l in ledger.items if l.item in held)
    except Exception:  # noqa: BLE001 — a plan without the line: weights alone
        extra = 0.0
    return plan, extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", action="store_true", help="print the section; do not rewrite the doc")
    args = parser.parse_args(argv)
    text, stats = section()
    for engine, s in stats.items():
        print(f"{LABEL[engine]}: {s['n']} scored, median {s['median']:.2%}, p90 {s['p90']:.2%}, inside band "
              f"{s['inside']:.0%}; {s['anomalies']} anomalies, {s['skipped']} not predicted, {s['listed']} listed")
    for engine, s in stats.items():  # after the shipped lines (`| sed -n 1,2p` still reads those)
        o = s["own_log_out"]
        print(f"{LABEL[engine]} (own log out of the start-up fit): {o['n']} scored, median {o['median']:.2%}, p90 "
              f"{o['p90']:.2%}, inside band {o['inside']:.0%}; {o['refit']} cases planned with their own log out")
    if args.print:
        print(text)
        return 0
    doc = DOC.read_text()
    if BEGIN in doc:
        head, rest = doc.split(BEGIN, 1)
        doc = head + text + rest.split(END, 1)[1].lstrip("\n")
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    DOC.write_text(doc)
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
