"""vLLM's CUDA-graph sizes and modes as plan inputs, and read from logs (helper cap11, 2026-12-05).

Source (``pip download --no-deps vllm==X``, wheels 0.11.1, 0.15.0–0.33.0):

* ``--cudagraph-capture-sizes`` (``engine/arg_utils.py``, 0.11.1–0.33.0, ``nargs="+"``): the sizes replace vLLM's
  ladder, de-duplicated, sorted, those above ``max_num_batched_tokens`` dropped; with ``--max-cudagraph-capture-size``
  too, a top that differs from the largest size is refused (``config/vllm.py _set_cudagraph_sizes``).
* ``--optimization-level`` (``config/vllm.py OPTIMIZATION_LEVEL_00``…``03``, 0.15.0–0.33.0): cudagraph_mode NONE /
  PIECEWISE / FULL_AND_PIECEWISE / FULL_AND_PIECEWISE; -O0 also turns torch.compile off (``CompilationMode.NONE``).
* ``cudagraph_mode`` (``config/compilation.py CUDAGraphMode``; ``v1/worker/gpu/cudagraph_utils.py _init_candidates``,
  0.29.0): PIECEWISE graphs for every size, FULL for every size, FULL decode graphs up to max_num_seqs × query len.
* speculation: the default top is ``min(2 × max_num_seqs × (1 + k), 512)`` (0.15.0–0.33.0); from 0.29.0 the decode
  sizes ``n × (1 + k)`` are added; from 0.23.0 ``max_num_batched_tokens`` is added when it lies under the top.
"""

import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.graphs import capture_sizes, full_capture_sizes, graph_counts, mechanism_estimate
from tpkit.engines.vllm.option_checks import capture_size_list
from tpkit.engines.vllm.options import cudagraph_mode_of
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))
CASES = Path(__file__).resolve().parents[1] / "validation" / "cases" / "vllm.json"


def _plan(version="0.29.0", **kw):
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W)


def _graph_line(plan):
    return next((x for x in plan.ledger.items if x.item == "CUDA graphs (estimate)"), None)


# --cudagraph-capture-sizes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, sizes", [("1 2 4 8", (1, 2, 4, 8)), ("1,2,4", (1, 2, 4)), ("[1, 2, 4]", (1, 2, 4)),
                                         (["1", "2", "16"], (1, 2, 16)), ((8, 4, 4), (8, 4, 4))])
def test_the_list_is_read_in_vllms_spellings(text, sizes):
    assert capture_size_list(text) == sizes


@pytest.mark.parametrize("bad, said", [("-4", "'-4' is not a whole number"), ("1 x", "'x' is not a whole number"),
                                       ("", "is empty"), ([], "is empty"), ([1, 0], "0 is not a whole number"),
                                       ([1, 2.5], "2.5 is not a whole number"), ([True], "True is not"),
                                       (7, "must be a list of sizes")])
def test_bad_lists_are_refused_with_what_was_received(bad, said):
    with pytest.raises(PlanInputError, match="--cudagraph-capture-sizes") as err:
        VllmOptions(engine_version="0.29.0", cudagraph_capture_sizes=bad)
    assert said in str(err.value) and "1 2 4 8 16" in str(err.value)


def test_the_list_replaces_the_ladder_and_is_cut_at_the_batched_tokens():
    sizes = capture_sizes(max_num_seqs=256, max_num_batched_tokens=2048, compute_capability=(9, 0),
                          given_sizes=(64, 1, 4096, 8, 8, 2048))
    assert sizes == (1, 8, 64, 2048)
    line = _graph_line(_plan(cudagraph_capture_sizes="1 2 4 8 16"))
    assert "5 PIECEWISE + 5 FULL graphs" in line.source
    default = _graph_line(_plan())
    assert line.bytes.bytes < default.bytes.bytes


def test_the_list_and_a_different_cap_are_refused_as_vllm_refuses_them():
    VllmOptions(engine_version="0.29.0", cudagraph_capture_sizes=[1, 2, 16], max_cudagraph_capture_size=16)
    with pytest.raises(PlanInputError, match="differs from the largest of --cudagraph-capture-sizes"):
        VllmOptions(engine_version="0.29.0", cudagraph_capture_sizes=[1, 2, 16], max_cudagraph_capture_size=32)


