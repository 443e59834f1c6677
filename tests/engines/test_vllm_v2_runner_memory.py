"""Model Runner V2 before the KV sizing (engines/vllm/profile.py, policy.py; vLLM 0.22–0.33 wheels): the request and
sampling state it keeps on the GPU, and its dummy sampler run (no top-k/top-p; a float32 copy in 0.22–0.25; the
warm-up-parameter pass from 0.33), both sides of every boundary; the state is charged from 0.27, when the profile
starts charging the free-memory drop since the init snapshot."""

from dataclasses import replace

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm, resolve_rules
from tpkit.engines.vllm.profile_lines import profile_sampler
from tpkit.engines.vllm.profile import V2_SMALL_STATE_COLUMNS, estimate_profile_peak, v2_runner_state_bytes
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, config_model, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))
STATE = "Model Runner V2 request/sampling state"


def _qwen3_like():
    return replace(llama3_8b(), architecture="Qwen3ForCausalLM")


def _plan(version, model=None, **kw):
    return plan_vllm(model or _qwen3_like(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw),
                     weights=W)


def _line(plan, item):
    return next((l for l in plan.ledger.items if l.item == item), None)


def test_state_bytes_formula_qwen3_8b_defaults():
    # vp_017's flags: R 256, V 151,936, T 2,048, no speculation
    nbytes, how = v2_runner_state_bytes(vocab_size=151_936, max_num_seqs=256, max_num_batched_tokens=2048)
    words = -(-151_936 // 32)
    expected = (256 * 151_936 * 4 + 256 * words * 4 + 256 * (words + 1) * 4 + 256 * V2_SMALL_STATE_COLUMNS * 4
                + 2048 * 13 + 256 * 12 + 256 * 20)
    assert nbytes == Bytes(expected) == Bytes(169_930_752)
    assert "output_bin_counts" in how and V2_SMALL_STATE_COLUMNS == 4_481


def test_state_grows_with_speculative_tokens():
    base, _ = v2_runner_state_bytes(vocab_size=128_256, max_num_seqs=256, max_num_batched_tokens=8192)
    spec, _ = v2_runner_state_bytes(vocab_size=128_256, max_num_seqs=256, max_num_batched_tokens=8192,
                                    spec_tokens=3)
    words = -(-128_256 // 32)
    assert spec - base == Bytes(256 * 3 * (words + 1) * 4 + 256 * 8 * 3)  # grammar bitmask rows + draft tokens


@pytest.mark.parametrize("version, expected", [
    ("0.25.0", "fp32_copy"), ("0.25.1", "fp32_copy"), ("0.26.0", "greedy"), ("0.32.0", "greedy"),
    ("0.33.0", "warmup_params")])
def test_v2_dummy_sampler_rule_per_release(version, expected):
    assert resolve_rules(version).v2_dummy_sampler == expected


@pytest.mark.parametrize("version, v2, expected", [
    ("0.22.0", True, "v2_fp32"), ("0.25.0", True, "v2_fp32"), ("0.26.0", True, "v2_greedy"),
    ("0.32.0", True, "v2_greedy"), ("0.33.0", True, "flashinfer"), ("0.27.1", False, "triton")])
def test_profile_sampler_on_the_v2_runner(version, v2, expected):
    assert profile_sampler(resolve_rules(version), (8, 9), v2_runner=v2) == expected


def test_v2_sampler_phase_bytes():
    model = _qwen3_like()
    rows, tokens, a = 256, 2048, 2
    hidden = tokens * model.hidden_size * a
    greedy = estimate_profile_peak(model, ParallelSpec(), tokens=tokens, rows=rows, act_bytes=a, sampler="v2_greedy")
    fp32 = estimate_profile_peak(model, ParallelSpec(), tokens=tokens, rows=rows, act_bytes=a, sampler="v2_fp32")
    phase = {p.item: p.bytes for p in greedy.parts}["profile phase: logits + sampler"]
    assert phase == Bytes(hidden + rows * model.vocab_size * a)
    phase = {p.item: p.bytes for p in fp32.parts}["profile phase: logits + sampler"]
    assert phase == Bytes(hidden + rows * model.vocab_size * (a + 4))


def test_state_line_only_on_v2_runs():
    assert _line(_plan("0.21.0"), STATE) is None            # V1 (V2 not a default before 0.22)
    line = _line(_plan("0.27.0"), STATE)                    # Qwen3 on V2, "total consumed" accounting
    assert line is not None and line.bytes.bytes > 0 and "PenaltiesState" in line.source
    gemma = replace(llama3_8b(), architecture="Gemma3ForCausalLM")
    assert _line(_plan("0.24.0", gemma), STATE) is None     # V1 until 0.25
    assert _line(_plan("0.27.0", gemma), STATE) is not None


@pytest.mark.parametrize("version, charged", [("0.22.0", False), ("0.26.0", False), ("0.27.0", True),
                                              ("0.27.1", True), ("0.28.0", True)])
def test_state_charged_only_from_0_27(version, charged):
    # 0.22-0.26: non-KV = load delta + torch peak increase over the profile (from the allocation level at its
    # start, state included) + non-torch increase; 0.27.0 adds utils/mem_utils.py "total_consumed" (free-memory drop
    # since the init snapshot), which holds the state made before the profile
    assert resolve_rules(version).memory_rule == ("consumed" if charged else "increase")
    assert (_line(_plan(version), STATE) is not None) is charged


def test_state_boundary_moves_the_available_kv_by_the_state():
    # Qwen3 on V2 both sides (no CUDA-graph estimate on V2 before 0.29): 0.26.0 → 0.27.0 lowers the KV by the state
    p26, p27 = _plan("0.26.0"), _plan("0.27.0")
    act = "activation peak (profile run, estimate)"
    assert _line(p26, act).bytes == _line(p27, act).bytes
    assert p26.extra["cuda_graph_bytes"] == p27.extra["cuda_graph_bytes"] == 0
    diff = p26.extra["available_kv_bytes"] - p27.extra["available_kv_bytes"]
    assert diff == _line(p27, STATE).bytes.bytes


def test_moe_model_gets_the_state_only_from_0_29():
    moe = config_model("Qwen--Qwen3-235B-A22B-FP8")       # Qwen3MoeForCausalLM, never listed before 0.29
    kw = dict(weights=GivenWeights(Bytes(1)))
    p28 = plan_vllm(moe, H200, ParallelSpec(tp=8), VllmOptions(engine_version="0.28.0"), **kw)
    p29 = plan_vllm(moe, H200, ParallelSpec(tp=8), VllmOptions(engine_version="0.29.0"), **kw)
    assert _line(p28, STATE) is None and _line(p29, STATE) is not None


def test_state_lowers_the_available_kv_by_its_bytes():
    # 0.24 (V1) → 0.25 (V2) for a Gemma 3: the activation and the CUDA-graph estimate (0 on V2) move; the state is
    # not charged before 0.27 (test_state_charged_only_from_0_27)
    v1 = _plan("0.24.0", replace(llama3_8b(), architecture="Gemma3ForCausalLM"))
    v2 = _plan("0.25.0", replace(llama3_8b(), architecture="Gemma3ForCausalLM"))
    assert _line(v2, STATE) is None
    act = {l.item: l.bytes for l in v2.ledger.items}["activation peak (profile run, estimate)"]
    act1 = {l.item: l.bytes for l in v1.ledger.items}["activation peak (profile run, estimate)"]
    diff = v1.extra["available_kv_bytes"] - v2.extra["available_kv_bytes"]
    graphs1 = v1.extra["cuda_graph_bytes"]
    assert v2.extra["cuda_graph_bytes"] == 0 and graphs1 > 0
    assert diff == act.bytes - act1.bytes - graphs1


def test_profile_sampler_boundaries_in_the_plan():
    def sampler_phase(version):
        parts = {l.item: l for l in _plan(version).ledger.items}
        return parts["(profile phase: logits + sampler)"] if "(profile phase: logits + sampler)" in parts else \
            next(l for l in _plan(version).ledger.items if "logits + sampler" in l.item)

    assert "float32 copy" in sampler_phase("0.25.0").source
    assert "float32 copy" not in sampler_phase("0.26.0").source and "greedy" in sampler_phase("0.26.0").source
    assert "greedy" in sampler_phase("0.32.0").source
    assert "greedy" not in sampler_phase("0.33.0").source   # the warm-up-parameter pass: V1's estimate


VH = "profile phase: cold compile scratch ≈ vocab × hidden"


@pytest.mark.parametrize("version, on", [("0.22.0", True), ("0.23.0", True), ("0.25.0", True), ("0.26.0", True),
                                         ("0.27.1", True), ("0.32.0", True), ("0.33.0", False)])
def test_vocab_hidden_floor_per_release(version, on):
    # cold torch.compile scratch (vLLM issue #54122), sized from printed first starts
    # (profile.V2_VOCAB_HIDDEN_EVIDENCE): V2 runs of 0.22-0.32 (from 0.22 since helper mv26: the 0.22.0 / 0.23.0
    # V2 profile_run calls the compiled model; vp_533)
    assert resolve_rules(version).v2_vocab_hidden_peak is on
    assert (_line(_plan(version), VH) is not None) is on


def test_vocab_hidden_floor_v2_boundary_at_0_22():
    """Both sides of the V2 rule's first release: 0.21.0 has no V2 phase (a V2 run there, VLLM_USE_V2_MODEL_RUNNER=1,
    charges none), 0.22.0 has it (a Qwen3 V2 run by default: cold charges it, warm drops it)."""
    assert resolve_rules("0.21.0").v2_vocab_hidden_peak is False
    assert resolve_rules("0.22.0").v2_vocab_hidden_peak is True
    assert _line(_plan("0.21.0", vllm_use_v2_model_runner="1"), VH) is None
    cold, warm = _plan("0.22.0"), _plan("0.22.0", compile_cache="warm")
    assert _line(cold, VH) is not None and _line(warm, VH) is None
    assert warm.kv_tokens > cold.kv_tokens


def test_vocab_hidden_floor_on_v2_runs_and_v1_runs_from_0_11_1():
    """V2 runs of 0.22–0.32 (v2_vocab_hidden_peak); V1-runner runs of 0.11.1–0.32 (v1_vocab_hidden_peak, helper gem4:
    the AOT compile on by default once vLLM pins torch 2.10; vl_330 / vl_331 cold vs warm on 0.23.0 V1).  Helper
    v11b: from 0.11.1 (torch 2.9 pin: Inductor combo kernels with benchmark_combo_kernel, config/compilation.py)."""
    gemma = replace(llama3_8b(), architecture="Gemma3ForCausalLM")   # V1 until 0.25, V2 from 0.25
    moe = config_model("Qwen--Qwen3-235B-A22B-FP8")                  # MoE: V1 before 0.29

    def moe_plan(version):
        return plan_vllm(moe, H200, ParallelSpec(tp=8), VllmOptions(engine_version=version),
                         weights=GivenWeights(Bytes(1)))

    assert _line(_plan("0.26.0", gemma), VH) is not None
    assert _line(moe_plan("0.28.0"), VH) is not None and _line(moe_plan("0.29.0"), VH) is not None
    assert [resolve_rules(v).v1_vocab_hidden_peak for v in ("0.11.0", "0.11.1", "0.16.0", "0.17.0", "0.32.0",
                                                            "0.33.0")] == [False, True, True, True, True, False]
    assert _line(_plan("0.11.0", gemma), VH) is None and _line(_plan("0.11.1", gemma), VH) is not None
    assert _line(_plan("0.17.0", gemma, compile_cache="warm"), VH) is None
    assert _line(_plan("0.23.0", gemma, enforce_eager=True), VH) is None


def test_vocab_hidden_floor_bytes_and_limit():
    # Qwen3-8B-like at vp_017's flags (T 2,048, R 256): V × H × 2 B = 1.16 GiB is the peak; per rank at tp 2
    model = _qwen3_like()
    p = _plan("0.27.1", model, max_num_batched_tokens=2048, max_num_seqs=256)
    vh = _line(p, VH)
    assert vh.bytes == Bytes(model.vocab_size * model.hidden_size * 2)
    act = _line(p, "activation peak (profile run, estimate)")
    assert "vocab × hidden" in act.source
    tp2 = plan_vllm(model, H200, ParallelSpec(tp=2), VllmOptions(engine_version="0.27.1"), weights=W)
    assert _line(tp2, VH).bytes == Bytes(-(-model.vocab_size // 2) * model.hidden_size * 2)
    # at a large batch the MLP phase stays the peak (vp_101's 0.26.0 run: T 32,768)
    big = _plan("0.26.0", model, max_num_batched_tokens=32768)
    assert "vocab × hidden" not in _line(big, "activation peak (profile run, estimate)").source


@pytest.mark.parametrize("version", ["0.26.0", "0.27.1", "0.30.0", "0.32.0"])
def test_vocab_hidden_floor_not_with_enforce_eager(version):
    # --enforce-eager sets compilation mode NONE (config/vllm.py, 0.25.1 / 0.27.1 wheels): no compile in the window
    assert _line(_plan(version), VH) is not None
    eager = _plan(version, enforce_eager=True)
    assert _line(eager, VH) is None
    assert "vocab × hidden" not in _line(eager, "activation peak (profile run, estimate)").source
