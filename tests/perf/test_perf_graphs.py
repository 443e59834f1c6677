"""SGLang's decode CUDA-graph batch sizes (``tpkit.perf.graphs``): the lists per release, read in the wheels (each
boundary pinned on both sides), the padding to the next captured size, no graph above the largest one, and the
padded rows in ``plan_perf`` (they run the GEMMs, not the attention)."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.graphs import graph_padding, sglang_capture_sizes, sglang_graph_batch
from tpkit.perf.runtime import runtime_for

LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)


def spec(ver, max_bs=160, pool=None):
    return set(sglang_capture_sizes(ver, speculative=True, max_bs=max_bs, pool=pool))


def plain(ver, max_bs=160, pool=None):
    return set(sglang_capture_sizes(ver, speculative=False, max_bs=max_bs, pool=pool))


def test_speculation_takes_the_plain_list_up_to_0_4_3_and_1_to_32_in_0_4_4():
    assert spec((0, 4, 3)) == plain((0, 4, 3)) == {1, 2, 4, *range(8, 161, 8)}
    assert 3 not in spec((0, 4, 3)) and 24 in spec((0, 4, 3))
    assert spec((0, 4, 4)) == set(range(1, 33))
    assert plain((0, 4, 4)) == plain((0, 4, 3))


def test_0_4_5_adds_steps_of_16_above_32_and_0_4_7_replaces_them():
    assert 40 not in spec((0, 4, 4)) and 33 not in spec((0, 4, 4))
    assert {40, 56, 72, 152} <= spec((0, 4, 5)) and 48 not in spec((0, 4, 5)) and 9 not in spec((0, 4, 5))
    assert spec((0, 4, 6)) == spec((0, 4, 5))
    assert {40, 48, 56, 80, 160} <= spec((0, 4, 7)) and 72 not in spec((0, 4, 7)) and 64 not in spec((0, 4, 7))
    assert spec((0, 5, 2)) == spec((0, 4, 7))


def test_0_5_3_lists_steps_of_4_and_12_and_0_5_5_adds_64():
    assert 44 not in spec((0, 5, 2), 256) and 12 not in plain((0, 5, 2), 256)
    assert {40, 44, 60, 72, 256} <= spec((0, 5, 3), 256) and 12 in plain((0, 5, 3), 256)
    assert 64 not in spec((0, 5, 4), 256) and 64 in spec((0, 5, 5), 256) and 64 in spec((0, 5, 23), 256)
    assert {272, 288, 512} <= spec((0, 5, 6), 512) and 528 not in spec((0, 5, 6), 512)
    assert {496, 512, 544} <= plain((0, 5, 6), 544) and 500 not in plain((0, 5, 6), 544)


def test_sizes_stop_at_the_graph_max_bs_and_the_request_pool():
    assert max(plain((0, 5, 6), 24)) == 24 and max(spec((0, 5, 6), 256, pool=48)) == 48
    # the pool's size is added when the list goes above it; up to 0.4.6 the size below it too
    assert {49, 50} <= spec((0, 4, 6), pool=50) and max(spec((0, 4, 6), pool=50)) == 50
    assert 50 in spec((0, 4, 7), pool=50) and 49 not in spec((0, 4, 7), pool=50)
    assert spec((0, 4, 4), pool=64) == set(range(1, 33))       # the list stays below the pool: nothing added
    assert max(plain((0, 3, 6), pool=50)) == 48 and {49, 50} <= plain((0, 4, 1), pool=50)   # 0.3.6 adds none


@pytest.mark.parametrize("ver, batch, speculative, padded", [
    ((0, 5, 6), 3, False, 4), ((0, 5, 6), 4, False, 4), ((0, 5, 6), 13, False, 16), ((0, 5, 6), 9, True, 10),
    ((0, 4, 7), 57, True, 80), ((0, 4, 7), 56, True, 56), ((0, 5, 6), 61, True, 64), ((0, 5, 4), 61, True, 72),
])
def test_a_batch_replays_the_next_captured_size(ver, batch, speculative, padded):
    assert sglang_graph_batch(ver, batch, speculative=speculative, max_bs=256, pool=None) == padded


def test_above_the_largest_captured_size_the_pass_runs_without_a_graph():
    assert sglang_graph_batch((0, 4, 4), 33, speculative=True, max_bs=160, pool=64) is None
    assert sglang_graph_batch((0, 4, 4), 32, speculative=True, max_bs=160, pool=64) == 32
    req = PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), batch=40, engine="sglang", spec=EAGLE3,
                      engine_version="0.4.4", max_running_requests=64)
    rt = runtime_for("sglang", "0.4.4", compute_capability=(9, 0), mla=False, topk=1, algorithm="EAGLE3")
    assert graph_padding(req, rt, 40, True, "full") == (0, "eager")
    assert graph_padding(req, rt, 30, True, "full") == (0, "full")       # 0.4.4 captures 1–32: 30 is captured
    assert graph_padding(req, rt, 40, True, "eager") == (0, "eager")
    rt56 = runtime_for("sglang", "0.5.6", compute_capability=(9, 0), mla=False, topk=1, algorithm="EAGLE3")
    assert graph_padding(req, rt56, 9, True, "full") == (1, "full")      # 0.5.6: … 8, 10 …
    assert graph_padding(req, rt56, 40, True, "full") == (0, "full")


def test_vllm_and_dp_attention_are_left_alone():
    req = PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), batch=3, engine="vllm")
    rt = runtime_for("vllm", "0.20.0", compute_capability=(9, 0), mla=False, topk=None, algorithm=None)
    assert graph_padding(req, rt, 3, False, "full") == (0, "full")


def _verify_gemm_us(batch, version="0.4.7", mrr=80):
    r = plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), batch=batch, context=4096, engine="sglang",
                              spec=EAGLE3, engine_version=version, max_running_requests=mrr))
    parts = dict(r.speculative.parts_us)
    return parts["verify"] - parts["verify attention (in verify)"], parts["verify attention (in verify)"]


def test_padded_rows_run_the_gemms_but_not_the_attention():
    # SGLang 0.4.7 speculation captures 56 then 80: 57 requests replay the graph of 80
    gemm57, attn57 = _verify_gemm_us(57)
    gemm80, attn80 = _verify_gemm_us(80)
    gemm56, _ = _verify_gemm_us(56)
    assert gemm57 == pytest.approx(gemm80, rel=1e-9)
    assert gemm56 < gemm57
    assert attn57 < attn80


def test_plain_step_pads_too():
    def step(batch, version):
        r = plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), batch=batch, context=0, engine="sglang",
                                  engine_version=version))
        return r.baseline.step_us
    # 0.5.6 plain list: ... 240, 248, 256: 249 replays 256 (context 0: attention nearly nothing)
    assert step(249, "0.5.6") == pytest.approx(step(256, "0.5.6"), rel=2e-3)
    assert step(249, "0.5.6") > step(248, "0.5.6")


def test_the_assumptions_name_the_padding_and_the_graph_less_pass():
    def notes(batch, version, mrr=None, eager=False):
        r = plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), batch=batch, engine="sglang", spec=EAGLE3,
                                  engine_version=version, max_running_requests=mrr, eager=eager))
        return [a for a in r.assumptions if a.startswith("SGLang CUDA graphs")]
    assert notes(57, "0.4.7", 80) == [
        "SGLang CUDA graphs: plain step of 57 requests: the graph of 64 is replayed (the next captured batch size; "
        "the 7 padded rows run the GEMMs, not the attention)",
        "SGLang CUDA graphs: verify and draft passes of 57 requests: the graph of 80 is replayed (the next captured "
        "batch size; the 23 padded rows run the GEMMs, not the attention)"]
    assert notes(56, "0.4.7", 80) == []
    assert any("above the largest captured batch size, run without a graph" in n for n in notes(40, "0.4.4", 64))
    assert notes(40, "0.4.4", 64, eager=True) == []


def test_from_0_5_10_a_speculative_pass_above_the_graphs_is_left_alone_plain_decoding_still_runs_eagerly():
    # RTX 3090 (24 GB), TP 1: cuda_graph_max_bs 24 in 0.5.5–0.5.19; speculation's cap 48 lets 32 requests run
    req = PerfRequest(model=LLAMA, gpu=lookup_gpu("RTX-3090"), batch=32, engine="sglang", spec=EAGLE3)
    for version, spec_graph in (("0.5.9", "eager"), ("0.5.10", "full")):
        rt = runtime_for("sglang", version, compute_capability=(8, 6), mla=False, topk=1, algorithm="EAGLE3")
        assert graph_padding(req, rt, 32, True, "full") == (0, spec_graph)
        assert graph_padding(req, rt, 32, False, "full") == (0, "eager")
        assert graph_padding(req, rt, 24, True, "full") == (0, "full")


def test_0_4_4_post2_and_post3_capture_odd_sizes_to_31_then_64_and_post4_takes_the_0_4_5_lists():
    """Helper sp14 (2026-12-05): sglang 0.4.4.post2 / post3 ``get_batch_sizes_to_capture`` give speculation 1–8, the
    odd sizes 9–31, then 64, 96, 128, 160 (post1: 1–32); post4 already has 0.4.5's lists, plain included.  The
    pool rule adds the request pool's size, so a 48-request cap runs the 48 graph in post2, none in post1."""
    post = {p: set(sglang_capture_sizes((0, 4, 4), speculative=True, max_bs=160, pool=None, post=p)) for p in range(5)}
    assert post[0] == post[1] == set(range(1, 33))
    assert post[2] == post[3] == {*range(1, 9), *range(9, 32, 2), 64, 96, 128, 160}
    assert post[4] == spec((0, 4, 5))
    assert set(sglang_capture_sizes((0, 4, 4), speculative=False, max_bs=160, pool=None, post=4)) == plain((0, 4, 5))
    assert set(sglang_capture_sizes((0, 4, 4), speculative=False, max_bs=160, pool=None, post=3)) == plain((0, 4, 4))
    assert sglang_graph_batch((0, 4, 4), 24, speculative=True, max_bs=160, pool=None, post=2) == 25
    assert sglang_graph_batch((0, 4, 4), 48, speculative=True, max_bs=160, pool=48, post=2) == 48
    assert sglang_graph_batch((0, 4, 4), 48, speculative=True, max_bs=160, pool=48, post=1) is None


def test_the_post_release_reaches_plan_perf():
    """``graph_padding`` reads the post number from ``--engine-version``: 48 EAGLE requests on 0.4.4.post2 replay a
    graph, on 0.4.4.post1 (1–32 only) they run without one."""
    eagle = SpecSettings(algorithm="EAGLE", num_steps=3, topk=1, num_draft_tokens=4)

    def notes(version):
        r = plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), tp=1, batch=48, context=512, engine="sglang",
                                  spec=eagle, engine_version=version, max_running_requests=48))
        return [a for a in r.assumptions if "without a graph" in a]
    assert notes("0.4.4.post1") and not notes("0.4.4.post2")
