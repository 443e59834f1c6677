"""Newcomer findings of session 25 (helper ux25, 2026-12-06): a user's first hour with a pasted launch line, logs as
docker compose / kubectl / journalctl give them (one cut mid-line), ``tpkit perf`` on PCIe boxes without CUDA peer
access, and ux24's design questions.  Every test fails on main de63c177 except where its docstring says it guards
what did not change; the sessions are in docs/runs/ux25_new_user_sessions_2026-12-06.txt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli, refused

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QWEN = "Qwen/Qwen3-8B"
V19 = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_1016.log"
"""vLLM 0.19.0, Llama-3.1-8B at tp 2 on H100s, one start: its weights printed in three line formats"""


# --- a pasted launch line ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, engine", [
    (("plan", "vllm", "serve", LLAMA, "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9", "--gpu",
      "H100"), "vllm"),
    (("perf", "vllm", "serve", LLAMA, "--tensor-parallel-size", "2", "--gpu", "H100"), "vllm"),
    (("plan", "python", "-m", "sglang.launch_server", "--model-path", QWEN, "--tp", "2", "--gpu", "H100"), "sglang"),
])
def test_a_pasted_launch_line_is_taken_with_its_engine(capsys, argv, engine):
    """Before: exit 2, 'vllm serve' is the engine's own command … (drop 'vllm serve')."""
    code, out, err = cli(capsys, *argv, "--json")
    assert code == 0, err
    assert f"as --engine {engine}" in err
    doc = json.loads(out)
    assert doc["engine"] == engine if "engine" in doc else doc["inputs"]["engine"] == engine


def test_the_model_path_flag_is_read_as_model_and_the_plan_is_the_same(capsys):
    """Before: exit 2, '--model-path is the engines' flag for the model'."""
    code, out, err = cli(capsys, "plan", "--engine", "sglang", "--model-path", QWEN, "--tp", "2", "--gpu", "H100",
                         "--port", "30000", "--json")
    assert code == 0 and f"read --model-path {QWEN} as MODEL" in err
    plain = cli(capsys, "plan", QWEN, "--engine", "sglang", "--tp", "2", "--gpu", "H100", "--json")
    assert json.loads(out)["kv_tokens"] == json.loads(plain[1])["kv_tokens"]


def test_a_launch_line_typed_where_the_command_goes_names_plan_and_perf(capsys):
    """Before: "invalid choice: 'vllm' (choose from 'plan', …)" and nothing on what to do."""
    refused(capsys, "vllm", "serve", LLAMA, "--tensor-parallel-size", "2",
            says=("engine's launch line", "tpkit plan vllm", "tpkit perf vllm"))


@pytest.mark.parametrize("flag", [("--swap-space", "16"), ("--distributed-executor-backend", "ray"),
                                  ("--disable-frontend-multiprocessing",), ("--max-log-len", "100")])
def test_more_serving_flags_of_a_vllm_line_are_ignored_with_a_note(capsys, flag):
    """Before: 'tpkit plan has no flag --swap-space'."""
    code, _, err = cli(capsys, "plan", LLAMA, "--engine", "vllm", "--gpu", "H100", *flag)
    assert code == 0 and f"ignored {flag[0]}" in err


# --- explain -------------------------------------------------------------------------------------------------------

def test_a_log_cut_after_a_numbers_decimal_point_does_not_read_the_digits_left(capsys, tmp_path):
    """Before: 'Available KV cache memory: 63.' (the copy cut there) read as 63.00 GiB and 1,032,104 tokens rebuilt
    (the full line prints 63.76 GiB: 1,044,688 tokens)."""
    text = V19.read_text()
    cut = tmp_path / "cut.log"
    cut.write_text(text[:text.index("Available KV cache memory") + 30])
    assert cut.read_text().endswith("memory: 63.")
    code, out, _ = cli(capsys, "explain", str(cut))
    assert code == 0 and "63.00 GiB" not in out and "1,032,104" not in out


def test_one_start_that_prints_its_weights_in_three_formats_is_one_start(capsys):
    """Before: 'note: several start-ups in one log (3 'weights' lines on one rank)' on a log of one start."""
    code, out, _ = cli(capsys, "explain", str(V19))
    assert code == 0 and "several start-ups" not in out


def test_a_second_start_in_the_same_format_is_still_named(capsys, tmp_path):
    """Guards what did not change: a log with two starts is read from its last one, and says so."""
    lines = V19.read_text().splitlines()
    twice = tmp_path / "twice.log"
    twice.write_text("\n".join(lines[:50] + lines) + "\n")
    code, out, _ = cli(capsys, "explain", str(twice))
    assert code == 0 and "engine starts" in out


# --- perf: CUDA peer access (ux24's question a) ----------------------------------------------------------------------

def _perf(capsys, *extra):
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "RTX-4090", "--tp", "2", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_perf_runs_nccl_on_geforce_cards_without_peer_access(capsys):
    """Before: 'custom (engine default)' at 7.3 µs on 2× RTX 4090, which both engines turn off after their P2P check
    (vLLM CustomAllreduce _can_p2p, SGLang can_use_custom_all_reduce_with_nvlink)."""
    doc = _perf(capsys)
    assert doc["allreduce"]["backend"] == "nccl"
    assert any("no CUDA peer access" in a for a in doc["assumptions"])
    custom = next(b for b in doc["backends"] if b["backend"] == "custom")
    assert custom["usable"] is False and custom["baseline_tok_s"] is None


