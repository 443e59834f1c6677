"""``tpkit plan --engine sglang --attention-backend NAME`` (helper ab28, 2026-12-06, session 28): SGLang's lower-case
names are taken (the ROCm aiter × 0.85 follows the backend: ``engines.sglang.choices.rocm_aiter_factor``), an
unknown name is refused with exit 2 and SGLang's list; vLLM keeps its any-case names."""

import json

import pytest

from tpkit.cli import main

BASE = ["plan", "Qwen/Qwen3-8B", "--engine", "sglang", "--engine-version", "0.5.13", "--mem-fraction-static", "0.8",
        "--json"]


def _fraction_source(capsys, *argv) -> str:
    """The plan's JSON as text (the fraction's source names the aiter step where it applies)."""
    assert main([*BASE, *argv]) == 0
    return json.dumps(json.loads(capsys.readouterr().out), ensure_ascii=False)


@pytest.mark.parametrize(("gpu", "backend", "factor"), [("MI300X", None, True), ("MI300X", "aiter", True),
                                                         ("MI300X", "triton", False), ("H100-SXM-80GB", "aiter", False),
                                                         ("H100-SXM-80GB", "fa3", False)])
def test_the_backend_sets_the_rocm_factor(gpu, backend, factor, capsys):
    text = _fraction_source(capsys, "--gpu", gpu, *(["--attention-backend", backend] if backend else []))
    assert ("aiter attention" in text and "× 0.85" in text) is factor


def test_unknown_sglang_backend_is_refused_with_exit_2_and_the_list(capsys):
    assert main([*BASE, "--gpu", "MI300X", "--attention-backend", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "not an SGLang attention backend" in err and "triton" in err and "aiter" in err
    assert "Traceback" not in err


def test_vllm_still_takes_its_names_in_any_case(capsys):
    assert main(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H200", "--engine-version",
                 "0.21.0", "--attention-backend", "flashinfer", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vllm"]["attention_backend"] == "FLASHINFER"


def test_plan_from_log_passes_the_printed_backend(capsys):
    """sg_633 (the run gs_444 scores: Qwen3.5-397B-A17B-FP8 tp 4 on MI355X, attention_backend='triton' and
    mem_fraction_static=0.8 printed): plan --from-log takes the backend, so no × 0.85 (4,756,841 tokens printed)."""
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    assert main(["plan", str(tests / "validation/configs/Qwen--Qwen3.5-397B-A17B-FP8.json"), "--from-log",
                 str(tests / "logs/data/sglang/sg_633.log"), "--gpu", "MI355X", "--json"]) in (0, 3)
    doc = json.loads(capsys.readouterr().out)
    text = json.dumps(doc, ensure_ascii=False)
    assert "aiter attention" not in text
    assert abs(doc["kv_tokens"] / 4_756_841 - 1) < 0.01  # 3,529,360 (-25.8 %) with the default backend's x 0.85
