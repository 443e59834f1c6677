"""vLLM's --speculative-config (drafter weights and KV), --decode-context-parallel-size and
--data-parallel-size / --enable-expert-parallel."""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.speculative import parse_speculative_config
from tpkit.errors import PlanInputError
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import H200, GivenWeights, llama3_8b

DATA = Path(__file__).resolve().parent / "data_vllm_issue11"
EAGLE3_8B = str(DATA / "SpecForge--llama3-8B-eagle3.json")
GRAPHS = "CUDA graphs (estimate)"


def _graphs(plan) -> Bytes:
    return plan.ledger.get(GRAPHS).bytes
W = GivenWeights(Bytes(16 * 2**30))


def _model(stem):
    return from_config_dict(json.loads((DATA / f"{stem}.json").read_text()), name=stem, source=stem)


def _spec(**kw):
    return json.dumps(kw)


@pytest.mark.parametrize("text, message", [
    ("{method: eagle}", "not valid JSON"), ("[1, 2]", "must be a JSON object"),
    (_spec(method="eagle3", model="x", num_speculative_tokens=3, topk=2), "unknown key"),
    (_spec(num_speculative_tokens=3), "needs a method or a model"),
    (_spec(method="eagle3", num_speculative_tokens=3), "needs a draft model"),
    (_spec(method="ngram"), "needs num_speculative_tokens"),
    (_spec(method="medusa", model="x", num_speculative_tokens=2), "not planned by tpkit"),
    (_spec(method="eagle", model="x", num_speculative_tokens=True), "whole number"),
])
def test_bad_speculative_configs_say_what_is_wrong(text, message):
    with pytest.raises(PlanInputError, match=message):
        VllmOptions(speculative_config=text)


def test_method_is_inferred_like_vllm():
    assert parse_speculative_config(_spec(model="yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
                                          num_speculative_tokens=3)).method == "eagle3"
    assert parse_speculative_config(_spec(model="yuhuili/EAGLE-LLaMA3-Instruct-8B",
                                          num_speculative_tokens=3)).method == "eagle"
    assert parse_speculative_config(_spec(model="[ngram]", num_speculative_tokens=3)).method == "ngram"
    assert parse_speculative_config(_spec(method="deepseek_mtp", num_speculative_tokens=1)).method == "mtp"
    assert parse_speculative_config(_spec(model="meta-llama/Llama-3.2-1B", num_speculative_tokens=4)).method \
        == "draft_model"


def test_eagle_drafter_adds_one_kv_layer_as_in_a_real_log():
    """vl_051 (vLLM ~0.9.1, Llama-3.1-8B + EAGLE, H100): 51.63 GiB available → 410,128 tokens, 3.13x, i.e.
    33 × 4,096 B per token (one drafter layer with the target's 8 KV heads × 128)."""
    spec = _spec(method="eagle3", model=EAGLE3_8B, num_speculative_tokens=3)
    r = plan_vllm(llama3_8b(), H200, ParallelSpec(), weights=W,
                  options=VllmOptions(engine_version="0.10.2", kv_cache_memory_bytes=Bytes(int(51.63 * 2**30)),
                                      speculative_config=spec))
    assert r.extra["bytes_per_block"] == 33 * 16 * 4_096
    assert r.kv_tokens == 410_128 and f"{r.max_concurrency:.2f}" == "3.13"
    items = {l.item: l for l in r.ledger.items}
    kv, draft_kv = items["KV cache"].bytes, items["drafter KV cache (eagle3)"].bytes
    assert draft_kv * 32 == kv  # the drafter layer is 1/33 of the pool
    assert r.ledger.check(Bytes(0)) == [] or not r.verdict.fits


