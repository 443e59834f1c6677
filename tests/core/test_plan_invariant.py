"""The rule every plan obeys (tpkit.memory.invariant), and the fuzz findings of issue 10 fixed at their cause.

Each case ran into a traceback, a hang or an impossible answer before its fix (scripts/fuzz_plan.py; the
record is docs/accuracy.md §8).  Plans go through the CLI in-process, and every fix a verdict names is
re-planned by ``fuzz_rules.check_plan``, the same check the full fuzz run makes.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fuzz_plan import _replan, run_cli  # noqa: E402
from fuzz_rules import check_plan, suggested_fixes  # noqa: E402

from tpkit.engines.sglang.defaults import prefill_capture_count, prefill_capture_sizes  # noqa: E402
from tpkit.memory.invariant import problems  # noqa: E402

LLAMA_8B, LLAMA_70B = "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"
MIXTRAL = "mistralai/Mixtral-8x7B-Instruct-v0.1"


def _plan(*args: str) -> tuple[dict, list[str]]:
    """(the plan's JSON, the argv) — the CLI must answer with a plan, not an error or a traceback."""
    argv = ["plan", *args, "--json"]
    rc, out, err, exc = run_cli(argv)
    assert exc is None, f"traceback: {exc!r}"
    assert rc in (0, 3), (rc, err)
    return json.loads(out), argv


def _error(*args: str) -> str:
    rc, out, err, exc = run_cli(["plan", *args])
    assert exc is None, f"traceback: {exc!r}"
    assert rc == 2, (rc, out[-300:])
    return err


def _sound(plan: dict, argv: list[str]) -> None:
    """The invariant holds and every named fix fits when re-planned."""
    assert check_plan(plan, argv, _replan) == []


# ---- the rule itself ------------------------------------------------------------------------------------------

def _fake(**changes) -> dict:
    plan = {"gpu": {"total_bytes": 1000}, "kv_tokens": 10, "max_running_requests": 2, "kv_pool": {"total_bytes": 500},
            "ledger": [{"item": "KV pool", "bytes": 500, "kind": "use"}], "verdict": {"fits": True, "message": ""}}
    return {**plan, **changes}


@pytest.mark.parametrize("changes, rule", [
    ({"kv_tokens": math.nan}, "NaN or infinite"),
    ({"ledger": [{"item": "x", "bytes": -1, "kind": "use"}]}, "negative quantity: ledger[0].bytes"),
    ({"kv_pool": {"total_bytes": 1001}}, "KV pool larger than the GPU"),
    ({"max_running_requests": 0}, "FITS with 0 running requests"),
    ({"vllm_like": {"available_kv_bytes": -5}}, "negative quantity: vllm_like.available_kv_bytes"),
])
def test_the_rule_catches_each_impossible_answer(changes, rule):
    assert problems(_fake()) == []
    assert any(rule in p for p in problems(_fake(**changes)))


def test_a_shortfall_may_be_negative_only_on_a_plan_that_does_not_fit():
    no_fit = {"fits": False, "message": ""}
    signed = {"available_kv_bytes": -5, "ledger": [{"item": "left", "bytes": -5, "kind": "info"}]}
    assert problems(_fake(verdict=no_fit, **signed)) == []
    assert len(problems(_fake(**signed))) == 2
    assert problems(_fake(verdict=no_fit, ledger=[{"item": "w", "bytes": -5, "kind": "use"}]))


# ---- vLLM: fixes re-planned ------------------------------------------------------------------------------------

def test_vllm_weights_larger_than_the_gpu_fail_at_load_and_the_tp_fix_fits():
    plan, argv = _plan(LLAMA_70B, "--engine", "vllm", "--gpu", "H100")
    msg = plan["verdict"]["message"]
    assert not plan["verdict"]["fits"] and "while loading the model" in msg and "the weights alone need" in msg
    assert not any(line.startswith(("Available KV cache memory", "Model loading took")) for line in plan["engine_log"])
    assert plan["engine_log"][-1].startswith("torch.OutOfMemoryError")
    tp = int(dict(suggested_fixes(msg))["--tp"])
    assert "if it is ≤ 1" not in msg and "--gpu-memory-utilization" not in msg
    _sound(plan, argv)
    smaller, _ = _plan(LLAMA_70B, "--engine", "vllm", "--gpu", "H100", "--tp", str(tp // 2))
    assert tp == 2 or not smaller["verdict"]["fits"]  # the smallest TP that fits


def test_vllm_mixtral_on_15gib_names_only_fixes_that_fit():
    plan, argv = _plan(MIXTRAL, "--engine", "vllm", "--gpu-memory", "15GiB", "--tp", "4")
    assert not plan["verdict"]["fits"] and suggested_fixes(plan["verdict"]["message"])
    _sound(plan, argv)


def test_vllm_negative_available_is_quoted_as_vllms_own_number_and_the_fix_is_the_smallest_that_fits():
    plan, argv = _plan(LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--gpu-memory-utilization", "0.2")
    msg = plan["verdict"]["message"]
    assert plan["available_kv_bytes"] < 0 and "vLLM itself prints the negative" in msg
    assert any(line.startswith("Available KV cache memory: -") for line in plan["engine_log"])
    util = float(dict(suggested_fixes(msg))["--gpu-memory-utilization"])
    _sound(plan, argv)
    below, _ = _plan(LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--gpu-memory-utilization", f"{util - 0.01:.2f}")
    assert not below["verdict"]["fits"]  # the smallest on vLLM's 0.01 grid


@pytest.mark.parametrize("size", ["1KiB", "512MiB", "1GiB", "1500MiB", "20GiB"])
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_tiny_gpus_plan_soundly_and_say_why_nothing_fits(size, engine):
    plan, argv = _plan(LLAMA_8B, "--engine", engine, "--gpu-memory", size)
    _sound(plan, argv)
    assert plan["kv_pool"] is None or plan["kv_pool"]["total_bytes"] <= plan["gpu"]["total_bytes"]
    if size in ("1KiB", "512MiB"):
        assert "othing runs on this GPU" in plan["verdict"]["message"]


def test_vllm_kv_override_larger_than_the_free_memory_allocates_no_pool():
    plan, argv = _plan(LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--kv-cache-memory-bytes", "200GiB")
    assert not plan["verdict"]["fits"] and plan["kv_pool"] is None
    _sound(plan, argv)


# ---- SGLang ----------------------------------------------------------------------------------------------------

def test_sglang_negative_default_fraction_is_sglangs_and_said_so():
    plan, argv = _plan(LLAMA_8B, "--gpu-memory", "1500MiB")
    assert plan["sglang"]["mem_fraction_static"] < 0 and not plan["verdict"]["fits"]
    assert "SGLang's default --mem-fraction-static for this GPU comes out at" in plan["verdict"]["message"]
    _sound(plan, argv)


def test_sglang_max_total_tokens_1_does_not_fit_with_zero_running_requests():
    plan, argv = _plan(LLAMA_8B, "--gpu", "H100", "--max-total-tokens", "1")
    assert not plan["verdict"]["fits"] and "max_running_request is zero" in plan["verdict"]["message"]
    _sound(plan, argv)


def test_prefill_graph_count_is_the_length_of_the_size_list_without_building_it():
    assert all(prefill_capture_count(m) == len(prefill_capture_sizes(m)) for m in range(0, 12_000, 7))
    t0 = time.perf_counter()
    plan, argv = _plan(MIXTRAL, "--gpu", "H100", "--chunked-prefill-size", str(10**12))
    assert time.perf_counter() - t0 < 10 and not plan["verdict"]["fits"]


# ---- inputs refused before they hang or overflow ----------------------------------------------------------------

@pytest.mark.parametrize("args, needle", [
    ((MIXTRAL, "--gpu", "H100", "--engine", "vllm", "--pp", "64"), "exceeds the model's 32 layers"),
    ((MIXTRAL, "--gpu", "H100", "--engine", "vllm", "--pp", "2147483648"), "--pp ≤ 1,024"),
    ((LLAMA_8B, "--gpu", "H100", "--tp", "2147483648", "--tpkit-allreduce", "1TiB"), "--tp ≤ 1,024"),
    ((LLAMA_8B, "--gpu-memory", "1e300GiB"), "no device or buffer is that large"),
])
def test_huge_values_are_refused_fast(args, needle):
    t0 = time.perf_counter()
    assert needle in _error(*args)
    assert time.perf_counter() - t0 < 10


def test_ep_message_names_the_valid_sizes_once():
    err = _error(MIXTRAL, "--gpu", "H100", "--ep", "3")
    assert "or 1" not in err and "--ep 1 (one GPU holds every expert)" in err and "--tp 3" in err
    err = _error(MIXTRAL, "--gpu", "H100", "--ep", "3", "--tp", "4", "--dp", "2")
    assert "--ep 1, 2, 4 or 8" in err


def test_machine_profile_of_another_gpu_is_refused(tmp_path):
    from fuzz_cases import machine_profile

    prof = machine_profile(1, "NVIDIA H100 80GB HBM3")  # an H100 name with an H200's 139.8 GiB total
    (tmp_path / "m.json").write_text(json.dumps(prof))
    assert "they are not the same GPU" in _error(LLAMA_8B, "--machine", str(tmp_path / "m.json"), "--gpu", "H100")
    assert "they are not the same GPU" in _error(LLAMA_8B, "--machine", str(tmp_path / "m.json"),
                                                 "--gpu-memory", "20GiB")


def test_unknown_architecture_is_planned_with_its_assumptions_shown(tmp_path):
    cfg = {"architectures": ["FooBarForCausalLM"], "model_type": "foobar", "hidden_size": 1024,
           "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 8, "intermediate_size": 4096,
           "vocab_size": 32000, "max_position_embeddings": 4096}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    for engine in ("sglang", "vllm"):
        plan, _ = _plan(str(tmp_path / "config.json"), "--gpu", "H100", "--engine", engine)
        said = plan["model"]["assumptions"]
        assert any("'foobar'" in a for a in said) and any("torch_dtype absent" in a for a in said)
        assert all(f"model: {a}" in plan["warnings"] for a in said)


def test_a_model_at_the_layer_limit_plans_fast(tmp_path):
    """Lead, session 18: the limit went from 100,000 to 1,024 layers (models.config.MAX_LAYERS; test_robust pins the
    refusal above it)."""
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 512, "torch_dtype": "bfloat16",
           "num_hidden_layers": 1_024, "num_attention_heads": 8, "num_key_value_heads": 8,
           "intermediate_size": 1024, "vocab_size": 32000, "max_position_embeddings": 4096}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    for engine in ("sglang", "vllm"):
        t0 = time.perf_counter()
        _plan(str(tmp_path / "config.json"), "--gpu-memory", "100TiB", "--engine", engine)
        assert time.perf_counter() - t0 < 15


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_verdicts_replans_leave_the_band_alone(engine):
    """The fixes are re-planned at other TP sizes; their NCCL terms were recorded into this tp-1 plan's band."""
    plan, _ = _plan(LLAMA_70B, "--engine", engine, "--gpu", "H100")
    # the TP fix in the engine's spelling: vLLM parses --tensor-parallel-size / -tp, no --tp (helper fix22)
    tp_flag = "--tensor-parallel-size" if engine == "vllm" else "--tp"
    assert not plan["verdict"]["fits"] and tp_flag in plan["verdict"]["message"]
    terms = [e["item"] for e in plan["band"]["estimated_terms"]]
    assert terms and not [t for t in terms if t.startswith("NCCL")]  # NCCL process group, communicator warm-up


def test_vllm_max_model_len_fix_is_the_longest_that_fits():
    plan, argv = _plan(LLAMA_8B, "--engine", "vllm", "--gpu-memory", "20GiB")
    n = int(dict(suggested_fixes(plan["verdict"]["message"]))["--max-model-len"])
    _sound(plan, argv)
    longer, _ = _plan(LLAMA_8B, "--engine", "vllm", "--gpu-memory", "20GiB", "--max-model-len", str(n + 16))
    assert not longer["verdict"]["fits"]


def test_vllm_v0_budget_above_the_free_memory_after_the_context_does_not_fit():
    """V0 with the CUDA context outside the budget (main's rule since the merge): --gpu-memory-utilization 1.0
    made a negative "outside the utilisation budget" reserve on a plan that fit.  Helper rt16 (2026-12-05): V0 frees
    the profile run's activation peak before it allocates the KV cache (engines.vllm.verdict.decide), so a budget
    above the free memory after the context by less than that peak fits, with no negative line; by more, it does
    not (here: 0.60 GiB over with a 1.18 GiB peak; 0.60 GiB over with a 54 MiB peak at 512 batched tokens)."""
    plan, argv = _plan(LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--engine-version", "V0",
                       "--gpu-memory-utilization", "1.0")
    assert plan["verdict"]["fits"] and all(li["bytes"] >= 0 for li in plan["ledger"] if li["item"] != "remaining")
    _sound(plan, argv)
    plan, argv = _plan(LLAMA_8B, "--engine", "vllm", "--gpu", "H100", "--engine-version", "V0",
                       "--gpu-memory-utilization", "1.0", "--max-model-len", "512", "--max-num-seqs", "1",
                       "--max-num-batched-tokens", "512")
    assert not plan["verdict"]["fits"] and "free after the CUDA context" in plan["verdict"]["message"]
    _sound(plan, argv)
