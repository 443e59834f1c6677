"""perf.gdn_state (helper ws36a, 2026-12-07, issue 13): the Gated DeltaNet temporal state vLLM keeps, by release and
architecture — the config's ``mamba_ssm_dtype`` for the Qwen3.5 wrappers from 0.17.0 and the text-only Qwen3.5
classes from 0.27.0 (``Qwen3_5ForConditionalGenerationConfig`` / ``Qwen3_5ForCausalLMConfig``), the model dtype
(``--mamba-ssm-cache-dtype auto``) for Qwen3-Next and everywhere else; both sides of each boundary, the planner's
paged state as the one reference, and the release carried from the request to the kernel."""

import dataclasses

import pytest

from tpkit.engines.vllm.layer_bytes import linear_state_bytes as planner_state_bytes
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest
from tpkit.perf.gdn_state import vllm_gdn_temporal_bytes
from tpkit.perf.impl import impl_for, impl_profile
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.linear_state import state_sizes
from tpkit.perf.work import forward_kernels

QWEN38 = "tests/validation/configs/RedHatAI--Qwen3.8-27B-INT4.json"        # Qwen3_5ForConditionalGeneration, float32
QWEN35_397B = "bench/data/qwen3.5-397b-a17b-nvfp4.config.json"               # Qwen3_5Moe…, no mamba_ssm_dtype
QWEN35_WRAPPERS_FIRST = (0, 17, 0)  # Qwen3_5ForConditionalGenerationConfig reads mamba_ssm_dtype (0.17.0 wheel)
QWEN35_TEXT_FIRST = (0, 27, 0)  # Qwen3_5ForCausalLMConfig does the same for the text-only classes (0.27.0 wheel)


@pytest.fixture(scope="module")
def qwen38():
    spec = load_model(QWEN38)
    assert spec.architecture == "Qwen3_5ForConditionalGeneration" and spec.extra.get("mamba_ssm_dtype") == "float32"
    return spec


@pytest.fixture(scope="module")
def qwen35_397b():
    spec = load_model(QWEN35_397B)
    assert spec.architecture == "Qwen3_5MoeForConditionalGeneration" and not spec.extra.get("mamba_ssm_dtype")
    return spec


def _as(spec, architecture, ssm=None):
    extra = dict(spec.extra)
    extra.pop("mamba_ssm_dtype", None)
    if ssm:
        extra["mamba_ssm_dtype"] = ssm
    return dataclasses.replace(spec, architecture=architecture, extra=extra)


@pytest.mark.parametrize("architecture, ssm, release, expected", [
    ("Qwen3_5ForConditionalGeneration", "float32", (0, 16, 0), 2),       # no Qwen3.5 class, no hook
    ("Qwen3_5ForConditionalGeneration", "float32", QWEN35_WRAPPERS_FIRST, 4),
    ("Qwen3_5MoeForConditionalGeneration", "float32", (0, 26, 0), 4),
    ("Qwen3_5MoeForConditionalGeneration", None, (0, 26, 0), 2),        # the config names none: auto
    ("Qwen3_5MoeForConditionalGeneration", "bfloat16", (0, 26, 0), 2),
    ("Qwen3_5ForCausalLM", "float32", (0, 26, 0), 2),                    # text-only: hook from 0.27.0
    ("Qwen3_5ForCausalLM", "float32", QWEN35_TEXT_FIRST, 4),
    ("Qwen3NextForCausalLM", "float32", (0, 34, 0), 2),                  # Qwen3-Next: never reads it
    ("Qwen3NextForCausalLM", None, (0, 11, 0), 2),
])
def test_the_temporal_element_size_by_release_and_architecture(qwen38, architecture, ssm, release, expected):
    assert vllm_gdn_temporal_bytes(_as(qwen38, architecture, ssm), release, 2) == expected


def test_other_linear_attention_architectures_are_left_alone(qwen38):
    assert vllm_gdn_temporal_bytes(_as(qwen38, "GraniteMoeHybridForCausalLM"), (0, 26, 0), 2) is None


@pytest.mark.parametrize("version", ["0.16.0", "0.17.0", "0.19.1", "0.26.0", "0.27.0", "0.33.0"])
@pytest.mark.parametrize("architecture, ssm", [
    ("Qwen3_5ForConditionalGeneration", "float32"), ("Qwen3_5ForCausalLM", "float32"),
    ("Qwen3_5MoeForConditionalGeneration", None), ("Qwen3NextForCausalLM", None),
])
def test_perf_prices_the_state_the_planner_pages(qwen38, version, architecture, ssm):
    """one home for the boundaries' truth: the planner's per-request vLLM state (TP 1, bf16, no spec columns)"""
    spec = _as(qwen38, architecture, ssm)
    release = tuple(int(x) for x in version.split("."))
    assert state_sizes(spec, "vllm", release)[0] == planner_state_bytes(spec, 1, 2, 0, resolve_rules(version))


def test_sglang_and_a_release_less_call_keep_linear_attns_sizes(qwen35_397b):
    la = qwen35_397b.linear_attn
    before = (la.state_bytes_per_layer.bytes, la.temporal_bytes_per_layer.bytes)
    assert state_sizes(qwen35_397b, "sglang", (0, 26, 0)) == before == state_sizes(qwen35_397b, "vllm")


def test_a_vllm_verify_moves_half_the_temporal_state_without_a_config_dtype(qwen35_397b):
    la = qwen35_397b.linear_attn
    temporal = la.temporal_bytes_per_layer.bytes
    conv = la.state_bytes_per_layer.bytes - temporal
    layers, tokens = list(qwen35_397b.kinds).count("linear"), 3
    batch = Batch(sequences=2, tokens_per_sequence=tokens, context=4096, verify=True)
    vllm = dataclasses.replace(impl_profile("vllm"), release=(0, 17, 0))
    ks = [k for k in forward_kernels(qwen35_397b, Shard(tp=4), batch, vllm) if k.name == "linear-attention state"]
    half = temporal // 2
    expected = layers * 2 * (2 * (conv + half) + (tokens - 1) * half) / 4
    assert sum(k.bytes * k.count for k in ks) == pytest.approx(expected)


def test_the_request_carries_its_release_to_the_kernel_layout(qwen38):
    gpu = lookup_gpu("RTX-3090")
    req = PerfRequest(model=qwen38, gpu=gpu, tp=4, engine="vllm", engine_version="0.19.1")
    assert impl_for(req).release == (0, 19, 1)
    assert impl_for(dataclasses.replace(req, engine="sglang", engine_version=None)).release is None
