"""Newcomer findings of session 26 (helper ux26, 2026-12-06): the design questions ux25 / i4w25 left (an AWQ / GPTQ
``--quantization`` on an unquantised checkpoint, VLLM_ALLOW_LONG_MAX_MODEL_LEN, SGLANG_INT4_WEIGHT in a log's launch
line) and GPU names as people type them.  Every test fails on main 7ee38599 except where its docstring says it guards
what did not change; the sessions are in docs/runs/ux26_new_user_sessions_2026-12-06.txt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli, refused

QWEN = "Qwen/Qwen3-8B"
ROOT = Path(__file__).resolve().parents[2]
V19 = ROOT / "tests" / "logs" / "data" / "vllm" / "vl_1016.log"
"""vLLM 0.19.0, Llama-3.1-8B-Instruct at tp 2 on H100s (max_position_embeddings 131,072)"""
GROK_LOG = ROOT / "tests" / "logs" / "data" / "sglang" / "sg_582.log"
"""AMD's SGLang CI, amd/grok-1-W4A8KV8 on 8× MI355X, started with SGLANG_INT4_WEIGHT=1 (gs_397); the log itself
does not print the variable"""
GROK_CONFIG = ROOT / "tests" / "validation" / "configs" / "amd--grok-1-W4A8KV8.json"


# --- (a) --quantization awq / gptq on a checkpoint without a quantization config ------------------------------------

@pytest.mark.parametrize("engine, method", [("vllm", "awq_marlin"), ("sglang", "gptq"), ("vllm", "awq")])
def test_a_quantization_the_engines_refuse_on_this_checkpoint_will_not_start(capsys, engine, method):
    """Before: exit 0, "verdict: FITS" (a warning below quoted the engines' refusal)."""
    code, out, err = cli(capsys, "plan", QWEN, "--engine", engine, "--gpu", "H100", "--quantization", method)
    assert code == 3, err
    assert f"verdict: WILL NOT START — {'vLLM' if engine == 'vllm' else 'SGLang'} refuses --quantization {method}" \
        in out
    assert "Cannot find the config file for" in out and "KV cache:" in out  # the plan is still printed


def test_will_not_start_in_json_keeps_every_key_and_adds_starts(capsys):
    """Before: verdict {fits: true, …} with no ``starts`` key; keys are only ever added."""
    code, out, _ = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--quantization", "awq_marlin",
                       "--json")
    verdict = json.loads(out)["verdict"]
    assert code == 3 and verdict["fits"] is False and verdict["starts"] is False
    assert verdict["knob"] == "--quantization" and set(verdict) >= {"fits", "message", "knob", "fixes"}


def test_a_refused_method_on_a_plan_that_does_not_fit_offers_no_memory_fix(capsys):
    """The lead, session 26: `scripts/fuzz_plan.py --seed 25` case 2896. Before: DOES NOT FIT with the fix
    ``--tensor-parallel-size 2`` "re-planned and found to fit", which, re-planned, said WILL NOT START (exit 3): no
    memory fix makes a refused --quantization start. Now WILL NOT START, no fixes, the memory verdict in the message."""
    code, out, _ = cli(capsys, "plan", "zai-org/GLM-4.5", "--engine", "vllm", "--gpu", "H200", "--quantization", "awq",
                       "--json")
    verdict = json.loads(out)["verdict"]
    assert code == 3 and verdict["starts"] is False and verdict["fits"] is False
    assert verdict["fixes"] == [] and verdict["knob"] == "--quantization"
    assert "(DOES NOT FIT: " in verdict["message"] and "--tensor-parallel-size 2" in verdict["message"]


def test_a_plan_that_starts_says_so_in_json(capsys):
    """Before: no ``starts`` key (exit 0 and ``fits`` true, unchanged)."""
    code, out, _ = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--json")
    assert code == 0 and json.loads(out)["verdict"]["starts"] is True


