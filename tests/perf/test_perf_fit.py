"""``tpkit perf`` says when the requested batch cannot be resident on one rank (helper rev11, 2026-12-05).

Before, ``tpkit perf Qwen/Qwen3-8B --gpu H100 --batch 100000`` printed 12,906 tok/s with no word that 100,000
requests of 1,024 tokens need ~14 TiB of KV cache on an 80 GB card: SGLang and vLLM admit only what their KV pool
holds. The bound (``tpkit.perf.verdict.resident_note``): all weights of the rank + the KV cache the plain step reads > the GPU total.
"""

import json

import pytest

from tpkit.cli import main

QWEN = ["perf", "Qwen/Qwen3-8B", "--gpu", "H100", "--json"]


def _verdict(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["verdict"]["message"].split("\n")


def test_a_batch_far_beyond_the_gpu_is_flagged_right_after_the_numbers(capsys):
    lines = _verdict(capsys, QWEN + ["--batch", "100000"])
    assert lines[1].startswith("Memory: 100,000 requests of 1,024 tokens hold 13.75 TiB of KV cache per rank")
    assert "more than the 79.19 GiB of one H100-SXM-80GB" in lines[1] and "`tpkit plan`" in lines[1]


@pytest.mark.parametrize("batch, flagged", [(56, False), (57, True)])
def test_the_bound_is_weights_plus_the_kv_cache_of_the_running_requests(capsys, batch, flagged):
    """Qwen3-8B: 36 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 147,456 B per token; 8,192 tokens per request
    (context 8,191 + the new one); weights 15.26 GiB of 79.19: (79.19 − 15.26) GiB / (8,192 × 147,456 B) = 56.8."""
    lines = _verdict(capsys, QWEN + ["--batch", str(batch), "--context", "8191"])
    assert any(x.startswith("Memory:") for x in lines) is flagged


def test_the_issue_scenario_is_not_flagged(capsys):
    lines = _verdict(capsys, ["perf", "moonshotai/Kimi-K2.5", "--tp", "8", "--speculative-algorithm", "EAGLE3",
                              "--engine-version", "0.5.10", "--context", "16384", "--accept-length", "2.04", "--gpu",
                              "RTX-PRO-6000", "--json"])
    assert not any(x.startswith("Memory:") for x in lines)


def test_an_mla_model_at_long_context_on_the_pcie_box(capsys):
    """Kimi-K2.5: 70,272 B of latent per token on every rank; 256 × 131,073 tokens = 2.14 TiB."""
    lines = _verdict(capsys, ["perf", "moonshotai/Kimi-K2.5", "--tp", "8", "--gpu", "RTX-PRO-6000", "--batch", "256",
                              "--context", "131072", "--json"])
    assert lines[1].startswith("Memory: 256 requests of 131,072 tokens hold 2.14 TiB of KV cache per rank")
