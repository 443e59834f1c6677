"""Find validation cases that are the same start-up recorded twice (helper dedup15, 2026-12-05).

Used by ``harness.score`` (a ``duplicate_of`` mark is checked here), ``scripts/same_run_check.py`` (the report) and
``tests/validation/test_same_run.py`` (the guard).  Two cases of one engine are

* **the same source** when they share a source key: the source URL (a GitHub issue or pull request by its number; a
  GitHub file by its commit and path, so a fork's copy at the same commit is the same file; any other URL as
  written), a search-index file id named in the ``source`` text (a stored copy's id included), or a time-stamped
  line of their log text (a line carrying a time of day is one moment of one process: two excerpts that share one
  are excerpts of one log);
* **the same run** when, besides the same source, they print the same capacity (metric and value) for the same
  model, GPU, layout (tp, pp, dp, ep) and release (``tpkit_engine_version``), and no launch flag that both records
  set differs (one record may leave out a flag the other read: vl_021 lacks vp_020's ``enable_expert_parallel``;
  vp_012 / vp_013 print the same 64.45 GiB but at max_model_len 16,000 and 32,000, with their own load times: two
  runs).  A run counted twice weighs twice in
  the median / p90 / inside-band figures, so one of the two is marked ``duplicate_of`` the other and not scored;
* **near-duplicates** when they are the same source but print other numbers or name another model, GPU, layout or
  release: separate runs of one document (a sweep, a restart), both kept and scored.

The log text is the repository's copy: ``log`` of a ``tests/validation/data_public/`` record, else the explain
corpus log of the same id (``tests/logs/data/cases.json``: the data helpers' ``vl_`` / ``sg_`` collection kept its
ids there).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CORPUS = ROOT / "tests" / "logs" / "data"

RUN_FIELDS = ("model", "gpu", "gpu_total_bytes", "tp", "pp", "dp", "ep", "tpkit_engine_version")
"""what, besides the printed capacity, makes two same-source records one run"""

_ISSUE = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)", re.I)
_BLOB = re.compile(r"github\.com/[\w.-]+/[\w.-]+/blob/([0-9a-f]{7,40})/([^?#]+)", re.I)
_INDEX_ID = re.compile(r"(?<![\w.])(\d{8,12})(?![\w.])")
_TIME = re.compile(r"(?<!\d)\d{2}:\d{2}:\d{2}(?!\d)")


def source_keys(case: dict) -> frozenset[str]:
    """The keys that name ``case``'s source: its URL and the search-index ids its ``source`` text names."""
    keys = set()
    url = (case.get("source_url") or "").strip()
    if url:
        if m := _ISSUE.search(url):
            keys.add(f"github:{m[1].lower()}#{m[2]}")
        elif m := _BLOB.search(url):
            keys.add(f"file:{m[1][:7].lower()}:{m[2]}")
        else:
            keys.add("url:" + re.sub(r"^https?://(www\.)?", "", url).split("#")[0].rstrip("/").lower())
    text = case.get("source") or ""
    if "index" in text:
        keys.update(f"index:{n}" for n in _INDEX_ID.findall(text))
    return frozenset(keys)


@lru_cache(maxsize=None)
def _public_logs(path: str) -> dict[str, tuple[str, ...]]:
    return {c["id"]: tuple(c.get("log") or ()) for c in json.loads((ROOT / path).read_text())}


@lru_cache(maxsize=None)
def _corpus_files() -> dict[tuple[str, str], str]:
    return {(c["engine"], c["id"]): c["file"] for c in json.loads((CORPUS / "cases.json").read_text())
            if c.get("file")}


def log_lines(case: dict) -> tuple[str, ...]:
    """The repository's log text of ``case`` (see the module doc); empty where none is kept."""
    if case.get("public_data"):
        return _public_logs(case["public_data"]).get(case["id"], ())
    name = _corpus_files().get((case["engine"], case["id"]))
    if name and (CORPUS / name).exists():
        return tuple((CORPUS / name).read_text(errors="replace").splitlines())
    return ()


