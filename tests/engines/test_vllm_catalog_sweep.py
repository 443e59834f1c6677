"""Every catalog model × a spread of catalog GPUs × tp ∈ {1, 2, 8} plans with vLLM's rules without a crash.

A configuration may be refused with a user error (a TpkitError: TP does not divide the heads, a model the rules
cannot size) or planned as "does not fit"; it must never raise anything else, and a plan's verdict must agree
with the capacity it reports.
"""

import pytest

from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.policy import plan_vllm
from tpkit.errors import TpkitError
from tpkit.hardware.catalog import list_gpus
from tpkit.models import load_model
from tpkit.models.catalog import catalog_entries
from tpkit.parallel import ParallelSpec

MODELS = [e.id for e in catalog_entries()]
GPUS = list_gpus()[::5]  # every fifth catalog GPU: small consumer cards to the largest accelerators


def test_the_gpu_spread_spans_small_and_large_cards():
    sizes = sorted(g.total_bytes.gib for g in GPUS)
    assert sizes[0] < 32 and sizes[-1] > 120, sizes


@pytest.mark.parametrize("model_id", MODELS)
def test_every_model_plans_or_is_refused_with_a_user_error(model_id):
    model = load_model(model_id)
    outcomes = {"fits": 0, "no fit": 0, "refused": 0}
    for gpu in GPUS:
        for tp in (1, 2, 8):
            try:
                result = plan_vllm(model, gpu, ParallelSpec(tp=tp), VllmOptions())
            except TpkitError as exc:
                assert str(exc), (model_id, gpu.name, tp)
                outcomes["refused"] += 1
                continue
            where = (model_id, gpu.name, tp)
            if result.verdict.fits:
                assert result.kv_tokens > 0, where
            else:
                assert result.verdict.message, where
            outcomes["fits" if result.verdict.fits else "no fit"] += 1
    assert outcomes["refused"] < len(GPUS) * 3, f"{model_id}: every configuration refused: {outcomes}"
