"""``tpkit plan --cpu-offload-gb`` on the command line (both engines; GiB per GPU, the engines' unit): the help, the
refusals (a unit, a negative value, a fraction for SGLang: exit 2, one error line), the JSON plan, and ``--from-log``
on sg_081 (SGLang 0.5.9, Qwen3-14B fp16 tp 2, ``--cpu-offload-gb 48``), whose dump the reader maps.  The planner
side: tests/engines/test_cpu_offload.py."""

import json
from pathlib import Path

from clirun import cli, refused

from tpkit.logs import parse_log

SG_081 = Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang" / "sg_081.log"
QWEN3_14B = str(Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen3-14B.json")


def test_help_names_the_unit(capsys):
    code, out, _ = cli(capsys, "plan", "--help")
    text = " ".join(out.split())
    assert code == 0 and "--cpu-offload-gb GIB" in text and "GiB = 2^30 B, per GPU" in text


def test_refusals(capsys):
    base = ("plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4")
    refused(capsys, *base, "--cpu-offload-gb", "48GB",
            says=("expected a plain number of GiB per GPU", "48 GB = 44.70 GiB"))
    refused(capsys, *base, "--cpu-offload-gb", "8GiB", says=("no unit written", "write 8"))
    refused(capsys, *base, "--engine", "vllm", "--cpu-offload-gb", "-1", says=("must be ≥ 0 GiB per GPU, got -1",))
    refused(capsys, *base, "--engine", "sglang", "--cpu-offload-gb", "2.5",
            says=("SGLang reads it as a whole number", "write 2 or 3"))


def test_json_plan_weights_drop(capsys):
    plans = {}
    for gb in ("0", "6"):
        code, out, err = cli(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--engine", "vllm",
                             "--max-model-len", "8192", "--cpu-offload-gb", gb, "--json")
        assert code == 0, err
        plans[gb] = json.loads(out)
    weights = {gb: next(i for i in p["ledger"] if i["item"] == "model weights") for gb, p in plans.items()}
    assert abs(weights["0"]["bytes"]) - abs(weights["6"]["bytes"]) >= 6 * 2**30
    assert "--cpu-offload-gb 6 (GiB per GPU)" in weights["6"]["source"]
    assert plans["6"]["kv_tokens"] > plans["0"]["kv_tokens"]


def test_reader_maps_sg_081():
    run = parse_log(SG_081.read_text()).run
    assert run.cpu_offload_gb is not None and run.cpu_offload_gb.value == 48.0


def test_from_log_sg_081_plans_with_the_offload(capsys):
    code, out, err = cli(capsys, "plan", QWEN3_14B, "--from-log", str(SG_081), "--gpu-memory", "20GiB", "--json")
    assert code == 0, err
    plan = json.loads(out)
    text = " ".join(plan["warnings"])
    assert "--cpu-offload-gb 48" in text and "SGLang offloads all 40" in text
    assert plan["verdict"]["fits"]
    # without the log: the same settings, the weights planned from the config with the offload (≈ the log's 1.50 GB)
    code, out, err = cli(capsys, "plan", QWEN3_14B, "--engine", "sglang", "--engine-version", "0.5.9", "--tp", "2",
                         "--gpu-memory", "20GiB", "--mem-fraction-static", "0.65", "--dtype", "float16",
                         "--cpu-offload-gb", "48", "--json")
    assert code == 0, err
    weights = next(i for i in json.loads(out)["ledger"] if i["item"] == "weights")
    assert 1.45 * 2**30 < abs(weights["bytes"]) < 1.55 * 2**30
