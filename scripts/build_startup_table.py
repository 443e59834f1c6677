#!/usr/bin/env python3
"""Derive tpkit's start-up cost table from its evidence rows (no hand-typed number in the table).

    python scripts/build_startup_table.py          # writes src/tpkit/startup/data/table.json
    python scripts/build_startup_table.py --check  # exits 1 when table.json is not what the evidence gives

Input: ``src/tpkit/startup/data/evidence.json`` — every row used (and every row looked at but not used, with
why), each with its source, the numbers as printed and which start-up term it gives (``derive``).

Terms and keys:
    cuda_context     by GPU family (``tpkit.startup.families``)
    cublas           by GPU family (cuBLAS/cuBLASLt handles + workspace, and the small buffers a first GEMM brings)
    nccl             by transport and world size (``nvlink:8``, ``pcie:4``): communicator init + first collective
    sglang_tp1_init  SGLang's ``init_torch_distributed`` at world 1 (what it allocates besides NCCL)
    sglang_load_extra     what SGLang's model load allocates beyond the parameters (load usage − weights)
    vllm_nontorch_growth  non-torch memory vLLM (≥ 0.11) finds grown after its init snapshot beyond the family's
                          cuBLAS (charged as its own term), "tp1" / "tp2" / "tp>2" (tp × pp)

Statistic of one cell (samples = the rows' derived values, unweighted, one per row):
    nominal  the median; a direct tpkit measurement of the cell replaces it when it lies inside the band
    band     n ≥ 3: the larger distance from the nominal to the 10th / 90th percentile; n ≤ 2: the largest
             distance to a sample; plus the samples' median resolution (print rounding, rank spread, the band
             of a term subtracted on the way); at least 0.02 GiB, 10 % of the nominal at n ≥ 3, and at n = 1 / 2 the
             term's derived floor (below) × |nominal|
One- and two-sample floors (``sample_floors``, helper band26): how far a cell's next sample lies from what one or
two samples of it give, measured on the term's own cells that have n ≥ 3 samples (the pooled keys ``all`` /
``unknown`` left out).  n = 1: for every ordered pair (i, j) of samples of such a cell, |s_j − s_i| / |s_i| (the
cell's nominal IS its one sample, so this is the relative error of that nominal on another sample of the same
cell); the floor is the 90th percentile of those ratios.  n = 2: for every pair {i, j} and every third sample k,
|s_k − mean(s_i, s_j)| / |mean(s_i, s_j)|; the floor is their 90th percentile.  Each ordered pair / triple counts
once (a cell with more samples gives more observations).  Relative, not absolute: the one-sample cells the floor
serves span 0.01 GiB (cuBLAS) to 8.3 GiB (RCCL over xGMI), and the costs scale with the hardware (buffers × channels
× peers, threads × SMs), so an absolute spread measured on 0.1–2 GiB cells would say nothing of an 8 GiB one.  A
sample within its resolution of zero is no denominator (its ratio would be print rounding over nothing).  Per term,
not pooled: the CUDA context, cuBLAS and NCCL vary for different reasons (driver, workspace, transport).  A term
without a cell of n ≥ 3 (with samples above their resolution) takes its samples of every key pooled (the spread
between keys: wider, as it should be without evidence within a cell); a term without any usable pair is an error.
The CUDA-context model (below) and the n ≥ 3 cells keep their own statistic; a fallback family or NCCL world takes
its neighbour's band, now derived, with the same factor as before (docs/accuracy.md §5, helper band26).
CUDA context by resident threads (``cuda_context_model``): context = a + b × SMs × max resident threads per SM,
least squares over one point per GPU (the median of its samples; NVIDIA GPUs of the catalog with an SM count and a
listed compute capability, ``tpkit.hardware.sm``).  Its band is the 90th percentile of the leave-one-family-out
residuals of every sample (each family's samples predicted from a fit on the other families) plus their median
resolution.  It replaces the cell of a family with fewer than ``MODEL_BELOW_N`` samples of its own (and of a GPU
without a family) when its leave-one-family-out error is no larger than the pooled cell's (``use``);
``tpkit.startup.terms.cuda_context`` evaluates it for the GPU.
A family without a sample takes the nearest family's cell (``NEAREST``) with 1.5 × its band (at least the band
of all families pooled), and says so.  ``unknown`` (a GPU without a family: custom totals, unknown vendors) is
the pool of every sample of the term.  NCCL world sizes without a sample are interpolated in log2(world) between
the nearest worlds with samples (band: 1.25 × the larger band), or take the largest world's cell with 1.5 × its
band beyond it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "tpkit" / "startup" / "data"
CATALOG = ROOT / "src" / "tpkit" / "hardware" / "data" / "gpus.json"
sys.path.insert(0, str(ROOT / "src"))
from tpkit.hardware.gpu import is_nvidia  # noqa: E402 — the one home of vendor tests
from tpkit.hardware.sm import max_threads_per_sm  # noqa: E402 — pure module, no table read
GIB = 2**30

FAMILIES = ("turing", "ampere", "ampere-consumer", "ada", "hopper", "blackwell", "blackwell-consumer", "cdna3")
NEAREST = {
    "turing": ("ampere-consumer", "ada", "ampere"),
    "ampere": ("ampere-consumer", "ada", "hopper"),
    "ampere-consumer": ("ampere", "ada"),
    "ada": ("ampere-consumer", "ampere", "hopper"),
    "hopper": ("blackwell", "ada"),
    "blackwell": ("hopper", "blackwell-consumer"),
    "blackwell-consumer": ("blackwell", "ada", "hopper"),
    "cdna3": ("hopper", "blackwell"),
}
"""family → the families whose cell it falls back to, nearest first (same vendor and closest architecture)"""
TERMS = ("sglang_tp1_init", "cublas", "cuda_context", "nccl", "sglang_load_extra", "vllm_nontorch_growth")
"""derivation order: a term may subtract the nominal of a term before it"""
NCCL_WORLDS = (2, 3, 4, 5, 6, 7, 8, 16, 32, 64)
TRANSPORTS = ("nvlink", "pcie", "xgmi")
MODEL_BELOW_N = 3
"""families with fewer samples of their own than this take the CUDA-context model (when it is used)"""
MEASURED_SPLIT = ("tpkit-h200x2-steps", "free_after_context", "free_after_init_process_group", "free_after_first_allreduce")
"""the NCCL total is split into init and first-collective in the ratio measured on 2× H200"""


def _percentile(values: list[float], q: float) -> float:
    xs = sorted(values)
    if len(xs) == 1:
        return xs[0]
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


POOLED_KEYS = ("all", "unknown")
"""keys that pool the samples of other keys (not cells of their own): left out of the floors' ratios"""
FLOOR_Q = 0.9
"""the floors' percentile: the same coverage the n ≥ 3 cells' band aims at (their 10th / 90th percentile)"""