def test_a_gptq_checkpoint_with_its_quantize_config_file_starts(capsys, tmp_path):
    """Before: "the engines refuse --quantization gptq on this checkpoint" also where a quantize_config.json lies
    beside config.json (an AutoGPTQ checkpoint), which both engines read."""
    (tmp_path / "config.json").write_text((ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen3-8B-yarn4.json")
                                          .read_text())
    (tmp_path / "quantize_config.json").write_text('{"bits": 4, "group_size": 128}')
    code, out, err = cli(capsys, "plan", str(tmp_path), "--engine", "vllm", "--gpu", "H100", "--quantization", "gptq",
                         "--max-model-len", "32768")
    assert code == 0, err
    assert "verdict: FITS" in out and "refuse" not in out and "quantize_config.json beside config.json" in out


def test_mxfp4_on_an_unquantised_checkpoint_no_longer_quotes_a_refusal(capsys):
    """Before: "the engines refuse --quantization mxfp4 on this checkpoint ('Cannot find the config file for
    mxfp4')": vLLM's Mxfp4Config names no config file (``get_config_filenames`` [] in 0.34.0) and mxfp4 is an online
    shorthand from 0.30, so that message is never printed for it."""
    code, out, err = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--quantization", "mxfp4",
                         "--json")
    assert code == 0, err
    warnings = " ".join(json.loads(out)["warnings"])
    assert "--quantization mxfp4" in warnings and "Cannot find the config file" not in warnings


# --- (b) VLLM_ALLOW_LONG_MAX_MODEL_LEN -----------------------------------------------------------------------------

def test_the_long_max_model_len_variable_has_a_flag(capsys):
    """Before: "tpkit plan has no flag --vllm-allow-long-max-model-len"; a server started with
    VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 and --max-model-len above the config's could not be planned."""
    code, out, err = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--max-model-len", "131072",
                         "--vllm-allow-long-max-model-len", "on", "--json")
    plan = json.loads(out)
    assert code == 0, err
    assert plan["context_length"] == 131072
    assert any("derived maximum of 40,960 tokens" in w and "NaN" in w for w in plan["warnings"])


def test_without_the_flag_the_refusal_names_it(capsys):
    """Before: "(vLLM refuses longer unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)" and no way to plan it."""
    refused(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--max-model-len", "131072",
            says=("limit of 40,960 tokens", "--vllm-allow-long-max-model-len on"))


def test_the_variable_set_in_tpkits_environment_names_the_flag(capsys, monkeypatch):
    """Before: the refusal alone, with no word that the variable in the user's shell is not read."""
    monkeypatch.setenv("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1")
    code, _, err = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--max-model-len", "131072")
    assert code == 2 and "pass --vllm-allow-long-max-model-len on" in err


def test_from_log_reads_the_long_length_variable_off_the_launch_line(capsys, tmp_path):
    """Before: the launch line's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 not read: --max-model-len 200000 refused."""
    log = tmp_path / "server.log"
    log.write_text("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2\n"
                   + V19.read_text())
    code, out, err = cli(capsys, "plan", "--from-log", str(log), "--max-model-len", "200000", "--json")
    plan = json.loads(out)
    assert code == 0, err
    assert plan["context_length"] == 200000
    assert any("--vllm-allow-long-max-model-len on: read from the log" in w for w in plan["warnings"])


# --- (c) SGLANG_INT4_WEIGHT in a log ------------------------------------------------------------------------------

@pytest.mark.parametrize("first_line", [
    "SGLANG_INT4_WEIGHT=1 RCCL_MSCCL_ENABLE=0 python3 -m sglang.launch_server --model-path /data/amd--grok-1-W4A8KV8 "
    "--tp 8 --quantization fp8 --trust-remote-code",
    "export SGLANG_INT4_WEIGHT=1",
    "{'SGLANG_INT4_WEIGHT': '1', 'SGLANG_USE_AITER': '1'}",
])
def test_from_log_reads_sglang_int4_weight(capsys, tmp_path, first_line):
    """Before: the variable not read (i4w25): the other layout planned with fp8 experts and no word."""
    log = tmp_path / "server.log"
    log.write_text(first_line + "\n" + GROK_LOG.read_text())
    code, out, err = cli(capsys, "plan", str(GROK_CONFIG), "--from-log", str(log), "--tp", "4", "--json")
    plan = json.loads(out)
    assert code == 0, err
    assert any("--sglang-int4-weight on: read from the log" in w for w in plan["warnings"])
    weights = next(line for line in plan["ledger"] if line["item"] == "weights")
    assert "int4 MoE experts (SGLANG_INT4_WEIGHT)" in weights["source"]


