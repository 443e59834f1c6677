"""The EAGLE-3 draft step of ``bench/spec_reference.py`` taken apart on one GPU: the whole step and each of its
parts timed alone under CUDA graphs, plus one torch.profiler kernel list per head (issue 13, helper draft13).

    PYTHONPATH=src python bench/draft_breakdown.py --out draft_breakdown.json
    PYTHONPATH=src python bench/draft_breakdown.py --device cpu --tiny --out t.json     # logic check, no GPU

Only the draft heads are built (perf's EAGLE-3 heads of Llama-3.1-8B and Qwen3-30B-A3B, ``spec_reference.
draft_shapes``: 1 layer, draft vocab 32,000), so the run is short.  Rows: B ∈ {1, 4, 16, 64} × topk ∈ {1, 4, 8}
(the 24 rows of ``docs/runs/spec_h200_2026-12-05.json``), C = 2048 cached tokens.  Per row:

step_ref      ``spec_reference.draft_step`` unchanged (the recorded baseline, re-timed in this run)
step_engine   the step as sglang 0.5.6 runs it where the reference differs: ``logits.float()`` (LogitsProcessor.
              _get_logits), softmax, ``fast_topk`` (``torch.max`` at topk 1, utils/common.py), the ``hot_token_id``
              gather (eagle_worker.py draft_forward), and at topk 1 the decode attention of ``decode_reference``
              (unmasked SDPA over C+1 keys: the target's decode kernel) instead of the masked verify-style SDPA
parts         each captured alone: embed, fc, norms_cat (input_layernorm ‖ hidden_norm + cat), qkv, rope_kv (RoPE
              on q, k + the KV write), attn_mask (the reference's), attn_decode (topk 1), o_res, mlp (post norm,
              gate_up, SiLU·mul, down), final (add + final norm), lm_head, softmax (the reference's, fp32 out),
              float (the cast), softmax32 (softmax of fp32 logits), topk, max (topk 1), hot (gather), glue (topk > 1:
              ``select_top_k_tokens`` of a later step, sglang 0.5.6 speculative/spec_utils.py, + positions.add_)
empty         one graph of 200 one-element adds: µs per kernel node (the launch floor inside a graph)

Checks before timing: graph replay = eager for both steps, the masked attention vs an fp32 softmax reference, the
decode attention = the masked one at topk 1, ``torch.max`` = ``torch.topk(·, 1)``.  Profiles (kernel name →
count, GPU µs) of both steps at (B, topk) = (1, 1) and (64, 8), and the kernels of every part at those rows.
Keep ``NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1`` (set here if unset).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

for _k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS"):
    os.environ.setdefault(_k, "0" if _k == "NCCL_NVLS_ENABLE" else "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import decode_reference as dr  # noqa: E402  (bench/ is not a package)
import spec_reference as sr  # noqa: E402

BATCHES = (1, 4, 16, 64)
TOPKS = (1, 4, 8)
CONTEXT = 2048
PROFILE_ROWS = ((1, 1), (64, 8))
REF_PARTS = ("embed", "norms_cat", "qkv", "rope_kv", "attn_mask", "o_res", "mlp", "final", "lm_head", "softmax", "topk")
"""the parts whose sum is ``step_ref`` (the rest is the graph's glue between them)"""


# ----------------------------------------------------------------------------------------------- timing
def graph_us(fn, device: str, args) -> float | None:
    """µs per replay of ``fn`` captured alone in a CUDA graph: warm-up, then the median of ``repeats`` timings of
    ≥ ~2 ms of replays.  None on CPU."""
    if device == "cpu":
        fn()
        return None
    fn()
    graph, _ = dr.capture(fn)
    for _ in range(args.warmup):
        graph.replay()
    one = dr.time_graph(graph, 2, 1)[0]
    iters = max(args.iters, math.ceil(2000.0 / max(one, 1.0)))
    us = statistics.median(dr.time_graph(graph, iters, args.repeats))
    del graph
    return round(us, 2)


def kernels_of(fn, device: str) -> dict | None:
    """Every GPU kernel of one eager call (torch.profiler): name → [count, µs], total count and µs
    (``decode_reference.kernel_times`` with every name)."""
    return dr.kernel_times(fn, device, top=None, name_chars=90, key="by_name")


# ----------------------------------------------------------------------------------------------- the parts
def decode_attention(q, layer, batch: int, context: int, d: dict):
    """q (B, 1, H, hd) → (B, H·hd): the target's decode attention (``decode_reference.attention``: G query rows
    per KV head, no mask) over ``context`` keys."""
    return dr.attention(q.view(batch, d["heads"], d["head_dim"]), layer["k_cache"], layer["v_cache"], batch,
                        context, d)


def fast_topk(probs, k: int):
    """sglang 0.5.6 utils/common.py ``fast_topk``: ``torch.max`` for k = 1, else ``torch.topk``."""
    if k == 1:
        return torch.max(probs, dim=-1, keepdim=True)
    return torch.topk(probs, k, dim=-1)


def glue_step(topk_p, topk_index, hidden, scores, k: int, positions):
    """One later step's ``select_top_k_tokens`` (sglang 0.5.6 speculative/spec_utils.py, i > 0) + positions.add_."""
    expand = torch.mul(scores.unsqueeze(2), topk_p.reshape(-1, k, k))
    cs_p, cs_index = fast_topk(expand.flatten(start_dim=1), k)
    idx = topk_index.reshape(-1, k * k)
    input_ids = torch.gather(idx, index=cs_index, dim=1).flatten()
    sel = cs_index.flatten() // k + torch.arange(0, hidden.shape[0], step=k, device=hidden.device).repeat_interleave(k)
    positions.add_(1)
    return input_ids, hidden[sel, :], cs_p


def draft_step_engine(tokens, hidden, dw, batch, k, context, rope, bias, d, hot):
    """``spec_reference.draft_step`` with the engine's sampling (float cast, softmax, fast_topk, hot-token gather)
    and, at topk 1, the decode attention."""
    layer, hs = dw.layer, (d["hidden"],)
    h, res = sr.draft_input(tokens, hidden, dw, d)
    if k == 1:
        q = rope_kv(h @ layer["qkv"].t(), layer, batch, 1, context, rope, d)
        a = decode_attention(q, layer, batch, context + 1, d) @ layer["o"].t()
    else:
        a = sr.attention_block(h, layer, batch, k, context, rope, bias, d)
    res = a + res
    x = sr.mlp_block(F.rms_norm(res, hs, layer["post_norm"], dr.EPS), layer, d)
    out = F.rms_norm(x + res, hs, dw.final_norm, dr.EPS)
    logits = (out @ dw.lm_head.t()).float()
    probs = torch.softmax(logits, dim=-1)
    p, i = fast_topk(probs, k)
    return logits, p, hot[i]


def rope_kv(qkv, layer, batch, ntok, context, rope, d):
    """The part of ``spec_reference.attention_block`` between the qkv GEMM and the attention: split, RoPE, KV write."""
    hd, nh, nkv = d["head_dim"], d["heads"], d["kv_heads"]
    q = qkv[:, : nh * hd].view(batch, ntok, nh, hd)
    kk = qkv[:, nh * hd: (nh + nkv) * hd].view(batch, ntok, nkv, hd)
    v = qkv[:, (nh + nkv) * hd:].view(batch, ntok, nkv, hd)
    cos, sin = rope
    q = dr.apply_rope(q, cos, sin)
    kk = dr.apply_rope(kk, cos, sin)
    layer["k_cache"][:batch, :, context: context + ntok] = kk.transpose(1, 2)
    layer["v_cache"][:batch, :, context: context + ntok] = v.transpose(1, 2)
    return q


def parts(dw, d, b: int, k: int, c: int, device: str, gen) -> dict:
    """name → a zero-argument callable for each part, on inputs made once (eager) from the step's own tensors."""
    rows, hsz = b * k, d["hidden"]
    layer, hs = dw.layer, (hsz,)
    tokens = torch.randint(0, d["vocab"], (rows,), device=device, generator=gen)
    own = torch.randn(rows, hsz, device=device, dtype=torch.bfloat16, generator=gen)
    cat3 = torch.randn(rows, 3 * hsz, device=device, dtype=torch.bfloat16, generator=gen)
    rope, bias = sr.rope_rows(d, c, k, device), sr.causal_bias(d, k, c, device)
    emb = F.embedding(tokens, dw.embed)
    h = torch.cat([F.rms_norm(emb, hs, layer["in_norm"], dr.EPS), F.rms_norm(own, hs, layer["hidden_norm"], dr.EPS)],
                  dim=-1)
    qkv = h @ layer["qkv"].t()
    q = rope_kv(qkv, layer, b, k, c, rope, d)
    a = sr.attend(q, layer, b, k, c, bias, d)
    res = a @ layer["o"].t() + own
    x = sr.mlp_block(F.rms_norm(res, hs, layer["post_norm"], dr.EPS), layer, d)
    out = F.rms_norm(x + res, hs, dw.final_norm, dr.EPS)
    logits = out @ dw.lm_head.t()
    probs = torch.softmax(logits, dim=-1, dtype=torch.float32)
    logits32 = logits.float()
    hot = torch.randint(0, d["vocab"], (d["draft_vocab"],), device=device, generator=gen)
    p, idx = fast_topk(probs, k)
    positions = torch.zeros(rows, device=device, dtype=torch.int64)
    out_parts = {
        "embed": lambda: F.embedding(tokens, dw.embed),
        "fc": lambda: cat3 @ dw.fc.t(),
        "norms_cat": lambda: torch.cat([F.rms_norm(emb, hs, layer["in_norm"], dr.EPS),
                                        F.rms_norm(own, hs, layer["hidden_norm"], dr.EPS)], dim=-1),
        "qkv": lambda: h @ layer["qkv"].t(),
        "rope_kv": lambda: rope_kv(qkv, layer, b, k, c, rope, d),
        "attn_mask": lambda: sr.attend(q, layer, b, k, c, bias, d),
        "o_res": lambda: a @ layer["o"].t() + own,
        "mlp": lambda: sr.mlp_block(F.rms_norm(res, hs, layer["post_norm"], dr.EPS), layer, d),
        "final": lambda: F.rms_norm(x + res, hs, dw.final_norm, dr.EPS),
        "lm_head": lambda: out @ dw.lm_head.t(),
        "softmax": lambda: torch.softmax(logits, dim=-1, dtype=torch.float32),
        "float": lambda: logits.float(),
        "softmax32": lambda: torch.softmax(logits32, dim=-1),
        "topk": lambda: torch.topk(probs, k, dim=-1),
        "hot": lambda: hot[idx],
    }
    if k == 1:
        out_parts["attn_decode"] = lambda: decode_attention(q, layer, b, c + 1, d)
        out_parts["max"] = lambda: torch.max(probs, dim=-1, keepdim=True)
    else:
        scores = p.reshape(b, k, k)[:, 0, :].contiguous()          # (b, topk): the previous step's scores
        out_parts["glue"] = lambda: glue_step(p, idx, own, scores, k, positions)
    return out_parts


def empty_node_us(device: str, args) -> float | None:
    """µs per kernel node of a graph of 200 one-element adds (the floor of any kernel inside a graph)."""
    x = torch.zeros(1, device=device)
    us = graph_us(lambda: [x.add_(1.0) for _ in range(200)], device, args)
    return None if us is None else round(us / 200, 3)


# ----------------------------------------------------------------------------------------------- checks
def checks_for(dw, d, c: int, device: str, gen) -> dict:
    out = {"attention_max_abs_err": sr.check_verify_attention(dw.layer, d, device)}
    b = 2
    q = torch.randn(b, 1, d["heads"], d["head_dim"], device=device, dtype=torch.bfloat16, generator=gen)
    masked = sr.attend(q, dw.layer, b, 1, c, sr.causal_bias(d, 1, c, device), d).float()
    plain = decode_attention(q, dw.layer, b, c + 1, d).float()
    out["decode_vs_masked_attention_max_abs"] = float((masked - plain).abs().max())
    probs = torch.softmax(torch.randn(8, d["draft_vocab"], device=device, generator=gen), dim=-1)
    out["max_eq_topk1"] = bool(torch.equal(torch.max(probs, -1, keepdim=True)[1], torch.topk(probs, 1, -1)[1]))
    return out


def engine_vs_ref(ref, eng) -> float:
    """|engine logits − reference logits| / max|reference| (eager; the same inputs, so ≈ 0: the float cast only)."""
    a, b = ref()[0].float(), eng()[0].float()
    return float((a - b).abs().max()) / max(float(a.abs().max()), 1e-12)


def graph_vs_eager(fn, device: str) -> float:
    """|graph replay − eager| / max|eager| of the first output (0 on CPU)."""
    eager = fn()[0].float().clone()
    if device == "cpu":
        return 0.0
    graph, out = dr.capture(fn)
    graph.replay()
    torch.cuda.synchronize()
    err = float((out[0].float() - eager).abs().max()) / max(float(eager.abs().max()), 1e-12)
    del graph
    return err


# ----------------------------------------------------------------------------------------------- run
def run_head(key: str, args, device: str, result: dict) -> None:
    s = dr.shapes_of(dr.MODELS[key], args.tiny)
    d = sr.draft_shapes(s, args.tiny)
    c = args.context
    t0 = time.time()
    dw = sr.DraftWeights(d, device)
    sr.share_kv_pool_draft(dw, d, max(args.batch_list), c + max(args.topk_list) + 1, device)
    gen = torch.Generator(device=device).manual_seed(0)
    checks = checks_for(dw, d, c, device, gen)
    result["checks"][d["id"]] = checks
    print(d["id"], "weights+checks", round(time.time() - t0, 1), "s", checks, flush=True)
    hot = torch.randint(0, d["vocab"], (d["draft_vocab"],), device=device, generator=gen)
    for b in args.batch_list:
        for k in args.topk_list:
            rows = b * k
            tokens = torch.randint(0, d["vocab"], (rows,), device=device, generator=gen)
            rope, bias = sr.rope_rows(d, c, k, device), sr.causal_bias(d, k, c, device)
            own = torch.randn(rows, d["hidden"], device=device, dtype=torch.bfloat16, generator=gen)

            def ref():
                return sr.draft_step(tokens, own, dw, b, k, c, rope, bias, d, k)

            def eng():
                return draft_step_engine(tokens, own, dw, b, k, c, rope, bias, d, hot)

            row = {"model": d["id"], "batch": b, "topk": k, "rows": rows, "context": c,
                   "check_ref_graph_vs_eager": graph_vs_eager(ref, device),
                   "check_engine_graph_vs_eager": graph_vs_eager(eng, device),
                   "check_engine_vs_ref_logits": engine_vs_ref(ref, eng),
                   "step_ref_us": graph_us(ref, device, args), "step_engine_us": graph_us(eng, device, args)}
            fns = parts(dw, d, b, k, c, device, gen)
            row["parts_us"] = {name: graph_us(fn, device, args) for name, fn in fns.items()}
            if device != "cpu":
                row["sum_ref_parts_us"] = round(sum(row["parts_us"][p] for p in REF_PARTS), 2)
                row["glue_ref_us"] = round(row["step_ref_us"] - row["sum_ref_parts_us"], 2)
            if (b, k) in PROFILE_ROWS and device != "cpu":
                row["profile_ref"] = kernels_of(ref, device)
                row["profile_engine"] = kernels_of(eng, device)
                row["profile_parts"] = {}
                for name, fn in fns.items():
                    prof = kernels_of(fn, device)
                    row["profile_parts"][name] = prof
            result["rows"].append(row)
            print(json.dumps({k2: row.get(k2) for k2 in ("model", "batch", "topk", "step_ref_us", "step_engine_us",
                                                        "sum_ref_parts_us", "glue_ref_us")}),
                  json.dumps(row["parts_us"]), flush=True)
    del dw
    if device != "cpu":
        torch.cuda.empty_cache()


def main(argv: list[str] | None = None) -> int:
    ap = dr.run_args(__doc__.split("\n")[0], batches=BATCHES,
                     models_help="comma list of dense, moe (the heads of their targets)")
    ap.add_argument("--topks", default=",".join(map(str, TOPKS)))
    ap.add_argument("--context", type=int, default=CONTEXT)
    args = ap.parse_args(argv)
    args.batch_list = tuple(int(b) for b in args.batches.split(","))
    args.topk_list = tuple(int(k) for k in args.topks.split(","))
    if args.tiny:
        args.context = min(args.context, 64)
    device = args.device
    if device != "cpu" and not torch.cuda.is_available():
        print("no CUDA device: run with --device cpu --tiny for the logic check", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    result = {"command": " ".join(sys.argv if argv is None else ["bench/draft_breakdown.py", *argv]),
              "machine": dr.machine(device), "env": {k: os.environ.get(k) for k in dr.ENV_KEYS + ("NVSHMEM_DISABLE_NVLS",)},
              "context": args.context, "checks": {}, "rows": [], "errors": []}
    result["empty_node_us"] = empty_node_us(device, args)
    print(json.dumps(result["machine"]), "empty node µs", result["empty_node_us"], flush=True)
    for key in args.models.split(","):
        try:
            run_head(key, args, device, result)
        except Exception as exc:  # noqa: BLE001 - record and go on to the next head
            import traceback
            traceback.print_exc()
            result["errors"].append(f"{key}: {type(exc).__name__}: {exc}")
        Path(args.out).write_text(json.dumps(result, indent=1))
    bad = [r for r in result["rows"] if max(r["check_ref_graph_vs_eager"], r["check_engine_graph_vs_eager"],
                                            r["check_engine_vs_ref_logits"]) > 1e-2]
    att = [c for c in result["checks"].values() if c["attention_max_abs_err"] > 2e-2
           or c["decode_vs_masked_attention_max_abs"] > 2e-2 or not c["max_eq_topk1"]]
    result["checks"]["failures"] = len(bad) + len(att)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print("failures", len(bad) + len(att), "errors", len(result["errors"]), flush=True)
    return 1 if bad or att or result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
