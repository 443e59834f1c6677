"""tests/logs/data/models.json: every log of cases.json has its model, the evidence, and a config tpkit loads.

The map is what lets a test rebuild a log's capacity from its own anchors (issue 12): each entry names the model
the log served, where that is written (the log itself, cases.json's source, the validation set or the source
thread), and a config (tpkit's catalog, tests/validation/configs, or tests/logs/data/configs/<org>__<name> with a
SOURCE.md). The checks below fail when an entry drifts from its log, its config does not load, or the config's
architecture is not the one the engine printed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tpkit.models import load_model
from tpkit.models.catalog import find_entry
from tpkit.models.config import read_config_file

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "logs" / "data"
MAP = json.loads((DATA / "models.json").read_text(encoding="utf-8"))["cases"]
CASES = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
BY_ID = {c["id"]: c for c in CASES}
FIDELITY = {"exact", "same architecture", "base architecture; quantization_config missing", "assumed model",
            "partial"}
EVIDENCE_FROM = {"log", "case_source", "validation_set", "thread", None}


def _validation_models() -> dict[str, str]:
    out = {}
    for name in ("sglang.json", "vllm.json"):
        for case in json.loads((ROOT / "tests" / "validation" / "cases" / name).read_text(encoding="utf-8")):
            out[case["id"]] = case["model"]
    return out


def _log_text(entry: dict) -> str:
    return (DATA / entry["file"]).read_bytes().decode("utf-8", "replace")


def _config_dict(ref: str) -> dict:
    if ref.startswith("catalog:"):
        found = find_entry(ref[len("catalog:"):])
        assert found is not None, f"{ref} is not in the embedded catalog"
        return found.config
    return read_config_file(ROOT / ref)


def test_ids_and_files_match_cases_json():
    assert [e["id"] for e in MAP] == [c["id"] for c in CASES]
    for entry in MAP:
        assert entry["file"] == BY_ID[entry["id"]]["file"]
        assert entry["engine"] == BY_ID[entry["id"]]["engine"]


@pytest.mark.parametrize("entry", MAP, ids=[e["id"] for e in MAP])
def test_evidence_is_where_the_entry_says(entry):
    frm, ev = entry["evidence_from"], entry["model_evidence"]
    assert frm in EVIDENCE_FROM
    if frm == "log":
        assert ev and ev in _log_text(entry)
    elif frm == "case_source":
        assert ev and ev in BY_ID[entry["id"]]["source"]
    elif frm == "validation_set":
        assert _validation_models()[entry["id"].removeprefix("validation_")] == ev
    elif frm == "thread":
        assert ev and entry.get("note") or BY_ID[entry["id"]]["source_url"]
    if entry["model"] is None or entry["config"] is None:
        assert entry.get("note"), "a null model or config needs the reason in 'note'"
    if "draft" in entry:
        assert entry["draft"]["evidence"] in _log_text(entry)


WITH_CONFIG = [e for e in MAP if e["config"]]


@pytest.mark.parametrize("entry", WITH_CONFIG, ids=[e["id"] for e in WITH_CONFIG])
def test_config_loads(entry):
    ref = entry["config"]
    assert entry["config_fidelity"] in FIDELITY
    if ref.startswith("catalog:"):
        spec = load_model(ref[len("catalog:"):])
        assert spec.source == f"catalog:{find_entry(ref[len('catalog:'):]).id}"
    else:
        path = ROOT / ref
        assert path.is_file(), ref
        if path.parent.parent == DATA / "configs":
            source = (path.parent / "SOURCE.md").read_text(encoding="utf-8")
            assert "index file id" in source or "http" in source
        spec = load_model(str(path))
    assert spec.num_layers > 0 and spec.hidden_size > 0


def _printed_architecture(text: str) -> str | None:
    m = re.search(r"Load weight end\..*?type=(\w+)", text) or re.search(r"Resolved architecture: (\w+)", text)
    return m.group(1) if m else None


PRINTED = [e for e in WITH_CONFIG if _printed_architecture(_log_text(e))]


def test_architecture_check_covers_the_logs_that_print_one():
    assert len(PRINTED) >= 35   # 35 logs with a config print 'Load weight end. type=' or 'Resolved architecture'


@pytest.mark.parametrize("entry", PRINTED, ids=[e["id"] for e in PRINTED])
def test_config_architecture_is_the_printed_one(entry):
    printed = _printed_architecture(_log_text(entry))
    arch = (_config_dict(entry["config"]).get("architectures") or [None])[0]
    if printed == arch:
        assert "printed_architecture_differs" not in entry
    else:
        assert entry.get("printed_architecture_differs", "").startswith(f"the log prints {printed}")
        assert entry["config_fidelity"] != "exact"


def test_validation_configs_referenced_exist():
    paths = {e["config"] for e in MAP if e["config"] and not e["config"].startswith("catalog:")}
    missing = [p for p in paths if not (ROOT / p).is_file()]
    assert missing == []


def _prints_capacity_anchor(entry: dict) -> bool:
    anchor = "Load weight end" if entry["engine"] == "sglang" else "Available KV cache memory"
    return anchor in _log_text(entry)


def test_capacity_logs_with_a_config_do_not_regress():
    """Issue 12's bar counts the logs that print 'Load weight end' (SGLang) / 'Available KV cache memory' (vLLM):
    63 of the 146; 50 of them have a config here (43 before helper cfg; docs/accuracy.md §7.1). Helper new
    (2026-12-03) added sg_067, vl_072, vl_073, vl_074 and vl_076: 68 of the 154, 53 with a config. A floor, so
    that entries are not lost."""
    anchored = [e for e in MAP if _prints_capacity_anchor(e)]
    assert len(anchored) == 68
    assert sum(1 for e in anchored if e["config"]) >= 53
