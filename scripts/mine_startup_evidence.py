#!/usr/bin/env python3
"""Propose start-up evidence rows from the explain corpus (tests/logs/data), in evidence.json's schema.

    PYTHONPATH=src python scripts/mine_startup_evidence.py            # print the proposals (JSON) and a summary
    PYTHONPATH=src python scripts/mine_startup_evidence.py --add      # append the new rows to evidence.json

Every corpus log (``cases.json``) is read for the lines a start-up term is derived from, and each proposal uses
the derive expressions of the rows already in ``src/tpkit/startup/data/evidence.json`` (scripts/build_startup_table.py
explains the schema and the terms):

    SGLang  'Init torch distributed ends. mem usage=X GB' (per TP rank) and 'Load weight begin. avail mem=Y GB'
            world 1: sglang_tp1_init[all] and [<0.5.8 / >=0.5.8] = X; cuda_context[family] = total − Y − X
                     (− the 70 MiB forward-stream pool from 0.5.9, as sg_043 / sg_062)
            world > 1: nccl[transport:world] = X − car (legacy custom all-reduce 3 × 8 MiB + Signal where it comes
                     up, as sg_010 / sg_051 / sg_105; on XGMI with 'Using AiterCustomAllreduce' from 0.5.6 the
                     release's HIP all-reduce buffers, tpkit.engines.sglang.allreduce, helper xg27)
                     − nom(sglang_tp1_init, >=0.5.8) from 0.5.8 (what 0.5.8's
                     GroupCoordinator adds to the line at any world); cuda_context = total − Y − X as sg_010
    vLLM    non-torch memory of the profile ('non_torch_memory takes X GiB', '… X GiB for non-torch memory')
            < 0.11, V0 engine: world 1 cublas[family] = X (vl_001); world > 1 nccl = X − nom(cublas) − car (vl_058)
            0.11 – 0.32: cublas[family] = X and vllm_nontorch_growth[tp1] = X − nom(cublas) at world 1 (vl_035);
                     vllm_nontorch_growth[tp2 / tp>2] = X − nom(cublas) at world > 1 (vl_060, vl_032)
            'Free memory on device (F/T GiB) on startup' (not the error): cuda_context = T − F at world 1, or
                     at any world before 0.11 (the snapshot precedes the distributed init, vl_021)

The total of an SGLang log is the catalog's CUDA total of the GPU (as the sg_* rows); vLLM prints its own.
Per-rank values: rank 0's (or the first printed) is the sample, and half the spread across ranks is added to
the print resolution (``resolution_gib``), as sg_051 / sg_105.

Refused (``use`` false, ``why_not``): engine release, GPU, world size or links unknown where the derivation needs
them; hosts that are unusual (WSL2, another process on the card — vLLM's 'Free memory … is less than desired'
error —, an engine patched by Unsloth, several nodes, pipeline parallel or DP attention, NVLS, symmetric memory or
MSCCL++ on); an SGLang NCCL sample on NVLink at world > 2 whose log prints no flags (``sglang_flags_printed``:
those refusals cannot be checked there, helper ev32); and the logs of
public validation cases (tests/validation/data_public/*.json: a validation case names the corpus id, shares its
source URL, or quotes two or more of its numeric lines): "a public validation case's own log …" — kept out so
that scripts/validate.py stays a held-out score; and the logs of ``HELD_OUT``, each with the reason read off its
text.  Logs already behind an evidence row are skipped.  Logs on one named
GPU and world that print the same numbers are one row (``n_observations`` counts them).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
EVIDENCE = ROOT / "src" / "tpkit" / "startup" / "data" / "evidence.json"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))
from startup_validation_logs import evidence_validation_hits, validation_logs  # noqa: E402, F401 — re-exported
GIB = 2**30
CAR_LEGACY_GIB = 0.0234
"""SGLang / vLLM legacy custom all-reduce: 3 × 8 MiB + Signal (tpkit.startup.custom_allreduce), as sg_010, vl_058"""
STREAM_POOL_GIB = 70 * 2**20 / GIB
WHY_VALIDATION = ("a public validation case's own log ({cases}): kept out of the fit so that scripts/validate.py "
                  "stays a held-out score")
HELD_OUT: dict[str, str] = {
    "sg_528": "another process holds memory on the card: the issue's environment block names GPU 0-3 'NVIDIA H100 80GB "
              "HBM3' (CUDA total 79.19 GiB) and at world 1 'Load weight begin. avail mem=75.02 GB' leaves 4.17 GiB "
              "taken before the load, where the hopper context rows take 0.38-1.11 GiB; a sample read on a card that "
              "is not empty is not a start-up cost (helper ev24, 2026-12-06)",
    "vl_987": "another process holds memory on the card: the V0 start that prints 'non_torch_memory takes 0.06GiB' is "
              "the issue's second instance, started while the first (V1, 4,910 MiB in the nvidia-smi it quotes) still "
              "runs ('If I start a second instance ... while the first is still running' ... 'This error doesn't happen "
              "with the V0 engine'); the co-tenant check reads only vLLM's 'less than desired' error, which V0 does "
              "not print (helper ev24, 2026-12-06)",
}
"""corpus logs whose start-up lines the miner reads but that break a rule of the table the text shows only in prose
or outside the lines it parses (another process on the card, seen in an nvidia-smi quote or a total the miner cannot
place): listed with use false and the reason, as any refusal"""

def _ranked_line(rank: str, body: str) -> re.Pattern:
    """A line printing ``body``, with the rank group(s) of ``rank`` when the line's prefix names one."""
    return re.compile(rf"^(?:[^\n]*?(?:{rank})[^\n]*?|[^\n]*?){body}", re.M)


