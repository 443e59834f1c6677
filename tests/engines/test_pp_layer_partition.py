"""Pipeline stages set by hand and SGLang's default split by release (helper ppl16, issue 12).

vLLM's ``distributed/utils.py get_pp_indices`` reads ``VLLM_PP_LAYER_PARTITION`` from 0.5.4 to 0.33.0 (0.5.3 has
none); SGLang's ``srt/distributed/utils.py get_pp_indices`` reads ``SGLANG_PP_LAYER_PARTITION`` (0.4.4.post2 –
0.5.23).  Both take "16,32" as one integer per stage and raise unless there are pp parts summing to the layers.
SGLang's default split gives the last stage the whole remainder up to 0.5.5 and the last ``layers % pp`` stages one
layer each from 0.5.6 (read in the 0.4.4.post2, 0.5.3.post3, 0.5.4, 0.5.5, 0.5.6 and 0.5.23 wheels)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit.engines.registry import get_engine
from tpkit.engines.sglang.pool import PP_SPLIT_EACH_LAST, sglang_pp_split, stage_layer_kinds
from tpkit.engines.vllm.pages import pp_split
from tpkit.errors import PlanInputError
from tpkit.logs.command import command_settings
from tpkit.models.layout import parse_partition, split_note, stage_sizes
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests/logs/data/configs/Qwen__Qwen3-Coder-30B-A3B-Instruct-FP8"
"""vl_048's model: 48 decoder layers (its own config.json, helper rt16)"""


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tpkit", *argv], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}, timeout=300)


# --- the partition as a pure input -----------------------------------------------------------------------------

def test_partition_sets_the_stage_sizes():
    assert stage_sizes(48, 2, "16,32") == (16, 32)
    assert stage_sizes(48, 3, "0,24,24") == (0, 24, 24)  # the engines check count and sum only
    assert "set by hand" in split_note(48, 2, "16,32") and "16/32" in split_note(48, 2, "16,32")


@pytest.mark.parametrize("text, pp, words", [
    ("16", 2, "names 1 stage(s) but --pp is 2"),       # one part short
    ("16,16,16", 2, "names 3 stage(s) but --pp is 2"),  # one part over
    ("a,b", 2, "whole number"),
    ("16.5,31.5", 2, "whole number"),
    ("-1,49", 2, "negative"),
])
def test_bad_partition_is_refused_with_what_was_received(text, pp, words):
    with pytest.raises(PlanInputError, match=re.escape(words)) as err:
        parse_partition(text, pp)
    assert text in str(err.value)


@pytest.mark.parametrize("text, ok", [("16,31", False), ("16,32", True), ("16,33", False)])
def test_partition_must_sum_to_the_layers(text, ok):
    if ok:
        assert sum(stage_sizes(48, 2, text)) == 48
    else:
        with pytest.raises(PlanInputError, match="must add up to 48"):
            stage_sizes(48, 2, text)


def test_parallel_spec_carries_the_partition():
    p = ParallelSpec(pp=2, layer_partition="16,32")
    assert p.layer_partition == (16, 32) and p.to_dict()["layer_partition"] == [16, 32]
    assert ParallelSpec(pp=2, layer_partition=(16, 32)) == p
    with pytest.raises(PlanInputError, match="--pp is 3"):
        ParallelSpec(pp=3, layer_partition="16,32")


def test_vllm_split_takes_the_partition_over_the_release_rule():
    assert pp_split((0, 15, 2), ParallelSpec(pp=2)) == "vllm"
    assert pp_split((0, 7, 3), ParallelSpec(pp=2)) == "vllm-last"
    assert pp_split((0, 15, 2), ParallelSpec(pp=2, layer_partition="16,32")) == "16,32"
    assert pp_split((0, 7, 3), ParallelSpec(pp=2, layer_partition="16,32")) == "16,32"


def test_weights_follow_the_partition():
    from tpkit.models import load_model

    model = load_model(str(CONFIG))
    even = plan_weights(model, ParallelSpec(pp=2), engine="vllm", pp_split="vllm")
    uneven = plan_weights(model, ParallelSpec(pp=2), engine="vllm", pp_split="16,32")
    flipped = plan_weights(model, ParallelSpec(pp=2), engine="vllm", pp_split="32,16")
    assert uneven.stage == 1 and flipped.stage == 0
    assert uneven.bytes_per_rank.bytes > even.bytes_per_rank.bytes
    assert len(uneven.stage_bytes) == 2 and uneven.stage_bytes[1] == uneven.bytes_per_rank
    assert uneven.stage_bytes[0].bytes < even.bytes_per_rank.bytes < uneven.stage_bytes[1].bytes
    # the partition that equals the default split plans the same bytes
    assert plan_weights(model, ParallelSpec(pp=2), engine="vllm", pp_split="24,24").bytes_per_rank == \
        even.bytes_per_rank


