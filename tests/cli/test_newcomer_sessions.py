"""What a first-time user met on 2026-12-04 (an SGLang/vLLM user trying ~75 sessions from a fresh clone), pinned:
each message says what was wrong, what was received and how to fix it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli, refused

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
VLLM_LOG_WITHOUT_MODEL = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_001.log"
"""a vLLM V0 log whose lines print memory but no model name"""


# --- a flag of the other engine: the way out, and where the engine came from ---------------------------------------

def test_a_vllm_flag_without_engine_says_the_engine_is_the_default_and_how_to_fix(capsys):
    """Before: '--skip-mm-profiling is a vLLM flag, but --engine is sglang' to a user who never typed --engine
    (the default engine), and no fix."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--skip-mm-profiling",
            says=("is a vLLM flag", "the engine is sglang (the default)", "leave --skip-mm-profiling out",
                  "--engine vllm"))


def test_an_sglang_flag_with_no_vllm_counterpart_names_both_ways_out(capsys):
    """Before: '--lora-target-modules is a SGLang flag, but --engine is vllm' and nothing more."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--enable-lora", "--max-lora-rank", "16",
            "--lora-target-modules", "q_proj",
            says=("is an SGLang flag, but --engine is vllm", "vLLM has no such flag",
                  "leave --lora-target-modules out", "--engine sglang"))


def test_a_flag_with_a_counterpart_still_names_it(capsys):
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--mem-fraction-static", "0.8",
            says=("--engine is vllm", "use --gpu-memory-utilization"))


def test_from_log_engine_is_said_to_come_from_the_log(capsys):
    """A --from-log plan takes the engine from the log: an other-engine flag names that source."""
    refused(capsys, "plan", LLAMA, "--from-log", str(VLLM_LOG_WITHOUT_MODEL), "--mem-fraction-static", "0.8",
            says=("the engine is vllm (read from the log)", "use --gpu-memory-utilization"))


# --- --from-log with a log that names no model -----------------------------------------------------------------------

def test_from_log_without_a_model_in_the_log_names_the_log_and_the_fix(capsys):
    """Before: 'no model given: pass MODEL …, or --from-log LOG with a log that names a model' to a user who had
    just passed --from-log."""
    refused(capsys, "plan", "--from-log", str(VLLM_LOG_WITHOUT_MODEL),
            says=(f"--from-log {VLLM_LOG_WITHOUT_MODEL}: the log prints no model path or name", "pass MODEL as well"))


# --- --gpu-memory in GB where GiB was meant -------------------------------------------------------------------------

def _warnings(capsys, *argv):
    code, out, err = cli(capsys, "plan", LLAMA, "--json", *argv)
    assert code in (0, 3), err
    return json.loads(out)["warnings"]


def test_gpu_memory_in_gb_warns_with_the_gib_reading_and_the_card(capsys):
    """`--gpu-memory 80GB` is 74.51 GiB: planned as written (GB = 10^9 B), with a warning that gives the binary
    spelling and the catalog card sold as '80GB' (79.19 GiB to CUDA)."""
    notes = [w for w in _warnings(capsys, "--gpu-memory", "80GB") if w.startswith("--gpu-memory 80GB")]
    assert len(notes) == 1, notes
    assert "74.51 GiB" in notes[0] and "--gpu-memory 80GiB" in notes[0]
    assert "H100-SXM-80GB: 79.19 GiB" in notes[0] and "--gpu H100-SXM-80GB" in notes[0]


@pytest.mark.parametrize("size", ["80GiB", "85899345920B", "81559MiB"])
def test_gpu_memory_in_binary_units_or_bytes_has_no_such_warning(capsys, size):
    assert not [w for w in _warnings(capsys, "--gpu-memory", size) if "10^9" in w]


def test_gpu_memory_in_gb_with_a_gpu_keeps_both_warnings(capsys):
    notes = _warnings(capsys, "--gpu", "H100", "--gpu-memory", "141GB")
    assert any("141 × 10^9 B = 131.32 GiB" in w and "H200-SXM-141GB" in w for w in notes), notes
    assert any("replaces the catalog total of H100-SXM-80GB" in w for w in notes), notes


# --- a flag the sub-command lacks, next to a required one it then misses ------------------------------------------------

def test_perf_with_plans_gpu_memory_names_the_flag_it_lacks(capsys):
    """Before: 'the following arguments are required: --gpu' only, though the user had given --gpu-memory."""
    refused(capsys, "perf", LLAMA, "--gpu-memory", "141GB", "--tp", "4",
            says=("required: --gpu", "tpkit perf has no flag --gpu-memory (did you mean --gpu?)"))


def test_an_unknown_flag_whose_prefix_is_a_flag_is_pointed_at_it(capsys):
    refused(capsys, "perf", LLAMA, "--gpu", "H200", "--gpu-memory", "141GB",
            says=("tpkit perf has no flag --gpu-memory (did you mean --gpu?)",))


def test_a_required_argument_alone_keeps_the_short_message(capsys):
    line = refused(capsys, "perf", LLAMA, "--tp", "4")
    assert line.endswith("required: --gpu; `tpkit perf --help` lists the flags")


def test_an_abbreviated_flag_is_not_called_unknown(capsys):
    line = refused(capsys, "perf", LLAMA, "--tp", "4", "--acc", "2")
    assert "has no flag" not in line


# --- the examples in the messages work when followed --------------------------------------------------------------------

def test_the_speculative_config_example_of_the_error_plans_as_given(capsys):
    """Before: the example draft (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B) was in neither the catalog nor a fresh HF
    cache, so a newcomer who pasted the message's example got 'model not found'.  The example now names a catalog
    draft of the same EAGLE-3 Llama-3.1-8B geometry, and pasting it plans."""
    import re

    line = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--speculative-config",
                   '{"method": "eagle3"}', says=("needs a draft model", "--list-models"))
    example = re.search(r"e\.g\. '(\{.*?\})'", line).group(1)
    code, out, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--speculative-config", example)
    assert code == 0, err
    assert "drafter weights (eagle3)" in out


def test_nnodes_on_one_gpu_says_one_gpu(capsys):
    """Before: 'does not split the 1 GPUs … here one of 1'."""
    line = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "vllm", "--nnodes", "2",
                   says=("--nnodes 2 does not split the 1 GPU of the deployment", "--num-gpus (or --tp)"))
    assert "1 GPUs" not in line


# --- perf takes the --engine-version values plan takes -------------------------------------------------------------------

@pytest.mark.parametrize("engine, old, first", [("sglang", "0.1", "0.2.15"), ("sglang", "0.2.14", "0.2.15"),
                                                ("vllm", "0.1.7", "0.2")])
def test_perf_refuses_a_release_older_than_plan_models(capsys, engine, old, first):
    """Before: `tpkit perf … --engine-version 0.1` ran as 'sglang 0.1.0' while `tpkit plan` refused it."""
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--engine", engine, "--engine-version", old,
            says=(f"releases before {first} are not modelled",))
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", engine, "--engine-version", old,
            says=(f"releases before {first} are not modelled",))


@pytest.mark.parametrize("engine, first", [("sglang", "0.2.15"), ("vllm", "0.2")])
def test_perf_takes_the_oldest_release_plan_models(capsys, engine, first):
    code, _, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--engine", engine, "--engine-version", first)
    assert code == 0, err
    code, _, err = cli(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", engine, "--engine-version", first)
    assert code == 0, err


# --- explain: a flag of the engine the log is not ----------------------------------------------------------------------

SGLANG_LOG = Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang" / "sg_010.log"


@pytest.mark.parametrize("flag, says", [
    (("--compile-cache", "warm"), "--compile-cache is a tpkit option for vLLM plans only"),
    (("--max-model-len", "4096"), "use --context-length"),
])
def test_explain_refuses_a_flag_of_the_other_engine_than_the_logs(capsys, flag, says):
    """Before: `tpkit explain SGLANG_LOG --compile-cache warm` printed 'compile_cache=warm' in the run of an SGLang
    log and used it nowhere; now refused as `tpkit plan --from-log` refuses it."""
    refused(capsys, "explain", str(SGLANG_LOG), *flag, says=(says, "the engine is sglang (read from the log)"))


def test_explain_takes_a_flag_of_the_logs_engine(capsys):
    code, out, err = cli(capsys, "explain", str(SGLANG_LOG), "--context-length", "4096")
    assert code == 0, err


def test_perf_mtp_on_a_model_without_mtp_layers_names_the_vllm_spelling_too(capsys):
    """Before: an `--engine vllm --speculative-config '{"method": "mtp"}'` user was told only SGLang's flag."""
    refused(capsys, "perf", "moonshotai/Kimi-K2.5", "--gpu", "H200", "--tp", "8", "--engine", "vllm",
            "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}',
            says=("no MTP/nextn layers", "--speculative-algorithm EAGLE3", '{"method": "eagle3"'))