_TP = r"\bTP(\d+)\b"
_WORKER = r"Worker_TP(\d+)|\brank[= ](\d+)"
_INIT = _ranked_line(_TP, r"Init torch distributed ends\.(?: elapsed=[\d.]+ s,)? mem usage=(-?\d+\.\d+) GB")
_LOAD = _ranked_line(_TP, r"Load weight begin\. avail mem=(\d+\.\d+) GB")
_NONTORCH_V0 = _ranked_line(_WORKER, r"non_torch_memory takes (\d+\.\d+) ?GiB")
_NONTORCH_V1 = _ranked_line(_WORKER, r"(\d+\.\d+) GiB for non-torch memory")
_FREE = _ranked_line(_WORKER, r"Free memory on device \((\d+\.\d+)/(\d+\.\d+) GiB\) on startup(.{0,40})")
_CONSUMED = _ranked_line(_WORKER, r"(\d+\.\d+) GiB for consumed memory \(weights \+ non-torch\)")
_LOADING = _ranked_line(_WORKER, r"Model loading took (\d+\.\d+) ?GiB")
_SRC_VERSION = re.compile(r"(?:SGLang|sglang|vLLM|vllm)[ =v]{0,3}(\d+\.\d+\.\d+)")
_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


def _version(text: str | None) -> tuple[int, int, int] | None:
    m = _VERSION.search(text or "")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def _gpu(case: dict, model: dict, text: str):
    """(catalog GpuSpec or None, how it was found)."""
    from tpkit.errors import TpkitError
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.logs.gpu_names import gpu_in
    for name, how in (((model.get("flags") or {}).get("gpu"), "models.json flags (quoted from the source)"),
                      ((case["reported"].get("extra") or {}).get("gpu"), "cases.json")):
        if isinstance(name, str) and name:
            try:
                return lookup_gpu(name, by_memory=False), how
            except TpkitError:
                continue
    for where, blob in (("printed in the log", text), ("named in the case's source", case.get("source") or "")):
        found = gpu_in(blob)
        if found and found[1]:
            return lookup_gpu(found[1], by_memory=False), f"{where} ({found[0]!r})"
    for m in re.finditer(r"\b(MI3\d\dX|H100|H200|B200|A100|L40S|L4)\b", case.get("source") or ""):
        try:
            return lookup_gpu(m.group(1), by_memory=False), f"named in the case's source ({m.group(1)!r})"
        except TpkitError:
            continue
    free = _FREE.search(text)
    if free:
        from tpkit.logs.gpu_names import gpus_with_total
        from tpkit.logs.printed import size_from_text
        names = gpus_with_total(size_from_text(free.group(4), "GiB", meaning="total"))
        if len(names) == 1:
            return lookup_gpu(names[0], by_memory=False), f"the only catalog GPU whose CUDA total prints {free.group(4)} GiB"
    return None, "no GPU name in the log or its case"


