"""DeepGEMM's cuBLASLt workspace in ``tpkit plan`` (helper gx33, docs/accuracy.md §1.2): the planner charges
``engines.sglang.streams.deepgemm_workspace`` where it charges the stream pool — after the pre sample, off the KV
budget, on a ledger line of its own — so plan and explain use one formula (cap33 put it in explain).

Both sides of each edge the source sets: release 0.5.14 / 0.5.15 (sgl-deep-gemm 0.1.3 / 0.1.4 binds ``set_pdl``),
compute capability 8.9 / 9.0 / 12.0 (``configurer._compute_enable_deep_gemm``), NVIDIA / AMD, every world size."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest

from tpkit.engines.sglang.budget import kv_budget
from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.streams import WORKSPACE_BYTES, WORKSPACE_ITEM, WORKSPACE_SOURCE
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, MiB

QWEN3 = load_model("Qwen/Qwen3-8B")
LOGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang"


def _budget(version: str, gpu, tp: int = 1):
    return kv_budget(QWEN3, gpu, ParallelSpec(tp=tp), SglangOptions(engine_version=version, mem_fraction_static=0.85),
                     machine=None, weights_bytes=GiB(15))


def _plan(version: str, gpu: str = "H100-SXM-80GB", tp: int = 2):
    from tpkit.engines.sglang.policy import plan_sglang

    return plan_sglang(QWEN3, lookup_gpu(gpu), ParallelSpec(tp=tp), SglangOptions(engine_version=version))


def test_release_boundary_on_sm90_at_every_world_size():
    h100 = lookup_gpu("H100-SXM-80GB")
    assert h100.compute_capability == (9, 0)
    for tp in (1, 2, 8):
        old, new = _budget("0.5.14", h100, tp), _budget("0.5.15", h100, tp)
        assert old.deepgemm_workspace == Bytes(0) and new.deepgemm_workspace == WORKSPACE_BYTES == MiB(32)
        assert old.pre == new.pre and old.slack == new.slack  # taken after the pre sample, as the stream pool
        assert old.rest - new.rest == MiB(32)
        assert new.tokens < old.tokens
        assert old.stream_pool == new.stream_pool  # the pool (world size 1 only) is its own term


def test_gpu_edges_sm89_sm90_sm100_sm120_and_amd():
    cases = {"RTX-4090": ((8, 9), Bytes(0)), "L40S": ((8, 9), Bytes(0)), "H200": ((9, 0), MiB(32)),
             "B200": ((10, 0), MiB(32)), "RTX-5090": ((12, 0), Bytes(0)), "RTX-PRO-6000": ((12, 0), Bytes(0))}
    for name, (cc, charge) in cases.items():
        gpu = lookup_gpu(name)
        assert gpu.compute_capability == cc, name
        assert _budget("0.5.15", gpu).deepgemm_workspace == charge, name
        assert _budget("0.5.14", gpu).deepgemm_workspace == Bytes(0), name
    amd = lookup_gpu("MI300X")
    assert _budget("0.5.18", amd, tp=8).deepgemm_workspace == Bytes(0)


def test_unknown_card_is_charged_as_the_stream_pool_is():
    """A GPU whose compute capability (or vendor) is not known: charged in full, as ``forward_stream_pool`` charges a
    card of unknown vendor (the planner's one number is the charge; explain spans 0 … it)."""
    custom = replace(lookup_gpu("H100-SXM-80GB"), compute_capability=None, vendor=None)
    b = _budget("0.5.15", custom)
    assert b.deepgemm_workspace == MiB(32) and b.stream_pool == MiB(70)
    assert _budget("0.5.14", custom).deepgemm_workspace == Bytes(0)


def test_ledger_line_with_its_source_and_the_sum_check_holds():
    old, new = _plan("0.5.14"), _plan("0.5.15")
    assert WORKSPACE_ITEM not in {l.item for l in old.ledger.items}
    line = new.ledger.get(WORKSPACE_ITEM)
    assert line.bytes == MiB(32) and line.source == WORKSPACE_SOURCE and line.kind == "use"
    assert "set_pdl" in line.source and "sgl-deep-gemm 0.1.4" in line.source and "12.0" in line.source
    items = [l.item for l in new.ledger.items]
    assert items.index("free before weights (pre_model_load_memory)") < items.index(WORKSPACE_ITEM) < \
        items.index("weights") < items.index("KV budget (rest)")
    assert "DeepGEMM workspace" in new.ledger.get("KV budget (rest)").source
    assert "DeepGEMM workspace" not in old.ledger.get("KV budget (rest)").source
    assert new.extra["sglang"]["deepgemm_workspace_bytes"] == MiB(32).bytes
    assert old.extra["sglang"]["deepgemm_workspace_bytes"] == 0
    assert new.kv_tokens < old.kv_tokens
    from tpkit.engines.sglang.ledger import build_ledger
    from tpkit.engines.sglang.sizing import size_sglang

    for version in ("0.5.14", "0.5.15"):  # capacity − uses − reserves = the KV budget less the pool (policy's check)
        s = size_sglang(QWEN3, lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=2), SglangOptions(engine_version=version),
                        machine=None, weights_bytes=GiB(8), weights_source="test")
        assert build_ledger(s).check(s.rest - s.mamba_bytes - s.kv_bytes) == []
        assert s.rest == s.pre - s.stream_pool - s.deepgemm_workspace - s.weights - s.rope_reserve - s.slack


