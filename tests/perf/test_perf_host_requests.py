"""perf.runtime_sglang.spec_v1_request_host_us (helper sp19b, issue 13): SGLang spec v1 exposes the scheduler's per-request host work of
every speculative cycle; its size is the CPU measurement of bench/sglang_host_per_request.py (docs/benchmarks.md
§3.10).  Spec v2 and vLLM do not pay it."""

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf import PerfRequest, SpecSettings, plan_perf
from tpkit.perf.constants import C
from tpkit.perf.runtime_sglang import spec_v1_request_host_us
from tpkit.perf.runtime import runtime_for

ROOT = Path(__file__).resolve().parents[2]
LLAMA = load_model("meta-llama/Llama-3.1-8B-Instruct")
EAGLE = SpecSettings(algorithm="EAGLE", num_steps=3, topk=1, num_draft_tokens=4)
KEY = "sglang_spec_v1_host_per_request_us"
NEW_IDS = "sglang_spec_v1_host_per_request_new_ids_us"
PART = "host per running request (in overhead)"


def rt(engine, version, topk=1):
    return runtime_for(engine, version, compute_capability=(9, 0), mla=False, topk=topk, algorithm="EAGLE3")


def llama(batch, **kw):
    args = dict(model=LLAMA, gpu=lookup_gpu("H100"), tp=1, context=512, spec=EAGLE, engine="sglang",
                engine_version="0.4.4.post2", batch=batch, accept_length=2.18, max_running_requests=batch) | kw
    return plan_perf(PerfRequest(**args))


def test_only_sglang_without_spec_overlap_pays_per_running_request():
    h, new = C[KEY].value, C[NEW_IDS].value
    assert spec_v1_request_host_us(rt("sglang", "0.4.4.post2"), 24) == pytest.approx(24 * h)
    assert spec_v1_request_host_us(rt("sglang", "0.5.10"), 1) == pytest.approx(new)      # spec v1 (no overlap)
    assert spec_v1_request_host_us(rt("sglang", "0.5.13", topk=4), 64) == 0.0           # spec v2 overlaps
    assert spec_v1_request_host_us(rt("vllm", "0.34.0"), 64) == 0.0


def test_the_cycle_grows_by_the_measured_cost_per_running_request(monkeypatch):
    with_term = {b: llama(b).speculative for b in (4, 32)}
    monkeypatch.setitem(C, KEY, dataclasses.replace(C[KEY], value=0.0))
    without = {b: llama(b).speculative for b in (4, 32)}
    for b in (4, 32):
        assert dict(with_term[b].parts_us)[PART] == pytest.approx(b * 6.2)
        assert dict(without[b].parts_us)[PART] == 0.0
        assert with_term[b].cycle_us - without[b].cycle_us == pytest.approx(b * 6.2)
        assert with_term[b].speedup < without[b].speedup


def test_the_constants_are_the_recorded_measurements():
    run = json.loads((ROOT / "docs/runs/sglang_host_per_request_0.4.4.post2_2026-12-05.json").read_text())
    assert run["output"] == 512 and run["accept"] == 2.18
    assert C[KEY].value == pytest.approx(run["slope_us"], abs=0.05)
    later = json.loads((ROOT / "docs/runs/sglang_host_per_request_0.4.9_2026-12-05.json").read_text())
    assert later["output"] == 512 and later["accept"] == 2.18
    assert C[NEW_IDS].value == pytest.approx(later["slope_us"], abs=0.05)
    assert 0 < later["slope_us"] < run["slope_us"]        # 0.4.9 sends only the new ids


@pytest.mark.parametrize("version, key", [("0.4.4.post2", KEY), ("0.4.6", KEY), ("0.4.6.post3", KEY),
                                          ("0.4.6.post4", NEW_IDS), ("0.4.7", NEW_IDS), ("0.4.9", NEW_IDS)])
def test_the_cost_per_request_follows_the_release_that_sends_only_new_ids(version, key):
    """stream_output_generation sends decode_ids[req.send_decode_id_offset:] from 0.4.6.post4 (read in the
    0.4.6.post3 and 0.4.6.post4 wheels): the 0.4.9 measurement from there, the 0.4.4.post2 one before."""
    r = rt("sglang", version)
    assert r.stream_new_ids_only == (key == NEW_IDS)
    assert spec_v1_request_host_us(r, 8) == pytest.approx(8 * C[key].value)
    assert C[KEY].value != C[NEW_IDS].value


def test_the_script_extracts_decorated_classes_and_methods(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import sglang_host_per_request as shr
    finally:
        sys.path.remove(str(ROOT / "bench"))
    src = tmp_path / "m.py"
    src.write_text("X = 5\n\n@dataclass\nclass D:\n    a: int\n\nclass R:\n    def f(self):\n        return X\n"
                   "    def g(self):\n        return 0\n")
    code = shr._extract(src, {"X", "D"}, {"R": {"f"}})
    ns = {"dataclass": dataclasses.dataclass}
    exec(code, ns)
    assert ns["D"](a=1).a == 1 and ns["f"](None) == 5 and "g" not in ns
    with pytest.raises(SystemExit, match="unpacked sglang"):
        shr.load(tmp_path)
