"""What a new user types, session 7 (helper newb, 2026-12-04): each test names the behaviour before the fix it
pins.  Exit 2 with one line that says what was wrong, what was received and how to fix it; no traceback."""

import pytest

from clirun import cli, refused

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


# --- argparse's own refusals, in words a user can act on ----------------------------------------------------------

@pytest.mark.parametrize("value, says", [
    ("1.5", ("expected a whole number, got '1.5'", "write e.g. --tp 2")),
    ("two", ("expected a whole number, got 'two'", "in digits")),
])
def test_a_count_that_is_not_a_whole_number_says_so(capsys, value, says):
    """Before: "argument --tp/--tensor-parallel-size/--tp-size: invalid int value: '1.5'"."""
    err = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--tp", value, says=says)
    assert "invalid int value" not in err


@pytest.mark.parametrize("argv, says", [
    (("--kv-cache-dtype", "FP8"), ("did you mean 'fp8'?", "lower case")),
    (("--kv-cache-dtype", "fp8e4m3"), ("did you mean 'fp8_e4m3'",)),
    (("--engine", "slang"), ("did you mean 'sglang'?",)),
])
def test_a_refused_choice_names_the_closest_accepted_value(capsys, argv, says):
    """Before: the refusal listed the 23 accepted KV dtypes and left the user to spot 'fp8' among them."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", *argv, says=says)


def test_a_choice_with_no_close_value_suggests_nothing(capsys):
    err = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", "trtllm", says=("invalid choice: 'trtllm'",))
    assert "did you mean" not in err


@pytest.mark.parametrize("argv, says", [
    (("--mem-fraction-static", "90%"), ("got '90%'", "write 0.9")),
    (("--engine", "vllm", "--gpu-memory-utilization", "85 %"), ("got '85 %'", "write 0.85")),
])
def test_a_fraction_written_with_a_percent_sign_gives_the_fraction(capsys, argv, says):
    """Before: "expected a number in (0, 1], got '90%'" with no word on what to write."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", *argv, says=says)


@pytest.mark.parametrize("argv, says", [
    (("--gpu-memory", "-80GiB"), ("'-80GiB' is negative",)),
    (("--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes", "-4GiB"), ("'-4GiB' is negative",)),
])
def test_a_negative_size_after_a_space_is_checked_as_the_flags_value(capsys, argv, says):
    """Before: "argument --gpu-memory: expected one argument" (argparse took '-80GiB' for a flag)."""
    err = refused(capsys, "plan", LLAMA, *argv, says=says)
    assert "expected one argument" not in err


def test_a_flag_with_no_value_at_the_end_still_says_so(capsys):
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--tp", says=("expected one argument",))


# --- GPU names as people write them ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, board", [("A100-40G", "A100-SXM-40GB"), ("A100 80G", "A100-SXM-80GB"),
                                         ("A10G", "A10G")])
def test_a_size_class_written_without_its_b_is_the_catalog_board(name, board):
    """Before: "unknown GPU 'A100-40G'" although 'A100-40GB' is an alias ('40G' is how boards are often named);
    A10G, whose G is part of its name, stays the A10G."""
    from tpkit.hardware.catalog import lookup_gpu

    assert lookup_gpu(name).name == board


@pytest.mark.parametrize("command, gpu, says", [
    ("plan", "8xH100", ("names 8 GPUs", "--gpu H100 --tp 8")),
    ("plan", "H100 x8", ("names 8 GPUs", "--gpu H100 --tp 8")),
    ("perf", "2 × NVIDIA H100 80GB HBM3", ("names 2 GPUs", "--gpu 'NVIDIA H100 80GB HBM3' --tp 2")),
])
def test_a_gpu_count_in_the_gpu_name_says_where_the_count_goes(capsys, command, gpu, says):
    """Before: "unknown GPU '8xH100'; did you mean H100-SXM-80GB, H100-NVL-94GB, V100-16GB …"."""
    refused(capsys, command, LLAMA, "--gpu", gpu, says=says)


def test_an_unknown_gpu_with_a_count_is_still_unknown(capsys):
    refused(capsys, "plan", LLAMA, "--gpu", "8xfoo", says=("unknown GPU '8xfoo'",))


