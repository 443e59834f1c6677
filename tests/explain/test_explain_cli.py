"""``tpkit explain`` and ``tpkit plan --from-log`` on the command line: exit codes, stdin, JSON, flags that
contradict the log, cold start without torch."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from explain_testlib import DATA, ROOT, SYNTHETIC_KIMI

from tpkit.cli import main

ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONDONTWRITEBYTECODE": "1"}


def _run(args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tpkit", *args], capture_output=True, env=ENV, input=stdin)


def test_crash_log_exits_0_with_json_schema(capsys):
    assert main(["explain", str(DATA / "vllm" / "vl_034.log"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["engine"] == "vllm" and out["diagnosis"]["status"] == "failed"
    assert out["diagnosis"]["phase"] == "kv_pool"
    assert {"printed", "predicted"} <= set(out["kv_tokens"])
    assert out["diagnosis"]["fixes"] and {"flags", "kv_tokens", "fits"} <= set(out["diagnosis"]["fixes"][0])


def test_stdin_and_rank():
    r = _run(["explain", "-", "--rank", "3", "--json"], stdin=SYNTHETIC_KIMI.read_bytes())
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["rank"]["label"] == "TP3" and out["kv_tokens"]["printed"] == 117631


@pytest.mark.parametrize("args", [["explain", "/no/such/file.log"], ["explain", str(DATA)],
                                  ["explain", str(SYNTHETIC_KIMI), "--rank", "99"],
                                  ["explain", str(SYNTHETIC_KIMI), "--model", "no/such-model"],
                                  ["explain", str(SYNTHETIC_KIMI), "--gpu-memory", "80"]])
def test_user_errors_exit_2_without_traceback(args):
    r = _run(args)
    assert r.returncode == 2 and b"Traceback" not in r.stderr and b"error" in r.stderr


def test_garbage_logs_exit_2_and_empty_ones_2():
    """A text with nothing tpkit recognises is not an engine log (session 20: exit 2 and a message that says so;
    before, exit 0 and 'unknown'); an empty one is a wrong path or a log not written yet (exit 2, a message)."""
    r = _run(["explain", "-"], stdin=b"\xff\xfe\x00garbage\n" * 50)
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert b"standard input is not an SGLang or vLLM log" in r.stderr
    for data in (b"", b"\n  \n"):
        r = _run(["explain", "-"], stdin=data)
        assert r.returncode == 2 and b"Traceback" not in r.stderr and b"standard input is empty" in r.stderr


def test_flags_fill_gaps_and_contradictions_are_reported(capsys):
    assert main(["explain", str(SYNTHETIC_KIMI), "--tp", "4", "--gpu", "RTX-PRO-6000",
                 "--context-length", "8192", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["flag"] for c in out["contradictions"]] == ["tp"]
    assert out["run"]["values"]["tp"] == 8  # the log's value is kept
    assert out["run"]["values"]["context_length"] == 8192 and out["run"]["sources"]["context_length"].startswith("flag")


def test_plan_from_log_replaces_the_start_up_terms(capsys):
    assert main(["plan", "--from-log", str(SYNTHETIC_KIMI), "--gpu", "RTX-PRO-6000", "--json"]) == 0
    same = json.loads(capsys.readouterr().out)
    # the log's own run re-planned from its measurements: the synthetic log prints 117,631, made without SGLang
    # 0.5.6+'s RoPE pre-expansion after the weights (engines.sglang.rope, a band term over 0 … 2 MiB here), which the
    # plan now charges like explain: nominal 1 MiB (15 tokens of 70,272 B) below, the print at the band's top
    assert same["kv_tokens"] == 117616 and same["band"]["kv_tokens_range"][1] == 117631
    assert "rope_reserve" in {t["term"] for t in same["band"]["estimated_terms"]}
    measured = {t["term"] for t in same["band"]["measured_terms"]}
    assert {"cuda_context", "nccl_init", "weights"} <= measured
    assert "cuda_context" not in {t["term"] for t in same["band"]["estimated_terms"]}
    assert main(["plan", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--mem-fraction-static",
                 "0.85", "--engine-version", "0.4.6", "--json"]) == 0
    catalog = json.loads(capsys.readouterr().out)
    assert same["band"]["plus_minus_tokens"] < catalog["band"]["plus_minus_tokens"]
    assert main(["plan", "--from-log", str(SYNTHETIC_KIMI), "--gpu", "RTX-PRO-6000", "--mem-fraction-static", "0.9",
                 "--json"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["kv_tokens"] > same["kv_tokens"]


def test_plan_from_log_of_the_other_engine_is_a_user_error():
    r = _run(["plan", "--from-log", str(SYNTHETIC_KIMI), "--engine", "vllm", "--gpu", "H100"])
    assert r.returncode == 2 and b"sglang log" in r.stderr


def test_explain_imports_no_torch():
    code = textwrap.dedent(f"""
        import contextlib, io, sys
        from tpkit.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["explain", {str(SYNTHETIC_KIMI)!r}, "--json"]) == 0
        loaded = [m for m in sys.modules if m.startswith(("torch", "tpkit.runtime", "tpkit.comm", "rich",
                                                           "huggingface_hub"))]
        assert not loaded, loaded
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)
    assert out.returncode == 0, out.stderr