def _ratios(values: list[float], resolutions: list[float]) -> tuple[list[float], list[float]]:
    """(n = 1 ratios, n = 2 ratios) of one group of samples (module docstring)."""
    one, two = [], []
    for i, (si, ri) in enumerate(zip(values, resolutions)):
        for j, sj in enumerate(values):
            if i != j and abs(si) > ri:
                one.append(abs(sj - si) / abs(si))
        for j in range(i + 1, len(values)):
            mean = (si + values[j]) / 2
            if abs(mean) <= max(ri, resolutions[j]):
                continue
            two += [abs(values[k] - mean) / abs(mean) for k in range(len(values)) if k not in (i, j)]
    return one, two


def sample_floors(term: str, by_key: dict[str, list[dict]]) -> dict:
    """The term's n = 1 and n = 2 band floors (fractions of the nominal) from its own multi-sample cells."""
    cells = {k: v for k, v in sorted(by_key.items()) if k not in POOLED_KEYS and len(v) >= 3}
    one, two = [], []
    for group in cells.values():
        a, b = _ratios([s["value"] for s in group], [s["resolution"] for s in group])
        one += a
        two += b
    how = f"its cells with n ≥ 3 ({', '.join(cells)})"
    if not one or not two:  # no cell of n ≥ 3 with samples above their resolution: the keys pooled
        pooled = [s for k, v in sorted(by_key.items()) if k not in POOLED_KEYS for s in v]
        one, two = _ratios([s["value"] for s in pooled], [s["resolution"] for s in pooled])
        how = "no cell with n ≥ 3 samples above their resolution: its samples of every key pooled"
    if not one or not two:
        raise ValueError(f"start-up term {term}: no two samples to derive its one-sample band floor from "
                         f"({how}); add evidence rows with a value above their resolution")
    return {"n1": _percentile(one, FLOOR_Q), "n2": _percentile(two, FLOOR_Q), "pairs": len(one), "triples": len(two),
            "from": how}


