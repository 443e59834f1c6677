"""No rule in src/ names a validation case (helper rev19, 2026-12-06, session 19).

A rule follows from the engine source or a measurement and applies to every case, so new code cites an engine file,
function and version range, not a case id.  The files below predate session 19 and cite case ids as provenance in
docstrings and data tables (startup.rankspread's evidence tuples, engines.vllm.graphs_not_evidence); the list only
shrinks.  Session 19's cr19 named vl_225 in explain.vgpus.offload_fix's docstring, which this test caught."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
CASE_ID = re.compile(r"\b(?:vp|vl|sg|gs)_\d{3,4}\b")  # ids past 999 too (vp_1016 slipped through \d{3})

CITE_CASE_IDS = frozenset({
    "cli/fromlog.py",
    "cli/fromlog_plan.py",  # the plan and non-KV provenance moved from cli/fromlog.py (tidy31, session 31)
    "engines/sglang/dsv4.py",
    "engines/sglang/load.py",
    "engines/sglang/streams.py",
    "engines/unified.py",
    "engines/vllm/batch_defaults.py",  # the batch-default provenance moved from inputs.py (tidy30, session 30)
    "engines/vllm/dsv4_profile.py",
    "engines/vllm/encoder_llava.py",
    "engines/vllm/encoder_qwen2vl.py",
    "engines/vllm/encoder_qwen2vl_dummy.py",
    "engines/vllm/encoder_qwen2vl_pixels.py",
    "engines/vllm/encoder_qwen3vl.py",
    "engines/vllm/graph_evidence.py",
    "engines/vllm/graphs.py",
    "engines/vllm/graphs_not_evidence.py",
    "engines/vllm/layout.py",
    "engines/vllm/marlin_v0.py",
    "engines/vllm/mixtral_v0.py",
    "engines/vllm/mla.py",
    "engines/vllm/mxfp4.py",
    "engines/vllm/profile.py",
    "engines/vllm/profile_lines.py",
    "engines/vllm/rules.py",
    "engines/vllm/v0_forward.py",
    "engines/vllm/v0_reserved.py",
    "engines/vllm/v0chunk.py",
    "engines/vllm/verdict.py",
    "engines/vllm/versions.py",
    "engines/vllm/weight_blocks.py",
    "explain/diagnose.py",
    "explain/fromlog.py",
    "explain/planned.py",
    "explain/replan.py",
    "explain/sgdiagnose.py",
    "explain/sgpool.py",
    "explain/sgreplan.py",
    "explain/tpinfer.py",
    "explain/vdiagnose.py",
    "explain/vpeak.py",
    "explain/vreplan.py",
    "explain/vstages.py",
    "explain/vtokens.py",
    "logs/engine.py",
    "logs/failures.py",
    "logs/rules.py",
    "logs/scan.py",
    "logs/settings.py",
    "startup/rankspread.py",
    "startup/terms.py",
})
"""files (relative to src/tpkit) that cite case ids, before session 19"""


def test_no_new_file_in_src_names_a_case_id():
    naming = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if CASE_ID.search(p.read_text("utf-8"))}
    new = sorted(naming - CITE_CASE_IDS)
    assert not new, (f"{new} name a validation case id (vp_/vl_/sg_/gs_): cite the engine file + function + version "
                     "range instead")
