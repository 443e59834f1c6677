"""vLLM's KV-pool step is one of ``explain.unnamed.UNNAMED_PHASES`` (lead, session 30): a failure there whose log
never prints the error is not read as out of memory (round ex30's held-back vl_1297 / vl_1299, docs/accuracy.md §7.3)."""

from pathlib import Path

import pytest

from tpkit.explain.result import explain_log
from tpkit.explain.unnamed import UNNAMED_PHASES

DATA = Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm"


def test_vllm_kv_pool_is_an_unnamed_phase_and_sglangs_too():
    """SGLang's pool step joined in round ex38b (kvcached#198, sg_1050: a cut traceback read as the pool not
    fitting, with a fraction called a fit; tests/explain/test_heldback_ex38b.py has both sides)."""
    assert "kv_pool" in UNNAMED_PHASES["vllm"] and "kv_pool" in UNNAMED_PHASES["sglang"]


@pytest.mark.parametrize("log", ["vl_1297", "vl_1299"])
def test_a_kv_pool_failure_without_its_error_gets_no_memory_cause(log):
    d = explain_log((DATA / f"{log}.log").read_bytes()).diagnosis
    assert d.phase == "kv_pool"
    assert "in the profile run that sizes the KV cache" in d.cause and "does not print the error" in d.cause
    assert "no memory left" not in d.cause
