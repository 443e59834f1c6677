"""What the session-20 newcomer sweep met (helper nc20, 2026-12-06): a fresh clone, the README's commands, then
~190 of the mistakes new users make (docs/accuracy.md §8, helper nc20's subsection lists each with its outcome).

Failed or read badly before their fix (each test says "Before:"):

- ``tpkit explain notes.txt`` (a text with no SGLang or vLLM line: a note, another program's log, a prose table):
  exit 0 and ``Diagnosis ok`` ("nothing to diagnose"), which a script could not tell from a healthy start-up; with
  ``--engine sglang`` even the cause was empty.  Now: refused as not an engine log (exit 2, one message, the
  ``tpkit.error/1`` object with ``--json``); ``tpkit.explain/1`` keeps its keys and its two status values.
- ``tpkit perf MODEL --speculative-algorithm EAGLE3 --speculative-draft-model-path /no/such/dir``: exit 0, the draft
  silently modelled from the target's shape.  Now a path that does not exist is refused with where tpkit looked (an
  HF id not on this machine is still modelled, and the assumptions say so).
- ``tpkit plan MODEL --engine vllm --kv-cache-memory-bytes 16GiB`` (one request's KV exactly) and ``… 40`` (bytes):
  the verdict said a --kv-cache-memory-bytes of one request "would not fit in the free memory either" on an H100
  with 60 GiB free (the re-plan missed the block vLLM ≥ 0.29 keeps out of its fit check), and the not-enough-KV
  verdict never named the user's own knob.  Now the smallest size that fits is named; a plain number under 1 MiB is
  refused (it is bytes, as vLLM reads it: '40' meant 40 GiB).
- ``--mem-fraction-static 0,9``, ``--max-model-len 32,768``, ``--accept-length 2,5``: refused with no word on why.
- ``--engine sglang-0.5.2``: "invalid choice" with no pointer to ``--engine-version``.
- ``tpkit`` alone: the help on stdout and exit 2 with no error line.
- ``tpkit perf``'s "crossover batch  93" and ``tpkit plan``'s "page 64", "block size: 64": numbers without a unit
  (the crossover also read as "speculation pays up to here" where it means the smallest batch at which it loses).
- ``tpkit perf --dp 2`` at tp 1: "--dp 2 must divide --tp 1 for DP attention", no way out named.
- ``tpkit explain KIMI_LOG --model deepseek-ai/DeepSeek-V3``: the other model used without a word.
- ``tpkit perf … --gpu MI300X --link nvlink``: "use --link pcie" (its own link is the xGMI mesh).
"""

from __future__ import annotations

import json

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"


# --- explain: a text that is not an engine log -----------------------------------------------------------------------

@pytest.mark.parametrize("content", [
    b"hello world\nthis is my nginx access log\n127.0.0.1 - - GET / 200\n",
    b"model: llama\ngpu: h100\n",
    b"\x00\x01\x02binary\x00",
])
def test_a_text_with_no_engine_line_is_refused(capsys, tmp_path, content):
    """Before: exit 0, 'Diagnosis ok', 'nothing to diagnose'."""
    log = tmp_path / "notes.txt"
    log.write_bytes(content)
    refused(capsys, "explain", str(log), says=(f"LOG {str(log)!r} is not an SGLang or vLLM log",
                                               "give the server's own log", "tpkit plan MODEL --gpu NAME"))
    code, out, err = cli(capsys, "explain", str(log), "--json")
    doc = json.loads(out)
    assert code == 2 and doc["schema"] == "tpkit.error/1" and doc["command"] == "tpkit explain"
    assert "not an SGLang or vLLM log" in doc["error"]["message"] and "Traceback" not in err


def test_flags_do_not_make_a_non_log_a_log(capsys, tmp_path):
    """Before: with --engine sglang --model … --gpu … a note gave 'Diagnosis ok' and no cause at all."""
    log = tmp_path / "notes.txt"
    log.write_text("started the server on node 3\nit did not come up\n")
    refused(capsys, "explain", str(log), "--engine", "sglang", "--model", LLAMA_8B, "--gpu", "H100",
            says=("is not an SGLang or vLLM log", "none of its 2 lines"))


