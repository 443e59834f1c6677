"""``--compile-cache cold|warm`` (a tpkit option, not a vLLM flag): the cold torch.compile scratch phase of vLLM
0.22–0.32 Model Runner V2 runs (0.26–0.32 until helper mv26) and, since helper gem4, of 0.17–0.32 V1-runner runs (the last test) (engines/vllm/profile.py "cold compile scratch", profile_lines._cold_compile) is charged on
a first start (cold, the default) and dropped on a restart that loads every graph from vLLM's compile cache
(warm: compilation/backends.py CompilerManager.compile "Directly load the compiled graph(s) … from the cache",
0.26.0–0.32.0 wheels).  Both sides of the rule's release boundaries, --enforce-eager, the ledger's source text, the
assumption list and the refusal of a bad value (the CLI side: tests/cli/test_plan_compile_cache.py)."""

from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))
VH = "profile phase: cold compile scratch ≈ vocab × hidden"
ACT = "activation peak (profile run, estimate)"


def _plan(version, **kw):
    model = replace(llama3_8b(), architecture="Qwen3ForCausalLM")  # a Model Runner V2 architecture
    return plan_vllm(model, H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W)


def _line(plan, item):
    return next((l for l in plan.ledger.items if l.item == item), None)


def _cache_notes(plan):
    return [w for w in plan.warnings if w.startswith("torch.compile cache assumed")]


@pytest.mark.parametrize("version", ["0.22.0", "0.25.0", "0.26.0", "0.27.1", "0.30.0", "0.32.0"])
def test_warm_drops_the_cold_compile_phase(version):
    cold, warm = _plan(version), _plan(version, compile_cache="warm")
    assert _line(cold, VH) is not None and _line(warm, VH) is None
    assert _plan(version, compile_cache="cold").kv_tokens == cold.kv_tokens  # cold is the default
    assert warm.kv_tokens > cold.kv_tokens
    # the ledger's source text and the assumption list say which was assumed
    assert "torch.compile cache assumed cold" in _line(cold, ACT).source
    assert "torch.compile cache assumed warm" in _line(warm, ACT).source
    assert _cache_notes(cold) == [next(w for w in cold.warnings if "assumed cold" in w)]
    assert len(_cache_notes(warm)) == 1 and "--compile-cache warm" in _cache_notes(warm)[0]


@pytest.mark.parametrize("version, v2", [("0.21.0", "1"), ("0.33.0", None)])
def test_no_compile_cache_term_outside_0_22_to_0_32(version, v2):
    # the phase's release range (VllmRules.v2_vocab_hidden_peak; from 0.22 since helper mv26): a V2 run of 0.21
    # (VLLM_USE_V2_MODEL_RUNNER=1) or 0.33: the cache changes nothing, and nothing is said
    cold = _plan(version, vllm_use_v2_model_runner=v2)
    warm = _plan(version, compile_cache="warm", vllm_use_v2_model_runner=v2)
    assert cold.kv_tokens == warm.kv_tokens and _line(cold, VH) is None
    assert _cache_notes(cold) == _cache_notes(warm) == []
    assert "torch.compile cache" not in _line(cold, ACT).source


@pytest.mark.parametrize("version", ["0.26.0", "0.29.0", "0.32.0"])
def test_no_compile_cache_term_with_enforce_eager(version):
    # --enforce-eager compiles nothing (config/vllm.py VllmConfig.__post_init__: compilation mode NONE)
    cold, warm = _plan(version, enforce_eager=True), _plan(version, enforce_eager=True, compile_cache="warm")
    assert cold.kv_tokens == warm.kv_tokens and _line(cold, VH) is None
    assert _cache_notes(cold) == _cache_notes(warm) == []


def test_bad_compile_cache_value_is_refused():
    with pytest.raises(PlanInputError, match="--compile-cache must be one of cold, warm"):
        VllmOptions(compile_cache="hot")


def test_v1_runner_cold_start_of_0_23_matches_the_printed_pair():
    """vl_330 / vl_331 (= vp_250 / vp_251): vLLM 0.23.0, V1 runner, Qwen2.5-Coder-7B on an RTX 4090, one command
    started cold then warm, print 6.06 and 6.84 GiB of available KV memory (0.78 GiB apart).  tpkit's cold plan charges
    the scratch V × H × 2 B = 1.015 GiB where the warm peak is the MLP phase: 0.76 GiB apart
    (VllmRules.v1_vocab_hidden_peak, 0.17–0.32)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))
    import harness

    cases = {c["id"]: c for c in harness.load_cases("vllm")}
    plans = {}
    for cid in ("vp_250", "vp_251"):
        model, gpu, par, opts = harness.inputs(cases[cid])
        plans[cid] = plan_vllm(model, gpu, par, opts)
    cold, warm = plans["vp_250"], plans["vp_251"]
    assert _line(cold, VH) is not None and _line(warm, VH) is None
    gap = (warm.extra["available_kv_bytes"] - cold.extra["available_kv_bytes"]) / 2**30
    assert gap == pytest.approx(0.78, abs=0.05)
