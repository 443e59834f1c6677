"""The load anchors of SGLang's ledger (``explain.sgload``, split from ``explain.sglang`` at its 500-line limit;
helper tidy34, session 34).  What SGLang takes after its pre sample is a tuple of ``Taken`` records read by term
(``Load.term``), not by position and short label, and ``scripts/capacity_why.py`` switches each term off where it is
looked up (this module): a switch that named the old home would leave the term in the ledger."""

from __future__ import annotations

import pytest
from tests.scripts_testlib import load_script

from tpkit.explain import explain_log
from tpkit.explain.sgload import ROCM_GAP_ITEM, Load, Taken, pool_load
from tpkit.explain.interval import Iv
from tpkit.units import GiB, MiB

why = load_script("capacity_why")

_LOG = """\
[2026-07-23 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, mem_fraction_static=0.85, page_size=1)
[2026-07-23 10:00:01 TP0] Init torch distributed begin.
[2026-07-23 10:00:02 TP0] Init torch distributed ends. mem usage=0.16 GB
[2026-07-23 10:00:03 TP0] Load weight begin. avail mem=78.54 GB
[2026-07-23 10:00:09 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.28 GB, mem usage=15.26 GB.
"""
_STREAM = "torch stream pool (forward stream, after the pre sample)"
_WORKSPACE = "DeepGEMM's cuBLASLt workspace (after the pre sample)"


def _anchored(version: str = "0.5.15"):
    return explain_log(_LOG, flags={"model": "Qwen/Qwen3-8B", "engine_version": version, "gpu": "H100-SXM-80GB"}
                       ).anchored


def test_the_terms_taken_after_the_sample_are_read_by_term():
    a = _anchored()
    assert a.stream_pool == Iv(low=MiB(70), high=MiB(70)) and a.pre_load_workspace == Iv(low=MiB(32), high=MiB(32))
    assert a.pre_load_kernels is None
    items = [r.item for r in a.rows]
    assert items.index(_STREAM) < items.index(_WORKSPACE) < items.index("pre_model_load_memory (SGLang's sample)")
    sample = next(r for r in a.rows if r.item == "pre_model_load_memory (SGLang's sample)")
    assert "the stream pool and DeepGEMM's workspace" in sample.meaning
    assert sample.value == a.pre + a.stream_pool + a.pre_load_workspace


def test_a_release_that_takes_nothing_has_no_sample_row():
    a = _anchored("0.5.8")
    assert a.stream_pool is None and a.pre_load_workspace is None
    assert not any(r.item == "pre_model_load_memory (SGLang's sample)" for r in a.rows)


@pytest.mark.parametrize("name, field", [("stream_pool", "stream_pool"), ("deepgemm_workspace", "pre_load_workspace")])
def test_each_capacity_why_switch_takes_its_term_out(name, field):
    item = why.SWITCHES[name][3]
    assert any(r.item == item for r in _anchored().rows)
    with why.switched([name]):
        off = _anchored()
    assert not any(r.item == item for r in off.rows) and getattr(off, field) is None
    assert why.SWITCHES["rocm_bound"][:2] == ("tpkit.explain.sgload", "rocm_gap") and ROCM_GAP_ITEM == \
        why.SWITCHES["rocm_bound"][3]


def test_load_term_and_pool_load():
    stream = Taken(term="stream", item=_STREAM, short="the stream pool", value=Iv(low=MiB(70), high=MiB(70)),
                   why="")
    gib = Iv(low=GiB(1), high=GiB(1))
    load = Load(pre=gib.scale(70), n_pre=1, end=None, weights=gib.scale(15), free_after=gib.scale(55), n_after=1,
                pre_estimated=False, sample=None, taken=(stream,))
    assert load.stream == stream.value and load.term("workspace") is None and load.kernels is None
    assert pool_load(load) == gib.scale(15)
    estimated = Load(pre=gib, n_pre=0, end=None, weights=gib, free_after=gib, n_after=1, pre_estimated=True,
                     sample=None)
    assert pool_load(estimated) is None and estimated.taken == ()
