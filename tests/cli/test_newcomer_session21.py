"""What the session-21 newcomer sweep met (helper nc21, 2026-12-06): a fresh clone, the README's commands, then 126
mistakes session 20 had not tried (docs/accuracy.md §8, helper nc21's subsection lists each with its outcome).

Failed or read badly before their fix (each test says "Before:"):

- ``tpkit explain`` on a log with two engine starts (``docker logs`` of a container that restarted, ``>> server.log``,
  two runs pasted together): the starts were read as one.  A crash followed by a healthy restart gave the crash's
  version and fraction beside the restart's KV cache and "failed" although the server runs; a vLLM start followed by
  an SGLang one gave an SGLang run with vLLM settings (sampler, compile cache, entrypoint).  Now the last start is
  read, and a note names the starts.
- ``tpkit explain`` on a vLLM log with progress bars (tqdm's bare CR redraws): every redraw counted as a line, so
  "line 86" pointed at line 68 of the file, against the README ("line numbers stay the file's").
- ``tpkit plan org/model`` for a model outside the catalog: "not found" with no word on how to get a config without
  network.  A GGUF file or a folder of GGUF files: pointed at safetensors headers or "no config.json"; a diffusers
  pipeline folder: "no config.json".  ``torch_dtype: "auto"``: "fix the config.json" without saying to what.
- ``--machine`` with ``"profile_version": "1"``: "'1' is not supported (this tpkit reads 1)".
- ``plan_sglang(model, "H200", …)``, ``plan_vllm(…, 2, …)``, a model id for the ModelSpec, ``None`` options:
  ``AttributeError: 'str' object has no attribute 'vendor'`` from deep in the planner.
- ``tpkit perf … --tp 2 --dp 2`` (SGLang, no ``--enable-dp-attention``): DP attention modelled without a word,
  where SGLang starts two replicas of the tp 2 server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import SYNTHETIC_KIMI, cli, refused

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
LOGS = Path(__file__).resolve().parents[1] / "logs" / "data"
VLLM_OK = LOGS / "vllm" / "vl_128.log"
"""vLLM 0.22.1, Qwen3-30B-A3B on one H100: starts, 'GPU KV cache size: 464,656 tokens'; tqdm bars redraw with CR"""
VLLM_CRASH = LOGS / "vllm" / "vl_332.log"
"""vLLM 0.24.0+rhaiv.9: refused at the KV check (max_model_len 262,144 at utilisation 0.35)"""


def _explain(capsys, path) -> dict:
    code, out, err = cli(capsys, "explain", str(path), "--json")
    assert code == 0 and "Traceback" not in err, err
    return json.loads(out)


def _starts_note(doc) -> list[str]:
    return [n for n in doc["notes"] if "engine starts" in n]


# --- explain: several starts in one file -----------------------------------------------------------------------------

def test_a_crash_then_a_healthy_restart_reads_the_restart(capsys, tmp_path):
    """Before: version 0.24.0+rhaiv.9 (the crash's), status failed / kv_pool, though the last start runs."""
    log = tmp_path / "restarts.log"
    log.write_bytes(VLLM_CRASH.read_bytes() + VLLM_OK.read_bytes())
    doc = _explain(capsys, log)
    alone = _explain(capsys, VLLM_OK)
    assert doc["engine_version"] == "0.22.1" and doc["diagnosis"]["status"] == "ok"
    assert doc["kv_tokens"] == alone["kv_tokens"]
    [note] = _starts_note(doc)
    assert note.startswith("the log holds 2 engine starts") and "only the last one" in note


def test_a_healthy_start_then_a_crash_reads_the_crash(capsys, tmp_path):
    """Before: the first start's 'GPU KV cache size' printed beside the second start's crash."""
    log = tmp_path / "restarts.log"
    log.write_bytes(VLLM_OK.read_bytes() + VLLM_CRASH.read_bytes())
    doc, crash = _explain(capsys, log), _explain(capsys, VLLM_CRASH)
    assert doc["diagnosis"]["status"] == crash["diagnosis"]["status"] == "failed"
    assert doc["kv_tokens"]["printed"] is None and doc["engine_version"] == crash["engine_version"]
    assert _starts_note(doc)


def test_a_vllm_start_then_an_sglang_start_keeps_no_vllm_setting(capsys, tmp_path):
    """Before: an SGLang run with vllm_entrypoint, topk_topp_sampler and compile_cache of the vLLM start."""
    log = tmp_path / "two_engines.log"
    log.write_bytes(VLLM_OK.read_bytes() + SYNTHETIC_KIMI.read_bytes())
    code, out, err = cli(capsys, "explain", str(log))
    run = next(line for line in out.splitlines() if line.startswith("run "))
    assert code == 0 and "engine      sglang" in out and "note: the log holds 2 engine starts" in out
    assert "vllm_entrypoint" not in run and "topk_topp_sampler" not in run and "compile_cache" not in run


def test_one_start_gives_no_note_and_data_parallel_cores_are_one_start(capsys, tmp_path):
    """The rule does not split a single start: vLLM's data-parallel engine cores each print 'Initializing a V1 LLM
    engine' (EngineCore_DP0, EngineCore_DP1) under one API server."""
    assert not _starts_note(_explain(capsys, VLLM_OK)) and not _starts_note(_explain(capsys, SYNTHETIC_KIMI))
    from tpkit.logs.text import last_start

    dp = ("(APIServer pid=1) INFO 06-18 09:16:00 [api_server.py:1] vLLM API server version 0.22.1\n"
          "(EngineCore_DP0 pid=7) INFO 06-18 09:16:27 [core.py:112] Initializing a V1 LLM engine (v0.22.1) with config\n"
          "(EngineCore_DP1 pid=8) INFO 06-18 09:16:27 [core.py:112] Initializing a V1 LLM engine (v0.22.1) with config\n")
    assert last_start(dp) == (dp, ())
    text, notes = last_start(dp + dp)
    assert text.count("\n") == 6 and text.startswith("\n\n\n(APIServer") and len(notes) == 1


# --- explain: progress bars and line numbers -------------------------------------------------------------------------

def test_line_numbers_are_the_files_with_progress_bar_redraws(capsys):
    """Before: 'line 86' for the KV line that `grep -n` finds on line 68 (each CR redraw counted as a line)."""
    raw = VLLM_OK.read_bytes()
    assert b"\r" in raw.replace(b"\r\n", b"")
    line = next(i for i, text in enumerate(raw.split(b"\n"), 1) if b"GPU KV cache size" in text)
    code, out, _ = cli(capsys, "explain", str(VLLM_OK))
    assert code == 0 and f'"464,656" line {line}' in out


@pytest.mark.parametrize("sep", [b"\r\n", b"\r"])
def test_windows_and_old_mac_line_ends_still_read(capsys, tmp_path, sep):
    """CRLF is a line end; a text with CRs and no LF at all (old Mac) reads every CR as one."""
    log = tmp_path / "ends.log"
    log.write_bytes(SYNTHETIC_KIMI.read_bytes().replace(b"\n", sep))
    assert _explain(capsys, log)["kv_tokens"] == _explain(capsys, SYNTHETIC_KIMI)["kv_tokens"]


# --- plan: models tpkit cannot read ----------------------------------------------------------------------------------

def test_an_hf_id_outside_the_catalog_says_how_to_fetch_its_config(capsys):
    """Before: 'not found … Pass a config.json path …', with no way to get one offline."""
    code, out, err = cli(capsys, "plan", "someorg/MyFinetune-7B", "--gpu", "H100")
    assert code == 2 and not out and "Traceback" not in err
    assert "hf download someorg/MyFinetune-7B config.json --local-dir MyFinetune-7B" in err
    assert "tpkit plan MyFinetune-7B" in err
    code, _, err = cli(capsys, "plan", "./no/such/dir", "--gpu", "H100")
    assert code == 2 and "hf download" not in err  # a path is no HF id


def test_a_gguf_file_or_folder_is_named_as_gguf(capsys, tmp_path):
    """Before: 'is a weights file … tpkit reads the weight sizes from the safetensors headers there' / 'directory
    … has no config.json'."""
    gguf = tmp_path / "llama-Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF\x03\x00\x00\x00" + bytes(64))
    for target in (gguf, tmp_path):
        refused(capsys, "plan", str(target), "--gpu", "H100",
                says=("GGUF file, which tpkit does not read", "the model it was quantised from", "--hf-config-path"))


