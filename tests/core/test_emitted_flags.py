"""Every engine flag the emitters print is one the user's release parses (helper fix22, session 22).

scripts/emitted_flags_check.py runs `tpkit explain` on every crash log of tests/logs/data (the log's release: the
corpus record's, else the one explain read) and a grid of `tpkit perf` / `tpkit plan` runs with --engine-version,
and checks each ``--flag`` they print (outside tpkit commands, quotes of the log and "has no --x" statements) with
``engines.cliflags`` (the table read in the released wheels).  Before this helper: 63 of 1,183 checked flags in the
full grid named a flag the release lacks (docs/accuracy.md §8, helper fix22)."""

from __future__ import annotations

from functools import lru_cache

from tests.scripts_testlib import load_script


@lru_cache(maxsize=1)
def _script():
    return load_script("emitted_flags_check")


def test_explain_crash_fixes_parse_in_the_logs_release():
    m = _script()
    runs = list(m.explain_runs())
    assert len(runs) == 2 * 321  # every crash (and failed) log, text and --json (131; + ex38b's 6; + ex38's 8; + fx37's sg_1041-sg_1043; + ex22's 32, lead; + ex23's 6; + gs24b's sg_563; + ex28's 22; + ex29's 18; + ex30's 15; + gs30c's sg_763 / sg_764; + ex31's 14; + ex32's 13; + ex33's 14; + ex34's 12; + ex35's 8; + ex36's 8; + ex37's 8)
    ok, checked, bad, own = m.check(runs)
    assert bad == []
    assert checked >= 100 and ok == checked
    # flags outside the engines' parsers are tpkit's own (re-run inputs), never a fix's
    # (--link: tpkit plan's interconnect, in explain's "links from the log" note since ex22's sg_521; lead)
    # (--timestamps, --prefix: kubectl's flags, named in the reader's note on the collector prefixes it removed,
    # logs.text; first in a crash log's output with ex31's vl_1370, RunPod's time stamps)
    assert {f for _, f in own} <= {"--gpu", "--model", "--tp", "--engine-version", "--compile-cache",
                                   "--vllm-use-v2-model-runner", "--link", "--timestamps", "--prefix"}


def test_perf_and_plan_flags_parse_in_the_engine_version():
    m = _script()
    runs = list(m.grid_runs({"sglang": ("0.4.6", "0.5.1", "0.5.23"), "vllm": ("0.6.5", "0.9.2", "0.34.0")},
                            perf_models=("meta-llama/Llama-3.1-8B-Instruct", "deepseek-ai/DeepSeek-V3"),
                            plan_models=("Qwen/Qwen3-Next-80B-A3B-Instruct", "google/gemma-3-27b-it",
                                         "deepseek-ai/DeepSeek-V3")))
    ok, checked, bad, own = m.check(runs)
    assert bad == []
    assert checked >= 150 and ok == checked
    assert {f for _, f in own} <= {"--tp", "--link", "--accept-length", "--compile-cache", "--engine-version",
                                   "--vllm-use-v2-model-runner"}


def test_the_check_finds_a_flag_the_release_lacks():
    """The checker itself: an old release and a newer flag is a mismatch, a plain "has no" statement is not."""
    m = _script()
    text = "Fix: --kv-cache-memory-bytes 2G\nvLLM 0.9.2 has no --skip-mm-profiling (first in 0.10.1.1)"
    ok, checked, bad, _ = m.check([("t", "vllm", "0.9.2", text, frozenset())])
    assert [b[3] for b in bad] == ["--kv-cache-memory-bytes"] and checked == 1
