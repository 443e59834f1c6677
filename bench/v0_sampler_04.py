"""GPU replay of vLLM 0.4.1's V0 profile-run sampler (round rl35, lead 3; for the lead to run on a CUDA GPU).

bl34's release sweep (vp_1111–vp_1113, facebook/opt-6.7b on an H100 NVL, vLLM 0.3.1 / 0.4.0 / 0.5.0) prints 56 blocks
(448 MiB) fewer than tpkit plans, 0.6.0 (vp_1114) 31 fewer.  tpkit charges the profile's sampler at the V1 sampler's
measured 38 B per logit (``engines.vllm.sampler``) and the caching allocator's reserved-over-peak only for the Llama
layer (``engines.vllm.v0_reserved``: OPT is not replayed, the sampler's tensors are left out).  The 0.4.1 wheel's
sampler differs (``model_executor/layers/sampler.py`` ``Sampler.forward``, ``_apply_top_k_top_p``,
``_sample_with_torch``, ``_multinomial``; ``worker/model_runner.py profile_run``: top_p 0.99, top_k V − 1, max_num_seqs rows): it sorts
the logits in the model dtype (no fp32 copy), rebuilds the inverse permutation (int64 ``scatter_``) and gathers,
then holds softmax and log_softmax in fp32 together and copies ``probs[sample_indices]`` before the exponential
draw.  The source fixes the tensors, not the sort's scratch (cub segmented radix sort) or the allocator's
fragmentation, hence this replay.  It prints the allocated peak and the reserved growth per logit; the lead compares
them with 38 B (tpkit's charge) and with the ~74 B per logit the sweep's 448 MiB gap implies at 256 × 50,272.

    python bench/v0_sampler_04.py [--rows 256] [--vocab 50272] [--padded 50304] [--hidden 4096]
"""

from __future__ import annotations

import argparse
import json
import os


def replay(rows: int, vocab: int, padded: int, hidden: int) -> dict:
    """Allocated peak and reserved growth (bytes) of one 0.4.1 sampler pass, the caller's logits included."""
    import torch

    dev, dt = torch.device("cuda"), torch.float16
    hidden_states = torch.randn(rows, hidden, device=dev, dtype=dt)
    embedding = torch.randn(padded, hidden, device=dev, dtype=dt)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base_alloc, base_reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    logits = torch.matmul(hidden_states, embedding.t())[:, :vocab]  # LogitsProcessor._get_logits (view)
    temperatures = torch.ones(rows, device=dev, dtype=dt)
    top_ps = torch.full((rows,), 0.99, device=dev, dtype=dt)
    top_ks = torch.full((rows,), vocab - 1, device=dev, dtype=torch.int)
    logits.div_(temperatures.unsqueeze_(dim=1))
    logits = _top_k_top_p(logits, top_ps, top_ks)
    probs = torch.softmax(logits, dim=-1, dtype=torch.float)
    logprobs = torch.log_softmax(logits, dim=-1, dtype=torch.float)
    sample_indices = torch.arange(rows, device=dev, dtype=torch.long)
    chosen = probs[sample_indices]  # _sample_with_torch: a copy
    q = torch.empty_like(chosen).exponential_()
    tokens = chosen.div_(q).argmax(dim=1)
    torch.cuda.synchronize()
    out = {"rows": rows, "vocab": vocab, "allocated_peak": torch.cuda.max_memory_allocated() - base_alloc,
           "reserved_growth": torch.cuda.memory_reserved() - base_reserved,
           "torch": torch.__version__, "device": torch.cuda.get_device_name()}
    del probs, logprobs, tokens
    n = rows * vocab
    out.update(allocated_per_logit=out["allocated_peak"] / n, reserved_per_logit=out["reserved_growth"] / n)
    return out


def _top_k_top_p(logits, p, k):
    """``_apply_top_k_top_p`` of the 0.4.1 wheel, op for op."""
    import torch

    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)
    top_k_mask = logits_sort.size(1) - k.to(torch.long)
    top_k_mask = logits_sort.gather(1, top_k_mask.unsqueeze(dim=1))
    top_k_mask = logits_sort < top_k_mask
    logits_sort.masked_fill_(top_k_mask, -float("inf"))
    probs_sort = logits_sort.softmax(dim=-1)
    probs_sum = probs_sort.cumsum(dim=-1)
    top_p_mask = probs_sum <= 1 - p.unsqueeze(dim=1)
    top_p_mask[:, -1] = False
    logits_sort.masked_fill_(top_p_mask, -float("inf"))
    src = torch.arange(logits_idx.shape[-1], device=logits_idx.device).expand_as(logits_idx)
    logits_idx_inv = torch.empty_like(logits_idx).scatter_(dim=-1, index=logits_idx, src=src)
    return torch.gather(logits_sort, dim=-1, index=logits_idx_inv)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=256)
    ap.add_argument("--vocab", type=int, default=50272)
    ap.add_argument("--padded", type=int, default=50304)
    ap.add_argument("--hidden", type=int, default=4096)
    a = ap.parse_args()
    result = replay(a.rows, a.vocab, a.padded, a.hidden)
    print(json.dumps(result, indent=1))
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "v0_sampler_04.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
