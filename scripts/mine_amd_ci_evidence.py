#!/usr/bin/env python3
"""Propose start-up evidence rows from AMD's public SGLang CI logs (michael-amd/sglang-ci), in evidence.json's schema.

    PYTHONPATH=src python scripts/mine_amd_ci_evidence.py --repo /path/to/sglang-ci.git            # print a summary
    PYTHONPATH=src python scripts/mine_amd_ci_evidence.py --repo /path/to/sglang-ci.git --add      # append the rows

The repository's history holds AMD's nightly SGLang server logs on MI300X (image tag ``…-mi30x-``, ``gfx942``) and
MI355X (``…-mi35x-``, ``gfx950``), releases 0.5.3rc0 – 0.5.6.post2, ROCm 6.3 / 7.0 images, 2025-10 – 2025-12.  Every
server log ever committed (``*server*.log``, ``prefill.log``, ``decode.log``; the version of the commit that added it)
is read with the rules of ``scripts/mine_startup_evidence.py`` (helper amdev26, 2026-12-06):

    cuda_context[family] = total − avail − init   (rank 0's 'Load weight begin. avail mem' and 'Init torch
                           distributed ends. mem usage'; total = the catalog total; MI355X has no family: ``unknown``)
    nccl[xgmi:world]     = init, only where no AITER / quick all-reduce is in the log (the miner's rule: tpkit does
                           not size those buffers); releases < 0.5.8, so no 0.5.8 init term is subtracted
    resolution           = 0.01 + half the spread over ranks of each line used

Left out (listed with ``use`` false and why): DP attention / PP (the init line is not one world-size communicator);
another process on the card (a context or init line over 4 × the median of the same GPU, world and image's other
starts: co-tenant memory, not a start-up cost).  Not read at all: the logs of public validation cases and of the
explain corpus (the same file at any commit, or the same bytes at another path), so that ``scripts/validate.py``
stays a held-out score.  Logs on one GPU and world that print the same numbers are one row (``n_observations``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = ROOT / "src" / "tpkit" / "startup" / "data" / "evidence.json"
VALIDATION = ROOT / "tests" / "validation" / "data_public"
CORPUS = ROOT / "tests" / "logs" / "data" / "cases.json"
sys.path.insert(0, str(ROOT / "src"))
GIB = 2**30
REPO = "michael-amd/sglang-ci"
BLOB = f"https://github.com/{REPO}/blob/"
LOGS = re.compile(r"(?:server[^/]*|prefill|decode)\.log$")
TAG = re.compile(r"v(\d+\.\d+\.\d+(?:rc\d+|\.post\d+)?)-(rocm\d+)-(mi3[05]x)-(\d{8})")
GPUS = {"mi30x": ("MI300X", "gfx942"), "mi35x": ("MI355X", "gfx950")}
INIT = re.compile(r"^[^\n]*?(?:TP(\d+)[^\n]*?)?Init torch distributed ends\.(?: elapsed=[\d.]+ s,)? mem usage=(-?\d+\.\d+) GB", re.M)
LOAD = re.compile(r"^[^\n]*?(?:TP(\d+)[^\n]*?)?Load weight begin\. avail mem=(\d+\.\d+) GB", re.M)
OTHER_AR = re.compile(r"AiterCustomAllreduce|QuickAllReduce|CustomAllReduceV2|Using \w+CustomAllreduce")
GROUPED = re.compile(r"enable_dp_attention=True|pp_size=[2-9]")
CO_TENANT = 4.0
"""a context or init line above this multiple of the median of the same GPU, world and image is another process"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, errors="replace",
                          check=True).stdout


def _ranked(rx: re.Pattern, text: str) -> tuple[float, float] | None:
    """(rank 0's value, or the first printed; half the spread over ranks)"""
    by_rank: dict[int, float] = {}
    for m in rx.finditer(text):
        by_rank.setdefault(int(m.group(1)) if m.group(1) else -1, float(m.group(2)))
    if not by_rank:
        return None
    first = next(iter(by_rank.values()))
    return by_rank.get(0, first), (max(by_rank.values()) - min(by_rank.values())) / 2


