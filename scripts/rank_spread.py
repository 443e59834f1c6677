"""The spread of free memory ACROSS RANKS, measured in every corpus log that prints more than one rank's memory
numbers, plus a few public logs quoted below (docs/accuracy.md §7.2, "Cross-rank spread, measured").

For each log of tests/logs/data (SGLang 'Load weight begin/end … avail mem', 'Memory pool end. avail mem', 'Capture
cuda graph end. avail mem', 'Init torch distributed ends. mem usage'; vLLM 'Available KV cache memory', 'Model
loading took', the start-up free memory, and the per-worker 'GPU KV cache size' lines of 0.8.2–0.11.0), group the
last value each rank prints by figure and PP stage, and report

* ``below rank 0``: rank 0's free memory − the smallest rank's, max over the free-memory figures that print rank 0
  and another rank (for a usage figure: the largest usage − rank 0's);
* ``range``: largest − smallest over the ranks printed, max over the figures;
* ``complete``: some figure is printed by every rank of the group (the smallest rank is then seen, not bounded).

``allowance_stats(rows)`` gives the upper percentiles the explain rule uses (``tpkit.startup.rankspread``):
nearest-rank p90 and the max, with the count, over the complete logs of each engine.

    PYTHONPATH=src python scripts/rank_spread.py [--json]
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
GIB = 2**30

FREE = {"sglang": ("load_begin_avail", "load_end_avail", "pool_end_avail", "graph_end_avail", "available_gpu_mem"),
        "vllm": ("available_kv", "startup_free")}
"""free-memory figures: a rank with less is the tighter one"""
USAGE = {"sglang": ("init_dist_mem_usage",), "vllm": ("weights", "non_torch_memory")}
"""usage figures: a rank with more is the tighter one"""
BUDGET = {"sglang": FREE["sglang"] + USAGE["sglang"], "vllm": ("available_kv",)}
"""the figures whose spread moves the KV budget: every SGLang free-memory figure (the pool is sized from the MIN
over ranks of the free memory before and after the weights, and is equal on every rank, so the spread after the
pool and the graphs is the spread after the weights); vLLM's per-worker 'Available KV cache memory', from which
each worker's 'GPU KV cache size' line is computed (vLLM ≥ 0.11 subtracts this process's own use from the
requested memory, so the start-up free memory of other processes does not reach the budget)"""

SOURCE_FACTS = {
    "sg_018": "2× RTX 3090 (source repository club-3090; consumer cards, PCIe)",
    "sg_022": "tp 16 over 2 nodes (8 GPUs each), DP attention 16 (source thread sglang#6017)",
    "sg_055": "8× RTX PRO 6000 (PCIe); the poster's summary prints 'Memory pool end. avail mem=7.43-7.53 GB [× 8 "
              "GPUs]': the pool is equal on every rank, so free after the weights spreads 0.10 GiB too",
    "sg_061": "8× MI300X (ROCm), DP attention 8 (source thread sglang#7691)",
    "kimi_k25_8x_rtx_pro_6000_sglang": "8× RTX PRO 6000 (PCIe)",
}
"""facts the source threads state that the log lines do not (GPU, nodes); quoted, never used by a rule"""

EXTERNAL = [
    {"log": "dcu-r1-tp8 (public doc)", "engine": "sglang", "world": 8, "nodes": "1 of 2", "gpu": "Hygon DCU (HIP)",
     "link": "—", "dp_attention": False, "figure": "load_end_avail",
     "ranks": {0: 101.38, 1: 101.33, 2: 101.33, 3: 101.34, 4: 101.37, 5: 101.33, 6: 101.36, 7: 101.35},
     "source": "find_string 'TP7] Load weight end', file id 54673115369 (a Chinese deployment note, SGLang with "
               "--attention-backend dcu_mla, DeepSeek-R1-Channel-FP8); 'Memory pool end' TP0 14.15, min 14.10"},
    {"log": "dcu-r1-dpattn8 (public doc)", "engine": "sglang", "world": 8, "nodes": "1 of 2", "gpu": "Hygon DCU (HIP)",
     "link": "—", "dp_attention": True, "figure": "load_begin_avail",
     "ranks": {0: 143.10, 1: 143.05, 2: 143.05, 3: 143.06, 4: 143.09, 5: 143.05, 6: 143.08, 7: 143.07},
     "source": "same note, second run (--enable-dp-attention --dp-size 16 --ep-size 16, 'DP0 TP0 EP0' labels); "
               "'Init torch distributed ends. mem usage' 0.43–0.48"},
]
"""public logs found with the search tools (find_string "TP7] Load weight end"), every printed rank quoted"""


def _cases() -> dict[str, dict]:
    return {c["id"]: c for c in json.loads((DATA / "cases.json").read_text(encoding="utf-8"))}


def _flags() -> dict[str, dict]:
    return {e["id"]: dict(e.get("flags") or {})
            for e in json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]}


def _evidence() -> dict[str, str]:
    """corpus id → the text its entry quotes from the same source beyond the excerpt: models.json's flag evidence and
    where the flags came from (e.g. a Docker image tag '…-rocm720-mi35x-…' printed above the excerpt, sg_021)"""
    out = {}
    for e in json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]:
        quoted = [str(v) for v in (e.get("flags_evidence") or {}).values()] + [str(e.get("flags_from") or "")]
        out[e["id"]] = "\n".join(quoted)
    return out


def _rank_of(key, tp: int | None, engine: str, labels: set[str]) -> int | None:
    """The global rank a record's prefix names; vLLM V0's driver prints without a prefix next to
    'VllmWorkerProcess' / 'RayWorkerWrapper' workers, so there an unprefixed record is rank 0."""
    n = key.index(tp_size=tp)
    if n is not None:
        return n
    if engine == "vllm" and key.label == "main" and any(l.startswith(("VllmWorkerProcess", "RayWorkerWrapper"))
                                                        for l in labels):
        return 0
    return None


def _world(parsed, case: dict, flags: dict) -> tuple[int, int]:
    tp = parsed.run.value("tp") or flags.get("tp") or case.get("tp") or 1
    pp = parsed.run.value("pp") or 1
    return int(tp), int(pp)


def _kv_lines(parsed) -> list[int]:
    """vLLM 0.8.2–0.11.0: the 'GPU KV cache size' lines the engine core prints one per worker, in worker order
    (the first block of consecutive lines)."""
    lines = sorted((a for a in parsed.anchors if a.name == "kv_tokens" and a.group is None and a.count is not None
                    and isinstance(a.count.value, int)), key=lambda a: a.line_no)
    block: list = []
    for a in lines:
        if block and a.line_no - block[-1].line_no > 3:
            break
        block.append(a)
    return [a.count.value for a in block]


def measure_log(path: Path, case: dict, flags: dict, evidence: str = "") -> dict | None:
    from tpkit.logs import parse_log
    from tpkit.logs.links import read_link_signs

    text = path.read_text(encoding="utf-8", errors="replace")
    parsed = parse_log(text)
    engine = case.get("engine") or ("vllm" if "vllm" in str(parsed.engine).lower() else "sglang")
    tp, pp = _world(parsed, case, flags)
    labels = {a.rank.label for a in parsed.anchors}
    figures: dict[tuple[str, int | None], dict] = {}
    for a in parsed.anchors:
        if a.size is None or a.group is not None:
            continue
        if a.name not in FREE.get(engine, ()) and a.name not in USAGE.get(engine, ()):
            continue
        if a.rank.role != "worker" and _rank_of(a.rank, tp, engine, labels) is None:
            continue
        key = (a.name, a.rank.pp)
        figures.setdefault(key, {})[a.rank.label] = (_rank_of(a.rank, tp, engine, labels),
                                                     a.size.value.bytes / GIB)
    per_fig = []
    for (name, stage), ranks in figures.items():
        if len(ranks) < 2:
            continue
        values = [v for _, v in ranks.values()]
        zero = [v for r, v in ranks.values() if r == 0]
        usage = name in USAGE.get(engine, ())
        below0 = None
        if zero:
            below0 = (max(values) - zero[0]) if usage else (zero[0] - min(values))
        per_fig.append({"figure": name + (f" (PP{stage})" if stage is not None else ""), "usage": usage,
                        "n": len(ranks), "below_rank0": below0, "range": max(values) - min(values),
                        "ranks": {lab: round(v, 4) for lab, (_, v) in sorted(ranks.items(), key=lambda t: (
                            t[1][0] if t[1][0] is not None else 99, t[0]))}})
    kv = _kv_lines(parsed) if engine == "vllm" and tp * pp > 1 else []
    if len(kv) > 1:
        per_fig.append({"figure": "GPU KV cache size (tokens, worker order)", "usage": False, "n": len(kv),
                        "below_rank0": None, "range": None, "ranks": {f"line {i}": v for i, v in enumerate(kv)}})
    free_figs = [f for f in per_fig if not f["usage"] and f["range"] is not None]
    if not per_fig:
        return None
    group = tp  # ranks of one PP stage
    nodes = re.search(r"nnodes=(\d+)", text)
    signs = read_link_signs(text, tp=tp)
    link = ("PCIe" if signs and (signs.pcie or signs.no_p2p) else None)
    dp_attn = bool(parsed.run.value("enable_dp_attention") or flags.get("enable_dp_attention")
                   or any("DP" in l and "TP" in l for l in labels))
    ep = bool(flags.get("enable_expert_parallel") or any("EP" in l for l in labels))
    gpu = parsed.run.gpu.value if getattr(parsed.run, "gpu", None) is not None else flags.get("gpu")
    below = [f["below_rank0"] for f in free_figs + [f for f in per_fig if f["usage"]] if f["below_rank0"] is not None]
    budget = [f for f in per_fig if f["figure"].split(" (PP")[0] in BUDGET[engine]]
    b_below = [f["below_rank0"] for f in budget if f["below_rank0"] is not None]
    b_range = [f["range"] for f in budget if not f["usage"] and f["range"] is not None]
    return {"log": path.stem, "engine": engine, "world": tp * pp, "tp": tp, "pp": pp,
            "nodes": int(nodes.group(1)) if nodes else (signs.num_nodes if signs and signs.nodes else None),
            "gpu": gpu, "link": link, "dp_attention": dp_attn, "ep": ep,
            "complete": any(f["n"] >= group for f in free_figs),
            "below_rank0": max(below) if below else None,
            "range": max((f["range"] for f in free_figs), default=None),
            "budget": {"below_rank0": max(b_below) if b_below else None, "range": max(b_range) if b_range else None,
                       "complete": any(f["n"] >= group for f in budget if not f["usage"])},
            "figures": per_fig, "facts": SOURCE_FACTS.get(path.stem, ""), "platform": platform_of(text, gpu, evidence),
            "free_before_init": free_before_init(parsed, tp),
            "source": case.get("source_url") or case.get("source") or ""}


def measure() -> list[dict]:
    cases, flags, evidence = _cases(), _flags(), _evidence()
    rows = []
    for path in sorted(DATA.glob("**/*.log")):
        if path.parent.name == "synthetic":  # built from a walk-through's numbers, not measured on a machine
            continue
        cid = path.stem if path.parent.name != "validation" else f"validation_{path.stem}"
        case = cases.get(cid) or cases.get(path.stem) or {}
        row = measure_log(path, case, flags.get(cid, flags.get(path.stem, {})),
                          evidence.get(cid, evidence.get(path.stem, "")))
        if row is not None:
            row["log"] = cid
            rows.append(row)
    for ext in EXTERNAL:
        v = ext["ranks"]
        rows.append({"log": ext["log"], "engine": ext["engine"], "world": ext["world"], "tp": ext["world"], "pp": 1,
                     "nodes": ext["nodes"], "gpu": ext["gpu"], "link": ext["link"],
                     "dp_attention": ext["dp_attention"], "ep": ext["dp_attention"], "complete": True,
                     "below_rank0": v[0] - min(v.values()), "range": max(v.values()) - min(v.values()),
                     "budget": {"below_rank0": v[0] - min(v.values()), "range": max(v.values()) - min(v.values()),
                                "complete": True},
                     "figures": [{"figure": ext["figure"], "usage": False, "n": len(v),
                                  "below_rank0": v[0] - min(v.values()), "range": max(v.values()) - min(v.values()),
                                  "ranks": {f"TP{r}": x for r, x in v.items()}}],
                     "facts": "", "source": ext["source"], "external": True,
                     "platform": platform_of("", ext["gpu"]), "free_before_init": None})
    return rows


def _p90(values: list[float]) -> float:
    """Nearest-rank 90th percentile."""
    s = sorted(values)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)]


def deployment(row: dict) -> str:
    """The deployment a log comes from, so that one host's repeated runs count once: a GitHub repository's committed
    files → the repository; an issue / pull request → its thread; a stored file → its index id; else the log."""
    src = row.get("source") or ""
    m = re.search(r"github\.com/([^/]+/[^/]+)/(?:blob|tree|raw)/", src)
    if m:
        return f"repo:{m.group(1)}:{row['world']}"
    m = re.search(r"github\.com/[^/]+/[^/]+/(?:issues|pull)/\d+", src)
    if m:
        return m.group(0)
    m = re.search(r"(?:index id|file id)\D{0,3}(\d{6,})", src)
    return f"index:{m.group(1)}" if m else f"log:{row['log']}"


def allowance_stats(rows: list[dict]) -> dict:
    """{engine: {"below_rank0"|"range"|"range_world2"|"range_world_gt2": (p90, max, n, logs at the max)}} of the
    budget figures (``BUDGET``) over
    the complete logs (every rank of the group printed for one of them), rounded to the print resolution
    (0.01 GiB), one sample per deployment (``deployment``: the largest of its logs; n counts deployments)."""
    out: dict = {}
    for engine in ("sglang", "vllm"):
        done = [r["budget"] | {"log": r["log"], "world": r["world"], "deployment": deployment(r)} for r in rows
                if r["engine"] == engine and r["budget"]["complete"]]
        stats = {}
        for what, key, keep in (("below_rank0", "below_rank0", None), ("range", "range", None),
                                ("range", "range_world2", lambda w: w == 2),
                                ("range", "range_world_gt2", lambda w: w > 2)):
            per: dict[str, tuple[float, str]] = {}  # one sample per deployment: its largest
            for r in done:
                if r[what] is not None and (keep is None or keep(r["world"])):
                    v = (round(r[what], 2), r["log"])
                    per[r["deployment"]] = max(per.get(r["deployment"], v), v, key=lambda x: x[0])
            vals = list(per.values())
            if not vals:
                continue
            top = max(v for v, _ in vals)
            stats[key] = (_p90([v for v, _ in vals]), top, len(vals), [l for v, l in vals if v == top])
        out[engine] = stats
    return out


ROCM_SIGN = re.compile(r"\brocm\b|\bhip\b|\bgfx9[0-9a-f]{2}\b|\baiter\b|\bMI[23]\d\d[XA]?\b|\bInstinct\b|\bHygon\b|"
                       r"\bDCU\b|\brccl\b", re.IGNORECASE)
"""a log's own sign of an AMD / HIP platform: ROCm, HIP, a gfx9xx target, aiter (the word alone: SGLang's CUDA
server_args print 'enable_aiter_allreduce_fusion'), an Instinct MI2xx / MI3xx name, a Hygon DCU, RCCL"""


NOT_A_SIGN = "Only CUDA, HIP and XPU support AWQ currently."
"""SGLang's import-time warning of a process that sees no GPU (srt/layers/quantization/awq.py, the module's last
``else`` branch, 0.5.9 wheel): it names HIP on any platform (sg_961: a CPU-only Ray actor of a CUDA run; helper gs32a)"""


NPU_SIGN = re.compile(r"\bAscend\b|\btorch_npu\b|\bNPU\b|\b910B\d?\b|\bCANN\b|\bHCCL\b")
"""a log's own sign of a Huawei Ascend NPU (sg_484: four Ascend 910B3 ranks): neither SGLang's CUDA nor its ROCm
build, so neither platform's statistic"""


