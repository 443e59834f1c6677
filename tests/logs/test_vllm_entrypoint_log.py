"""The vLLM entrypoint a log shows (``tpkit.logs.run.entrypoint_settings``), the ``vllm_entrypoint`` setting that
``tpkit plan --from-log`` and ``tpkit explain`` take for ``--vllm-entrypoint``: the usage-context budget line
(``engine/arg_utils.py``: a warning in 0.6.5–0.7.x V1, debug later), and the ``Supported_tasks`` line that 0.10.1–
0.11.0 log from ``llm.py`` (the offline class) or ``api_server.py``, told apart by vLLM's file tag, and the API
server's version line.  "Initializing a V1 LLM engine" (both entrypoints) says nothing.  The planner side:
tests/engines/test_vllm_entrypoint.py."""

import json
from pathlib import Path

import pytest

from tpkit.logs import parse_log
from tpkit.logs.run import entrypoint_settings

DATA = Path(__file__).resolve().parent / "data" / "vllm"
CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"

LINES = {
    # search-index file 56983532977 (vLLM 0.9-era image, VLLM_LOGGING_LEVEL=DEBUG) and 55715869688 (a V1 warning)
    "DEBUG 06-04 16:44:21 [arg_utils.py:1616] Setting max_num_batched_tokens to 16384 for LLM_CLASS usage context.":
        ("llm", "UsageContext.LLM_CLASS"),
    "WARNING 05-07 05:58:30 arg_utils.py:1385] Setting max_num_batched_tokens to 8192 for LLM_CLASS usage context.":
        ("llm", "UsageContext.LLM_CLASS"),
    # vl_050 (0.11.0, a batch job's offline LLM) and vl_153 (an API server's)
    "INFO 11-14 14:26:48 [llm.py:306] Supported_tasks: ['generate']": ("llm", "llm.py"),
    "(APIServer pid=995849) INFO 09-26 22:38:52 [api_server.py:1692] Supported_tasks: ['generate']":
        ("serve", "api_server.py"),
    # vl_044 (0.7.2 V1, the tag without its bracket): any api_server.py line
    "   INFO 02-13 15:01:59 api_server.py:756] Using supplied chat template:": ("serve", "api_server.py"),
}


@pytest.mark.parametrize("line, expected", LINES.items())
def test_marker_lines(line, expected):
    (setting,) = entrypoint_settings(line, line_no=7)
    assert (setting.value, setting.key, setting.line_no) == (*expected, 7)


@pytest.mark.parametrize("line", [
    "(EngineCore_DP0 pid=175) INFO 11-14 14:23:39 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: "
    "model='ibm-granite/granite-4.0-micro'",
    "INFO 11-14 14:26:48 Supported_tasks: ['generate']",  # no file tag: which module is unknown
    "INFO 09-23 18:12:40 [mllm.py:295] Supported_tasks: ['generate']",
    "INFO 09-23 18:12:40 [llm.py:295] Generating outputs",  # llm.py counts only with Supported_tasks
    "INFO 02-13 15:01:59 my_api_server.py:756] None",
])
def test_lines_that_say_nothing(line):
    assert entrypoint_settings(line, line_no=1) == []


@pytest.mark.parametrize("log, value", [("vl_050", "llm"), ("vl_031", "llm"), ("vl_153", "serve"),
                                        ("vl_044", "serve"), ("vl_002", None)])
def test_corpus_logs(log, value):
    run = parse_log((DATA / f"{log}.log").read_text(errors="replace")).run
    assert (run.vllm_entrypoint.value if run.vllm_entrypoint else None) == value


def test_from_log_takes_the_logs_entrypoint(capsys):
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
    from clirun import cli

    config = str(CONFIGS / "ibm-granite--granite-4.0-micro.json")
    # vl_050: vLLM 0.11.0 on an L40S, an offline LLM() (the llm.py line): 8192 batched tokens, not the API's 2048
    code, out, _ = cli(capsys, "plan", config, "--gpu", "L40S", "--from-log", str(DATA / "vl_050.log"), "--json")
    assert code == 0
    plan = json.loads(out)
    assert plan["vllm"]["vllm_entrypoint"] == "llm" and plan["max_num_batched_tokens"] == 8192
    assert "--vllm-entrypoint llm: read from the log (log line 26)" in plan["warnings"]
    code, out, _ = cli(capsys, "plan", config, "--gpu", "L40S", "--from-log", str(DATA / "vl_050.log"),
                       "--vllm-entrypoint", "serve", "--json")
    assert code == 0 and json.loads(out)["max_num_batched_tokens"] == 2048  # the flag given wins
