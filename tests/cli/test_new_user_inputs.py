"""More of what a new user who knows SGLang/vLLM types (helper newb, 2026-12-04): each test names the behaviour
before the fix it pins.  Exit 2 with a message that says what was wrong, what was received and how to fix it; no
traceback; or the answer the engine's own spelling of the same flags gives."""

import json
import lzma
import os

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused
from tpkit.runtime.machine_probe import no_gpu_reason

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


# --- explain: a file that is not a log ----------------------------------------------------------------------------

@pytest.mark.parametrize("content, says", [
    (b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 8, ("not a text log", "ELF executable")),
    (lzma.compress(b"Load weight end. avail mem=21.65 GB\n"), ("xz-compressed", "xz -dc")),
    (b"PK\x03\x04" + bytes(200), ("zip archive", "unzip")),
    (bytes(4096), ("its 4,096 bytes are all NUL",)),
    (bytes((i * 37 + 11) % 256 for i in range(8192)), ("control bytes or not UTF-8",)),
])
def test_a_binary_file_is_not_explained_as_a_log(capsys, tmp_path, content, says):
    """Before: exit 0 with 'engine unknown … Diagnosis ok' for an executable, an archive or random bytes."""
    path = tmp_path / "server.log"
    path.write_bytes(content)
    refused(capsys, "explain", str(path), says=says)
    refused(capsys, "plan", "--from-log", str(path), says=says)


