"""Round pf37 (issue 13, session 37): two `tpkit perf` leads read, no model change (helper pf37, 2026-12-07).

docs/accuracy.md §4.3 "Perf leads, round pf37".  The tests pin the facts the round's "nothing sourced" rests on, so a
later change that breaks one is seen:

1. Long context on a hybrid model (s36b_jcartu_q36_rtx6k_tp2, Qwen3.6-27B-FP8): tpkit reads the KV of the 16 full-
   attention layers only (the 48 Gated DeltaNet layers read their fixed state), in bf16 (the source's "BF16 KV"),
   once per request.  The measured plain step grows with context 3–7× slower than that: the benchmark sends one
   prompt to every stream and vLLM's prefix caching maps them to the same KV blocks, but vLLM 0.20.1 reads them per
   request (cascade attention off).  Pricing the shared prefix once per step (the what-if) turns three signs wrong.
2. Near-parity rows on the H100: the non-attention part of a verify at M = 96–256 GEMM rows is priced like the
   decode's (the H100 reference runs, ``bench/pass_parts_by_m.py``); moving rows 135–139 by the measured errors
   leaves every sign as it is.
"""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_perf_published_rows import DATA, ROOT, bench  # noqa: F401 (the published rows, the bench script fixture)

SOURCE = "s36b_jcartu_q36_rtx6k_tp2"
HARNESS_SOURCES = (SOURCE, "p13_q35_rtx6k_matrix")   # llm_decode_bench.py: one prompt for every stream, prefix caching on


def _numbered(source: str) -> list[tuple[int, dict]]:
    return [(i, r) for i, r in enumerate(DATA["rows"], 1) if r["source"] == source]


def test_hybrid_kv_read_counts_the_full_attention_layers_only(bench):
    """Qwen3.6-27B (64 layers, ``full_attention_interval`` 4) at TP 2: the plain step's attention reads 16 layers ×
    requests × (context + 1) × 2 KV heads × (K + V) × 256 × 2 B; the 48 linear layers read their recurrent state,
    whatever the context."""
    from tpkit.perf import plan
    from tpkit.perf.kernels import Batch
    from tpkit.perf.work import forward_kernels

    row = next(r for _, r in _numbered(SOURCE))
    ctx = plan._context(bench._request(row))
    spec = ctx.req.model
    assert spec.kinds.count("full") == 16 and spec.kinds.count("linear") == 48
    assert ctx.kv_bytes == 2 and row["kv_cache_dtype"] == "auto" and "BF16 KV" in DATA["sources"][SOURCE]
    kernels = {}
    for context in (1024, 33024):
        ks = forward_kernels(spec, ctx.shard, Batch(sequences=16, context=context), ctx.impl, quant=spec.quant,
                             kv_bytes=ctx.kv_bytes)
        kernels[context] = {k.name: k.count * k.bytes for k in ks}
    assert kernels[33024]["attention"] == 16 * 16 * 33025 * 2 * 2 * 256 * 2
    assert kernels[33024]["linear-attention state"] == kernels[1024]["linear-attention state"]


def test_measured_plain_step_grows_far_slower_than_per_request_kv_reads(bench):
    """Every long-context row of the source against its batch's context-1k row: measured step growth ÷ predicted
    step growth is 0.16–0.27 (bound 0.14–0.32; the predicted growth is the per-request bf16 KV read), at 8, 16 and
    32 requests."""
    short = {r["batch"]: (bench.predict(r), r) for _, r in _numbered(SOURCE) if r["context"] == 1024}
    ratios = []
    for _, r in _numbered(SOURCE):
        if r["context"] == 1024:
            continue
        p0, r0 = short[r["batch"]]
        grown_meas = r["batch"] / r["base_tok_s"] - r0["batch"] / r0["base_tok_s"]
        grown_pred = (bench.predict(r).baseline.step_us - p0.baseline.step_us) / 1e6
        ratios.append(grown_meas / grown_pred)
    assert len(ratios) == 6
    assert all(0.14 <= x <= 0.32 for x in ratios), ratios