def test_a_diffusers_pipeline_is_named_as_such(capsys, tmp_path):
    """Before: 'directory … has no config.json'."""
    (tmp_path / "model_index.json").write_text('{"_class_name": "StableDiffusionPipeline"}')
    refused(capsys, "plan", str(tmp_path), "--gpu", "H100", says=("a diffusers pipeline", "not a text model"))


def test_torch_dtype_auto_says_what_to_write(capsys, tmp_path):
    """Before: "torch_dtype 'auto' is not one of [...]; fix the config.json"."""
    from tpkit.models.catalog import find_entry

    config = dict(find_entry(LLAMA_8B).config, torch_dtype="auto")
    (tmp_path / "config.json").write_text(json.dumps(config))
    refused(capsys, "plan", str(tmp_path), "--gpu", "H100",
            says=("torch_dtype 'auto'", "the dtype the checkpoint's weights are stored in", "delete the key"))


def test_a_profile_version_written_as_text_is_named(capsys, tmp_path):
    """Before: "profile_version '1' is not supported (this tpkit reads 1)"."""
    gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "total_bytes": 85028765696, "free_bytes": 84500000000}
    path = tmp_path / "machine.json"
    path.write_text(json.dumps({"profile_version": "1", "gpus": [gpu]}))
    refused(capsys, "plan", LLAMA_8B, "--machine", str(path),
            says=("profile_version must be the integer 1, got str '1'", '"profile_version": 1'))