def _transport(gpu, world: int, text: str) -> tuple[str | None, str]:
    from tpkit.hardware.gpu import is_amd
    from tpkit.logs.links import read_link_signs
    signs = read_link_signs(text, tp=world)
    if signs is not None and signs.nodes:
        return None, "the TP group spans hosts"
    if is_amd(gpu.vendor):
        return "xgmi", "AMD Instinct board (XGMI)"
    if signs is not None and (signs.pcie or signs.no_p2p):
        return "pcie", "the log prints the custom all-reduce refusal for PCIe / no P2P"
    name = gpu.name.upper()
    if not gpu.nvlink_gbps_per_direction or "PCIE" in name:
        return "pcie", f"{gpu.name} has no NVLink"
    if any(tag in name for tag in ("SXM", "B200", "GB200", "B300", "H200", "H20")):
        return "nvlink", f"{gpu.name} (SXM board, NVSwitch)"
    return None, f"{gpu.name}: NVLink or PCIe board not known"


def _unusual(case: dict, text: str) -> str | None:
    src = (case.get("source") or "") + " " + (case.get("engine_version_note") or "")
    if re.search(r"WSL|microsoft-standard|Docker Desktop", text + src):
        return "WSL2 / Docker Desktop: the Windows desktop holds part of the card, so total − free is not the context"
    if re.search(r"is less than desired GPU memory utilization|used by other processes? (?:on|of) the GPU|"
                 r"other process(?:es)? (?:is|are) using", text):
        return "another process holds memory on the card (co-tenant), so total − free is not the start-up cost"
    if re.search(r"[Uu]nsloth", text + src):
        return "engine patched by Unsloth"
    if re.search(r"GB10|DGX Spark|unified memory", text + src):
        return "unified memory (GB10 / DGX Spark): free memory is shared with the host, so total − free is not the context"
    if re.search(r"pp_size=[2-9]|pipeline_parallel_size=[2-9]|enable_dp_attention=True|enable_nccl_nvls=True", text):
        return "pipeline parallel, DP attention or NVLS on: the init line is not one world-size communicator"
    if re.search(r"enable_symm_mem=True|enable_torch_symm_mem=True|enable_mscclpp=True", text):
        return ("symmetric memory or MSCCL++ on (NCCL_CUMEM_ENABLE=1 / a SymmMemCommunicator / an MSCCL++ "
                "communicator in the init window, sglang 0.5.3 _set_envs_and_config / GroupCoordinator): the init line "
                "is not one NCCL communicator")
    return None


_FLAGS = re.compile(r"ServerArgs\(|(?:launch_server|sglang serve|bench_one_batch|sglang\.bench_\w+)[^\n]*"
                    r"--(?:tp|tp-size|tensor-parallel-size)\b")
"""a printed ServerArgs dump or a launch command with its tp flag: the run's flags are in the log"""


def sglang_flags_printed(text: str) -> bool:
    """Whether an SGLang log prints the run's flags (``_FLAGS``).  On an NVSwitch board at more than two ranks the
    init line depends on flags that print nowhere else: ``--enable-nccl-nvls`` and ``--enable-symm-mem`` set
    ``NCCL_NVLS_ENABLE`` / ``NCCL_CUMEM_ENABLE`` before NCCL starts (sglang 0.5.3 entrypoints/engine.py
    ``_set_envs_and_config``; NVLink SHARP buffers only above two GPUs, NCCL src/transport/nvls.cc ``ncclNvlsInit``),
    ``--enable-torch-symm-mem`` opens a ``SymmMemCommunicator`` in ``GroupCoordinator.__init__`` (0.5.3
    distributed/parallel_state.py), ``--enable-dp-attention`` / ``--pp-size`` add groups: without them printed,
    none of the refusals of ``_unusual`` can be checked (helper ev32)."""
    return bool(_FLAGS.search(text))


