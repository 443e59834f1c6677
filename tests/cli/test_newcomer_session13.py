"""What the session-13 newcomer pass met (helper nb13, 2026-12-05), pinned: a log quoted in markdown explains; a
speculative verdict says when its break-even accept length is out of any draft's reach; a WSL2 / Windows user of a
consumer card learns the total CUDA reports there and the flag that plans it; ``plan --from-log`` says what the log
lacks (a GPU, a model config) and, under vLLM, which terms it measured, none included."""

from __future__ import annotations

import pathlib

import pytest
from clirun import cli, refused

DATA = pathlib.Path(__file__).resolve().parents[1] / "logs" / "data"
ROOT = pathlib.Path(__file__).resolve().parents[2]
AWQ = str(ROOT / "bench" / "data" / "qwen3.5-397b-a17b-awq.config.json")
SPEC = ("--gpu", "RTX-PRO-6000", "--tp", "4", "--engine", "vllm", "--speculative-algorithm", "MTP",
        "--speculative-num-steps", "2", "--context", "131072", "--engine-version", "0.17.0")


def test_a_log_quoted_in_markdown_gives_its_printed_capacity(capsys):
    # vl_862: '- GPU KV cache size: `418,304 tokens`' in a deployment's notes
    code, out, _ = cli(capsys, "explain", str(DATA / "vllm" / "vl_862.log"))
    assert code == 0 and "KV tokens   printed 418,304" in out


def test_an_unreachable_break_even_says_so(capsys):
    # FA2's verify without a KV split (aw13): 16-bit KV at 128k needs more accepted tokens than 2 steps can give
    code, out, _ = cli(capsys, "perf", AWQ, *SPEC)
    assert code == 0
    assert "No draft can reach it: a cycle of 2 draft step(s) yields at most 3 tokens" in out
    code, out, _ = cli(capsys, "perf", AWQ, *SPEC, "--attention-backend", "FLASHINFER")
    # 1.39 before the verify kept a GDN state per token (perf.linear_state, helper gdn23)
    assert code == 0 and "Break-even accept length 1.40" in out and "No draft can reach it" not in out


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_consumer_card_names_its_wsl2_total(capsys, engine):
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "RTX-4090", "--engine", engine)
    assert code in (0, 3)
    text = " ".join(out.split())
    assert "under WSL2 or Windows CUDA reports about nvidia-smi's total, 24,564 MiB (23.99 GiB)" in text
    assert "--gpu-memory 24564MiB" in text
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "RTX-4090", "--gpu-memory", "24564MiB",
                       "--engine", engine)
    assert "WSL2" not in out and "23.99" in out
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", engine)
    assert "WSL2" not in out


def test_t4_total_tells_an_older_driver_what_to_pass(capsys):
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen3-0.6B", "--gpu", "T4", "--engine", "vllm")
    text = " ".join(out.split())
    assert "14.56 GiB" in text and "older driver should pass --gpu-memory" in text


def test_from_log_without_a_gpu_says_the_log_names_none(capsys):
    refused(capsys, "plan", "Qwen/Qwen3-8B", "--from-log", str(DATA / "sglang" / "sg_031.log"),
            says=("no GPU given (--from-log", "names no GPU and prints no device total", "--gpu NAME"))


def test_from_log_with_an_unknown_model_suggests_its_own_config(capsys):
    log = str(DATA / "vllm" / "vl_048.log")
    refused(capsys, "plan", "--from-log", log, "--max-model-len", "34736",
            says=("'./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8'", "./Qwen3-Coder-30B-A3B-Instruct-FP8/config.json"))
    _, _, err = cli(capsys, "plan", "--from-log", log)
    assert "meta-llama" not in err


def test_from_log_names_the_vllm_terms_it_measured(capsys):
    cfg = str(DATA / "configs" / "Qwen__Qwen3.8-27B" / "config.json")
    _, out, _ = cli(capsys, "plan", cfg, "--from-log", str(DATA / "vllm" / "vl_038.log"))
    text = " ".join(out.split())
    assert "the log prints no weights ('Model loading took')" in text and "the weights measured" not in text
    cfg = str(DATA / "configs" / "ibm-granite__granite-4.0-micro" / "config.json")
    _, out, _ = cli(capsys, "plan", cfg, "--from-log", str(DATA / "vllm" / "vl_050.log"), "--gpu", "H100")
    assert "vLLM: the weights" in " ".join(out.split())
