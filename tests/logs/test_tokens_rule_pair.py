"""vLLM's printed pair 'GPU KV cache size' / 'Maximum concurrency' as release evidence (helper v920, 2026-12-05):
from 0.20.1 the tokens are int(concurrency × max_model_len); a pair that disagrees beyond the concurrency's
two-decimal rounding was printed by the older num_blocks // groups × block rule, so the release is 0.8–0.20.0
(``logs.reader.tokens_rule_evidence``)."""

from pathlib import Path

from tpkit.logs.engine import release_range
from tpkit.logs.reader import tokens_rule_evidence
from tpkit.logs.reader import parse_log

DATA = Path(__file__).resolve().parent / "data"


def test_vl_920_pair_bounds_the_release_below_the_concurrency_rule():
    parsed = parse_log((DATA / "vllm" / "vl_920.log").read_bytes())
    assert parsed.engine.version == "0.8–0.20.0"
    assert not parsed.engine.version_printed
    assert any("printed pair" in e.claim and "63,360" in e.claim for e in parsed.engine.evidence)


def test_vl_920_explain_rebuilds_the_older_rule_in_range():
    from tpkit.explain import explain_log

    config = DATA.parents[1] / "validation" / "configs" / "RedHatAI--Qwen3.6-35B-A3B-NVFP4.json"
    flags = {"model": str(config), "tp": 1, "gpu": "RTX-5090", "gpu_memory_utilization": 0.92,
             "max_model_len": 131072, "max_num_seqs": 4, "max_num_batched_tokens": 8192,
             "enable_prefix_caching": True}
    report = explain_log((DATA / "vllm" / "vl_920.log").read_bytes(), flags=flags)
    assert any(lo <= 63_360 <= hi for lo, hi in report.kv_predicted_alternatives)
    assert all(hi < 100_000 for lo, hi in report.kv_predicted_alternatives)  # 0.34's 242,133 is ruled out


_NEWER = """INFO 12-05 10:00:00 [gpu_worker.py:300] Available KV cache memory: 20.00 GiB
INFO 12-05 10:00:00 [kv_cache_utils.py:1200] GPU KV cache size: 242,133 tokens
INFO 12-05 10:00:00 [kv_cache_utils.py:1201] Maximum concurrency for 131,072 tokens per request: 1.85x
"""


def test_a_pair_the_concurrency_rule_prints_leaves_the_newer_rule_open():
    parsed = parse_log(_NEWER)
    first, last = release_range(parsed.engine.version)  # the two-line format's 0.8–0.27, 0.20.1+ kept
    assert first <= (0, 8, 0) and last >= (0, 20, 1)
    assert not any("printed pair" in e.claim for e in parsed.engine.evidence)


def test_tokens_rule_evidence_bounds():
    length = 131_072
    # int(1.845 × L) … int(1.855 × L) + 1 is the newer rule's span: no evidence inside it
    assert tokens_rule_evidence((int(1.845 * length), 1), (1.85, 0.005, length)) is None
    assert tokens_rule_evidence((int(1.855 * length) + 1, 1), (1.85, 0.005, length)) is None
    outside = tokens_rule_evidence((int(1.855 * length) + 2, 1), (1.85, 0.005, length))
    assert outside is not None and ": 0.8–0.20.0 (" in outside.claim
    assert tokens_rule_evidence(None, (1.85, 0.005, length)) is None
    assert tokens_rule_evidence((63_360, 1), None) is None


_OPEN = """INFO 12-05 10:00:00 [core.py:70] Initializing a V1 LLM engine with config: model='RedHatAI/Qwen3.6-35B-A3B-NVFP4'
INFO 12-05 10:00:10 [gpu_worker.py:300] Available KV cache memory: 4.88 GiB
"""


