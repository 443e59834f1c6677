"""A pasted ``vllm serve`` command line with vLLM's short flags reads as written (helper rev11, 2026-12-05).

vLLM 0.29.0 engine/arg_utils.py ``add_cli_args`` spells ``-tp``, ``-pp``, ``-dcp``, ``-dp``, ``-ep`` and ``-sc``
for ``--tensor-parallel-size``, ``--pipeline-parallel-size``, ``--decode-context-parallel-size``,
``--data-parallel-size``, ``--enable-expert-parallel`` and ``--speculative-config``; ``tpkit plan … -tp 8 -dcp 8``
answered "tpkit plan has no flag -tp". Each short spelling gives the plan of its long one.
"""

import json

import pytest
from clirun import cli

SPEC = '{"method": "eagle3", "model": "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", "num_speculative_tokens": 3}'


@pytest.mark.parametrize("model, short, long", [
    ("moonshotai/Kimi-K2-Instruct", ["-tp", "8", "-dcp", "8"], ["--tensor-parallel-size", "8",
                                                               "--decode-context-parallel-size", "8"]),
    ("Qwen/Qwen3-30B-A3B", ["-tp", "2", "-dp", "2", "-ep"], ["--tp", "2", "--data-parallel-size", "2",
                                                            "--enable-expert-parallel"]),
    ("Qwen/Qwen3-8B", ["-pp", "2"], ["--pipeline-parallel-size", "2"]),
    ("meta-llama/Llama-3.1-8B-Instruct", ["-sc", SPEC], ["--speculative-config", SPEC]),
])
def test_short_spellings_plan_as_the_long_ones(capsys, model, short, long):
    base = ["plan", model, "--engine", "vllm", "--gpu", "H200", "--json"]
    code, out, err = cli(capsys, *base, *short)
    assert code in (0, 3), err
    by_short = json.loads(out)
    _, out, _ = cli(capsys, *base, *long)
    by_long = json.loads(out)
    assert by_short["parallel"] == by_long["parallel"] and by_short["kv_tokens"] == by_long["kv_tokens"]


def test_perf_and_explain_take_minus_tp(capsys):
    code, out, err = cli(capsys, "perf", "Qwen/Qwen3-8B", "--gpu", "H100", "-tp", "2", "--json")
    assert code == 0 and json.loads(out)["tp"] == 2, err
    code, _, err = cli(capsys, "explain", "tests/logs/data/vllm/vl_067.log", "-tp", "1")
    assert code == 0, err


def test_sglang_reads_data_parallel_size_as_its_dp(capsys):
    """SGLang's server_args spells dp_size --data-parallel-size too (0.4.4, 0.5.6, 0.5.8 read); it was refused as "a
    vLLM flag; SGLang has no such flag"."""
    base = ["plan", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--enable-dp-attention", "--json"]
    code, out, err = cli(capsys, *base, "--data-parallel-size", "8")
    assert code == 0, err
    by_long = json.loads(out)
    _, out, _ = cli(capsys, *base, "--dp", "8")
    assert by_long["parallel"] == json.loads(out)["parallel"] and by_long["parallel"]["dp"] == 8
    code, out, err = cli(capsys, *base[:-1], "--dp", "4", "--data-parallel-size", "8")
    assert code == 2 and "disagree" in err