def test_a_non_log_on_standard_input_and_a_bom_alone(capsys, tmp_path, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"just some text\n")))
    refused(capsys, "explain", "-", says=("standard input is not an SGLang or vLLM log",))
    bom = tmp_path / "bom.log"
    bom.write_bytes(b"\xef\xbb\xbf\n")  # before: "none of its 0 lines is …"
    refused(capsys, "explain", str(bom), says=("is empty",))


def test_a_log_that_names_its_engine_or_a_crash_is_still_explained(capsys, tmp_path):
    """The line is drawn at 'nothing read': a version line alone, or a CUDA OOM traceback without engine lines, is
    explained (exit 0) with its missing list, as before."""
    version = tmp_path / "v.log"
    version.write_text("INFO 12-01 10:00:00 [api_server.py:100] vLLM API server version 0.10.1\n")
    code, out, _ = cli(capsys, "explain", str(version), "--json")
    assert code == 0 and json.loads(out)["engine"] == "vllm"
    oom = tmp_path / "oom.log"
    oom.write_text('Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: CUDA out of memory\n')
    code, out, _ = cli(capsys, "explain", str(oom), "--json")
    assert code == 0 and json.loads(out)["diagnosis"]["status"] == "failed"
    code, out, _ = cli(capsys, "explain", str(SYNTHETIC_KIMI))
    assert code == 0


def test_explain_and_perf_help_say_what_each_exit_status_means(capsys):
    for command in ("explain", "perf"):
        code, out, _ = cli(capsys, command, "--help")
        out = " ".join(out.split())
        assert code == 0 and "exit status: 0" in out and "2 a user error" in out and "tpkit.error/1" in out
    code, out, _ = cli(capsys, "explain", "--help")
    assert "not an engine log" in " ".join(out.split())


# --- perf: a draft path that does not exist --------------------------------------------------------------------------

@pytest.mark.parametrize("draft", ["/no/such/eagle3-head", "./no/such/config.json", "~/models/none-such/draft"])
def test_perf_refuses_a_draft_path_that_does_not_exist(capsys, draft):
    """Before: exit 0, the draft modelled from the target with no word that the path was not there."""
    refused(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--speculative-algorithm", "EAGLE3",
            "--speculative-draft-model-path", draft, says=("the draft model", "not found", "Looked at"))


def test_perf_refuses_the_speculative_configs_missing_model_path(capsys):
    refused(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--engine", "vllm", "--speculative-config",
            '{"method": "eagle3", "num_speculative_tokens": 3, "model": "/no/such/x"}',
            says=("the speculative config's \"model\"", "'/no/such/x' not found"))


def test_perf_models_an_hf_id_it_does_not_have_and_says_so(capsys):
    code, out, _ = cli(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--speculative-algorithm", "EAGLE3",
                       "--speculative-draft-model-path", "someone/not-downloaded-eagle3")
    assert code == 0
    assert "'someone/not-downloaded-eagle3' has no config on this machine" in out and "its shape assumed" in out


# --- vLLM --kv-cache-memory-bytes: the fix that fits ----------------------------------------------------------------

@pytest.mark.parametrize("size", ["16GiB", "8GiB", "40000000"])
def test_the_kv_cache_memory_bytes_fix_is_named_and_fits(capsys, size):
    """Before: 16GiB / 40000000 said one request's KV 'would not fit in the free memory either' (the retry missed
    the block vLLM ≥ 0.29 keeps out of its fit check); 8GiB named only --max-model-len and --tp."""
    code, out, _ = cli(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes", size,
                       "--json")
    plan = json.loads(out)
    assert code == 3 and not plan["verdict"]["fits"]
    assert "would not fit in the free memory either" not in plan["verdict"]["message"]
    fix = [f for f in plan["verdict"]["fixes"] if f.startswith("--kv-cache-memory-bytes ")]
    assert len(fix) == 1, plan["verdict"]
    value = fix[0].split()[1]
    assert int(value) >= 16 * 2**30  # one 131,072-token request of Llama-3.1-8B: 16 GiB of bf16 KV
    code, out, _ = cli(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes",
                       value, "--json")
    assert code == 0 and json.loads(out)["verdict"]["fits"]  # the fix, re-planned, fits
    code, out, _ = cli(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes",
                       str(int(value) - 2**20), "--json")
    assert code == 3  # and it is the smallest whole MiB that does


