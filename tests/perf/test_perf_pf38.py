"""Round pf38 (issue 13, session 38): the wrong signs of the published rows re-read (helper pf38, 2026-12-08).

docs/accuracy.md §4.3 "Wrong signs re-read, round pf38".  Three things are pinned here:

1. The honest split of ``bench/decode_published.py``'s summary: the held-out comparable rows whose accept length the
   source printed, and those where it printed none and tpkit's family default is assumed (``*``).  The two parts
   partition the held-out line.
2. vLLM's NVFP4 GEMM backend (``perf.fp4_backend``): ``VLLM_NVFP4_GEMM_BACKEND=marlin`` runs NVFP4 linear layers as
   W4A16, at the 16-bit rate (vLLM 0.19.1 ``nvfp4_utils.select_nvfp4_linear_backend``, ``apply_fp4_marlin_linear``);
   s37_hochelaga_5090_e3 set it, and its six rows carry it.
3. The SageMaker report's C=32 level ran 30 requests ("*30 requests/concurrency level.*"): rows at batch 30.
"""

import json
import subprocess
import sys

import pytest

from test_perf_published_rows import DATA, ROOT, bench  # noqa: F401 (the published rows, the bench script fixture)
from tpkit.errors import PlanInputError


def _row(source: str) -> list[tuple[int, dict]]:
    return [(i, r) for i, r in enumerate(DATA["rows"], 1) if r["source"] == source]


# ---------------------------------------------------------------------------------------------- 1. the split
def test_split_partitions_the_held_out_rows_by_where_the_accept_length_comes_from(bench):
    """Synthetic rows: a training row, a not-comparable row and four held-out rows (two printed, two assumed)."""
    rows = [dict(source="t", measured_speedup=1.2, base_tok_s=None, spec_tok_s=None, accept_length=2.0),
            dict(source="h", measured_speedup=1.2, base_tok_s=None, spec_tok_s=None, accept_length=2.5),
            dict(source="h", measured_speedup=0.8, base_tok_s=None, spec_tok_s=None, accept_length=1.9),
            dict(source="h", measured_speedup=0.9, base_tok_s=None, spec_tok_s=None, accept_length=None),
            dict(source="h", measured_speedup=1.5, base_tok_s=None, spec_tok_s=None, accept_length=None),
            dict(source="h", measured_speedup=0.7, base_tok_s=None, spec_tok_s=None, accept_length=None,
                 not_comparable="cold")]
    s = bench.scores({"rows": rows, "split": {"train": ["t"]}}, [1.3, 1.25, 1.1, 1.2, 1.6, 2.0])
    printed, assumed = s["held_out_accept_printed"], s["held_out_accept_assumed"]
    assert (printed["rows"], printed["sign_ok"], printed["within_25"]) == (2, 1, 1)
    assert (assumed["rows"], assumed["sign_ok"], assumed["within_25"]) == (2, 1, 1)
    assert printed["rows"] + assumed["rows"] == s["held_out"]["rows"] == 4
    assert printed["sign_ok"] + assumed["sign_ok"] == s["held_out"]["sign_ok"]
    lines = bench.split_lines(s)
    assert lines[0].startswith("held-out, accept length printed by the source: 2 rows: sign right in 1 (50%)")
    assert lines[1].startswith("held-out, accept length assumed (family default, *): 2 rows: sign right in 1 (50%)")
    empty = bench.scores({"rows": rows[:3], "split": {"train": ["t"]}}, [1.3, 1.25, 1.1])
    assert bench.split_lines(empty)[1] == "held-out, accept length assumed (family default, *): 0 rows"