def _ranked(matches, value_group: int, rank_groups: tuple[int, ...]) -> tuple[float, float, int] | None:
    """(rank 0's or the first value, half the spread over ranks, ranks seen)."""
    by_rank: dict[int, float] = {}
    first = None
    for m in matches:
        value = float(m.group(value_group))
        rank = next((int(m.group(g)) for g in rank_groups if m.group(g) is not None), None)
        first = value if first is None else first
        by_rank.setdefault(rank if rank is not None else -1, value)
    if first is None:
        return None
    value = by_rank.get(0, first)
    spread = (max(by_rank.values()) - min(by_rank.values())) / 2
    return value, spread, len(by_rank)


def _row(case: dict, *, gpu, family: str, world: int, transport, printed: dict, derive: list, resolution: float,
         note: str, version, why_not: str | None = None) -> dict:
    row = {"id": case["id"], "engine": case["engine"],
           "source": f"explain-corpus log tests/logs/data/{case['file']} ({case['source'][:160]})",
           "source_url": case.get("source_url"), "case_id": case["id"], "date": None,
           "engine_version": case.get("engine_version") or (case.get("engine_version_note") or "")[:80] or None,
           "gpu": gpu.name if gpu is not None else "unknown", "family": family, "tp": world, "world": world,
           "transport": transport, "printed": {k: round(v, 4) for k, v in printed.items()}, "unit": "GiB",
           "derive": derive, "quality": "medium", "n_observations": 1, "resolution_gib": round(resolution, 4),
           "note": note + " (scripts/mine_startup_evidence.py, helper ev15, 2026-12-05)", "use": why_not is None}
    if why_not:
        row["why_not"] = why_not
    return row


def _sglang(case, text, gpu, family, world, version) -> tuple[dict | None, str | None]:
    init = _ranked(_INIT.finditer(text), 2, (1,))
    load = _ranked(_LOAD.finditer(text), 2, (1,))
    if init is None:
        return None, "no 'Init torch distributed ends' line"
    x, spread, ranks = init
    res = 0.01 + spread
    printed, derive, notes = {"init": x}, [], [f"'Init torch distributed ends. mem usage' rank 0 of {ranks} printed"]
    if world == 1:
        derive.append({"term": "sglang_tp1_init", "key": "all", "expr": "init"})
        if version is not None:
            derive.append({"term": "sglang_tp1_init", "key": "<0.5.8" if version < (0, 5, 8) else ">=0.5.8",
                           "expr": "init"})
    if load is not None and gpu is not None:
        stream = world == 1 and version is not None and version >= (0, 5, 9)
        if version is None and x > 0 and world == 1:
            notes.append("context not derived: release unknown, so the 0.5.9 stream pool cannot be placed")
        else:
            printed["total"] = round(int(gpu.total_bytes) / GIB, 2)
            printed["avail"] = load[0]
            res += load[1]
            derive.append({"term": "cuda_context", "key": family,
                           "expr": "total - avail - init" + (" - 70 * 2**20 / GIB" if stream else "")})
            notes.append("total = catalog CUDA total of " + gpu.name)
    if world > 1:
        transport = case["_transport"]
        if transport is None:
            return None, f"links unknown ({case['_transport_how']})"
        if version is None:
            return None, "release unknown: the custom all-reduce and the 0.5.8 init term cannot be placed"
        rocm_car = _rocm_allreduce_gib(gpu, world, version) if transport == "xgmi" and "AiterCustomAllreduce" in text \
            else None
        if rocm_car is None and re.search(r"AiterCustomAllreduce|QuickAllReduce|CustomAllReduceV2|Using \w+CustomAllreduce",
                                          text):
            notes.append("NCCL not derived: the init line also holds an all-reduce implementation whose buffers "
                         "tpkit does not size (" + re.search(r"\w*(?:Custom|Quick)All[Rr]educe\w*", text).group(0) + ")")
            return (_proposal(printed, derive, res, notes) if derive else None), "; ".join(notes[1:])
        # ROCm without AITER's all-reduce: the init line is taken whole, as sg-issue-25118 (xgmi:4)
        if version >= (0, 5, 15) and transport == "nvlink":
            return None, "SGLang ≥ 0.5.15 on NVLink: CustomAllReduceV2 buffers (not the legacy 24 MiB) are in the line"
        if transport == "nvlink" and world > 2 and not sglang_flags_printed(text):
            notes.append("NCCL not derived: the run's flags are not printed (no ServerArgs dump or launch command): on "
                         "an NVSwitch board at more than two ranks NVLS, symmetric memory and extra groups change the "
                         "init line (sglang_flags_printed)")
            return (_proposal(printed, derive, res, notes) if derive else None), notes[-1]
        car = transport == "nvlink" and not re.search(r"disable_custom_all_reduce=True", text)
        if transport == "pcie" and world == 2 and not re.search(r"lacks GPU P2P|disable_custom_all_reduce=True", text):
            return None, "2 PCIe GPUs: whether the custom all-reduce came up (P2P) is not printed"
        expr = "init"
        if car:
            printed["car"] = CAR_LEGACY_GIB
            expr += " - car"
        if rocm_car is not None:
            printed["car"], expr = rocm_car[0], expr + " - car"
            notes.append(rocm_car[1])
        if version >= (0, 5, 8):
            expr += " - nom('sglang_tp1_init', '>=0.5.8')"
        derive.append({"term": "nccl", "key": f"{transport}:{world}", "expr": expr})
        notes.append(f"links: {case['_transport_how']}")
    return _proposal(printed, derive, res, notes), None