def test_the_list_is_refused_before_0_11_1():
    with pytest.raises(PlanInputError, match="exists from vLLM 0.11.1"):
        VllmOptions(engine_version="0.11.0", cudagraph_capture_sizes="1 2 4")


def test_cli_takes_the_list_and_refuses_bad_values_without_a_traceback(capsys):
    base = ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H200",
            "--engine-version", "0.29.0"]
    assert main(base + ["--cudagraph-capture-sizes", "1", "2", "4", "8", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    line = next(x for x in doc["ledger"] if x["item"] == "CUDA graphs (estimate)")
    assert "4 PIECEWISE + 4 FULL graphs" in line["source"]
    for bad in (["-1"], ["a"], ["0", "8"]):
        assert main(base + ["--cudagraph-capture-sizes", *bad]) == 2
        err = capsys.readouterr().err
        assert "--cudagraph-capture-sizes" in err and "Traceback" not in err


# the ladder: batched tokens and speculation -------------------------------------------------------------------------

def test_from_0_23_the_batched_tokens_are_captured_when_under_the_top():
    kw = dict(max_num_seqs=256, max_num_batched_tokens=300, compute_capability=(9, 0))
    assert capture_sizes(**kw, release=(0, 20, 0))[-1] == 288
    assert capture_sizes(**kw, release=(0, 23, 0))[-2:] == (288, 300)


def test_the_data_centre_blackwell_ceiling_of_1024_starts_at_0_28():
    kw = dict(max_num_seqs=1024, max_num_batched_tokens=8192, compute_capability=(10, 0))
    assert capture_sizes(**kw, release=(0, 27, 1))[-1] == 512    # 0.27.1: min(2 × seqs, 512) on every GPU
    assert capture_sizes(**kw, release=(0, 28, 0))[-1] == 1024   # 0.28.0: 1024 on the SM 10.x family
    assert capture_sizes(**{**kw, "compute_capability": (9, 0)}, release=(0, 29, 0))[-1] == 512


def test_speculation_widens_the_default_top_and_adds_decode_sizes_from_0_29():
    kw = dict(max_num_seqs=64, max_num_batched_tokens=8192, compute_capability=(9, 0))
    assert capture_sizes(**kw)[-1] == 128                                         # 2 × 64
    assert capture_sizes(**kw, decode_query_len=4, release=(0, 20, 0))[-1] == 512  # min(2 × 64 × 4, 512)
    few = dict(max_num_seqs=6, max_num_batched_tokens=8192, compute_capability=(9, 0))
    assert capture_sizes(**few, decode_query_len=3, release=(0, 27, 1)) == (1, 2, 4, 8, 16, 24, 32)
    # 0.29.0: n × 3 for n in 1, 2, 4, 6 (the request ladder up to max_num_seqs) joins the ladder
    assert capture_sizes(**few, decode_query_len=3, release=(0, 29, 0)) == (1, 2, 3, 4, 6, 8, 12, 16, 18, 24, 32)
    # a given top keeps the ladder as it is (the decode sizes only join vLLM's own default)
    assert capture_sizes(**few, decode_query_len=3, max_capture_size=16, release=(0, 29, 0)) == (1, 2, 4, 8, 16)


def test_full_decode_graphs_under_speculation_per_runner():
    sizes = (1, 2, 4, 8, 16, 24, 32)
    assert full_capture_sizes(sizes, 6, 3, v2_runner=False) == (4, 8, 16)                 # 3 ≤ size ≤ 18
    assert full_capture_sizes(sizes, 6, 3, v2_runner=True) == (3, 6, 9, 18)              # rounded up to × 3, ≤ 18
    assert full_capture_sizes(sizes, 16) == (1, 2, 4, 8, 16) == full_capture_sizes(sizes, 16, v2_runner=True)


def test_a_speculative_plan_counts_the_wider_ladder():
    spec = '{"method": "eagle3", "model": "lmsys/SGLang-EAGLE3-Llama-3.1-8B-Instruct-SpecForge", ' \
           '"num_speculative_tokens": 3}'
    plain = _graph_line(_plan(max_num_seqs=64))
    wide = _graph_line(_plan(max_num_seqs=64, speculative_config=spec))
    assert "19 PIECEWISE + 11 FULL graphs" in plain.source
    assert "51 PIECEWISE + 33 FULL graphs" in wide.source and wide.bytes.bytes > plain.bytes.bytes


# -O and cudagraph_mode ------------------------------------------------------------------------------------------------

def test_graph_counts_by_mode():
    sizes, full = tuple(range(1, 11)), (1, 2, 3)
    assert graph_counts("FULL_AND_PIECEWISE", sizes, full) == (10, 3)
    assert graph_counts("PIECEWISE", sizes, full) == (10, 0)
    assert graph_counts("FULL", sizes, full) == (0, 10)
    assert graph_counts("FULL_DECODE_ONLY", sizes, full) == (0, 3)
    assert graph_counts("NONE", sizes, full) == (0, 0)


@pytest.mark.parametrize("kw, mode", [({}, "FULL_AND_PIECEWISE"), ({"optimization_level": 0}, "NONE"),
                                      ({"optimization_level": 1}, "PIECEWISE"),
                                      ({"optimization_level": 3}, "FULL_AND_PIECEWISE"),
                                      ({"optimization_level": 1, "cudagraph_mode": "full"}, "FULL"),
                                      ({"optimization_level": 0, "cudagraph_mode": "PIECEWISE"}, "NONE"),
                                      ({"optimization_level": 0, "cudagraph_mode": "FULL"}, "FULL"),
                                      ({"enforce_eager": True, "cudagraph_mode": "FULL"}, "NONE")])
def test_the_mode_follows_the_level_unless_given(kw, mode):
    assert cudagraph_mode_of(VllmOptions(engine_version="0.29.0", **kw)) == mode


def test_o1_counts_piecewise_graphs_only_and_o0_subtracts_none_and_compiles_nothing():
    layers = llama3_8b().num_layers  # H200: max_num_seqs 1024, 51 sizes
    o1 = _graph_line(_plan(optimization_level=1))
    assert o1.bytes == mechanism_estimate(piecewise=51, full=0, layers=layers, attention_backend="FLASH_ATTN")
    assert "51 PIECEWISE + 0 FULL graphs (PIECEWISE)" in o1.source
    o0 = _plan(optimization_level=0)
    eager = _plan(enforce_eager=True)
    assert _graph_line(o0) is None
    assert o0.ledger.get("activation peak (profile run, estimate)").bytes == \
        eager.ledger.get("activation peak (profile run, estimate)").bytes < \
        _plan().ledger.get("activation peak (profile run, estimate)").bytes   # no cold-compile scratch
    assert _graph_line(_plan(cudagraph_mode="NONE")) is None


@pytest.mark.parametrize("kw, said", [({"optimization_level": 4}, "must be 0, 1, 2 or 3"),
                                      ({"optimization_level": "2"}, "must be 0, 1, 2 or 3"),
                                      ({"cudagraph_mode": "ALL"}, "must be one of NONE, PIECEWISE"),
                                      ({"optimization_level": 1, "engine_version": "0.11.1"}, "from vLLM 0.15.0"),
                                      ({"cudagraph_mode": "PIECEWISE", "engine_version": "0.11.0"}, "from 0.11.1")])
def test_bad_levels_and_modes_are_refused(kw, said):
    kw = {"engine_version": "0.29.0", **kw}
    with pytest.raises(PlanInputError, match=said):
        VllmOptions(**kw)


# the validation cases and the logs ----------------------------------------------------------------------------------

def test_validation_cases_take_the_level_their_command_names():
    cases = {c["id"]: c for c in json.loads(CASES.read_text())}
    assert cases["vp_199"]["flags"]["optimization_level"] == 1      # '--optimization-level=1': PIECEWISE printed
    assert cases["vp_510"]["flags"]["optimization_level"] == 3
    named = [c for c in cases.values() if "--optimization-level" in (c.get("command") or "")]
    assert len(named) == 16 and all("optimization_level" in c["flags"] for c in named)


def test_vp_199_plans_piecewise_graphs_only_as_its_log_prints():
    import sys
    sys.path.insert(0, str(CASES.parents[1]))
    import harness

    case = next(c for c in harness.load_cases("vllm") if c["id"] == "vp_199")
    model, gpu, parallel, options = harness.inputs(case)
    line = _graph_line(plan_vllm(model, gpu, parallel, options))
    assert "25 PIECEWISE + 0 FULL graphs (PIECEWISE)" in line.source   # log: 'cudagraph_mode': PIECEWISE, 176 top
    # vl_274 (the same model, GPU and release, 25 PIECEWISE graphs only) derives 0.244 GiB from its log
    assert abs(line.bytes.gib - 0.244) < 0.03


def test_engine_config_and_non_default_args_give_the_graph_settings():
    from tpkit.logs.settings import _dump_settings, _non_default_settings

    config = ("Initializing a V1 LLM engine (v0.29.0) with config: model='m', enforce_eager=False, "
              "compilation_config={'mode': <CompilationMode.VLLM_COMPILE: 3>, ..., 'cudagraph_mode': "
              "<CUDAGraphMode.PIECEWISE: 1>, 'cudagraph_capture_sizes': [1, 2, 4, 8], ..., "
              "'max_cudagraph_capture_size': 8, ...}, kernel_config=KernelConfig(...)")
    got = {s.name: s.value for s in _dump_settings(config, line_no=1)}
    assert got["cudagraph_mode"] == "PIECEWISE" and got["cudagraph_capture_sizes"] == (1, 2, 4, 8)
    cut = config.replace("[1, 2, 4, 8]", "[1, 2, 4, ...")
    assert "cudagraph_capture_sizes" not in {s.name for s in _dump_settings(cut, line_no=1)}
    args = ("non-default args: {'model': 'm', 'max_cudagraph_capture_size': 179, 'optimization_level': '1', "
            "'compilation_config': {'cudagraph_mode': 'FULL_DECODE_ONLY'}}")
    got = {s.name: s.value for s in _non_default_settings(args, line_no=2)}
    assert got["cuda_graph_max_bs"] == 179 and got["optimization_level"] == "1"
    assert got["cudagraph_mode"] == "FULL_DECODE_ONLY"


def _log(tmp_path, lines):
    path = tmp_path / "vllm.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_from_log_fills_the_graph_flags_and_prefers_the_printed_list(tmp_path, capsys):
    cases = {c["id"]: c for c in json.loads((Path(__file__).resolve().parents[1] / "validation" / "data_public" /
                                             "vllm_cases.json").read_text())}
    log = _log(tmp_path, cases["vp_199"]["log"])
    cfg = Path(__file__).resolve().parents[1] / "validation" / "configs" / "google--gemma-4-26B-A4B-it.json"
    assert main(["plan", str(cfg), "--from-log", str(log), "--quantization", "fp8"]) == 0
    out = capsys.readouterr().out
    assert "--optimization-level 1: read from the log" in out
    assert "--cudagraph-mode PIECEWISE: read from the log" in out
    assert "--max-cudagraph-capture-size 179: read from the log" in out
    # an engine config that prints the final list: the list is planned, the cap it truncated is not
    lines = [x.replace("'cudagraph_mode': <CUDAGraphMode.PIECEWISE: 1>, ...",
                       "'cudagraph_mode': <CUDAGraphMode.PIECEWISE: 1>, 'cudagraph_capture_sizes': [1, 2, 4, 8, "
                       "16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, "
                       "176], ...") for x in cases["vp_199"]["log"]]
    assert any("'cudagraph_capture_sizes': [1" in x for x in lines)
    assert main(["plan", str(cfg), "--from-log", str(_log(tmp_path, lines)), "--quantization", "fp8"]) == 0
    out = capsys.readouterr().out
    assert "--cudagraph-capture-sizes 1 2 4 … 176 (25 sizes): read from the log" in " ".join(out.split())
    assert "--max-cudagraph-capture-size 179" not in out


def test_an_eager_runs_zero_cap_is_not_a_flag():
    from tpkit.explain.fromlog import _graph_flags

    class Ctx:
        rules_version = "0.29.0"

    kept = _graph_flags(Ctx(), [("max_cudagraph_capture_size", "cuda_graph_max_bs", 0),
                                ("cudagraph_mode", "cudagraph_mode", "NONE")])
    assert kept == [("cudagraph_mode", "cudagraph_mode", "NONE")]
    Ctx.rules_version = "0.11.0"
    assert _graph_flags(Ctx(), [("cudagraph_mode", "cudagraph_mode", "NONE"),
                                ("optimization_level", "optimization_level", 1)]) == []


def test_explain_compares_a_given_list_with_the_printed_one_as_sizes():
    from tpkit.explain.flagmerge import _same

    assert _same((1, 2, 4, 8), ["1", "2", "4", "8"]) and _same((1, 2, 4), "4,2,1")
    assert not _same((1, 2, 4, 8), ["1", "2", "4"]) and not _same((1, 2), ["x"])