def platform_of(text: str, gpu, evidence: str = "") -> str:
    """"npu" where the log or its entry's quoted evidence shows an Ascend NPU (``NPU_SIGN``); "rocm" where the log, the
    GPU its entry names, or the evidence its entry quotes from the same source (``_evidence``: an image tag, a command)
    shows an AMD / HIP platform (``ROCM_SIGN``); else "cuda" (SGLang's default build; the logs without a sign are
    NVIDIA runs or name no GPU)."""
    name = str(gpu or "")
    text = (text + "\n" + evidence).replace(NOT_A_SIGN, "")
    if NPU_SIGN.search(text) or NPU_SIGN.search(name):
        return "npu"
    if ROCM_SIGN.search(name) or name.upper().startswith("MI") or ROCM_SIGN.search(text):
        return "rocm"
    return "cuda"


def free_before_init(parsed, tp: int) -> float | None:
    """The largest over the ranks that print both of 'Load weight begin. avail mem' + 'Init torch distributed ends.
    mem usage' (GiB): the rank's free memory before ``init_torch_distributed`` less what it lost between SGLang's
    pre sample and 'Load weight begin' (``tpkit.explain.sgrocm``); None where no rank prints both."""
    from tpkit.explain.sgrocm import rank_sums

    both = [(b.bytes + i.bytes) / GIB for b, i in rank_sums(parsed).values()]
    return max(both) if both else None


