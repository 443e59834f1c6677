"""Round bl24's speculative cases (helper bl24, 2026-12-06, session 24): a vLLM case's ``--speculative-config``
names its head by a config file kept in tests/validation/configs, and the harness passes that file's path on.

The heads' configs are checked against what vLLM 0.24.0 printed for the same starts
(manojarulmurugan/SpecDecoding-Study-vLLM-SGLang server logs): 'Model loading took' with the head minus without it
(EAGLE: 15.43 − 14.96 GiB, vp_883 / vp_884; EAGLE-3: 15.8 − 15.0 GiB, vp_890 / vp_887), each printed to the
rounding shown, so the difference carries twice that rounding."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
from tpkit.engines.registry import get_engine  # noqa: E402

CASES = {c["id"]: c for c in harness.load_cases("vllm")}


def _drafter_weights_gib(cid: str) -> float:
    model, gpu, parallel, options = harness.inputs(CASES[cid])
    ledger = get_engine("vllm").plan(model, gpu, parallel, options).to_json_dict()["ledger"]
    return next(x["bytes"] for x in ledger if x["item"].startswith("drafter weights")) / 2**30


@pytest.mark.parametrize("cid,method,config", [
    ("vp_883", "eagle", "yuhuili--EAGLE-LLaMA3-Instruct-8B.json"),
    ("vp_890", "eagle3", "yuhuili--EAGLE3-LLaMA3.1-Instruct-8B.json"),
])
def test_the_head_named_by_its_config_file_reaches_the_plan(cid, method, config):
    stored = json.loads(CASES[cid]["flags"]["speculative_config"])
    assert stored["model"] == config and stored["method"] == method  # the case keeps the file name, not a path
    _, _, _, options = harness.inputs(CASES[cid])
    passed = json.loads(options.speculative_config)
    assert passed["model"] == str(harness.CONFIGS / config) and Path(passed["model"]).is_file()
    assert passed["num_speculative_tokens"] == 5


@pytest.mark.parametrize("cid,printed_gib,rounding_gib", [("vp_883", 15.43 - 14.96, 0.01), ("vp_890", 15.8 - 15.0, 0.1)])
def test_the_heads_weights_match_what_vllm_printed(cid, printed_gib, rounding_gib):
    assert abs(_drafter_weights_gib(cid) - printed_gib) <= rounding_gib


def test_a_case_without_a_head_plans_no_drafter():
    _, _, _, options = harness.inputs(CASES["vp_884"])
    assert getattr(options, "speculative_config", None) is None
