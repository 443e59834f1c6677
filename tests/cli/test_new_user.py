"""What a new user who knows SGLang/vLLM types, and what tpkit answers: exit 2 with one clear message (what was
wrong, what was received, how to fix it), no usage block, no traceback, nothing written, or a correct plan.

Each test names the behaviour before the fix it pins."""

import json

import pytest

from clirun import SYNTHETIC_KIMI, cli
from tpkit.runtime.machine_probe import no_gpu_reason

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def refused(capsys, *argv, says=()):
    code, out, err = cli(capsys, *argv)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and "usage:" not in err, err
    assert len(err.strip().splitlines()) == 1 or "Looked at" in err, err  # one message
    for words in says:
        assert words in err, (words, err)
    return err


# --- flags in the engines' own spelling -------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--tensor-parallel-size", "--tp-size"])
def test_the_engines_spellings_of_tp_plan_like_tp(capsys, flag):
    """Before: 'tpkit: error: unrecognized arguments: --tensor-parallel-size 2' after the top-level usage."""
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", flag, "2", "--json")
    assert code == 0, err
    assert json.loads(out)["parallel"]["tp"] == 2


def test_perf_and_explain_take_the_engines_spellings_too(capsys):
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--tp-size", "2", "--json")
    assert code == 0 and json.loads(out)["tp"] == 2, err
    code, out, err = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--ep-size", "1", "--json")
    assert code == 0, err


def test_an_unknown_flag_names_the_closest_flag_in_one_line(capsys):
    """Before: the top-level usage and 'unrecognized arguments'.  (Helper rev11, 2026-12-05: ``-tp`` was the example
    here; it is vLLM's short spelling of --tensor-parallel-size and is taken now, tests/cli/test_vllm_short_flags.py.)"""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--tpp", "2", says=("tpkit plan has no flag --tpp", "--tp"))
    refused(capsys, "bench", "allreduce", "--sizes", "1GB", says=("tpkit bench allreduce has no flag --sizes",))


@pytest.mark.parametrize("command,flag", [("plan", "--model-path"), ("plan", "--model"), ("perf", "--model")])
def test_the_engines_model_flags_point_at_the_model_argument(capsys, command, flag):
    """Refused with a pointer at MODEL until session 25; since ux25 (cli.pasted) the flag is read as MODEL when no
    MODEL is given, and pointed at only when MODEL is given as well."""
    code, _, err = cli(capsys, command, flag, LLAMA, "--gpu", "H100")
    assert code == 0 and f"note: read {flag} {LLAMA} as MODEL" in err
    refused(capsys, command, LLAMA, flag, LLAMA, "--gpu", "H100", says=(flag, f"tpkit {command} MODEL"))


def test_argparse_errors_are_one_line_without_the_usage_block(capsys):
    """Before: ~30 lines of usage, then the error."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--mem-fraction-static", "abc", says=("'abc'",))
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", "--link", "nvswitch", says=("'nvswitch'",))


@pytest.mark.parametrize("spelling", ["SGLang", "vLLM"])
def test_engine_names_are_case_insensitive(capsys, spelling):
    """Before: "invalid choice: 'vLLM'"."""
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", spelling, "--json")
    assert code == 0 and json.loads(out)["engine"] == spelling.lower(), err


def test_a_speculative_flag_of_the_other_engine_names_this_engines_flag(capsys):
    """Before: '--speculative-algorithm is a SGLang flag, but --engine is vllm' (no way forward)."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--speculative-algorithm", "EAGLE3",
            says=("use --speculative-config",))


# --- token counts ----------------------------------------------------------------------------------------------

def test_max_model_len_reads_128k_as_vllm_does(capsys):
    """vLLM's human_readable_int: lowercase k = 1000.  Before: "invalid int value: '128k'" after the usage."""
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--max-model-len", "128k",
                         "--json")
    assert code == 0 and json.loads(out)["context_length"] == 128_000, err


@pytest.mark.parametrize("value", ["auto", "-1"])
def test_max_model_len_auto_is_explained(capsys, value):
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--max-model-len", value,
            says=("largest length that fits", "leave --max-model-len out"))


