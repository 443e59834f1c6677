"""``--max-cudagraph-capture-size`` as a plan input (helper mcs10, 2026-12-05).  vLLM builds its capture sizes
1, 2, 4, 8…248 step 8, 256… step 16 up to ``CompilationConfig.max_cudagraph_capture_size``, default
``min(2 × max_num_seqs, 512)``, and caps the top at ``max_num_batched_tokens``; a given value is not capped at the
default (``config/vllm.py _set_cudagraph_sizes``, wheels 0.15.0, 0.20.0, 0.29.0, 0.33.0).  The flag exists from
0.11.1 (``engine/arg_utils.py``; 0.11.0 and earlier have ``--cuda-graph-sizes`` only, 0.11.1 both, 0.15.0 and later
this one only).  The graph count feeds the CUDA-graph estimate vLLM subtracts from 0.20."""

import json
import re
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.graph_fa3 import fa3_split_accumulators
from tpkit.engines.vllm.graphs import capture_sizes, full_capture_sizes, mechanism_estimate
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _sizes(cap, seqs=256, tokens=8192, cc=(8, 9)):
    return capture_sizes(max_num_seqs=seqs, max_num_batched_tokens=tokens, compute_capability=cc,
                         max_capture_size=cap)


def test_the_cap_stops_vllms_ladder():
    assert len(_sizes(None)) == 51 and _sizes(None)[-1] == 512
    assert len(_sizes(256)) == 35 and _sizes(256)[-1] == 256        # the 35 PIECEWISE graphs of vp_194's log
    assert _sizes(16) == (1, 2, 4, 8, 16)                            # vp_510's printed sizes
    assert _sizes(179)[-1] == 176 and len(_sizes(179)) == 25         # vp_199: 'capture sizes up to 176'
    assert _sizes(1) == (1,) and _sizes(3) == (1, 2)


def test_a_given_cap_is_not_capped_at_the_default_but_at_the_batched_tokens():
    assert _sizes(1024, seqs=64)[-1] == 1024 and len(_sizes(1024, seqs=64)) == 83
    # 0.20.0 stops the ladder at the batched tokens; from 0.23.0 vLLM adds the batched tokens themselves when they
    # lie under the top ('ensure max_num_tokens is captured', config/vllm.py _set_cudagraph_sizes; helper cap11)
    assert capture_sizes(max_num_seqs=64, max_num_batched_tokens=600, compute_capability=(8, 9),
                         max_capture_size=1024, release=(0, 20, 0))[-1] == 592
    assert _sizes(1024, seqs=64, tokens=600)[-2:] == (592, 600)
    assert len(full_capture_sizes(_sizes(256, seqs=128), 128)) == 19


def _graphs(version, **kw):
    plan = plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W)
    return plan.extra["cuda_graph_bytes"]


@pytest.mark.parametrize("version", ["0.20.0", "0.21.0"])
def test_the_cap_sets_the_graph_count_of_the_estimate(version):
    layers = llama3_8b().num_layers  # H200: max_num_seqs 1024, so 51 PIECEWISE + 51 FULL by default
    # FA3 on the H200: its split-KV accumulators at the largest FULL size (graph_fa3, helper vx25): 258 MiB at 512
    # tokens, above the 0.155 GiB first capture; 129 MiB at 256, under it
    fa3 = {top: fa3_split_accumulators(heads=32, head_dim_v=128, tokens=top, sequences=top) for top in (256, 512)}
    default = mechanism_estimate(piecewise=51, full=51, layers=layers, attention_backend="FLASH_ATTN",
                                 full_buffers=fa3[512]).bytes
    capped = mechanism_estimate(piecewise=35, full=35, layers=layers, attention_backend="FLASH_ATTN",
                                full_buffers=fa3[256]).bytes
    assert capped == mechanism_estimate(piecewise=35, full=35, layers=layers, attention_backend="FLASH_ATTN").bytes
    assert _graphs(version) == default
    assert _graphs(version, max_cudagraph_capture_size=256) == capped < default
    assert _graphs(version, max_cudagraph_capture_size=512) == default


def test_before_0_20_the_flag_is_accepted_but_nothing_is_subtracted():
    assert _graphs("0.19.0", max_cudagraph_capture_size=256) == 0
    assert _graphs("0.11.1", max_cudagraph_capture_size=256) == 0


@pytest.mark.parametrize("version", ["0.11.0", "0.10.2", "v0"])
def test_releases_without_the_flag_refuse_it(version):
    with pytest.raises(PlanInputError, match="--max-cudagraph-capture-size exists from vLLM 0.11.1.*--cuda-graph-sizes"):
        VllmOptions(engine_version=version, max_cudagraph_capture_size=256)


@pytest.mark.parametrize("bad", [0, -16, 1.5])
def test_bad_values_are_refused(bad):
    with pytest.raises(PlanInputError, match="max.cudagraph.capture.size"):
        VllmOptions(engine_version="0.29.0", max_cudagraph_capture_size=bad)


def test_cli_flag_help_and_refusal(capsys):
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    assert "--max-cudagraph-capture-size" in capsys.readouterr().out
    assert main(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H200",
                 "--engine-version", "0.21.0", "--max-cudagraph-capture-size", "0"]) == 2
    err = capsys.readouterr().err
    assert "max-cudagraph-capture-size" in err and "Traceback" not in err
    assert main(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H200",
                 "--engine-version", "0.21.0", "--max-cudagraph-capture-size", "256", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    line = next(x for x in doc["ledger"] if x["item"] == "CUDA graphs (estimate)")
    assert "35 PIECEWISE + 35 FULL" in line["source"]



def test_validation_cases_take_the_cap_their_command_names():
    cases = {c["id"]: c for c in json.loads((Path(__file__).resolve().parents[1] / "validation" / "cases" /
                                             "vllm.json").read_text())}
    assert cases["vp_194"]["flags"]["max_cudagraph_capture_size"] == 256
    assert cases["vp_510"]["flags"]["max_cudagraph_capture_size"] == 16
    assert cases["vp_199"]["flags"]["max_cudagraph_capture_size"] == 179
    assert cases["vp_1061"]["flags"]["max_cudagraph_capture_size"] == 2048
    named = 0
    for c in cases.values():
        command = c.get("command") or ""
        if "--max-cudagraph-capture-size" in command:
            named += 1
        elif "cudagraph_capture_sizes" in command and "max_cudagraph_capture_size" in c["flags"]:
            # the cap a --compilation-config's capture sizes imply: their largest (bl29b's vp_958: [1, 2, 4, 8])
            sizes = re.search(r"cudagraph_capture_sizes[\"']?:? ?\[([\d, ]+)\]", command)
            assert sizes and c["flags"]["max_cudagraph_capture_size"] == max(map(int, sizes.group(1).split(","))), c["id"]
        else:
            assert "max_cudagraph_capture_size" not in c["flags"], c["id"]
    assert named == 23  # + bl29: vp_939-vp_943 (InferenceX launches name the cap); + bl36b: vp_1061, vp_1062 (the same)
