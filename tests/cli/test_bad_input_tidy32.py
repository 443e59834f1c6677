"""Bad input at every front door, round tidy32 (helper tidy32, session 32; docs/accuracy.md §8, "A new user's first
hour, round tidy32").  Each test names what happened before the fix: a silent misreading, a traceback, or a read
that did not stop.  The rule after: exit 2, one message (what was wrong, what was received, how to fix it), no
traceback, and with ``--json`` the ``tpkit.error/1`` object."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused
from tpkit.engines import flag_json, release_tuple, unread_release_tail

ROOT = Path(__file__).resolve().parents[2]
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
MACHINE = ROOT / "docs" / "runs" / "2026-11-30-final" / "machine.json"
DEEP = "[" * 30_000 + "]" * 30_000
"""JSON nested past the interpreter's recursion limit (json.loads raised RecursionError)"""
LONG_NUMBER = '{"num_speculative_tokens": ' + "9" * 5000 + "}"
"""a number past Python's 4,300-digit int-conversion limit (json.loads raised a bare ValueError)"""


# --- --engine-version: text past the release -------------------------------------------------------------------

@pytest.mark.parametrize("text, tail", [("0.5.x", ".x"), ("0.5.23garbage", "garbage"), ("0.5.9 foo", " foo"),
                                        ("v0.4.x", ".x")])
def test_a_release_with_an_unread_tail_is_named(text, tail):
    assert release_tuple(text) is not None  # the engines' reader takes the release and drops the rest
    assert unread_release_tail(text) == tail


@pytest.mark.parametrize("text", ["0.5.9", "0.5", "0.10.1.1", "0.5.0rc0", "0.4.9.post2", "0.10.1.dev101+gbda9d0535",
                                  "0.29.1rc1.dev17+gd2d649e67.d20260913", "0.8.2:v0", "0.7.3:V1", "0.5.9-cu129",
                                  "0.10.1+cu126", "0.19.2rc1.dev21", "v0.5.4", "9.9", "current", "v0", "abc"])
def test_release_spellings_users_and_logs_write_have_no_unread_tail(text):
    """Pre / post / development releases, a fourth number (vLLM 0.10.1.1), local and image-tag labels, vLLM's
    engine suffix; an alias or a word is each engine's to read or refuse."""
    assert unread_release_tail(text) == ""


@pytest.mark.parametrize("argv", [
    ("plan", LLAMA, "--gpu", "H100"),
    ("plan", LLAMA, "--gpu", "H100", "--engine", "vllm"),
    ("perf", LLAMA, "--gpu", "H100"),
    ("explain", str(SYNTHETIC_KIMI)),
])
@pytest.mark.parametrize("version", ["0.5.x", "0.5.23garbage"])
def test_an_engine_version_with_text_past_the_release_is_refused(capsys, argv, version):
    """Before: ``--engine-version 0.5.x`` was planned as 0.5.0 ("sglang 0.5.x rules"), with no word."""
    refused(capsys, *argv, "--engine-version", version,
            says=(f"--engine-version {version!r}", "cannot read", "MAJOR.MINOR[.PATCH]"))


def test_an_engine_version_refusal_under_json_is_the_error_object(capsys):
    code, out, _ = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine-version", "0.5.x", "--json")
    assert code == 2
    doc = json.loads(out)
    assert doc["schema"] == "tpkit.error/1" and "'.x'" in doc["error"]["message"]


@pytest.mark.parametrize("argv", [("--engine-version", "0.5.4.post1"), ("--engine-version", "v0.5.4"),
                                  ("--engine", "vllm", "--engine-version", "0.10.1.1"),
                                  ("--engine", "vllm", "--engine-version", "0.8.2:v0")])
def test_release_spellings_still_plan(capsys, argv):
    code, _, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", *argv)
    assert code == 0, err


# --- perf --p2p with --no-p2p ----------------------------------------------------------------------------------

@pytest.mark.parametrize("order", [("--p2p", "--no-p2p"), ("--no-p2p", "--p2p")])
def test_perf_refuses_p2p_and_no_p2p_together_as_plan_does(capsys, order):
    """Before: one dest for both flags, so the last one won (exit 0, a PCIe plan without peer access)."""
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--link", "pcie", *order,
            says=("--p2p and --no-p2p contradict each other",))
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--tp", "2", "--link", "pcie", *order,
            says=("--p2p and --no-p2p contradict each other",))


@pytest.mark.parametrize("flag, backend", [("--no-p2p", "nccl"), ("--p2p", "custom"), (None, "custom")])
def test_perf_p2p_flags_alone_still_choose_the_all_reduce(capsys, flag, backend):
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--link", "pcie",
                         *([flag] if flag else []), "--json")
    assert code == 0, err
    assert json.loads(out)["allreduce"]["backend"] == backend


# --- explain: a config.json whose strings quote a log line -----------------------------------------------------

