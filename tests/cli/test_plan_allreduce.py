"""`tpkit plan --tpkit-allreduce SIZE --disable-custom-all-reduce`: tpkit's buffers in the ledger, both engines."""

import json

import pytest

from tpkit.cli import main
from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.hardware.profile_io import save_machine_profile
from tpkit.memory.band import with_band
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

MODEL = "meta-llama/Llama-3.1-70B-Instruct"
BASE = (MODEL, "--gpu", "H100-SXM-80GB", "--tp", "4")
TPKIT = ("all-reduce one_shot buffers", "all-reduce one_shot_pull buffers", "all-reduce two_shot buffers",
         "all-reduce symm_mem_one_shot buffers", "all-reduce symm_mem_two_shot buffers")
ENGINE_AR = "custom all-reduce buffers"


def _run(capsys, *argv):
    code = main(["plan", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _doc(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--json")
    doc = json.loads(out)
    assert code == (0 if doc["verdict"]["fits"] else 3), err  # 3: DOES NOT FIT (the plan is still printed)
    doc["lines"] = {l["item"]: l for l in doc["ledger"]}
    return doc


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_tpkit_lines_replace_the_engines_line(capsys, engine):
    # vLLM 0.33: the estimate-based budget (0.34's extensible KV cache takes them out of the pool: test_extra_uses)
    release = ("--engine-version", "0.33") if engine == "vllm" else ()
    base = _doc(capsys, *BASE, "--engine", engine, *release)
    tpkit = _doc(capsys, *BASE, "--engine", engine, *release, "--tpkit-allreduce", "8MiB",
                 "--disable-custom-all-reduce")
    assert ENGINE_AR in base["lines"] and ENGINE_AR not in tpkit["lines"]
    assert [i for i in tpkit["lines"] if i.startswith("all-reduce ")] == list(TPKIT)
    for item in TPKIT:
        line = tpkit["lines"][item]
        assert line["kind"] == "use" and line["bytes"] > 0 and "full NVLink mesh (HGX)" in line["source"]
    engine_own = [ENGINE_AR] + [i for i in base["lines"] if i == "custom all-reduce MNNVL Lamport buffer"]
    delta = sum(tpkit["lines"][i]["bytes"] for i in TPKIT) - sum(base["lines"][i]["bytes"] for i in engine_own)
    if engine == "sglang":
        b, t = base["sglang"], tpkit["sglang"]
        assert b["pre_model_load_bytes"] - t["pre_model_load_bytes"] == delta
        slack = lambda d: next(l["bytes"] for l in d["ledger"] if l["item"].startswith("slack"))  # noqa: E731
        assert b["kv_budget_bytes"] - t["kv_budget_bytes"] == delta - (slack(base) - slack(tpkit))
        assert tpkit["kv_tokens"] < base["kv_tokens"]
    else:  # V1: at the init snapshot, outside the utilisation budget (the start-up check's headroom)
        outside = "outside the utilisation budget"
        assert base["lines"][outside]["bytes"] - tpkit["lines"][outside]["bytes"] == delta
        assert tpkit["available_kv_bytes"] == base["available_kv_bytes"]


def test_vllm_v0_kv_budget_shrinks_by_exactly_the_difference(capsys):
    argv = (*BASE, "--engine", "vllm", "--engine-version", "v0")
    base = _doc(capsys, *argv)
    tpkit = _doc(capsys, *argv, "--tpkit-allreduce", "8MiB", "--disable-custom-all-reduce")
    delta = sum(tpkit["lines"][i]["bytes"] for i in TPKIT) - base["lines"][ENGINE_AR]["bytes"]
    assert base["available_kv_bytes"] - tpkit["available_kv_bytes"] == delta
    assert tpkit["kv_tokens"] < base["kv_tokens"]


def test_text_ledger_shows_the_lines(capsys):
    code, out, err = _run(capsys, *BASE, "--tpkit-allreduce", "8MiB", "--disable-custom-all-reduce")
    assert code == 0, err
    assert "all-reduce one_shot buffers" in out and ENGINE_AR not in out


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_default_plan_is_byte_identical_to_the_planner_without_the_new_keywords(capsys, engine):
    code, out, err = _run(capsys, *BASE, "--engine", engine, "--json")
    assert code == 0, err
    model, gpu, par = load_model(MODEL), lookup_gpu("H100"), ParallelSpec(tp=4)
    direct = (with_band(plan_sglang, model, gpu, par, SglangOptions()) if engine == "sglang"
              else with_band(plan_vllm, model, gpu, par, VllmOptions()))
    assert out == json.dumps(direct.to_json_dict(), indent=2) + "\n"


@pytest.mark.parametrize("value, needles", [
    ("8", ("'8' has no unit", "--tpkit-allreduce 8MiB")),
    ("0MiB", ("must be a size > 0",)),
    ("lots", ("cannot read 'lots'",)),
])
def test_bad_sizes_exit_2_with_a_message(capsys, value, needles):
    code, out, err = _run(capsys, *BASE, "--tpkit-allreduce", value)
    assert code == 2 and "Traceback" not in err
    for needle in needles:
        assert needle in err


def _profile(tmp_path, nvlink: bool):
    n = 4
    gpus = tuple(GpuState(index=i, name="NVIDIA H100 80GB HBM3", total_bytes=GiB(79.19), free_bytes=GiB(78.5),
                          compute_capability=(9, 0)) for i in range(n))
    links = tuple(tuple(0 if i == j or not nvlink else 18 for j in range(n)) for i in range(n))
    p2p = tuple(tuple(i != j for j in range(n)) for i in range(n))
    path = tmp_path / "machine.json"
    save_machine_profile(MachineProfile(gpus=gpus, nvlink_links=links, p2p_access=p2p), path)
    return str(path)


def test_machine_topology_decides_and_force_pcie_is_read(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TPKIT_ALLREDUCE_FORCE_PCIE", raising=False)
    pcie = _profile(tmp_path, nvlink=False)
    doc = _doc(capsys, MODEL, "--machine", pcie, "--tp", "4", "--tpkit-allreduce", "8MiB")
    assert not [i for i in doc["lines"] if i.startswith("all-reduce ")]
    assert any("PCIe rule" in w and "charged 0 B" in w for w in doc["warnings"])
    two = _doc(capsys, MODEL, "--machine", pcie, "--tp", "2", "--num-gpus", "4", "--tpkit-allreduce", "8MiB")
    assert all(i in two["lines"] and "no full NVLink mesh (measured)" in two["lines"][i]["source"] for i in TPKIT)
    monkeypatch.setenv("TPKIT_ALLREDUCE_FORCE_PCIE", "1")
    forced = _doc(capsys, MODEL, "--machine", pcie, "--tp", "4", "--tpkit-allreduce", "8MiB")
    assert all(i in forced["lines"] for i in TPKIT)
    monkeypatch.delenv("TPKIT_ALLREDUCE_FORCE_PCIE")
    nv = _doc(capsys, MODEL, "--machine", _profile(tmp_path, nvlink=True), "--tp", "4", "--tpkit-allreduce", "8MiB")
    assert all("full NVLink mesh (measured)" in nv["lines"][i]["source"] for i in TPKIT)