@pytest.mark.parametrize("where", ["end", "start"])
def test_a_log_with_a_run_of_nul_bytes_is_still_read(capsys, tmp_path, where):
    """A log cut by a crash may hold a run of NUL bytes (a file-system hole): still a log, still explained."""
    path = tmp_path / "server.log"
    with open(SYNTHETIC_KIMI, "rb") as fh:
        text = fh.read()
    path.write_bytes(text + bytes(1 << 20) if where == "end" else bytes(1 << 17) + text)
    code, out, err = cli(capsys, "explain", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["kv_tokens"]["printed"] == 117631


def test_every_corpus_log_is_text():
    from pathlib import Path

    from tpkit.cli.explain import _not_text

    logs = sorted((Path(__file__).resolve().parents[1] / "logs" / "data").rglob("*.log"))
    assert len(logs) > 150
    assert [p.name for p in logs if p.stat().st_size and _not_text(p.read_bytes())[0]] == []


# --- engine flags of the other engine ----------------------------------------------------------------------------

@pytest.mark.parametrize("engine, flag, other", [("sglang", "--max-num-seqs", "--max-running-requests"),
                                                 ("vllm", "--max-running-requests", "--max-num-seqs")])
def test_the_request_cap_of_the_other_engine_names_this_engines_flag(capsys, engine, flag, other):
    """Before: '--max-num-seqs is a vLLM flag, but --engine is sglang' with no flag to use instead."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", engine, flag, "16", says=(f"use {other}",))


# --- perf takes vLLM's --speculative-config -----------------------------------------------------------------------

def _perf(capsys, *argv):
    code, out, err = cli(capsys, "perf", LLAMA, "--gpu", "H100", "--engine", "vllm", "--json", *argv)
    assert code == 0, err
    return json.loads(out)


def test_perf_reads_vllms_speculative_config_as_its_own_flags(capsys):
    """Before: 'tpkit perf has no flag --speculative-config', though perf's own vLLM verdict prints that flag."""
    via_config = _perf(capsys, "--speculative-config", '{"method": "eagle3", "num_speculative_tokens": 2}')
    via_flags = _perf(capsys, "--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "2")
    assert via_config["speculative_settings"] == via_flags["speculative_settings"]
    assert via_config["speculative"] == via_flags["speculative"]
    assert via_config["speculative_settings"]["num_steps"] == 2


@pytest.mark.parametrize("extra, says", [
    (("--speculative-config", '{"method": "ngram"}'), ("method 'ngram' is not one tpkit perf models", "eagle3")),
    (("--speculative-config", '{"method": "eagle3"'), ("not valid JSON", "num_speculative_tokens")),
    (("--speculative-config", "[3]"), ("must be a JSON object",)),
    (("--speculative-config", '{"method": "eagle", "num_speculative_tokens": 0}'), ("whole number ≥ 1, got 0",)),
    (("--speculative-config", '{"method": "eagle3"}', "--speculative-algorithm", "EAGLE"), ("give one of them",)),
])
def test_a_bad_speculative_config_is_refused(capsys, extra, says):
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--engine", "vllm", *extra, says=says)


def test_speculative_config_with_sglang_names_the_sglang_flags(capsys):
    refused(capsys, "perf", LLAMA, "--gpu", "H100", "--speculative-config", '{"method": "eagle3"}',
            says=("vLLM's flag", "--engine vllm", "--speculative-algorithm"))


def test_perf_tp_that_does_not_divide_the_heads_lists_the_sizes(capsys):
    """Before: 'use a TP size that divides them' with no size (plan listed them)."""
    refused(capsys, "perf", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H100", "--tp", "8",
            says=("28 attention heads", "--tp 1, 2, 4"))


# --- a damaged checkpoint ----------------------------------------------------------------------------------------

def _checkpoint(tmp_path, weights: bytes):
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
              "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192,
              "torch_dtype": "bfloat16"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "model-00001-of-00004.safetensors").write_bytes(weights)
    return tmp_path


def test_a_git_lfs_pointer_is_named_with_the_fix(capsys, tmp_path):
    """Before: 'header length 2334956330867777142 bytes is implausible; is this a safetensors file?' for the pointer
    files a clone without git-lfs leaves."""
    pointer = (b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"4d" * 32 + b"\nsize 4976698672\n")
    ckpt = _checkpoint(tmp_path, pointer)
    refused(capsys, "plan", str(ckpt), "--gpu", "H100", says=("Git LFS pointer", "git lfs pull", "config.json"))
    code, _, err = cli(capsys, "plan", str(ckpt / "config.json"), "--gpu", "H100")
    assert code == 0, err  # the way out the message names works


def test_a_damaged_weights_file_says_how_to_go_on(capsys, tmp_path):
    """Before: 'too short for a safetensors file (no 8-byte header length)' and nothing on what to do."""
    refused(capsys, "plan", str(_checkpoint(tmp_path, b"junk")), "--gpu", "H100",
            says=("too short for a safetensors file", "re-download it", "config.json alone"))


# --- a GPU name that does not say the board ------------------------------------------------------------------------

def _warnings(capsys, *argv):
    code, out, err = cli(capsys, "plan", LLAMA, *argv, "--json")
    assert code == 0, err
    return [w for w in json.loads(out)["warnings"] if "is read as" in w]


@pytest.mark.parametrize("gpu, board, other", [("A100 80GB", "A100-SXM-80GB", "A100-PCIe-80GB"),
                                               ("h100", "H100-SXM-80GB", "H100-PCIe-80GB")])
def test_a_gpu_name_without_the_board_says_which_board_was_planned(capsys, gpu, board, other):
    """Before: 'A100 80GB' and 'h100' were planned as the SXM (NVLink) boards at tp > 1 without a word."""
    (note,) = _warnings(capsys, "--gpu", gpu, "--tp", "2")
    assert f"is read as {board} (NVLink)" in note and f"--gpu {other}" in note and "--link pcie" in note


@pytest.mark.parametrize("argv", [("--gpu", "A100", "--tp", "1"), ("--gpu", "A100-PCIe-80GB", "--tp", "2"),
                                  ("--gpu", "A100-SXM4-80GB", "--tp", "2"), ("--gpu", "A100", "--tp", "2",
                                                                           "--link", "nvlink"),
                                  ("--gpu", "NVIDIA H100 80GB HBM3", "--tp", "2"), ("--gpu", "L40S", "--tp", "2")])
def test_no_board_note_where_the_board_or_links_are_known_or_do_not_matter(capsys, argv):
    assert _warnings(capsys, *argv) == []


# --- bench -------------------------------------------------------------------------------------------------------

@pytest.mark.skipif(no_gpu_reason() is None, reason="a GPU is visible here")
def test_bench_graph_mode_on_the_cpu_is_refused(capsys):
    """Before: an empty table (every CPU row is eager) and exit 0."""
    pytest.importorskip("torch")
    refused(capsys, "bench", "allreduce", "--mode", "graph", "--nproc", "2", "--max-size", "4KiB",
            says=("--mode graph needs CUDA graphs", "eager only", "drop --mode graph"))


# --- sizes and fractions in the spellings other tools use ---------------------------------------------------------

@pytest.mark.parametrize("size, says", [
    ("80G", ("'80G' does not say which G", "'80GiB' (= 80 × 2^30 bytes)", "'80GB' (= 80 × 10^9 bytes)")),
    ("512m", ("'512m' does not say which M", "'512MiB'", "'512MB'")),
    ("80Gi", ("unknown unit 'Gi'", "write '80GiB'")),
])
def test_a_one_letter_unit_is_refused_with_both_readings(capsys, size, says):
    """Before: "unknown unit 'G' in '80G'; use one of B, KiB, …" (docker's and Kubernetes' spellings)."""
    refused(capsys, "plan", LLAMA, "--gpu-memory", size, says=says)


@pytest.mark.parametrize("argv, fraction", [(("--mem-fraction-static", "85"), "0.85"),
                                            (("--engine", "vllm", "--gpu-memory-utilization", "90"), "0.9")])
def test_a_fraction_given_as_a_percentage_says_so(capsys, argv, fraction):
    """Before: 'must be in the range (0, 1], got 85.0' and no word on what was meant."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", *argv, says=(f"looks like a percentage: write {fraction}",))


def test_a_fraction_just_above_one_is_not_called_a_percentage(capsys):
    err = refused(capsys, "plan", LLAMA, "--gpu", "H100", "--mem-fraction-static", "1.2", says=("got 1.2",))
    assert "percentage" not in err


# --- explain: a GPU flag the log's memory arithmetic rules out ----------------------------------------------------

@pytest.mark.parametrize("argv, flag", [(("--gpu", "h100"), "gpu"), (("--gpu-memory", "80GiB"), "gpu_memory")])
def test_a_gpu_smaller_than_the_memory_the_log_shows_free_is_a_contradiction(capsys, argv, flag):
    """Before: '--gpu h100' on a log with 93.01 GiB free before the weights was taken as the device, and the
    ledger showed a CUDA context of −14.70 GiB."""
    code, out, err = cli(capsys, "explain", str(SYNTHETIC_KIMI), *argv, "--json")
    assert code == 0, err
    d = json.loads(out)
    (c,) = d["contradictions"]
    assert c["flag"] == flag and "device total ≥ 93.93 GiB" in c["logged"]
    assert d["gpu"]["name"] == "RTX-PRO-6000"  # the log's value is used, as for every contradiction
    assert all(row.get("bytes", 0) >= 0 for row in d["ledger"] if "CUDA context" in row.get("item", ""))


def test_a_larger_gpu_flag_is_not_a_contradiction(capsys):
    """Another process may have held memory: only the lower bound is firm."""
    code, out, err = cli(capsys, "explain", str(SYNTHETIC_KIMI), "--gpu", "B200", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["contradictions"] == [] and d["gpu"]["name"] == "B200"


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_a_quantised_type_as_dtype_points_at_quantization(capsys, engine):
    """Before: "--dtype 'fp8' is not one of auto, bfloat16, …" and nothing on where FP8 weights are set."""
    refused(capsys, "plan", LLAMA, "--gpu", "H100", "--engine", engine, "--dtype", "fp8",
            says=("--dtype 'fp8' is not one of", "--quantization fp8"))


# --- the GPU scripts the README names, on a machine without a GPU ---------------------------------------------------

@pytest.mark.skipif(no_gpu_reason() is None, reason="a GPU is visible here")
@pytest.mark.parametrize("script", ["bench/allreduce_correctness.py", "bench/dispatch_overhead.py",
                                    "bench/p2p_bandwidth.py", "scripts/gpu_memory_check.py"])
def test_a_gpu_script_without_a_gpu_exits_2_with_the_reason(script):
    """Before: a torch traceback ('Torch not compiled with CUDA enabled', 'no attribute _cuda_setDevice') and exit 1,
    or (gpu_memory_check) exit 0; scripts/device_final_check.sh and bench/run_allreduce_h200x2.sh run these."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / script)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(root / "src")}, cwd=root)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "no CUDA GPU is visible" in r.stderr, r.stderr


# --- the local HF cache ------------------------------------------------------------------------------------------

def _hf_cache(root, repo="acme/Tiny-Llama", ref=True):
    folder = root / ("models--" + repo.replace("/", "--"))
    snap = folder / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
              "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 16,
              "intermediate_size": 8192, "vocab_size": 128256, "max_position_embeddings": 8192,
              "torch_dtype": "bfloat16"}
    (snap / "config.json").write_text(json.dumps(config))
    if ref:
        (folder / "refs").mkdir()
        (folder / "refs" / "main").write_text("abc123")
    return snap / "config.json"


