"""``--enable-prefix-caching`` in vLLM plans (helper mv5, issue 11: vp_143, a 0.27.1 Qwen3.6-27B start-up with the
flag given).  For an attention + linear-attention hybrid the flag sets the mamba cache mode: 'align' holds 2 state
pages per request and mamba group, 'none' 1 (vLLM ``v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes``;
0.27.1 and 0.28.0 wheels), and the printed capacity is max_concurrency × max_model_len with max_concurrency =
num_blocks / Σ blocks per request (``v1/core/kv_cache_utils.py get_max_concurrency_for_kv_cache_config``, 0.27.1).
Hybrids have prefix caching off by default up to 0.27 and on from 0.28 (``VllmRules.hybrid_prefix_caching``), so
the test takes both sides of that boundary, with and without the flag."""

import json
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIG = Path(__file__).resolve().parent.parent / "validation" / "configs" / "Qwen--Qwen3.6-27B.json"


def _plan(version, **kw):
    model = from_config_dict(json.loads(CONFIG.read_text()), name="Qwen/Qwen3.6-27B", source=str(CONFIG))
    engine = get_engine("vllm")
    options = engine.options(engine_version=version, gpu_memory_utilization=0.88, max_model_len=4096,
                             quantization="fp8", enforce_eager=True, max_num_seqs=32, max_num_batched_tokens=4096,
                             skip_mm_profiling=True, **kw)
    return engine.plan(model, lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1), options)


def _blocks_per_request(plan):
    """Σ over the groups of the blocks one 4,096-token request holds: num_blocks / max_concurrency."""
    return round(plan.extra["kv_blocks"] / plan.max_concurrency)


@pytest.mark.parametrize("version, flag, per_request", [
    ("0.27.1", None, 9),    # hybrids: prefix caching off by default ≤ 0.27 → 'none': 6 attention + 3 × 1 state
    ("0.27.1", True, 12),   # the flag given → 'align': 6 + 3 × 2 (vp_143's printed 71.42x = 857 blocks / 12)
    ("0.28.0", None, 12),   # on by default from 0.28
    ("0.28.0", False, 9),   # turned off (API / --from-log)
])
def test_prefix_caching_sets_the_state_pages_of_a_hybrid(version, flag, per_request):
    kw = {} if flag is None else {"enable_prefix_caching": flag}
    assert _blocks_per_request(_plan(version, **kw)) == per_request


def test_the_flag_leaves_a_dense_model_alone():
    engine = get_engine("vllm")
    model = from_config_dict(json.loads((CONFIG.parent / "Qwen--Qwen3-4B.json").read_text()), name="Qwen/Qwen3-4B",
                             source="Qwen--Qwen3-4B.json")
    plans = [engine.plan(model, lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1),
                         engine.options(engine_version="0.27.1", **kw)) for kw in ({}, {"enable_prefix_caching": True})]
    assert plans[0].kv_tokens == plans[1].kv_tokens


def test_a_value_that_is_not_a_switch_is_refused():
    with pytest.raises(PlanInputError, match="enable_prefix_caching must be True, False or None"):
        get_engine("vllm").options(engine_version="0.27.1", enable_prefix_caching="yes")