# --- --json and a user error ------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, kind, says", [
    (("plan", "no-such-model", "--gpu", "H100"), "UnknownModelError", "model 'no-such-model' not found"),
    (("plan", LLAMA, "--gpu", "H100", "--tp", "1.5"), "usage", "expected a whole number, got '1.5'"),
    (("plan", LLAMA, "--gpu", "H100", "--bogus"), "usage", "tpkit plan has no flag --bogus"),
    (("perf", LLAMA), "usage", "required: --gpu"),
    (("explain", "/no/such/server.log"), "PlanInputError", "does not exist"),
])
def test_json_with_a_user_error_prints_an_error_object(capsys, argv, kind, says):
    """Before: exit 2 and nothing on stdout, so `tpkit plan … --json | jq .verdict` printed nothing at all."""
    import json

    code, out, err = cli(capsys, *argv, "--json")
    assert code == 2 and "Traceback" not in err
    body = json.loads(out)
    assert body["schema"] == "tpkit.error/1" and body["exit_code"] == 2
    assert body["command"] == f"tpkit {argv[0]}" and body["error"]["type"] == kind
    assert says in body["error"]["message"] and body["error"]["message"] in err  # the same line as on stderr


def test_without_json_a_user_error_prints_nothing_on_stdout(capsys):
    refused(capsys, "plan", "no-such-model", "--gpu", "H100", says=("not found",))


def test_bench_json_names_a_file_and_gets_no_error_object(capsys, tmp_path):
    code, out, err = cli(capsys, "bench", "allreduce", "--json", str(tmp_path / "no" / "p.json"))
    assert code == 2 and not out and "does not exist or is not writable" in err


# --- models: a revision, a BOM, a config.json that is a folder -----------------------------------------------------

@pytest.mark.parametrize("model", ["Qwen/Qwen3-32B@main", "Qwen/Qwen3-32B:v1.0"])
def test_a_model_with_a_revision_says_revisions_are_not_selected(capsys, model):
    """Before: "model 'Qwen/Qwen3-32B@main' not found … close matches: Qwen/Qwen3-32B …" with no word on why."""
    refused(capsys, "plan", model, "--gpu", "H100",
            says=("names a revision", "Pass Qwen/Qwen3-32B", "models--Qwen--Qwen3-32B/snapshots/COMMIT"))


def test_the_revision_flag_says_what_to_pass_instead(capsys):
    """Before: "tpkit plan has no flag --revision (did you mean --json or --engine-version?)"."""
    err = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--revision", "main",
                  says=("has no flag --revision", "snapshot directory"))
    assert "did you mean" not in err


def test_a_config_with_a_byte_order_mark_is_named_as_such(capsys, tmp_path):
    """Before: "is not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at line 1, column 1"."""
    import json

    from tpkit.models.catalog import find_entry

    path = tmp_path / "config.json"
    path.write_text(json.dumps(find_entry(LLAMA).config), encoding="utf-8-sig")
    refused(capsys, "plan", str(path), "--gpu", "H100", says=("byte-order mark", "UTF-8 without BOM"))


def test_a_config_json_that_is_a_folder_is_named_as_such(capsys, tmp_path):
    """Before: "directory … has no config.json" while it had one (a folder of that name)."""
    (tmp_path / "config.json").mkdir()
    refused(capsys, "plan", str(tmp_path), "--gpu", "H100", says=("config.json is a directory, not a file",))


# --- explain: a file that is not the server's log ------------------------------------------------------------------

def test_a_model_config_given_as_the_log_points_at_plan(capsys, tmp_path):
    """Before: exit 0, 'engine unknown … Diagnosis ok' for the model's config.json."""
    import json

    from tpkit.models.catalog import find_entry

    path = tmp_path / "config.json"
    path.write_text(json.dumps(find_entry(LLAMA).config))
    for command in (("explain", str(path)), ("plan", "--from-log", str(path))):
        refused(capsys, *command, says=("is a model config.json", "not a server log", "tpkit plan FILE --gpu NAME"))