def test_drafter_weights_are_in_model_loading_took_and_the_budget():
    spec = _spec(method="eagle3", model=EAGLE3_8B, num_speculative_tokens=3)
    base = plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version="0.33"), weights=W)
    spec_r = plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(speculative_config=spec, engine_version="0.33"),
                       weights=W)
    drafter = spec_r.ledger.get("drafter weights (eagle3)").bytes
    # EAGLE-3 head of Llama-3.1-8B: fc 3·4096→4096, one decoder layer reading 2·4096, 32,000-row lm_head (embedding
    # shared with the target): about 0.42 G parameters in bf16
    assert GiB(0.7) < drafter < GiB(0.9)
    # Model Runner V2 (every model from 0.29) keeps q = 1 + 3 rows per request in its grammar bitmask and draft tokens
    state = "Model Runner V2 request/sampling state"
    grown = spec_r.ledger.get(state).bytes - base.ledger.get(state).bytes
    words = -(-llama3_8b().vocab_size // 32)
    seqs = base.extra["max_num_seqs"]  # 1,024 on an H200
    assert grown.bytes == seqs * 3 * (words + 1) * 4 + seqs * 3 * 8
    # helper cap11: a decode step of 1 + 3 tokens per request rounds Model Runner V2's FULL decode sizes 1, 2, 4 up
    # to one 4-token graph (v1/worker/gpu/cudagraph_utils.py _init_candidates, 0.29.0): 2 FULL graphs fewer
    fewer = _graphs(base) - _graphs(spec_r)
    assert "51 PIECEWISE + 49 FULL" in spec_r.ledger.get(GRAPHS).source and fewer.bytes > 0
    assert base.extra["available_kv_bytes"] - spec_r.extra["available_kv_bytes"] == \
        drafter.bytes + grown.bytes - fewer.bytes
    assert spec_r.ledger.check(Bytes(0)) == []


def test_mtp_drafter_is_one_more_mla_layer_in_the_same_group():
    model = _model("deepseek-ai--DeepSeek-V3")
    opts = dict(kv_cache_memory_bytes=Bytes(5_000_000_000), speculative_config=_spec(method="mtp",
                                                                                       num_speculative_tokens=1),
                engine_version="0.33")  # block 16 (0.34: 64)
    r = plan_vllm(model, H200, ParallelSpec(tp=8), VllmOptions(**opts), weights=W)
    page = 16 * 576 * 2
    assert r.extra["bytes_per_block"] == 62 * page and r.extra["kv_groups"][0]["kind"] == "mla"
    blocks = 5_000_000_000 // (62 * page)
    assert r.ledger.get("drafter KV cache (mtp)").bytes == Bytes(blocks * page)
    assert r.ledger.get("drafter weights (mtp)").bytes > GiB(1)  # an MoE decoder layer + eh_proj, over TP 8


def test_mtp_needs_nextn_layers():
    with pytest.raises(PlanInputError, match="no MTP/nextn layers"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(speculative_config=_spec(method="mtp")), weights=W)


def test_ngram_has_no_drafter_memory():
    base = plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version="0.33"), weights=W)
    ngram = plan_vllm(llama3_8b(), H200, ParallelSpec(), weights=W,
                      options=VllmOptions(speculative_config=_spec(method="ngram", num_speculative_tokens=4),
                                          engine_version="0.33"))
    assert not any("drafter" in l.item for l in ngram.ledger.items)
    state = "Model Runner V2 request/sampling state"  # V2 from 0.29: its per-request rows grow with the 4 tokens
    grown = ngram.ledger.get(state).bytes - base.ledger.get(state).bytes
    # helper cap11: from 0.29 vLLM adds the decode sizes n × 5 (1 + 4 tokens) to its ladder (config/vllm.py
    # _set_cudagraph_sizes): 6 more PIECEWISE graphs
    more = _graphs(ngram) - _graphs(base)
    assert "57 PIECEWISE + 51 FULL" in ngram.ledger.get(GRAPHS).source and grown.bytes > 0 and more.bytes > 0
    assert base.extra["available_kv_bytes"] - ngram.extra["available_kv_bytes"] == grown.bytes + more.bytes


def test_draft_tp_must_be_one_or_the_targets():
    spec = _spec(method="eagle3", model=EAGLE3_8B, num_speculative_tokens=3, draft_tensor_parallel_size=2)
    with pytest.raises(PlanInputError, match="must be 1 or the target's --tp 4"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(tp=4), VllmOptions(speculative_config=spec), weights=W)


def test_dcp_checks():
    with pytest.raises(PlanInputError, match="must divide --tp 8"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(tp=8), VllmOptions(decode_context_parallel_size=3), weights=W)
    with pytest.raises(PlanInputError, match="sliding-window"):
        plan_vllm(_model("openai--gpt-oss-120b"), H200, ParallelSpec(tp=2),
                  VllmOptions(decode_context_parallel_size=2), weights=W)
    with pytest.raises(PlanInputError, match="arrived in 0.10.2"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(tp=2),
                  VllmOptions(decode_context_parallel_size=2, engine_version="0.10.1"), weights=W)


def test_dcp_multiplies_gqa_capacity_by_the_dcp_size():
    kw = dict(kv_cache_memory_bytes=GiB(4), max_model_len=32_768)
    one = plan_vllm(llama3_8b(), H200, ParallelSpec(tp=8), VllmOptions(**kw), weights=W)
    four = plan_vllm(llama3_8b(), H200, ParallelSpec(tp=8), VllmOptions(decode_context_parallel_size=4, **kw),
                     weights=W)
    assert four.extra["kv_blocks"] == one.extra["kv_blocks"]
    assert four.kv_tokens == 4 * one.kv_tokens and four.max_concurrency == pytest.approx(4 * one.max_concurrency)


def test_data_parallel_size_is_dp_and_expert_parallel_spans_tp_times_dp():
    moe = _model("deepseek-ai--DeepSeek-V3")
    r = plan_vllm(moe, H200, ParallelSpec(tp=2), VllmOptions(data_parallel_size=4, enable_expert_parallel=True))
    assert (r.parallel.dp, r.parallel.ep) == (4, 8)
    same = plan_vllm(moe, H200, ParallelSpec(tp=2, dp=4, ep=8), VllmOptions())
    assert r.ledger.get("model weights") == same.ledger.get("model weights")
    dense = plan_vllm(llama3_8b(), H200, ParallelSpec(tp=2), VllmOptions(data_parallel_size=2,
                                                                          enable_expert_parallel=True), weights=W)
    assert (dense.parallel.dp, dense.parallel.ep) == (2, 1)  # no experts: the flag changes nothing


def test_conflicting_dp_flags_are_refused():
    with pytest.raises(PlanInputError, match="disagree"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(dp=2), VllmOptions(data_parallel_size=4), weights=W)
    with pytest.raises(PlanInputError, match="drop --ep"):
        plan_vllm(_model("deepseek-ai--DeepSeek-V3"), H200, ParallelSpec(tp=2, ep=2),
                  VllmOptions(data_parallel_size=2, enable_expert_parallel=True))


def test_machine_profiles_take_dp_from_the_dp_flag():
    gpus = tuple(GpuState(index=i, name="NVIDIA H200", total_bytes=H200.total_bytes, free_bytes=GiB(130),
                          used_by_this_process_bytes=Bytes(0), used_by_others_bytes=H200.total_bytes - GiB(130),
                          compute_capability=(9, 0)) for i in range(2))
    machine = MachineProfile(gpus=gpus)
    with pytest.raises(PlanInputError, match="give the data-parallel size as --dp 2"):
        plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(data_parallel_size=2), machine=machine, weights=W)
