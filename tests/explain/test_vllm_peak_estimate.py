"""vLLM's printed peak activation and the applied CUDA-graph estimate (issue 12, ``tpkit.explain.vpeak``).

``v1/worker/gpu_worker.py Worker.determine_available_memory`` sets the printed "P GiB for peak activation" to
``transient_peak_headroom + cudagraph_memory_estimate_applied`` on the 0.27.0–0.34.0 "consumed memory (weights +
non-torch)" print, to ``torch_peak_increase + …_applied`` in 0.18.x and to ``torch_peak_increase`` alone in
0.19.0–0.26.0; the estimate is applied when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on (envs.py default "0"
in 0.18–0.19, "1" from 0.20.0).  Corpus: vl_290 (0.29.0, Qwen3-8B-FP8: P 1.69 GiB = 1.14 + the 0.55 GiB
estimate), vl_179 (0.31 excerpt, the estimate not printed), vl_207 (0.18.0, estimate measured, not applied).
Synthetic: vl_290's lines re-labelled 0.18.0 / 0.26.0 with the old wording, the estimate disabled, an excerpt."""

import json
from pathlib import Path

from explain_testlib import log_bytes

from tpkit.cli import main
from tpkit.explain import explain_log
from tpkit.explain.fromlog import measured_startup
GIB = 2**30