def cell(samples: list[dict], floors: dict | None = None) -> dict:
    """Nominal and band (GiB) of one table cell from its samples; ``floors``: the term's ``sample_floors``."""
    values = [s["value"] for s in samples]
    n = len(values)
    nominal = statistics.median(values)
    if n >= 3:
        spread = max(_percentile(values, 0.9) - nominal, nominal - _percentile(values, 0.1))
        how = "median; band to the 10th/90th percentile"
    else:
        spread = max(abs(v - nominal) for v in values)
        how = "median; band to the farthest sample"
    band = spread + statistics.median(s["resolution"] for s in samples)
    if n >= 3:
        frac, said = 0.10, "10 % of the nominal"
    else:
        if floors is None:
            raise ValueError(f"a cell with {n} sample(s) needs its term's derived floors (sample_floors)")
        frac = floors[f"n{n}"]
        said = (f"{frac * 100:.0f} % of the nominal: p90 of how far another sample of the term's multi-sample "
                f"cells lies from {'one sample' if n == 1 else 'the mean of two'}")
    floor = frac * abs(nominal)
    if band < max(floor, 0.02):
        band = max(floor, 0.02)
        how += f"; band floor ({said}, ≥ 0.02 GiB)"
    measured = [s for s in samples if s.get("measured")]
    if measured and abs(measured[0]["value"] - nominal) <= band:
        nominal = measured[0]["value"]
        how = how.replace("median", "tpkit's measurement (inside the logs' band)", 1)
    return {"nominal_gib": nominal, "band_gib": band, "n": n, "rows": [s["row"] for s in samples], "how": how,
            "samples_gib": [round(v, 4) for v in values]}


class Table:
    """Cells computed so far, with ``nom(term, key)`` for the expressions of later terms."""

    def __init__(self) -> None:
        self.cells: dict[str, dict[str, dict]] = {t: {} for t in TERMS}
        self.used_band = 0.0

    def nom(self, term: str, key: str) -> float:
        entry = self.cells[term][key]
        self.used_band = max(self.used_band, entry["band_gib"])
        return entry["nominal_gib"]


def _samples(rows: list[dict], term: str, table: Table) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for row in rows:
        if not row["use"]:
            continue
        for d in row["derive"]:
            if d["term"] != term:
                continue
            table.used_band = 0.0
            names = {**row["printed"], "GIB": GIB, "nom": table.nom}
            value = eval(d["expr"], {"__builtins__": {}}, names)  # noqa: S307 — repo data, arithmetic only
            res = row["resolution_gib"] + table.used_band
            out.setdefault(d["key"], []).append({"value": value, "resolution": res, "row": row["id"],
                                                 "measured": d.get("measured", False)})
    return out


