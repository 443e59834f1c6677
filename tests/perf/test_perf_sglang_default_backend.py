"""SGLang's automatic attention backend per release (``perf.runtime_sglang.sglang_default_backend``), helper sp14
(2026-12-05): before 0.4.6 an MHA model takes flashinfer and an MLA model runs triton (0.4.3 / 0.4.4.post2
``model_runner.py`` ``model_specific_adjustment``: "MLA optimization is turned on. Use triton backend"; 0.4.5 the same
default); 0.4.6 is the first release that picks fa3 on Hopper.  Triton's verify does not split the KV, so the MLA
rows of those releases price it that way."""

from tpkit.perf.runtime import runtime_for
from tpkit.perf.runtime_sglang import FA3_DEFAULT_FIRST, sglang_default_backend


def backend(version, *, mla, topk=1, cc=(9, 0)):
    return runtime_for("sglang", version, compute_capability=cc, mla=mla, topk=topk,
                       algorithm="EAGLE").attention_backend


def test_mla_runs_triton_before_0_4_6_and_fa3_on_hopper_from_it():
    assert FA3_DEFAULT_FIRST == (0, 4, 6)
    assert backend("0.4.3", mla=True) == backend("0.4.5", mla=True) == "triton"
    assert backend("0.4.6", mla=True) == "fa3"
    assert backend("0.4.5", mla=True, cc=(10, 0)) == "triton"


def test_mha_takes_flashinfer_before_0_4_6_even_on_hopper_with_a_chain():
    assert backend("0.4.4.post2", mla=False) == backend("0.4.5", mla=False) == "flashinfer"
    assert backend("0.4.6", mla=False) == "fa3"
    assert backend("0.4.6", mla=False, topk=4) == "flashinfer"


def test_a_given_backend_is_kept_and_the_old_mla_verify_does_not_split():
    rt = runtime_for("sglang", "0.4.3", compute_capability=(9, 0), mla=True, topk=4, algorithm="NEXTN")
    assert rt.attention_backend == "triton" and not rt.verify_split_kv
    given = runtime_for("sglang", "0.4.3", compute_capability=(9, 0), mla=True, topk=4, algorithm="NEXTN",
                        attention_backend="fa3")
    assert given.attention_backend == "fa3" and given.verify_split_kv
    assert sglang_default_backend((0, 5, 10), (12, 0), True, 1) == "triton"
