"""scripts/docs_toc.py (helper toc21, 2026-12-06, session 21): the contents block of docs/accuracy.md and
docs/benchmarks.md is fresh, its anchors follow GitHub's heading rule, and ``--check`` fails on a stale block."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "docs_toc.py"
sys.path.insert(0, str(ROOT / "scripts"))

import docs_toc  # noqa: E402

DOCS = [ROOT / "docs" / "accuracy.md", ROOT / "docs" / "benchmarks.md"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_check_passes_on_both_docs():
    done = _run("--check", *map(str, DOCS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("up to date") == 2


@pytest.mark.parametrize(("heading", "anchor"), [
    ("4. `tpkit perf` against published measurements", "4-tpkit-perf-against-published-measurements"),
    ("3. Runtime memory layer on 2× H200: planned vs measured", "3-runtime-memory-layer-on-2-h200-planned-vs-measured"),
    ("§6 figures – regenerated", "6-figures--regenerated"),
    ("11.17 --cpu-offload-gb (helper cpo, 2026-12-04)", "1117---cpu-offload-gb-helper-cpo-2026-12-04"),
    ("11.3 vp_017–vp_019 (L4, vLLM 0.27.1)", "113-vp_017vp_019-l4-vllm-0271"),
    ("4.5 The issue's scenario: 8× RTX PRO 6000 (PCIe)", "45-the-issues-scenario-8-rtx-pro-6000-pcie"),
    ("**Bold** and [a link](https://example.com/x) and *em*", "bold-and-a-link-and-em"),
    ("Café µs ²", "café-µs-"),
])
def test_anchor_rule(heading, anchor):
    assert docs_toc.Slugger()(heading) == anchor


def test_duplicate_anchors_are_numbered_in_document_order():
    slugger = docs_toc.Slugger()
    got = [slugger(text) for text in ("Re-check", "Re-check", "Re-check-1", "Re-check", "Re-check (x)")]
    assert got == ["re-check", "re-check-1", "re-check-1-1", "re-check-2", "re-check-x"]


def test_headings_in_fenced_code_and_every_level_count_for_duplicates():
    text = "# T\n\n```\n## Not a heading\n```\n\n#### Same\n\n## Same\n\n~~~~\n### no\n~~~~\n### Two ###\n"
    found = docs_toc.headings(text)
    assert [(h.level, h.anchor) for h in found] == [(1, "t"), (4, "same"), (2, "same-1"), (3, "two")]


_DOC = """# Doc

<!-- docs_toc.py: begin -->
<!-- docs_toc.py: end -->

## 1. A

### 1.1 B

#### round one (helper x, 2026-12-06, session 21)

## 2. C
"""


def test_stale_block_fails_check_and_rewrite_fixes_it(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(_DOC, encoding="utf-8")
    assert _run("--check", str(doc)).returncode == 1
    assert _run(str(doc)).returncode == 0
    written = doc.read_text(encoding="utf-8")
    assert "- [1. A](#1-a)\n  - [1.1 B](#11-b) — 1 `####` subsection\n- [2. C](#2-c)\n" in written
    assert _run("--check", str(doc)).returncode == 0
    # a new `####` round does not stale the block (only --strict sees the count) ...
    doc.write_text(written + "\n#### round two (helper y, 2026-12-06, session 21)\n", encoding="utf-8")
    assert _run("--check", str(doc)).returncode == 0
    assert _run("--check", "--strict", str(doc)).returncode == 1
    # ... a new `###` heading does
    doc.write_text(written + "\n### 2.1 D\n", encoding="utf-8")
    done = _run("--check", str(doc))
    assert done.returncode == 1 and "stale" in done.stdout


def test_missing_markers_exit_2_and_write_nothing(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# Doc\n\n## 1. A\n", encoding="utf-8")
    done = _run(str(doc))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "docs_toc.py: begin" in done.stderr
    assert doc.read_text(encoding="utf-8") == "# Doc\n\n## 1. A\n"
    assert _run(str(tmp_path / "absent.md")).returncode == 2


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_in_doc_link_near_the_top_resolves(path):
    text = path.read_text(encoding="utf-8")
    anchors = {h.anchor for h in docs_toc.headings(text)}
    top = text.split(docs_toc.END, 1)[0] + text.split(docs_toc.END, 1)[1].split("\n## ", 1)[0]
    links = re.findall(r"\]\(#([^)]+)\)", top)
    assert len(links) >= 10
    assert [link for link in links if link not in anchors] == []


def test_accuracy_doc_says_how_to_read_it():
    text = DOCS[0].read_text(encoding="utf-8")
    para = text.split(docs_toc.END, 1)[1].split("\n## ", 1)[0]
    for needle in ("**How to read this file.**", "scripts/validate.py", "scripts/explain_capacity_check.py",
                   "scripts/blind_history.py", "#### <what> (helper X, DATE, session N)"):
        assert needle in para