def _family_cells(term: str, by_key: dict[str, list[dict]], floors: dict) -> dict[str, dict]:
    cells = {k: {**cell(v, floors), "source": "evidence"} for k, v in by_key.items() if k != "unknown"}
    pool = cell([s for v in by_key.values() for s in v], floors)
    pool["source"] = "no GPU family: every sample of the term pooled"
    for fam in FAMILIES:
        if fam in cells:
            continue
        near = next((f for f in NEAREST[fam] if f in cells and cells[f]["source"] == "evidence"), None)
        if near is None:
            cells[fam] = {**pool, "source": f"no evidence for {fam} or its neighbours: all families pooled"}
            continue
        base = cells[near]
        cells[fam] = {**base, "band_gib": max(1.5 * base["band_gib"], pool["band_gib"]), "fallback": near,
                      "how": base["how"] + f"; {near}'s cell, band ×1.5 (≥ the pooled band)",
                      "source": f"no evidence for {fam}: nearest family {near}, wider band"}
    cells["unknown"] = pool
    return cells


INIT_WINDOW_PREFIX = "init:"
"""key prefix of the NCCL cells built from the rows whose sample is a communicator's init and its first (1-element)
collective (``nccl_window`` "init"): SGLang's plans read them (helper ev32, then keyed ``sglang:``), and so do vLLM's
from 0.11, whose snapshot follows the distributed init (``tpkit.startup.table.nccl_entry(..., window="init")``,
helper ev33)"""
PROFILE_WINDOW_PREFIX = "profile:"
"""key prefix of the NCCL cells built from vLLM's non-torch lines before 0.11 (``nccl_window`` "profile"): what vLLM
before 0.11 charges for NCCL, what the DP-MoE group's communicator made inside the profile holds, and what bounds the
later growth over PCIe (``nccl_entry(..., window="profile")``, helper ev33)"""
WINDOWS = {INIT_WINDOW_PREFIX: "init", PROFILE_WINDOW_PREFIX: "profile"}


def nccl_window(row: dict) -> str:
    """Which quantity a row's NCCL sample is: ``"profile"`` or ``"init"``.

    ``"profile"``: a vLLM row whose sample is the printed non-torch figure less cuBLAS (and the custom all-reduce).
    From 0.6.6.post1 to 0.10.2 that figure runs from a snapshot taken before the distributed init to the end of the
    profile run: V0 ``worker/worker.py Worker.init_device`` reads ``init_gpu_memory`` (0.6.6.post1) or takes
    ``baseline_snapshot = MemorySnapshot()`` (0.7.1, 0.8.5) before ``init_worker_distributed_environment``, and
    ``determine_num_available_blocks`` reads ``non_torch_increase`` when ``memory_profiling`` exits after
    ``profile_run``; V1 ``v1/worker/gpu_worker.py Worker.init_device`` takes ``init_snapshot`` before it too (0.10.2;
    ``determine_available_memory``).  So it holds the communicator's init and warm-up and every channel the
    profile's large collectives connected.  From 0.11.0 the snapshot follows the distributed init (0.11.0
    ``gpu_worker.py init_device``) and the miner derives no NCCL sample from it (``vllm_nontorch_growth``).

    ``"init"``: every other row — SGLang's 'Init torch distributed ends. mem usage' (sglang 0.5.2 / 0.5.3
    ``ModelRunner.init_torch_distributed``: before − after ``init_distributed_environment`` +
    ``initialize_model_parallel``, whose ``PyNcclCommunicator.__init__`` runs ``ncclCommInitRank`` and one
    1-element all-reduce), tpkit's own step measurement (init_process_group + first all-reduce), and a vLLM free-memory
    reading taken before ``profile_run`` (``free_memory_pre_profile``, V0 ``determine_num_available_blocks``)."""
    if row["engine"] == "vllm" and any(d["term"] == "nccl" and "nontorch" in d["expr"] for d in row["derive"]):
        return "profile"
    return "init"