def _host(row: dict, rows: list[dict]) -> str:
    """``deployment(row)``, split by GPU model where one deployment's logs name two or more (michael-amd/sglang-ci's
    tp-8 runs come from an MI300X node and an MI355X node: two hosts)."""
    dep = deployment(row)
    gpus = {str(r["gpu"]) for r in rows if r.get("gpu") and deployment(r) == dep}
    return f"{dep}:{row['gpu']}" if len(gpus) > 1 and row.get("gpu") else dep


def platform_stats(rows: list[dict]) -> dict:
    """{platform: {"below_rank0"|"range": (p90, max, n, logs at the max, deployments)}} of SGLang's budget figures
    over the complete logs of each platform (``platform_of``), one sample per deployment and GPU (a repository's
    runs on two GPU models are two hosts), as ``allowance_stats`` takes them."""
    out: dict = {}
    for plat in ("rocm", "cuda"):
        done = [r["budget"] | {"log": r["log"], "dep": _host(r, rows)}
                for r in rows if r["engine"] == "sglang" and r["budget"]["complete"] and r.get("platform") == plat]
        stats = {}
        for what in ("below_rank0", "range"):
            per: dict[str, tuple[float, str]] = {}
            for r in done:
                if r[what] is not None:
                    v = (round(r[what], 2), r["log"])
                    per[r["dep"]] = max(per.get(r["dep"], v), v, key=lambda x: x[0])
            if per:
                top = max(v for v, _ in per.values())
                stats[what] = (_p90([v for v, _ in per.values()]), top, len(per),
                               [l for v, l in per.values() if v == top], sorted(per))
        out[plat] = stats
    return out


