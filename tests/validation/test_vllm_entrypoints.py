"""The vLLM entrypoint of every validation case (helper llmc, 2026-12-05): the offline ``vllm.LLM`` class
(``UsageContext.LLM_CLASS``: python scripts, notebooks, ``benchmark_throughput.py`` / ``benchmark_latency.py``,
``vllm bench throughput|latency``) gets other V1 batch defaults than ``vllm serve`` (``engine/arg_utils.py``;
``engines.vllm.batch_defaults.default_batched_tokens``).  Every case records ``entrypoint`` (llm, serve, engine_context or
None) and the quote that shows it; an LLM-class case is planned with ``--vllm-entrypoint llm``; the eight cases whose
batch budget was passed by hand without a printed number now take it from the entrypoint, at the same values.
Helper bl16b (2026-12-05): vp_683 (a ``vllm serve`` command) brings the serve count to 236 (244 with bl16, lead merge)."""

import json
import re
from pathlib import Path

import pytest

import harness

HERE = Path(__file__).resolve().parent
CASES = {c["id"]: c for c in json.loads((HERE / "cases" / "vllm.json").read_text())}
PUBLIC = {c["id"]: c for c in json.loads((HERE / "data_public" / "vllm_cases.json").read_text())}
HAND = {"vp_417": 16384, "vp_613": 16384, "vp_609": 8192, "vp_610": 8192, "vp_611": 8192, "vp_622": 8192,
        "vp_623": 8192, "vp_624": 8192}
"""cases planned with a hand-passed budget until helper llmc (their sources print no batch budget): the LLM class's
default on their GPUs"""