def _nccl_cells(by_key: dict[str, list[dict]], floors: dict) -> dict[str, dict]:
    cells: dict[str, dict] = {}
    for transport in TRANSPORTS:
        known = {int(k.split(":")[1]): {**cell(v, floors), "source": "evidence"} for k, v in by_key.items()
                 if k.startswith(transport + ":")}
        if not known:
            continue
        for world in NCCL_WORLDS:
            key = f"{transport}:{world}"
            if world in known:
                cells[key] = known[world]
                continue
            below = [w for w in known if w < world]
            above = [w for w in known if w > world]
            if below and above:
                a, b = max(below), min(above)
                t = (math.log2(world) - math.log2(a)) / (math.log2(b) - math.log2(a))
                ca, cb = known[a], known[b]
                cells[key] = {"nominal_gib": ca["nominal_gib"] + t * (cb["nominal_gib"] - ca["nominal_gib"]),
                              "band_gib": 1.25 * max(ca["band_gib"], cb["band_gib"]), "n": 0, "rows": ca["rows"] + cb["rows"],
                              "how": f"interpolated in log2(world) between worlds {a} and {b}; band 1.25 × the larger",
                              "source": f"no sample at world {world}: interpolated"}
            else:
                near = max(below) if below else min(above)
                base = known[near]
                cells[key] = {**base, "band_gib": 1.5 * base["band_gib"], "n": 0,
                              "how": base["how"] + f"; world {near}'s cell, band ×1.5",
                              "source": f"no sample at world {world}: world {near}'s cell, wider band"}
    return cells


def _ols(xs: list[float], ys: list[float]) -> tuple[float, float]:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def context_model(rows: list[dict], by_key: dict[str, list[dict]], catalog: dict[str, dict]) -> dict:
    """CUDA context = a + b × resident threads (SMs × max threads per SM), fitted on one point per GPU, with the
    leave-one-family-out residuals of every sample against the pooled cell's (see the module docstring)."""
    gpu_of = {r["id"]: r["gpu"] for r in rows}
    points: dict[str, dict] = {}
    samples = []
    for fam, ss in by_key.items():
        for s in ss:
            g = catalog.get(gpu_of[s["row"]])
            per_sm = max_threads_per_sm(tuple(g["compute_capability"])) if g and g.get("compute_capability") else None
            if not g or not is_nvidia(g.get("vendor")) or not g.get("sm_count") or per_sm is None:
                continue
            threads = g["sm_count"] * per_sm
            samples.append({**s, "family": fam, "gpu": g["name"], "threads": threads})
            points.setdefault(g["name"], {"gpu": g["name"], "family": fam, "sm_count": g["sm_count"],
                                          "threads_per_sm": per_sm, "threads": threads, "values": []})
            points[g["name"]]["values"].append(s["value"])
    for p in points.values():
        p["context_gib"] = statistics.median(p["values"])
    every = [s for ss in by_key.values() for s in ss]

    def fit(pts: list[dict]) -> tuple[float, float]:
        return _ols([p["threads"] for p in pts], [p["context_gib"] for p in pts])

    loo, loo_pool = [], []
    for fam in sorted({s["family"] for s in samples}):
        a, b = fit([p for p in points.values() if p["family"] != fam])
        pool = statistics.median(s["value"] for s in every if s not in by_key[fam])
        for s in (s for s in samples if s["family"] == fam):
            loo.append({"row": s["row"], "family": fam, "gpu": s["gpu"], "observed_gib": round(s["value"], 4),
                        "model_gib": round(a + b * s["threads"], 4), "residual_gib": round(s["value"] - a - b * s["threads"], 4),
                        "pooled_residual_gib": round(s["value"] - pool, 4)})
            loo_pool.append(s["value"] - pool)
    a, b = fit(list(points.values()))
    abs_res = [abs(x["residual_gib"]) for x in loo]
    band = _percentile(abs_res, 0.9) + statistics.median(s["resolution"] for s in samples)
    mae = sum(abs_res) / len(abs_res)
    mae_pool = sum(abs(x) for x in loo_pool) / len(loo_pool)
    return {"intercept_bytes": round(a * GIB), "bytes_per_resident_thread": b * GIB,
            "uncertainty_bytes": round(band * GIB), "below_n": MODEL_BELOW_N, "use": mae <= mae_pool,
            "n_gpus": len(points), "n_samples": len(samples),
            "loo_family_mae_gib": round(mae, 4), "loo_family_pooled_mae_gib": round(mae_pool, 4),
            "how": (f"least squares over {len(points)} GPUs (median of each GPU's samples, {len(samples)} samples, "
                    "public validation logs left out as in the table); band: 90th percentile of the |leave-one-"
                    "family-out residuals| plus the samples' median resolution"),
            "source": ("context = a + b × SMs × max resident threads per SM: the driver sizes the context's local "
                       "memory as max threads per SM × SMs × per-thread size (NVIDIA developer forum 'Local memory "
                       "management', t/289339 answer 9; cuCtxSetLimit CU_LIMIT_STACK_SIZE); threads per SM from the "
                       "CUDA C++ Programming Guide (tpkit.hardware.sm)"),
            "points": [{k: (round(v, 4) if isinstance(v, float) else v) for k, v in p.items() if k != "values"}
                       for p in sorted(points.values(), key=lambda p: p["threads"])],
            "leave_one_family_out": loo}


