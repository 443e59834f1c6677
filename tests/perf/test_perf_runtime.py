"""Engine facts by version / GPU / backend (tpkit.perf.runtime) and what each one costs in plan_perf."""

import pytest

from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.constants import C
from tpkit.perf.runtime import NEWEST, parse_version, runtime_for

KIMI = load_model("moonshotai/Kimi-K2.5")
LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
SM120, SM90, SM100 = (12, 0), (9, 0), (10, 0)


def rt(engine, version, cc=SM90, mla=False, topk=1, algorithm="EAGLE3", **kw):
    return runtime_for(engine, version, compute_capability=cc, mla=mla, topk=topk, algorithm=algorithm, **kw)


# ------------------------------------------------------------------------------------------------ facts
@pytest.mark.parametrize("version, topk, overlap", [
    ("0.4.6", 1, False), ("0.5.10", 1, False), ("0.5.11", 1, True), ("0.5.12", 4, False), ("0.5.13", 4, True),
    (None, 8, True),
])
def test_sglang_overlaps_speculation_from_spec_v2(version, topk, overlap):
    r = rt("sglang", version, topk=topk)
    assert r.spec_overlap is overlap and r.plain_overlap


def test_sglang_attention_backend_and_verify_kernel_by_gpu():
    assert rt("sglang", None, SM120, mla=True).attention_backend == "triton"
    assert not rt("sglang", None, SM120, mla=True).verify_split_kv
    assert rt("sglang", None, SM90, mla=True).attention_backend == "fa3"
    assert rt("sglang", None, SM100, mla=True).attention_backend == "flashinfer"
    assert rt("sglang", None, SM90, topk=4).attention_backend == "flashinfer"   # fa3 only for topk 1
    assert rt("sglang", None, SM120, mla=True, attention_backend="flashinfer").verify_split_kv
    assert rt("sglang", "0.4.6").extend_graph == "eager" and rt("sglang", "0.4.7").extend_graph == "full"


@pytest.mark.parametrize("version, plain, verify, prefill", [
    ("0.21.0", "piecewise", "piecewise", True), ("0.22.0", "full", "piecewise", True),
    ("0.30.0", "full", "piecewise", True), ("0.31.0", "full", "full", False),
])
def test_vllm_triton_mla_on_sm120_by_version(version, plain, verify, prefill):
    r = rt("vllm", version, SM120, mla=True)
    assert r.attention_backend == "TRITON_MLA"
    assert (r.target_graph, r.verify_graph, r.verify_mla_prefill) == (plain, verify, prefill)
    assert rt("vllm", version, SM90, mla=True).attention_backend == "FLASH_ATTN_MLA"
    assert not rt("vllm", version, SM90, mla=True).verify_mla_prefill


def test_vllm_async_scheduling_and_draft_graphs_by_version():
    assert not rt("vllm", "0.13.0").spec_overlap and rt("vllm", "0.14.0").spec_overlap
    assert not rt("vllm", "0.20.0", algorithm="STANDALONE").spec_overlap
    assert rt("vllm", "0.8.5").draft_graph == "eager" and rt("vllm", "0.9.0").draft_graph == "piecewise"
    assert rt("vllm", "0.11.1").draft_graph == "piecewise" and rt("vllm", "0.11.1").target_graph == "full"
    assert rt("vllm", None, eager=True).verify_graph == "eager"


def test_versions_and_backends_are_checked():
    assert parse_version(None, "sglang") == (NEWEST["sglang"], False)
    assert parse_version("v0.5.10.post1", "sglang") == ((0, 5, 10), True)
    with pytest.raises(PlanInputError, match="not a version"):
        parse_version("latest", "vllm")
    with pytest.raises(PlanInputError, match="not a sglang attention backend"):
        rt("sglang", None, attention_backend="TRITON_MLA")
    with pytest.raises(PlanInputError, match="no MLA"):
        rt("vllm", None, attention_backend="TRITON_MLA")