def _held_out() -> tuple[set[str], set[tuple[str, str]]]:
    """paths of this repository behind a validation case or an explain-corpus log, and their (commit, path)"""
    paths, blobs = set(), set()
    sources = [c for f in sorted(VALIDATION.glob("*_cases.json")) for c in json.loads(f.read_text(encoding="utf-8"))]
    sources += json.loads(CORPUS.read_text(encoding="utf-8"))
    for c in sources:
        m = re.match(rf"{re.escape(BLOB)}([0-9a-f]{{40}})/(.+)$", c.get("source_url") or "")
        if m:
            paths.add(m.group(2))
            blobs.add((m.group(1), m.group(2)))
    return paths, blobs


def scan(repo: Path) -> list[dict]:
    """Every server log of the repository's history that prints the two lines, with what the rules need."""
    from tpkit.hardware.catalog import lookup_gpu
    held_paths, held_blobs = _held_out()
    added: dict[str, str] = {}
    commit = None
    for line in _git(repo, "log", "--all", "--reverse", "--diff-filter=A", "--name-only", "--format=C %H").splitlines():
        if line.startswith("C "):
            commit = line[2:]
        elif line.strip() and LOGS.search(line) and "client" not in line:
            added.setdefault(line.strip(), commit)
    held_hashes = set()
    for c, p in held_blobs:
        try:
            held_hashes.add(_git(repo, "rev-parse", f"{c}:{p}").strip())
        except subprocess.CalledProcessError:
            held_hashes.add(_git(repo, "rev-parse", f"{added[p]}:{p}").strip()) if p in added else None
    logs, seen = [], set()
    for path, c in sorted(added.items()):
        tag = TAG.search(path)
        if tag is None or path in held_paths:
            continue
        blob = _git(repo, "rev-parse", f"{c}:{path}").strip()
        if blob in held_hashes or blob in seen:
            continue
        seen.add(blob)
        try:
            text = _git(repo, "show", f"{c}:{path}")
        except subprocess.CalledProcessError:  # a blob the clone lacks (a partial mirror): not read
            continue
        init, load = _ranked(INIT, text), _ranked(LOAD, text)
        if init is None or load is None:
            continue
        name, arch = GPUS[tag.group(3)]
        printed_arch = re.search(r"gfx9\d\d", text)
        if printed_arch and printed_arch.group(0) != arch:
            continue
        tp = re.search(r"tp_size=(\d+)", text)
        gpu = lookup_gpu(name, by_memory=False)
        logs.append({"path": path, "commit": c, "gpu": name, "arch": printed_arch.group(0) if printed_arch else None,
                     "release": tag.group(1), "image": tag.group(2), "date": tag.group(4),
                     "world": int(tp.group(1)) if tp else None, "init": init, "avail": load,
                     "total": round(int(gpu.total_bytes) / GIB, 2), "other_ar": (OTHER_AR.search(text) or [None])[0],
                     "grouped": bool(GROUPED.search(text)),
                     "pd": (re.search(r"disaggregation_mode='(prefill|decode)'", text) or [None, None])[1]})
    return logs