def _proposal(printed: dict, derive: list, resolution_gib: float, notes: list[str]) -> dict:
    """``_sglang``'s proposal from what it read (one home of the three returns that built it inline, helper
    rev32)."""
    return {"printed": printed, "derive": derive, "resolution": resolution_gib, "note": "; ".join(notes)}


def _rocm_allreduce_gib(gpu, world: int, version) -> tuple[float, str] | None:
    """(GiB, note) of SGLang's HIP all-reduce buffers for a log that prints 'Using AiterCustomAllreduce', from the
    release's rule (``tpkit.engines.sglang.allreduce.ROCM_RELEASES``: aiter's CustomAllreduce sized by the aiter the
    release's image pins, QuickAllReduce's 2 × 2 GiB from 0.5.9), or None before 0.5.6 (helper xg27)."""
    from tpkit.engines.sglang.allreduce import custom_allreduce_cost, rocm_release
    from tpkit.parallel import ParallelSpec

    release = ".".join(str(x) for x in version)
    if gpu is None or rocm_release(release) is None:
        return None
    cost = custom_allreduce_cost(gpu, ParallelSpec(tp=world), release)
    return round(cost.bytes.bytes / GIB, 4), f"car = the {release} HIP all-reduce buffers: {cost.source}"


def _vllm(case, text, gpu, family, world, version) -> tuple[dict | None, str | None]:
    if version is None:
        return None, "release unknown: where the init snapshot sits (before / after the distributed init) is not known"
    nt = _ranked(_NONTORCH_V0.finditer(text), 3, (1, 2)) or _ranked(_NONTORCH_V1.finditer(text), 3, (1, 2))
    free = [m for m in _FREE.finditer(text) if "less than desired" not in m.group(5)]
    printed, derive, notes, res = {}, [], [], 0.01
    consumed = _ranked(_CONSUMED.finditer(text), 3, (1, 2))
    loading = _ranked(_LOADING.finditer(text), 3, (1, 2))
    if nt is None and consumed is not None and loading is not None:
        # 'consumed memory (weights + non-torch)' − 'Model loading took' also counts torch memory kept after the
        # load (tpkit.startup.terms.vllm_nontorch_growth: 0.25-2.29 GiB at world 1 in 0.26.1-0.31): not non-torch
        notes.append("non-torch not derived: 'consumed memory' − 'Model loading took' also counts torch memory kept "
                     "after the load (0.26.1-0.31, tpkit.startup.terms.vllm_nontorch_growth)")
    if free and (world == 1 or version < (0, 11, 0)):
        f = _ranked(iter(free), 3, (1, 2))
        printed.update(total=float(free[0].group(4)), free=f[0])
        res += f[1]
        derive.append({"term": "cuda_context", "key": family, "expr": "total - free"})
        notes.append("'Free memory on device … on startup'")
    if nt is not None:
        if version >= (0, 33, 0):
            notes.append("non-torch not used: from 0.33 cuBLAS is created before the snapshot")
        else:
            printed["nontorch"] = nt[0]
            nt_expr = "nontorch"
            res = max(res, 0.01 + nt[1])
            notes.append(f"non-torch memory, rank 0 of {nt[2]} printed")
            if version < (0, 11, 0):
                v1 = bool(re.search(r"EngineCore|V1 LLM engine|gpu_worker\.py", text))
                if world == 1:
                    derive.append({"term": "cublas", "key": family, "expr": nt_expr})
                elif v1:
                    notes.append("V1 before 0.11 at world > 1: NCCL and the lazily connected channels are not "
                                 "separable (vl_084 gives the tp2 growth only with the measured nvlink:2 cell)")
                else:
                    transport = case["_transport"]
                    if transport is None:
                        return None, f"links unknown ({case['_transport_how']})"
                    expr = nt_expr + " - nom('cublas', '%s')" % family
                    car = transport in ("nvlink", "xgmi") and world in (2, 4, 6, 8)
                    if transport == "pcie" and world == 2:
                        return None, "2 PCIe GPUs: whether the custom all-reduce came up (P2P) is not printed"
                    if car and not re.search(r"disable_custom_all_reduce=True", text):
                        printed["car"] = CAR_LEGACY_GIB
                        expr += " - car"
                    derive.append({"term": "nccl", "key": f"{transport}:{world}", "expr": expr})
                    notes.append(f"links: {case['_transport_how']}")
            else:
                if world == 1:
                    derive.append({"term": "cublas", "key": family, "expr": nt_expr})
                key = "tp1" if world == 1 else "tp2" if world == 2 else "tp>2"
                derive.append({"term": "vllm_nontorch_growth", "key": key,
                               "expr": nt_expr + " - nom('cublas', '%s')" % family})
    if not derive:
        return None, "; ".join(notes) or "no non-torch or free-memory-on-startup line"
    return {"printed": printed, "derive": derive, "resolution": res, "note": "; ".join(notes)}, None


