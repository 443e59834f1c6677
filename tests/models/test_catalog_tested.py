"""The catalog entries copied from the test data's public configs (``scripts/catalog_tested.json``, built into the
catalog by ``scripts/build_catalog.py``): each equals its file under tests/ without the ``_`` notes, carries its
provenance, and a plan names how its config was checked.  Everything is read from the catalog and from tests/."""

import json
from pathlib import Path

import pytest

from tpkit.models import load_model
from tpkit.models.catalog import catalog_entries

TESTS = Path(__file__).resolve().parents[1]
TESTED = [e for e in catalog_entries() if "config" in e.facts and str(e.facts["config"]).startswith("tests/")]


def _test_file(entry) -> Path:
    """The entry's config file under tests/ (``facts.config`` is written from the repository root)."""
    return TESTS / entry.facts["config"].removeprefix("tests/")


def test_the_tested_entries_are_there():
    assert len(TESTED) == 76


@pytest.mark.parametrize("entry", TESTED, ids=[e.id for e in TESTED])
def test_entry_is_its_test_config_without_notes(entry):
    raw = json.loads(_test_file(entry).read_text())
    assert entry.config == {k: v for k, v in raw.items() if not k.startswith("_")}
    assert entry.verification_status.startswith(f"{entry.facts['fidelity']}: the test data's {entry.facts['config']}")
    assert entry.facts["source"] and entry.facts["params_total"] > 0


def test_checked_by_names_cases_of_the_test_data():
    files = [*(TESTS / "validation" / "data_public").glob("*.json"), TESTS / "logs" / "data" / "models.json"]
    assert len(files) == 3, files
    text = "".join(p.read_text() for p in files)
    for entry in TESTED:
        for case in entry.facts["checked_by"]:
            assert f'"{case}"' in text, (entry.id, case)


def test_a_quantized_name_carries_its_quantization():
    """An entry named for a quantized build must plan its quantized weights, not bf16 ones."""
    for entry in TESTED:
        if any(t in entry.id.upper() for t in ("-FP8", "-AWQ", "-GPTQ", "INT4")):
            assert load_model(entry.id).quant is not None, entry.id


def test_the_plan_header_says_how_the_config_was_checked(capsys):
    from tpkit.cli import main

    assert main(["plan", "Qwen/Qwen2.5-14B-Instruct", "--engine", "vllm", "--gpu", "L40S", "--tp", "2"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "model from catalog:Qwen/Qwen2.5-14B-Instruct (config assembled: the test data's" in out
    assert main(["plan", "Qwen/Qwen2.5-14B-Instruct", "--engine", "vllm", "--gpu", "L40S", "--tp", "2",
                 "--json"]) == 0
    model = json.loads(capsys.readouterr().out)["model"]
    assert model["provenance"].startswith("assembled: the test data's tests/validation/configs/")