def _model_source(capsys, monkeypatch, root, model):
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    code, out, err = cli(capsys, "plan", model, "--gpu", "H100", "--json")
    assert code == 0, err
    return json.loads(out)["model"]["source"]


@pytest.mark.parametrize("ref", [True, False])
def test_the_hf_cache_is_read_without_huggingface_hub(capsys, monkeypatch, tmp_path, ref):
    """Before: a plain `pip install -e .` (no `hf` extra) skipped the HF cache the README lists as a MODEL source."""
    import sys

    config = _hf_cache(tmp_path, ref=ref)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails as on a plain install
    assert str(config) in _model_source(capsys, monkeypatch, tmp_path, "acme/Tiny-Llama")


def test_an_hf_id_in_another_case_finds_the_cached_repo(capsys, monkeypatch, tmp_path):
    """Before: 'acme/tiny-llama' was 'not found' when 'acme/Tiny-Llama' was cached (the Hub's ids ignore case)."""
    config = _hf_cache(tmp_path)
    assert str(config) in _model_source(capsys, monkeypatch, tmp_path, "acme/tiny-llama")


def test_explain_stdin_at_a_terminal_says_what_it_waits_for(capsys, monkeypatch):
    """Before: `tpkit explain -` typed at a terminal waited without a word."""
    import io
    import sys

    class Terminal(io.TextIOWrapper):
        def isatty(self):
            return True

    with open(SYNTHETIC_KIMI, "rb") as fh:
        monkeypatch.setattr(sys, "stdin", Terminal(io.BytesIO(fh.read())))
    code, out, err = cli(capsys, "explain", "-", "--json")
    assert code == 0 and "paste it, then Ctrl-D" in err
    assert json.loads(out)["kv_tokens"]["printed"] == 117631


def test_binary_noise_before_real_log_lines_is_still_a_log(capsys, tmp_path):
    """The binary check refuses only what the log reader finds nothing in (fuzz cases 'garbage' + 'glue')."""
    path = tmp_path / "server.log"
    with open(SYNTHETIC_KIMI, "rb") as fh:
        path.write_bytes(bytes((i * 37 + 11) % 256 for i in range(1 << 17)) + b"\n" + fh.read())
    code, out, err = cli(capsys, "explain", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["kv_tokens"]["printed"] == 117631


def test_a_model_path_under_an_unknown_users_home_is_not_found_without_a_traceback(capsys):
    """Before: `tpkit plan '~nosuchuser/model'` (and a log naming such a model path) raised pathlib's
    'RuntimeError: Could not determine home directory.' (found by scripts/fuzz_explain.py --count 5000 --seed 2)."""
    code, out, err = cli(capsys, "plan", "~nosuchuser-tpkit/model", "--gpu", "H100")
    assert code == 2 and "Traceback" not in err and "not found" in err, err