def mine(evidence: dict | None = None) -> list[dict]:
    """Every corpus log that prints a start-up line, as a proposed row (use false with why_not when refused)."""
    from tpkit.startup.families import gpu_family
    evidence = evidence or json.loads(EVIDENCE.read_text(encoding="utf-8"))
    corpus = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
    models = {e["id"]: e for e in json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]}
    texts = {c["id"]: (DATA / c["file"]).read_text(encoding="utf-8", errors="replace") for c in corpus}
    val = validation_logs(corpus, texts)
    known = {r.get("case_id") for r in evidence["rows"]} | {r["id"] for r in evidence["rows"]}
    known |= set(re.findall(r"\b((?:sg|vl)_\d{3})\b", json.dumps([r["source"] + " " + (r.get("note") or "")
                                                                  for r in evidence["rows"]])))
    rows = []
    for case in corpus:
        text = texts[case["id"]]
        if not re.search(r"Init torch distributed ends|non_torch_memory takes|GiB for non-torch memory|"
                         r"Free memory on device", text):
            continue
        if case["id"] in known:
            continue
        model = models.get(case["id"], {})
        gpu, gpu_how = _gpu(case, model, text)
        family = gpu_family(gpu) if gpu is not None else "unknown"
        tp = (model.get("flags") or {}).get("tp") or case.get("tp")
        world = int(tp) if tp else None
        printed_version = (model.get("flags") or {}).get("engine_version") or case.get("engine_version")
        if not printed_version and (m := _SRC_VERSION.search(case.get("source") or "")):
            printed_version = m.group(1)
        version = _version(printed_version)
        case = {**case, "_transport": None, "_transport_how": "world 1" if world == 1 else f"GPU unknown: {gpu_how}"}
        if gpu is not None and world and world > 1:
            case["_transport"], case["_transport_how"] = _transport(gpu, world, text)
        base = dict(gpu=gpu, family=family, world=world, transport=case["_transport"], version=version)
        why = None
        if case["id"] in val:
            why = WHY_VALIDATION.format(cases=", ".join(val[case["id"]]))
        elif case["id"] in HELD_OUT:
            why = HELD_OUT[case["id"]]
        elif (u := _unusual(case, text)):
            why = u
        elif world is None:
            why = "world size (tp) not printed"
        elif re.search(r"SGLang docs|sgl-project\.github\.io|docs\.sglang\.ai", case.get("source") or ""):
            why = "an SGLang docs-notebook build: the sg-docs-* rows already hold the modes of those builds"
        elif case["status"] != "ok" and not re.search(r"Load weight end|non-torch|non_torch", text):
            why = "the start-up did not reach the lines after the init"
        derived, refusal = ((_sglang if case["engine"] == "sglang" else _vllm)(case, text, gpu, family, world or 1,
                                                                              version))
        if derived is None:
            rows.append(_row(case, printed={}, derive=[], resolution=0.01, note=f"GPU: {gpu_how}",
                             why_not=why or refusal, **base))
            continue
        rows.append(_row(case, printed=derived["printed"], derive=derived["derive"], resolution=derived["resolution"],
                         note=f"GPU: {gpu_how}; " + derived["note"], why_not=why, **base))
    return _merge(rows)