def test_the_split_counts_of_the_data():
    """The held-out comparable rows of the data: 247 with the source's accept length, 211 on the family default
    (2026-12-08, 458 in all; sp38's rows may move the counts at merge: the two still add up)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from decode_published import accept_printed, comparable

    train = set(DATA["split"]["train"])
    held = [r for r in DATA["rows"] if comparable(r) and r["source"] not in train]
    printed = [r for r in held if accept_printed(r)]
    assert len(printed) + len([r for r in held if not accept_printed(r)]) == len(held)
    # + sp38's 41 and sp38b's 9 comparable held-out rows, all with printed accept lengths (lead, session 38)
    assert (len(held), len(printed)) == (508, 297)


# ---------------------------------------------------------------------------------------------- 2. NVFP4 via Marlin
def test_marlin_prices_nvfp4_linear_gemms_at_the_16_bit_rate():
    """Same bytes, bf16 rate, linear GEMMs only (the expert GEMMs and other backends untouched)."""
    from tpkit.perf.fp4_backend import nvfp4_backend_kernels
    from tpkit.perf.kernels import Kernel

    ks = [Kernel(kind="gemm", name="qkv", bytes=1e6, flops=1e9, dtype="fp4"),
          Kernel(kind="grouped", name="experts", bytes=1e6, flops=1e9, dtype="fp4"),
          Kernel(kind="gemm", name="lm_head", bytes=1e6, flops=1e9, dtype="bf16")]
    out = nvfp4_backend_kernels(ks, "marlin")
    assert [k.dtype for k in out] == ["bf16", "fp4", "bf16"]
    assert [k.bytes for k in out] == [k.bytes for k in ks]
    for backend in (None, "cutlass", "flashinfer-cutlass"):
        assert nvfp4_backend_kernels(ks, backend) == ks


def test_the_backend_is_vllms_and_named_as_vllm_names_it():
    from tpkit.perf.fp4_backend import check_nvfp4_gemm_backend

    check_nvfp4_gemm_backend("marlin", "vllm")
    check_nvfp4_gemm_backend(None, "sglang")
    with pytest.raises(PlanInputError, match="VLLM_NVFP4_GEMM_BACKEND"):
        check_nvfp4_gemm_backend("marlin", "sglang")
    with pytest.raises(PlanInputError, match="must be one of"):
        check_nvfp4_gemm_backend("machete", "vllm")


def test_the_output_says_how_nvfp4_is_priced():
    from tpkit.models import load_model
    from tpkit.perf.fp4_backend import nvfp4_backend_notes

    nvfp4 = load_model(str(ROOT / "tests/validation/configs/RedHatAI--Qwen3-8B-NVFP4.json")).quant
    assert nvfp4_backend_notes(None, nvfp4) == []
    assert "bf16 rate" in nvfp4_backend_notes("marlin", nvfp4)[0]
    assert "FP4 rate" in nvfp4_backend_notes("cutlass", nvfp4)[0]
    assert "changes nothing" in nvfp4_backend_notes("marlin", None)[0]


def test_hochelaga_rows_carry_the_sources_marlin_backend_and_it_reaches_the_prediction(bench):
    """s37_hochelaga_5090_e3 ('VLLM_NVFP4_GEMM_BACKEND=marlin'): every row carries the backend with the quote; the
    plain step at 1 stream is weight-bound (unchanged), at 100 / 256 streams the GEMMs run at the bf16 rate, and the
    two many-stream rows come to the measured side of 1 (0.59 / 0.51 measured)."""
    rows = _row("s37_hochelaga_5090_e3")
    assert [i for i, _ in rows] == [515, 516, 517, 518, 519, 520]
    assert {r["nvfp4_gemm_backend"] for _, r in rows} == {"marlin"}
    assert all("VLLM_NVFP4_GEMM_BACKEND=marlin" in r["nvfp4_gemm_backend_source"] for _, r in rows)
    assert "VLLM_NVFP4_GEMM_BACKEND=marlin" in DATA["sources"]["s37_hochelaga_5090_e3"]
    got = {}
    for i, r in rows:
        with_marlin = bench.predict(r)
        default = bench.predict({**r, "nvfp4_gemm_backend": None})
        got[i] = (default.speculative.speedup, with_marlin.speculative.speedup)
        assert "--nvfp4-gemm-backend" in bench.perf_argv(r)
    assert got[515][1] == pytest.approx(got[515][0], abs=0.01)        # one stream: weight-bound either way
    assert got[519][0] > 1 > got[519][1] and got[520][0] > 1 > got[520][1]
    assert got[519][1] == pytest.approx(0.912, abs=0.005) and got[520][1] == pytest.approx(0.889, abs=0.005)


def test_the_cli_takes_the_backend_and_refuses_it_for_sglang():
    model = "tests/validation/configs/RedHatAI--Qwen3-8B-NVFP4.json"
    base = [sys.executable, "-m", "tpkit", "perf", model, "--gpu", "RTX-5090", "--batch", "100", "--context", "512",
            "--json"]
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    runs = {}
    for extra in ([], ["--nvfp4-gemm-backend", "marlin"]):
        out = subprocess.run(base + ["--engine", "vllm"] + extra, cwd=ROOT, env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        runs[bool(extra)] = json.loads(out.stdout)["baseline"]["tok_s"]
    assert runs[True] < 0.7 * runs[False]            # 100 rows: the bf16 rate binds
    bad = subprocess.run(base + ["--engine", "sglang", "--nvfp4-gemm-backend", "marlin"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "VLLM_NVFP4_GEMM_BACKEND" in bad.stderr


# ---------------------------------------------------------------------------------------------- 3. 30 requests at C=32
def test_sagemaker_c32_rows_run_the_30_requests_the_report_sent():
    rows = [r for _, r in _row("s28_sm_qwen32b")]
    assert [r["batch"] for r in rows] == [1, 1, 30, 1, 30]
    for r in rows:
        if r["batch"] == 30:
            assert "30 requests/concurrency level" in r["batch_source"] and "Was 32" in r["batch_source"]
