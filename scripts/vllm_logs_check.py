#!/usr/bin/env python3
"""tpkit's vLLM plan against real vLLM start-up logs (helper E's staging set, not part of the repo).

    python scripts/vllm_logs_check.py [/work/data/vllm_logs]

For every successful start-up with a config file, a known release and printed tokens, two figures:
  * from-available: the printed "Available KV cache memory" (± its 0.005 GiB rounding) through tpkit's pages,
    groups, token and concurrency rules (``--kv-cache-memory-bytes`` = that value): checks the KV rules alone;
  * end to end (GPU in the catalog only): everything predicted from the config, GPU and flags.
The release of a case without a printed version is the one its log lines point to (``RELEASE`` below, from
each case's ``engine_version_note``).  vl_051 ran EAGLE: it is planned with the SpecForge EAGLE-3 head of
Llama-3.1-8B (one decoder layer with the target's KV geometry, like the EAGLE-1 head of the log).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.errors import TpkitError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

RELEASE = {"vl_003": "0.10.2", "vl_009": "0.20.0", "vl_034": "0.11.0", "vl_051": "0.10.2", "vl_056": "0.8.5",
           "vl_059": "0.8.5", "vl_027": "0.8.2", "vl_068": "0.8.5", "vl_069": "0.8.5"}
"""cases without a printed version: the release their log lines point to (vl_051: ~0.9.1, planned as 0.10.2, the
first release with --kv-cache-memory-bytes; the KV rules are the same)"""
EAGLE3 = Path(__file__).resolve().parent.parent / "tests/engines/data_vllm_issue11/SpecForge--llama3-8B-eagle3.json"


def _options(case: dict, version: str, **extra) -> VllmOptions:
    kw = dict(engine_version=version, max_model_len=case["max_model_len"], block_size=case["block_size"],
              max_num_batched_tokens=case["max_num_batched_tokens"], max_num_seqs=case["max_num_seqs"],
              gpu_memory_utilization=case["gpu_memory_utilization"], **extra)
    if case["id"] == "vl_051":
        kw["speculative_config"] = json.dumps({"method": "eagle3", "model": str(EAGLE3), "num_speculative_tokens": 3})
    if case["id"] == "vl_009":
        kw["max_model_len"] = 131_072  # not in the excerpt; the printed tokens do not depend on it before 0.21
    return VllmOptions(**kw)


def rows(root: Path):
    for case in json.loads((root / "cases.json").read_text()):
        rep = case.get("reported") or {}
        printed = rep.get("kv_tokens")
        version = case["engine_version"] or RELEASE.get(case["id"])
        if not (case["config_file"] and printed and version and case["status"] == "ok"):
            continue
        try:
            gpu, known = lookup_gpu(case["gpu"] or ""), True
        except TpkitError:
            gpu, known = lookup_gpu("H100"), False  # the capacity from the printed available needs no GPU
        cfg = json.loads((root / "configs" / case["config_file"]).read_text())
        model = from_config_dict(cfg.get("config", cfg), name=case["model"], source=case["config_file"])
        par = ParallelSpec(tp=case["tp"] or 1, pp=case["pp"] or 1)
        out = {"id": case["id"], "version": version, "printed": printed}
        try:
            if rep.get("available_kv_cache_gib") is not None and version >= "0.10.2":
                got = [plan_vllm(model, gpu, par, _options(case, version, kv_cache_memory_bytes=Bytes(
                    int((rep["available_kv_cache_gib"] + d) * 2**30)))).kv_tokens for d in (-0.005, 0.005)]
                out["from_available"] = got
            if known:
                out["end_to_end"] = plan_vllm(model, gpu, par, _options(case, version)).kv_tokens
        except TpkitError as exc:
            out["error"] = str(exc)[:120]
        yield out


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/data/vllm_logs")
    print("| case | release | printed tokens | from printed available | end to end | error |")
    print("|---|---|---|---|---|---|")
    for r in rows(root):
        lo_hi = r.get("from_available")
        avail = f"{lo_hi[0]:,}–{lo_hi[1]:,} {'∋' if lo_hi[0] <= r['printed'] <= lo_hi[1] else '∌'}" if lo_hi else "—"
        e2e = r.get("end_to_end")
        err = f"{(e2e - r['printed']) / r['printed'] * 100:+.1f}%" if e2e else r.get("error", "GPU not in the catalog")
        print(f"| {r['id']} | {r['version']} | {r['printed']:,} | {avail} | {f'{e2e:,}' if e2e else '—'} | {err} |")


if __name__ == "__main__":
    main()