def test_a_json_list_given_as_the_log_is_refused(capsys, tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2, 3]")
    refused(capsys, "explain", str(path), says=("is a JSON document (a list)", "not a server log"))


def test_text_with_no_engine_line_says_nothing_was_recognised(capsys, tmp_path):
    """Session 7: 'Diagnosis   ok' (and 'rebuilt from the anchors — ()') with no word on why, which read as a healthy
    start-up; the cause then said nothing was recognised, still with exit 0.  Session 20 (helper nc20): a text with
    no SGLang or vLLM line is refused as not an engine log (exit 2, the tpkit.error/1 object with --json), so a
    script can test it; tpkit.explain/1 keeps its keys and its two status values for real logs."""
    import json

    path = tmp_path / "notes.txt"
    path.write_text("started the server on node 3\nit did not come up\n")
    refused(capsys, "explain", str(path), says=("is not an SGLang or vLLM log", "none of its 2 lines",
                                                "give the server's own log"))
    code, out, err = cli(capsys, "explain", str(path), "--json")
    doc = json.loads(out)
    assert code == 2 and doc["schema"] == "tpkit.error/1" and doc["exit_code"] == 2
    assert "not an SGLang or vLLM log" in doc["error"]["message"]


# --- bench and probe on a machine without a GPU --------------------------------------------------------------------

def test_bench_on_the_cpu_refuses_more_ranks_than_cores(capsys, monkeypatch):
    """Before: `tpkit bench allreduce --nproc 64` on a 2-core machine spawned 64 torch processes (~13 GiB) and ran
    for minutes, timing the scheduler."""
    pytest.importorskip("torch")
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    code, out, err = cli(capsys, "bench", "allreduce", "--nproc", "64")
    assert code == 2 and not out and "Traceback" not in err
    assert "--nproc 64 on the CPU spawns 64 torch processes on the 2 CPU core(s)" in err and "--nproc 2" in err
    assert "no CUDA GPU is visible" not in err  # the refusal comes before the CPU-path note


def test_bench_min_size_above_the_default_max_names_the_default(capsys, monkeypatch):
    """Before: 'need 0 < --min-size ≤ --max-size, got 2.00 MiB and 1.00 MiB' with no --max-size given."""
    pytest.importorskip("torch")
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    refused(capsys, "bench", "allreduce", "--min-size", "2MiB",
            says=("above the default --max-size on the CPU (1.00 MiB)", "--max-size 2MiB"))


def test_bench_a_min_size_of_part_of_an_element_is_refused_before_the_device_note(capsys):
    code, out, err = cli(capsys, "bench", "allreduce", "--min-size", "3B")
    assert code == 2 and "not a whole number of bf16 elements" in err and "no CUDA GPU" not in err


@pytest.mark.parametrize("argv, example", [(("probe", "--out"), "machine.json"),
                                           (("bench", "allreduce", "--plot"), "allreduce.png")])
def test_an_output_path_that_is_a_folder_suggests_a_file_of_its_kind(capsys, tmp_path, argv, example):
    """Before: 'pass a file name inside it, e.g. DIR/allreduce.json' for probe's machine profile and bench's plot."""
    refused(capsys, *argv, str(tmp_path), says=(f"e.g. {tmp_path / example}",))


@pytest.mark.parametrize("argv, gpu", [(("plan", LLAMA, "H100"), "H100"),
                                       (("perf", LLAMA, "--gpu", "H100", "RTX-4090"), "RTX-4090")])
def test_a_gpu_name_without_its_flag_points_at_gpu(capsys, argv, gpu):
    """Before: 'unexpected argument(s) H100; `tpkit plan --help` shows what it takes'."""
    refused(capsys, *argv, says=(f"'{gpu}': it is a GPU name", f"--gpu {gpu}"))


def test_two_gpu_kinds_in_one_name_plan_the_smallest_or_the_machine(capsys):
    """Before: "unknown GPU 'H100,A100-40GB'; did you mean H100-SXM-80GB, A100-SXM-80GB …"."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100,A100-40GB",
            says=("names 2 GPUs", "--gpu A100-SXM-40GB", "--machine machine.json"))
