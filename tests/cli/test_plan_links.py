"""`tpkit plan --link nvlink|pcie --no-p2p --nnodes N`: the user's links replace the catalog's assumption (an NVLink
GPU in a full NVLink mesh with peer access, one node) for the start-up NCCL row and the custom all-reduce, and the
ledger says which links were assumed and from where; `plan --from-log` takes them from the log's own lines."""

import json
from pathlib import Path

import pytest

from clirun import cli as _cli

ROOT = Path(__file__).resolve().parents[2]
QWEN = str(ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen2-7B-Instruct.json")
LOGS = ROOT / "tests" / "logs" / "data" / "vllm"
CAR = "custom all-reduce buffers"


def _plan(capsys, *argv, engine="vllm"):
    # vLLM 0.10.1.1 creates NCCL and the custom all-reduce after its init snapshot (they reach the KV budget);
    # from 0.11 they sit before it, outside the budget
    version = ("--engine-version", "0.10.1.1") if engine == "vllm" else ()
    code, out, err = _cli(capsys, "plan", QWEN, "--engine", engine, *version, "--gpu", "A100-80GB", "--tp", "2", *argv,
                          "--json")
    assert code == 0, err
    doc = json.loads(out)
    doc["lines"] = {l["item"]: l for l in doc["ledger"]}
    return doc


# helper ev32 (2026-12-07): SGLang's NCCL rows read the cells of its init window, "nccl[sglang:nvlink:2]"; the checks
# below match the transport and world of either key.
def _nccl(doc):
    return next(l for i, l in doc["lines"].items() if i in ("NCCL communicator init", "NCCL process group"))


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_each_flag_reaches_the_nccl_row_and_the_custom_allreduce(capsys, engine):
    base = _plan(capsys, engine=engine)
    assert "nvlink:2]" in _nccl(base)["source"]
    assert "from catalog: GPU A100-SXM-80GB assumed a full NVLink mesh" in _nccl(base)["source"]
    assert base["lines"][CAR]["bytes"] > 0
    pcie = _plan(capsys, "--link", "pcie", engine=engine)
    assert "pcie:2]" in _nccl(pcie)["source"] and "from --link pcie, in place of: catalog" in _nccl(pcie)["source"]
    assert pcie["lines"][CAR]["bytes"] > 0  # world 2 over PCIe with peer access: the engines keep it
    assert pcie["kv_tokens"] > base["kv_tokens"]
    for flags in (("--no-p2p",), ("--nnodes", "2")):
        off = _plan(capsys, *flags, engine=engine)
        assert "pcie:2]" in _nccl(off)["source"] and " ".join(flags) in _nccl(off)["source"]
        assert off["lines"].get(CAR, {"bytes": 0})["bytes"] == 0
        assert off["kv_tokens"] > pcie["kv_tokens"] - 16 * 64  # the custom all-reduce buffers are gone too
    nodes = _plan(capsys, "--nnodes", "2", engine=engine)
    assert "ASSUMPTION" in _nccl(nodes)["source"]
    assert _nccl(nodes)["uncertainty_bytes"] > _nccl(pcie)["uncertainty_bytes"]


def test_nnodes_leaves_a_tp_group_inside_one_node_alone(capsys):
    one = _plan(capsys, "--num-gpus", "4", "--nnodes", "2")
    assert "nvlink:2]" in _nccl(one)["source"] and one["lines"][CAR]["bytes"] > 0


def test_tpkit_allreduce_follows_the_link_flag(capsys):
    code, out, err = _cli(capsys, "plan", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100", "--tp", "4",
                          "--tpkit-allreduce", "8MiB", "--disable-custom-all-reduce", "--link", "pcie", "--json")
    assert code in (0, 3), err
    doc = json.loads(out)
    assert not [l for l in doc["ledger"] if l["item"].startswith("all-reduce ")]  # PCIe rule: 4 GPUs, no mesh
    assert any("no full NVLink mesh (--link pcie)" in w and "PCIe rule" in w for w in doc["warnings"])


@pytest.mark.parametrize("argv, says", [
    (("--link", "infiniband"), "invalid choice: 'infiniband' (choose from 'nvlink', 'pcie')"),
    (("--nnodes", "0"), "expected a whole number of nodes ≥ 1, got '0'"),
    (("--nnodes", "3"), "--nnodes 3 does not split the 2 GPUs of the deployment evenly"),
    (("--link", "nvlink", "--no-p2p"), "--link nvlink with --no-p2p"),
    (("--gpu", "L40S", "--link", "nvlink"), "L40S has no NVLink in the catalog; use --link pcie"),
])
def test_bad_values_exit_2_with_one_message(capsys, argv, says):
    code, out, err = _cli(capsys, "plan", QWEN, "--gpu", "A100-80GB", "--tp", "2", *argv)
    assert code == 2 and "Traceback" not in err and says in err, err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("log, gpu, says, flags", [
    ("vl_087.log", "A100-80GB", "--no-p2p as the log says (log line 9: 'Custom allreduce is disabled because your "
                                "platform lacks GPU P2P capability')", ()),
    ("vl_088.log", "A100-SXM-40GB", "--nnodes 2 as the log says (log line 10: 'Custom allreduce is disabled because "
                                    "this process group spans across nodes')", ()),
    ("vl_087.log", "A100-80GB", "from --link nvlink, in place of", ("--link", "nvlink")),  # the flag wins
])
def test_plan_from_log_takes_the_links_the_log_prints(capsys, log, gpu, says, flags):
    code, out, err = _cli(capsys, "plan", QWEN, "--gpu", gpu, "--from-log", str(LOGS / log), *flags, "--json")
    assert code == 0, err
    doc = json.loads(out)
    nccl = next(l for l in doc["ledger"] if l["item"] == "NCCL communicator init")
    assert says in nccl["source"]
    assert ("nvlink:2]" if flags else "pcie:2]") in nccl["source"]
    assert not any(l["item"] == CAR and l["bytes"] for l in doc["ledger"]) or flags