FLAG_TABLE = {
    "sglang": {"tpkit.engines.sglang", "tpkit.engines.sglang.engine", "tpkit.engines.sglang.options",
               "tpkit.engines.sglang.versions"},
    "vllm": {"tpkit.engines.vllm", "tpkit.engines.vllm.engine", "tpkit.engines.vllm.options",
             "tpkit.engines.vllm.kvdtype"},
}
"""the modules of an engine that the engine flags need (``cli.engine_flags`` reads every engine's options): only
when the command line names an engine flag"""
PLAIN = {"sglang": {"tpkit.engines.sglang", "tpkit.engines.sglang.versions"}, "vllm": set()}
"""the other engine's modules a plain ``tpkit explain LOG`` of a vLLM / SGLang log may import: SGLang's release
dates, which ``explain.runtp.sglang_tag_era`` reads for any log"""
OWN_EXPLAIN = {"sglang": ("tpkit.explain.sglang", "tpkit.explain.sgdiagnose", "tpkit.explain.sgstate",
                          "tpkit.explain.sganchors", "tpkit.explain.sgpool", "tpkit.explain.sgrelease",
                          "tpkit.explain.sgload"),
               "vllm": ("tpkit.explain.vllm", "tpkit.explain.vdiagnose", "tpkit.explain.vlayout",
                        "tpkit.explain.vtokens", "tpkit.explain.vworkers")}


