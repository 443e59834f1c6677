"""GPU check of the profile-run sampler term (skipped without CUDA).

Replays, with plain torch ops, the tensors vLLM's dummy sampler run creates on R rows of V logits
(fp32 copy, temperature, top-k/top-p sort + masks + re-scatter, softmax, exponential noise) and compares the
allocator's peak with ``SAMPLER_BYTES_PER_LOGIT`` (the bf16 input is held by the caller and counted there).
"""

import json
import os

import pytest

from tpkit.engines.vllm.sampler import SAMPLER_BYTES_PER_LOGIT

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu
if not torch.cuda.is_available():  # pragma: no cover - CPU CI
    pytest.skip("needs a CUDA GPU", allow_module_level=True)


def _sampler_peak(rows: int, vocab: int) -> int:
    """Allocator peak (bytes) of one top-k/top-p sampling pass over ``rows × vocab`` bf16 logits.

    The tensors are the ones such a pass must hold at once: an fp32 copy of the logits, the sorted
    values (fp32) with their permutation (int64), boolean masks over the sorted values, the
    probabilities, the filtered logits put back in vocabulary order, and exponential noise.
    """
    dev = torch.device("cuda")
    logits_bf16 = torch.randn(rows, vocab, device=dev, dtype=torch.bfloat16)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    rows_of = lambda v: torch.full((rows, 1), v, device=dev)  # noqa: E731 - per-request parameters
    scores = logits_bf16.to(torch.float32)                       # fp32 copy (the caller keeps it alive)
    scores.div_(rows_of(0.5))                                     # temperature, in place
    greedy = scores.argmax(dim=-1)
    ordered, perm = scores.sort(dim=-1)                           # ascending values + int64 permutation
    ordered.masked_fill_(ordered < ordered[:, 1:2], float("-inf"))  # top-k, k = vocab - 1
    mass = ordered.softmax(dim=-1)
    torch.cumsum(mass, dim=-1, out=mass)                          # cumulative probability, in place
    drop = mass <= 1 - rows_of(0.9)                               # top-p 0.9
    drop[:, -1] = False
    ordered.masked_fill_(drop, float("-inf"))
    filtered = ordered.scatter(-1, perm, ordered)                 # back to vocabulary order (new tensor)
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
