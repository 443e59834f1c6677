"""bench/decode_reference.py sizes its sweep before allocating: an 80 GB H100 cannot hold Llama-3.1-8B's KV cache for
batch 256 × context 2048 (64 GiB) next to its 15 GiB of weights, which a device run of 2026-12-08 hit as a CUDA OOM.
The size it checks must be what ``Weights`` really allocates, and the refusal must say what to pass instead."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))


@pytest.mark.parametrize("key", ["dense", "moe"])
def test_the_checked_size_is_what_the_weights_allocate(key):
    torch = pytest.importorskip("torch")
    import decode_reference as dr

    s = dr.shapes_of(dr.MODELS[key], tiny=True)
    wts = dr.Weights(s, 3, 40, "cpu")
    tensors = [wts.embed, wts.lm_head] + [t for layer in wts.layers for name, t in layer.items()
                                          if "norm" not in name]
    assert dr.weights_bytes(s, 3, 40) == sum(t.numel() * t.element_size() for t in tensors)
    assert all(isinstance(t, torch.Tensor) for t in tensors)


def test_an_h100_refuses_the_full_llama_sweep_with_the_numbers_and_the_remedy():
    pytest.importorskip("torch")
    import decode_reference as dr

    s = dr.shapes_of(dr.MODELS["dense"], tiny=False)
    free = int(78.66 * 2**30)
    with pytest.raises(MemoryError) as err:
        dr.check_fits(s, 256, 2048, free)
    text = str(err.value)
    assert "batch 256 × context 2048" in text and "78.66 GiB free" in text and "--batches" in text
    assert "the KV cache is 64.00 GiB" in text
    dr.check_fits(s, 128, 2048, free)          # half the batch fits: 32 GiB of cache + 15 GiB of weights