def test_min_fraction_counts_the_workspace():
    from tpkit.engines.sglang.sizing import size_sglang
    from tpkit.engines.sglang.verdict import min_fraction

    def need(version):
        s = size_sglang(QWEN3, lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=2),
                        SglangOptions(engine_version=version, mem_fraction_static=0.85), machine=None,
                        weights_bytes=GiB(70), weights_source="test")
        return min_fraction(s), s

    (old, s_old), (new, s_new) = need("0.5.14"), need("0.5.15")
    assert s_old.pre == s_new.pre and new >= old
    assert s_old.pool_end_free - s_new.pool_end_free >= Bytes(0)


def test_plan_line_equals_the_row_explain_charges_for_one_log():
    """sg_062 (Qwen3-30B-A3B-FP8 on an H100, tp 1, 0.5.20 rules): explain's DeepGEMM row at the log's newest release
    is the plan's ledger line at that release (one function, ``deepgemm_workspace``)."""
    from tpkit.engines.sglang.policy import plan_sglang
    from tpkit.explain import explain_log

    e = explain_log((LOGS / "sg_062.log").read_bytes(), flags={"model": "Qwen/Qwen3-30B-A3B"})
    row = next(r for r in e.anchored.rows if r.item == WORKSPACE_ITEM)
    r = plan_sglang(load_model("Qwen/Qwen3-30B-A3B"), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=1),
                    SglangOptions(engine_version=e.context.rules_version))
    assert r.ledger.get(WORKSPACE_ITEM).bytes == row.value.high == MiB(32)
    assert WORKSPACE_SOURCE in row.meaning + row.note + row.derived_from


def test_plan_from_log_lands_in_explains_range_for_sg_062():
    """The plan given the log's numbers (--from-log) lands in the range explain rebuilds, around the printed
    392,920 (as the plan-vs-explain test of sg_484 does): the measured context (device total − 'Load weight begin'
    − init − what the plan charges after the pre sample) must leave the workspace to the plan's line."""
    import re

    from tpkit.cli import main
    from tpkit.explain import explain_log

    log = LOGS / "sg_062.log"
    assert re.search(r"#tokens: 392920\b", log.read_text())
    lo, hi = explain_log(log.read_bytes(), flags={"model": "Qwen/Qwen3-30B-A3B"}).kv_predicted_range
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["plan", "Qwen/Qwen3-30B-A3B", "--from-log", str(log), "--json"]) == 0
    plan = json.loads(out.getvalue())
    assert plan["sglang"]["deepgemm_workspace_bytes"] == MiB(32).bytes
    assert lo <= plan["kv_tokens"] <= hi
