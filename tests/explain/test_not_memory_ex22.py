"""Failures that are not a lack of memory, read blind in the held-back round (helper ex22, 2026-12-06).

A CUDA-graph capture that fails on a Python exception of another kind (FlashInfer's 'failed to dispatch head_dim 96',
a shape mismatch in an EAGLE draft graph, DeepGEMM's 'Unknown cases' assertion) and a run that fails serving its first
requests on an exception with no memory in it (a warm-up 503, an AttributeError in the event loop, a KeyError, an
embedding model's AssertionError) were described as out of memory, with a smaller fraction or prefill chunk as the
fix.  ``diagnose.capture_error_not_memory`` and ``pool_error_not_memory(parsed, "first_request")`` now name the
exception and offer no memory knob."""

from pathlib import Path

import pytest

from tpkit.explain import explain_log

DATA = Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang"


@pytest.mark.parametrize("case_id,exception", [("sg_515", "RuntimeError: BatchDecodeWithPagedKVCachePyTorchWrapper::Plan"),
                                               ("sg_522", "mat1 and mat2 shapes cannot be multiplied"),
                                               ("sg_528", "AssertionError: Unknown cases")])
def test_capture_error_that_is_not_memory(case_id, exception):
    d = explain_log((DATA / f"{case_id}.log").read_bytes()).diagnosis
    assert d.phase == "cuda_graph" and "not a lack of memory" in d.cause and exception in d.cause
    assert [f.flags for f in d.fixes] == ["--disable-cuda-graph"]


@pytest.mark.parametrize("case_id,exception", [("sg_524", "AssertionError: res=<Response [503]>"),
                                               ("sg_525", "AttributeError: 'Scheduler' object has no attribute"),
                                               ("sg_527", "KeyError: 'choices'"), ("sg_529", "AssertionError")])
def test_first_request_error_that_is_not_memory(case_id, exception):
    d = explain_log((DATA / f"{case_id}.log").read_bytes()).diagnosis
    assert d.status == "failed" and d.phase == "first_request"
    assert exception in d.cause and "not a lack of memory" in d.cause and not d.fixes


def test_a_first_request_oom_keeps_its_memory_fixes():
    d = explain_log((DATA / "sg_519.log").read_bytes()).diagnosis  # a 400k-token request's OOM (sglang#5212)
    assert d.phase == "first_request" and d.cause.startswith("out of memory after start-up")
    assert any(f.flags.startswith("--chunked-prefill-size") for f in d.fixes)
