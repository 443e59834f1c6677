"""The draft-step terms measured on the H200 reference (helper draft13, 2026-12-05, issue 13; perf.draft_terms,
docs/benchmarks.md §3.7): the draft vocab's softmax / top-k kernels at their measured rates, the softmax's one-row
floor, and the EAGLE-3 layer's hidden_norm + concat."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan
from tpkit.perf.device import device_rates
from tpkit.perf.draft_terms import EAGLE3_MIDLAYER_EXTRA_KERNELS, eagle3_midlayer_kernels, sampling_bw_fraction
from tpkit.perf.forward import kernel_us
from tpkit.perf.spec import draft_spec, draft_step_kernels, draft_topk_kernels
from tpkit.perf.kernels import Kernel

LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
TREE = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=8, num_draft_tokens=16)
CHAIN = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
H200 = device_rates(lookup_gpu("H200"))


def _times(rows: int, settings=TREE) -> dict:
    head = draft_spec(LLAMA, settings, None)
    return {k.name: kernel_us(k, H200) for k in draft_topk_kernels(head, settings, rows, version=(0, 5, 6))}


def test_the_sampling_kernels_take_the_measured_times_at_512_rows():
    """B 64 × topk 8 over the 32,000-token draft vocab: the medians of the four profiles in
    docs/runs/spec_h200_2026-12-05.json (softmax 58.75 µs, one digit-count pass 34.35, gatherTopK 74.45).  At the
    copy rate (before) they were 33.3, 18.0 and 18.0 µs."""
    t = _times(512)
    assert t["draft softmax"] == pytest.approx(58.75, rel=0.01)
    assert t["draft top-k: radix digit counts"] == pytest.approx(34.35, rel=0.01)
    assert t["draft top-k: gather"] == pytest.approx(74.45, rel=0.01)


def test_the_softmax_of_one_row_has_the_one_block_floor():
    """One row of 32,000 fp32 logits is one block: 10.1–10.6 µs in the B 1 profiles, not the 2.7 µs of a small
    kernel; the floor grows with the row (a 128,256-token vocab: 4× the streaming part)."""
    assert _times(1, CHAIN)["draft softmax"] == pytest.approx(10.15, rel=0.02)
    wide = Kernel(kind="small", name="s", bytes=8.0 * 128256, cta_bytes=8.0 * 128256)
    narrow = Kernel(kind="small", name="s", bytes=8.0 * 32000, cta_bytes=8.0 * 32000)
    assert kernel_us(wide, H200) - 2.65 == pytest.approx(4.008 * (kernel_us(narrow, H200) - 2.65), rel=1e-3)
    # a small kernel without a row floor and at the copy rate is unchanged
    plain = Kernel(kind="small", name="add", bytes=4.272e6)
    assert kernel_us(plain, H200) == pytest.approx(2.65 + 1.0)


def test_bw_fraction_scales_only_the_streaming_part():
    k = Kernel(kind="small", name="x", bytes=4.272e6, bw_fraction=0.5)
    assert kernel_us(k, H200) == pytest.approx(2.65 + 2.0)
    assert sampling_bw_fraction("gather") < sampling_bw_fraction("radix") < sampling_bw_fraction("softmax") < 1
    with pytest.raises(ValueError, match="unknown draft sampling kernel 'argmax'"):
        sampling_bw_fraction("argmax")


def test_eagle3_draft_forward_runs_hidden_norm_and_concat():
    """sglang 0.5.6 / vllm 0.11.0 llama_eagle3.py LlamaDecoderLayer.forward: input_layernorm(embeds),
    hidden_norm(hidden_states), torch.cat: one RMSNorm and one concat more than a plain layer."""
    req = PerfRequest(model=LLAMA, gpu=lookup_gpu("H200"), tp=1, batch=4, context=2048, engine="sglang",
                      spec=TREE, engine_version="0.5.6")
    head = draft_spec(LLAMA, TREE, None)
    extra, _ = draft_step_kernels(req, head, TREE, 4, 8, (0, 5, 6), target_hidden=False, sample_rows=32)
    names = [k.name for k in extra]
    assert [n for n in names if n.startswith("EAGLE3 ")] == list(EAGLE3_MIDLAYER_EXTRA_KERNELS)
    norm, cat = eagle3_midlayer_kernels(head.hidden_size, 32)
    assert norm.bytes == 2 * 2.0 * 32 * head.hidden_size and cat.bytes == 2 * norm.bytes
    # EAGLE(-1/2) heads and MTP layers have no such layer
    e1 = SpecSettings(algorithm="EAGLE", num_steps=3, topk=1, num_draft_tokens=4)
    extra1, _ = draft_step_kernels(req, draft_spec(LLAMA, e1, None), e1, 4, 1, (0, 5, 6), target_hidden=False,
                                   sample_rows=4)
    assert not [k for k in extra1 if k.name.startswith("EAGLE3 ")]


def test_the_h200_draft_step_at_512_rows_is_within_15_percent_of_the_reference():
    """docs/runs/spec_h200_2026-12-05.json: the Llama-3.1-8B head's draft step at B 64 × topk 8 took 1,251 µs
    (perf before: 1,030, −17.7 %); the Qwen3-30B-A3B head's 723 µs (before: 495, −31.5 %)."""
    for model, measured in (("meta-llama/Llama-3.1-8B-Instruct", 1251.0), ("Qwen/Qwen3-30B-A3B", 723.0)):
        req = PerfRequest(model=load_model(model), gpu=lookup_gpu("H200"), tp=1, batch=1, context=2048,
                          engine="sglang", engine_version="0.5.6", impl="reference",
                          spec=SpecSettings(algorithm="EAGLE3", num_steps=1, topk=8, num_draft_tokens=2))
        ctx = plan._context(req)
        s = ctx.req.spec
        us = plan._draft_forward(ctx, s, 64, 8, plan.default_policy(ctx.setup.link), sample_rows=512).total_us
        assert abs(us / measured - 1) <= 0.15, (model, us)