def test_plan_cli_takes_the_partition_and_shows_every_stage():
    out = _cli("plan", str(CONFIG), "--engine", "vllm", "--gpu", "RTX-5090", "--pp", "2",
               "--pp-layer-partition", "16,32", "--max-model-len", "8192")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "decoder layers per PP stage 16/32: set by hand" in text
    assert "0: 16 layers, 9.87 GiB, 1: 32 layers, 19.16 GiB" in text


@pytest.mark.parametrize("value, words", [("16,31", "sums to 47 layers"), ("48", "names 1 stage(s)"),
                                          ("x,y", "whole number")])
def test_plan_cli_refuses_a_bad_partition_without_a_traceback(value, words):
    out = _cli("plan", str(CONFIG), "--engine", "vllm", "--gpu", "RTX-5090", "--pp", "2",
               f"--pp-layer-partition={value}")
    assert out.returncode != 0 and words in out.stderr and "Traceback" not in out.stderr


# --- read from a log --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, value", [
    ("VLLM_PP_LAYER_PARTITION=16,32 CUDA_VISIBLE_DEVICES=0,1 vllm serve m --pipeline-parallel-size 2", "16,32"),
    ("docker run -e SGLANG_PP_LAYER_PARTITION='10,14' img python -m sglang.launch_server --pp-size 2", "10,14"),
    ("CUDA_VISIBLE_DEVICES=0,1 vllm serve m --pipeline-parallel-size 2", None),
])
def test_the_launch_command_gives_the_partition(line, value):
    _, found = command_settings(line, line_no=1)
    got = next((s.value for s in found if s.name == "pp_layer_partition"), None)
    assert got == value


def test_from_log_plan_reads_vl048s_partition_and_says_the_gpus_differ():
    out = _cli("plan", str(CONFIG), "--from-log", str(ROOT / "tests/logs/data/vllm/vl_048.log"))
    text = " ".join(out.stdout.split())
    assert "decoder layers per PP stage 16/32: set by hand" in text
    assert "--pp-layer-partition 16,32: read from the log" in text
    # helper pps16: the log numbers its two devices, so each stage is planned on its own GPU (was: a note that every
    # GPU is planned as the RTX 5070 Ti)
    assert "--gpu RTX-5070-Ti,RTX-5090: read from the log" in text


# --- SGLang's default split by release --------------------------------------------------------------------------

@pytest.mark.parametrize("version, rule", [("0.5.5", "sglang-last"), (PP_SPLIT_EACH_LAST, "sglang"),
                                           ("0.5.23", "sglang"), ("0.4.10", "sglang-last")])
def test_sglang_split_by_release(version, rule):
    assert sglang_pp_split(version) == rule
    assert sglang_pp_split(version, ParallelSpec(pp=2, layer_partition="10,26")) == "10,26"


@pytest.mark.parametrize("layers, pp, last, each", [
    (36, 8, (4, 4, 4, 4, 4, 4, 4, 8), (4, 4, 4, 4, 5, 5, 5, 5)),
    (62, 4, (15, 15, 15, 17), (15, 15, 16, 16)),
    (61, 2, (30, 31), (30, 31)),  # remainder 1: the two rules agree
])
def test_sglang_rules(layers, pp, last, each):
    assert stage_sizes(layers, pp, "sglang-last") == last
    assert stage_sizes(layers, pp, "sglang") == each


def test_sglang_old_release_plans_the_larger_last_stage():
    from tpkit.engines.sglang import SglangOptions
    from tpkit.models import load_model

    from vllm_fixtures import H200

    engine = get_engine("sglang")
    model = load_model("Qwen/Qwen3-8B")  # 36 layers: pp 8 leaves 4 over
    old = engine.plan(model, H200, ParallelSpec(pp=8), SglangOptions(engine_version="0.5.5"))
    new = engine.plan(model, H200, ParallelSpec(pp=8), SglangOptions(engine_version="0.5.6"))
    weights = [next(l.bytes.bytes for l in r.ledger.items if l.item == "weights") for r in (old, new)]
    assert weights[0] > weights[1]
    kinds_old = stage_layer_kinds(model, 8, "sglang-last")
    assert len(kinds_old) == 8 and len(stage_layer_kinds(model, 8, "sglang")) == 5
