"""Helper tidy28 (session 28): vLLM's proposer-loop launches have one home (``perf.runtime_vllm._draft_loop``) for
the dense and the sparse-MLA paths.  Before, ``_vllm_sparse`` carried its own copy of the loop and a shorter fact
that named neither the EAGLE-3 vocab remap nor whether the launches overlap the verify."""

import pytest

from tpkit.perf.runtime_vllm import _draft_loop, _vllm, _vllm_sparse


def _loop_fact(facts) -> str:
    (fact,) = [f for f in facts if "bookkeeping ops per draft step" in f]
    return fact


@pytest.mark.parametrize("ver, queued", [((0, 11, 0), False), ((0, 17, 1), True)])
def test_dense_and_sparse_paths_state_the_same_proposer_loop(ver, queued):
    dense = _vllm(ver, "FLASH_ATTN", False, 1, "EAGLE3", cc=(9, 0))
    sparse = _vllm_sparse(ver, "FLASHMLA_SPARSE", (9, 0), "EAGLE3")
    for rt in (dense, sparse):
        assert (rt["draft_loop_kernels"], rt["drafter_queued"]) == (15, queued)
    assert _loop_fact(dense["facts"]) == _loop_fact(sparse["facts"])
    fact = _loop_fact(sparse["facts"])
    assert "and EAGLE-3 vocab remap" in fact
    assert ("issued while the GPU runs the verify" if queued else "a small draft step waits for them") in fact


def test_fused_loop_from_0_18_none_under_runner_v2_or_without_speculation():
    """Helper sp34b: 0.18.0–0.33 still launch 4 ops a step (``PROPOSER_LOOP_FUSED``) from the V1 proposer;
    Model Runner V2 and plain decoding run no such loop."""
    facts: list[str] = []
    assert _draft_loop((0, 17, 1), "EAGLE3", False, facts)[0] == 15
    assert _draft_loop((0, 18, 0), "EAGLE3", False, facts)[0] == 4
    assert _draft_loop((0, 33, 0), "EAGLE3", False, facts)[0] == 4
    facts = []
    assert _draft_loop((0, 23, 0), "EAGLE3", True, facts)[0] == 0
    assert _draft_loop((0, 17, 1), None, False, facts) == (0, False)
    assert not [f for f in facts if "bookkeeping ops" in f]
