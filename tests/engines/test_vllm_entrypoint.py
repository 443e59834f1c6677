"""``--vllm-entrypoint serve|llm`` (a tpkit option, not a vLLM flag): V1's default ``max_num_batched_tokens``
depends on the ``UsageContext`` the entrypoint passes (``engine/arg_utils.py``: ``_set_default_args_v1`` 0.8.x,
``get_batch_defaults`` 0.9.0–0.33.0).  The offline ``vllm.LLM`` class gets 16384 where the API server gets 8192
(or 16384 on ≥ 160 GiB devices from 0.28.0) and 8192 where it gets 2048; ``max_num_seqs`` is the same for both;
V0 has no per-entrypoint default.  Both sides of each release boundary of the device test (0.8.3 / 0.8.4 by name,
0.8.4 / 0.8.5 memory, 0.8.5 / 0.9.0 not A100, 0.27.1 / 0.28.0 ≥ 160 GiB), V0, GB10, the JSON echo and the
refusal of a bad value (the log side: tests/logs/test_vllm_entrypoint_log.py)."""

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.inputs import resolve_inputs
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu

from vllm_fixtures import llama3_8b


def _batch(version, gpu, entrypoint, **kw):
    r = resolve_inputs(llama3_8b(), lookup_gpu(gpu),
                       VllmOptions(engine_version=version, vllm_entrypoint=entrypoint, max_model_len=8192, **kw),
                       resolve_rules(version))
    return r.max_num_batched_tokens, r.max_num_seqs


@pytest.mark.parametrize("version, gpu, serve, llm", [
    # 0.8.0-0.8.3: tokens by device name ("h100"/"h200"), 1024 sequences on every device
    ("0.8.3", "H100-SXM-80GB", (8192, 1024), (16384, 1024)),
    ("0.8.3", "A100-SXM-80GB", (2048, 1024), (8192, 1024)),
    ("0.8.3", "L4", (2048, 1024), (8192, 1024)),
    # 0.8.4: both by name
    ("0.8.4", "H100-SXM-80GB", (8192, 1024), (16384, 1024)),
    ("0.8.4", "A100-SXM-80GB", (2048, 256), (8192, 256)),
    ("0.8.4", "H800", (2048, 256), (8192, 256)),
    # 0.8.5: >= 70 GiB, A100-80GB included
    ("0.8.5", "A100-SXM-80GB", (8192, 1024), (16384, 1024)),
    ("0.8.5", "L40S", (2048, 256), (8192, 256)),
    # 0.9.0-0.27: >= 70 GiB and not A100
    ("0.9.0", "A100-SXM-80GB", (2048, 256), (8192, 256)),
    ("0.11.0", "L40S", (2048, 256), (8192, 256)),
    ("0.23.0", "H200-SXM-141GB", (8192, 1024), (16384, 1024)),
    ("0.27.1", "B200", (8192, 1024), (16384, 1024)),
    # 0.28.0: >= 160 GiB devices get 16384 on the API server too
    ("0.28.0", "B200", (16384, 1024), (16384, 1024)),
    ("0.28.0", "H100-SXM-80GB", (8192, 1024), (16384, 1024)),
    ("0.33.0", "RTX-4090", (2048, 256), (8192, 256)),
    # GB10: NVML reports no total, the small branch (8192 for the LLM class)
    ("0.13.0", "GB10", (2048, 256), (8192, 256)),
])
def test_llm_class_defaults_per_release_and_device(version, gpu, serve, llm):
    assert _batch(version, gpu, "serve") == serve
    assert _batch(version, gpu, "llm") == llm
    assert _batch(version, gpu, "serve") == _batch(version, gpu, "serve")  # serve is the default
    default = resolve_inputs(llama3_8b(), lookup_gpu(gpu), VllmOptions(engine_version=version, max_model_len=8192),
                             resolve_rules(version))
    assert (default.max_num_batched_tokens, default.max_num_seqs) == serve


@pytest.mark.parametrize("version", ["0.7.3", "0.8.5:v0", "v0"])
def test_v0_has_no_entrypoint_default(version):
    assert _batch(version, "H100-SXM-80GB", "llm") == _batch(version, "H100-SXM-80GB", "serve")


def test_a_given_budget_wins_and_the_seqs_cap_applies():
    assert _batch("0.23.0", "H100-SXM-80GB", "llm", max_num_batched_tokens=4096)[0] == 4096
    # from 0.11.1 a default budget is capped at max_num_seqs x max_model_len (either entrypoint)
    assert _batch("0.23.0", "H100-SXM-80GB", "llm", max_num_seqs=1)[0] == 8192


def test_bad_value_is_refused():
    with pytest.raises(PlanInputError, match="--vllm-entrypoint must be one of serve, llm, got 'offline'"):
        VllmOptions(vllm_entrypoint="offline")
