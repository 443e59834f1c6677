"""SGLang's running-request cap under speculation (``engines.sglang.spec.spec_running_cap``): the value on both
sides of each release boundary read in the wheels, and the planner using the same rule as ``tpkit perf``."""

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang import sizing as sglang_sizing
from tpkit.engines.sglang.spec import spec_running_cap, spec_running_requests
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec

DRAFT = "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge"


@pytest.mark.parametrize("version, algorithm, cap", [
    # no cap while EAGLE had none: 0.4.1.post7 (first EAGLE) … 0.4.3.post2
    ("0.4.1.post7", "EAGLE", None), ("0.4.3", "EAGLE", None), ("0.4.3.post2", "NEXTN", None),
    # 32 from 0.4.3.post3 to 0.4.4.post3
    ("0.4.3.post3", "EAGLE", 32), ("0.4.3.post3", "NEXTN", 32), ("0.4.4", "EAGLE", 32),
    ("0.4.4.post2", "EAGLE3", 32), ("0.4.4.post3", "EAGLE3", 32),
    # 48 from 0.4.4.post4 through the newest release read
    ("0.4.4.post4", "EAGLE3", 48), ("0.4.4.post4", "EAGLE", 48), ("0.4.5", "EAGLE", 48), ("0.4.10", "EAGLE", 48),
    ("0.5.2", "STANDALONE", 48), ("0.5.9", "EAGLE3", 48), ("0.5.12", "NEXTN", 48), ("0.5.13", "EAGLE3", 48),
    ("0.5.23", "STANDALONE", 48),
    # plain decoding: never
    ("0.4.4", None, None), ("0.5.23", None, None),
])
def test_the_cap_per_release(version, algorithm, cap):
    got = spec_running_cap(version, algorithm)
    assert got.requests == cap and got.source


@pytest.mark.parametrize("version, cap", [("0.5.11", 48), ("0.5.12", 256), ("0.5.23", 256)])
def test_deepseek_v4_keeps_its_own_default_from_0_5_12(version, cap):
    # apply_deepseek_v4_defaults (0.5.12+) sets 256 before the speculative handler runs
    assert spec_running_cap(version, "EAGLE", architecture="DeepseekV4ForCausalLM").requests == cap
    assert spec_running_cap(version, "EAGLE", architecture="DeepseekV3ForCausalLM").requests == 48


def test_the_user_value_wins_and_dp_attention_splits_it():
    assert spec_running_requests("0.5.9", "EAGLE3", None) == 48
    assert spec_running_requests("0.5.9", "EAGLE3", 96) == 96
    assert spec_running_requests("0.5.9", "EAGLE3", None, attn_dp=8) == 6
    assert spec_running_requests("0.4.4", "EAGLE", None, attn_dp=4) == 8
    assert spec_running_requests("0.4.3", "EAGLE", None) is None
    assert spec_running_requests("0.4.3", None, 100) == 100


@pytest.mark.parametrize("version, running", [("0.4.4.post3", 32), ("0.4.4.post4", 48), ("0.5.9", 48)])
def test_the_planner_uses_the_rule(version, running):
    llama = load_model("meta-llama/Llama-3.1-8B-Instruct")
    r = plan_sglang(llama, lookup_gpu("H200"), ParallelSpec(), SglangOptions(
        speculative_algorithm="EAGLE3", speculative_draft_model_path=DRAFT, engine_version=version))
    assert r.max_running_requests == running == spec_running_cap(version, "EAGLE3").requests
    # one home: sizing calls the engine rule, it keeps no value of its own
    assert sglang_sizing.spec_running_cap is spec_running_cap
    assert not hasattr(sglang_sizing, "DEFAULT_SPEC_RUNNING_REQUESTS")


def test_the_planner_has_no_cap_before_0_4_3_post3():
    llama = load_model("meta-llama/Llama-3.1-8B-Instruct")
    gpu = lookup_gpu("H200")
    capped = plan_sglang(llama, gpu, ParallelSpec(), SglangOptions(
        speculative_algorithm="EAGLE3", speculative_draft_model_path=DRAFT, engine_version="0.4.3.post3"))
    free = plan_sglang(llama, gpu, ParallelSpec(), SglangOptions(
        speculative_algorithm="EAGLE3", speculative_draft_model_path=DRAFT, engine_version="0.4.3"))
    assert capped.max_running_requests == 32 and free.max_running_requests > 32
