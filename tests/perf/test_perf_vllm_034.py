"""``tpkit perf`` and vLLM 0.34.0 (helper perf17, 2026-12-05): the newest release perf has read, and the draft-model
(STANDALONE) facts read in the 0.16.0–0.34.0 wheels (``perf.runtime_vllm`` ``DRAFT_MODEL_ASYNC_FIRST``,
``DRAFT_MODEL_V2_FIRST``, ``DRAFT_MODEL_V2_GRAPHS``).  EAGLE / EAGLE-3 / MTP run the same on 0.33.0 and 0.34.0:
same default attention backend (``platforms/cuda.py _get_backend_priorities`` unchanged), Model Runner V2 with FULL
draft-decode graphs (``AutoRegressiveSpeculator.init_cudagraph_manager``), async scheduling, TRITON_MLA splits."""

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.runtime import NEWEST, runtime_for

LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
DRAFT = load_model("tests/validation/configs/meta-llama--Llama-3.2-1B-Instruct.json")
SM90, SM100, SM120 = (9, 0), (10, 0), (12, 0)


def rt(version, algorithm="STANDALONE", cc=SM90, mla=False, **kw):
    return runtime_for("vllm", version, compute_capability=cc, mla=mla, topk=1, algorithm=algorithm,
                       architecture="LlamaForCausalLM", **kw)


def test_perf_assumes_vllm_0_34_0_when_no_version_is_given():
    assert NEWEST["vllm"] == (0, 34, 0)
    r = rt(None, "EAGLE3")
    assert r.version == (0, 34, 0) and not r.version_given


@pytest.mark.parametrize("version, overlap", [("0.20.0", False), ("0.27.0", False), ("0.28.0", True),
                                              ("0.33.0", True), ("0.34.0", True)])
def test_draft_model_keeps_async_scheduling_from_0_28(version, overlap):
    """config/vllm.py: the default branch turns async scheduling off for draft_model up to 0.27.0, not from 0.28.0."""
    r = rt(version)
    assert r.plain_overlap and r.spec_overlap is overlap


@pytest.mark.parametrize("version, draft", [
    ("0.28.0", "piecewise"), ("0.30.0", "piecewise"),   # V1 runner: draft_model unsupported by V2 in 0.29–0.30
    ("0.31.0", "eager"), ("0.33.0", "eager"),            # V2 draft-model speculator: no CUDA graph captured
    ("0.34.0", "full"), (None, "full"),                  # StandaloneARSpeculator: FULL draft decodes
])
def test_draft_model_graphs_by_release(version, draft):
    r = rt(version)
    assert (r.draft_graph, r.extend_graph, r.target_graph) == (draft, draft, "full")
    assert any("CUDA graph not yet supported" in f for f in r.facts) is (draft == "eager")


def test_draft_model_without_full_target_graphs_stays_eager_on_0_34():
    """FULL_DECODE_ONLY for the draft decodes only when the target's decode mode is FULL: eager mode → none."""
    assert rt("0.34.0", eager=True).draft_graph == "eager"
    from tpkit.perf.runtime_vllm import _vllm_draft_graph
    assert _vllm_draft_graph((0, 34, 0), "piecewise", True, "STANDALONE") == "eager"
    assert _vllm_draft_graph((0, 33, 0), "full", True, "STANDALONE") == "eager"
    assert _vllm_draft_graph((0, 34, 0), "full", True, "STANDALONE") == "full"


def _standalone(version):
    return plan_perf(PerfRequest(model=LLAMA, gpu=lookup_gpu("H100"), engine="vllm", engine_version=version,
                                 draft=DRAFT, spec=SpecSettings(algorithm="STANDALONE", num_steps=3, topk=1,
                                                                num_draft_tokens=4), accept_length=2.5))


def test_a_draft_model_cycle_on_0_33_pays_its_eager_launches_and_0_34_does_not():
    """Llama-3.1-8B + Llama-3.2-1B draft, H100, batch 1, k = 3: the 16-layer draft launched from Python is
    launch-bound on 0.31–0.33; 0.34 replays it as FULL graphs (and 0.30's V1 PIECEWISE sits between)."""
    old, v1, new = _standalone("0.33.0"), _standalone("0.30.0"), _standalone("0.34.0")
    launch = "draft launch-bound (in steps)"
    assert dict(old.speculative.parts_us)[launch] > 1000.0 and dict(new.speculative.parts_us)[launch] == 0.0
    assert new.speculative.cycle_us < v1.speculative.cycle_us < old.speculative.cycle_us
    assert old.speculative.speedup < 1.0 < new.speculative.speedup


@pytest.mark.parametrize("cc, mla", [(SM90, False), (SM90, True), (SM100, False), (SM100, True), (SM120, True),
                                     ((8, 9), False)])
@pytest.mark.parametrize("algorithm", ["EAGLE", "EAGLE3", "NEXTN"])
def test_eagle_family_runs_as_on_0_33(cc, mla, algorithm):
    """What perf models of an EAGLE/EAGLE-3/MTP cycle did not change from 0.33.0 to 0.34.0."""
    a, b = rt("0.33.0", algorithm, cc, mla), rt("0.34.0", algorithm, cc, mla)
    fields = ("attention_backend", "plain_overlap", "spec_overlap", "verify_split_kv", "verify_mla_prefill",
              "target_graph", "verify_graph", "draft_graph", "extend_graph", "drafter_queued",
              "verify_rows_per_token", "draft_loop_kernels")
    assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