@pytest.mark.parametrize("argv,readings", [
    (["plan", LLAMA, "--gpu", "H100", "--context-length", "128k"], ("128000", "131072")),
    (["plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--max-model-len", "32K"], ("32000", "32768")),
    (["perf", LLAMA, "--gpu", "H100", "--context", "16k"], ("16000", "16384")),
])
def test_a_suffix_the_engine_does_not_read_is_refused_with_both_readings(capsys, argv, readings):
    refused(capsys, *argv, says=readings)


# --- values -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--speculative-num-steps", "--speculative-eagle-topk",
                                  "--speculative-num-draft-tokens"])
def test_perf_refuses_a_zero_speculative_setting(capsys, flag):
    """Before: 0 fell back to the default silently (exit 0)."""
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--speculative-algorithm", "EAGLE3", flag, "0",
            says=(flag, "got 0"))


def test_perf_takes_the_engines_kv_dtype_spellings(capsys):
    """Before: "invalid choice: 'fp8_e4m3' (choose from 'auto', 'bf16', 'fp8')"."""
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--kv-cache-dtype", "fp8_e4m3", "--json")
    assert code == 0, err
    code, out8, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--kv-cache-dtype", "fp8", "--json")
    assert json.loads(out)["baseline"] == json.loads(out8)["baseline"]


@pytest.mark.parametrize("extra,says", [
    (["--tp", "0"], "--tp must be a whole number ≥ 1, got 0"),
    (["--mem-fraction-static", "85"], "(0, 1], got 85"),
    (["--gpu-memory-utilization", "1.5"], "(0, 1], got 1.5"),
    (["--speculative-num-steps", "0"], "got 0"),
    (["--gpu-memory", "0GiB"], "--gpu-memory must be > 0"),
])
def test_explain_refuses_flag_values_no_engine_runs(capsys, extra, says):
    """Before: exit 0, the value ignored where the log printed its own."""
    refused(capsys, "explain", str(SYNTHETIC_KIMI), *extra, says=(says,))


def test_explain_takes_a_speculative_setting_whose_algorithm_the_log_may_print(capsys):
    code, _, err = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--speculative-num-steps", "3", "--json")
    assert code == 0, err


def test_explain_takes_a_vllm_release_spelling_for_engine_version(capsys):
    """--engine-version is shared: a value one engine accepts ('0.8.2:v0' is vLLM's) is not refused."""
    code, _, err = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--engine-version", "0.8.2:v0", "--json")
    assert code == 0, err


def test_a_size_with_its_unit_apart_is_named(capsys):
    """Before: 'unrecognized arguments: GiB'."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--gpu-memory", "80", "GiB", says=("'GiB'", "80GiB"))


# --- files ------------------------------------------------------------------------------------------------------

def test_an_empty_log_is_refused(capsys, tmp_path):
    """Before: explain exited 0 ('engine unknown'); plan --from-log said 'neither SGLang nor vLLM recognised'."""
    log = tmp_path / "server.log"
    log.write_text("")
    refused(capsys, "explain", str(log), says=("is empty",))
    refused(capsys, "plan", "--from-log", str(log), says=("is empty",))


@pytest.mark.parametrize("name,content,says", [
    ("model.safetensors", b"", "is a weights file"),
    ("config.json", b"", "is empty"),
    ("config.json", b"  \n", "is empty"),
])
def test_a_weights_file_or_empty_config_as_model_says_so(capsys, tmp_path, name, content, says):
    """Before: 'is not valid JSON: Expecting value at line 1, column 1'."""
    path = tmp_path / name
    path.write_bytes(content)
    refused(capsys, "plan", str(path), "--gpu", "H100", says=(says,))


@pytest.mark.skipif(no_gpu_reason() is None, reason="a GPU is visible here")
def test_probe_out_without_a_gpu_exits_2_and_writes_nothing(capsys, tmp_path):
    out = tmp_path / "machine.json"
    refused(capsys, "probe", "--out", str(out), says=("no GPU to probe",))
    assert not out.exists()


# --- warnings where the plan goes on ------------------------------------------------------------------------------

def test_a_stored_quantisation_on_an_unquantised_checkpoint_is_warned(capsys):
    """Before: planned as AWQ without a word; the engines refuse the flag on this checkpoint (since session 26 the
    verdict also says WILL NOT START, exit 3: tests/cli/test_newcomer_session26.py)."""
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--quantization", "awq", "--json")
    assert code == 3, err
    assert any("Cannot find the config file for awq" in w for w in json.loads(out)["warnings"])
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--quantization", "fp8", "--json")
    assert not any("quantization_config" in w for w in json.loads(out)["warnings"])


@pytest.mark.parametrize("version,warned", [("0.34", False), ("0.34.0", False), ("0.33.0", False), ("0.35.0", True),
                                            ("0.99", True)])  # helper cur17: newest read is 0.34.0
def test_a_vllm_release_newer_than_the_newest_read_is_warned(capsys, version, warned):
    """Before: 'vllm 0.99 rules' in the header, no warning (SGLang's plan already warned)."""
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--engine-version", version,
                         "--json")
    assert code == 0, err
    assert any("newer than the latest examined release" in w for w in json.loads(out)["warnings"]) is warned