def test_shared_prefix_read_once_what_if_turns_signs_wrong(bench, monkeypatch):
    """The what-if not kept: the harness's shared prompt (the context but each stream's last 1,024 tokens) read from
    memory once per step on the two llm_decode_bench sources (the per-block streaming bound kept).  The s36b rows
    492–496 come nearer, but row 279 turns wrong (and 490 and 493 did too until the lead set the source's FlashInfer
    backend on the s36b rows at merge, session 37: with it they stay right)."""
    from tpkit.perf import work

    original = work._attention

    def once(spec, shard, batch, impl, kind, kv_bytes, mode="decode", kv_splits=0):
        out = original(spec, shard, batch, impl, kind, kv_bytes, mode, kv_splits)
        if spec.mla is not None or kind in ("linear", "none", "sliding"):
            return out
        seqs = -(-batch.sequences // batch.dp)
        ctx = batch.context + batch.tokens_per_sequence
        shared = max(0, batch.context - 1024)
        f = (shared + seqs * (ctx - shared)) / (seqs * ctx)
        return [dataclasses.replace(k, bytes=k.bytes * f) if k.kind == "attention" else k for k in out]

    before = {i: bench.predict(DATA["rows"][i - 1]).speculative.speedup for i in (279, 490, 492, 493)}
    monkeypatch.setattr(work, "_attention", once)
    after = {i: bench.predict(DATA["rows"][i - 1]).speculative.speedup for i in before}
    for i in before:
        assert DATA["rows"][i - 1]["source"] in HARNESS_SOURCES
    meas = {i: bench.measured_speedup(DATA["rows"][i - 1]) for i in before}
    for i in (490, 493):
        assert (before[i] > 1) == (after[i] > 1) == (meas[i] > 1), (i, before[i], after[i])
    for i in (279,):
        assert (before[i] > 1) == (meas[i] > 1) and (after[i] > 1) != (meas[i] > 1), (i, before[i], after[i])
    assert abs(after[492] / meas[492] - 1) < abs(before[492] / meas[492] - 1) - 0.15


def _parts(path: str) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "pass_parts_by_m.py"), *path.split()],
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_verify_gemms_at_96_to_256_rows_are_priced_like_the_decode_on_h100():
    """The H100 Llama-3.1-8B reference runs (context 512 at B 8–256, context 2048 at B 1–512): the non-attention
    part of a verify at M = 96–256 is priced −5.8 … +1.6 %, the decode's at M ≤ 64 −4.8 … +0.6 %: no compute-bound
    price missing from the verify."""
    runs = "docs/runs/spec_h100_llama_c512_2026-12-06.json docs/runs/spec_h100_llama_2026-12-05.json"
    out = _parts(" ".join(str(ROOT / p) for p in runs.split()))
    assert "verify M 96-320: 8 rows, error -5.8 … +1.6 %; decode M <= 64: 14 rows, error -4.8 … +0.6 %" in out


def test_eagle3_t3_rows_keep_their_sign_with_the_measured_gemm_errors(bench):
    """Rows 135–139 (SGLang 0.4.4.post2, Llama-3.1-8B EAGLE 3/1/4 on one H100, batch 24–64, context 512) are the
    c512 reference run's shapes.  Scaling each row's predicted plain step and verify (their non-attention parts) by
    the run's measured / predicted non-attention at M = B and M = 4B leaves every predicted speed-up above 1 (the
    measured ones are 0.88–0.99): the GEMM price is not what turns them."""
    sys.path.insert(0, str(ROOT / "bench"))
    import pass_parts_by_m

    run = json.loads((ROOT / "docs" / "runs" / "spec_h100_llama_c512_2026-12-06.json").read_text())
    scale = {(x["kind"], x["batch"]): x["measured_us"] / x["predicted_us"] for x in pass_parts_by_m.rows(run)}
    for i in range(135, 140):
        row = DATA["rows"][i - 1]
        assert (row["gpu"], row["context"], row["num_draft_tokens"]) == ("H100", 512, 4)
        r = bench.predict(row)
        parts = dict(r.speculative.parts_us)
        step_att = r.breakdown["baseline"]["by_kind_us"].get("attention", 0.0)
        step = step_att + (r.baseline.step_us - step_att) * scale[("decode", row["batch"])]
        verify_na = parts["verify"] - parts["verify attention (in verify)"]
        cycle = r.speculative.cycle_us + verify_na * (scale[("verify", row["batch"])] - 1)
        moved = r.speculative.speedup * (step / r.baseline.step_us) / (cycle / r.speculative.cycle_us)
        assert bench.measured_speedup(row) < 1 < moved, (i, moved)