# --- the Python API --------------------------------------------------------------------------------------------------

def _api_inputs():
    from tpkit import ParallelSpec, SglangOptions, VllmOptions, load_model, lookup_gpu

    return load_model("Qwen/Qwen3-32B"), lookup_gpu("H200"), ParallelSpec(tp=2), SglangOptions, VllmOptions


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
@pytest.mark.parametrize("slot, bad, says", [
    (0, "Qwen/Qwen3-32B", "model must be a ModelSpec, got str 'Qwen/Qwen3-32B'; make one with tpkit.load_model("),
    (1, "H200", "gpu must be a GpuSpec, got str 'H200'; make one with tpkit.lookup_gpu('H200')"),
    (2, 2, "parallel must be a ParallelSpec, got int 2; make one with tpkit.ParallelSpec(tp=2)"),
    (3, None, "options must be a "),
])
def test_the_planners_name_a_wrong_argument(engine, slot, bad, says):
    """Before: AttributeError ('str' object has no attribute 'vendor' / 'tie_word_embeddings', 'int' … 'tp')."""
    import tpkit

    model, gpu, parallel, sglang_options, vllm_options = _api_inputs()
    args = [model, gpu, parallel, sglang_options() if engine == "sglang" else vllm_options()]
    args[slot] = bad
    plan = tpkit.plan_sglang if engine == "sglang" else tpkit.plan_vllm
    with pytest.raises(TypeError) as info:
        plan(*args)
    assert str(info.value).startswith(f"plan_{engine}: ") and says in str(info.value)
    args[slot] = [model, gpu, parallel, sglang_options() if engine == "sglang" else vllm_options()][slot]
    assert plan(*args).kv_tokens > 0  # the right types still plan


def test_the_other_engines_options_are_refused():
    import tpkit

    model, gpu, parallel, sglang_options, _ = _api_inputs()
    with pytest.raises(TypeError, match="options must be a VllmOptions, got SglangOptions"):
        tpkit.plan_vllm(model, gpu, parallel, sglang_options())


# --- perf: --dp without --enable-dp-attention ------------------------------------------------------------------------

def test_perf_dp_without_the_flag_says_what_sglang_would_start(capsys):
    """Before: DP attention modelled and printed nowhere (the header said only '2× H100')."""
    base = ["perf", LLAMA_8B, "--gpu", "H100", "--tp", "2", "--dp", "2"]
    code, out, _ = cli(capsys, *base)
    assert code == 0 and "DP attention 2" in out.splitlines()[0]
    assert "note: --dp 2 without --enable-dp-attention: SGLang would start 2 replicas of the tp 2 server (4 GPUs)" in out
    code, out, _ = cli(capsys, *base, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["assumptions"][0].startswith("--dp 2 without --enable-dp-attention")
    code, out, _ = cli(capsys, *base, "--enable-dp-attention")
    assert code == 0 and "without --enable-dp-attention" not in out and "DP attention 2" in out