def test_a_config_json_quoting_a_log_line_is_refused_as_a_config(capsys, tmp_path):
    """Before: a config.json with a note that quotes vLLM's 'Model loading took … GiB' was explained as a vLLM log
    (exit 0, "engine vllm ≥ 0.8"), though the README says a config.json is refused."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"_note": "vLLM printed 'Model loading took 14.2488 GiB and 3.1 seconds'",
                                  "model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28}))
    refused(capsys, "explain", str(config), says=("is a model config.json (JSON with model_type)",
                                                  "tpkit plan FILE --gpu NAME"))
    refused(capsys, "plan", "--from-log", str(config), says=("is a model config.json",))


def test_a_log_that_starts_with_a_cut_config_is_still_a_log(capsys, tmp_path):
    """The other side: a text that starts like a config.json but does not parse, followed by engine lines."""
    log = tmp_path / "server.log"
    log.write_bytes(b'{"model_type": "llama", "hidden_size": 4096,\n' + SYNTHETIC_KIMI.read_bytes())
    code, out, err = cli(capsys, "explain", str(log), "--json")
    assert code == 0, err
    assert json.loads(out)["kv_tokens"]["printed"] == 117631


# --- JSON flag values: nesting and long numbers ----------------------------------------------------------------

@pytest.mark.parametrize("value", [DEEP, LONG_NUMBER], ids=["deep", "long-number"])
@pytest.mark.parametrize("argv", [
    ("plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--speculative-config"),
    ("plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--limit-mm-per-prompt"),
    ("plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--eplb-config"),
    ("perf", LLAMA, "--gpu", "H100", "--engine", "vllm", "--speculative-config"),
], ids=["plan-speculative-config", "plan-limit-mm", "plan-eplb-config", "perf-speculative-config"])
def test_a_json_flag_value_too_deep_or_too_long_is_refused(capsys, argv, value):
    """Before: RecursionError / ValueError tracebacks (json.JSONDecodeError was the only failure caught)."""
    if value is DEEP and argv[-1] == "--limit-mm-per-prompt":
        pytest.skip("a value that does not start with '{' is refused before JSON is read")
    refused(capsys, *argv, value, says=(argv[-1],))


def test_flag_json_turns_every_decode_failure_into_a_json_error():
    for text, words in ((DEEP, "nested too deeply"), (LONG_NUMBER, "a number too long"), ("{bad", "Expecting")):
        with pytest.raises(json.JSONDecodeError, match=words):
            flag_json(text)
    assert flag_json('{"a": [1, 2]}') == {"a": [1, 2]}


# --- --allreduce-profile and --machine: what is not a profile file ---------------------------------------------

@pytest.mark.parametrize("content, says", [(DEEP, "nested too deeply"), ('{"a": ' + "9" * 5000 + "}", "4300 digits")],
                         ids=["deep", "long-number"])
def test_an_allreduce_profile_too_deep_or_too_long_is_refused(capsys, tmp_path, content, says):
    """Before: RecursionError / ValueError tracebacks from ``comm.profile.load_profile``."""
    path = tmp_path / "profile.json"
    path.write_text(content)
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--allreduce-profile", str(path), says=(says,))


def test_a_directory_given_for_a_profile_says_so(capsys, tmp_path):
    """Before: the errno text ('[Errno 21] Is a directory') and "re-create it with tpkit probe --out"."""
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--allreduce-profile", str(tmp_path),
            says=("is a directory",))
    refused(capsys, "plan", LLAMA, "--machine", str(tmp_path), says=("is a directory", "machine.json"))


def test_a_model_config_given_for_machine_says_which_flag_it_belongs_to(capsys, tmp_path):
    """Before: "unknown key(s) ['_name_or_path', 'architectures', … (every key of the config)]"."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "model_type": "llama"}))
    refused(capsys, "plan", LLAMA, "--machine", str(config),
            says=("is a model config.json", "not a machine profile", "pass it as MODEL"))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("argv", [
    ("plan", LLAMA, "--machine", "/dev/zero"),
    ("perf", LLAMA, "--gpu", "H100", "--tp", "2", "--allreduce-profile", "/dev/zero"),
    ("explain", "/dev/zero"),
    ("plan", "--from-log", "/dev/zero"),
])
def test_a_device_given_for_a_file_is_refused_at_once(capsys, argv):
    """Before: each read /dev/zero until the memory ran out (11–16 GiB within a minute on the test machine)."""
    refused(capsys, *argv, says=("/dev/zero", "device"))


