"""What the session-9 newcomer pass met (review qual9, 2026-12-05), pinned: each refusal says what was wrong, what
was received and how to fix it, exits 2, prints no traceback and no usage dump."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli, refused

from tpkit.comm.profile import load_profile
from tpkit.errors import ConfigError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_bench_without_a_benchmark_is_refused_with_the_one_to_name(capsys):
    """Before: the usage text on stdout, exit 2 and no error line."""
    refused(capsys, "bench", says=("name the benchmark to run", "tpkit bench allreduce"))


def test_model_dash_says_standard_input_is_for_logs(capsys):
    """Before: "model '-' not found … path -: does not exist", as if '-' were a file name."""
    for command in (["plan", "-", "--gpu", "H100"], ["perf", "-", "--gpu", "H100"]):
        refused(capsys, *command, says=("model '-'", "not from standard input", "`tpkit explain -`",
                                        "pass its path"))


def test_an_empty_model_name_says_what_to_pass(capsys):
    refused(capsys, "plan", "", "--gpu", "H100", says=("got ''", "pass an HF id"))


def test_an_allreduce_profile_that_is_not_one_names_the_command_that_writes_one(capsys, tmp_path):
    """Before: a model config.json given as --allreduce-profile listed its keys and stopped; an unreadable file
    gave the decoder's words alone."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--allreduce-profile", str(config),
            says=("unknown keys", "tpkit bench allreduce --json FILE"))
    (tmp_path / "empty.json").write_text("")
    # a directory says so since helper tidy32 (was the errno text under "is not valid JSON or cannot be read")
    for bad, says in ((tmp_path, "is a directory"), (tmp_path / "empty.json", "is not valid JSON or cannot be read")):
        refused(capsys, "perf", LLAMA, "--gpu", "H100", "--allreduce-profile", str(bad),
                says=(says, "tpkit bench allreduce --json FILE"))


def test_load_profile_raises_a_user_error_for_a_directory(tmp_path):
    try:
        load_profile(tmp_path)
    except ConfigError as exc:
        assert "tpkit bench allreduce --json FILE" in str(exc)
    else:  # pragma: no cover - the test fails
        raise AssertionError("a directory was read as a profile")


def test_bench_size_flags_name_their_unit_in_the_help(capsys):
    code, out, _ = cli(capsys, "bench", "allreduce", "--help")
    assert code == 0
    for flag in ("--min-size SIZE", "--max-size SIZE", "--max-bytes SIZE"):
        assert flag in out
    words = " ".join(out.split())  # argparse wraps the help lines
    assert "element type of the messages" in words and "else CPU ranks over gloo" in words


def test_both_engines_verdicts_write_the_concurrency_with_the_same_sign(capsys):
    """Before: vLLM's verdict said '4.14x requests' (vLLM's own log spelling) beside tpkit's '4.14×' one line up; the
    engine's log lines keep their 'x'."""
    for engine in ("vllm", "sglang"):
        code, out, _ = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", engine, "--json")
        assert code == 0
        plan = json.loads(out)
        assert "×" in plan["verdict"]["message"] and "x requests" not in plan["verdict"]["message"]
    assert any("Maximum concurrency for" in line and line.endswith("x") for line in plan_log(capsys))


def plan_log(capsys):
    code, out, _ = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--json")
    return json.loads(out)["engine_log"]


def test_from_log_names_the_model_path_it_read_when_that_path_is_not_here(capsys):
    """Before: 'the log does not name a model tpkit can read (no model path or name printed, or a path that is not on
    this machine)' to a log that prints '/home/user/DeepSeek-V2-Lite-Chat/' (vl_020)."""
    log = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_020.log"
    refused(capsys, "plan", "--from-log", str(log),
            says=("the log names the model '/home/user/DeepSeek-V2-Lite-Chat/'", "neither on this machine nor in the "
                  "catalog", "pass MODEL as well"))


def _memory_notes(capsys, *argv):
    code, out, err = cli(capsys, "plan", LLAMA, *argv, "--json")
    assert code in (0, 3), err
    return [w for w in json.loads(out)["warnings"] if "does not say the memory size" in w]


def test_a_gpu_name_without_its_memory_size_says_which_card_was_planned(capsys):
    """Before: '--gpu A100' was planned as the 80 GB card without a word, which an A100 40GB owner would read as
    their card's plan (twice the memory); likewise H20 (96 / 141 GB) and V100 (16 / 32 GB)."""
    (note,) = _memory_notes(capsys, "--gpu", "A100")
    assert "planned as A100-SXM-80GB (79.25 GiB" in note and "--gpu A100-SXM-40GB (39.49 GiB)" in note
    (note,) = _memory_notes(capsys, "--gpu", "h20")
    assert "planned as H20-96GB" in note and "--gpu H20-141GB" in note
    (note,) = _memory_notes(capsys, "--gpu", "V100", "--engine", "vllm")
    assert "planned as V100-16GB" in note and "--gpu V100-32GB" in note


def test_no_memory_note_where_the_name_or_a_flag_gives_the_size_or_there_is_one_size(capsys):
    for argv in (("--gpu", "A100 40GB"), ("--gpu", "A100-SXM4-80GB"), ("--gpu", "H20-141G"), ("--gpu", "H100"),
                 ("--gpu", "RTX-4090"), ("--gpu", "A100", "--gpu-memory", "40GiB")):
        assert _memory_notes(capsys, *argv) == [], argv
