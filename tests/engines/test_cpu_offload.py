"""``--cpu-offload-gb`` (``tpkit.engines.offload``): the engines' offload rule hand-computed on Llama-3.1-8B, its effect
on each engine's weights line, and the release boundaries read in the wheels:

    vLLM    ≤ 0.8.2 (and any V0 run): the wrapped forward copies an offloaded layer to the GPU → a profile-peak line
            (0.7.x's opt-in V1 ignores the flag: nothing offloaded, every weight on the GPU);
            0.8.0–0.8.2 fall back to V0 for this flag; 0.8.3+ V1 reads the parameters through UVA → no copy line
    SGLang  every release copies per forward, after the pool (no term in the budget); 0.5.10–0.5.14 turn torch.compile
            piecewise prefill graphs off (their reserve term leaves the default fraction); 0.5.15+ (breakable) and
            ≤ 0.5.9 do not; the flag exists from 0.4.0 (absent in 0.3.6) and is a whole number

Llama-3.1-8B per decoder layer, bf16, tp 1, in the engines' parameter order (hand-computed):
    qkv_proj (4096 + 2 × 1024) × 4096 × 2 B =  50,331,648
    o_proj    4096 × 4096 × 2 B             =  33,554,432
    gate_up   2 × 14336 × 4096 × 2 B        = 234,881,024
    down      14336 × 4096 × 2 B            = 117,440,512
    2 norms   2 × 4096 × 2 B                =      16,384
    layer                                   = 436,224,000
Cap 1 GiB = 1,073,741,824: layers 0 and 1 whole (872,448,000 < cap), then layer 2's qkv (922,779,648), o
(956,334,080), gate_up (1,191,215,104 ≥ cap: the check is before each parameter, so this one still moves): 1,191,215,104
offloaded; the largest per-layer copy is a whole layer, 436,224,000.
"""

import pytest

from tpkit.engines.offload import plan_offload
from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.load import load_usage
from tpkit.engines.sglang.budget import kv_budget
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

import sglang_fixtures as sgf
from vllm_fixtures import H200, llama3_8b as v_llama3_8b

LAYER = 50_331_648 + 33_554_432 + 234_881_024 + 117_440_512 + 16_384
OFFLOADED_1GIB = 2 * LAYER + 50_331_648 + 33_554_432 + 234_881_024
COPY = "CPU-offload layer copy (profile run)"


def test_rule_hand_computed():
    off = plan_offload(sgf.llama3_8b(), ParallelSpec(), 1, dtype="bfloat16")
    assert LAYER == 436_224_000 and OFFLOADED_1GIB == 1_191_215_104
    assert off.asked == Bytes(2**30)
    assert off.offloaded == Bytes(OFFLOADED_1GIB)
    assert off.layers_whole == 2 and off.layers_total == 32
    assert off.largest_layer == Bytes(LAYER)
    assert off.eligible == Bytes(32 * LAYER) and not off.capped
    # tp 2: q/o/MLP halve, 8 KV heads split to 4 — (2048 + 2 × 512) × 4096 + 4096 × 2048 + 2 × 7168 × 4096
    # + 7168 × 4096 elements × 2 B + 16,384 B of norms
    half = ((2048 + 1024) * 4096 + 4096 * 2048 + 3 * 7168 * 4096) * 2 + 16_384
    assert plan_offload(sgf.llama3_8b(), ParallelSpec(tp=2), 100, dtype="bfloat16").eligible == Bytes(32 * half)


def test_rule_cap_above_the_layers_moves_every_layer_only():
    off = plan_offload(sgf.llama3_8b(), ParallelSpec(), 48, dtype="bfloat16")
    assert off.capped and off.offloaded == Bytes(32 * LAYER) and off.layers_whole == 32
    assert "embedding, norm, lm_head are never offloaded" in off.describe()


