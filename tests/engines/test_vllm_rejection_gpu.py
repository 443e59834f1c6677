"""GPU check of the dummy rejection-sampler term (skipped without CUDA; helper rs30, not yet run).

Replays, with plain torch ops, the tensors vLLM 0.17+'s ``_dummy_sampler_run`` holds when a speculative config adds
its rejection-sampler call on R requests of V logits (``v1/sample/rejection_sampler.py`` ``RejectionSampler.forward``,
``sample_recovered_tokens``; ``engines/vllm/sampler.py`` module doc) and compares the allocator's peak with
``rejection_bytes_per_logit("inv_q", 2, R)`` (30 B).  The Triton top-k/top-p works in place on the float32 rows with
a cached buffer that the ordinary sampler run already holds, so it is left out of both sides.  Run on the device:
``PYTHONPATH=src python -m pytest -q -p no:cacheprovider tests/engines/test_vllm_rejection_gpu.py -s``.
"""

import pytest

from tpkit.engines.vllm.sampler import rejection_bytes_per_logit

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu
if not torch.cuda.is_available():  # pragma: no cover - CPU CI
    pytest.skip("needs a CUDA GPU", allow_module_level=True)


def _rejection_peak(rows: int, vocab: int) -> int:
    """Allocator peak (bytes) of the dummy rejection-sampler call, from before its ``randn(R + R, V)`` logits."""
    dev = torch.device("cuda")
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    temp = torch.full((rows, 1), 0.5, device=dev)
    logits = torch.randn(rows + rows, vocab, device=dev, dtype=torch.bfloat16)   # num_tokens + num_reqs rows
    bonus_idx = torch.arange(1, 2 * rows, 2, device=dev)                         # make_dummy: target, bonus, …
    target_idx = torch.arange(0, 2 * rows, 2, device=dev)
    bonus_logits = logits[bonus_idx]
    raw_bonus = bonus_logits.to(torch.float32)                 # Sampler.forward, raw_logits mode: kept in the output
    work = bonus_logits.to(torch.float32)
    work.div_(temp)
    probs = work.softmax(dim=-1, dtype=torch.float32)
    q = torch.empty_like(probs).exponential_()
    bonus_ids = probs.div_(q).argmax(dim=-1)
    del work, probs, q
    raw_target = logits[target_idx].to(torch.float32)
    target = raw_target.clone()
    target.div_(temp)                                          # apply_sampling_constraints (top-k/top-p in place)
    target_probs = target.softmax(dim=-1, dtype=torch.float32)
    q = torch.empty(rows, vocab, dtype=torch.float32, device=dev)
    q.exponential_()
    inv_q = q.reciprocal()
    recovered = inv_q.argmax(dim=-1)                           # the recovered-token kernel reads probs × 1/q
    torch.cuda.synchronize()
    del bonus_ids, recovered, raw_bonus, raw_target, target, target_probs, q, inv_q, logits, bonus_logits
    return torch.cuda.max_memory_allocated() - base


@pytest.mark.parametrize("rows, vocab", [(1024, 262_144), (1024, 248_320), (256, 128_256)])
def test_rejection_peak_matches_the_estimate(rows, vocab):
    per_logit = _rejection_peak(rows, vocab) / (rows * vocab)
    estimate, triton = rejection_bytes_per_logit("inv_q", 2, rows)
    assert triton
    print(f"rows {rows} vocab {vocab}: {per_logit:.2f} B per logit (estimate {estimate})")
    assert abs(per_logit - estimate) / estimate < 0.05