# ------------------------------------------------------------------------------------------------ costs
def kimi(gpu="RTX-PRO-6000", **kw):
    args = dict(model=KIMI, gpu=lookup_gpu(gpu), tp=8, context=2048, spec=EAGLE3) | kw
    return plan_perf(PerfRequest(**args))


def test_sglang_spec_v1_pays_the_host_work_of_every_cycle():
    old, new = kimi(engine_version="0.5.10", accept_length=2.0), kimi(engine_version="0.5.13", accept_length=2.0)
    assert old.baseline.step_us == new.baseline.step_us        # plain decoding overlaps in both
    parts = dict(old.speculative.parts_us)
    assert parts["host not overlapped (in overhead)"] == C["sglang_spec_v1_host_us"].value
    # v2 still pays its exposed share (spec_host_fraction); v1 pays the whole host time on top of the GPU
    assert old.speculative.cycle_us > new.speculative.cycle_us + 0.3 * C["sglang_spec_v1_host_us"].value
    assert "spec v1" in old.verdict.message and "sglang 0.5.23" in old.verdict.message   # the what-if


def test_a_verify_kernel_without_kv_split_grows_with_context_on_sm120():
    def verify_ms(ctx, **kw):
        return dict(kimi(context=ctx, accept_length=2.0, **kw).speculative.parts_us)["verify"] / 1e3

    triton = verify_ms(30000) - verify_ms(1024)
    split = verify_ms(30000, attention_backend="flashinfer") - verify_ms(1024, attention_backend="flashinfer")
    assert triton > 3 * split > 0
    long = kimi(context=30000, accept_length=2.0)
    assert long.speculative.speedup < 1.0 < kimi(context=1024, accept_length=2.0).speculative.speedup
    assert "--attention-backend flashinfer" in long.verdict.message


def test_vllm_triton_mla_before_0_31_verifies_through_the_prefill_path():
    old = kimi(engine="vllm", engine_version="0.21.0", context=30000, accept_length=2.28)
    new = kimi(engine="vllm", context=30000, accept_length=2.28)
    assert old.speculative.speedup < 1.0 < new.speculative.speedup
    assert old.inputs["runtime"]["verify_attention"] == "mla_prefill"
    assert old.inputs["runtime"]["graphs"]["plain"] == "piecewise"
    assert "prefill path" in old.verdict.message and "vllm 0.34.0" in old.verdict.message


def test_eager_mode_makes_a_small_model_launch_bound():
    def step(**kw):
        return plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), **kw)).baseline
    graph, eager = step(), step(eager=True)
    assert eager.step_us > 1.1 * graph.step_us                  # published: 8.4 ms eager vs 5.1 ms in a graph
    r = plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), eager=True))
    assert r.breakdown["baseline"]["host_launch_us"] == pytest.approx(eager.step_us)


def test_the_eager_vllm_proposer_costs_every_draft_step():
    def cycle(version):
        return plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), engine="vllm", engine_version=version,
                                     spec=SpecSettings(algorithm="EAGLE3", num_steps=2, topk=1, num_draft_tokens=3),
                                     accept_length=2.21)).speculative
    # an EAGLE-3 step (one layer, 32k-row head) is shorter on the GPU than launching its ~20 kernels from Python
    assert dict(cycle("0.8.5").parts_us)["draft steps"] > 1.1 * dict(cycle("0.11.1").parts_us)["draft steps"]


# ------------------------------------------------------------------------------------------------ drafter graphs
@pytest.mark.parametrize("version, draft", [
    ("0.8.5", "eager"), ("0.9.0", "piecewise"), ("0.10.0", "piecewise"),     # piecewise backend captures by size
    ("0.10.1", "eager"), ("0.11.0", "eager"),                                 # dispatcher, no runtime mode passed
    ("0.11.1", "piecewise"), ("0.14.1", "piecewise"), ("0.21.0", "piecewise"), ("0.28.0", "piecewise"),
])
def test_vllm_v1_runner_drafter_never_gets_full_graphs(version, draft):
    """V1 model runner (an MoE architecture vLLM does not list for Model Runner V2 up to 0.28): the drafter is
    eager, piecewise, eager again after the CUDA-graph dispatcher, then PIECEWISE only while the target runs FULL
    graphs from 0.11."""
    for algorithm in ("EAGLE", "EAGLE3", "NEXTN"):
        r = rt("vllm", version, algorithm=algorithm, architecture="Qwen3MoeForCausalLM", moe=True)
        assert (r.draft_graph, r.extend_graph) == (draft, draft)
        assert r.target_graph == ("full" if parse_version(version, "vllm")[0] >= (0, 11, 0) else "piecewise")
    assert rt("vllm", "0.30.0", algorithm="STANDALONE").draft_graph == "piecewise"   # draft_model: V1 before 0.31


