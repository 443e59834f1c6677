"""``tpkit plan --compile-cache cold|warm`` on the command line: its help (a tpkit option, not a vLLM flag), the
refusal for SGLang plans (exit 2, no traceback), the JSON plan's assumption list, and ``--from-log``, which plans
with the compile-cache state the log shows (``tpkit.logs.settings._COMPILE_CACHE_LINES``) unless the flag is
given.  The planner side: tests/engines/test_vllm_compile_cache.py."""

import json
from pathlib import Path

from clirun import cli

LOGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm"
QWEN_05B = str(Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen2.5-0.5B-Instruct.json")


def test_cli_help_says_it_is_not_an_engine_flag(capsys):
    code, out, _ = cli(capsys, "plan", "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "--compile-cache {cold,warm}" in text and "a tpkit option, not a vLLM flag" in text


def test_cli_sglang_plan_refuses_it(capsys):
    code, out, err = cli(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "sglang",
                         "--compile-cache", "warm")
    assert code == 2 and out == "" and "Traceback" not in err
    assert "--compile-cache is a tpkit option for vLLM plans only (not an engine flag" in err
    assert "--engine is sglang" in err and "leave --compile-cache out" in err


def test_cli_vllm_plan_json_says_which_was_assumed(capsys):
    kv = {}
    for state in ("cold", "warm"):
        code, out, _ = cli(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4", "--engine", "vllm",
                           "--engine-version", "0.28.0", "--max-model-len", "8192", "--compile-cache", state, "--json")
        assert code == 0
        plan = json.loads(out)
        assert any(w.startswith(f"torch.compile cache assumed {state}") for w in plan["warnings"])
        kv[state] = plan["kv_tokens"]
    assert kv["warm"] > kv["cold"]


def test_from_log_plans_with_the_logs_warm_cache(capsys):
    # vl_176 (vp_101): vLLM 0.26.0 Model Runner V2, "Directly load the compiled graph(s) for compile range (1, 32768)
    # from the cache": --from-log takes warm, and says so; its measured activation peak is kept
    code, out, _ = cli(capsys, "plan", QWEN_05B, "--from-log", str(LOGS / "vl_176.log"), "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert any(w.startswith("torch.compile cache assumed warm") for w in warnings)
    assert "--compile-cache warm: read from the log (log line 3)" in warnings
    assert not any("activation peak not taken from the log" in w for w in warnings)
    # --compile-cache given: it wins, and the log's (warm) activation peak is not used for a cold plan
    code, out, _ = cli(capsys, "plan", QWEN_05B, "--from-log", str(LOGS / "vl_176.log"), "--compile-cache", "cold",
                       "--json")
    assert code == 0
    warnings = json.loads(out)["warnings"]
    assert any(w.startswith("torch.compile cache assumed cold") for w in warnings)
    assert any(w.startswith("activation peak not taken from the log: it ran with a warm torch.compile cache")
               for w in warnings)
