#!/usr/bin/env python3
"""docs/accuracy.md §5 from the start-up table (``python scripts/build_startup_table.py --doc`` calls it): the
cells by GPU family and by NCCL transport / world, the engines' own terms in prose, the band example, and every
evidence row.  Rendering only: every number comes from ``build_startup_table.build`` (split out of that script,
helper ev33, so that deriving and rendering stay under 500 lines each)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_startup_table import (FAMILIES, GIB, NCCL_WORLDS, ROOT, TRANSPORTS, WINDOWS)  # noqa: E402

DOC = ROOT / "docs" / "accuracy.md"
BEGIN, END = "<!-- build_startup_table.py: begin -->", "<!-- build_startup_table.py: end -->"


def _gib(cell: dict) -> str:
    return f"{cell['bytes'] / GIB:.2f} ± {cell['uncertainty_bytes'] / GIB:.2f}"


BAND_EXAMPLE = ("meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100")
"""the plan whose band §5.1 quotes (tests/cli/test_accuracy_s5_figures.py runs the same command)"""


def _band_example() -> str:
    """§5.1's example sentence, from the plan the command prints today (CLI in this interpreter, no torch)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cli_inproc import run_tpkit

    code, out, err = run_tpkit(["plan", *BAND_EXAMPLE, "--json"])
    if code != 0:
        raise SystemExit(f"the §5.1 band example did not plan (exit {code}): {err.strip()}")
    plan = json.loads(out)
    lo, hi = plan["kv_tokens_range"]
    tokens = plan["kv_tokens"]
    band = max(hi - tokens, tokens - lo)
    return (f"`tpkit plan {' '.join(BAND_EXAMPLE)}` prints \"KV cache: {tokens:,} ± {band:,} tokens\" (pinned by "
            "tests/cli/test_accuracy_s5_figures.py)")


def doc_section(table: dict, evidence: dict) -> str:
    """docs/accuracy.md §5: the table, where each cell came from, and every evidence row (one part a function,
    split by round rev33 so that each stays under 60 lines; the text is unchanged)."""
    out = [BEGIN, *_family_table(table), *_nccl_table(table), *_terms_prose(table), *_band_prose(),
           *_evidence_rows(table, evidence)]
    return "\n".join(out + ["", END]) + "\n"


def _family_table(table: dict) -> list[str]:
    """§5's opening paragraph, the CUDA context / cuBLAS table by family and the SM-count model of the context."""
    terms = table["terms"]
    out = ["", "## 5. Start-up costs by GPU family, and the error band (issue 11)", "",
           "Reproduce: `python scripts/build_startup_table.py --doc` (no GPU; 2026-12-01). The table "
           "(`src/tpkit/startup/data/table.json`) is derived by that script from the evidence rows in "
           "`src/tpkit/startup/data/evidence.json` — public start-up logs (SGLang 'Init torch distributed ends. mem "
           "usage' / 'Load weight begin. avail mem'; vLLM 'Free memory on device … on startup', non-torch memory, "
           "profile lines) and tpkit's own 2× H200 step measurement; `tests/startup/test_table.py` checks the "
           "shipped table is what the evidence gives. Values in GiB: nominal ± band; n = samples; a cell without "
           "samples takes its nearest family with a wider band and says so. A cell of one or two samples takes "
           "its term's band floor from the term's own cells of three or more (p90 of how far another sample lies "
           "from one sample, or from the mean of two, relative; `sample_floors`): "
           + "; ".join(f"{t} {f['n1'] * 100:.0f} % / {f['n2'] * 100:.0f} %" for t, f in table["band_floors"].items()
                       if t in ("cuda_context", "cublas", "nccl", "vllm_nontorch_growth")) + " (n = 1 / n = 2).", "",
           "| family | CUDA context | n | cuBLAS | n | note |", "|---|---|---|---|---|---|"]
    for fam in FAMILIES + ("unknown",):
        c, b = terms["cuda_context"][fam], terms["cublas"][fam]
        note = "; ".join(x for x in (c["source"] if c["source"] != "evidence" else "",
                                     ("cuBLAS: " + b["source"]) if b["source"] != "evidence" else "") if x)
        out.append(f"| {fam} | {_gib(c)} | {c['n']} | {_gib(b)} | {b['n']} | {note} |")
    m = table["cuda_context_model"]
    if m["use"]:
        out += ["", f"CUDA context of a family with fewer than {m['below_n']} samples of its own (and of an NVIDIA GPU "
                f"without a family): {m['intercept_bytes'] / GIB:.3f} GiB + {m['bytes_per_resident_thread']:.0f} B × SMs × "
                f"max resident threads per SM, ± {m['uncertainty_bytes'] / GIB:.2f} GiB, fitted across families "
                f"({m['n_gpus']} GPUs, {m['n_samples']} samples; leave-one-family-out mean |error| "
                f"{m['loo_family_mae_gib']:.3f} GiB against {m['loo_family_pooled_mae_gib']:.3f} for the pooled cell); "
                "the table rows above stay for families with more samples, for AMD and for GPUs without an SM count "
                "(§5 \"CUDA context by SM count\")."]
    return out