def build(evidence: dict) -> dict:
    rows = evidence["rows"]
    table = Table()
    floors = {}
    for term in TERMS:
        by_key = _samples(rows, term, table)
        floors[term] = f = sample_floors(term, by_key)
        if term == "nccl":
            table.cells[term] = _nccl_cells(by_key, f)
            for prefix, window in WINDOWS.items():  # each engine's cells from the rows of its quantity only
                own = _nccl_cells(_samples([r for r in rows if nccl_window(r) == window], term, table), f)
                table.cells[term].update({prefix + k: c for k, c in own.items()})
        elif term in ("sglang_tp1_init", "sglang_load_extra", "vllm_nontorch_growth"):  # engine extras
            table.cells[term] = {k: {**cell(v, f), "source": "evidence"} for k, v in sorted(by_key.items())}
        else:
            table.cells[term] = _family_cells(term, by_key, f)
        if term == "cuda_context":
            catalog = {g["name"]: g for g in json.loads(CATALOG.read_text())["gpus"]}
            model = context_model(rows, by_key, catalog)
    steps = next(r for r in rows if r["id"] == MEASURED_SPLIT[0])["printed"]
    init = steps[MEASURED_SPLIT[1]] - steps[MEASURED_SPLIT[2]]
    total = steps[MEASURED_SPLIT[1]] - steps[MEASURED_SPLIT[3]]
    digest = hashlib.sha256(json.dumps(evidence, sort_keys=True).encode()).hexdigest()[:16]
    terms = {t: {k: _bytes(c) for k, c in sorted(cells.items())} for t, cells in table.cells.items()}
    return {"schema": "Built by scripts/build_startup_table.py from evidence.json (do not edit by hand). bytes: the nominal; "
                      "uncertainty_bytes: ± band; n: samples; rows: evidence row ids; how: the statistic; source: evidence, "
                      "fallback (nearest family) or interpolation.",
            "evidence_sha256_16": digest, "nccl_init_fraction": init / total,
            "rows_used": sum(1 for r in rows if r["use"]), "rows_listed": len(rows), "terms": terms,
            "band_floors": {t: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in f.items()}
                            for t, f in floors.items()},
            "cuda_context_model": model}


def _bytes(c: dict) -> dict:
    out = {"bytes": round(c["nominal_gib"] * GIB), "uncertainty_bytes": round(c["band_gib"] * GIB),
           "n": c["n"], "rows": c["rows"], "how": c["how"], "source": c["source"]}
    if "samples_gib" in c and c["n"]:
        out["samples_gib"] = c["samples_gib"]
    if "fallback" in c:
        out["fallback"] = c["fallback"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when table.json differs from what the evidence gives")
    parser.add_argument("--doc", action="store_true", help="also rewrite docs/accuracy.md §5 from the table")
    args = parser.parse_args(argv)
    evidence = json.loads((DATA / "evidence.json").read_text())
    table = build(evidence)
    if args.doc:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from startup_table_doc import doc_section, write_doc

        write_doc(doc_section(json.loads(json.dumps(table)), evidence))
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    path = DATA / "table.json"
    if args.check:
        if not path.exists() or path.read_text() != text:
            print("table.json is stale: run python scripts/build_startup_table.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
