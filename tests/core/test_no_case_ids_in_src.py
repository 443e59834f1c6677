"""No rule in src/ names a validation case (helper rev19, 2026-12-06, session 19).

A rule follows from the engine source or a measurement and applies to every case, so new code cites an engine file,
function and version range, not a case id.  The files below predate session 19 and cite case ids as provenance in
docstrings and data tables (startup.rankspread's evidence tuples, engines.vllm.graphs_not_evidence); the list only
shrinks.  Session 19's cr19 named vl_225 in explain.vgpus.offload_fix's docstring, which this test caught.  Since
session 34 (helper tidy34) each listed file may cite only the ids it cited then (``CITED``), not any id."""

from __future__ import annotations

import json
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
CASE_ID = re.compile(r"\b(?:vp|vl|sg|gs)_\d{3,4}\b")  # ids past 999 too (vp_1016 slipped through \d{3})

CITED = json.loads((Path(__file__).with_name("case_ids_cited.json")).read_text("utf-8"))
"""file (relative to src/tpkit) → the case ids it may cite (tests/core/case_ids_cited.json): the files that cited
case ids before session 19 (their provenance docstrings and evidence tables), each with the ids it cited on
2026-12-07 (helper tidy34, session 34).  Exempting whole files let new ids into a listed file unseen (session 33's
gs_004 and sg_253 in engines/sglang/streams.py, round rev33); now each file keeps to its own list, and an id no longer
cited leaves the list, so the lists only shrink."""

CITE_CASE_IDS = frozenset(CITED)
"""the files that may cite case ids at all"""


def _cited(path: Path) -> set[str]:
    return set(CASE_ID.findall(path.read_text("utf-8")))



def test_no_new_file_in_src_names_a_case_id():
    naming = {p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if _cited(p)}
    new = sorted(naming - CITE_CASE_IDS)
    assert not new, (f"{new} name a validation case id (vp_/vl_/sg_/gs_): cite the engine file + function + version "
                     "range instead")


EVIDENCE_ROWS = {"engines/vllm/graph_evidence.py": re.compile(r'GraphSample\(source="((?:vp|vl|sg|gs)_\d{3,4})"')}
"""evidence tables whose rows are keyed by the log they were read from: ``GraphSample(source=<id>)`` is one printed
CUDA-graph estimate of a corpus log, and tests/engines/test_vllm_graph_estimate.py requires a row (or a
``graphs_not_evidence`` entry) for every log that prints one, so a new log that prints it adds a row (lead, session
35: vl_1480).  A row's key is data, not a rule; the same id anywhere else in the file (a docstring, a comment) is
still held to the file's list."""


def _new_ids(name: str, ids) -> list[str]:
    """ids a listed file cites beyond its list, an evidence row's own key excepted (``EVIDENCE_ROWS``)."""
    text = (SRC / name).read_text("utf-8")
    rows = EVIDENCE_ROWS.get(name)
    keys = set(rows.findall(text)) if rows else set()
    prose = set(CASE_ID.findall(rows.sub("", text))) if rows else _cited(SRC / name)
    return sorted((prose | (_cited(SRC / name) - keys)) - set(ids))


def test_a_listed_file_cites_no_new_case_id():
    """A file of ``CITED`` may cite only the ids listed for it: a new id in an exempt file fails as in any other (an
    evidence row's key excepted: ``EVIDENCE_ROWS``)."""
    added = {name: _new_ids(name, ids) for name, ids in CITED.items() if (SRC / name).exists()}
    added = {name: ids for name, ids in added.items() if ids}
    assert not added, (f"{added}: new validation case ids in files that may cite only their listed ids "
                       "(tests/core/case_ids_cited.json): cite the engine file + function + version range instead")


def test_the_lists_only_shrink():
    """An id (or a file) no longer cited leaves ``CITED``, so it cannot come back unseen."""
    stale = {name: sorted(set(ids) - (_cited(SRC / name) if (SRC / name).exists() else set()))
             for name, ids in CITED.items()}
    stale = {name: ids for name, ids in stale.items() if ids}
    assert not stale, f"{stale}: no longer cited: remove them from tests/core/case_ids_cited.json"


def test_an_added_id_in_a_listed_file_is_caught(tmp_path):
    """The check itself: a copy of a listed file with one more id is caught, with its own ids it is not."""
    name = "engines/sglang/streams.py"
    text = (SRC / name).read_text("utf-8")
    copy = tmp_path / "streams.py"
    copy.write_text(text, "utf-8")
    assert _cited(copy) <= set(CITED[name])
    copy.write_text(text + "\n# measured on sg_9999\n", "utf-8")
    assert _cited(copy) - set(CITED[name]) == {"sg_9999"}


def test_an_evidence_row_key_is_data_but_the_same_id_in_prose_is_not(tmp_path, monkeypatch):
    """A new ``GraphSample(source=...)`` row passes; the same id in the file's prose does not."""
    import sys

    name = "engines/vllm/graph_evidence.py"
    text = (SRC / name).read_text("utf-8")
    fake = tmp_path / "tpkit"
    (fake / "engines" / "vllm").mkdir(parents=True)
    target = fake / name
    module = sys.modules[__name__]
    monkeypatch.setattr(module, "SRC", fake)
    target.write_text(text + '\nROW = GraphSample(source="vl_9999", study="x")\n', "utf-8")
    assert _new_ids(name, CITED[name]) == []
    target.write_text(text + '\nROW = GraphSample(source="vl_9999", study="x")\n# as vl_9999 shows\n', "utf-8")
    assert _new_ids(name, CITED[name]) == ["vl_9999"]