# --- a damaged machine profile says how to get a good one ------------------------------------------------------------------

@pytest.mark.parametrize("content, says", [("[1, 2]", "expected a JSON object, got an array"),
                                           ('{"profile_version": 1}', "missing required key")])
def test_a_damaged_machine_profile_names_the_way_out(capsys, tmp_path, content, says):
    """Before: '--machine FILE: expected a JSON object, got list' and nothing about how to get a valid profile."""
    bad = tmp_path / "machine.json"
    bad.write_text(content)
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--machine", str(bad),
            says=(f"--machine {bad}", says, "tpkit probe --out"))


# --- --compile-cache warm where nothing compiles ------------------------------------------------------------------------

QWEN = "Qwen/Qwen3-32B"


def _vllm_warnings(capsys, *argv):
    code, out, err = cli(capsys, "plan", QWEN, "--engine", "vllm", "--gpu", "H100", "--tp", "2", "--json", *argv)
    assert code in (0, 3), err
    return json.loads(out)


@pytest.mark.parametrize("extra, why", [(("--enforce-eager",), "--enforce-eager turns torch.compile off"),
                                        (("--engine-version", "0.11.0"), "the V1 runner of 0.11.1–0.32 only")])
def test_compile_cache_warm_that_changes_nothing_says_so(capsys, extra, why):
    """Before: `--compile-cache warm --enforce-eager` was taken without a word, though the plan is the same warm or
    cold (nothing compiles in the profile window)."""
    warm = _vllm_warnings(capsys, "--compile-cache", "warm", *extra)
    cold = _vllm_warnings(capsys, *extra)
    notes = [w for w in warm["warnings"] if w.startswith("--compile-cache warm changes nothing here")]
    assert len(notes) == 1 and why in notes[0], warm["warnings"]
    assert warm["kv_tokens"] == cold["kv_tokens"]
    assert not [w for w in cold["warnings"] if "--compile-cache" in w and "changes nothing" in w]


