"""No run is scored twice in the validation set (helper dedup15, 2026-12-05; issue 11, honesty of the figures).

Two records of one start-up weigh twice in the median / p90 / inside-band figures.  ``same_run.py`` finds them (one
source: URL, search-index id or a time-stamped log line; one run: the same printed capacity, model, GPU, layout,
release and no flag both set that differs); one of each pair carries ``duplicate_of`` and is listed, not scored.
"""

import pytest

import harness
import same_run


@pytest.mark.parametrize("engine", harness.ENGINES)
def test_no_two_scored_cases_are_the_same_run(engine):
    """Every same-run pair is marked, and the marked case is listed as a duplicate, not scored: a new round that
    re-adds a run already in the set fails here (mark it in build_validation_set.py DUPLICATE_OF)."""
    cases = harness.load_cases(engine)
    assert [(p.a["id"], p.b["id"]) for p in same_run.unmarked(cases)] == []
    rows, skipped = harness.score(engine)
    marked = {c["id"] for c in cases if c.get("duplicate_of")}
    assert marked and not marked & {r.case["id"] for r in rows}
    listed = {c["id"]: c["why_not"] for c in skipped if c["id"] in marked}
    assert set(listed) == marked and all(w.startswith("duplicate of ") for w in listed.values()), listed


def test_the_check_finds_the_runs_recorded_twice():
    """Without their marks the two known pairs are found (the check can fail): vl_021 / vp_020 (search-index file
    38962983769, 238,208 tokens) and gs_007 / sg_067 (willxxy/sglang-play, 2,658,165 tokens)."""
    found = set()
    for engine in harness.ENGINES:
        cases = [{k: v for k, v in c.items() if k != "duplicate_of"} for c in harness.load_cases(engine)]
        found |= {(p.a["id"], p.b["id"]) for p in same_run.unmarked(cases)}
    assert found == {("vl_021", "vp_020"), ("gs_007", "sg_067")}


def test_one_source_with_other_numbers_is_two_runs():
    """vp_012 / vp_013 (llm-d's results page) print the same 64.45 GiB for Qwen3-0.6B on one H100 but ran at
    max_model_len 16,000 and 32,000 (their own load times): near-duplicates, both scored."""
    cases = {c["id"]: c for c in harness.load_cases("vllm")}
    (pair,) = same_run.pairs([cases["vp_012"], cases["vp_013"]])
    assert pair.differ == ("flags.max_model_len",) and not pair.same_run


def test_a_fork_at_the_same_commit_is_the_same_file():
    a = {"source_url": "https://github.com/sgl-project/sgl-project.github.io/blob/e85dcb93b394b2f1/backend/x.html"}
    b = {"source_url": "https://github.com/Stars1233/sgl-project.github.io/blob/e85dcb93b3/backend/x.html"}
    c = {"source_url": "https://github.com/Stars1233/sgl-project.github.io/blob/1a82f6413b/backend/x.html"}
    assert same_run.source_keys(a) == same_run.source_keys(b) != same_run.source_keys(c)
    assert same_run.source_keys({"source_url": "https://github.com/vllm-project/vllm/issues/21348#c1"}) == \
        same_run.source_keys({"source_url": "https://github.com/vllm-project/vllm/issues/21348"})


@pytest.mark.parametrize("edit, message", [
    ({"duplicate_of": "vp_999"}, "must name another vllm validation case"),
    ({"duplicate_of": "vl_021"}, "must name another vllm validation case"),
    ({"duplicate_of": "vp_021"}, "differ in printed value"),
    ({"printed": {"metric": "kv_tokens", "value": 1, "line": ""}}, "differ in printed value"),
    ({"duplicate_note": ""}, "needs a duplicate_note"),
])
def test_a_wrong_duplicate_mark_is_refused(edit, message):
    """duplicate_of is checked like the other fields: it names another case of the engine that is the same printed
    run from a shared source, and says why; a wrong mark stops the scoring with what was wrong."""
    cases = harness.load_cases("vllm")
    case = {**next(c for c in cases if c["id"] == "vl_021"), **edit}
    with pytest.raises(ValueError, match=message):
        harness.duplicate_reason(case, [c if c["id"] != "vl_021" else case for c in cases])


def test_a_mark_onto_a_marked_case_is_refused():
    cases = harness.load_cases("vllm")
    by_id = {c["id"]: c for c in cases}
    target = {**by_id["vp_020"], "duplicate_of": "vl_021"}
    with pytest.raises(ValueError, match="itself marked"):
        harness.duplicate_reason(by_id["vl_021"], [target if c["id"] == "vp_020" else c for c in cases])