def test_perf_says_when_the_version_is_newer_than_the_newest_read(capsys):
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--engine-version", "0.99")
    assert code == 0 and "newer than 0.5.23" in out, err
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--engine-version", "0.5.10")
    assert "newer than" not in out


@pytest.mark.parametrize("version,warned", [("0.33.0", False), ("0.34.0", False), ("0.35.0", True)])
def test_perf_on_vllm_says_when_the_version_is_newer_than_0_34_0(capsys, version, warned):
    """Helper perf17 (2026-12-05): perf's newest vLLM read is 0.34.0 (was 0.33.0: 0.34.0 was flagged)."""
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--engine", "vllm", "--engine-version", version)
    assert code == 0, err
    assert ("newer than" in out) is warned
    assert not warned or "newer than 0.34.0, the newest version tpkit read" in out


def test_bench_on_a_cpu_machine_says_it_falls_back_to_gloo_before_the_rows(capsys):
    """Before: the CPU rows came with only '2× CPU' in their header to say these were not GPU numbers."""
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is visible here")
    from tpkit.cli import build_parser
    from tpkit.cli.bench import options_from_args

    args = build_parser(["bench", "allreduce"]).parse_args(["bench", "allreduce", "--max-size", "2KiB"])
    assert options_from_args(args)["device"] == "cpu"
    err = capsys.readouterr().err
    assert "no CUDA GPU is visible" in err and "gloo" in err and "--device cuda" in err


@pytest.mark.parametrize("model", ["https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct",
                                   "huggingface.co/meta-llama/Llama-3.1-8B-Instruct/tree/main",
                                   "meta-llama/Llama-3.1-8B-Instruct/"])
def test_a_pasted_hub_url_or_a_trailing_slash_names_the_repo(capsys, model):
    """Before: "model 'https://huggingface.co/…' not found"."""
    code, out, err = cli(capsys, "plan", model, "--gpu", "H100", "--json")
    assert code == 0, err
    assert json.loads(out)["model"]["name"] == LLAMA


def test_a_missing_draft_model_is_named_as_the_draft(capsys):
    """Before: "model 'nope/nope' not found", as if MODEL itself were missing."""
    code, _, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--speculative-algorithm", "EAGLE3",
                       "--speculative-draft-model-path", "nope/nope")
    assert code == 2 and "the draft model" in err and "nope/nope" in err and "Traceback" not in err


def test_a_gzipped_log_is_read_as_its_text(capsys, tmp_path):
    """Before: a rotated server.log.gz explained as binary ('model not printed', no ledger)."""
    import gzip

    log = tmp_path / "server.log.gz"
    log.write_bytes(gzip.compress(SYNTHETIC_KIMI.read_bytes()))
    code, out, err = cli(capsys, "explain", str(log), "--json")
    assert code == 0 and json.loads(out)["kv_tokens"]["printed"] == 117631, err
    log.write_bytes(log.read_bytes()[:100])
    refused(capsys, "explain", str(log), says=("gzip-compressed", "does not decompress"))


@pytest.mark.parametrize("flag", ["--pcie-fabric-gbps", "--accept-length"])
@pytest.mark.parametrize("value", ["inf", "nan", "-3"])
def test_perf_rates_are_finite_and_positive(capsys, flag, value):
    """Before: '--pcie-fabric-gbps inf' was planned (exit 0)."""
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--tp", "2", flag, value, says=("finite number > 0",))
