"""What the session-24 new-user walk-through met (helper ux24, 2026-12-06): a fresh clone, the README top to bottom,
then 88 sessions of a user who serves models (docs/accuracy.md §8, "New-user walk-through (helper ux24 …)").

Read badly before their fix (each test says "Before:"):

- ``tpkit perf`` printed "crossover batch  1 request (the smallest batch at which speculation is slower)" for a
  deployment where speculation pays at batch 16–128: read as "speculation never pays" (ux23's design note).  Now
  the line names the swept batches where it is faster, or says it is slower at every batch swept.
- ``tpkit plan … --engine vllm --enable-expert-parallel`` on a dense model (and SGLang ``--ep N``): the plan came out
  the same as without the flag, with no word why (vLLM applies it only to FusedMoE layers).
- ``tpkit perf … --gpu L20`` (a catalog GPU whose bf16 rate is not recorded): "has no memory bandwidth or bf16
  TFLOP/s" — which of the two was missing was left to a parenthesis in catalog field names, and the fix offered
  was another GPU only; ``--gpu B300`` (no SM count) dropped the one-SM ceiling of the verify attention silently.
- ``tpkit plan … --gpu RTX-4090 --gpu-memory 24GB`` (the card's advertised size restated): planned a 22.35 GiB card
  (DOES NOT FIT) and the warning told a user who had already named the card to "name it with --gpu".
"""

from __future__ import annotations

import json

import pytest

from clirun import cli, refused

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
KIMI = "moonshotai/Kimi-K2.5"


# --- perf: the crossover batch in words that cannot read as "never pays" -----------------------------------------

def _perf(capsys, *argv):
    code, out, err = cli(capsys, "perf", *argv)
    assert code == 0, (code, err)
    return out


def test_crossover_batch_1_names_the_batches_where_speculation_pays(capsys):
    """Before: 'crossover batch  1 request (the smallest batch at which speculation is slower)' alone, while the
    table shows 1.11–1.29× at batch 16–128 (README's 8× RTX PRO 6000 Kimi-K2.5 command)."""
    argv = (KIMI, "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3", "--engine-version",
            "0.5.10", "--context", "16384", "--accept-length", "2.04")
    out = _perf(capsys, *argv)
    line = next(l for l in out.splitlines() if l.startswith("crossover batch"))
    assert "1 request (the smallest batch at which speculation is slower" in line
    assert "faster at 16, 32, 64, 128" in line, line
    code, js, _ = cli(capsys, "perf", *argv, "--json")
    assert code == 0 and json.loads(js)["crossover_batch"] == 1   # the JSON key keeps its number


def test_crossover_batch_says_faster_below_it_when_it_only_loses_above(capsys):
    out = _perf(capsys, KIMI, "--gpu", "H200", "--tp", "8", "--speculative-algorithm", "EAGLE3", "--engine-version",
                "0.5.10", "--context", "16384", "--accept-length", "2.04")
    line = next(l for l in out.splitlines() if l.startswith("crossover batch"))
    assert "requests (the smallest batch at which speculation is slower; faster below it)" in line, line
    ctx = next(l for l in out.splitlines() if l.startswith("crossover context"))
    assert ctx.endswith("(at batch 1): speculation is faster at every context swept"), ctx


def test_crossover_batch_says_slower_at_every_batch_when_it_never_pays(capsys):
    out = _perf(capsys, LLAMA_8B, "--gpu", "H100", "--speculative-algorithm", "EAGLE3", "--accept-length", "1.1")
    line = next(l for l in out.splitlines() if l.startswith("crossover batch"))
    assert line.endswith("; it is slower at every batch swept)"), line


# --- --enable-expert-parallel / --ep on a dense model --------------------------------------------------------------

def _warnings(capsys, *argv):
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3), err
    return json.loads(out)["warnings"]


def test_vllm_enable_expert_parallel_on_a_dense_model_says_it_changes_nothing(capsys):
    """Before: no note; the plan equal to the one without the flag."""
    base = ("meta-llama/Llama-3.1-70B-Instruct", "--engine", "vllm", "--gpu", "H100", "--tp", "4")
    with_flag = _warnings(capsys, *base, "--enable-expert-parallel")
    assert any(w.startswith("--enable-expert-parallel: this model has no MoE") for w in with_flag), with_flag
    assert not any("--enable-expert-parallel" in w for w in _warnings(capsys, *base))


def test_vllm_enable_expert_parallel_on_a_moe_model_gives_no_such_note(capsys):
    ws = _warnings(capsys, "Qwen/Qwen3-30B-A3B", "--engine", "vllm", "--gpu", "H100", "--tp", "2",
                   "--enable-expert-parallel")
    assert not any("has no MoE" in w for w in ws), ws