def test_perf_p2p_flags_as_plan_has_them(capsys):
    """Before: 'tpkit perf has no flag --no-p2p'."""
    assert _perf(capsys, "--p2p")["allreduce"]["backend"] == "custom"
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "RTX-PRO-6000", "--tp", "2", "--no-p2p", "--json")
    assert code == 0 and json.loads(out)["allreduce"]["backend"] == "nccl"
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--no-p2p", "--link", "nvlink",
            says=("--no-p2p with --link nvlink",))
    refused(capsys, "perf", LLAMA, "--gpu", "RTX-4090", "--tp", "2", "--allreduce-backend", "custom",
            says=("needs CUDA peer access", "--allreduce-backend nccl", "--p2p"))


def test_perf_with_peer_access_is_unchanged(capsys):
    """Guards what did not change: an RTX PRO 6000 pair (the catalog records peer access) keeps the engines' custom
    all-reduce."""
    code, out, _ = cli(capsys, "perf", LLAMA, "--gpu", "RTX-PRO-6000", "--tp", "2", "--json")
    assert code == 0 and json.loads(out)["allreduce"]["backend"] == "custom"


# --- plan: ux24's questions b and c ------------------------------------------------------------------------------------

def test_awq_marlin_on_an_unquantised_checkpoint_keeps_its_warning(capsys):
    """Guards what did not change (ux24's question b, decided against a refusal: docs/accuracy.md §8, ux25): planned
    with the engines' refusal quoted, so the documented sibling plan (§5, GB10 with --quantization gptq) still runs.
    Session 26 (ux26) adds the WILL NOT START verdict (exit 3, the plan still printed: test_newcomer_session26)."""
    code, out, err = cli(capsys, "plan", LLAMA, "--engine", "vllm", "--gpu", "RTX-4090", "--tp", "2",
                         "--quantization", "awq_marlin", "--json")
    assert code == 3, err
    assert any("Cannot find the config file for awq_marlin" in w for w in json.loads(out)["warnings"])


@pytest.mark.parametrize("version, says", [(None, "serves this bfloat16 checkpoint in float16"),
                                           ("0.8.5", "refuses it at start-up")])
def test_a_bf16_checkpoint_on_a_t4_says_which_dtype_runs(capsys, version, says):
    """Before: no word with --dtype auto (ux24 covered --dtype bfloat16 only)."""
    extra = ("--engine-version", version) if version else ()
    code, out, _ = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "T4", "--json", *extra)
    assert code in (0, 3)
    assert any(says in w for w in json.loads(out)["warnings"])


def test_perf_plan_is_split_along_its_context_seam():
    """ux24's (e): perf/plan.py stood at 499 of 500 lines; its context (rates, links, draft) is perf/context.py."""
    import tpkit.perf.context as context
    import tpkit.perf.plan as plan

    assert plan._context is context._context and plan.default_link_kind is context.default_link_kind
    assert len(Path(plan.__file__).read_text().splitlines()) <= 450


# --- engine variables set in tpkit's own environment ------------------------------------------------------------------

@pytest.mark.parametrize("name, value, argv, flag", [
    ("SGLANG_ENABLE_SPEC_V2", "1", ("perf", LLAMA, "--gpu", "H100", "--speculative-algorithm", "EAGLE3",
                                    "--engine-version", "0.5.8"), "--sglang-spec-v2 on"),
    ("VLLM_ATTENTION_BACKEND", "FLASHINFER", ("plan", LLAMA, "--engine", "vllm", "--gpu", "H100"),
     "--attention-backend FLASHINFER"),
    ("VLLM_PP_LAYER_PARTITION", "16,16", ("plan", LLAMA, "--engine", "vllm", "--gpu", "H100"),
     "--pp-layer-partition 16,16"),
])
def test_an_engine_variable_pasted_with_the_line_is_named_with_its_flag(capsys, monkeypatch, name, value, argv, flag):
    """Before: `SGLANG_ENABLE_SPEC_V2=1 tpkit perf … --engine-version 0.5.8` predicted spec v1 without a word (tpkit
    reads no engine variable; the shell had set it for tpkit, not for a server)."""
    monkeypatch.setenv(name, value)
    code, _, err = cli(capsys, *argv)
    assert code == 0 and f"{name}={value} is set in tpkit's own environment" in err and f"pass {flag}" in err
    monkeypatch.delenv(name)
    assert "own environment" not in cli(capsys, *argv)[2]


@pytest.mark.parametrize("command", ["plan", "perf"])
def test_sglang_torch_compile_is_said_to_be_unmodelled(capsys, command):
    """Before: "has no flag --enable-torch-compile (did you mean --enable-chunked-prefill?)"."""
    line = refused(capsys, command, QWEN, "--gpu", "H100", "--enable-torch-compile",
                   says=("models no torch.compile", "drop the flag"))
    assert "did you mean" not in line