def _nccl_table(table: dict) -> list[str]:
    """The NCCL cells by transport (and window) and world size."""
    terms = table["terms"]
    out = ["", "| NCCL (init + first collective) | " + " | ".join(f"world {w}" for w in NCCL_WORLDS) + " |",
            "|---|" + "---|" * len(NCCL_WORLDS)]
    for t in TRANSPORTS + tuple(p + t for p in WINDOWS for t in TRANSPORTS if f"{p}{t}:2" in terms["nccl"]):
        out.append(f"| {t} | " + " | ".join(_gib(terms['nccl'][f'{t}:{w}']) + ("" if terms['nccl'][f'{t}:{w}']['n']
                                                                            else " *") for w in NCCL_WORLDS) + " |")
    return out


def _terms_prose(table: dict) -> list[str]:
    """The NCCL table's note and the engines' own terms in prose (SGLang's init and load terms, vLLM's growth)."""
    terms = table["terms"]
    init, init_old, init_new = (terms["sglang_tp1_init"][k] for k in ("all", "<0.5.8", ">=0.5.8"))
    load_old, load_new = (terms["sglang_load_extra"][k] for k in ("<0.5.8", ">=0.5.8"))
    grow = terms["vllm_nontorch_growth"]
    return ["", "\\* no sample at that world size: interpolated in log2(world) between sampled worlds, or the "
            "largest sampled world's cell, with a wider band. NCCL is keyed by transport and world size only (the "
            "samples come from H100/H200/A100/A800/B200 over NVLink and L4/L40S/RTX 4090/RTX 2080 Ti over PCIe); the split "
            f"into init and first collective is the ratio measured on 2× H200 ({table['nccl_init_fraction']:.1%} "
            "init). Each plan reads the rows built from the samples of the quantity its engine's accounting sees "
            "(`nccl_window`): the `init:` rows hold a communicator's init and its 1-element warm-up only (SGLang's "
            "init lines, tpkit's measurement, a vLLM free-memory reading before its profile run): SGLang's plans "
            "(helper ev32) and vLLM's from 0.11, whose snapshot follows the distributed init. The `profile:` rows "
            "hold vLLM's non-torch lines before 0.11, which run from a snapshot before the distributed init to the "
            "end of the profile run and so also hold what the profile's collectives connected: vLLM's plans before "
            "0.11, the DP-MoE group's communicator made inside the profile, and the PCIe bound on the growth row "
            "(helper ev33). A transport without a sample of the window (the profile window over xGMI) takes the "
            "pooled row, which `tpkit.explain.gpuinfer`'s bound also reads.", "",
            f"SGLang's own start-up term (`sglang_process_overhead`): what `init_torch_distributed` allocates besides "
            f"NCCL at tp 1, by release: {_gib(init_old)} GiB up to 0.5.7 ({init_old['n']} rows) and {_gib(init_new)} GiB "
            f"from 0.5.8 ({init_new['n']} rows; all {init['n']} rows pooled, for an unknown release: {_gib(init)}); docs "
            "builds of main switch on 2026-01-20, between the 0.5.7 (2026-01-01) and 0.5.8 (2026-01-23) wheels, and "
            "0.5.8's GroupCoordinator puts a tensor on the GPU for every group (`active_ranks`, not in 0.5.7), the "
            "likely reason the first CUDA allocation and kernel launch now fall inside that line. It replaces the "
            "0.39 GiB \"process overhead\" fitted on one RTX PRO 6000 log: on every GPU with a 'Load weight begin' "
            "line, total − free before weights is the CUDA context plus this term, with no 0.39 GiB left over.", "",
            "SGLang's model load holds its rotary cos/sin cache (max_position × rotary_dim, float32 on CUDA from "
            "0.4.2: layers/rotary_embedding.py, 0.4.2.post1/0.5.9 wheels; model dtype before) and allocates "
            f"{_gib(load_old)} GiB more up to 0.5.7 ({load_old['n']} cases) and {_gib(load_new)} GiB from 0.5.8 "
            f"({load_new['n']} cases; load usage − weights − that cache, H100/B200/L4/RTX 4090/RTX 3090, SGLang "
            "0.3.5–0.5.20): what moved into the init line in 0.5.8 on the tp-1 rows. The SGLang rules charge both "
            "with the weights (`tpkit.engines.sglang.policy`); `load_model` keeps no other buffer. "
            "vLLM ≥ 0.11 (`vllm_nontorch_growth`): non-torch memory grown after the init snapshot beyond "
            "the family's cuBLAS (which tpkit charges as its own term), "
            f"{_gib(grow['tp1'])} GiB at tp 1 ({grow['tp1']['n']} rows), {_gib(grow['tp2'])} GiB at tp × pp = 2 "
            f"({grow['tp2']['n']} rows: 0.10.2 on 2× H200 beyond NCCL's measured init + warm-up, a 0.14-era 2× H100 table; "
            f"NCCL sets up no NVLink SHARP at two GPUs, nvls.cc ncclNvlsInit) and {_gib(grow['tp>2'])} GiB at tp × pp > 2 "
            f"({grow['tp>2']['n']} rows: RTX PRO 6000 tp4, H200 tp8, GB200 tp4). From 0.11 the snapshot follows "
            "the distributed init, so NCCL's communicator and its one-element warm-up all-reduce sit before it; what "
            "grows at tp > 1 is NCCL connecting further channels and protocols at the profile run's first large "
            "collectives (NCCL ≥ 2.22 connects at runtime) and kernel workspaces outside torch's allocator. vLLM "
            "charges it to the KV budget (`memory_profiling` non_torch_increase, ≥ 0.27 inside total_consumed: "
            "utils/mem_utils.py, vllm 0.11.0 / 0.28.0 wheels) and so does tpkit "
            "(`tpkit.engines.vllm.baseline.profile_nontorch_growth`)."]


