"""vLLM's CUDA-graph estimate for DeepSeek-V4 + MTP (vp_593), two rules (helper g593, 2026-12-05).

1. The V1 runner rounds the capture sizes up to multiples of 1 + speculative tokens when its decode graphs are FULL.
2. A model with the sparse-attention indexer adds the 512 MiB dummy logits block to the first PIECEWISE sample
   (``sparse_indexer.indexer_graph_profile_bytes``): the PIECEWISE warm-up runs without attention metadata, so the
   indexer takes its profile branch after ``profile_cudagraph_memory`` emptied torch's cache (V1 runner, 0.19.1,
   0.20.0, 0.25.0, 0.27.1, 0.33.0 read; ``VLLM_SPARSE_INDEXER_MAX_LOGITS_MB`` 512 in ``envs.py``).

Rule 1:

Source (``pip download --no-deps vllm==X``): ``config/compilation.py adjust_cudagraph_sizes_for_spec_decode``,
called from ``v1/worker/gpu_model_runner.py`` in 0.15.0, 0.16.0, 0.18.1, 0.19.1 (FULL decode with a separate decode
routine: FULL_AND_PIECEWISE, FULL_DECODE_ONLY) and from ``CompilationConfig.resolve_cudagraph_mode_and_sizes`` in
0.20.0–0.33.0 (any FULL decode mode; from 0.25.0 not for Model Runner V2).  The logs print the rounded counts:
vp_593 (0.25.0, MTP 2, 64 sequences) 'PIECEWISE=42 (largest=384), FULL=26 (largest=192)', vl_844 (0.21.1, MTP 2,
4 sequences) 'PIECEWISE=5 (largest=24), FULL=3 (largest=9)', vl_743 (0.22.0, MTP 3) 'PIECEWISE=9 (largest=64),
FULL=5 (largest=32)', vl_741 (0.19.2, EAGLE 3, 2 sequences) 'PIECEWISE=3 (largest=16), FULL=2 (largest=8)'; the
PIECEWISE-only vl_524 (0.23.1, MTP 2) keeps the plain 'PIECEWISE=9 (largest=48)'.
"""

from __future__ import annotations

import sys
from pathlib import Path

import json

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.graph_spec import spec_decode_rounded_sizes, spec_decode_rounding_applies
from tpkit.engines.vllm.graphs import (FIRST_CAPTURE_BYTES, FLASHINFER_WORKSPACE_BYTES, capture_sizes,
                                       estimate_cudagraph_memory, mechanism_estimate)
from tpkit.engines.vllm.sparse_indexer import indexer_graph_profile_bytes
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, MiB

from vllm_fixtures import H200, GivenWeights, llama3_8b

HERE = Path(__file__).resolve().parent


def _counts(version, *, seqs, q, mode="FULL_AND_PIECEWISE", v2=False, tokens=8192, cc=(9, 0), given=None):
    """(PIECEWISE, FULL) graphs of the plan's estimate, read off its formula."""
    est = estimate_cudagraph_memory(resolve_rules(version), v2_runner=v2, max_num_seqs=seqs,
                                    max_num_batched_tokens=tokens, compute_capability=cc, layers=40,
                                    attention_backend="FLASH_ATTN", decode_query_len=q, mode=mode, given_sizes=given)
    pw, full = est.formula.split(", ")[2].split(" graphs")[0].split(" + ")
    return int(pw.split()[0]), int(full.split()[0])


def test_rounded_sizes_by_hand():
    sizes = capture_sizes(max_num_seqs=64, max_num_batched_tokens=4096, compute_capability=(12, 0),
                          decode_query_len=3, release=(0, 25, 0))
    assert len(sizes) == 43 and sizes[-1] == 384
    rounded = spec_decode_rounded_sizes(sizes, 3)
    assert rounded[:5] == (3, 6, 9, 18, 24) and rounded[-1] == 384 and len(rounded) == 42   # 1, 2 → 3; 4 → 6
    assert spec_decode_rounded_sizes((1, 2, 4, 8, 16, 24, 32), 3) == (3, 6, 9, 18, 24)   # 33 > 32 is dropped
    assert spec_decode_rounded_sizes((4,), 3) == (3,)                                   # none left: the multiple itself
    assert spec_decode_rounded_sizes((1, 2, 4), 1) == (1, 2, 4)