@pytest.mark.parametrize("command", ["plan", "explain"])
def test_a_plain_kv_cache_memory_bytes_under_a_mib_is_refused(capsys, command):
    """Before: '--kv-cache-memory-bytes 40' planned a 40-byte KV cache (exit 3)."""
    where = [LLAMA_8B, "--engine", "vllm", "--gpu", "H100"] if command == "plan" else [str(SYNTHETIC_KIMI)]
    refused(capsys, command, *where, "--kv-cache-memory-bytes", "40",
            says=("'40' is 40 bytes", "--kv-cache-memory-bytes 40GiB", "40GB"))


# --- small things -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv,says", [
    (["plan", LLAMA_8B, "--gpu", "H100", "--mem-fraction-static", "0,9"], "write it with a decimal point: 0.9"),
    (["plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--max-model-len", "32,768"],
     "without the thousands separator: 32768"),
    (["perf", LLAMA_8B, "--gpu", "H100", "--speculative-algorithm", "EAGLE3", "--accept-length", "2,5"],
     "write it with a decimal point: 2.5"),
    (["plan", LLAMA_8B, "--gpu", "H100", "--engine", "sglang-0.5.2"], "--engine sglang --engine-version 0.5.2"),
    (["plan", LLAMA_8B, "--gpu", "H100", "--engine", "vllm==0.10.1"], "--engine vllm --engine-version 0.10.1"),
    (["perf", LLAMA_8B, "--gpu", "H100", "--dp", "2"], "use e.g. --tp 2 --dp 2"),
])
def test_common_typos_say_how_to_write_them(capsys, argv, says):
    refused(capsys, *argv, says=(says,))


def test_tpkit_alone_says_what_is_missing_on_stderr(capsys):
    """Before: the help on stdout, exit 2, no error line."""
    code, out, err = cli(capsys)
    assert code == 2 and out == "" and "usage: tpkit" in err
    assert "tpkit: error: no command given" in err and "tpkit plan MODEL --gpu NAME" in err


def test_counts_carry_their_unit(capsys):
    code, out, _ = cli(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100")
    import re

    text = " ".join(out.split())
    assert code == 0 and re.search(r"page \d+ tokens ·", text)
    assert re.search(r"block size: \d+ tokens", text) and re.search(r"kv blocks: [\d,]+ per rank", text)
    code, out, _ = cli(capsys, "plan", LLAMA_8B, "--gpu", "H100")
    assert "page 1 token ·" in " ".join(out.split())
    code, out, _ = cli(capsys, "perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8",
                       "--speculative-algorithm", "EAGLE3")
    line = next(x for x in out.splitlines() if x.startswith("crossover batch"))
    assert line.split()[3] == "requests" and "the smallest batch at which speculation is slower" in line


def test_a_model_flag_that_is_not_the_logs_model_is_said(capsys):
    """Before: `explain KIMI_LOG --model deepseek-ai/DeepSeek-V3` used DeepSeek-V3's config without a word, though
    the log names moonshotai/Kimi-K2.5 (the README: a flag that contradicts the log is reported)."""
    code, out, _ = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--model", "deepseek-ai/DeepSeek-V3")
    text = " ".join(out.split())
    assert code == 0 and "--model deepseek-ai/DeepSeek-V3 is not the model the log names" in text
    assert "the catalog's moonshotai/Kimi-K2.5" in text
    code, out, _ = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--model", "moonshotai/Kimi-K2.5")
    assert code == 0 and "is not the model the log names" not in out


def test_perf_nvlink_on_an_amd_mesh_names_xgmi(capsys):
    """Before: `perf … --gpu MI300X --link nvlink` said "use --link pcie", though MI300X's own link is the xGMI mesh."""
    refused(capsys, "perf", LLAMA_8B, "--gpu", "MI300X", "--tp", "8", "--link", "nvlink",
            says=("use --link xgmi (its AMD Infinity Fabric mesh) or --link pcie",))
    refused(capsys, "perf", LLAMA_8B, "--gpu", "RTX-4090", "--tp", "2", "--link", "nvlink", says=("use --link pcie",))
