"""What the session-17 newcomer sweep met (helper nc17, 2026-12-05): bad input on ``tpkit perf``, ``tpkit bench``
(CPU), ``tpkit probe``, ``tpkit explain`` and ``tpkit plan --from-log`` — units, negative / zero / NaN / inf numbers,
directories and binary files where a file is expected, config.json files that are not objects, ``--json`` with an
error, ``--out`` into a missing folder.  Most of it was already refused well (tests/cli/test_new_user*.py,
test_newcomer_session*.py); each test here failed before its fix:

- ``tpkit bench allreduce --device cpu --max-size 80GB`` started the ranks and was killed by the kernel's OOM killer
  (23 GiB resident on a 23 GiB box, no message, no exit 2): the CPU ranks' measured peak (about (11 + 3 × world)×
  the largest message) is now checked against the host's available memory before any rank starts.
- ``--batch -inf`` (any value flag followed by ``-inf`` / ``-nan``) said only "expected one argument": the value is
  now read as the flag's value and refused with the flag's own message, naming it.
- A unit-less negative size (``--gpu-memory -1``) was refused for want of a unit, with the advice "e.g. '-1GiB'",
  which is then refused as negative: it is now refused as negative at once.
- ``--kv-cache-memory-bytes 0`` said "got Bytes(0)" (a Python repr); it now says what was given.
- A config.json, machine profile or all-reduce profile holding ``null`` said "got NoneType" (Python's name for it);
  it now names the JSON kind (null, an array, a string …).
- ``tpkit perf … --gpu-memory -1`` (a plan flag perf lacks) listed the value as a flag: "has no flag --gpu-memory (did
  you mean --gpu?), -1".
"""

from __future__ import annotations

import json

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
GiB = 2**30


# --- tpkit bench allreduce (CPU): a message larger than the host's memory ------------------------------------

@pytest.fixture
def no_ranks(monkeypatch):
    """Fail the test (instead of allocating) if the bench gets as far as starting its ranks."""
    import tpkit.comm.benchmain as benchmain

    def _started(opts):
        raise AssertionError(f"the bench started its ranks with sizes up to {max(opts['sizes'])}")

    monkeypatch.setattr(benchmain, "run_bench", _started)


def test_bench_cpu_message_larger_than_the_host_is_refused_before_the_ranks(monkeypatch, capsys, no_ranks):
    import tpkit.cli.bench as bench

    monkeypatch.setattr(bench, "_host_available_bytes", lambda: 16 * GiB)
    line = refused(capsys, "bench", "allreduce", "--device", "cpu", "--nproc", "1", "--max-size", "80GB",
                   says=("--max-size 80GB", "16.00 GiB", "--max-size"))
    assert "available" in line and "use --max-size" in line


def test_bench_cpu_counts_every_rank_and_its_gathered_copies(monkeypatch, capsys, no_ranks):
    """2 ranks × (11 + 3 × 2) × 4 GiB = 136 GiB > 64 GiB; one rank alone peaks at (11 + 3) × 4 GiB = 56 GiB."""
    import tpkit.cli.bench as bench

    monkeypatch.setattr(bench, "_host_available_bytes", lambda: 64 * GiB)
    refused(capsys, "bench", "allreduce", "--device", "cpu", "--nproc", "2", "--max-size", "4GiB",
            says=("2 CPU ranks", "136.00 GiB", "64.00 GiB available", "use --max-size 1GiB or less"))
    with pytest.raises(AssertionError, match="started its ranks"):
        cli(capsys, "bench", "allreduce", "--device", "cpu", "--nproc", "1", "--max-size", "4GiB")


def test_bench_cpu_without_a_patch_refuses_a_size_no_host_has(capsys, no_ranks):
    refused(capsys, "bench", "allreduce", "--device", "cpu", "--nproc", "1", "--max-size", "64TiB",
            says=("--max-size 64TiB", "available"))


# --- a negative value argparse takes for a flag: -inf / -nan ---------------------------------------------------

