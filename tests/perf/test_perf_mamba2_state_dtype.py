"""perf.linear_state prices the state each engine keeps (helper fx35c, 2026-12-07, issue 13): vLLM keeps a
Granite-4.0-H / Bamba / Falcon-H1 Mamba-2 temporal state in the model dtype (``MambaStateDtypeCalculator.
mamba2_state_dtype`` with ``--mamba-ssm-cache-dtype auto``, 0.10.1 – 0.34.0 wheels, round rl35), SGLang in fp32
(``ModelSpec.linear_attn``); both sizes come from the planner's one function (``engines.mamba2_state``).  A Gated
DeltaNet model and the SGLang side are priced as before."""

import pytest

from tpkit.engines.mamba2_state import MAMBA2_SPEC_TYPES
from tpkit.engines.vllm.layer_bytes import linear_state_bytes as planner_state_bytes
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.models import load_model
from tpkit.perf.kernels import Batch
from tpkit.perf.linear_state import state_sizes

from test_perf_linear_state import GDN, _state_bytes  # the same config and kernel reading

GRANITE_H = "tests/validation/configs/ibm-granite--granite-4.0-h-micro.json"


@pytest.fixture(scope="module")
def granite():
    spec = load_model(GRANITE_H)
    assert spec.model_type in MAMBA2_SPEC_TYPES
    return spec


@pytest.fixture(scope="module")
def gdn():
    return load_model(GDN)


def test_vllm_keeps_the_mamba2_temporal_state_in_bf16_sglang_in_fp32(granite):
    la = granite.linear_attn
    layers = list(granite.kinds).count("linear")
    temporal_fp32 = la.temporal_bytes_per_layer.bytes
    conv = la.state_bytes_per_layer.bytes - temporal_fp32
    assert state_sizes(granite, "sglang") == (la.state_bytes_per_layer.bytes, temporal_fp32)
    assert state_sizes(granite, "vllm") == (conv + temporal_fp32 // 2, temporal_fp32 // 2)
    plain = Batch(sequences=3, context=4096)
    assert _state_bytes(granite, 1, plain, "sglang") == pytest.approx(layers * 3 * 2 * (conv + temporal_fp32))
    assert _state_bytes(granite, 2, plain, "vllm") == pytest.approx(layers * 3 * 2 * (conv + temporal_fp32 / 2) / 2)
    assert _state_bytes(granite, 1, plain, "reference") == _state_bytes(granite, 1, plain, "sglang")


@pytest.mark.parametrize("version", ["0.10.1", "0.13.0", "0.20.0", "0.33.0"])
def test_perf_prices_the_state_the_planner_pages(granite, version):
    """one home: the per-request bytes the planner gives a vLLM page (TP 1, bf16) are perf's vLLM state"""
    assert state_sizes(granite, "vllm")[0] == planner_state_bytes(granite, 1, 2, 0, resolve_rules(version))


@pytest.mark.parametrize("tokens", [2, 4])
def test_a_mamba2_verify_writes_the_engines_temporal_state_per_token(granite, tokens):
    layers = list(granite.kinds).count("linear")
    batch = Batch(sequences=2, tokens_per_sequence=tokens, context=4096, verify=True)
    for engine in ("vllm", "sglang"):
        state, temporal = state_sizes(granite, engine)
        extra = 2 * temporal if engine == "sglang" else 0
        assert _state_bytes(granite, 1, batch, engine) == pytest.approx(
            layers * 2 * (2 * state + (tokens - 1) * temporal + extra))


def test_a_gdn_model_is_priced_as_before_on_both_engines(gdn):
    la = gdn.linear_attn
    before = (la.state_bytes_per_layer.bytes, la.temporal_bytes_per_layer.bytes)
    assert state_sizes(gdn, "vllm") == before == state_sizes(gdn, "sglang")