def _merge(rows: list[dict]) -> list[dict]:
    """Logs printing the same numbers on the same named GPU and world size (one host's repeated runs): one row."""
    out: dict[tuple, dict] = {}
    for r in rows:
        key = ((r["engine"], r["gpu"], r["world"], json.dumps(r["printed"], sort_keys=True), r["use"])
               if r["printed"] and r["gpu"] != "unknown" else (r["id"],))
        if key in out:
            out[key]["n_observations"] += 1
            out[key]["note"] += f"; also {r['id']}"
        else:
            out[key] = r
    return list(out.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--add", action="store_true", help="append the proposals to evidence.json (ids not there)")
    parser.add_argument("--validation", action="store_true", help="print the corpus logs that are validation cases")
    args = parser.parse_args(argv)
    evidence = json.loads(EVIDENCE.read_text(encoding="utf-8"))
    if args.validation:
        corpus = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
        texts = {c["id"]: (DATA / c["file"]).read_text(encoding="utf-8", errors="replace") for c in corpus}
        for cid, cases in validation_logs(corpus, texts).items():
            print(cid, " ".join(cases))
        return 0
    rows = mine(evidence)
    for r in rows:
        gives = ", ".join(f"{d['term']}[{d['key']}]" for d in r["derive"]) or "-"
        print(f"{r['id']:8} {r['engine']:6} {r['gpu'][:18]:18} w={r['world']} {str(r['transport']):6} "
              f"{'USE ' if r['use'] else 'no  '} {gives} {r['printed']} {r.get('why_not', '')[:110]}")
    usable = [r for r in rows if r["use"]]
    print(f"{len(rows)} proposals, {len(usable)} usable")
    if args.add:
        # a log merged into another's row (``_merge``: "also <id>" in its note) is in the evidence already
        have = {r["id"] for r in evidence["rows"]} | {i for r in evidence["rows"]
                                                      for i in re.findall(r"also (\w+)", r.get("note") or "")}
        evidence["rows"] += [r for r in rows if r["id"] not in have and r["derive"]]
        EVIDENCE.write_text(json.dumps(evidence, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