def test_no_size_left_is_refused_as_vllm_refuses_it():
    with pytest.raises(PlanInputError, match="multiples of 1 \\+ speculative tokens \\(4\\)") as err:
        spec_decode_rounded_sizes((1, 2), 4)
    assert "largest capture size is 2" in str(err.value) and "--cudagraph-capture-sizes" in str(err.value)


@pytest.mark.parametrize("version, seqs, q, mode, printed", [
    ("0.25.0", 64, 3, "FULL_AND_PIECEWISE", (42, 26)),   # vp_593 (4,096 batched tokens)
    ("0.21.1", 4, 3, "FULL_AND_PIECEWISE", (5, 3)),      # vl_844
    ("0.22.0", 8, 4, "FULL_AND_PIECEWISE", (9, 5)),      # vl_743
    ("0.19.2", 2, 4, "FULL_AND_PIECEWISE", (3, 2)),      # vl_741
    ("0.23.1", 8, 3, "PIECEWISE", (9, 0)),               # vl_524: PIECEWISE only, not rounded
])
def test_the_printed_graph_counts(version, seqs, q, mode, printed):
    tokens = 4096 if version == "0.25.0" else 8192
    assert _counts(version, seqs=seqs, q=q, mode=mode, tokens=tokens, cc=(12, 0)) == printed


def test_without_speculation_nothing_is_rounded():
    assert _counts("0.25.0", seqs=256, q=1, tokens=2048) == (51, 35)


def test_plain_full_mode_is_rounded_from_0_20_only():
    """0.19.1 rounds only where FULL has a separate decode routine; 0.20.0 on any FULL decode mode."""
    assert not spec_decode_rounding_applies((0, 19, 1), v2_runner=False, mode="FULL", decode_query_len=3)
    assert spec_decode_rounding_applies((0, 19, 1), v2_runner=False, mode="FULL_DECODE_ONLY", decode_query_len=3)
    assert spec_decode_rounding_applies((0, 20, 0), v2_runner=False, mode="FULL", decode_query_len=3)
    assert _counts("0.19.1", seqs=4, q=3, mode="FULL") == (0, 6)      # 1, 2, 4, 8, 16, 24 as FULL graphs
    assert _counts("0.20.0", seqs=4, q=3, mode="FULL") == (0, 5)      # 3, 6, 9, 18, 24


def test_model_runner_v2_keeps_its_own_sizing():
    assert not spec_decode_rounding_applies((0, 29, 0), v2_runner=True, mode="FULL_AND_PIECEWISE",
                                            decode_query_len=3)
    v1, v2 = _counts("0.29.0", seqs=4, q=3), _counts("0.29.0", seqs=4, q=3, v2=True)
    assert v1 != v2 and v1[0] < v2[0]


def test_a_given_list_is_rounded_too():
    assert _counts("0.25.0", seqs=64, q=3, given=(1, 2, 4, 8)) == (2, 2)   # 3, 6; 8 → 9 lies above the top 8


def test_vp_593_end_to_end():
    """vp_593's plan counts the log's 42 PIECEWISE + 26 FULL graphs (43 + 25 before: the same 66 later graphs) and
    the indexer's dummy block: 0.57 → 1.07 GiB (printed 1.58), KV 2,151,521 → 2,054,594 tokens (printed 1,993,100:
    +7.9 → +3.1 %)."""
    sys.path.insert(0, str(HERE.parent / "validation"))
    import harness

    case = next(c for c in harness.load_cases("vllm") if c["id"] == "vp_593")
    r = plan_vllm(*harness.inputs(case))
    line = next(x for x in r.ledger.items if x.item == "CUDA graphs (estimate)")
    assert "42 PIECEWISE + 26 FULL graphs" in line.source and "sparse indexer dummy logits" in line.source
    assert round(line.bytes.gib, 2) == 1.07
    # 2,054,594 before helper ev24: B200 context model 0.610 -> 0.619 GiB; 2,053,656 -> 2,056,656 with helper ev33
    # (the PCIe growth bound reads profile:pcie:2, vLLM's own line, 0.23 GiB, against the pooled 0.245)
    assert r.kv_tokens == 2_056_656