def test_sglang_ep_on_a_dense_model_says_it_changes_nothing(capsys):
    ws = _warnings(capsys, LLAMA_8B, "--engine", "sglang", "--gpu", "H100", "--tp", "4", "--ep", "4")
    assert any(w.startswith("--ep 4: this model has no MoE") for w in ws), ws
    ws = _warnings(capsys, "Qwen/Qwen3-30B-A3B", "--engine", "sglang", "--gpu", "H100", "--tp", "4", "--ep", "4")
    assert not any("has no MoE" in w for w in ws), ws


# --- perf on a catalog GPU whose rates are not recorded ------------------------------------------------------------

def test_perf_names_the_missing_gpu_fact_and_that_plan_still_works(capsys):
    """Before: 'has no memory bandwidth or bf16 TFLOP/s'; the one missing was not named in words."""
    line = refused(capsys, "perf", LLAMA_8B, "--gpu", "L20",
                   says=("has no dense bf16 tensor rate (TFLOP/s, catalog field bf16_dense_tflops)",
                         "tpkit plan still sizes its memory (tpkit plan MODEL --gpu L20)"))
    assert "memory bandwidth (TB/s" not in line.split("in the catalog")[0]
    code, out, _ = cli(capsys, "plan", LLAMA_8B, "--gpu", "L20")
    assert code == 0 and "FITS" in out