@pytest.mark.parametrize("version, arch, moe, quantized, hybrid, draft", [
    ("0.21.0", "Qwen3ForCausalLM", False, False, False, "piecewise"),   # V2 opt-in only
    ("0.22.0", "Qwen3ForCausalLM", False, False, False, "full"),
    ("0.22.0", "Qwen3ForCausalLM", False, True, False, "piecewise"),    # quantised → V1 (0.22–0.23)
    ("0.22.0", "LlamaForCausalLM", False, False, False, "piecewise"),
    ("0.23.0", "LlamaForCausalLM", False, False, False, "full"),
    ("0.23.0", "LlamaForCausalLM", False, True, False, "piecewise"),
    ("0.24.0", "LlamaForCausalLM", False, True, False, "full"),         # 0.24: the list alone decides
    ("0.24.0", "GemmaForCausalLM", False, False, False, "piecewise"),
    ("0.25.0", "GemmaForCausalLM", False, False, False, "full"),        # from 0.25 every non-MoE model
    ("0.25.1", "Qwen3MoeForCausalLM", True, True, False, "piecewise"),  # llmkube1423's model: V1
    ("0.25.0", "DeepseekV2ForCausalLM", True, False, False, "full"),
    ("0.26.0", "Qwen2MoeForCausalLM", True, False, True, "piecewise"),  # hybrid → V1 (0.25–0.26)
    ("0.27.1", "Qwen2MoeForCausalLM", True, False, True, "full"),       # hybrid allowed when listed from 0.27
    ("0.28.0", "GemmaForCausalLM", False, False, True, "piecewise"),
    ("0.28.0", "KimiK25ForConditionalGeneration", True, False, False, "piecewise"),
    ("0.29.0", "KimiK25ForConditionalGeneration", True, False, False, "full"),   # every model from 0.29
    (None, "Qwen3MoeForCausalLM", True, True, True, "full"),
])
def test_vllm_model_runner_v2_default_gives_the_drafter_full_graphs(version, arch, moe, quantized, hybrid, draft):
    r = rt("vllm", version, architecture=arch, moe=moe, quantized=quantized, hybrid=hybrid)
    assert (r.draft_graph, r.extend_graph) == (draft, draft)
    # draft_model: V1 before 0.31 whatever the model; V2 without graphs 0.31–0.33, FULL from 0.34 (helper perf17)
    assert rt("vllm", version, algorithm="STANDALONE", architecture=arch, moe=moe, quantized=quantized,
              hybrid=hybrid).draft_graph == ("full" if version is None else "piecewise")


def test_vllm_v2_drafter_without_full_target_graphs_runs_eagerly():
    from tpkit.perf.runtime_vllm import _vllm_draft_graph
    assert _vllm_draft_graph((0, 29, 0), "piecewise", True) == "eager"
    assert _vllm_draft_graph((0, 29, 0), "full", True) == "full"
    assert _vllm_draft_graph((0, 29, 0), "full", False) == "piecewise"


@pytest.mark.parametrize("before, after", [("0.10.1", "0.10.0"), ("0.11.0", "0.11.1")])
def test_the_graphless_drafter_of_0_10_1_to_0_11_0_costs_more_than_piecewise(before, after):
    """Same proposer loop (15 ops) on both sides; only the drafter's graph differs: a small EAGLE-3 step launched
    kernel by kernel waits longer for Python than one replaying graph pieces."""
    eager, piecewise = dict(llama_vllm(before, "EAGLE3").parts_us), dict(llama_vllm(after, "EAGLE3").parts_us)
    assert eager["draft steps"] > 1.1 * piecewise["draft steps"]


