"""A log's model path from another machine is looked up by its name (``explain.modelpath._by_path_tail``):
``/root/yjpzmodel/basemodel/Qwen3-8B`` → the catalog's Qwen/Qwen3-8B, said in a note; ``--model`` and a path that
exists here still win, and a name nobody knows stays unknown with the "pass --model" note."""

import json
from pathlib import Path

import pytest

from tpkit.explain.modelpath import _by_path_tail, _path_tails
from tpkit.logs import parse_log
from tpkit.models import load_model

from explain_testlib import DATA, ROOT, cases

MODELS = {c["id"]: c for c in json.loads((DATA / "models.json").read_text())["cases"]}


def _explain(capsys, *argv):
    from tpkit.cli import main

    code = main(["explain", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_path_from_another_machine_is_read_by_its_name(capsys):
    code, out = _explain(capsys, str(DATA / "vllm" / "vl_017.log"))
    assert code == 0
    assert out["model"]["name"] == "Qwen3-8B" and "by its name 'Qwen3-8B'" in out["model"]["source"]
    assert any("is not on this machine; its name 'Qwen3-8B' is the catalog's Qwen/Qwen3-8B" in n for n in out["notes"])
    assert "B per block of 16" in out["kv_tokens"]["source"]  # the cell comes from the model found by name


def test_model_flag_still_wins(capsys):
    code, out = _explain(capsys, str(DATA / "vllm" / "vl_017.log"), "--model", "Qwen/Qwen3-32B")
    assert code == 0 and out["model"]["source"] == "--model Qwen/Qwen3-32B"


@pytest.mark.parametrize("path", ["/data/private/my-finetune-v3", "/models/org/NotAModel-7B", "./ckpt/"])
def test_an_unknown_name_is_not_guessed(path):
    notes = []
    assert _by_path_tail(path, notes) is None and notes == []


def test_an_hf_cache_folder_name_is_read_as_its_repo_id():
    notes = []
    found = _by_path_tail("/home/u/.cache/huggingface/hub/models--Qwen--Qwen3-8B", notes)
    assert found is not None and found[0].num_layers == 36 and "'Qwen/Qwen3-8B'" in notes[0]


def test_an_hf_cache_snapshot_path_is_read_as_its_repo_id():
    """``…/models--org--name/snapshots/<revision>``: the repo folder names the model (huggingface_hub's
    ``repo_folder_name``); the revision hash is not a name."""
    notes = []
    path = "/home/u/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/0123456789abcdef0123456789abcdef01234567"
    found = _by_path_tail(path, notes)
    assert found is not None and found[0].num_layers == 36 and "its name 'Qwen/Qwen3-8B'" in notes[0]


@pytest.mark.parametrize("path, name", [("/mnt/d/Model/Qwen3-0___6B", "Qwen3-0.6B"),
                                        ("/root/.cache/modelscope/hub/Qwen/Qwen3-0___6B", "Qwen/Qwen3-0.6B")])
def test_a_modelscope_masked_name_is_read_with_its_dots(path, name):
    """ModelScope stores ``Qwen/Qwen3-0.6B`` as ``Qwen/Qwen3-0___6B`` (``get_model_masked_directory``)."""
    notes = []
    found = _by_path_tail(path, notes)
    assert found is not None and found[0].num_layers == 28 and f"its name {name!r}" in notes[0]


def test_a_name_without_the_mask_is_not_changed():
    assert _path_tails(["models", "my__model"]) == ["models/my__model", "my__model"]
    assert _path_tails(["snapshots", "abc"]) == ["snapshots/abc", "abc"]  # no models-- folder: read as written


def _geometry(spec):
    return (spec.num_layers, spec.num_kv_heads, spec.head_dim, spec.hidden_size, bool(spec.mla))


def test_every_corpus_log_read_by_name_gets_the_geometry_of_its_labelled_config():
    """Where the corpus labels a log's model (models.json, with evidence) and the log's path resolves by name, the two
    agree on the KV geometry: the lookup by name never silently picks another architecture."""
    checked = 0
    for case in cases():
        label = MODELS.get(case["id"], {}).get("config")
        if not label:
            continue
        logged = parse_log((DATA / case["file"]).read_bytes()).run.value("model")
        if not logged or Path(str(logged)).exists():
            continue
        found = _by_path_tail(str(logged), [])
        if found is None:
            continue
        labelled = load_model(label[len("catalog:"):] if label.startswith("catalog:") else str(ROOT / label))
        assert _geometry(found[0]) == _geometry(labelled), (case["id"], logged, label)
        checked += 1
    assert checked >= 20


def test_every_corpus_log_whose_model_is_found_with_no_flags_gets_its_labelled_geometry():
    """Any way the model is found with no flags (the log's id as printed, a catalog entry named for it, a path read
    by its name), a log labelled in models.json gets the labelled config's KV geometry.  115 such logs of the 118
    found (of 290) on 2026-12-04 are the floor; scripts/model_by_name_check.py gives the whole count."""
    from tpkit.explain.context import resolve_model

    checked = 0
    for case in cases():
        label = MODELS.get(case["id"], {}).get("config")
        if not label:
            continue
        found, _ = resolve_model(parse_log((DATA / case["file"]).read_bytes()), {}, [])
        if found is None:
            continue
        labelled = load_model(label[len("catalog:"):] if label.startswith("catalog:") else str(ROOT / label))
        assert _geometry(found) == _geometry(labelled), (case["id"], label)
        checked += 1
    assert checked >= 115

