"""tp 1 inferred from SGLang scheduler records that carry no ' TPn' tag (issue 12: tp as printed, or inferred
with its evidence).

SGLang's scheduler prefix is " TP{rank}" on every run in 0.4.6 and 0.4.6.post1 and only when tp_size > 1 from
0.4.6.post2 (managers/scheduler.py ``run_scheduler_process``, read in the wheels; ``explain.runtp``).  The
synthetic logs below use the line formats of SGLang 0.4.9–0.4.10 (sg_220's: 'Capturing batches (bs=…' is printed
from 0.4.8.post1, cuda_graph_runner.py) and Qwen3-0.6B's cell (8 KV heads × 128 × 2 × 2 B × 28 layers = 114,688
B/token at tp 1, halved per doubling of tp).
"""

from pathlib import Path

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.explain.context import sglang_tag_era
from tpkit.logs import parse_log

_QWEN06 = str(Path(__file__).resolve().parents[2] / "tests/validation/configs/Qwen--Qwen3-0.6B.json")


def _log(tag: str = "", *, header: bool = True, bar: bool = True, k_gb: str = "5.57") -> bytes:
    """A tp-1-sized Qwen3-0.6B start-up (sg_220's numbers); ``tag`` is the scheduler's rank prefix (" TP0")."""
    h = f"[2025-08-08 03:34:38{tag}] " if header else ""
    lines = [
        f"{h}Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=13.91 GB, mem usage=1.25 GB.",
        f"{h}KV Cache is allocated. #tokens: 104273, K size: {k_gb} GB, V size: {k_gb} GB",
        f"{h}Memory pool end. avail mem=2.43 GB",
        f"{h}Capture cuda graph begin. This can take up to several minutes. avail mem=1.80 GB",
    ]
    if bar:
        lines.append("Capturing batches (bs=1 avail_mem=1.72 GB): 100%|#####| 4/4 [00:18<00:00,  4.57s/it]")
    lines += [
        f"{h}Capture cuda graph end. Time elapsed: 18.28 s. mem usage=0.11 GB. avail mem=1.70 GB.",
        f"{h}max_total_num_tokens=104273, chunked_prefill_size=2048, max_prefill_tokens=16384, "
        "max_running_requests=2048, context_len=40960, available_gpu_mem=1.70 GB",
    ]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(("version", "era"), [
    ("0.4.6", "tags_every_run"),
    ("0.4.6.post1", "tags_every_run"),   # still `prefix = f" TP{tp_rank}"` in its scheduler.py
    ("0.4.6.post2", "tags_above_1"),     # the first wheel with `if server_args.tp_size > 1`
    ("0.4.6.post5", "tags_above_1"),
    ("0.4.7", "tags_above_1"),
    ("0.5.23", "tags_above_1"),
    ("0.4.6–0.4.6", None),               # a range over 0.4.6's post releases straddles post2
])
def test_tag_era_boundary_is_0_4_6_post2(version, era):
    assert sglang_tag_era(version, None) == era


def test_a_line_format_raises_the_oldest_release_of_the_era():
    formats = ("format of 'Capture cuda graph end. Time elapsed': 0.4.6–0.5.10 (0.5.15 prints …)",
               "format of 'Load weight end. type=': 0.2.15–0.5.8 (0.5.9 prints 'Load weight end. elapsed=')")
    version = "0.4.6–0.5.10 (0.5.15 prints …)"
    assert sglang_tag_era(version, None, formats) is None
    bar = formats + ("format of 'Capturing batches (bs=': 0.4.8.post1–0.5.23 (not in 0.4.8)",)
    assert sglang_tag_era(version, None, bar) == "tags_above_1"


def test_capturing_batches_with_bs_is_a_format_of_0_4_8_post1_on():
    engine = parse_log(_log()).engine
    assert any("'Capturing batches (bs='" in e.claim and "0.4.8.post1" in e.claim for e in engine.evidence)
    assert not any("Capturing batches" in e.claim for e in parse_log(_log(bar=False)).engine.evidence)


def test_untagged_scheduler_records_of_a_tagging_release_give_tp_1_with_the_record():
    e = explain_log(_log(), flags={"model": _QWEN06})
    assert e.context.get("tp") == 1
    source = e.context.sources["tp"]
    assert source.startswith("inferred: line 1:") and "Load weight end" in source and "0.4.8.post1" in source
    lo, hi = e.kv_predicted_range  # the cell is pinned, so the capacity is rebuilt (sg_220's range)
    assert 104_000 < lo <= hi < 105_000
    assert "the inferred tp 1 corroborated" in e.kv_source


def test_a_pp_tag_without_a_tp_tag_is_still_tp_1():
    """' PP{rank}' is added only when pp > 1, independently of ' TP{rank}': a 'PP1' record without 'TP' is tp 1."""
    e = explain_log(_log(" PP1"), flags={"model": _QWEN06})
    assert e.context.get("tp") == 1 and "PP1] Load weight end" in e.context.sources["tp"]


def test_a_tp0_tag_in_the_same_release_is_not_tp_1():
    e = explain_log(_log(" TP0"), flags={"model": _QWEN06})
    assert e.context.get("tp") is None
    assert any("TP0 only" in n for n in e.context.notes)


def test_no_inference_without_a_release_at_or_after_0_4_6_post2():
    e = explain_log(_log(bar=False), flags={"model": _QWEN06})  # 0.4.6–0.5.10 by its formats: straddles
    assert e.context.get("tp") is None and "corroborated" not in e.kv_source
    assert any("no TP rank prefix" in n for n in e.context.notes)


def test_no_inference_when_the_records_have_no_header():
    """A log that lost its headers shows no tag either way."""
    e = explain_log(_log(header=False), flags={"model": _QWEN06})
    assert e.context.get("tp") is None
    assert any("no scheduler record with SGLang's header" in n for n in e.context.notes)


def test_a_pool_of_another_tps_cell_contradicts_the_inferred_tp():
    """K size 2.78 GB for 104,273 tokens is tp 2's cell (104,274 × 28,672 B = 2.78 GiB): the inference is reported
    as contradicted, not kept quietly."""
    e = explain_log(_log(k_gb="2.78"), flags={"model": _QWEN06})
    assert e.context.get("tp") == 1
    assert "✗ the inferred tp 1 contradicted" in e.kv_source and "cell of tp 2," in e.kv_source


def test_sg_220_reads_tp_1_from_its_untagged_records():
    e = explain_log(log_bytes("sg_220"), flags={"model": _QWEN06, "gpu": "RTX-5080"})
    assert e.context.get("tp") == 1 and "no TP tag" in e.context.sources["tp"]
    assert "corroborated" in str(e.to_dict())


def test_missing_list_names_the_tp_gpu_and_model_in_use():
    """The 'missing' lines are about the log; a value the explanation uses in its place (inferred, or a flag) is named
    on the same line, so an inferred tp 1 or a given --tp / --gpu / --model never reads as still missing."""
    def line(e, what):
        return next(m for m in e.missing if m.startswith(what + " ("))

    inferred = explain_log(_log())
    assert line(inferred, "tp").endswith("; in use: tp=1 (inferred, see 'run' above)")
    assert "in use" not in line(inferred, "gpu") and "in use" not in line(inferred, "model")
    given = explain_log(_log(), flags={"model": _QWEN06, "tp": 2, "gpu": "RTX-5080"})
    assert line(given, "tp").endswith("; in use: tp=2 (from the flag --tp)")
    assert line(given, "gpu").endswith("; in use: RTX-5080 [--gpu RTX-5080]")
    assert "; in use: " in line(given, "model") and "Qwen3-0.6B" in line(given, "model")