def log_keys(case: dict) -> frozenset[str]:
    """The time-stamped lines of ``case``'s log text, whitespace collapsed."""
    return frozenset("log:" + " ".join(line.split()) for line in log_lines(case)
                     if _TIME.search(line) and len(line.strip()) >= 30)


def keys(case: dict) -> frozenset[str]:
    return source_keys(case) | log_keys(case)


def run_key(case: dict) -> tuple:
    """What one run prints and runs on: the printed metric and value, model, GPU, layout and release."""
    printed = case.get("printed") or {}
    return (printed.get("metric"), printed.get("value"), *(case.get(f) for f in RUN_FIELDS))


@dataclass(frozen=True, kw_only=True, slots=True)
class Pair:
    """Two cases of one engine from one source."""

    a: dict
    b: dict
    shared: tuple[str, ...]
    """the source keys they share (log lines shortened)"""
    differ: tuple[str, ...]
    """the run fields in which they differ; empty for the same run"""

    @property
    def same_run(self) -> bool:
        return not self.differ


def _differ(a: dict, b: dict) -> tuple[str, ...]:
    """The run fields, and the flags both set, in which ``a`` and ``b`` differ."""
    names = ("printed metric", "printed value", *RUN_FIELDS)
    fields = tuple(n for n, x, y in zip(names, run_key(a), run_key(b)) if x != y)
    fa, fb = a.get("flags") or {}, b.get("flags") or {}
    flags = tuple(f"flags.{k}" for k in sorted(set(fa) & set(fb))
                  if fa[k] is not None and fb[k] is not None and fa[k] != fb[k])
    return fields + flags


def _short(key: str) -> str:
    return key if not key.startswith("log:") else key[:90] + ("…" if len(key) > 90 else "")


def pairs(cases: list[dict]) -> list[Pair]:
    """Every pair of ``cases`` (one engine) from one source, in id order."""
    cases = sorted(cases, key=lambda c: c["id"])
    ks = [keys(c) for c in cases]
    out = []
    for i, a in enumerate(cases):
        for j in range(i + 1, len(cases)):
            shared = ks[i] & ks[j]
            if shared:
                b = cases[j]
                out.append(Pair(a=a, b=b, shared=tuple(sorted(_short(k) for k in shared)), differ=_differ(a, b)))
    return out


def unmarked(cases: list[dict]) -> list[Pair]:
    """Same-run pairs of which neither names the other in ``duplicate_of``: both would be scored."""
    return [p for p in pairs(cases) if p.same_run
            and p.a.get("duplicate_of") != p.b["id"] and p.b.get("duplicate_of") != p.a["id"]]


def check_duplicate_of(case: dict, cases: list[dict]) -> dict:
    """The case ``case['duplicate_of']`` names, after checking the mark: it names another case of the same engine,
    that case is not itself marked, and the two are the same run by this module's rule.  Raises ``ValueError``
    saying what was wrong otherwise."""
    cid, target = case["id"], case.get("duplicate_of")
    by_id = {c["id"]: c for c in cases}
    if not isinstance(target, str) or target == cid or target not in by_id:
        raise ValueError(f"{cid}: duplicate_of must name another {case['engine']} validation case, got {target!r}; "
                         "name the case that keeps the run (scripts/same_run_check.py lists the same-run pairs)")
    other = by_id[target]
    if other.get("duplicate_of"):
        raise ValueError(f"{cid}: duplicate_of names {target}, which is itself marked duplicate_of "
                         f"{other['duplicate_of']!r}; name the case that is scored")
    if differ := _differ(case, other):
        raise ValueError(f"{cid}: duplicate_of names {target}, but they differ in {', '.join(differ)} "
                         f"({run_key(case)!r} vs {run_key(other)!r}); only the same printed run is a duplicate")
    if not keys(case) & keys(other):
        raise ValueError(f"{cid}: duplicate_of names {target}, but they share no source (URL, search-index id or "
                         "time-stamped log line); two sources are two runs")
    return other