def test_compile_cache_warm_where_it_matters_keeps_its_assumption_note(capsys):
    warm = _vllm_warnings(capsys, "--compile-cache", "warm", "--engine-version", "0.30")
    assert any("torch.compile cache assumed warm" in w for w in warm["warnings"])
    assert not any("changes nothing" in w for w in warm["warnings"])


def test_a_user_error_of_a_nested_command_names_the_command_as_argparse_does(capsys):
    """Before: 'tpkit bench: error: --min-size …' for a value error, 'tpkit bench allreduce: error: …' for a flag error
    of the same command."""
    line = refused(capsys, "bench", "allreduce", "--min-size", "80")
    assert line.startswith("tpkit bench allreduce: error: --min-size"), line
    line = refused(capsys, "plan", LLAMA, "--gpu", "H1000")
    assert line.startswith("tpkit plan: error: unknown GPU"), line


# --- --link nvlink with a TP group across nodes ---------------------------------------------------------------------------

def test_link_nvlink_across_nodes_says_it_assumes_one_nvlink_domain(capsys):
    """`--link nvlink --nnodes 2` with the TP group over both nodes is planned with NVLink between the hosts (a
    multi-node NVLink domain); before, nothing said so to a user of two ordinary HGX nodes."""
    code, out, err = cli(capsys, "plan", LLAMA, "--engine", "vllm", "--gpu", "H100", "--tp", "2", "--nnodes", "2",
                         "--link", "nvlink", "--json")
    assert code == 0, err
    notes = [w for w in json.loads(out)["warnings"] if w.startswith("--link nvlink --nnodes 2")]
    assert len(notes) == 1 and "multi-node NVLink" in notes[0] and "--link pcie --nnodes 2" in notes[0]


@pytest.mark.parametrize("argv", [("--tp", "4", "--num-gpus", "8", "--nnodes", "2", "--link", "nvlink"),
                                  ("--tp", "2", "--nnodes", "2", "--link", "pcie")])
def test_no_mnnvl_warning_when_tp_stays_in_a_node_or_the_link_is_pcie(capsys, argv):
    code, out, err = cli(capsys, "plan", LLAMA, "--engine", "vllm", "--gpu", "H100", *argv, "--json")
    assert code == 0, err
    assert not [w for w in json.loads(out)["warnings"] if "multi-node NVLink" in w]


@pytest.mark.parametrize("command", ["plan", "explain"])
def test_a_layout_size_below_one_says_what_it_counts(capsys, command):
    """Before: '--tp must be a whole number ≥ 1, got 0' and no way forward."""
    first = (LLAMA, "--gpu", "H100") if command == "plan" else (str(SGLANG_LOG),)
    refused(capsys, command, *first, "--tp", "0",
            says=("--tp must be a whole number ≥ 1, got 0", "tensor parallel", "e.g. --tp 1"))
