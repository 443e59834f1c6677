"""Every catalog model × every catalog GPU × tp ∈ {1, 2, 4, 8} plans without a crash.

A configuration may be refused with a user error (TP does not divide the heads, linear attention
not supported) or planned as "does not fit"; it must never raise anything else, every plan's
ledger must add up to its own KV-budget lines, and a verdict must agree with the capacity it reports.
"""

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import list_gpus
from tpkit.models import load_model
from tpkit.models.catalog import catalog_entries
from tpkit.parallel import ParallelSpec

from sglang_fixtures import ledger_problems

MODELS = [e.id for e in catalog_entries()]


@pytest.mark.parametrize("model_id", MODELS)
def test_every_gpu_and_tp_plans(model_id):
    model = load_model(model_id)
    outcomes = {"fits": 0, "no fit": 0, "refused": 0, "with a KV pool": 0}
    for gpu in list_gpus():
        for tp in (1, 2, 4, 8):
            try:
                result = plan_sglang(model, gpu, ParallelSpec(tp=tp), SglangOptions())
            except PlanInputError as exc:
                assert str(exc), (model_id, gpu.name, tp)
                outcomes["refused"] += 1
                continue
            where = (model_id, gpu.name, tp)
            assert ledger_problems(result) == [], where
            if result.verdict.fits:
                assert result.kv_tokens > 0 and result.max_running_requests >= 1, where
            else:
                assert result.verdict.knob and result.verdict.message, where
                # KV tokens but no fit: only the request pools (req_to_token, linear-attention slots) can say so
                assert result.kv_tokens == 0 or result.verdict.knob in ("--context-length", "--mem-fraction-static"), \
                    (where, result.verdict.message)
            outcomes["fits" if result.verdict.fits else "no fit"] += 1
            outcomes["with a KV pool"] += result.kv_tokens > 0
    assert outcomes["with a KV pool"] >= 1, f"{model_id}: no KV pool on any catalog GPU at any tp ≤ 8: {outcomes}"
    assert outcomes["refused"] < len(list_gpus()) * 4, f"{model_id}: every configuration refused"
