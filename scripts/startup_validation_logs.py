"""Which corpus logs and evidence rows are a public validation case's own log: the held-out half of
``scripts/mine_startup_evidence.py`` (kept out of the start-up fit so that scripts/validate.py stays a held-out score).

Split from that script mechanically by helper tidy33 (2026-12-07) to keep both under 500 lines; the miner, the
validation harness (tests/validation/harness.py) and the tests reach these through the miner's names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "logs" / "data"
VALIDATION = ROOT / "tests" / "validation" / "data_public"

CORPUS_ID = r"\b((?:sg|vl|case)_\d{3,4})\b"
"""a corpus log's id as a validation case names it: three or four digits (the corpus is past sg_999 / vl_999; a
three-digit pattern missed sg_1001 and the like, round rev33)"""
CASE_ID = r"\b((?:sg|vl|gs|vp|case)_\d{3,4})\b"
"""a corpus log's or validation case's id as an evidence row's source names it (vp_1016 and the like: four digits)"""


def _norm(line: str) -> str:
    return re.sub(r"\s+", " ", line.strip())


def _numeric_lines(lines) -> set[str]:
    return {_norm(line) for line in lines if len(_norm(line)) >= 40 and re.search(r"\d\.\d", line)}


def validation_logs(corpus: list[dict], texts: dict[str, str]) -> dict[str, list[str]]:
    """corpus id → the public validation cases whose log it is (id named, same source URL, or ≥ 2 numeric lines
    quoted; one line when the validation log quotes at most two)."""
    out: dict[str, set[str]] = {}
    lines = {c["id"]: _numeric_lines(texts[c["id"]].splitlines()) for c in corpus}
    urls = {c["id"]: c.get("source_url") for c in corpus}
    for path in sorted(VALIDATION.glob("*_cases.json")):
        for v in json.loads(path.read_text(encoding="utf-8")):
            blob = json.dumps(v)
            named = set(re.findall(CORPUS_ID, blob))
            vlines = _numeric_lines(v.get("log") or [])
            for cid in lines:
                common = len(vlines & lines[cid])
                if (cid in named or (v.get("source_url") and v["source_url"] == urls[cid])
                        or common >= 2 or (common >= 1 and len(vlines) <= 2)):
                    out.setdefault(cid, set()).add(v["id"])
    return {k: sorted(v) for k, v in sorted(out.items())}


def _norm_url(url: str | None) -> str | None:
    return re.sub(r"/blob/[0-9a-f]{7,40}/", "/blob/*/", url).split("#")[0].rstrip("/") if url else None


def evidence_validation_hits(evidence: dict, corpus_val: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """evidence row id → the public validation cases (tests/validation/cases/*.json) whose log or run the row is:
    the row's id / case_id / a case id its ``source`` names is a validation case, or a corpus log the validation
    cases quote (``validation_logs``); or it shares a validation case's source URL (any commit of the same file) or
    search-index file id.  Helper ev15b (2026-12-05): every used row must give none."""
    cases = [c for f in sorted((VALIDATION.parent / "cases").glob("*.json"))
             for c in json.loads(f.read_text(encoding="utf-8"))]
    ids = {c["id"] for c in cases}
    by_url: dict[str, set[str]] = {}
    by_index: dict[str, set[str]] = {}
    for c in cases:
        if (u := _norm_url(c.get("source_url"))):
            by_url.setdefault(u, set()).add(c["id"])
        for i in re.findall(r"\b(\d{10,12})\b", c.get("source") or ""):
            by_index.setdefault(i, set()).add(c["id"])
    if corpus_val is None:
        corpus = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
        texts = {c["id"]: (DATA / c["file"]).read_text(encoding="utf-8", errors="replace") for c in corpus}
        corpus_val = validation_logs(corpus, texts)
    out: dict[str, list[str]] = {}
    for r in evidence["rows"]:
        named = {r["id"], r.get("case_id")} | set(re.findall(CASE_ID, r["source"]))
        hits = {i for i in named if i in ids} | {v for i in named for v in corpus_val.get(i, ())}
        hits |= by_url.get(_norm_url(r.get("source_url")), set()) if r.get("source_url") else set()
        hits |= {v for i in re.findall(r"\b(\d{10,12})\b", r["source"]) for v in by_index.get(i, ())}
        if hits:
            out[r["id"]] = sorted(hits)
    return out