# ------------------------------------------------------------------------------------------------ proposer loop
@pytest.mark.parametrize("version, loop, eager_logits", [
    ("0.8.4", 7, True), ("0.8.5", 11, True), ("0.9.0", 15, True), ("0.9.2", 15, True), ("0.17.1", 15, True),
    ("0.18.0", 4, True), ("0.24.0", 4, True), ("0.28.0", 0, False), ("0.29.0", 0, False), (None, 0, False),
])
def test_vllm_proposer_loop_launches_by_version(version, loop, eager_logits):
    """v1/spec_decode/eagle.py propose loop: 7 ops (0.8.3/0.8.4), 11 (0.8.5), 15 (0.9.0–0.17.x); from 0.18.0 the
    fused eagle_step_update_slot_mapping_and_metadata + the int cast + two buffer copies (4), with the draft's
    lm_head / argmax still launched from Python (helper sp34b; before it 0.18+ was taken as free).  An unknown
    architecture (no MoE) runs Model Runner V2 from 0.25 (``_vllm_runner_v2_default``): no V1 loop there."""
    r = rt("vllm", version)
    assert (r.draft_loop_kernels, r.draft_logits_eager) == (loop, eager_logits)
    assert rt("vllm", version, algorithm=None).draft_loop_kernels == 0
    assert rt("sglang", None).draft_loop_kernels == 0 and not rt("sglang", None).draft_logits_eager


def test_the_eagle3_vocab_remap_is_four_small_kernels_only_for_a_reduced_draft_vocab():
    from tpkit.perf.spec import draft_spec, vocab_remap_kernels
    e3 = SpecSettings(algorithm="EAGLE3", num_steps=2, topk=1, num_draft_tokens=3)
    e1 = SpecSettings(algorithm="EAGLE", num_steps=2, topk=1, num_draft_tokens=3)
    head = draft_spec(LLAMA, e3, None)
    assert head.vocab_size == 32000 < LLAMA.vocab_size
    remap = vocab_remap_kernels(LLAMA, head, e3, 1)
    assert [k.kind for k in remap] == ["small"] * 4
    full = [k for k in remap if "new_full" in k.name]
    assert len(full) == 1 and full[0].bytes == pytest.approx(2.0 * LLAMA.vocab_size)   # bf16 row of the target vocab
    assert vocab_remap_kernels(LLAMA, draft_spec(LLAMA, e1, None), e1, 1) == []
    assert vocab_remap_kernels(LLAMA, LLAMA, e3, 1) == []                          # full-vocab head: no remap


def llama_vllm(version, algorithm, steps=7):
    return plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), engine="vllm", engine_version=version,
                                 context=512, accept_length=2.5,
                                 spec=SpecSettings(algorithm=algorithm, num_steps=steps, topk=1,
                                                   num_draft_tokens=steps + 1))).speculative


def test_a_small_eagle3_step_waits_for_the_proposer_launches_before_0_18():
    """vLLM 0.9.2 (issue #20780's rows): an EAGLE-3 step (one layer, 32k-row head) is shorter on the GPU than the
    proposer's Python launches, an EAGLE-1 step (128k-row target head) is not; from 0.18 the loop is fused (4 ops).
    Helper be11 (2026-12-05): from 0.11.1 the launches are issued while the GPU runs the verify (no blocking CPU
    operation before the drafter, ``runtime_vllm.DRAFTER_QUEUED``), so 0.17.0's steps no longer wait; 0.11.0's do."""
    per = C["eager_kernel_host_us"].value
    old, new = llama_vllm("0.9.2", "EAGLE3"), llama_vllm("0.18.0", "EAGLE3")
    old_parts, new_parts = dict(old.parts_us), dict(new.parts_us)
    assert old_parts["draft launch-bound (in steps)"] > 6 * 100.0          # > 100 µs on each of the 6 loop steps
    assert new_parts["draft launch-bound (in steps)"] == 0.0
    # the six loop steps each pay the 15 bookkeeping ops + lm_head, argmax and the 4 remap kernels at least
    assert old_parts["draft steps"] > 6 * (15 + 2 + 4) * per
    assert dict(llama_vllm("0.9.2", "EAGLE").parts_us)["draft launch-bound (in steps)"] == 0.0
    assert dict(llama_vllm("0.11.0", "EAGLE3").parts_us)["draft launch-bound (in steps)"] > 0.0
    assert dict(llama_vllm("0.17.0", "EAGLE3").parts_us)["draft launch-bound (in steps)"] == pytest.approx(0.0,
                                                                                                     abs=1e-6)


