"""``tpkit plan --vllm-use-v2-model-runner 0|1`` (vLLM's VLLM_USE_V2_MODEL_RUNNER): the help, the refusals (exit
2, no traceback), and ``--from-log``, which plans on the runner the log shows unless the flag is given
(``logs.settings.runner_settings``).  The planner side: tests/engines/test_vllm_model_runner.py."""

import json
from pathlib import Path

from clirun import cli

LOGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm"
QWEN3_8B_FP8 = str(Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json")


def test_help_names_the_environment_variable(capsys):
    code, out, _ = cli(capsys, "plan", "--help")
    text = " ".join(out.split())
    assert code == 0 and "--vllm-use-v2-model-runner {0,1}" in text and "VLLM_USE_V2_MODEL_RUNNER" in text


def test_refusals_exit_2_without_traceback(capsys):
    code, out, err = cli(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "vllm",
                         "--engine-version", "0.11.0", "--vllm-use-v2-model-runner", "1")
    assert code == 2 and out == "" and "Traceback" not in err and "exists from vLLM 0.12.0" in err
    code, out, err = cli(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "sglang",
                         "--vllm-use-v2-model-runner", "0")
    assert code == 2 and out == "" and "Traceback" not in err


def test_runner_changes_the_plan(capsys):
    kv = {}
    for value in ("0", "1"):
        code, out, _ = cli(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--engine", "vllm",
                           "--engine-version", "0.28.0", "--max-model-len", "8192", "--vllm-use-v2-model-runner",
                           value, "--json")
        assert code == 0
        kv[value] = json.loads(out)["kv_tokens"]
    assert kv["0"] != kv["1"]


def test_from_log_takes_the_logs_runner(capsys):
    # vl_290 (vp_210): vLLM 0.29.0 with VLLM_USE_V2_MODEL_RUNNER=0, "[gpu_model_runner.py:5471] Model loading took"
    code, out, _ = cli(capsys, "plan", QWEN3_8B_FP8, "--from-log", str(LOGS / "vl_290.log"), "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert "--vllm-use-v2-model-runner 0: read from the log (log line 19)" in warnings
    assert not any("not taken from the log: it ran" in w for w in warnings)
    # the flag given: it wins, and the log's V1 activation peak and graph estimate are not used for a V2 plan
    code, out, _ = cli(capsys, "plan", QWEN3_8B_FP8, "--from-log", str(LOGS / "vl_290.log"),
                       "--vllm-use-v2-model-runner", "1", "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert any(w.startswith("activation peak and CUDA-graph estimate not taken from the log: it ran the V1 model "
                            "runner (log line 19)") for w in warnings)


def test_a_v0_log_fills_no_runner(capsys):
    # vl_025 (vLLM 0.8.x V0: '[model_runner.py:1146] Model loading took 6.0160 GB', four decimals) was read as Model
    # Runner V2, so plan --from-log filled --vllm-use-v2-model-runner 1 and exited 2 on a flag nobody gave
    config = str(Path(__file__).resolve().parents[1] / "validation" / "configs" /
                 "meta-llama--Llama-3.2-3B-Instruct.json")
    code, out, err = cli(capsys, "plan", config, "--from-log", str(LOGS / "vl_025.log"), "--gpu", "H100", "--json")
    assert code == 0, err
    assert not any("--vllm-use-v2-model-runner" in w for w in json.loads(out)["warnings"])
