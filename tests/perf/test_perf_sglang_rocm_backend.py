"""SGLang's automatic attention backend on ROCm (``perf.runtime_sglang.sglang_rocm_backend``), helper mi20
(2026-12-06, session 20): the vendor comes from the GPU catalog, not the compute capability (MI300X reports 9.4,
which the NVIDIA rule read as Hopper → fa3, a backend SGLang does not run on ROCm).  Facts from the wheels: triton
up to 0.4.6; from 0.4.7 aiter for MHA, and for MLA aiter with 16 or 128 KV heads per rank (0.4.7–0.5.2 only
without speculation), else triton.  The aiter MHA verify does not split the KV; the aiter MLA verify does."""

import pytest

from tpkit.cli import main
from tpkit.errors import PlanInputError
from tpkit.perf.runtime import runtime_for
from tpkit.perf.runtime_sglang import (AITER_DEFAULT_FIRST, AITER_MLA_VERIFY_FIRST, AITER_MLA_HEADS,
                                       AITER_MLA_SPEC_FIRST, sglang_default_backend)


def rt(version, *, mla, heads=None, algorithm="EAGLE", vendor="AMD", cc=(9, 4), topk=1):
    return runtime_for("sglang", version, compute_capability=cc, mla=mla, topk=topk, algorithm=algorithm,
                       vendor=vendor, kv_heads_per_rank=heads)


def test_the_release_boundaries_as_read():
    assert AITER_DEFAULT_FIRST == (0, 4, 7) and AITER_MLA_SPEC_FIRST == (0, 5, 3) and AITER_MLA_HEADS == (16, 128)


@pytest.mark.parametrize("version, want", [("0.4.5", "triton"), ("0.4.6", "triton"), ("0.4.7", "aiter"),
                                           ("0.5.6", "aiter"), ("0.5.15", "aiter"), ("0.5.23", "aiter")])
def test_mha_on_rocm_is_triton_up_to_0_4_6_then_aiter(version, want):
    assert rt(version, mla=False).attention_backend == want
    assert rt(version, mla=False, algorithm=None).attention_backend == want
    assert rt(version, mla=False, topk=4).attention_backend == want  # the NVIDIA topk > 1 rule does not apply


def test_mla_on_rocm_takes_aiter_only_with_16_or_128_kv_heads_per_rank():
    for heads in (16, 128):
        assert rt("0.5.23", mla=True, heads=heads).attention_backend == "aiter"
    for heads in (8, 32, 64, None):
        assert rt("0.5.23", mla=True, heads=heads).attention_backend == "triton"
    assert rt("0.4.6", mla=True, heads=16, algorithm=None).attention_backend == "triton"
    assert rt("0.4.7", mla=True, heads=16, algorithm=None).attention_backend == "aiter"


def test_mla_with_speculation_runs_triton_until_0_5_2_and_aiter_from_0_5_3():
    assert rt("0.5.2", mla=True, heads=16).attention_backend == "triton"
    assert rt("0.5.2", mla=True, heads=16, algorithm=None).attention_backend == "aiter"
    assert rt("0.5.3", mla=True, heads=16).attention_backend == "aiter"
    assert rt("0.5.15", mla=True, heads=128).attention_backend == "aiter"


def test_aiter_verify_splits_the_kv_for_mla_not_for_mha():
    mha = rt("0.5.23", mla=False)
    assert not mha.verify_split_kv and any("aiter backend" in f for f in mha.facts)
    assert rt("0.5.23", mla=True, heads=16).verify_split_kv
    assert not rt("0.5.23", mla=True, heads=8).verify_split_kv  # triton


def test_nvidia_is_read_by_compute_capability_as_before():
    assert rt("0.5.23", mla=False, vendor="NVIDIA", cc=(9, 0)).attention_backend == "fa3"
    assert rt("0.5.23", mla=True, vendor="NVIDIA", cc=(9, 0), heads=16).attention_backend == "fa3"
    assert sglang_default_backend((0, 5, 23), (9, 4), False, 1) == "fa3"  # NVIDIA default: cc alone decides
    assert sglang_default_backend((0, 5, 23), (9, 4), False, 1, vendor="AMD") == "aiter"


def _perf(capsys, *argv):
    code = main(["perf", "meta-llama/Llama-3.1-8B-Instruct", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_mi300x_perf_text_names_the_rocm_backend(capsys):
    out = _perf(capsys, "--gpu", "MI300X", "--engine", "sglang", "--speculative-algorithm", "EAGLE3",
                "--speculative-eagle-topk", "1")
    engine = next(line for line in out.splitlines() if line.startswith("engine "))
    assert "attention aiter" in engine and "no_kv_split" in engine and "fa3" not in engine
    assert "get_default_attn_backend on ROCm" in out
    assert "--attention-backend flashinfer" not in out  # no FlashInfer what-if on ROCm
    old = _perf(capsys, "--gpu", "MI300X", "--engine", "sglang", "--engine-version", "0.4.6",
                "--speculative-algorithm", "EAGLE")
    assert "attention triton" in next(line for line in old.splitlines() if line.startswith("engine "))


def test_a_given_aiter_mla_verify_splits_the_kv_in_every_release():
    """0.5.0rc2 on: the aiter MLA target verify is mla_decode_fwd (split KV); 0.4.7 / 0.5.0rc0 have no such branch,
    so a given aiter with speculation is priced with the later kernel and says so."""
    assert AITER_MLA_VERIFY_FIRST == (0, 5, 0)
    for version, flagged in (("0.4.10", True), ("0.5.0rc0", False), ("0.5.1", False)):
        r = runtime_for("sglang", version, compute_capability=(9, 4), mla=True, topk=1, algorithm="NEXTN",
                        attention_backend="aiter", vendor="AMD", kv_heads_per_rank=16)
        assert r.attention_backend == "aiter" and r.verify_split_kv and not r.verify_mla_prefill
        assert any("no MLA target-verify branch" in f for f in r.facts) == flagged
    assert rt("0.5.0", mla=True, heads=16).attention_backend == "triton"  # the auto rule: no aiter MLA with spec yet


def test_aiter_is_refused_on_an_nvidia_gpu(capsys):
    code = main(["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--engine", "sglang",
                 "--attention-backend", "aiter"])
    out, err = capsys.readouterr()
    assert code == 2 and not out and "Traceback" not in err
    assert "--attention-backend aiter is SGLang's ROCm backend" in err and "NVIDIA" in err
    with pytest.raises(PlanInputError):
        runtime_for("sglang", "0.5.23", compute_capability=(9, 0), mla=False, topk=1, algorithm=None,
                    attention_backend="aiter")
