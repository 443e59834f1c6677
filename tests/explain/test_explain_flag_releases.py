"""`tpkit explain` fixes in the spelling of the log's release (helper fix22, session 22; explain.diagnose.release_fixes)."""

from __future__ import annotations

import json

from tpkit.cli import main
from tpkit.explain.diagnose import Diagnosis, Fix, release_fixes
from tests.explain.explain_testlib import DATA


def _diag(flags: str) -> Diagnosis:
    return Diagnosis(status="failed", phase="cuda_graph", cause="x",
                     fixes=(Fix(flags=flags, kv_tokens=None, fits=True, why="w"),))


def test_sglang_0_5_20_on_writes_the_decode_graph_flag():
    """0.5.20 registers no --cuda-graph-max-bs; --cuda-graph-max-bs-decode is the same setting (0.5.14+)."""
    d = release_fixes(_diag("--cuda-graph-max-bs 80"), "sglang", "0.5.23")
    assert d.fixes[0].flags == "--cuda-graph-max-bs-decode 80" and d.fixes[0].note == ""
    assert release_fixes(_diag("--cuda-graph-max-bs 80"), "sglang", "0.5.17").fixes[0].flags == \
        "--cuda-graph-max-bs 80"


def test_a_flag_the_release_lacks_is_said_plainly():
    d = release_fixes(_diag("--kv-cache-memory-bytes 2G"), "vllm", "0.9.2")
    assert "vLLM 0.9.2 has no --kv-cache-memory-bytes (first in 0.10.2)" in d.fixes[0].note
    assert "--gpu-memory-utilization" in d.fixes[0].note
    assert release_fixes(_diag("--max-model-len 4096"), "vllm", None).fixes[0].note == ""


def test_sg_031_graph_fix_on_a_release_without_cuda_graph_max_bs(capsys, tmp_path):
    """sg_031's line formats say SGLang 0.2.15–0.3.3, which has no --cuda-graph-max-bs (first in 0.4.0).  Its
    excerpt cuts the capture's error, which since round ex32 names no cause (``explain.unnamed``): the test ends the
    cut traceback with an out-of-memory line, so the capture's memory fixes are written for that release."""
    log = tmp_path / "sg_031_oom.log"
    log.write_bytes((DATA / "sglang" / "sg_031.log").read_bytes().rstrip(b"\n")
                    + b"\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    main(["explain", str(log), "--json"])
    fixes = json.loads(capsys.readouterr().out)["diagnosis"]["fixes"]
    graph = [f for f in fixes if "--cuda-graph-max-bs" in f["flags"]]
    assert graph and "has no --cuda-graph-max-bs" in graph[0]["note"]
    assert "--disable-cuda-graph" in graph[0]["note"]
