"""GPUs an engine does not run on, and `tpkit perf` at tp 1 (helper cc21, 2026-12-06, session 21).

Before: a ``--machine`` profile of Tesla P40s (compute capability 6.1, a name the catalog does not hold) planned for
vLLM and SGLang without a word, though neither runs there (``tpkit.engines.MIN_COMPUTE_CAPABILITY`` cites the sources:
SGLang's 'SGLang only supports sm75 and above.', vLLM's "compute capability 7.0 or higher" and its wheels' kernels);
``tpkit perf --engine sglang --gpu V100`` modelled SGLang on a GPU it refuses.  ``tpkit perf --tp 1`` listed every
all-reduce backend at "0.0 µs" where no all-reduce runs.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from clirun import cli, refused

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"


def _profile(tmp_path, name: str, cc: list[int], count: int = 2):
    gpu = {"index": 0, "name": name, "total_bytes": 25_350_000_000, "free_bytes": 25_000_000_000,
           "compute_capability": cc}
    path = tmp_path / "machine.json"
    path.write_text(json.dumps({"profile_version": 1, "gpus": [dict(gpu, index=i) for i in range(count)]}))
    return str(path)


def test_vllm_refuses_a_probed_p40(capsys, tmp_path):
    line = refused(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--machine", _profile(tmp_path, "Tesla P40", [6, 1]),
                   "--tp", "2", says=("vLLM does not run on Tesla P40 (compute capability 6.1)",
                                      "compute capability 7.0 or higher", "no kernel image is available",
                                      "pick a GPU of SM70 or newer"))
    assert "--engine" not in line  # SGLang's floor is higher still: no engine to point at


def test_sglang_refuses_a_probed_p40(capsys, tmp_path):
    refused(capsys, "plan", LLAMA_8B, "--machine", _profile(tmp_path, "Tesla P40", [6, 1]), "--tp", "2",
            says=("SGLang does not run on Tesla P40 (compute capability 6.1)", "'SGLang only supports sm75 and above.'",
                  "pick a GPU of SM75 or newer"))


def test_a_probed_gpu_the_catalog_lacks_still_plans_above_the_floor(capsys, tmp_path):
    path = _profile(tmp_path, "Some Future GPU", [8, 9], count=1)
    for engine in ("vllm", "sglang"):
        code, out, err = cli(capsys, "plan", LLAMA_8B, "--engine", engine, "--machine", path, "--json")
        assert code in (0, 3) and json.loads(out)["engine"] == engine, (engine, code, err)  # 3: does not fit


def test_a_sm70_probe_is_vllms_and_not_sglangs(capsys, tmp_path):
    path = _profile(tmp_path, "Tesla V100-SXM2-16GB-like", [7, 0], count=1)
    code, out, err = cli(capsys, "plan", LLAMA_8B, "--engine", "vllm", "--machine", path, "--dtype", "float16")
    assert code in (0, 3) and "does not run on" not in err, err
    refused(capsys, "plan", LLAMA_8B, "--machine", path, says=("compute capability 7.0", "--engine vllm"))


def test_the_api_refuses_too():
    from tpkit import ParallelSpec, VllmOptions, load_model, lookup_gpu
    from tpkit.engines.vllm.policy import plan_vllm
    from tpkit.errors import PlanInputError

    p40 = replace(lookup_gpu("T4"), name="Tesla P40", compute_capability=(6, 1))
    with pytest.raises(PlanInputError, match=r"vLLM does not run on Tesla P40 \(compute capability 6\.1\)"):
        plan_vllm(load_model(LLAMA_8B), p40, ParallelSpec(tp=1), VllmOptions(dtype="float16"))


def test_the_floors_agree_with_what_explain_reads():
    from tpkit.engines import MIN_COMPUTE_CAPABILITY
    from tpkit.engines.sglang.support import SGLANG_MIN_COMPUTE_CAPABILITY, sglang_runs_on

    assert MIN_COMPUTE_CAPABILITY == {"sglang": (7, 5), "vllm": (7, 0)}
    assert SGLANG_MIN_COMPUTE_CAPABILITY == (7, 5)
    assert not sglang_runs_on("NVIDIA", (7, 0)) and sglang_runs_on("NVIDIA", (7, 5))


def test_perf_refuses_sglang_on_a_v100(capsys):
    refused(capsys, "perf", LLAMA_8B, "--gpu", "V100", says=("SGLang does not run on V100-16GB (compute capability 7.0)",
                                                             "model it with --engine vllm"))


# --- tpkit perf at tp 1 ------------------------------------------------------------------------------------------------

def test_perf_at_tp1_says_once_that_no_all_reduce_runs(capsys):
    code, out, err = cli(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--tp", "1")
    assert code == 0, err
    assert "µs per all-reduce" not in out
    assert out.count("none needed at tp 1") == 1, out
    code, out, err = cli(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--tp", "1", "--json")
    d = json.loads(out)
    assert {b["source"] for b in d["backends"]} == {"no collectives at tp 1"}
    assert set(d["backends"][0]) == {"backend", "usable", "why", "us_per_call", "baseline_tok_s", "speculative_tok_s",
                                     "source"}


def test_perf_at_tp2_still_lists_the_backends(capsys):
    code, out, err = cli(capsys, "perf", LLAMA_8B, "--gpu", "H100", "--tp", "2")
    assert code == 0, err
    assert "none needed" not in out and out.count("µs per all-reduce") >= 3
