"""vLLM ``--data-parallel-size`` on a MoE model without ``--enable-expert-parallel`` (helper mv7, issue 11: vp_198,
gpt-oss-20b with dp 4 on four L4s, vLLM 0.29.0, 438,932 tokens per engine).

``FusedMoEParallelConfig.make`` (``model_executor/layers/fused_moe/config.py``; read in the 0.14.1, 0.19.0, 0.29.0
and 0.33.0 wheels) flattens TP across DP when EP is off: each expert's matrices are split over tp × dp GPUs
("There are 2 engine instances and the tensors are sharded across 2 devices"), while attention and dense layers
stay TP-sharded and replicated per DP rank.  With EP the experts are split whole over tp × dp instead."""

import json
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm.layout import resolve_parallel
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"


def _model(name):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=name, source=str(path))


def _item(plan, item):
    return sum(line.bytes.bytes for line in plan.lines if line.item == item)


@pytest.mark.parametrize("version", ["0.14.1", "0.29.0"])
def test_dp_without_ep_splits_each_expert_over_tp_times_dp(version):
    engine = get_engine("vllm")
    model = _model("openai--gpt-oss-20b.json")
    one = resolve_parallel(ParallelSpec(tp=1), engine.options(engine_version=version), model)
    four = resolve_parallel(ParallelSpec(tp=1), engine.options(engine_version=version, data_parallel_size=4), model)
    assert one.expert_tp is None and four.dp == 4 and four.expert_tp == 4 and four.ep == 1
    w1, w4 = plan_weights(model, one), plan_weights(model, four)
    assert _item(w4, "routed experts") * 4 == pytest.approx(_item(w1, "routed experts"), rel=0.01)
    assert _item(w4, "attention") == _item(w1, "attention")  # attention stays whole on each DP rank


def test_ep_splits_whole_experts_and_leaves_expert_tp_unset():
    engine = get_engine("vllm")
    model = _model("openai--gpt-oss-20b.json")
    par = resolve_parallel(ParallelSpec(tp=1), engine.options(engine_version="0.29.0", data_parallel_size=4,
                                                              enable_expert_parallel=True), model)
    assert par.ep == 4 and par.expert_tp is None


def test_a_dense_model_is_untouched_by_dp():
    engine = get_engine("vllm")
    model = _model("Qwen--Qwen3-8B.json")
    par = resolve_parallel(ParallelSpec(tp=1), engine.options(data_parallel_size=4), model)
    assert par.expert_tp is None
    assert plan_weights(model, par).bytes_per_rank == plan_weights(model, ParallelSpec(tp=1)).bytes_per_rank


def test_vp_198_per_engine_capacity_is_near_the_print():
    """dp 4 × tp 1 on L4s, eager, no async scheduling, 0.85: 438,932 tokens printed per engine; before the rule
    the plan gave 158,952 (-63.8 %)."""
    engine = get_engine("vllm")
    model = _model("openai--gpt-oss-20b.json")
    options = engine.options(engine_version="0.29.0", data_parallel_size=4, gpu_memory_utilization=0.85,
                             max_model_len=32768, max_num_batched_tokens=4096, max_num_seqs=256, enforce_eager=True,
                             enable_prefix_caching=False, no_async_scheduling=True)
    plan = engine.plan(model, lookup_gpu("L4"), ParallelSpec(tp=1), options)
    assert abs(plan.kv_tokens - 438_932) / 438_932 < 0.05