def free_before_init_stats(rows: list[dict]) -> dict:
    """{GPU: (largest free memory before the distributed init, n logs, logs at it)} over the ROCm logs that name
    their GPU and print a rank's 'Load weight begin' and 'Init torch distributed ends' (``free_before_init``),
    rounded to the print step: the smallest HIP context + process seen on that GPU model."""
    per: dict[str, list[tuple[float, str]]] = {}
    for r in rows:
        if r["engine"] == "sglang" and r.get("platform") == "rocm" and r.get("gpu") and r.get("free_before_init"):
            per.setdefault(str(r["gpu"]), []).append((round(r["free_before_init"], 2), r["log"]))
    out = {}
    for gpu, vals in sorted(per.items()):
        top = max(v for v, _ in vals)
        out[gpu] = (top, len(vals), [l for v, l in vals if v == top])
    return out


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def table(rows: list[dict]) -> str:
    head = ("| log | engine | world | nodes | GPU | link | DP attn / EP | every rank | below rank 0 (GiB) | "
            "range (GiB) | per-rank numbers (GiB; tokens for the vLLM lines) |\n|---|---|---|---|---|---|---|---|---|"
            "---|---|\n")
    lines = []
    for r in rows:
        figs = "; ".join(f"{f['figure']}: " + ", ".join(f"{k} {v:g}" for k, v in f["ranks"].items())
                         for f in r["figures"])
        facts = f" ({r['facts']})" if r["facts"] else ""
        lines.append(f"| {r['log']} | {r['engine']} | {r['world']} | {r['nodes'] or '—'} | {r['gpu'] or '—'} | "
                     f"{r['link'] or '—'} | {'DP attn' if r['dp_attention'] else '—'}"
                     f"{' / EP' if r['ep'] else ''} | {'yes' if r['complete'] else 'no'} | "
                     f"{_fmt(r['below_rank0'])} | {_fmt(r['range'])} | {figs}{facts} |")
    return head + "\n".join(lines)


def main(argv: list[str]) -> int:
    rows = measure()
    if "--json" in argv:
        print(json.dumps({"rows": rows, "stats": allowance_stats(rows), "platform": platform_stats(rows),
                          "free_before_init": free_before_init_stats(rows)}, indent=1, default=str))
        return 0
    print(table(rows))
    print()
    for engine, stats in allowance_stats(rows).items():
        for what, (p90, top, n, at) in stats.items():
            print(f"{engine} {what}: p90 {p90:.2f} GiB, max {top:.2f} GiB ({', '.join(at)}), n = {n} complete logs")
    for plat, stats in platform_stats(rows).items():
        for what, (p90, top, n, at, deps) in stats.items():
            print(f"sglang {plat} {what}: p90 {p90:.2f} GiB, max {top:.2f} GiB ({', '.join(at)}), n = {n} "
                  f"deployments: {'; '.join(deps)}")
    for gpu, (top, n, at) in free_before_init_stats(rows).items():
        print(f"sglang rocm free before the distributed init, {gpu}: max {top:.2f} GiB over {n} logs ({', '.join(at)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
