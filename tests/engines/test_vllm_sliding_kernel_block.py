"""vLLM sliding-window pages with a ``--block-size`` other than 16, and ``--no-async-scheduling`` (helper mv7,
issue 11: vp_193 / vl_273, a vLLM 0.29.0 start-up of gemma-4-26B-A4B-it FP8 with ``--block-size 128`` and
``'async_scheduling': False``).

From 0.25.0 a sliding-window attention layer picks its own block size, the attention backend's smallest kernel
block (16 on the CUDA backends), and only the full-attention layers take ``--block-size``
(``model_executor/layers/attention/attention.py Attention.get_kv_cache_spec``: "SW chooses its own block_size,
decoupled from the user's --block-size"; absent from the 0.18.0–0.24.0 wheels, present in 0.25.0–0.33.0);
``unify_kv_cache_spec_page_size`` then grows the smaller page's block size.  Gemma 4's sliding layers store
8 KV heads × 256 (8 KiB per token), its full layers 2 × 512 (4 KiB): at ``--block-size 128`` 0.24 pools
5 × 1 MiB per block (sliding 128, full 256 tokens), 0.25+ 5 × 512 KiB (sliding 64, full 128).
``--no-async-scheduling`` makes ``VllmConfig.max_concurrent_batches`` pp (``config/vllm.py``, 0.26.0–0.33.0), so
the sliding groups reserve the window plus one batch: vl_273 prints 40.80x = 6,406 blocks / (5 × 25 + 32).
"""

import json
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.vllm.capacity import plan_capacity
from tpkit.engines.vllm.inputs import resolve_inputs
from tpkit.engines.vllm.pages import build_layout
from tpkit.engines.vllm.versions import rules_for
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

ROOT = Path(__file__).resolve().parents[1]
GEMMA4 = ROOT / "logs" / "data" / "configs" / "google__gemma-4-26B-A4B-it" / "config.json"
GPT_OSS = ROOT / "validation" / "configs" / "openai--gpt-oss-20b.json"
MIB = 2**20


def _model(path, name):
    return from_config_dict(json.loads(path.read_text()), name=name, source=str(path))


def _layout(path, name, release, block):
    rules = rules_for(release)
    return build_layout(_model(path, name), ParallelSpec(tp=1), block_size=block, era=rules.era, dtype_bytes=2,
                        dtype_name="bfloat16", rules=rules)


def _blocks(layout):
    return {g.kind: g.block_size for g in layout.groups}


@pytest.mark.parametrize("release, per_block_mib, blocks", [
    ((0, 24, 0), 5.0, {"sliding": 128, "full": 256}),   # every layer from --block-size; the full page grows
    ((0, 25, 0), 2.5, {"sliding": 64, "full": 128}),    # sliding from 16, grown to the full layers' page
    ((0, 29, 0), 2.5, {"sliding": 64, "full": 128}),
])
def test_gemma4_block_128_sliding_layers_start_from_the_kernel_block(release, per_block_mib, blocks):
    layout = _layout(GEMMA4, "google/gemma-4-26B-A4B-it", release, 128)
    assert layout.bytes_per_block == Bytes(int(per_block_mib * MIB))
    assert _blocks(layout) == blocks


@pytest.mark.parametrize("release", [(0, 24, 0), (0, 25, 0), (0, 29, 0)])
def test_block_16_is_the_same_on_both_sides(release):
    layout = _layout(GEMMA4, "google/gemma-4-26B-A4B-it", release, 16)
    assert layout.bytes_per_block == Bytes(640 * 1024) and _blocks(layout) == {"sliding": 16, "full": 32}


@pytest.mark.parametrize("release", [(0, 24, 0), (0, 29, 0)])
def test_equal_pages_keep_the_user_block_on_both_sides(release):
    """gpt-oss: sliding and full layers store the same bytes per token, so the sliding block grows back to 96."""
    layout = _layout(GPT_OSS, "openai/gpt-oss-20b", release, 96)
    assert _blocks(layout) == {"sliding": 96, "full": 96}


def test_vl_273_printed_capacity():
    """6,406 blocks of 2.5 MiB (15.64 GiB printed), one 512-token batch in flight: 40.80x, 167,127 tokens."""
    rules = rules_for((0, 29, 0))
    layout = _layout(GEMMA4, "google/gemma-4-26B-A4B-it", (0, 29, 0), 128)
    cap = plan_capacity(layout, Bytes(6406 * 5 * MIB // 2), max_model_len=4096, max_num_batched_tokens=512, pp=1,
                        rules=rules, concurrent_batches=1)
    assert cap.blocks_per_request == 5 * 25 + 32 and cap.tokens == 167_127
    two = plan_capacity(layout, Bytes(6406 * 5 * MIB // 2), max_model_len=4096, max_num_batched_tokens=512, pp=1,
                        rules=rules)  # async scheduling (the default): two batches in flight
    assert two.blocks_per_request == 5 * 33 + 32


@pytest.mark.parametrize("version, off, batches", [
    ("0.29.0", False, 2),   # Model Runner V2 with async scheduling: pp + 1
    ("0.29.0", True, 1),    # --no-async-scheduling: pp
    ("0.26.0", True, 1),
    ("0.25.0", False, 1),   # before 0.26 the sliding need counts one batch either way
    ("0.25.0", True, 1),
])
def test_no_async_scheduling_sets_the_batches_in_flight(version, off, batches):
    engine = get_engine("vllm")
    model = _model(GEMMA4, "google/gemma-4-26B-A4B-it")
    options = engine.options(engine_version=version, no_async_scheduling=off)
    r = resolve_inputs(model, lookup_gpu("L40S"), options, rules_for(tuple(int(x) for x in version.split("."))))
    assert r.concurrent_batches == batches


def test_no_async_scheduling_must_be_a_switch():
    with pytest.raises(PlanInputError, match="no_async_scheduling must be True or False"):
        get_engine("vllm").options(no_async_scheduling="no")


def test_the_log_reader_takes_async_scheduling_from_the_non_default_args():
    from tpkit.logs.settings import KEYS

    assert KEYS["async_scheduling"] == "async_scheduling"
    from tpkit.explain import explain_log

    log = (ROOT / "logs" / "data" / "vllm" / "vl_273.log").read_bytes()
    e = explain_log(log)
    assert e.context.get("async_scheduling") is False
    e16 = explain_log((ROOT / "logs" / "data" / "vllm" / "vl_270.log").read_bytes())
    assert e16.context.get("async_scheduling") is True


def test_plan_from_log_takes_the_logs_async_scheduling(capsys):
    """vl_273 prints 'async_scheduling': False: a plan --from-log holds one batch in flight (5 × 25 + 32 blocks per
    request), as the same plan with --no-async-scheduling given."""
    import sys

    sys.path.insert(0, str(ROOT / "cli"))
    from clirun import cli

    base = ("plan", str(GEMMA4), "--from-log", str(ROOT / "logs" / "data" / "vllm" / "vl_273.log"),
            "--quantization", "fp8", "--json")
    code, out, _ = cli(capsys, *base)
    code2, out2, _ = cli(capsys, *base, "--no-async-scheduling")
    assert code == code2 == 0
    plan, given = json.loads(out), json.loads(out2)
    assert plan["kv_tokens"] == given["kv_tokens"]
    assert round(plan["kv_blocks"] / plan["max_concurrency"]) == 5 * 25 + 32  # one 512-token batch in flight