def _band_prose() -> list[str]:
    """§5.1: how the error band is carried, with the example plan's band."""
    return ["", "### 5.1 The error band", "",
            "Every estimated term carries ± bytes: the start-up terms above (by GPU family), weights derived from a "
            "config (± 1 %, ± 2 % quantised; exact from safetensors headers), vLLM's activation-peak (± 25 %) and "
            "CUDA-graph (± 30 %) estimates. `tpkit.memory.band.with_band` re-plans the same engine with every "
            "estimated term at its low end and at its high end (no engine-specific code: each term resolves itself "
            "at the end being planned), so the band is the sum of the terms' ± carried through the engine's own "
            "arithmetic — a term the engine charges before its snapshot moves nothing. A measured term (the "
            "context `tpkit probe` recorded, or `measured_terms(...)` from a log anchor) has no band. "
            f"{_band_example()} and the JSON has `kv_tokens_range` / `kv_blocks_range` and "
            "`band.estimated_terms`."]


def _evidence_rows(table: dict, evidence: dict) -> list[str]:
    """§5.2: every evidence row, used or not, with what it gives and its source."""
    out = ["", "### 5.2 Evidence rows", "",
            f"{table['rows_used']} rows used, {table['rows_listed'] - table['rows_used']} listed but not used.", "",
            "| row | engine | GPU | family | world | gives | used | source |", "|---|---|---|---|---|---|---|---|"]
    for r in evidence["rows"]:
        gives = ", ".join(f"{d['term']}[{d['key']}]" for d in r["derive"]) or "—"
        used = "yes" if r["use"] else f"no: {r['why_not']}"
        src = f"[{r['source'][:60]}]({r['source_url']})" if r.get("source_url") else r["source"][:90]
        out.append(f"| {r['id']} | {r['engine']} | {r['gpu'][:40]} | {r['family']} | {r.get('world') or '?'} | "
                   f"{gives} | {used} | {src} |")
    return out


def write_doc(text: str) -> None:
    doc = DOC.read_text()
    if BEGIN in doc:
        head, rest = doc.split(BEGIN, 1)
        doc = head + text + rest.split(END, 1)[1].lstrip("\n")
    elif "<!-- validate.py: begin -->" in doc:
        head, rest = doc.split("<!-- validate.py: begin -->", 1)
        doc = head + text + "\n<!-- validate.py: begin -->" + rest
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    DOC.write_text(doc)
