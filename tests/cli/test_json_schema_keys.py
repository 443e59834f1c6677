"""Every JSON document the CLI prints (or ``bench allreduce --json FILE`` writes) names its schema (session 23).

``tpkit plan --json`` and ``tpkit perf --json`` carried only ``schema_version``; ``--list-gpus/--list-models
--json`` and ``tpkit probe --json`` carried no name at all.  Each object document now has ``schema``
(``tpkit.<what>/<n>``, the pattern ``tpkit explain --json`` and the error object already used), and every key a
script read before is still there with its value (keys are only added).  The one JSON list, the rows file
``bench allreduce --json FILE`` writes next to FILE (``FILE.rows.json``), is left a list: wrapping it would break
its readers; its profile FILE names the schema.  CPU only: ``tpkit probe`` gets a fake probe.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clirun import cli
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.units import GiB

LOGS = Path(__file__).resolve().parents[1] / "logs" / "data"
SCHEMA = re.compile(r"^tpkit\.[a-z.]+/\d+$")
PLAN = ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100"]
PERF = ["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H200"]

PLAN_KEYS = {"schema_version", "engine", "engine_version", "model", "gpu", "parallel", "ledger", "ledger_rank",
             "kv_tokens", "kv_pool", "max_running_requests", "max_concurrency", "context_length", "verdict",
             "warnings", "engine_log"}
PERF_KEYS = {"schema_version", "baseline", "speculative", "allreduce", "crossover_batch", "crossover_context",
             "best_settings", "verdict", "by_batch", "by_context", "backends"}
EXPLAIN_KEYS = {"engine", "engine_version", "engine_evidence", "model", "gpu", "run", "rank", "kv_tokens", "ledger",
                "diagnosis", "contradictions", "notes", "missing"}
PROBE_KEYS = {"profile_version", "hostname", "driver_version", "gpus", "nvlink_links", "p2p_access", "pcie_path",
              "extra"}
ERROR_KEYS = {"command", "exit_code", "error"}


def _document(capsys, *argv, code=0):
    got, out, err = cli(capsys, *argv)
    assert got == code, (got, out[-400:], err[-400:])
    doc = json.loads(out)
    assert isinstance(doc, dict), type(doc)
    assert SCHEMA.fullmatch(doc.get("schema", "")), doc.get("schema")
    return doc


def test_plan_names_its_schema_and_keeps_schema_version(capsys):
    doc = _document(capsys, *PLAN, "--json")
    assert doc["schema"] == "tpkit.plan/1" and doc["schema_version"] == 1
    assert PLAN_KEYS <= set(doc), PLAN_KEYS - set(doc)


def test_plan_from_log_names_the_plan_schema(capsys):
    config = LOGS.parents[1] / "validation" / "configs" / "Qwen--Qwen2.5-3B-Instruct.json"
    doc = _document(capsys, "plan", str(config), "--from-log", str(LOGS / "vllm" / "vl_152.log"), "--json")
    assert doc["schema"] == "tpkit.plan/1" and doc["schema_version"] == 1
    assert PLAN_KEYS <= set(doc), PLAN_KEYS - set(doc)


def test_plan_from_log_without_a_model_gives_the_named_error_object(capsys):
    doc = _document(capsys, "plan", "--from-log", str(LOGS / "vllm" / "vl_001.log"), "--json", code=2)
    assert doc["schema"] == "tpkit.error/1" and ERROR_KEYS <= set(doc)


def test_perf_names_its_schema_and_keeps_schema_version(capsys):
    doc = _document(capsys, *PERF, "--json")
    assert doc["schema"] == "tpkit.perf/1" and doc["schema_version"] == 1
    assert PERF_KEYS <= set(doc), PERF_KEYS - set(doc)


def test_explain_keeps_its_schema(capsys):
    doc = _document(capsys, "explain", str(LOGS / "vllm" / "vl_001.log"), "--json")
    assert doc["schema"] == "tpkit.explain/1"
    assert EXPLAIN_KEYS <= set(doc), EXPLAIN_KEYS - set(doc)


@pytest.mark.parametrize("flags, schema, keys", [
    (["--list-gpus"], "tpkit.list.gpus/1", {"gpus", "mig_slices"}),
    (["--list-models"], "tpkit.list.models/1", {"models"}),
    (["--list-gpus", "--list-models"], "tpkit.list.gpus.models/1", {"gpus", "mig_slices", "models"}),
])
def test_catalog_lists_name_their_schema(capsys, flags, schema, keys):
    doc = _document(capsys, "plan", *flags, "--json")
    assert doc["schema"] == schema and set(doc) == {"schema", *keys}
    assert all(isinstance(doc[k], list) and doc[k] for k in keys)


def _fake_profile() -> MachineProfile:
    gpus = tuple(GpuState(index=i, name="NVIDIA H100 80GB HBM3", total_bytes=GiB(79.19), free_bytes=GiB(78.5),
                          compute_capability=(9, 0)) for i in range(2))
    return MachineProfile(gpus=gpus, nvlink_links=((0, 18), (18, 0)), p2p_access=((True, True), (True, True)),
                          pcie_path=(("X", "NV18"), ("NV18", "X")), hostname="box", driver_version="570.1")


def test_probe_names_its_schema_and_plan_reads_it_back(capsys, monkeypatch, tmp_path):
    import tpkit.runtime.machine_probe as probe

    monkeypatch.setattr(probe, "no_gpu_reason", lambda: None)
    monkeypatch.setattr(probe, "probe_machine", lambda use_nvml=True: _fake_profile())
    doc = _document(capsys, "probe", "--json")
    assert doc["schema"] == "tpkit.probe/1" and doc["profile_version"] == 1
    assert PROBE_KEYS <= set(doc) and len(doc["gpus"]) == 2
    # `tpkit probe --json > m.json && tpkit plan --machine m.json`: the new key does not make the file unreadable
    machine = tmp_path / "m.json"
    machine.write_text(json.dumps(doc))
    assert _document(capsys, *PLAN[:2], "--machine", str(machine), "--json")["schema"] == "tpkit.plan/1"
    # the file --out writes is the same document
    out = tmp_path / "out.json"
    assert cli(capsys, "probe", "--out", str(out))[0] == 0
    assert json.loads(out.read_text()) == doc


def test_probe_without_a_gpu_names_its_schema(capsys, monkeypatch):
    import tpkit.runtime.machine_probe as probe

    monkeypatch.setattr(probe, "no_gpu_reason", lambda: "no CUDA device (fake)")
    doc = _document(capsys, "probe", "--json")
    assert doc == {"schema": "tpkit.probe/1", "gpus": [], "reason": "no CUDA device (fake)"}


def test_a_profile_of_another_schema_is_refused(capsys, tmp_path):
    from tpkit.hardware.profile_io import profile_to_dict

    machine = tmp_path / "m.json"
    machine.write_text(json.dumps({**profile_to_dict(_fake_profile()), "schema": "tpkit.plan/1"}))
    doc = _document(capsys, *PLAN[:2], "--machine", str(machine), "--json", code=2)
    assert doc["schema"] == "tpkit.error/1" and "tpkit.probe/1" in doc["error"]["message"]


@pytest.mark.parametrize("argv", [
    [*PLAN, "--tp", "3"],
    [*PERF, "--tp", "3"],
    ["explain", "/nonexistent/engine.log"],
    ["probe", "--no-such-flag"],
])
def test_error_documents_name_their_schema(capsys, argv):
    doc = _document(capsys, *argv, "--json", code=2)
    assert doc["schema"] == "tpkit.error/1" and doc["exit_code"] == 2 and ERROR_KEYS <= set(doc)


def test_bench_allreduce_profile_names_its_schema_and_rows_stay_a_list(tmp_path, capsys):
    """``bench allreduce --json FILE`` writes FILE (an object, named) and FILE.rows.json (a list, left as is); the
    named profile still loads, and ``tpkit perf --allreduce-profile`` reads it."""
    from tpkit.comm.benchmain import _write_outputs
    from tpkit.comm.profile import default_profile, load_profile
    from tpkit.comm.benchreport import rows_path

    path = tmp_path / "prof.json"
    _write_outputs({"json": str(path)}, [], default_profile(), None, None, 1, "graph")
    doc = json.loads(path.read_text())
    assert doc["schema"] == "tpkit.bench.allreduce/1" and SCHEMA.fullmatch(doc["schema"])
    assert {"version", "source", "mode", "dtype", "link_ceiling_gbps", "world_sizes"} <= set(doc)
    assert doc["version"] == 1
    assert json.loads(Path(rows_path(str(path))).read_text()) == []
    assert load_profile(path).world_sizes == default_profile().world_sizes
    got = _document(capsys, "perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "2",
                    "--allreduce-profile", str(path), "--json")
    assert got["allreduce"]["source"].startswith("measured profile")
