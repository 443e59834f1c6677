"""vLLM FLASHINFER below SM 9.0 with speculative decoding (``perf.flashinfer_spec.flashinfer_spec_piecewise``): the
backend declares full CUDA graphs for single-token decode only (``UNIFORM_SINGLE_TOKEN_DECODE``), so with
``num_speculative_tokens`` > 0 vLLM sets ``cudagraph_mode=PIECEWISE`` ('is not supported with spec-decode for
attention backend …', config/compilation.py ``resolve_cudagraph_mode_and_sizes``) and the verify runs every layer's
attention eagerly between graph pieces; from 0.33 FlashInfer's native decode below SM 9.0 runs FA2 (``UNIFORM_BATCH``).
The case that raised it: Qwen3.8-27B MTP on 4x RTX 3090, vLLM 0.26.0, ``--attention-backend FLASHINFER`` (the
server logs capture only 'mixed prefill-decode, PIECEWISE' graphs).  Helper sp19a (2026-12-05)."""

import json
from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.runtime import runtime_for
from tpkit.perf.flashinfer_spec import FLASHINFER_SPEC_PIECEWISE, flashinfer_spec_piecewise

ROOT = Path(__file__).resolve().parents[2]
SM86 = (8, 6)


@pytest.mark.parametrize("backend, cc, version, algorithm, piecewise", [
    ("FLASHINFER", SM86, (0, 26, 0), "NEXTN", True),
    ("FLASHINFER", (8, 0), (0, 11, 0), "EAGLE3", True),     # 0.11.0: class attribute UNIFORM_SINGLE_TOKEN_DECODE
    ("FLASHINFER", SM86, (0, 32, 0), "MTP", True),
    ("FLASHINFER", SM86, (0, 33, 0), "NEXTN", False),       # FA2 native decode below SM 9.0: UNIFORM_BATCH
    ("FLASHINFER", SM86, (0, 10, 2), "NEXTN", False),       # before FULL_AND_PIECEWISE was the default
    ("FLASHINFER", SM86, (0, 26, 0), None, False),          # plain decoding keeps its full graphs
    ("FLASHINFER", (9, 0), (0, 26, 0), "NEXTN", False),     # SM90 / SM10x / SM12x: not this rule
    ("FLASHINFER", (10, 0), (0, 26, 0), "NEXTN", False),
    ("TRITON_ATTN", SM86, (0, 26, 0), "NEXTN", False),      # Triton attention: ALWAYS
    ("FLASH_ATTN", SM86, (0, 26, 0), "NEXTN", False),
])
def test_the_rule_at_its_boundaries(backend, cc, version, algorithm, piecewise):
    assert flashinfer_spec_piecewise(backend, cc, version, algorithm) is piecewise


def test_the_release_window_is_the_one_read():
    assert FLASHINFER_SPEC_PIECEWISE == ((0, 11, 0), (0, 33, 0))


@pytest.mark.parametrize("version, verify, draft", [
    ("0.26.0", "piecewise", "piecewise"),   # V1 runner (a hybrid model in 0.26): its drafter is piecewise anyway
    ("0.32.0", "piecewise", "eager"),       # Model Runner V2 (every model from 0.29): no draft graph
    ("0.33.0", "full", "full"),
])
def test_runtime_of_a_forced_flashinfer_backend_on_sm86(version, verify, draft):
    """Model Runner V2 resolves its graphs with the same check (0.32.0 v1/worker/gpu/model_runner.py calls
    ``resolve_cudagraph_mode_and_sizes`` with its decode query length)."""
    rt = runtime_for("vllm", version, compute_capability=SM86, mla=False, topk=1, algorithm="NEXTN",
                     attention_backend="FLASHINFER", head_dim=256, verify_tokens=3, hybrid=True)
    assert rt.verify_graph == verify
    assert rt.target_graph == "full"        # the plain (non-speculative) server keeps FULL decode graphs
    assert rt.draft_graph == draft
    assert any("spec-decode" in f for f in rt.facts) is (verify == "piecewise")


def test_on_hopper_the_same_flags_keep_full_graphs():
    rt = runtime_for("vllm", "0.26.0", compute_capability=(9, 0), mla=False, topk=1, algorithm="NEXTN",
                     attention_backend="FLASHINFER", head_dim=256, verify_tokens=3)
    assert rt.verify_graph == "full"


def _speedup(version):
    model = load_model(str(ROOT / "tests/validation/configs/Qwen--Qwen2.5-0.5B-Instruct.json"))
    out = plan_perf(PerfRequest(model=model, gpu=lookup_gpu("RTX-3090"), tp=1, batch=1, context=4096,
                                engine="vllm", engine_version=version, attention_backend="FLASHINFER",
                                spec=SpecSettings(algorithm="EAGLE3", num_steps=2, topk=1, num_draft_tokens=3),
                                accept_length=2.3))
    return out.speculative


def test_a_small_model_pays_the_eager_attention_launches_in_its_verify():
    """Qwen2.5-0.5B on one RTX 3090: the verify's GPU work is below the piecewise launches of its 24 layers, so the
    cycle grows (0.26.0: 3.80 ms) against 0.33.0 (2.74 ms), whose FA2 native decode replays the verify as one full
    graph; Model Runner V2 (this model's runner in both) also loses its later draft graphs under the downgrade."""
    old, new = _speedup("0.26.0"), _speedup("0.33.0")
    assert old.cycle_us > new.cycle_us * 1.2
    assert old.speedup < new.speedup
    parts = dict(old.parts_us)
    assert parts["verify launch-bound (in verify)"] > 0 and dict(new.parts_us)["verify launch-bound (in verify)"] == 0


def test_the_p18_flashinfer_rows_carry_the_logged_acceptance():
    """Helper sp19a read the vLLM server logs of p18_q38_4x3090: 28 of its 35 vLLM rows carry the acceptance of the
    10 s statistics interval that holds their decode alone; 7 keep the family default, each note says why."""
    data = json.loads((ROOT / "bench/data/published_spec.json").read_text())
    rows = [r for r in data["rows"] if r["source"] == "p18_q38_4x3090" and r["engine"] == "vllm"]
    stated = [r for r in rows if r["accept_length"] is not None]
    assert (len(rows), len(stated)) == (35, 28)
    assert all(2.0 <= r["accept_length"] <= 2.7 and "SpecDecoding metrics" in r["note"] for r in stated)
    assert all("no per-point acceptance in the server log" in r["note"] for r in rows if r["accept_length"] is None)
    assert all(r["accept_length"] is None for r in data["rows"]
               if r["source"] == "p18_q38_4x3090" and r["engine"] == "sglang")