def test_a_log_without_the_variable_keeps_fp8_experts(capsys):
    """Guards what did not change: the log alone (the CI's log prints no launch line) plans fp8 experts."""
    code, out, err = cli(capsys, "plan", str(GROK_CONFIG), "--from-log", str(GROK_LOG), "--tp", "4", "--json")
    assert code == 0, err
    assert "SGLANG_INT4_WEIGHT" not in out


# --- GPU names as people type them ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name, card", [("MI300X OAM", "MI300X"), ("AMD Instinct MI355X OAM", "MI355X"),
                                        ("RTX PRO 6000 Blackwell Max-Q", "RTX-PRO-6000"),
                                        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "RTX-PRO-6000")])
def test_board_words_people_write_after_the_name(capsys, name, card):
    """Before: "unknown GPU 'MI300X OAM'" / "unknown GPU 'RTX PRO 6000 Blackwell Max-Q'" (the last guards what did
    not change: nvidia-smi's full name was already an alias)."""
    code, out, err = cli(capsys, "plan", QWEN, "--gpu", name, "--json")
    assert code == 0, err
    assert json.loads(out)["gpu"]["name"] == card


def test_a_from_log_plan_whose_quantization_the_log_gave_still_starts(capsys):
    """Guards what did not change: the log's server ran its AWQ checkpoint (--quantization awq read from the log)
    even where the config passed is the base model's, so the plan is not WILL NOT START."""
    config = ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen2.5-3B-Instruct.json"
    code, out, err = cli(capsys, "plan", str(config), "--from-log", str(ROOT / "tests" / "logs" / "data" / "vllm"
                                                                        / "vl_152.log"), "--json")
    assert code == 0, err
    assert json.loads(out)["verdict"]["fits"] is True


# --- explain: archives and a log of both engines ---------------------------------------------------------------------

@pytest.mark.parametrize("compress", [False, True])
def test_a_tar_archive_is_refused_with_how_to_extract_it(capsys, tmp_path, compress):
    """Before: exit 0, the archive's headers read as log text ("note: NUL characters removed"); a zip was already
    refused with "unzip it and pass the log inside"."""
    import tarfile

    path = tmp_path / ("logs.tar.gz" if compress else "logs.tar")
    with tarfile.open(path, "w:gz" if compress else "w") as tar:
        tar.add(V19, arcname="server.log")
    refused(capsys, "explain", str(path), says=("is a tar archive", "tar xf FILE"))


def test_a_log_of_both_engines_names_each_start(capsys, tmp_path):
    """Before: "the log holds 2 engine starts (lines 3, 129): only the last one … is read", with no word that the
    first start was vLLM's and the one read SGLang's (ux25's left item 4)."""
    log = tmp_path / "server.log"
    log.write_text(V19.read_text() + (ROOT / "tests" / "logs" / "data" / "sglang" / "sg_001.log").read_text())
    code, out, err = cli(capsys, "explain", str(log))
    assert code == 0, err
    assert "the starts are of both engines (vLLM from line" in out + err and "the one read is SGLang's" in out + err


# --- --help: units and defaults ------------------------------------------------------------------------------------

@pytest.mark.parametrize("command, flag, says", [
    ("plan", "--engine-version", "default: with a log, its release"),
    ("plan", "--dtype", "default auto"),
    ("plan", "--quantization", "default: the checkpoint's quantization_config"),
    ("plan", "--max-total-tokens", "default: no cap"),
    ("plan", "--cuda-graph-max-bs", "default: SGLang's rule"),
    ("plan", "--max-num-seqs", "default: the release's"),
    ("plan", "--speculative-num-steps", "default: SGLang's choice"),
    ("perf", "--engine", "default sglang"),
])
def test_help_says_the_default(capsys, command, flag, says):
    """Before: e.g. "--engine-version ENGINE_VERSION  rule set of an older engine release" with no default."""
    code, out, _ = cli(capsys, command, "--help")
    text = " ".join(out.split())
    at = text.index(f" {flag} ")
    assert code == 0 and says in text[at:at + 400], text[at:at + 400]
