"""SGLang's model load holds its rotary cos/sin cache besides the parameters (layers/rotary_embedding.py
RotaryEmbedding.__init__: float32 on CUDA from 0.4.2, read in the 0.4.2.post1 and 0.5.9 wheels; up to 0.4.1 the
models used vLLM's get_rope, which casts the cache to the model dtype)."""

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.load import rotary_cache_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec
from tpkit.startup import sglang_load_extra, sglang_process_overhead
from tpkit.units import Bytes, GiB

LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")  # max_position 131072, head_dim 128
H100 = lookup_gpu("H100")


@pytest.mark.parametrize("version, elem", [("0.4.1", 2), ("0.4.2", 4), ("0.5.9", 4), ("0.5.23", 4)])
def test_cache_is_float32_on_cuda_from_042(version, elem):
    rope, source = rotary_cache_bytes(LLAMA, H100, SglangOptions(engine_version=version))
    assert rope == Bytes(131_072 * 128 * elem)
    assert ("float32" in source) == (elem == 4)


def test_off_cuda_the_cache_takes_the_model_dtype():
    mi300x = lookup_gpu("MI300X")
    assert mi300x.vendor != "NVIDIA"
    assert rotary_cache_bytes(LLAMA, mi300x, SglangOptions(engine_version="0.5.9"))[0] == Bytes(131_072 * 128 * 2)


@pytest.mark.parametrize("tp", [1, 2])
def test_the_cache_is_charged_with_the_weights_and_not_sharded(tp):
    """Each rank holds the whole cache: the KV budget is free-before-weights − weights − the cache."""
    par, opts = ParallelSpec(tp=tp), SglangOptions(engine_version="0.5.9")
    plan = plan_sglang(LLAMA, H100, par, opts)
    params = plan_weights(LLAMA, par, dtype=opts.dtype, quantization=opts.quantization).bytes_per_rank
    weights_line = plan.ledger.get("weights")
    extra = sglang_load_extra(True)
    assert weights_line.bytes - params == Bytes(131_072 * 128 * 4) + extra.bytes
    assert "rotary cos/sin cache" in weights_line.source and "sglang_load_extra[>=0.5.8]" in weights_line.source


def test_load_extra_and_init_term_follow_the_release():
    """Before 0.5.8 the tp-1 init line prints 0.00 and the load holds ~0.1 GiB beyond weights and cache; from 0.5.8
    the init line prints 0.09 and the load ≈ 0 (start-up table rows keyed by release)."""
    old_init, new_init = sglang_process_overhead(False), sglang_process_overhead(True)
    old_load, new_load = sglang_load_extra(False), sglang_load_extra(True)
    assert old_init.bytes < GiB(0.01) < GiB(0.08) < new_init.bytes < GiB(0.1)
    assert new_load.bytes < GiB(0.05) < GiB(0.08) < old_load.bytes
    assert "<0.5.8" in old_init.source and ">=0.5.8" in new_init.source
    for version, since in (("0.5.7", False), ("0.5.8", True)):
        plan = plan_sglang(LLAMA, H100, ParallelSpec(tp=1), SglangOptions(engine_version=version))
        init = plan.ledger.get("SGLang init_torch_distributed (besides NCCL)")
        assert init.bytes == sglang_process_overhead(since).bytes
