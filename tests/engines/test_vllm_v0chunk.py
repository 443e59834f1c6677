"""V0's long-context chunked-prefill default per release (engines/vllm/v0chunk.py; vLLM engine/arg_utils.py, read in
the 0.5.1–0.10.0 wheels by the lead, 2026-12-05, session 14).  Before 0.5.3 the switch defaults to False, so a
65,536-token model profiles 65,536 tokens (vp_670, vLLM 0.4.2: +212 % with the old rule, +24.5 % with this one)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from vllm_fixtures import H200, GivenWeights, deepseek_v3_like, llama3_8b

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.v0chunk import v0_auto_chunked_prefill
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.spec import LinearAttnSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

W = GivenWeights(GiB(15))


def _tokens(version, model=None, gpu=H200, length=65536, **kw):
    plan = plan_vllm(model or llama3_8b(), gpu, ParallelSpec(), VllmOptions(engine_version=version,
                     max_model_len=length, **kw), weights=W)
    return plan.extra["max_num_batched_tokens"]


def test_no_auto_chunking_before_053():
    """0.5.1 / 0.5.2: ``enable_chunked_prefill: bool = False``; 0.5.3: ``Optional[bool] = None``, on above 32K."""
    assert [_tokens(v) for v in ("0.4.2", "0.5.2", "0.5.3", "0.6.5")] == [65536, 65536, 512, 2048]
    assert _tokens("0.5.3", length=32768) == 32768


def _auto(release, model=None, **kw):
    args = dict(release=release, length=65536, model=model or llama3_8b(), rocm=False, speculative=False,
                lora=False, prefix_caching=False)
    return v0_auto_chunked_prefill(**(args | kw))


@pytest.mark.parametrize("kw, on_at, off_at", [
    ({"prefix_caching": True}, (0, 6, 1), (0, 6, 0)),           # 0.5.3–0.6.0 exclude prefix caching
    ({"rocm": True}, (0, 6, 4), (0, 6, 5)),                     # is_rocm() from 0.6.5, is_cuda() from 0.8.0
])
def test_release_bound_exclusions(kw, on_at, off_at):
    assert _auto(on_at, **kw) is True
    assert _auto(off_at, **kw) is False


def test_model_exclusions_per_release():
    mla = deepseek_v3_like()
    assert (_auto((0, 7, 3), mla), _auto((0, 8, 0), mla)) == (True, False)   # use_mla excluded from 0.8.0
    vlm = replace(llama3_8b(), is_multimodal=True)
    assert (_auto((0, 6, 1), vlm), _auto((0, 6, 2), vlm)) == (True, False)
    mamba = replace(llama3_8b(), linear_attn=LinearAttnSpec())
    assert [_auto(r, mamba) for r in ((0, 5, 3), (0, 5, 4), (0, 6, 2), (0, 6, 3))] == [True, False, False, True]
    assert not _auto((0, 8, 5), speculative=True) and not _auto((0, 8, 5), lora=True)
    assert not _auto((0, 8, 5), replace(llama3_8b(), sliding_window=4096))


def test_rocm_plan_profiles_the_whole_context():
    """MI300X (vendor AMD) on 0.6.6: no auto chunking, the profile takes max_model_len tokens."""
    assert _tokens("0.6.6", gpu=lookup_gpu("MI300X")) == 65536
