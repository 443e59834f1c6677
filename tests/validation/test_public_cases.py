"""The start-ups kept in ``data_public/`` (raw, with their log excerpt) and their normalised records in
``cases/sglang.json``: the recorded capacity is the number the quoted log shows, and the normalised record carries
it unchanged (a transcription check; accuracy is scored in test_validation_set.py)."""

import json
import re
from pathlib import Path

import pytest

import harness

RAW = json.loads((Path(__file__).parent / "data_public" / "sglang_cases.json").read_text())
CASES = {c["id"]: c for c in harness.load_cases("sglang")}


def _numbers(lines: list[str]) -> set[int]:
    """Every integer the lines show, digits grouped by commas or not; a number grouped in threes by spaces
    ('900 480', as a write-up's table prints it; helper sgb14) is read both as one and as its parts."""
    found = {int(m.replace(",", "")) for line in lines for m in re.findall(r"\d[\d,]*\d|\d", line)}
    spaced = r"(?<![\d.])\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d.])"
    return found | {int(re.sub(r"\D", "", m)) for line in lines for m in re.findall(spaced, line)}


@pytest.mark.parametrize("raw", RAW, ids=[c["id"] for c in RAW])
def test_recorded_capacity_is_in_the_quoted_log(raw):
    assert raw["reported"]["kv_tokens"] in _numbers(raw["log"]), raw["id"]


@pytest.mark.parametrize("raw", RAW, ids=[c["id"] for c in RAW])
def test_normalised_record_keeps_source_value_and_reason(raw):
    case = CASES[raw["id"]]
    assert case["printed"]["value"] == raw["reported"]["kv_tokens"]
    assert case["source"] == raw["source"] and case["source_url"] == raw["source_url"]
    assert case["source_url"] or "index id" in case["source"]
    assert case["predict"] or case["why_not"]


def test_predicted_public_cases_name_a_catalog_gpu_or_a_printed_total():
    for raw in RAW:
        case = CASES[raw["id"]]
        if case["predict"]:
            assert case["gpu"] or case.get("gpu_total_bytes"), raw["id"]
