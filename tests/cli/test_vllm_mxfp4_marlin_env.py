"""VLLM_MXFP4_USE_MARLIN in a log (helper mx29, 2026-12-07): ``--from-log`` reads the variable off a launch or an
environment line as ``--vllm-mxfp4-use-marlin`` (``logs.run.env_settings``), and the plan then charges the Marlin
padding on Hopper (``engines.vllm.mxfp4.marlin_forced``).  vl_1161 is InferenceX's gpt-oss-120b start on one H200
(vLLM 0.22.0, 'Using 'MARLIN' Mxfp4 MoE backend'); the committed log keeps the '+ vllm serve' line but not the
runner's '+ export VLLM_MXFP4_USE_MARLIN=1' above it, which the tests put back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "tests" / "logs" / "data" / "vllm" / "vl_1161.log"


def _mxfp4_items(plan):
    items = plan["ledger"]["items"] if isinstance(plan["ledger"], dict) else plan["ledger"]
    return [i["item"] for i in items if i["item"].startswith("MXFP4 MoE")]


@pytest.mark.parametrize("first_line, marlin", [
    ("+ export VLLM_MXFP4_USE_MARLIN=1", True),
    ("VLLM_MXFP4_USE_MARLIN=1 vllm serve openai/gpt-oss-120b --tensor-parallel-size 1", True),
    ("{'VLLM_MXFP4_USE_MARLIN': '1', 'VLLM_USE_V1': '1'}", True),
    ("+ export VLLM_MXFP4_USE_MARLIN=0", False),
    ("", False),
])
def test_from_log_reads_the_variable(capsys, tmp_path, first_line, marlin):
    log = tmp_path / "server.log"
    log.write_text((first_line + "\n" if first_line else "") + LOG.read_text())
    code, out, err = cli(capsys, "plan", "--from-log", str(log), "--gpu", "H200-SXM-141GB", "--json")
    plan = json.loads(out)
    assert code == 0, err
    assert _mxfp4_items(plan) == (["MXFP4 MoE padding (Marlin)"] if marlin
                                  else ["MXFP4 MoE swizzle (Hopper triton_kernels)"])
    read = any("--vllm-mxfp4-use-marlin on: read from the log" in w for w in plan["warnings"])
    assert read is marlin


def test_the_flag_given_wins_over_the_log(capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text("+ export VLLM_MXFP4_USE_MARLIN=1\n" + LOG.read_text())
    code, out, err = cli(capsys, "plan", "--from-log", str(log), "--gpu", "H200-SXM-141GB",
                         "--vllm-mxfp4-use-marlin", "off", "--json")
    assert code == 0, err
    assert _mxfp4_items(json.loads(out)) == ["MXFP4 MoE swizzle (Hopper triton_kernels)"]
