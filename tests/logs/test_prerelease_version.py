"""A pre-release vLLM build prints 'rcN.devM+g<sha>' in its engine line (vLLM's setuptools-scm versions, e.g.
'Initializing a V1 LLM engine (v0.16.1rc1.dev265+gd106bf39f)', explain corpus vl_256; 'v0.19.2rc1.dev206+g95995bbef',
vl_160). The version pattern (logs/engine.py ``_V``) takes up to three pre-release parts, so the engine line is read;
before helper mv6 (2026-12-04) it took one, the closing parenthesis was not reached and the release fell back to the
line-format range."""

from tpkit.logs.engine import version_in
from tpkit.logs.reader import parse_log

AVAIL = "INFO 03-09 12:56:44 [gpu_worker.py:424] Available KV cache memory: 5.38 GiB\n"


def test_engine_line_with_rc_and_dev_parts_is_read():
    line = "(EngineCore_DP0 pid=132) INFO 03-09 12:54:34 [core.py:101] Initializing a V1 LLM engine " \
           "(v0.16.1rc1.dev265+gd106bf39f) with config: model='m'"
    assert version_in(line) == ("vllm", "0.16.1rc1.dev265+gd106bf39f")
    assert parse_log(line + "\n" + AVAIL).engine.version == "0.16.1rc1.dev265+gd106bf39f"


def test_release_post_and_dev_forms():
    assert version_in("Initializing a V1 LLM engine (v0.19.1) with config:") == ("vllm", "0.19.1")
    assert version_in("Initializing a V1 LLM engine (v0.9.2.dev364+gb432b7a28) with config:") == \
        ("vllm", "0.9.2.dev364+gb432b7a28")
    assert version_in("vLLM API server version 0.11.0rc2.dev98+g393de22d2") == ("vllm", "0.11.0rc2.dev98+g393de22d2")
    assert version_in("vLLM API server version 0.6.6.post1") == ("vllm", "0.6.6.post1")
