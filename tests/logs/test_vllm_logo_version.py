"""vLLM's start-up banner names the release (``tpkit.logs.engine.LOGO_VERSION``): the block-letter logo's
'version X' and its plain form 'vLLM server version X, serving model M' are read as the release; prose that says
'version' next to other words is not."""

from tpkit.logs import parse_log

_P = "(APIServer pid=1) INFO 10-06 08:47:16 [api_utils.py:347] "
LOGO = (_P + "       █     █     █▄   ▄█\n"
        + _P + " ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.29.0\n"
        + _P + "  █▄█▀ █     █     █     █  model   Qwen/Qwen3-8B\n")
SQUEEZED = _P + "▄▄ ▄█ █ █ █ ▀▄▀ █ version 0.19.0\n"  # a paste with the logo's runs of spaces collapsed
PLAIN = "(APIServer pid=1) INFO 10-06 08:47:16 [utils.py:287] vLLM server version 0.16.0, serving model Qwen/Qwen3-8B\n"
TAIL = "(EngineCore_DP0 pid=9) INFO 10-06 08:48:01 [gpu_worker.py:298] Available KV cache memory: 50.12 GiB\n"


def test_the_logo_names_the_release():
    parsed = parse_log(LOGO + TAIL)
    assert parsed.engine.engine == "vllm" and parsed.engine.version == "0.29.0" and parsed.engine.version_printed


def test_a_pasted_logo_with_single_spaces_names_the_release():
    parsed = parse_log(SQUEEZED + TAIL)
    assert parsed.engine.version == "0.19.0" and parsed.engine.version_printed


def test_the_plain_banner_names_the_release():
    parsed = parse_log(PLAIN + TAIL)
    assert parsed.engine.engine == "vllm" and parsed.engine.version == "0.16.0" and parsed.engine.version_printed


def test_a_log_without_a_banner_still_says_the_version_is_not_printed():
    parsed = parse_log("the server version we ran was new\n" + TAIL)
    assert parsed.engine.version_printed is False and parsed.engine.version != "0.29.0"