def _loaded_by(argv: list[str]) -> set[str]:
    code = textwrap.dedent(f"""
        import contextlib, io, json, sys
        from tpkit.cli import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main({argv!r}) == 0
        if "--json" in {argv!r}:
            json.loads(out.getvalue())
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("tpkit."))))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.splitlines()[-1]))


@pytest.mark.parametrize("log, engine, other", [(SYNTHETIC_KIMI, "sglang", "vllm"),
                                                (DATA / "vllm" / "vl_067.log", "vllm", "sglang")])
@pytest.mark.parametrize("output", [[], ["--json"]])
def test_explain_compiles_only_the_logs_engine(log, engine, other, output):
    """Issue 12 (cold start without bytecode): explaining one engine's log imports none of the other engine's rules
    and explain modules, nor the engine flag table when no engine flag is given; both logs go the whole way (model
    config, cell, diagnosis), so a module-level import that pulls the other engine in shows here."""
    loaded = _loaded_by(["explain", str(log), *output])
    assert {m for m in loaded if m.startswith(f"tpkit.engines.{other}")} <= PLAIN[other]
    assert not loaded & set(OWN_EXPLAIN[other]), loaded & set(OWN_EXPLAIN[other])
    assert "tpkit.cli.engine_flags" not in loaded
    assert set(OWN_EXPLAIN[engine][:2]) <= loaded  # the log's own engine did the work
    assert f"tpkit.engines.{engine}.pool" in loaded or f"tpkit.engines.{engine}.pages" in loaded


def test_an_engine_flag_brings_the_flag_table_and_no_other_engine_rules():
    loaded = _loaded_by(["explain", str(SYNTHETIC_KIMI), "--mem-fraction-static", "0.85", "--json"])
    assert "tpkit.cli.engine_flags" in loaded
    assert {m for m in loaded if m.startswith("tpkit.engines.vllm")} <= FLAG_TABLE["vllm"]
    assert not loaded & set(OWN_EXPLAIN["vllm"])


def test_explains_own_options_are_the_full_parsers_less_the_engine_flags():
    """``cli.explain._own_options`` decides when the engine flags can be left out: it must name exactly the flags
    ``register`` adds itself, or a plain command line would lose (or wrongly keep) a flag."""
    import argparse

    from tpkit.cli import build_parser
    from tpkit.cli.engine_flags import engine_fields
    from tpkit.cli.explain import OWN_DESTS, _own_options

    def explain_parser(argv):
        parser = build_parser(argv)
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["explain"]

    full = explain_parser(None)
    engine = {o for f in engine_fields() for o in (f.option, *f.flag.aliases)}  # vLLM's -dcp … (helper rev11)
    own = {o for a in full._actions for o in a.option_strings} - engine - {"-h", "--help"}
    assert own == _own_options()
    dests = {a.dest for a in full._actions if a.option_strings and not set(a.option_strings) & engine}
    assert dests - {"help", "rank", "json"} == OWN_DESTS
    plain = explain_parser(["explain", "x.log", "--tp", "8", "--json"])
    assert {o for a in plain._actions for o in a.option_strings} == own | {"-h", "--help"}
    for argv in (["explain", "x.log", "--mem-fraction-static", "0.8"], ["explain", "x.log", "--js"],
                 ["explain", "x.log", "--tp=8"], ["explain", "x.log", "--rank", "-1"], ["explain", "--help"]):
        assert {o for a in explain_parser(argv)._actions for o in a.option_strings} >= engine, argv
    plain_args = vars(plain.parse_args(["x.log", "--tp", "8", "--json"]))
    full_args = vars(full.parse_args(["x.log", "--tp", "8", "--json"]))
    assert plain_args == {k: v for k, v in full_args.items() if k in plain_args}
    assert all(full_args[k] is None for k in full_args.keys() - plain_args.keys())  # the engine flags, not given


def test_dp_attention_flags_reach_the_run_and_a_contradiction_is_reported(capsys):
    """--enable-dp-attention and --dp fill a log that does not print them (sg_022 prints only 'DPn TPn' prefixes);
    against a ServerArgs dump that says enable_dp_attention=False the flag is reported and the log's value kept
    (``explain.flagmerge.FLAG_SETTINGS``)."""
    assert main(["explain", str(DATA / "sglang" / "sg_022.log"), "--tp", "16", "--dp", "16",
                 "--enable-dp-attention", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["contradictions"] == []
    assert out["run"]["values"]["enable_dp_attention"] is True
    assert out["run"]["sources"]["enable_dp_attention"] == "flag --enable-dp-attention"
    assert out["run"]["values"]["dp"] == 16 and out["run"]["sources"]["dp"] == "flag --dp"
    assert main(["explain", str(DATA / "sglang" / "sg_001.log"), "--enable-dp-attention", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["flag"] for c in out["contradictions"]] == ["enable_dp_attention"]
    assert out["run"]["values"]["enable_dp_attention"] is False  # the log's value is kept


def test_plan_from_log_takes_the_sampler_the_vllm_log_names(capsys):
    """vl_084 (vLLM 0.10.2) logs 'FlashInfer is not available. Falling back to the PyTorch-native …': plan
    --from-log plans that sampler (no install-dependent band); without the line, 0.10.2's default is the
    PyTorch-native sampler of a plain pip install with a band down to FlashInfer."""
    log = str(DATA / "vllm" / "vl_084.log")
    assert main(["plan", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--from-log", log, "--json"]) == 0
    phase = next(i for i in json.loads(capsys.readouterr().out)["ledger"] if i["item"] == "profile phase: logits + sampler")
    assert "(PyTorch-native top-k/top-p)" in phase["source"] and "pip install" not in phase["source"]
    assert main(["plan", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--from-log", log, "--topk-topp-sampler", "flashinfer",
                 "--json"]) == 0
    phase = next(i for i in json.loads(capsys.readouterr().out)["ledger"] if i["item"] == "profile phase: logits + sampler")
    assert "FlashInfer top-k/top-p" in phase["source"]


def test_plan_from_log_takes_skip_mm_profiling(capsys, tmp_path):
    """A vLLM log that says 'Skipping memory profiling for multimodal encoder and encoder cache.' (profile_run
    under --skip-mm-profiling): plan --from-log leaves out the encoder step that a Qwen3-VL plan otherwise charges
    (engines/vllm/encoder.py)."""
    config = str(ROOT / "tests" / "validation" / "configs"
                 / "Qwen--Qwen3-VL-30B-A3B-Instruct-FP8.json")
    log = tmp_path / "skip.log"
    log.write_text("INFO 10-23 15:10:40 [api_server.py:1] vLLM API server version 0.20.2\n(EngineCore_DP0 pid=1) "
                   "INFO 10-23 15:10:41 [gpu_model_runner.py:5793] Skipping memory profiling for multimodal encoder "
                   "and encoder cache.\n")
    common = ["plan", config, "--engine", "vllm", "--gpu", "RTX-PRO-6000", "--max-model-len", "32768",
              "--max-num-seqs", "4", "--json"]
    assert main(common + ["--engine-version", "0.20.2"]) == 0
    items = [i["item"] for i in json.loads(capsys.readouterr().out)["ledger"]]
    assert "profile phase: vision encoder (dummy items)" in items
    assert main(common + ["--from-log", str(log)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not any("vision encoder" in i["item"] for i in out["ledger"])
    assert not any("vision encoder" in w for w in out["warnings"])


def test_a_value_every_engine_refuses_names_each_engines_reason(capsys):
    # --engine-version abc before the log is read: SGLang's and vLLM's refusals both said, not SGLang's alone (a
    # vLLM log was told "cannot read 'abc' as an SGLang version"); with --engine the engine's own message
    log = str(DATA / "vllm" / "vl_290.log")
    assert main(["explain", log, "--engine-version", "abc"]) == 2
    err = capsys.readouterr().err
    assert "--engine-version 'abc': no engine takes it (sglang: " in err and "; vllm: " in err
    assert "as a vLLM version" in err and "Traceback" not in err
    assert main(["explain", log, "--engine", "vllm", "--engine-version", "abc"]) == 2
    err = capsys.readouterr().err
    assert "as a vLLM version" in err and "SGLang" not in err