def test_rule_fractional_gib_is_the_engines_int_of_bytes():
    assert plan_offload(sgf.llama3_8b(), ParallelSpec(), 0.5, dtype="bfloat16").asked == Bytes(2**29)
    # 0.1 GiB = int(0.1 × 2^30) = 107,374,182 B: after qkv 50,331,648 and o 83,886,080 the total is still below the
    # cap, so gate_up moves too (318,767,104 B), then the check stops the layer
    off = plan_offload(sgf.llama3_8b(), ParallelSpec(), 0.1, dtype="bfloat16")
    assert off.asked == Bytes(107_374_182)
    assert off.offloaded == Bytes(50_331_648 + 33_554_432 + 234_881_024) and off.layers_whole == 0


# ---- SGLang ----------------------------------------------------------------------------------------------------

def _sg_opts(version="0.5.9", **kw):
    return SglangOptions(engine_version=version, **kw)


@pytest.mark.parametrize("version", ["0.4.0", "0.5.9", "0.5.23"])
def test_sglang_load_usage_drops_by_the_offloaded_bytes(version):
    model, gpu, par = sgf.llama3_8b(), lookup_gpu("H100"), ParallelSpec()
    plain = load_usage(model, par, _sg_opts(version), None, gpu)
    off = load_usage(model, par, _sg_opts(version, cpu_offload_gb=1), None, gpu)
    assert plain[0] - off[0] == Bytes(OFFLOADED_1GIB)
    assert "--cpu-offload-gb 1 (GiB per GPU)" in off[2] and "OffloaderV1" in off[2]


def test_sglang_plan_more_kv_and_the_copy_note():
    model = sgf.llama3_8b()
    base = plan_sglang(model, lookup_gpu("L4"), ParallelSpec(), _sg_opts(context_length=8192))
    more = plan_sglang(model, lookup_gpu("L4"), ParallelSpec(), _sg_opts(context_length=8192, cpu_offload_gb=4))
    assert more.kv_tokens > base.kv_tokens
    weights = next(l for l in more.ledger.items if l.item == "weights")
    assert "less --cpu-offload-gb 4" in weights.source
    assert any("each forward copies an offloaded layer" in w and "416.02 MiB" in w for w in more.warnings)
    assert not any("cpu-offload" in w for w in base.warnings)


def test_sglang_given_weights_are_not_reduced_again():
    # weights given in bytes (a measured 'Load weight end' usage) already lack the offloaded layers
    a = sgf.plan(weights=Bytes(2 * 2**30))
    b = sgf.plan(weights=Bytes(2 * 2**30), cpu_offload_gb=4)
    assert a.kv_tokens == b.kv_tokens


@pytest.mark.parametrize("version,changes", [("0.5.9", False), ("0.5.10", True), ("0.5.12", True), ("0.5.14", True),
                                             ("0.5.15", False), ("0.5.23", False)])
def test_sglang_piecewise_graphs_off_only_0_5_10_to_0_5_14(version, changes):
    model, gpu, par = sgf.llama3_8b(), lookup_gpu("H100"), ParallelSpec()
    a = kv_budget(model, gpu, par, _sg_opts(version), machine=None, weights_bytes=Bytes(0))
    b = kv_budget(model, gpu, par, _sg_opts(version, cpu_offload_gb=4), machine=None, weights_bytes=Bytes(0))
    assert (a.fraction.value != b.fraction.value) is changes
    if changes:
        assert b.fraction.value > a.fraction.value  # no prefill-graph term in the reserve
        assert not b.prefill_graphs[0] and "--cpu-offload-gb" in b.prefill_graphs[1]


def test_sglang_refusals():
    with pytest.raises(PlanInputError, match="whole number of GiB per GPU"):
        _sg_opts(cpu_offload_gb=1.5)
    with pytest.raises(PlanInputError, match="≥ 0 GiB per GPU"):
        _sg_opts(cpu_offload_gb=-2)
    with pytest.raises(PlanInputError, match="exists from SGLang 0.4.0"):
        _sg_opts("0.3.6", cpu_offload_gb=4)
    assert _sg_opts("0.4.0", cpu_offload_gb=4.0).cpu_offload_gb == 4.0


# ---- vLLM ------------------------------------------------------------------------------------------------------

def _v(version, **kw):
    return plan_vllm(v_llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw))


def _line(plan, item):
    return next((l for l in plan.ledger.items if l.item == item), None)