def rows(logs: list[dict]) -> list[dict]:
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.startup.families import gpu_family
    groups: dict[tuple, list[dict]] = {}
    for lg in logs:
        lg["context"] = lg["total"] - lg["avail"][0] - lg["init"][0]
        groups.setdefault((lg["gpu"], lg["world"], lg["image"], lg["grouped"]), []).append(lg)
    out: dict[tuple, dict] = {}
    for lg in logs:
        peers = groups[(lg["gpu"], lg["world"], lg["image"], lg["grouped"])]
        med_ctx = statistics.median(p["context"] for p in peers)
        med_init = statistics.median(p["init"][0] for p in peers)
        family = gpu_family(lookup_gpu(lg["gpu"], by_memory=False))
        world = lg["world"]
        printed = {"init": lg["init"][0], "total": lg["total"], "avail": lg["avail"][0]}
        derive = [{"term": "cuda_context", "key": family, "expr": "total - avail - init"}]
        notes = [f"'Init torch distributed ends. mem usage' and 'Load weight begin. avail mem' of rank 0 "
                 f"(TP0) of {world}; total = the catalog {lg['gpu']} total; the log prints {lg['arch'] or 'no gfx arch'}"]
        if lg["other_ar"]:
            notes.append(f"NCCL not derived: the init line also holds {lg['other_ar']}, whose buffers tpkit does not size")
        elif world and world > 1:
            derive.append({"term": "nccl", "key": f"xgmi:{world}", "expr": "init"})
            notes.append("no AITER / quick all-reduce in the log: the init line is taken whole as the xgmi cell "
                         "(as sg-issue-25118 and the explain corpus's ROCm 6.3 CI rows)")
        if lg["pd"]:
            notes.append(f"PD disaggregation, the {lg['pd']} server")
        why = None
        if world is None:
            why = "world size (tp_size) not printed"
        elif lg["grouped"]:
            why = "pipeline parallel or DP attention: the init line is not one world-size communicator"
        elif lg["context"] > CO_TENANT * med_ctx or lg["init"][0] > CO_TENANT * med_init:
            why = (f"another process holds or takes memory on the card: context {lg['context']:.2f} GiB / init "
                   f"{lg['init'][0]:.2f} GB where the median of the {len(peers)} {lg['gpu']} tp{world} {lg['image']} "
                   f"starts is {med_ctx:.2f} / {med_init:.2f}, so total − avail − init is not a start-up cost")
        key = (lg["gpu"], world, json.dumps(printed, sort_keys=True), why is None)
        url = f"{BLOB}{lg['commit']}/{lg['path']}"
        if key in out:
            out[key]["n_observations"] += 1
            out[key]["_also"].append(url)
            continue
        res = 0.01 + lg["init"][1] + lg["avail"][1]
        folder = lg["path"].split("/")[-2] + "-" if "/" in lg["path"] else ""
        stem = re.sub(r"[^A-Za-z0-9.]+", "-", folder + Path(lg["path"]).stem)[-60:]
        row = {"id": f"sgci-{lg['gpu'].lower()}-{hashlib.sha256(url.encode()).hexdigest()[:8]}", "engine": "sglang",
               "source": f"{REPO} (AMD's nightly SGLang CI, public repository), committed server log {lg['path']} "
                         f"(added at commit {lg['commit'][:12]}); {stem}",
               "source_url": url, "date": f"{lg['date'][:4]}-{lg['date'][4:6]}-{lg['date'][6:]}",
               "engine_version": f"{lg['release']} ({lg['image']} image)", "gpu": lg["gpu"], "family": family,
               "tp": world, "world": world, "transport": "xgmi" if world and world > 1 else None,
               "printed": printed, "unit": "GB as printed by SGLang (GiB: get_available_gpu_memory divides by 2**30)",
               "derive": derive, "quality": "medium", "n_observations": 1, "resolution_gib": round(res, 4),
               "note": "; ".join(notes) + " (scripts/mine_amd_ci_evidence.py, helper amdev26, 2026-12-06)",
               "use": why is None, "_also": []}
        if why:
            row["why_not"] = why
        out[key] = row
    result = []
    for r in out.values():
        also = r.pop("_also")
        if also:
            r["note"] += f"; the same numbers in {len(also)} more log(s) of the repository"
        result.append(r)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="a git clone (or mirror) of michael-amd/sglang-ci")
    parser.add_argument("--add", action="store_true", help="append the rows to evidence.json (ids not there)")
    args = parser.parse_args(argv)
    if not (args.repo / "HEAD").exists() and not (args.repo / ".git").exists():
        print(f"--repo: {args.repo} is not a git repository; clone https://github.com/{REPO} and pass its path",
              file=sys.stderr)
        return 2
    found = rows(scan(args.repo))
    for r in found:
        gives = ", ".join(f"{d['term']}[{d['key']}]" for d in r["derive"])
        print(f"{r['id']:24} w={r['world']} {'USE' if r['use'] else 'no '} n={r['n_observations']:3} {gives:38} "
              f"{r['printed']} {r.get('why_not', '')[:80]}")
    print(f"{len(found)} rows, {sum(r['use'] for r in found)} usable, "
          f"{sum(r['n_observations'] for r in found)} logs")
    if args.add:
        evidence = json.loads(EVIDENCE.read_text(encoding="utf-8"))
        have = {r["id"] for r in evidence["rows"]}
        evidence["rows"] += [r for r in found if r["id"] not in have]
        EVIDENCE.write_text(json.dumps(evidence, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
