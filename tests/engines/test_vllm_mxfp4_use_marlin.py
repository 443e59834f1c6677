"""``--vllm-mxfp4-use-marlin`` (VLLM_MXFP4_USE_MARLIN): the variable forces vLLM's Marlin MXFP4 MoE backend on Hopper
(``engines.vllm.mxfp4.marlin_forced``; helper mx29, 2026-12-07).  Read in the wheels: 0.10.1 ``_should_use_marlin``,
0.12.0–0.18.0 ``get_mxfp4_backend``, 0.20.0–0.23.0 ``select_mxfp4_moe_backend``; not read in 0.11.0, gone in 0.24.0.
The five InferenceX gpt-oss-120b starts of round bl29 (vLLM 0.22.0 / 0.22.1, one H200 at tp 1: 'Using 'MARLIN' Mxfp4
MoE backend', 'Model loading took 66.14 GiB') load the Marlin padding, not the Triton swizzle."""

from __future__ import annotations

import pytest

import json
from pathlib import Path

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.mxfp4 import ENV_MARLIN_RELEASES, marlin_forced, marlin_mxfp4_padding_bytes
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"


def _spec(name: str):
    path = CONFIGS / name
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))


@pytest.mark.parametrize("release, read", [((0, 10, 0), False), ((0, 10, 1), True), ((0, 10, 2), False),
                                           ((0, 11, 2), False), ((0, 12, 0), True), ((0, 18, 0), True),
                                           ((0, 22, 0), True), ((0, 23, 9), True), ((0, 24, 0), False),
                                           ((0, 29, 0), False)])
def test_the_releases_that_read_the_variable(release, read):
    assert marlin_forced("on", release, (9, 0)) is read
    assert marlin_forced("1", release, (9, 0)) is read
    assert marlin_forced("off", release, (9, 0)) is False
    assert marlin_forced(None, release, (9, 0)) is False


def test_only_hopper_is_forced():
    """Below 9.0 Marlin is the default already; Blackwell (FlashInfer / its own priority list) is not modelled."""
    assert ENV_MARLIN_RELEASES[1] == ((0, 12, 0), (0, 24, 0))
    for cc in ((8, 0), (8, 9), (10, 0), (12, 0), None):
        assert marlin_forced("on", (0, 22, 0), cc) is False


def _load(plan):
    return sum(l.bytes.bytes for l in plan.ledger.items
               if l.item in ("model weights", "rotary cos/sin cache") or l.item.startswith("MXFP4 MoE")) / 2**30


@pytest.mark.parametrize("version, forced", [("0.22.0", True), ("0.23.0", True), ("0.24.0", False),
                                             ("0.11.0", False), ("0.12.0", True)])
def test_the_plan_charges_marlin_on_hopper_when_set(version, forced):
    spec = _spec("openai--gpt-oss-120b.json")
    h200 = lookup_gpu("H200-SXM-141GB")
    on = plan_vllm(spec, h200, ParallelSpec(), VllmOptions(engine_version=version, vllm_mxfp4_use_marlin="on"),
                   search_fixes=False)
    off = plan_vllm(spec, h200, ParallelSpec(), VllmOptions(engine_version=version), search_fixes=False)
    items_on = [l.item for l in on.ledger.items if l.item.startswith("MXFP4 MoE")]
    items_off = [l.item for l in off.ledger.items if l.item.startswith("MXFP4 MoE")]
    if forced:
        assert items_on == ["MXFP4 MoE padding (Marlin)"] and items_off == ["MXFP4 MoE swizzle (Hopper triton_kernels)"]
        pad = next(l for l in on.ledger.items if l.item == "MXFP4 MoE padding (Marlin)")
        assert pad.bytes == marlin_mxfp4_padding_bytes(spec, ParallelSpec(), tuple(map(int, version.split("."))),
                                                       (8, 0))  # the same padding as below 9.0
        assert "VLLM_MXFP4_USE_MARLIN" in pad.source
    else:
        assert items_on == items_off


def test_bl29_tp1_load_against_the_print():
    """vp_942 / vp_943 (0.22.0, one H200): printed 'Model loading took 66.14 GiB'; the Triton plan 64.33 GiB (1.81
    short), the Marlin plan 65.91 (0.23 short: the checkpoint's 60.77 + 5.13 of padding)."""
    spec = _spec("openai--gpt-oss-120b.json")
    h200 = lookup_gpu("H200-SXM-141GB")
    on = plan_vllm(spec, h200, ParallelSpec(), VllmOptions(engine_version="0.22.0", vllm_mxfp4_use_marlin="on"),
                   search_fixes=False)
    off = plan_vllm(spec, h200, ParallelSpec(), VllmOptions(engine_version="0.22.0"), search_fixes=False)
    assert abs(_load(on) - 66.14) < 0.3 < abs(_load(off) - 66.14)
    assert on.kv_tokens < off.kv_tokens