@pytest.mark.parametrize("version", ["0.8.3", "0.10.0", "0.16.0", "0.17.0", "0.33.0"])
def test_vllm_uva_releases_drop_the_weights_and_copy_nothing(version):
    base, off = _v(version), _v(version, cpu_offload_gb=1)
    assert base.ledger.items and _line(off, COPY) is None
    w0, w1 = _line(base, "model weights"), _line(off, "model weights")
    assert w0.bytes - w1.bytes == Bytes(OFFLOADED_1GIB)
    assert "less --cpu-offload-gb 1 (GiB per GPU)" in w1.source
    assert off.kv_tokens > base.kv_tokens
    assert not any("fall back to the V0" in w for w in off.warnings)


@pytest.mark.parametrize("version", ["0.7.3", "0.8.0", "0.8.2", "0.10.0:v0"])
def test_vllm_copying_releases_add_one_layer_to_the_profile_peak(version):
    base, off = _v(version), _v(version, cpu_offload_gb=1)
    copy = _line(off, COPY)
    assert copy is not None and abs(copy.bytes.bytes) == LAYER
    assert _line(base, COPY) is None
    # the weights drop by the offloaded bytes; the profile peak grows by one layer
    w0, w1 = _line(base, "model weights"), _line(off, "model weights")
    assert abs((w0.bytes - w1.bytes).bytes) == OFFLOADED_1GIB


@pytest.mark.parametrize("version", ["0.7.0:v1", "0.7.3:v1"])
def test_vllm_0_7_opt_in_v1_ignores_the_flag(version):
    """0.7.x's opt-in V1 never sets the offload cap (only V0's model runner calls set_cpu_offload_max_bytes, 0.7.3
    wheel; helper cr37): the plan keeps every weight on the GPU, copies nothing, and says why; V0 of the same
    release offloads."""
    base, off = _v(version), _v(version, cpu_offload_gb=1)
    assert _line(off, "model weights").bytes == _line(base, "model weights").bytes
    assert _line(off, COPY) is None and off.kv_tokens == base.kv_tokens
    assert any("is ignored by the V1 engine of vLLM 0.7.x" in w and "VLLM_USE_V1=0" in w for w in off.warnings)
    v0 = _v(version.replace(":v1", ""), cpu_offload_gb=1)
    assert v0.kv_tokens > off.kv_tokens and _line(v0, COPY) is not None
    assert not any("is ignored by the V1 engine" in w for w in v0.warnings)


@pytest.mark.parametrize("version", ["0.8.0", "0.8.2"])
def test_vllm_0_8_0_to_0_8_2_fall_back_to_v0(version):
    off = _v(version, cpu_offload_gb=1)
    assert off.engine_version == f"{version}:v0"
    assert any("fall back to the V0 engine" in w for w in off.warnings)
    assert _v("0.8.3", cpu_offload_gb=1).engine_version == "0.8.3"
    with pytest.raises(PlanInputError, match="refuse VLLM_USE_V1=1"):
        _v(f"{version}:v1", cpu_offload_gb=1)


def test_vllm_refusals_and_cap_note():
    with pytest.raises(PlanInputError, match="≥ 0 GiB per GPU"):
        VllmOptions(cpu_offload_gb=-1)
    with pytest.raises(PlanInputError, match="not a flag of vLLM 0.4.1"):
        VllmOptions(engine_version="0.4.1", cpu_offload_gb=2)
    assert VllmOptions(cpu_offload_gb=1.5).cpu_offload_gb == 1.5  # vLLM reads a float
    big = _v("0.33.0", cpu_offload_gb=64)
    assert any("is more than the" in w and "vLLM offloads all 32" in w for w in big.warnings)


def test_vllm_given_bytes_are_not_reduced_again():
    from vllm_fixtures import GivenWeights

    w = GivenWeights(Bytes(16 * 2**30))
    a = plan_vllm(v_llama3_8b(), H200, ParallelSpec(), VllmOptions(), weights=w)
    b = plan_vllm(v_llama3_8b(), H200, ParallelSpec(), VllmOptions(cpu_offload_gb=4), weights=w)
    assert a.kv_tokens == b.kv_tokens