@pytest.mark.parametrize("argv, says", [
    (("perf", LLAMA_8B, "--gpu", "H100", "--batch", "-inf"), ("--batch", "'-inf'")),
    (("perf", LLAMA_8B, "--gpu", "H100", "--pcie-fabric-gbps", "-inf"), ("--pcie-fabric-gbps", "'-inf'", "> 0")),
    (("perf", LLAMA_8B, "--gpu", "H100", "--accept-length", "-NaN"), ("--accept-length", "'-NaN'")),
    (("explain", str(SYNTHETIC_KIMI), "--mem-fraction-static", "-inf"), ("--mem-fraction-static", "-inf")),
    (("plan", "--from-log", str(SYNTHETIC_KIMI), "--context-length", "-inf"), ("--context-length", "'-inf'")),
    (("bench", "allreduce", "--device", "cpu", "--nproc", "-inf"), ("--nproc", "'-inf'")),
])
def test_minus_inf_is_read_as_the_flags_value_and_named(capsys, argv, says):
    line = refused(capsys, *argv, says=says)
    assert "expected one argument" not in line


def test_minus_inf_with_json_prints_the_error_object(capsys):
    code, out, err = cli(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--batch", "-inf", "--json")
    assert code == 2 and "Traceback" not in err
    body = json.loads(out)
    assert body["schema"] == "tpkit.error/1" and "'-inf'" in body["error"]["message"]


# --- sizes without a unit that are negative -------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ("plan", "--from-log", str(SYNTHETIC_KIMI), "--gpu-memory", "-1"),
    ("explain", str(SYNTHETIC_KIMI), "--gpu-memory", "-80"),
    ("plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes", "-1e3"),
    ("bench", "allreduce", "--device", "cpu", "--max-size", "1MiB", "--max-bytes", "-1"),
])
def test_a_negative_size_is_refused_as_negative_not_for_its_unit(capsys, argv):
    line = refused(capsys, *argv, says=("is negative", argv[-1]))
    assert "has no unit" not in line and f"'{argv[-1]}GiB'" not in line


def test_kv_cache_memory_bytes_zero_names_what_was_given(capsys):
    line = refused(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes", "0",
                   says=("--kv-cache-memory-bytes", "got 0 bytes"))
    assert "Bytes(" not in line


# --- JSON files that hold null (or another non-object) ---------------------------------------------------------

@pytest.mark.parametrize("text, kind", [("null", "null"), ("[1, 2]", "an array"), ('"x"', "a string"),
                                        ("7", "a number"), ("true", "true")])
def test_a_config_json_that_is_not_an_object_names_the_json_kind(tmp_path, capsys, text, kind):
    config = tmp_path / "config.json"
    config.write_text(text)
    for argv in (("plan", str(config), "--gpu", "H100"), ("perf", str(config), "--gpu", "H100"),
                 ("plan", "--from-log", str(SYNTHETIC_KIMI), str(config))):
        line = refused(capsys, *argv, says=(f"got {kind}",))
        assert "NoneType" not in line and "got list" not in line and "got str" not in line


def test_a_machine_profile_of_null_names_the_json_kind(tmp_path, capsys):
    machine = tmp_path / "machine.json"
    machine.write_text("null")
    refused(capsys, "plan", LLAMA_8B, "--tp", "2", "--machine", str(machine), says=("got null",))


def test_an_allreduce_profile_of_null_names_the_json_kind(tmp_path, capsys):
    profile = tmp_path / "allreduce.json"
    profile.write_text("null")
    refused(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--tp", "2", "--allreduce-profile", str(profile),
            says=("got null",))


# --- an unknown flag followed by a negative value --------------------------------------------------------------

def test_an_unknown_flags_negative_value_is_not_listed_as_a_flag(capsys):
    line = refused(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--gpu-memory", "-1",
                   says=("no flag --gpu-memory",))
    assert "-1" not in line.split("no flag", 1)[1]


# --- the README's figures of the bare perf sweep ------------------------------------------------------------------

def test_the_readme_context_sweep_figures_are_what_perf_prints(capsys):
    """The README said "1k 1.62×, … 16k 1.02×, 32k 0.76×, …): it stops paying from about 17,664 tokens"; the command
    prints 1.65× / 1.04× / 0.77× and 18,176 (the inline command wraps a line, so test_documented_commands runs it
    but cannot check figures that sit in the prose after it)."""
    from pathlib import Path

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    code, out, err = cli(capsys, "perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8",
                         "--speculative-algorithm", "EAGLE3", "--json")
    assert code == 0, err
    result = json.loads(out)
    sweep = {row["context"]: row["speculative"]["speedup"] for row in result["by_context"]}
    shown = (f"(1k {sweep[1024]:.2f}×, … 16k {sweep[16384]:.2f}×, 32k {sweep[32768]:.2f}×, …): it stops paying from "
             f"about {result['crossover_context']:,} tokens of context")
    assert shown in readme, shown
    assert f"pays at 1k ({sweep[1024]:.2f}×)" in readme
