"""Case facts of helper near14 (2026-12-05; docs/accuracy.md §2, "The vLLM cases just above 8 %, session 14"):

* vl_071 (gemma-3-27b-it-int4-awq, vLLM 0.8.3 V0, vllm-project/vllm#16199): a "24G GPU" whose CUDA total prints
  21.99 GiB is an A10 or A10G (the catalog's only 24 GB boards at 21.98-21.99 GiB), both SM 8.6: family
  ``ampere-consumer``, no longer ``unknown``;
* vp_122 (Qwen2.5-1.5B, vLLM 0.30.0, T4): its log prints "torch.compile took 0.24 s in total", below every cold
  compile of the explain corpus (9.85 s and up over the 60 logs that print a cold-cache line), so the compile cache
  was warm and no cold-compile scratch is in its profile peak (``compile_cache`` "warm");
* the Qwen3.5-family text configs (Qwen3.5-4B, Qwen3.5-9B, Qwen3.8-27B and its INT4 copy) carry the family's
  interleaved MRoPE ``rope_parameters``, and Qwen3.5-4B's vision tower is 1024 wide with a 4096 MLP (the official
  contract), so the loads the plan derives match the printed 'Model loading took';
* vp_627-vp_630 run the official vllm/vllm-openai:v0.8.5 image (FlashInfer sampler, as vl_056).

None is a release rule (no version boundary): each pin fails when the fact is taken out.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

import harness

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "logs" / "data" / "vllm"


def _case(cid: str) -> dict:
    return next(c for c in harness.load_cases("vllm") if c["id"] == cid)


def _compile_seconds(text: str) -> float | None:
    m = re.search(r"torch\.compile t(?:akes|ook) (\d+\.\d+) s in total", text)
    return float(m.group(1)) if m else None


def test_the_corpus_cold_compiles_all_take_longer_than_vp_122s():
    """The evidence: every corpus log with a cold-cache line (settings._COMPILE_CACHE_LINES) and a compile time."""
    cold = []
    for path in sorted(LOGS.glob("*.log")):
        text = path.read_text(errors="replace")
        seconds = _compile_seconds(text)
        if seconds is not None and re.search(r"Compiling a graph for |Cache the graph (?:of|for) ", text):
            cold.append(seconds)
    assert len(cold) >= 50
    assert min(cold) > 7.0  # helper bl23b: vl_1019 (pp 4, eight layers a stage) compiles cold in 7.37 s, vl_1018 8.22 s
    assert _compile_seconds((LOGS / "vl_202.log").read_text()) == 0.24


def test_vp_122_is_a_warm_start_and_scores_near_its_print():
    case = _case("vp_122")
    assert case["flags"]["compile_cache"] == "warm"
    row = harness.predict(case)
    assert abs(row.error) < 0.02 and row.inside  # -1.1 % (the CUDA-graph estimate is 0.16 GiB over its print)
    cold = copy.deepcopy(case)
    del cold["flags"]["compile_cache"]  # the default: a cold start charges vocabulary x hidden
    before = harness.predict(cold)
    assert before.error < -0.03  # -3.7 %


def test_vl_071_is_an_sm_8_6_card_by_its_printed_total():
    case = _case("vl_071")
    assert case["gpu_family"] == "ampere-consumer"
    assert abs(case["gpu_total_bytes"] / 2**30 - 21.99) < 0.005
    assert "A10G" in case["gpu_note"]
    row = harness.predict(case)
    assert abs(row.error) < 0.05 and row.inside  # -4.0 %
    unknown = copy.deepcopy(case)
    unknown["gpu_family"] = "unknown"  # the pooled cuBLAS cell
    before = harness.predict(unknown)
    assert before.error < -0.08  # -8.9 %


def _load_gib(cid: str) -> float:
    """'Model loading took' as the plan has it: weights + rotary cache + allocator rounding (validate.py §6.3)."""
    from tpkit.engines.registry import get_engine
    from tpkit.engines.vllm.load_lines import ALLOCATOR_ITEM

    case = _case(cid)
    model, gpu, parallel, options = harness.inputs(case)
    others, _ = harness.others_of(case, gpu, parallel)
    plan = get_engine("vllm").plan(model, gpu, parallel, options, machine=others)
    items = ("model weights", "rotary cos/sin cache", ALLOCATOR_ITEM)
    return sum(l.bytes.bytes for l in plan.ledger.items if l.item in items) / 2**30


@pytest.mark.parametrize("config", ["Qwen--Qwen3.5-4B", "Qwen--Qwen3.5-9B", "Qwen--Qwen3.8-27B",
                                    "RedHatAI--Qwen3.8-27B-INT4"])
def test_qwen3_5_family_configs_carry_the_interleaved_mrope(config):
    """The Qwen3.5 text configs carry rope_parameters with mrope_section [11, 11, 10] (official 0.8B / 4B contracts,
    code-search id 61026521556; vl_620's printed overrides for the 27B), so vLLM 0.7.2-0.31 builds MRotaryEmbedding
    with 4 x 262,144 rows."""
    cfg = json.loads((ROOT / "tests" / "validation" / "configs" / f"{config}.json").read_text())
    rope = cfg["text_config"]["rope_parameters"]
    assert rope["mrope_section"] == [11, 11, 10] and rope["mrope_interleaved"] and rope["partial_rotary_factor"] == 0.25


@pytest.mark.parametrize("cid, printed", [("vp_603", 7.99), ("vp_623", 16.80), ("vp_530", 17.66), ("vp_534", 8.61),
                                          ("vl_073", 51.10)])
def test_qwen3_5_loads_match_their_prints(cid, printed):
    """vp_603 (4B, 0.30.0, text only), vp_623 (9B, 0.21.0, text only), vp_530 (9B, 0.19.0, with its tower), vp_534
    (4B, 0.23.0, with the official 1024-wide tower), vl_073 (Qwen3.8-27B, 0.29.0): within 0.02 GiB (they were 0.09-0.11
    GiB under with a plain RoPE cache; vp_534 0.04 over with a 1152-wide tower)."""
    assert _load_gib(cid) == pytest.approx(printed, abs=0.02)


@pytest.mark.parametrize("cid", ["vp_627", "vp_628", "vp_629", "vp_630"])
def test_the_v0_8_5_image_samples_with_flashinfer(cid):
    """The runbook runs the official vllm/vllm-openai:v0.8.5 image, as vl_056 does: its Dockerfile installs
    flashinfer_python 0.2.1.post2, which 0.8.5's V1 TopKTopPSampler takes (below 0.2.3), so the profile's sampler
    phase is FlashInfer's 14 B per logit, not the native 38 B."""
    case = _case(cid)
    assert "vllm/vllm-openai:v0.8.5" in case["command"]
    assert case["flags"]["topk_topp_sampler"] == _case("vl_056")["flags"]["topk_topp_sampler"] == "flashinfer"
    native = copy.deepcopy(case)
    del native["flags"]["topk_topp_sampler"]
    assert harness.predict(case).predicted > harness.predict(native).predicted  # less charged, more KV