@pytest.mark.parametrize("version, skips", [("0.4.2", False), ("0.4.3", True), ("0.5.10", True), (None, True)])
def test_sglang_draft_loop_skips_its_last_forward_from_0_4_3(version, skips):
    """eagle_worker ``draft_forward``: "We don't need to run the last forward" (0.4.3 on; 0.4.2.post4 runs every
    step): the cycle holds num_steps − 1 draft forwards; vLLM's proposer runs num_steps."""
    assert rt("sglang", version).draft_skips_last_forward is skips
    assert not rt("vllm", None).draft_skips_last_forward
    three = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)
    five = SpecSettings(algorithm="EAGLE3", num_steps=5, topk=1, num_draft_tokens=6)
    a = dict(kimi(gpu="H200", spec=three, engine_version=version, accept_length=2.0).speculative.parts_us)
    b = dict(kimi(gpu="H200", spec=five, engine_version=version, accept_length=2.0).speculative.parts_us)
    per_step = (b["draft steps"] - a["draft steps"]) / 2      # the step's shape does not depend on num_steps
    assert a["draft steps"] == pytest.approx(per_step * (2 if skips else 3), rel=1e-9)


def test_perf_reads_versions_as_its_old_pattern_did_through_the_engines_reader():
    """``parse_version`` reads through ``tpkit.engines.release_tuple`` (helper lf20, 2026-12-06, session 20; it had
    its own pattern).  Over random texts of version-like characters it agrees with that pattern on every text but
    one kind: a line break right after the number with more text behind it (``'0.5.10\\nx'``), which the old pattern
    read as 0.5.10 and the engines (and so ``tpkit perf``'s own option check) refuse."""
    import random
    import re

    old = re.compile(r"^[vV]?(\d+)\.(\d+)(?:\.(\d+))?(?:\D.*)?$")

    def before(text):
        m = old.match(text.strip())
        return None if m is None else (int(m[1]), int(m[2]), int(m[3] or 0))

    def now(text):
        try:
            return parse_version(text, "sglang")[0]
        except PlanInputError as exc:
            assert "not a version" in str(exc) or "are not modelled" in str(exc)
            return None

    rng = random.Random(20)
    texts = ["0.5.10", " v0.21.0 ", "V0.5.10", "0.5.10.post1", "0.5.0rc0", "0.10.1.dev101+gbda9d0535", "0.11",
             "0.5.", "latest", "v 0.5.10", "vv0.5.1", "0.5.10\n", "\t0.5.10x\n", "0.5.10\nx\ny", "1.2.3.4"]
    texts += ["".join(rng.choice("0159.vV \nrcpost-+x") for _ in range(rng.randint(1, 9))) for _ in range(20_000)]
    differ = []
    for text in texts:
        want = before(text)
        if want is not None and want < (0, 2, 15):
            want = None  # older than SGLang's oldest modelled release: refused after the reading, as before
        if now(text) != want:
            differ.append(text)
    assert now("V0.5.10") == (0, 5, 10) and now(" 0.5.10.post1\n") == (0, 5, 10) and now("0.5.10\nx") is None
    assert differ and all(re.fullmatch(r"[vV]?\d+\.\d+(\.\d+)?\n[^\n]*", t.strip()) for t in differ), differ[:5]