def test_every_case_records_its_entrypoint_with_evidence():
    """Helper bl16 (2026-12-05): vp_702-vp_711 add two LLM-class / in-process engines (vp_703, vp_704) and eight
    'vllm serve' starts: 37 and 243. Helper bl16c (2026-12-05): vp_712-vp_720 are nine 'vllm serve' starts: 37 and 253.
    Helper bl17 (2026-12-05): vp_722 is an LLM-class smoke test, vp_721 and vp_723-vp_729 eight 'vllm serve' starts: 38
    and 261. Helper bl17b (2026-12-05): vp_730-vp_734 are five 'vllm serve' starts (vp_731 through the OpenAI API server
    module): 38 and 266. Helper bl18b (2026-12-05): vp_761 is a `vllm bench throughput` run (the LLM class): 39 and 266.
    Helper bl18 (2026-12-05):
    vp_739 is an LLM-class probe, vp_735-vp_738 and vp_740-vp_747 twelve 'vllm serve' starts: 39 and 278; merged (lead, session 18): 40 and 278.
    Helper bl19 (2026-12-05): vp_762-vp_772 are eleven 'vllm serve' / API-server starts: 40 and 289.
    Helper bl19b (2026-12-06): vp_773 / vp_774 (two 'vllm serve' starts of the official image), vp_775 (an API-server
    start on ROCm) and vp_776 (a 'vllm serve' start script): 40 and 293.
    Helper bl20 (2026-12-06): vp_777-vp_783 are seven 'vllm serve' starts of a Kaggle GPU lab, vp_784 / vp_785 two
    'vllm serve' starts of a B200 benchmark, vp_786-vp_789 four SageMaker vLLM container starts,
    vp_790 / vp_791 two 'vllm serve' starts of the v0.11.0 image, vp_792 / vp_793 two audit-harness servers: 40 and 310.
    Helper cat20 (2026-12-06): vp_800 (the official image's API server) and vp_801 (a 'vllm serve' start): 40 and 312.
    Helper bl20b (2026-12-06): vp_802 / vp_803 (two 'vllm serve' starts on an MI300X) and vp_804 / vp_805 (two starts of
    the vllm/vllm-openai image's compose command) and vp_806 / vp_807 (two offline LLM-class inits of a capacity driver):
    42 and 316.
    Helper bl21b (2026-12-06, session 21): vp_749 / vp_750 (two starts of the vllm/vllm-openai image's OpenAI API server,
    0.6.4.post1 and 0.6.6.post1): 42 and 320 with bl20c's vp_808 / vp_809.
    Helper bl22 (2026-12-06, session 22): vp_812-vp_814 (three offline LLM-class inits of a head-to-head driver) and
    vp_815-vp_825 (eleven 'vllm serve' starts: llm-d / RHOAI services and a compose stack): 45 and 340.
    Helper bl23 (2026-12-06, session 23): vp_843-vp_859 (seventeen 'vllm serve' starts of a co-location harness) and
    vp_860-vp_862 (three 'vllm serve' start scripts): 48 and 369.
    Helper bl23b (2026-12-06, session 23): vp_863 (an OpenAI API server start on an RTX 4090) and vp_864-vp_882 (nineteen
    'vllm serve' starts of an H100 accuracy sweep): merged (lead): 48 and 389.
    Helper bl24 (2026-12-06, session 24): vp_883-vp_902 (twenty 'vllm serve' starts of a speculative-decoding study on
    Colab A100s): 48 and 409.
    Helper bl24b (2026-12-06, session 24): vp_903-vp_917 (fifteen more 'vllm serve' starts of the same sweep): 48 and 404;
    merged (lead): 48 and 424."""
    for cid, case in CASES.items():
        assert case.get("entrypoint", "missing") in ("llm", "serve", "engine_context", None), cid
        assert case.get("entrypoint_evidence"), cid
        assert (case["flags"].get("vllm_entrypoint") == "llm") == (case["entrypoint"] == "llm"), cid
    assert sum(c["entrypoint"] == "llm" for c in CASES.values()) == 93  # + bl38 vp_1154, vp_1155 (the offline LLM class, a study report); + bl35 vp_1138 (the offline LLM class, a Kaggle notebook); + bl34 vp_1111-vp_1135 (engine.py LLMEngine, batch sizes passed); + bl34b vp_1136, vp_1137 (benchmark_latency.py, the offline LLM class); + bl33 vp_1100-vp_1110 (engine.py LLMEngine, batch sizes passed); + bl32b vp_1086, vp_1087; + bl32 vp_1060; + bl30 vp_966; + bl22 vp_812-814; bl22b vp_831, vp_832, vp_834
    assert sum(c["entrypoint"] == "serve" for c in CASES.values()) == 536  # + bl38 vp_1156 (the API server, a study report); + bl37 vp_1152 / vp_1153 (vllm serve, the recipe's commands); + bl36b vp_1061-vp_1067 (vllm serve / the API server); + bl36 vp_1145-vp_1151 (vllm serve); + bl35 vp_1139-vp_1144 (vllm serve / the API server module); + bl33 vp_1089 (the OpenAI API server module), vp_1090-vp_1099 (API-server logs); + bl32b vp_1088 (Dynamo's worker, OPENAI_API_SERVER); + bl30b vp_1010-1020; + bl30 vp_964, 965, 967-984; + bl29b vp_944-963; + bl29 vp_939-943; + bl28 vp_931-938; + bl27 vp_918-930; + bl20c vp_808, 809; bl21 vp_810, 811; bl21b vp_749, 750; bl21c vp_751-757; bl22 vp_815-825; bl22b vp_833; bl22c vp_835-842; bl23 vp_843-862; bl24 vp_883-902


@pytest.mark.parametrize("cid", sorted(PUBLIC))
def test_public_evidence_is_a_quote_of_the_record(cid):
    case = PUBLIC[cid]
    m = re.match(r"(\w+): '(.*?)'(?: \(|$)", case["entrypoint_evidence"])
    if case["entrypoint"] is None:
        assert case["entrypoint_evidence"].startswith("none: ")
        return
    field, quote = m.group(1), m.group(2)
    text = "\n".join(case["log"]) if field == "log" else str(case[field])
    assert quote in text, cid


@pytest.mark.parametrize("cid, tokens", HAND.items())
def test_hand_passed_budgets_come_from_the_entrypoint(cid, tokens):
    case = CASES[cid]
    assert "max_num_batched_tokens" not in case["flags"] and case["flags"]["vllm_entrypoint"] == "llm"
    from tpkit.engines.vllm.inputs import resolve_inputs
    from tpkit.engines.vllm.versions import resolve_rules

    model, gpu, parallel, options = harness.inputs(case)
    r = resolve_inputs(model, gpu, options, resolve_rules(case["tpkit_engine_version"]), parallel)
    assert r.max_num_batched_tokens == tokens