CONFIG = str(Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json")
NEW = ("Actual usage is 10.16 GiB for consumed memory (weights + non-torch), 1.69 GiB for peak activation, and")
ENABLED = "CUDA graph memory profiling is enabled (default since v0.21.0)."


def _gib(iv) -> float:
    return iv.mid.bytes / GIB


def _text() -> str:
    return log_bytes("vl_290").decode("utf-8")


def _old_wording(release: str, peak: str) -> str:
    """vl_290 re-labelled as ``release`` with the 0.18–0.26 wording (W 8.88, N 1.28 = C − W, P ``peak``)."""
    return _text().replace("0.29.0", release).replace(
        NEW, f"Actual usage is 8.88 GiB for weight, {peak} GiB for peak activation, 1.28 GiB for non-torch memory, and")


def _row(e, item):
    return next(r for r in e.anchored.rows if r.item == item)


def test_vl_290_peak_holds_the_applied_estimate():
    e = explain_log(log_bytes("vl_290"))
    a = e.anchored
    assert a.graph_use.peak_holds and a.graph_use.applied == a.graph_estimate
    assert abs(_gib(a.graph_estimate) - 0.55) < 0.006
    assert abs(_gib(a.activation) - (1.69 - 0.55)) < 0.011  # 1.14 GiB, not the printed 1.69
    assert _row(e, "activation peak less the CUDA-graph estimate").value == a.activation
    # available = requested − consumed − P (the estimate is inside P): reproduced
    assert _row(e, "available KV cache memory").check == "reproduced"
    # residual = weights + non-torch + (P − estimate) = C + 1.14
    assert abs(_gib(a.non_kv) - (10.16 + 1.14)) < 0.02


def test_vl_290_from_log_charges_the_estimate_once():
    e = explain_log(log_bytes("vl_290"))
    terms = measured_startup(e).terms
    assert abs(terms["activation_peak"].bytes / GIB - 1.14) < 0.011
    assert abs(terms["cuda_graphs"].bytes / GIB - 0.55) < 0.006
    # together they are the printed P, which is what vLLM took from the budget for both
    assert abs((terms["activation_peak"] + terms["cuda_graphs"]).bytes / GIB - 1.69) < 0.011


def test_old_wording_holds_it_in_0_18_not_in_0_26():
    # the same budget printed by 0.18.0 (P = torch peak + applied) and 0.26.0 (P = torch peak): both give the
    # activation term 1.14 GiB and reproduce the printed available KV
    for release, peak in (("0.18.0", "1.69"), ("0.26.0", "1.14")):
        e = explain_log(_old_wording(release, peak))
        a = e.anchored
        assert a.graph_use.peak_holds is (release == "0.18.0"), release
        assert abs(_gib(a.activation) - 1.14) < 0.011, release
        assert _row(e, "available KV cache memory").check == "reproduced", release
        terms = measured_startup(e).terms
        assert abs(terms["activation_peak"].bytes / GIB - 1.14) < 0.011, release
        assert abs(terms["cuda_graphs"].bytes / GIB - 0.55) < 0.006, release
    # read under the other rule, the print does not add up: 0.26.0 with P = 1.69 misses by the estimate
    wrong = explain_log(_old_wording("0.26.0", "1.69"))
    assert _row(wrong, "available KV cache memory").check == "differs"
    assert abs(_gib(wrong.anchored.activation) - 1.69) < 0.006


def test_estimate_not_applied_is_not_subtracted():
    # ≥ 0.20 with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0: the warning's advice "from U to U′"
    off = _text().replace(
        ENABLED + " The current --gpu-memory-utilization=0.9000 is equivalent to --gpu-memory-utilization=0.8649 "
        "without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase "
        "--gpu-memory-utilization to 0.9351. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
        "CUDA graph memory profiling is disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph "
        "memory is not accounted for during KV cache allocation, which may require lowering --gpu-memory-utilization "
        "to avoid OOM. Consider re-enabling it (the default as of v0.21.0) and increasing --gpu-memory-utilization "
        "from 0.9000 to 0.9351.")
    assert off != _text()
    e = explain_log(off)
    use = e.anchored.graph_use
    assert use.applied.high.bytes == 0 and use.estimate is not None and "not applied" in use.applied_why
    assert abs(_gib(e.anchored.activation) - 1.69) < 0.006
    assert abs(_gib(e.anchored.non_kv) - (14.09 - 2.24)) < 0.02  # requested − available, no estimate
    terms = measured_startup(e).terms
    assert terms["cuda_graphs"].bytes == 0 and abs(terms["activation_peak"].bytes / GIB - 1.69) < 0.006


def test_0_18_corpus_estimate_measured_not_applied():
    # vl_207 (0.18.0): "In v0.19, CUDA graph memory profiling will be enabled by default … from 0.9000 to 0.9163"
    e = explain_log(log_bytes("vl_207"))
    use = e.anchored.graph_use
    assert use.estimate is not None and use.applied.high.bytes == 0
    assert measured_startup(e).terms.get("cuda_graphs", None).bytes == 0


def test_estimate_applied_but_not_printed_stays_inside_the_peak():
    # an excerpt without the estimate lines (synthetic from vl_290, and the corpus excerpt vl_179, 0.31)
    cut = "\n".join(line for line in _text().splitlines()
                    if not any(k in line for k in ("Estimated CUDA graph memory", "CUDA graph pool memory",
                                                   "profiling is enabled")))
    for e in (explain_log(cut), explain_log(log_bytes("vl_179"))):
        use = e.anchored.graph_use
        assert use.applied is None and use.graphs_in_peak
        printed = _row(e, "activation peak (profile run)").value
        assert e.anchored.activation == printed
        measured = measured_startup(e)
        assert measured.graphs_in_peak and measured.terms["cuda_graphs"].bytes == 0
        assert _row(e, "available KV cache memory").check == "reproduced"


def _plan(capsys, log: Path, *extra) -> dict:
    assert main(["plan", CONFIG, "--from-log", str(log), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_from_log_vl_290(capsys):
    plan = _plan(capsys, Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_290.log")
    lines = {li["item"]: li["bytes"] for li in plan["ledger"]}
    assert abs(lines["activation peak (profile run, estimate)"] / GIB - 1.14) < 0.011
    assert abs(lines["CUDA graphs (estimate)"] / GIB - 0.55) < 0.006
    assert any(w.startswith("activation peak 1.14 GiB = the printed peak activation less the applied CUDA-graph "
                            "estimate 0.55 GiB") for w in plan["warnings"])


def test_plan_from_log_estimate_inside_the_peak(capsys, tmp_path):
    # the excerpt without the estimate lines: the printed P is charged whole, the graph line 0; a plan that drops
    # the log's activation peak (another compile cache) drops the 0 with it and plans both
    log = tmp_path / "excerpt.log"
    log.write_text("\n".join(line for line in _text().splitlines()
                             if not any(k in line for k in ("Estimated CUDA graph memory", "CUDA graph pool memory",
                                                            "profiling is enabled"))), encoding="utf-8")
    lines = {li["item"]: li["bytes"] for li in _plan(capsys, log)["ledger"]}
    assert abs(lines["activation peak (profile run, estimate)"] / GIB - 1.69) < 0.006
    assert lines["CUDA graphs (estimate)"] == 0
    plan = _plan(capsys, log, "--compile-cache", "warm")
    lines = {li["item"]: li["bytes"] for li in plan["ledger"]}
    assert lines["CUDA graphs (estimate)"] > 0
    assert any(w.endswith("(nor the CUDA-graph estimate it holds)") for w in plan["warnings"])
