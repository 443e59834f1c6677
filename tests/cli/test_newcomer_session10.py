"""What the session-10 newcomer pass met (helper qual10, 2026-12-05), pinned: each bad input is refused with what was
wrong, what was received and how to fix it, exit 2 and no traceback; ^C at any point is one word and exit 130."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest
from clirun import cli, refused

import tpkit.cli

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
SRC = pathlib.Path(__file__).resolve().parents[2] / "src"


def test_interrupt_while_the_command_is_built_is_one_word(capsys, monkeypatch):
    """Before: a ^C while the command's modules were imported (build_parser, ~40 ms of `tpkit plan`) gave a
    traceback; only one inside the command's own function was caught."""
    def interrupted(argv=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(tpkit.cli, "build_parser", interrupted)
    try:
        code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100")
    except KeyboardInterrupt:
        pytest.fail("the ^C left tpkit.cli.main: a traceback")
    assert code == 130 and err == "interrupted\n" and not out


def test_interrupt_while_tpkit_cli_is_imported_is_one_word():
    """Before: the console script imported tpkit.cli itself, so a ^C during that import (argparse, re …) was a
    traceback.  The script's entry (pyproject: tpkit._entry:main) catches it."""
    code = textwrap.dedent("""
        import sys, importlib.abc
        class Interrupt(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "tpkit.cli":
                    raise KeyboardInterrupt
        sys.meta_path.insert(0, Interrupt())
        from tpkit._entry import main
        sys.exit(main())
    """)
    r = subprocess.run([sys.executable, "-c", code, "plan", LLAMA], capture_output=True, text=True,
                       env={"PYTHONPATH": str(SRC)})
    assert r.returncode == 130 and r.stderr == "interrupted\n" and not r.stdout, r.stderr


def test_the_console_script_is_the_entry_that_catches_it():
    import tomllib

    project = tomllib.loads((SRC.parent / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["tpkit"] == "tpkit._entry:main"


@pytest.mark.parametrize("text", [
    '{"model_type": "llama", "hidden_size": 4096,',                        # cut short
    '{"architectures": ["LlamaForCausalLM"],\n "hidden_size": 4096\n "x": 1}',  # mis-edited
])
def test_a_broken_config_json_is_not_explained_as_a_log(capsys, tmp_path, text):
    """Before: a valid config.json was refused (exit 2) but a cut-short one was 'explained' with exit 0 and
    'nothing to diagnose'."""
    path = tmp_path / "config.json"
    path.write_text(text)
    for argv in (["explain", str(path)], ["plan", "--from-log", str(path)]):
        refused(capsys, *argv, says=("is a model config.json", "broken at line", "not a server log",
                                     "`tpkit plan FILE --gpu NAME`"))


def test_json_that_is_no_config_is_still_explained(capsys, tmp_path):
    """A broken JSON with no config key is not called a config: it is read as a log, in which nothing is recognised
    (session 20: refused as not an engine log, exit 2; before, exit 0 and 'nothing to diagnose')."""
    path = tmp_path / "x.txt"
    path.write_text('{"a": 1,\n')
    refused(capsys, "explain", str(path), says=("is not an SGLang or vLLM log",))


def test_an_unreadable_config_says_how_to_fix(capsys, tmp_path, monkeypatch):
    """Before: "cannot read model config PATH: Permission denied" and no word on what to do."""
    path = tmp_path / "config.json"
    path.write_text("{}")
    real = pathlib.Path.read_text

    def denied(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", denied)
    for command in ("plan", "perf"):
        refused(capsys, command, str(path), "--gpu", "H100",
                says=("cannot read model config", "Permission denied", "check the path and its permissions"))


@pytest.mark.parametrize("flag, value", [("--tp", "0"), ("--dp", "-1"), ("--ep", "0"), ("--tp", "5000")])
def test_perf_refuses_a_layout_size_as_plan_does(capsys, flag, value):
    """Before: `tpkit perf --tp 0` said "--tp must be ≥ 1, got 0" (no word on what it counts) and --tp 5000 that it
    does not divide the heads; plan said what tp counts and its ceiling.  One check now (parallel.check_layout_size)."""
    perf = refused(capsys, "perf", LLAMA, "--gpu", "H100", flag, value)
    plan = refused(capsys, "plan", LLAMA, "--gpu", "H100", flag, value)
    assert perf.split(": error: ")[1] == plan.split(": error: ")[1]
    assert ("it counts GPUs" in perf) or ("more than tpkit plans" in perf)


def test_perf_batch_zero_says_what_it_counts(capsys):
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--batch", "0",
            says=("--batch must be a whole number ≥ 1, got 0", "sequences decoded together", "--batch 1"))


def test_bench_counts_say_how_to_fix(capsys):
    refused(capsys, "bench", "allreduce", "--device", "cpu", "--nproc", "0",
            says=("--nproc must be ≥ 1, got 0", "leave it out for the default"))


def test_a_file_of_nul_bytes_is_refused_without_reading_it_as_a_log(capsys, tmp_path, monkeypatch):
    """Before: 1 GiB of NUL bytes (a preallocated or truncated file) went through the whole log reader first
    (~2 min, 1 GiB resident) to learn that no engine line was in it."""
    import tpkit.cli.explain as explain_cli

    def no_reading(data):
        raise AssertionError("the log reader ran over NUL bytes")

    monkeypatch.setattr(explain_cli, "_recognised", no_reading)
    path = tmp_path / "server.log"
    path.write_bytes(b"\x00" * 100_000)
    refused(capsys, "explain", str(path), says=("is not a text log", "100,000 bytes are all NUL"))


@pytest.mark.parametrize("change, says", [
    ({"num_key_value_heads": 5}, ("num_attention_heads 32 is not a multiple of num_key_value_heads 5",
                                  "fix the config.json")),
    ({"num_key_value_heads": 64}, ("num_attention_heads 32 is not a multiple of num_key_value_heads 64",)),
    ({"torch_dtype": "float7"}, ("torch_dtype 'float7' is not one of", "fix the config.json")),
    ({"quantization_config": "fp8"}, ("quantization_config must be an object, got str 'fp8'", "fix the config.json",
                                      "--quantization")),
])
def test_config_values_no_model_has_are_refused_with_the_fix(capsys, tmp_path, change, says):
    """Before: 32 query heads over 5 KV heads (no grouped-query model can have it) was planned, exit 0; a torch_dtype
    or quantization_config of the wrong kind was refused without a word on what to do."""
    import json

    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
              "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**config, **change}))
    for command in ("plan", "perf"):
        refused(capsys, command, str(path), "--gpu", "H100", says=says)
