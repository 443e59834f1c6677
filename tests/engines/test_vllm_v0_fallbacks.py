"""The three V0 fallbacks of ``engines.vllm.load_lines`` (``offload_v0_fallback``, ``pp_v0_fallback``,
``capability_v0_fallback``), each pinned on both sides of its release range and with an explicit ``:v1``
(engine/arg_utils.py ``_is_v1_supported_oracle``, cited in the functions' docstrings)."""

from __future__ import annotations

import pytest

from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.load_lines import capability_v0_fallback, offload_v0_fallback, pp_v0_fallback
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.errors import PlanInputError


def _version(out):
    return None if out is None else str(out.engine_version)


def _opts(version: str, **kw) -> tuple[VllmOptions, object]:
    return VllmOptions(engine_version=version, **kw), resolve_rules(version)


@pytest.mark.parametrize("version, expected", [
    ("0.7.3", None), ("0.8.0", "0.8.0:v0"), ("0.8.2", "0.8.2:v0"), ("0.8.3", None), ("0.8.2:v0", None)])
def test_offload_fallback_range(version, expected):
    options, rules = _opts(version, cpu_offload_gb=4)
    assert _version(offload_v0_fallback(options, rules)) == expected
    options, rules = _opts(version)
    assert offload_v0_fallback(options, rules) is None  # no --cpu-offload-gb: nothing changes


def test_offload_fallback_refuses_explicit_v1():
    options, rules = _opts("0.8.2:v1", cpu_offload_gb=4)
    with pytest.raises(PlanInputError, match="0.8.3"):
        offload_v0_fallback(options, rules)


@pytest.mark.parametrize("version, pp, expected", [
    ("0.8.0", 2, "0.8.0:v0"), ("0.9.0", 2, "0.9.0:v0"), ("0.9.1", 2, None), ("0.9.0", 1, None),
    ("0.9.0:v1", 2, None), ("0.7.3", 2, None)])
def test_pp_fallback_range(version, pp, expected):
    options, rules = _opts(version)
    assert _version(pp_v0_fallback(options, rules, pp)) == expected


@pytest.mark.parametrize("version, cc, expected", [
    ("0.8.0", (7, 5), "0.8.0:v0"), ("0.10.1.1", (7, 0), "0.10.1.1:v0"), ("0.10.2", (7, 5), None),
    ("0.10.1.1", (8, 0), None), ("0.10.1.1", None, None), ("0.7.3", (7, 5), None)])
def test_capability_fallback_range(version, cc, expected):
    options, rules = _opts(version)
    assert _version(capability_v0_fallback(options, rules, cc)) == expected


def test_capability_fallback_refuses_explicit_v1():
    options, rules = _opts("0.9.2:v1")
    with pytest.raises(PlanInputError, match="compute-capability 7.5"):
        capability_v0_fallback(options, rules, (7, 5))
