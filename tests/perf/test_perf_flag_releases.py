"""`tpkit perf` prints only flags the --engine-version parses (helper fix22, session 22; engines.cliflags)."""

from __future__ import annotations

import json

from tpkit.cli import main
from tpkit.perf.verdict import spec_flags, spec_flags_note

LLAMA = ["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "8"]


def _perf(argv, capsys) -> dict:
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_vllm_before_speculative_config_gets_its_own_spelling():
    """vLLM 0.6.5's arg_utils.py has --speculative-model / --num-speculative-tokens, no --speculative-config."""
    s = {"num_steps": 3, "topk": 1, "num_draft_tokens": 4}
    assert spec_flags("vllm", s, "EAGLE", "yuhuili/EAGLE-LLaMA3-Instruct-8B", "0.6.5") == [
        "--speculative-model yuhuili/EAGLE-LLaMA3-Instruct-8B", "--num-speculative-tokens 3"]
    assert spec_flags("vllm", s, "EAGLE3", None, "0.6.5") == []
    assert "has no --speculative-config (first in 0.8.2)" in spec_flags_note("vllm", "EAGLE3", "0.6.5")
    # from 0.8.2 on, and with no version (the newest read), the JSON config
    assert spec_flags("vllm", s, "EAGLE3", None, "0.19.1")[0].startswith("--speculative-config '")
    assert spec_flags("vllm", s, "EAGLE3", None, None)[0].startswith("--speculative-config '")
    assert spec_flags_note("vllm", "EAGLE3", "0.19.1") is None


def test_vllm_065_eagle3_verdict_prints_no_speculative_config(capsys):
    d = _perf(LLAMA + ["--engine", "vllm", "--engine-version", "0.6.5", "--speculative-algorithm", "EAGLE3"], capsys)
    assert not any("--speculative-config" in f for f in d["verdict"]["flags"])
    assert "vLLM 0.6.5 has no --speculative-config" in d["verdict"]["message"]


def test_symm_mem_is_sglang_flag_from_053_and_an_environment_variable_in_vllm(capsys):
    old = {b["backend"]: b for b in _perf(LLAMA + ["--engine", "sglang", "--engine-version", "0.5.1"],
                                          capsys)["backends"]}
    assert old["symm_mem"]["usable"] is False
    assert "SGLang 0.5.1 has no --enable-torch-symm-mem (first in 0.5.3)" in old["symm_mem"]["why"]
    new = {b["backend"]: b for b in _perf(LLAMA + ["--engine", "sglang", "--engine-version", "0.5.3"],
                                          capsys)["backends"]}
    assert new["symm_mem"]["usable"] is True and new["symm_mem"]["why"].startswith("--enable-torch-symm-mem")
    vllm = {b["backend"]: b for b in _perf(LLAMA + ["--engine", "vllm", "--engine-version", "0.19.1"],
                                           capsys)["backends"]}
    assert "--enable-torch-symm-mem" not in vllm["symm_mem"]["why"]
    assert "VLLM_ALLREDUCE_USE_SYMM_MEM=1" in vllm["symm_mem"]["why"]