def test_perf_says_when_the_sm_count_is_missing(capsys):
    """Before: the one-SM ceiling of the verify attention silently left out for GPUs without an SM count."""
    from dataclasses import replace

    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.perf.device import device_rates

    # B300 has its SM count since tidy27 (session 27: 148, every catalog GPU has one): a GPU without it still says so
    notes = " ".join(device_rates(replace(lookup_gpu("B300"), sm_count=None)).notes)
    assert "SM count of B300: not in the catalog" in notes
    code, out, _ = cli(capsys, "perf", LLAMA_8B, "--gpu", "B300", "--json")
    assert code == 0 and "SM count of" not in " ".join(json.loads(out)["assumptions"])
    code, out, _ = cli(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--json")
    assert "SM count of" not in " ".join(json.loads(out)["assumptions"])


# --- --gpu CARD --gpu-memory <its advertised size>GB ----------------------------------------------------------------

@pytest.mark.parametrize("gpu,size", [("rtx4090", "24GB"), ("H100", "80GB")])
def test_restating_the_cards_advertised_size_says_drop_gpu_memory(capsys, gpu, size):
    """Before: 'name it with --gpu H100-SXM-80GB' to a user who had passed --gpu H100; nothing for a 4090."""
    ws = _warnings(capsys, LLAMA_8B, "--engine", "vllm", "--gpu", gpu, "--gpu-memory", size)
    first = next(w for w in ws if w.startswith(f"--gpu-memory {size} is read as"))
    assert "already gives the CUDA total" in first and "drop --gpu-memory" in first, first
    assert "name it with --gpu" not in first


def test_a_decimal_size_without_gpu_still_names_the_card(capsys):
    ws = _warnings(capsys, LLAMA_8B, "--gpu-memory", "80GB")
    assert any("name it with --gpu H100-SXM-80GB" in w for w in ws), ws


# --- explain: a release range pinned to one release -----------------------------------------------------------------

def test_a_version_range_of_one_release_is_printed_once(capsys, tmp_path):
    """Before: 'engine      vllm 0.10.2–0.10.2' (the formats' range, both ends the same)."""
    log = tmp_path / "server.log"
    log.write_text(
        "(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [gpu_worker.py:298] Available KV cache memory: 6.51 GiB\n"
        "(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [kv_cache_utils.py:864] GPU KV cache size: 42,656 tokens\n"
        "(EngineCore_DP0 pid=1133552) INFO 10-03 16:22:17 [kv_cache_utils.py:868] Maximum concurrency for 32,768 "
        "tokens per request: 1.30x\n")
    code, out, _ = cli(capsys, "explain", str(log))
    assert code == 0
    engine = out.splitlines()[0]
    assert engine == "engine      vllm 0.10.2 (the only release its line formats allow)", engine


# --- --help: every count and size says its unit or default -----------------------------------------------------------

def test_bench_count_flags_say_their_default(capsys):
    """Before: '--iters ITERS  eager calls per timed repeat' (and --graph-calls, --repeats, --nproc): no default."""
    code, out, _ = cli(capsys, "bench", "allreduce", "--help")
    assert code == 0
    for flag, default in (("--nproc N", "default 2"), ("--iters N", "default 20"), ("--graph-calls N", "default 50"),
                          ("--repeats N", "default 7")):
        assert flag in out, flag
        block = out.split(flag, 2)[-1].split("\n  --", 1)[0]
        assert default in " ".join(block.split()), (flag, block)


def test_perf_batch_and_context_name_their_unit_in_the_metavar(capsys):
    """Before: '--batch BATCH', '--context CONTEXT'."""
    code, out, _ = cli(capsys, "perf", "--help")
    assert code == 0 and "--batch REQUESTS" in out and "--context TOKENS" in out


# --- engine flags that override config.json ---------------------------------------------------------------------------

@pytest.mark.parametrize("command,flag,where", [
    ("plan", "--rope-scaling", "pass DIR as MODEL"), ("plan", "--hf-overrides", "pass DIR as MODEL"),
    ("plan", "--json-model-override-args", "pass DIR as MODEL"), ("perf", "--hf-overrides", "pass DIR as MODEL")])
def test_a_config_override_flag_says_how_to_plan_it(capsys, command, flag, where):
    """Before: 'tpkit plan has no flag --rope-scaling; `tpkit plan --help` lists its flags' for the launch line of
    Qwen's 128k YaRN recipe: no way to plan it named."""
    refused(capsys, command, "Qwen/Qwen3-8B", "--gpu", "H100", flag, '{"rope_type": "yarn", "factor": 4.0}',
            says=(f"has no flag {flag}: it is", "override of the model's config.json",
                  "a copy of config.json in a folder DIR", where))


def test_explain_points_a_config_override_at_model(capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text("INFO 12-06 10:00:00 [gpu_worker.py:298] Available KV cache memory: 6.51 GiB\n")
    refused(capsys, "explain", str(log), "--hf-overrides", "{}", says=("pass it with --model DIR",))


# --- --dtype bfloat16 on a GPU before Ampere -----------------------------------------------------------------------

def test_vllm_bf16_on_a_t4_says_vllm_refuses_it_and_names_half(capsys):
    """Before: the plan of --dtype bfloat16 on a T4 said nothing of vLLM's start-up refusal."""
    ws = _warnings(capsys, "Qwen/Qwen3-8B", "--engine", "vllm", "--gpu", "Tesla T4", "--tp", "2", "--dtype",
                   "bfloat16")
    assert any("vLLM refuses it at start-up" in w and "--dtype half" in w for w in ws), ws
    for gpu, dtype in (("Tesla T4", "half"), ("H100", "bfloat16")):
        ws = _warnings(capsys, "Qwen/Qwen3-8B", "--engine", "vllm", "--gpu", gpu, "--tp", "2", "--dtype", dtype)
        assert not any("Bfloat16 is only supported" in w for w in ws), ws


# --- --engine-version as a release tag spells it ----------------------------------------------------------------------

@pytest.mark.parametrize("engine,tag", [("sglang", "v0.5.4"), ("vllm", "v0.10.2")])
def test_a_release_tag_engine_version_is_read_without_its_v(capsys, engine, tag):
    """Before: 'tpkit plan · sglang v0.5.4 rules' and "engine_version": "v0.5.4" in the JSON (a script comparing
    versions read another string than for 0.5.4)."""
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", engine, "--engine-version", tag,
                       "--json")
    assert code == 0 and json.loads(out)["engine_version"] == tag[1:]


# --- a YaRN config and a longer --max-model-len under the vLLM ≥ 0.30 rules --------------------------------------------

def test_a_yarn_config_refusal_says_to_raise_max_position_embeddings(capsys, tmp_path):
    """Before: '… limit of 40,960 tokens (max_position_embeddings); pass --max-model-len 40960 or less' for a Qwen3
    config copy carrying Qwen's YaRN rope_scaling (factor 4): the user who followed the config-override hint above
    was not told that vLLM ≥ 0.30 takes the length as already scaled.  vLLM 0.29 still applies the factor."""
    from tpkit.models.catalog import find_entry

    cfg = dict(find_entry("Qwen/Qwen3-8B").config)
    cfg["rope_scaling"] = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    refused(capsys, "plan", str(tmp_path), "--gpu", "H100", "--engine", "vllm", "--max-model-len", "131072",
            says=("takes a YaRN config's max_position_embeddings as already scaled", "raising max_position_embeddings"))
    code, _, err = cli(capsys, "plan", str(tmp_path), "--gpu", "H100", "--engine", "vllm", "--max-model-len", "131072",
                       "--engine-version", "0.29")
    assert code == 0, err
    line = refused(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--max-model-len", "131072")
    assert "YaRN" not in line


def test_engine_version_v0_still_names_the_v0_engine(capsys):
    """'v0' is tpkit's spelling of vLLM's V0 engine, not a release tag: it keeps its 'v'."""
    code, out, _ = cli(capsys, "plan", "Qwen/Qwen3-8B", "--gpu", "H100", "--engine", "vllm", "--engine-version", "v0",
                       "--json")
    assert code == 0 and json.loads(out)["engine_version"].endswith("v0")
