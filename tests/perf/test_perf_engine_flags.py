"""``tpkit perf`` takes the engines' own spellings of what it models (helper rev11, 2026-12-05).

Issue 13 names ``--disable-custom-all-reduce`` and ``--enable-torch-symm-mem`` as verdict flags, and perf's verdict
prints them (``perf.verdict._backend_flags``); passed back to ``tpkit perf`` they were refused ("no flag"). An SGLang
user's ``--enable-dp-attention --dp 8`` was refused too, though ``--dp`` is documented as exactly that.
"""

import json

import pytest

from tpkit.cli import main

LLAMA = ["perf", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100", "--tp", "4", "--json"]
DSV3 = ["perf", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--dp", "8", "--json"]


def _perf(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


@pytest.mark.parametrize("flag, backend", [("--disable-custom-all-reduce", "nccl"),
                                           ("--enable-torch-symm-mem", "symm_mem")])
def test_the_engines_all_reduce_flags_are_the_backend_they_leave(capsys, flag, backend):
    code, by_flag = _perf(capsys, LLAMA + [flag])
    assert code == 0, by_flag
    _, by_backend = _perf(capsys, LLAMA + ["--allreduce-backend", backend])
    assert by_flag["allreduce"]["backend"] == backend
    assert by_flag["baseline"] == by_backend["baseline"]


def test_enable_dp_attention_is_accepted_as_sglang_writes_it(capsys):
    code, with_flag = _perf(capsys, DSV3 + ["--enable-dp-attention"])
    assert code == 0, with_flag
    _, without = _perf(capsys, DSV3)
    assert with_flag["baseline"] == without["baseline"] and with_flag["dp_attention"] == 8


@pytest.mark.parametrize("extra, needle", [
    (["--disable-custom-all-reduce", "--allreduce-backend", "custom"], "means --allreduce-backend nccl"),
    (["--disable-custom-all-reduce", "--enable-torch-symm-mem"], "contradict each other"),
    (["--enable-torch-symm-mem", "--engine", "vllm"], "VLLM_ALLREDUCE_USE_SYMM_MEM=1"),
])
def test_contradicting_all_reduce_flags_are_refused(capsys, extra, needle):
    code, err = _perf(capsys, LLAMA + extra)
    assert code == 2 and needle in err and "Traceback" not in err