def test_a_rule_set_inside_the_release_range_is_rebuilt_too():
    """Read as ≥ 0.8 (no pair printed), vl_920's run is rebuilt by the 0.17.0–0.20.0 rules as well (groups rule, the
    config's SSM dtype): neither end of the range (0.8.0: 63,648; 0.34: 242,133) counts its 63,360."""
    from tpkit.explain import explain_log
    from tpkit.explain.vtokens import _inner_releases

    assert "0.17.0" in _inner_releases(("0.8", "0.34")) and "0.20.1" in _inner_releases(("0.8", "0.34"))
    assert "0.8.0" not in _inner_releases(("0.8", "0.34")) and "0.34.0" not in _inner_releases(("0.8", "0.34"))
    config = DATA.parents[1] / "validation" / "configs" / "RedHatAI--Qwen3.6-35B-A3B-NVFP4.json"
    flags = {"model": str(config), "tp": 1, "gpu": "RTX-5090", "gpu_memory_utilization": 0.92,
             "max_model_len": 131072, "max_num_seqs": 4, "max_num_batched_tokens": 8192,
             "enable_prefix_caching": True}
    report = explain_log(_OPEN, flags=flags)
    # helper fx38 (2026-12-08): 'Initializing a V1 LLM engine' is printed from 0.7.1 (V1 opt-in in 0.7.x; 0.7.3 wheel)
    assert report.context.version.startswith("≥ 0.7.1")
    alternatives = report.kv_predicted_alternatives
    assert (63_360, 63_360) in alternatives and (242_133, 242_133) in alternatives


def _capacity_row(engine_version):
    """vl_920's capacity-check row (its capacity records removed) with models.json's source flags, the release
    replaced by ``engine_version`` (None: dropped)."""
    import copy
    import sys

    sys.path.insert(0, str(DATA.parents[2] / "scripts"))
    import explain_capacity_check as check

    models = copy.deepcopy(check.model_map())
    flags = models["vl_920"]["flags"]
    flags.pop("engine_version", None)
    if engine_version is not None:
        flags["engine_version"] = engine_version
    return check.check({"id": "vl_920", "engine": "vllm", "file": "vllm/vl_920.log"}, models)


def test_vl_920_is_rebuilt_with_the_release_its_source_states():
    """Helper cap25 (2026-12-06): the README vl_920 quotes pins the image vllm/vllm-openai@sha256:baaf5fc7… (tag
    nightly-89361181…, 'approximately two weeks of commits ahead of v0.19.2rc0'; its later README names that
    digest's build 0.19.2rc1.dev21+g893611813): models.json passes it as --engine-version, and the stripped log is
    rebuilt by the 0.17.0–0.20.0 rules (the groups rule, the config's SSM dtype): 63,360, the printed count.
    Without it the stripped log has no release and the newest rules give 242,133; either side of the 0.20.1
    boundary (tokens = int(concurrency × max_model_len)) gives the one or the other."""
    row = _capacity_row("0.19.2rc1.dev21")
    assert row["outcome"] == "hit" and row["printed"] == 63_360 and row["range"] == [63_360, 63_360]
    assert _capacity_row("0.20.0")["range"] == [63_360, 63_360]
    newer = _capacity_row("0.20.1")
    assert newer["outcome"] == "miss" and newer["range"][0] > 200_000
    none = _capacity_row(None)
    assert none["outcome"] == "miss" and none["range"] == [242_133, 242_133]


def test_a_v1_log_read_as_from_0_7_1_takes_v1_rules_at_the_low_end():
    """Lead (2026-12-08, session 38; ``Context.rules_version``): round fx38 dates 'Initializing a V1 LLM engine' from 0.7.1 (V1 was opt-in in 0.7.x),
    and 0.7.1's default engine is V0: a log with that line and no release takes 0.7.1's V1 rules, not V0's; a log whose
    line formats say V0, or a printed V1 release, is left as it was."""
    from tpkit.engines.vllm.versions import resolve_rules
    from tpkit.explain.context import Context
    from tpkit.explain.vtokens import _engine_rules, log_rules

    def ctx(version):
        return Context(engine="vllm", version=version, values={}, sources={}, model=None, model_source="", gpu=None,
                       gpu_source="", contradictions=[], notes=[])

    v1 = ctx("≥ 0.7.1 (V1 engine; opt-in in 0.7.x)")
    assert resolve_rules("0.7.1").engine == "V0"
    assert v1.rules_version == "0.7.1:v1"   # every reader of the release (the re-plans' engine_version too)
    assert log_rules(v1).engine == "V1" and log_rules(v1).release == resolve_rules("0.7.1:v1").release
    assert _engine_rules(v1, "0.20.0").engine == "V1"
    v0 = ctx("0.7.1–0.10.x (V0 engine)")
    assert log_rules(v0) == resolve_rules(v0.rules_version)   # no V1 line: the release's own rules, as before
    assert ctx("0.20.0").rules_version == "0.20.0" and ctx("≥ 0.8 (V1 engine)").rules_version == "0.8"
    assert log_rules(ctx("0.20.0")).engine == "V1"
