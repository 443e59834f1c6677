"""GPU check of the profile-run sampler term (skipped without CUDA).

Replays, with plain torch ops, the tensors vLLM's dummy sampler run creates on R rows of V logits
(fp32 copy, temperature, top-k/top-p sort + masks + re-scatter, softmax, exponential noise) and compares the
allocator's peak with ``SAMPLER_BYTES_PER_LOGIT`` (the bf16 input is held by the caller and counted there).
"""

import json
import os

import pytest

from tpkit.engines.vllm.profile import SAMPLER_BYTES_PER_LOGIT

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu
if not torch.cuda.is_available():  # pragma: no cover - CPU CI
    pytest.skip("needs a CUDA GPU", allow_module_level=True)


def _top_k_top_p(logits, k, p):
    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)
    cutoff = logits_sort.gather(1, (logits_sort.size(1) - k.to(torch.long)).unsqueeze(dim=1))
    k_mask = logits_sort < cutoff
    logits_sort.masked_fill_(k_mask, -float("inf"))
    probs_sort = logits_sort.softmax(dim=-1)
    probs_sum = torch.cumsum(probs_sort, dim=-1, out=probs_sort)
    p_mask = probs_sum <= 1 - p.unsqueeze(dim=1)
    p_mask[:, -1] = False
    logits_sort.masked_fill_(p_mask, -float("inf"))
    return logits_sort.scatter(dim=-1, index=logits_idx, src=logits_sort)


def _sampler_peak(rows: int, vocab: int) -> int:
    dev = torch.device("cuda")
    logits_bf16 = torch.randn(rows, vocab, device=dev, dtype=torch.bfloat16)
    full = lambda v: torch.full((rows,), v, device=dev)  # noqa: E731
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    logits = logits_bf16.to(torch.float32)
    greedy = logits.argmax(dim=-1)
    logits.div_(full(0.5).unsqueeze(dim=1))
    filtered = _top_k_top_p(logits, full(vocab - 1), full(0.9))
    probs = filtered.softmax(dim=-1, dtype=torch.float32)
    noise = torch.empty_like(probs).exponential_()
    sampled = probs.div_(noise).argmax(dim=-1)
    torch.cuda.synchronize()
    del greedy, sampled
    return torch.cuda.max_memory_allocated() - base


@pytest.mark.parametrize("rows, vocab", [(1024, 151_936), (1024, 128_256), (256, 128_256)])
def test_sampler_peak_matches_the_estimate(rows, vocab):
    peak = _sampler_peak(rows, vocab)
    per_logit = peak / (rows * vocab) + 2  # + the bf16 logits the caller holds
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"sampler_{rows}x{vocab}.json"), "w") as f:
            json.dump({"rows": rows, "vocab": vocab, "peak_bytes": peak, "bytes_per_logit": per_logit}, f)
    print(f"rows {rows} vocab {vocab}: peak {peak / 2**30:.3f} GiB = {per_logit:.2f} B per logit "
          f"(estimate {SAMPLER_BYTES_PER_LOGIT})")
    assert abs(per_logit - SAMPLER_BYTES_PER_LOGIT) / SAMPLER_BYTES_PER_LOGIT < 0.1
