"""Every fix a verdict names is a re-run the same CLI accepts and plans to fit (helper mig18b, 2026-12-05).

A general guard on the refusal / fix pair: for a sample of plans that do not fit (MIG slices and whole cards, both
engines) every fix's flags (``verdict.fixes`` in the JSON) are passed back to ``tpkit plan`` with the run's own flags:
the re-run must exit 0 and fit.  Before helper mig18b a MIG slice was offered ``--tp 2``, which the same CLI refuses
(exit 2); likewise ``tpkit explain``'s fixes called a fit must re-plan to fit through ``tpkit plan --from-log``."""

import json
import shlex
from pathlib import Path

import pytest

from tests.cli.clirun import cli

ROOT = Path(__file__).resolve().parents[2]

NOT_FITTING = [
    ("vllm", "google/gemma-3-1b-it", "A100-40GB-MIG-1g.5gb", ()),
    ("sglang", "google/gemma-3-1b-it", "A100-40GB-MIG-1g.5gb", ()),
    ("vllm", "Qwen/Qwen3-8B", "A100-40GB-MIG-1g.5gb", ()),
    ("sglang", "Qwen/Qwen3-8B", "H100-MIG-1g.10gb", ()),
    ("vllm", "Qwen/Qwen3-8B", "H100-MIG-1g.10gb", ("--engine-version", "0.33.0")),
    ("vllm", "Qwen/Qwen3-8B", "T4", ()),
    ("sglang", "Qwen/Qwen3-8B", "T4", ()),
    ("vllm", "Qwen/Qwen3-8B", "L4", ("--engine-version", "0.33.0")),
    ("vllm", "Qwen/Qwen3-8B", "L4", ("--engine-version", "0.33.0", "--gpu-memory-utilization", "0.7")),
    ("sglang", "Qwen/Qwen3-8B", "L4", ("--mem-fraction-static", "0.6")),
    ("vllm", "Qwen/Qwen3-8B", "A100-40GB-MIG-3g.20gb", ("--engine-version", "0.33.0")),
]


def _plan(capsys, *argv):
    """(exit code, the JSON plan, stderr): exit 0 fits, 3 does not fit (the JSON either way), 2 refused."""
    code, out, err = cli(capsys, "plan", *argv, "--json")
    return code, (json.loads(out) if code in (0, 3) and out.strip() else None), err


@pytest.mark.parametrize("engine,model,gpu,extra", NOT_FITTING)
def test_every_fix_reruns_and_fits(capsys, engine, model, gpu, extra):
    base = (model, "--engine", engine, "--gpu", gpu, *extra)
    code, plan, err = _plan(capsys, *base)
    assert code == 3, err
    verdict = plan["verdict"]
    assert verdict["fits"] is False, verdict["message"]
    assert verdict["fixes"], verdict["message"]  # the sample is chosen so that something fits
    for flags in verdict["fixes"]:
        assert flags.split()[0] in verdict["message"], (flags, verdict["message"])
        code, again, err = _plan(capsys, *base, *shlex.split(flags))
        assert code == 0, (flags, err)
        assert again["verdict"]["fits"] is True, (flags, again["verdict"]["message"])


def test_mig_slice_gets_a_larger_slice_or_the_whole_card_never_tp(capsys):
    """The newcomer's case: gemma-3-1b-it on an A100 1g.5gb slice (vLLM 0.34)."""
    code, plan, _ = _plan(capsys, "google/gemma-3-1b-it", "--engine", "vllm", "--gpu", "A100-40GB-MIG-1g.5gb")
    verdict = plan["verdict"]
    assert "--tp" not in verdict["message"] and not any(f.startswith("--tp") for f in verdict["fixes"])
    assert verdict["fixes"][:2] == ["--gpu A100-SXM-40GB-MIG-1g.10gb", "--gpu A100-SXM-40GB"]
    assert "tensor parallelism across MIG instances is not supported" in verdict["message"]


@pytest.mark.parametrize("log,gpu", [("vl_159", "A100-40GB-MIG-2g.10gb"), ("vl_106", "A100-40GB-MIG-2g.10gb")])
def test_explain_on_a_slice_offers_no_tp_and_its_fits_replan(capsys, log, gpu):
    """``tpkit explain --gpu <slice>``: no fix asks for more GPUs (``diagnosis.fixes[].flags``), and each fix called
    a fit re-plans to fit through ``tpkit plan --from-log LOG --gpu <slice> <flags>``."""
    path = str(ROOT / "tests" / "logs" / "data" / "vllm" / f"{log}.log")
    code, out, err = cli(capsys, "explain", path, "--gpu", gpu, "--json")
    assert code == 0, err
    fixes = json.loads(out)["diagnosis"]["fixes"]
    assert not any("tensor-parallel" in f["flags"] or "--tp " in f["flags"] for f in fixes), fixes
    fitting = [f for f in fixes if f["fits"]]
    assert any(f["flags"].startswith("--gpu ") for f in fitting), fixes
    for f in fitting:
        code, plan, err = _plan(capsys, "--from-log", path, "--gpu", gpu, *shlex.split(f["flags"]))
        assert code == 0, (f["flags"], err)
        assert plan["verdict"]["fits"] is True, (f["flags"], plan["verdict"]["message"])
