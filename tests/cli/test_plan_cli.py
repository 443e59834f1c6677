"""`tpkit plan` end to end through main(): output, JSON schema, exit codes for bad input."""

import json
import subprocess
import sys

import pytest

from tpkit.cli import main

REQUIRED_KEYS = {"engine", "engine_version", "model", "gpu", "parallel", "ledger", "kv_tokens",
                 "max_running_requests", "max_concurrency", "verdict", "warnings"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_text_shows_ledger_capacity_and_engine_log(capsys):
    code, out, err = run(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "1")
    assert code == 0, err
    assert "Memory ledger" in out and "weights" in out.lower()
    assert "KV cache:" in out and "tokens per rank" in out
    assert "KV Cache is allocated. #tokens:" in out
    assert "verdict: FITS" in out


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_plan_json_schema(capsys, engine):
    code, out, err = run(capsys, "plan", "Qwen/Qwen3-32B", "--engine", engine, "--gpu", "H200", "--tp", "2", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert REQUIRED_KEYS <= set(doc)
    assert doc["engine"] == engine
    assert isinstance(doc["kv_tokens"], int) and doc["kv_tokens"] > 0
    assert doc["parallel"] == {"tp": 2, "pp": 1, "dp": 1, "ep": 1}
    for line in doc["ledger"]:
        assert set(line) >= {"item", "bytes", "source"} and isinstance(line["bytes"], int)
    if engine == "vllm":
        assert {"kv_blocks", "block_size"} <= set(doc)


def test_engines_give_their_own_ledgers(capsys):
    _, sg, _ = run(capsys, "plan", "Llama-3.1-70B-Instruct", "--engine", "sglang", "--gpu", "H100", "--tp", "4", "--json")
    _, vl, _ = run(capsys, "plan", "Llama-3.1-70B-Instruct", "--engine", "vllm", "--gpu", "H100", "--tp", "4", "--json")
    sg, vl = json.loads(sg), json.loads(vl)
    assert sg["engine"] == "sglang" and vl["engine"] == "vllm"
    assert [l["item"] for l in sg["ledger"]] != [l["item"] for l in vl["ledger"]]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["no-such-org/no-such-model", "--gpu", "H100"], "catalog"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H1OO-typo"], "H100"),
        (["Llama-3.1-8B-Instruct", "--gpu-memory", "80"], "no unit"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--mem-fraction-static", "-0.2"], "got -0.2"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--mem-fraction-static", "1.5"], "got 1.5"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "3"], "--tp 3 does not divide the 32 attention heads"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "0"], "--tp must be a whole number ≥ 1, got 0"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "vllm", "--mem-fraction-static", "0.8"],
         "--gpu-memory-utilization"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "vllm", "--gpu-memory-utilization", "0"],
         "--gpu-memory-utilization must be in the range (0, 1], got 0.0"),
        (["Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "8", "--num-gpus", "4"], "--num-gpus"),
        (["Llama-3.1-8B-Instruct"], "--gpu"),
    ],
)
def test_bad_input_is_a_message_not_a_traceback(capsys, argv, needle):
    code, out, err = run(capsys, "plan", *argv)
    assert code == 2
    assert "Traceback" not in err
    assert needle in err


def test_malformed_config_file_names_file_and_problem(tmp_path, capsys):
    cfg = tmp_path / "config.json"
    cfg.write_text('{"hidden_size": 4096, "num_hidden_layers": }')
    code, _, err = run(capsys, "plan", str(cfg), "--gpu", "H100")
    assert code == 2 and str(cfg) in err


def test_config_missing_field_names_field(tmp_path, capsys):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                               "num_attention_heads": 32, "vocab_size": 32000}))
    code, _, err = run(capsys, "plan", str(cfg), "--gpu", "H100")
    assert code == 2 and "num_hidden_layers" in err


def test_console_script_entry_point_runs_as_module():
    out = subprocess.run([sys.executable, "-m", "tpkit", "plan", "Llama-3.1-8B-Instruct", "--gpu", "H100", "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["kv_tokens"] > 0


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_tp_must_divide_attention_heads_for_both_engines(capsys, engine):
    code, _, err = run(capsys, "plan", "Qwen/Qwen2.5-7B-Instruct", "--engine", engine, "--gpu", "H100", "--tp", "8")
    assert code == 2
    assert "28 attention heads" in err and "--tp" in err


@pytest.mark.parametrize("argv, needle", [
    (["--ep", "3"], "--ep 3"),
    (["--chunked-prefill-size", "-3"], "-1 to disable"),
])
def test_more_flag_values_are_checked(capsys, argv, needle):
    code, _, err = run(capsys, "plan", "Llama-3.1-8B-Instruct", "--gpu", "H100", *argv)
    assert code == 2 and needle in err


def test_chunked_prefill_minus_one_disables_it(capsys):
    code, _, err = run(capsys, "plan", "Llama-3.1-8B-Instruct", "--gpu", "H100", "--chunked-prefill-size", "-1")
    assert code == 0, err


@pytest.mark.parametrize("engine, spelling, words", [
    ("sglang", "mxfp8", "does not model its packed fp4/mx KV layout"),
    ("sglang", "fp4_e2m1", "does not model its packed fp4/mx KV layout"),
    ("vllm", "turboquant_k8v4", "--kv-cache-dtype turboquant_k8v4"),
])
def test_plan_refuses_a_kv_dtype_it_does_not_model_with_the_engine_reason(capsys, engine, spelling, words):
    """An fp4/mx or other packed KV dtype the engine accepts but tpkit does not model: exit 2 with the engine's
    reason and what to plan instead, never an argparse 'invalid choice' nor a plan sized as the model dtype."""
    code, out, err = run(capsys, "plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", engine, "--gpu", "H100",
                         "--kv-cache-dtype", spelling)
    assert code == 2 and out == ""
    assert words in err and "invalid choice" not in err and "Traceback" not in err
