"""Round pl38 (helper pl38, 2026-12-08, session 38): the Quark scope of amd/DeepSeek-R1-MXFP4-Preview (gs_684–gs_686)
and gs_687's build.

* gs_684–gs_686: the config now carries the -Preview export's Quark block (w_mxfp4_a_mxfp4, exclude lm_head: AMD's
  card at commit 2c11de69), read by models/quark.py as SGLang 0.5.5.post3's QuarkConfig does; the CI logs print
  42.87 GiB of weights at tp 8 and 49.66 with DP attention.  Read as the HF ``mxfp4`` method (routed experts only),
  the same checkpoint plans 46.35 / 66.62 GiB.
* gs_687: the log's ``server_args.py:1135`` / ``:1324`` warnings are the v0.5.4.post1-rocm630-mi30x-20251029 build's,
  whose aiter step is 0.5.4.post2's × 0.85 (printed mem_fraction_static 0.68 = 0.8 × 0.85), not 0.5.4.post1's × 0.90.
"""

from __future__ import annotations

import copy
import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
from tpkit.engines.sglang.load import dp_replicated, mla_copies  # noqa: E402
from tpkit.models.quant import parse_quant_config  # noqa: E402
from tpkit.models.weights import plan_weights  # noqa: E402
from tpkit.engines.sglang.versions import attention_dp_size  # noqa: E402

CONFIG = Path(__file__).resolve().parent / "configs" / "amd--DeepSeek-R1-MXFP4-Preview.json"


def _case(cid: str) -> dict:
    return next(c for c in harness.load_cases("sglang") if c["id"] == cid)


def _weights_gib(case: dict, *, hf_mxfp4: bool = False) -> float:
    """SGLang's load usage as scripts/validate.py derives it (weights + MLA copies + DP-attention replicas)."""
    model, gpu, par, opts = harness.inputs(case)
    if hf_mxfp4:  # the assembled config of session 37: HF mxfp4 method, routed experts only
        model = replace(model, quant=parse_quant_config(
            {"quant_method": "mxfp4", "modules_to_not_convert": ["lm_head", "self_attn", "mlp.gate"]}, where="t"))
    if opts.enable_dp_attention:
        par = replace(par, dp=attention_dp_size(opts.engine_version, tp=par.tp, dp=par.dp, dp_attention=True),
                      dp_attention=True)
    plan = plan_weights(model, par, engine="sglang")
    extra = mla_copies(model, par, opts, gpu, plan)[0].gib + dp_replicated(model, par, opts, plan)[0].gib
    return plan.bytes_per_rank.gib + extra


def test_config_is_the_quark_export_of_the_card():
    qc = json.loads(CONFIG.read_text())["quantization_config"]
    assert qc["quant_method"] == "quark" and qc["exclude"] == ["lm_head"]
    assert qc["global_quant_config"]["weight"]["dtype"] == "fp4"
    assert "2c11de69d96bcaf2aa444e590cb0ab7e1cf04ef8" in json.loads(CONFIG.read_text())["_assembled_note"]


def test_weights_follow_the_printed_load_usage():
    for cid in ("gs_684", "gs_686"):
        case = _case(cid)
        printed = case["printed_weights_gib"]["gib"]
        assert abs(_weights_gib(case) - printed) / printed < 0.02, cid
        assert _weights_gib(case, hf_mxfp4=True) - printed > 3.0, cid  # the experts-only reading misses by GiBs


def test_the_three_starts_are_inside_their_band_now():
    for cid in ("gs_684", "gs_685", "gs_686"):
        row = harness.predict(_case(cid))
        assert row.inside and abs(row.error) < 0.01, (cid, row.error)


def test_gs_687_is_placed_at_the_build_its_warning_lines_name():
    case = _case("gs_687")
    assert case["tpkit_engine_version"] == "0.5.4.post2"
    for fact in ("server_args.py:1135", "20251029", "0.68 = 0.8 x 0.85", "gs_510"):
        assert fact in case["engine_version_basis"], fact
    row = harness.predict(case)
    assert row.inside and abs(row.error) < 0.05
    old = copy.deepcopy(case)
    old["tpkit_engine_version"] = "0.5.4.post1"  # the x 0.90 step: the blind +20.4 %
    assert harness.predict(old).error > 0.15
