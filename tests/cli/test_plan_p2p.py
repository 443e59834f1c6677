"""`tpkit plan` on GPUs whose catalog entry records no CUDA peer access over PCIe (``GpuSpec.pcie_p2p``): the plan
takes the start-up terms of ``--no-p2p``, says so and why, and ``--p2p`` / ``--no-p2p`` override it (helper p2p,
2026-12-04)."""

import json
from pathlib import Path

from clirun import cli as _cli

ROOT = Path(__file__).resolve().parents[2]
QWEN = str(ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen2-7B-Instruct.json")


def _plan(capsys, gpu, *argv):
    code, out, err = _cli(capsys, "plan", QWEN, "--engine", "vllm", "--engine-version", "0.19.0", "--gpu", gpu,
                          "--tp", "2", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_plan_says_what_it_assumed_and_the_flags_override_it(capsys):
    base = _plan(capsys, "RTX-4090")
    assert any(w.startswith("RTX-4090 over PCIe: no CUDA peer access assumed") for w in base["warnings"])
    lines = {line["item"]: line for line in base["ledger"]}
    assert "no P2P, from catalog: GPU RTX-4090" in lines["non-torch growth during profiling"]["source"]
    bridged = _plan(capsys, "RTX-4090", "--p2p")
    assert not any("no CUDA peer access assumed" in w for w in bridged["warnings"])
    assert bridged["kv_tokens"] < base["kv_tokens"]  # the world-2 growth row and the custom all-reduce are charged
    told = _plan(capsys, "RTX-4090", "--no-p2p")
    assert told["kv_tokens"] == base["kv_tokens"]
    assert not any("no CUDA peer access assumed" in w for w in told["warnings"])
    pro = _plan(capsys, "RTX-6000-Ada")
    assert not any("peer access" in w for w in pro["warnings"])


def test_plan_refuses_both_flags(capsys):
    code, out, err = _cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "RTX-4090", "--tp", "2", "--p2p",
                          "--no-p2p")
    assert code == 2 and "--p2p and --no-p2p contradict each other" in err and "Traceback" not in err


def test_list_gpus_json_gives_the_links_a_plan_assumes(capsys):
    code, out, err = _cli(capsys, "plan", "--list-gpus", "--json")
    assert code == 0, err
    gpus = {g["name"]: g for g in json.loads(out)["gpus"]}
    assert gpus["RTX-4090"]["pcie_p2p"] is False and gpus["RTX-6000-Ada"]["pcie_p2p"] is True
    assert gpus["H100-SXM-80GB"]["nvlink"] and gpus["H100-SXM-80GB"]["pcie_p2p"] is None