def _fifo(tmp_path: Path, data: bytes) -> str:
    """A named pipe that a thread fills with ``data`` (a pipe has no size; ``<(…)`` in a shell is one)."""
    path = tmp_path / "pipe"
    os.mkfifo(path)

    def write():
        with open(path, "wb") as fh:
            fh.write(data)

    threading.Thread(target=write, daemon=True).start()
    return str(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_still_read_as_a_log_and_as_a_machine_profile(capsys, tmp_path):
    code, out, err = cli(capsys, "explain", _fifo(tmp_path, SYNTHETIC_KIMI.read_bytes()), "--json")
    assert code == 0, err
    assert json.loads(out)["kv_tokens"]["printed"] == 117631
    (tmp_path / "pipe").unlink()
    code, _, err = cli(capsys, "plan", LLAMA, "--machine", _fifo(tmp_path, MACHINE.read_bytes()))
    assert code == 0, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_longer_than_the_limit_is_refused(capsys, tmp_path, monkeypatch):
    """A pipe or standard input is read up to the limit, then refused as a longer file is (before: read whole)."""
    import io
    import sys

    import tpkit.cli.explain as explain_cli
    import tpkit.fileio as fileio

    monkeypatch.setattr(explain_cli, "MAX_LOG_BYTES", 1000)
    refused(capsys, "explain", _fifo(tmp_path, SYNTHETIC_KIMI.read_bytes()), says=("more than the 2 GiB",))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SYNTHETIC_KIMI.read_bytes())))
    refused(capsys, "explain", "-", says=("standard input holds more than",))
    monkeypatch.setattr(fileio, "SMALL_FILE_BYTES", 100)
    refused(capsys, "plan", LLAMA, "--machine", str(MACHINE), says=("longer than 100 bytes",))


# --- plan --from-log: a log with a CUDA OOM but no engine line --------------------------------------------------

def test_from_log_of_a_log_that_names_no_engine_says_what_it_found(capsys, tmp_path):
    """Before: "neither SGLang nor vLLM recognised in the log; give a server log that prints its memory lines", for a
    training script's log whose CUDA OOM is a failure line (so it is not refused as 'not an engine log')."""
    log = tmp_path / "train.log"
    log.write_text("Epoch 1/10\nloss: 0.532\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; "
                   "79.35 GiB total capacity; 77.10 GiB already allocated)\n")
    refused(capsys, "plan", "--from-log", str(log), says=("no line names SGLang or vLLM", "found line 3:",
                                                          "CUDA out of memory", "tpkit plan MODEL --gpu NAME"))


# --- --gpu-memory: zero and negative sizes --------------------------------------------------------------------

@pytest.mark.parametrize("command", [("plan", LLAMA), ("explain", str(SYNTHETIC_KIMI))])
@pytest.mark.parametrize("value, says", [("0GiB", "must be > 0, got '0GiB'"), ("0", "must be > 0, got '0'"),
                                         ("-80GiB", "'-80GiB' is negative")])
def test_gpu_memory_of_zero_or_less_says_what_to_give(capsys, command, value, says):
    """Before: '0' → "has no unit; say '0GiB'", and 0GiB then → "must be > 0" with no example; '-80GiB' → "a
    memory size must be ≥ 0", though 0 is refused too."""
    refused(capsys, *command, f"--gpu-memory={value}", says=(says, "e.g. 80GiB"))


# --- an empty file name to write -------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, flag", [
    (("probe", "--out", ""), "--out"),
    (("probe", "--out", " ", "--json"), "--out"),
    (("bench", "allreduce", "--device", "cpu", "--backend", "gloo", "--nproc", "1", "--json", ""), "--json"),
    (("bench", "allreduce", "--device", "cpu", "--backend", "gloo", "--nproc", "1", "--plot", ""), "--plot"),
])
def test_an_empty_file_name_to_write_is_refused_before_the_run(capsys, argv, flag):
    """Before: ``probe --out ''`` exited 0 ("Nothing written", as without --out) and ``bench allreduce --json ''`` ran
    the whole bench and wrote no profile, exit 0 (a script's unset ``$OUT``)."""
    code, out, err = cli(capsys, *argv)
    assert code == 2, (out, err)
    assert f"{flag} is given an empty file name" in err and "Traceback" not in err


def test_the_readme_words_on_comparing_bytes_with_an_int_hold():
    """README (Python API): ordering Bytes against an int raises, == is False (it said "comparing … raises")."""
    from tpkit.units import Bytes

    with pytest.raises(TypeError, match="compare with a Bytes value"):
        Bytes(5) < 6  # noqa: B015
    with pytest.raises(TypeError):
        Bytes(5) + 5  # noqa: B018
    assert (Bytes(5) == 5) is False and Bytes(5) == Bytes(5)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`Bytes(5) == 5` is `False`" in readme


def test_the_log_limit_words_follow_the_constant(tmp_path, monkeypatch):
    """The three 'more than the 2 GiB tpkit reads' refusals print ``_LIMIT``, made from ``MAX_LOG_BYTES`` (helper
    rev32: they wrote '2 GiB' by hand); a stream one byte over a lowered limit is refused with it."""
    import io

    import pytest

    from tpkit.cli import explain
    from tpkit.errors import PlanInputError

    assert explain._LIMIT == "2 GiB" and explain.MAX_LOG_BYTES == 2 * 2**30
    monkeypatch.setattr(explain, "MAX_LOG_BYTES", 4)
    with pytest.raises(PlanInputError, match="holds more than the 2 GiB tpkit reads"):
        explain._at_most(io.BytesIO(b"12345"), "standard input")
    assert explain._at_most(io.BytesIO(b"1234"), "standard input") == b"1234"