# rule 2: the sparse indexer's dummy logits block -------------------------------------------------------------------

def _config(stem):
    path = HERE.parent / "validation" / "configs" / f"{stem}.json"
    return from_config_dict(json.loads(path.read_text()), name=stem, source=str(path))


DSV4, DSV32 = _config("deepseek-ai--DeepSeek-V4-Flash"), _config("deepseek-ai--DeepSeek-V3.2")


@pytest.mark.parametrize("model, release, v2, expected", [
    (DSV4, (0, 25, 0), False, 512), (DSV32, (0, 25, 0), False, 512), (DSV32, (0, 20, 0), False, 512),
    (DSV32, (0, 19, 0), False, 512),            # the block exists from 0.19.0
    (DSV32, (0, 18, 1), False, 0),              # … not in 0.18 (and 0.18 / 0.19 subtract no estimate)
    (DSV4, (0, 33, 0), True, 0),                # Model Runner V2 builds attention metadata for PIECEWISE captures
    (DSV4, (0, 33, 0), False, 512),
])
def test_who_gets_the_dummy_block(model, release, v2, expected):
    assert indexer_graph_profile_bytes(model, release, v2_runner=v2) == MiB(expected)


def test_a_model_without_the_indexer_gets_nothing_nor_rocm():
    assert indexer_graph_profile_bytes(llama3_8b(), (0, 25, 0), v2_runner=False) == Bytes(0)
    assert indexer_graph_profile_bytes(DSV4, (0, 25, 0), v2_runner=False, rocm=True) == Bytes(0)   # AITER op


def test_the_block_lands_in_the_first_piecewise_sample_only():
    warm = MiB(512)
    base = mechanism_estimate(piecewise=10, full=5, layers=43, attention_backend="FLASH_ATTN")
    with_block = mechanism_estimate(piecewise=10, full=5, layers=43, attention_backend="FLASH_ATTN",
                                    piecewise_warmup=warm)
    assert with_block - base == warm                                  # max(0.155 + 0.5, 0.155) − 0.155
    # FULL decode graphs only: the FULL warm-ups build attention metadata, so no dummy block
    assert mechanism_estimate(piecewise=0, full=5, layers=43, attention_backend="FLASH_ATTN",
                              piecewise_warmup=warm) == \
        mechanism_estimate(piecewise=0, full=5, layers=43, attention_backend="FLASH_ATTN")
    # FlashInfer's 394 MiB FULL first sample is the smaller of the two first samples: the max is taken
    fi = mechanism_estimate(piecewise=10, full=5, layers=43, attention_backend="FLASHINFER", piecewise_warmup=warm)
    assert fi == with_block and FIRST_CAPTURE_BYTES + warm > FLASHINFER_WORKSPACE_BYTES


def _dsv32_plan(**kw):
    return plan_vllm(DSV32, H200, ParallelSpec(tp=8), VllmOptions(engine_version="0.25.0", **kw),
                     weights=GivenWeights(Bytes(80 * 2**30)))


def test_a_deepseek_v32_plan_carries_it_and_an_eager_one_has_no_graph_line():
    line = next(x for x in _dsv32_plan().ledger.items if x.item == "CUDA graphs (estimate)")
    assert "sparse indexer dummy logits" in line.source
    assert not [x for x in _dsv32_plan(enforce_eager=True).ledger.items if x.item == "CUDA graphs (estimate)"]
