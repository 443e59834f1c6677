"""The catalog entries copied from the test data's public configs (scripts/catalog_tested.json): each equals its
file without the ``_`` notes, carries its provenance, and a plan names how its config was checked."""

import json
from pathlib import Path

import pytest

from tpkit.models import load_model
from tpkit.models.catalog import find_entry

ROOT = Path(__file__).resolve().parents[2]
TESTED = json.loads((ROOT / "scripts/catalog_tested.json").read_text())["models"]


@pytest.mark.parametrize("row", TESTED, ids=[r["id"] for r in TESTED])
def test_entry_is_its_test_config_without_notes(row):
    raw = json.loads((ROOT / row["config"]).read_text())
    entry = find_entry(row["id"])
    assert entry is not None, row["id"]
    assert entry.config == {k: v for k, v in raw.items() if not k.startswith("_")}
    assert entry.verification_status.startswith(row["fidelity"] + ": the test data's " + row["config"])
    assert entry.facts["checked_by"] == row["checked_by"] and entry.facts["source"]
    assert entry.facts["params_total"] > 0


def test_checked_by_names_cases_of_the_test_data():
    text = "".join(p.read_text() for p in [*ROOT.glob("tests/validation/data_public/*.json"),
                                           ROOT / "tests/logs/data/models.json"])
    for row in TESTED:
        for case in row["checked_by"]:
            assert f'"{case}"' in text, (row["id"], case)


def test_a_quantized_name_carries_its_quantization():
    """An entry named for a quantized build must plan its quantized weights, not bf16 ones."""
    for row in TESTED:
        if any(t in row["id"].upper() for t in ("-FP8", "-AWQ", "-GPTQ", "INT4")):
            assert load_model(row["id"]).quant is not None, row["id"]


def test_the_plan_header_says_how_the_config_was_checked(capsys):
    from tpkit.cli import main

    assert main(["plan", "Qwen/Qwen2.5-14B-Instruct", "--engine", "vllm", "--gpu", "L40S", "--tp", "2"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "model from catalog:Qwen/Qwen2.5-14B-Instruct (config assembled: the test data's" in out
    assert main(["plan", "Qwen/Qwen2.5-14B-Instruct", "--engine", "vllm", "--gpu", "L40S", "--tp", "2",
                 "--json"]) == 0
    model = json.loads(capsys.readouterr().out)["model"]
    assert model["provenance"].startswith("assembled: the test data's tests/validation/configs/")
