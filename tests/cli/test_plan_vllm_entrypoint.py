"""``tpkit plan --vllm-entrypoint serve|llm`` on the command line: the JSON echo of the input and the batch budget
it gives, the note, and the refusal of a bad value or of an SGLang plan (exit 2, no traceback).  The planner side:
tests/engines/test_vllm_entrypoint.py."""

import json

from clirun import cli


def test_cli_echoes_it_and_refuses_a_bad_value(capsys):
    out = {}
    for e in ("serve", "llm"):
        code, text, _ = cli(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--engine", "vllm",
                            "--engine-version", "0.23.0", "--max-model-len", "8192", "--vllm-entrypoint", e, "--json")
        assert code == 0
        out[e] = json.loads(text)
        assert out[e]["vllm"]["vllm_entrypoint"] == e
    assert out["serve"]["max_num_batched_tokens"] == 8192 and out["llm"]["max_num_batched_tokens"] == 16384
    assert any(w.startswith("--vllm-entrypoint llm: max_num_batched_tokens 16,384") for w in out["llm"]["warnings"])
    code, text, err = cli(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--engine", "vllm",
                          "--vllm-entrypoint", "offline")
    assert code == 2 and text == "" and "Traceback" not in err and "--vllm-entrypoint" in err
    code, text, err = cli(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--engine", "sglang",
                          "--vllm-entrypoint", "llm")
    assert code == 2 and "Traceback" not in err and "--vllm-entrypoint" in err
