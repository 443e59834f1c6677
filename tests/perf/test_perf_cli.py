"""`tpkit perf`: JSON schema of issue 13, text output, user errors (exit 2), no torch."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tpkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
KIMI = ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8"]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_the_keys_of_the_issue(capsys):
    code, out, _ = run(KIMI + ["--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "3",
                               "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
                               "--accept-length", "1.5", "--json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert set(d["baseline"]) == {"step_s", "tok_s"}
    assert {"cycle_s", "tok_s", "accept_length", "speedup"} <= set(d["speculative"])
    assert {"calls_per_forward", "us_per_call", "backend", "source"} <= set(d["allreduce"])
    assert set(d["verdict"]) == {"message", "flags"}
    assert "crossover_batch" in d and "best_settings" in d
    assert d["speculative"]["accept_length"] == pytest.approx(1.5, abs=1e-3)
    assert d["crossover_batch"] == 1


def test_text_output_and_plain_decoding(capsys):
    code, out, _ = run(["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H200"], capsys)
    assert code == 0 and "plain decoding" in out and "verdict" in out
    d = json.loads(run(["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H200", "--json"], capsys)[1])
    assert d["speculative"] is None and d["crossover_batch"] is None and d["allreduce"]["calls_per_forward"] == 0


def test_measured_profile_is_used(capsys, tmp_path):
    from tpkit.comm.profile import default_profile, profile_to_dict

    path = tmp_path / "prof.json"
    path.write_text(json.dumps(profile_to_dict(default_profile())))
    d = json.loads(run(["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "2",
                        "--allreduce-profile", str(path), "--json"], capsys)[1])
    assert d["allreduce"]["source"].startswith("measured profile")


@pytest.mark.parametrize("extra, needle", [
    (["--gpu", "H300"], "unknown GPU"),
    (["--tp", "3"], "does not divide"),
    (["--accept-length", "2"], "needs --speculative-algorithm"),
    (["--speculative-num-steps", "3"], "need --speculative-algorithm"),
    (["--speculative-algorithm", "STANDALONE"], "needs --speculative-draft-model-path"),
    (["--speculative-algorithm", "EAGLE3", "--speculative-num-draft-tokens", "40"], "does not fit"),
    (["--speculative-algorithm", "EAGLE3", "--accept-length", "9"], "impossible"),
    (["--allreduce-profile", "/nonexistent/p.json"], "does not exist"),
    (["--link", "nvlink"], "no NVLink"),
    (["--context", "10000000"], "exceeds"),
])
def test_bad_input_exits_2_with_a_message(capsys, extra, needle):
    argv = KIMI + extra
    if extra[0] == "--gpu":
        argv = ["perf", "moonshotai/Kimi-K2.5", "--tp", "8"] + extra
    code, out, err = run(argv, capsys)
    assert code == 2 and needle in err and "Traceback" not in err and out == ""


def test_perf_runs_without_torch():
    code = textwrap.dedent("""
        import sys, importlib.abc
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch.") or name in ("triton", "pynvml"):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        from tpkit.cli import main
        rc = main(["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8",
                   "--speculative-algorithm", "EAGLE3", "--json"])
        assert rc == 0 and "torch" not in sys.modules
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]


def test_engine_version_backend_and_eager_flags(capsys):
    code, out, _ = run(KIMI + ["--speculative-algorithm", "EAGLE3", "--engine-version", "0.5.10", "--context", "8192",
                               "--accept-length", "2.0", "--json"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["runtime"]["engine_version"] == "0.5.10" and d["runtime"]["version_given"]
    assert d["runtime"]["attention_backend"] == "triton" and not d["runtime"]["spec_overlap"]
    assert d["speculative"]["speedup"] < 1.0 < d["speculative"]["breakeven_accept_length"]
    assert d["verdict"]["message"].split("\n")[1].startswith("Break-even accept length")
    code, out, _ = run(KIMI + ["--engine", "vllm", "--attention-backend", "TRITON_MLA", "--enforce-eager"], capsys)
    assert code == 0 and "engine           vllm 0.34.0" in out and "graphs: plain eager" in out


@pytest.mark.parametrize("flags, match", [
    (["--engine-version", "latest"], "is not a version"),
    (["--attention-backend", "FLASH_ATTN"], "not a sglang attention backend"),
])
def test_bad_engine_facts_are_user_errors(capsys, flags, match):
    code, _, err = run(KIMI + flags, capsys)
    assert code == 2 and match in err and "Traceback" not in err


def test_text_output_explains_itself_context_facts_band_and_mla_splits(capsys):
    """The newcomer's case (Kimi-K2.5, 8× RTX PRO 6000, vLLM, 83,000 tokens): the context with its unit, the engine
    facts the release's source gives (before, JSON only), the baseline's band, a datasheet source not cut mid-URL,
    and TRITON_MLA's split count at this context: vLLM 0.33 next_power_of_2(83,001 // 512 = 162) = 256 ≤ 2 × 188
    SMs, partials 2 × 8 heads × 256 × 513 × 4 B = 8,404,992 B = 8.02 MiB per row and layer; 0.19.1: always 4."""
    code, out, _ = run(KIMI + ["--engine", "vllm", "--context", "83000"], capsys)
    assert code == 0 and out.splitlines()[0].endswith("context 83,000 tokens")
    facts = out[out.index("engine facts"):out.index("confidence")]
    assert "attention backend TRITON_MLA" in facts and "triton_mla.py forward_mqa" in facts
    assert "baseline: low, ± 30 % — " in out and "datasheet (in full under assumptions)" in out
    assert "TRITON_MLA decode: 256 KV splits per decode row at 83,001 tokens" in out and "8.02 MiB per row" in out
    code, out, _ = run(KIMI + ["--engine", "vllm", "--context", "83000", "--engine-version", "0.19.1"], capsys)
    assert code == 0 and "TRITON_MLA decode: 4 KV splits per decode row" in out and "(vLLM < 0.20: always 4)" in out
    code, out, _ = run(KIMI + ["--context", "83000"], capsys)  # SGLang: no TRITON_MLA split note
    assert code == 0 and "KV splits per decode row" not in out
