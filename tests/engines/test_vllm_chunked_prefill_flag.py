"""``enable_chunked_prefill`` in vLLM V0 plans (helper mv20, issue 11: vp_372, a vLLM 0.6.3.dev ROCm run of
Llama-3.1-405B at its whole 131,072 context through ``benchmarks/benchmark_throughput.py``, which passes
``enable_chunked_prefill=False``; the log prints 'The model has a long context length (131072)').

vLLM 0.6.3 ``engine/arg_utils.py create_engine_config`` turns chunked prefill on above 32K tokens only while the
flag is None; ``config.py SchedulerConfig`` then sets the profile run's ``max_num_batched_tokens`` from the switch:
512 when on (2048 from 0.6.5), ``max(max_model_len, 2048)`` when off.  The flag replaces the default on both sides
of the 32K boundary, and the V0 fallbacks of V1 releases keep it.

V1 (helper fix11, 2026-12-05; vp_606, vLLM 0.27.1 with ``--no-enable-chunked-prefill``): up to 0.11.0 the engine
forces chunked prefill on for generating models, so False changes nothing; from 0.11.1 ``engine/arg_utils.py`` makes
the default budget ``max(max_model_len, the device default)`` (capped at ``max_num_seqs × max_model_len``) and
``config/scheduler.py verify_max_model_len`` refuses a given budget below ``max_model_len``."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, resolve_rules
from tpkit.engines.vllm.inputs import resolve_inputs
from tpkit.engines.registry import get_engine
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parent.parent / "validation" / "configs"
MI300X = lookup_gpu("MI300X")


def _model(name="Llama-3.1-8B-Instruct"):
    """Llama 3.1 / 3.2: 131,072 positions, no sliding window, not MLA, text only."""
    path = CONFIGS / f"meta-llama--{name}.json"
    return from_config_dict(json.loads(path.read_text()), name=f"meta-llama/{name}", source=str(path))


def _tokens(version, length, flag):
    kw = {} if flag is None else {"enable_chunked_prefill": flag}
    options = VllmOptions(engine_version=version, max_model_len=length, **kw)
    return resolve_inputs(_model(), MI300X, options, resolve_rules(version)).max_num_batched_tokens


@pytest.mark.parametrize("version, length, flag, tokens", [
    ("0.6.3", 131072, None, 512),      # long context, flag not given: the default turns chunked prefill on
    ("0.6.3", 131072, False, 131072),  # turned off (vp_372): max(max_model_len, 2048)
    ("0.6.3", 131072, True, 512),
    ("0.6.3", 32768, None, 32768),     # at the boundary (not > 32K): off by default
    ("0.6.3", 32769, None, 512),       # past it: on by default
    ("0.6.3", 32769, False, 32769),
    ("0.6.3", 4096, True, 512),        # short context turned on: the chunk budget
    ("0.6.3", 1024, False, 2048),      # off: at least 2048
    ("0.6.5", 4096, True, 2048),       # the budget is 2048 from 0.6.5
    ("0.6.5", 131072, False, 131072),
])
def test_the_flag_sets_the_v0_profile_budget(version, length, flag, tokens):
    assert _tokens(version, length, flag) == tokens


def test_a_given_budget_wins_over_the_switch():
    options = VllmOptions(engine_version="0.6.3", max_model_len=131072, enable_chunked_prefill=False,
                          max_num_batched_tokens=8192)
    assert resolve_inputs(_model(), MI300X, options, resolve_rules("0.6.3")).max_num_batched_tokens == 8192


def test_turning_it_off_lowers_the_long_context_capacity():
    engine = get_engine("vllm")
    plans = [engine.plan(_model(), MI300X, ParallelSpec(tp=1),
                         engine.options(engine_version="0.6.3", max_model_len=131072, **kw))
             for kw in ({}, {"enable_chunked_prefill": False})]
    assert plans[1].kv_tokens < plans[0].kv_tokens  # a 131,072-token profile run instead of 512


def test_v1_up_to_0_11_0_forces_chunked_prefill_on():
    engine = get_engine("vllm")
    plans = [engine.plan(_model(), MI300X, ParallelSpec(tp=1),
                         engine.options(engine_version="0.10.0", max_model_len=8192, **kw))
             for kw in ({}, {"enable_chunked_prefill": True}, {"enable_chunked_prefill": False})]
    assert plans[0].kv_tokens == plans[1].kv_tokens == plans[2].kv_tokens
    assert _tokens("0.11.0", 131072, False) == _tokens("0.11.0", 131072, None)


@pytest.mark.parametrize("version, length, flag, tokens", [
    ("0.11.1", 131072, False, 131072),  # off: max(max_model_len, the device default)
    ("0.27.1", 131072, False, 131072),
    ("0.27.1", 131072, None, 8192),     # on (the default): MI300X's 8,192 (≥ 70 GiB)
    ("0.27.1", 4096, False, 8192),      # off with a short context: the default is larger
    ("0.33.0", 65536, False, 65536),
])
def test_v1_from_0_11_1_sizes_the_budget_from_the_switch(version, length, flag, tokens):
    assert _tokens(version, length, flag) == tokens


def test_v1_caps_a_default_budget_at_seqs_times_length():
    options = VllmOptions(engine_version="0.27.1", max_model_len=512, max_num_seqs=4)
    assert resolve_inputs(_model(), MI300X, options, resolve_rules("0.27.1")).max_num_batched_tokens == 2048


def test_v1_off_refuses_a_given_budget_below_the_length():
    options = VllmOptions(engine_version="0.27.1", max_model_len=8192, max_num_batched_tokens=4096,
                          enable_chunked_prefill=False)
    with pytest.raises(PlanInputError, match="below --max-model-len 8192 with chunked prefill off"):
        resolve_inputs(_model(), MI300X, options, resolve_rules("0.27.1"))
    ok = VllmOptions(engine_version="0.27.1", max_model_len=4096, max_num_batched_tokens=4096,
                     enable_chunked_prefill=False)
    assert resolve_inputs(_model(), MI300X, ok, resolve_rules("0.27.1")).max_num_batched_tokens == 4096


def test_v1_off_lowers_the_long_context_capacity():
    engine = get_engine("vllm")
    plans = [engine.plan(_model(), MI300X, ParallelSpec(tp=1),
                         engine.options(engine_version="0.27.1", max_model_len=131072, **kw))
             for kw in ({}, {"enable_chunked_prefill": False})]
    assert plans[1].kv_tokens < plans[0].kv_tokens  # a 131,072-token profile run instead of 8,192


def test_a_v0_fallback_of_a_v1_release_keeps_the_flag():
    """A T4 (compute capability 7.5) at 0.8.4 runs V0 (``capability_v0_fallback``): False is accepted there."""
    engine = get_engine("vllm")
    t4 = lookup_gpu("T4")
    plans = [engine.plan(_model("Llama-3.2-1B-Instruct"), t4, ParallelSpec(tp=1),
                         engine.options(engine_version="0.8.4", max_model_len=40960, dtype="float16", **kw))
             for kw in ({}, {"enable_chunked_prefill": False})]
    assert plans[0].engine_version == plans[1].engine_version == "0.8.4:v0"
    assert 0 < plans[1].kv_tokens < plans[0].kv_tokens


def test_a_value_that_is_not_a_switch_is_refused():
    with pytest.raises(PlanInputError, match="enable_chunked_prefill must be True, False or None"):
        get_engine("vllm").options(engine_version="0.6.3", enable_chunked_prefill="no")
