"""Every headline-scored case off by more than its engine's p90 bar carries its reason in its record (helper why21,
2026-12-06, session 21; issue 11; docs/accuracy.md §6.4 "Every case above its bar carries its reason").

Issue 11's bars are a p90 |error| of 8 % for vLLM and 5 % for SGLang (``scripts/validate.py`` ``TARGET``).  A p90 bar
lets a tenth of the cases lie above it, so the figures can meet the bar with misses left unexplained; the docs promise
instead that each case above the bar has its reason in the record's ``why_off`` (built by
``scripts/build_validation_set.py`` from its ``*_OFF`` tables: VRES_OFF, O19C_OFF, BL20_OFF, ..., WHY21_OFF).  A blind
case added later that misses by more than its bar fails here until its round writes the reading (or "no reading yet"
and what would settle it) into such a table.  Cases scored apart (``Row.headline`` false: an ``engine_anomaly`` or a
printed ``--max-total-tokens`` cap) carry their reason in those fields instead and are not asked for one.
"""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "validation"))

import harness  # noqa: E402

BAR = {"vllm": 0.08, "sglang": 0.05}
"""issue 11's p90 bar per engine (|error|), as scripts/validate.py TARGET gives it"""
MIN_REASON_CHARS = 200
"""a reason is a paragraph (the shortest kept one, vp_372's, is about 600 characters), not a tag"""


def missing_reasons(rows: list[harness.Row], bar: float) -> list[str]:
    """Ids of the headline rows above ``bar`` whose case has no ``why_off`` paragraph, with the error."""
    out = []
    for r in rows:
        if not r.headline or abs(r.error) <= bar:
            continue
        why = r.case.get("why_off")
        if not (isinstance(why, str) and len(why.strip()) >= MIN_REASON_CHARS):
            out.append(f"{r.case['id']} {r.error * 100:+.1f} %: why_off {why!r}")
    return out


@pytest.fixture(scope="module")
def scored() -> dict[str, list[harness.Row]]:
    return {engine: harness.score(engine)[0] for engine in harness.ENGINES}


@pytest.mark.parametrize("engine", harness.ENGINES)
def test_every_headline_case_above_its_bar_carries_its_reason(engine, scored):
    missing = missing_reasons(scored[engine], BAR[engine])
    assert not missing, (f"{engine}: cases above the {BAR[engine]:.0%} bar without a why_off; give each the docs' "
                         f"reading (or 'no reading yet' and what would settle it) in a *_OFF table of "
                         f"scripts/build_validation_set.py: {missing}")


@pytest.mark.parametrize("engine", harness.ENGINES)
def test_a_reason_with_no_reading_says_what_would_settle_it(engine, scored):
    for r in scored[engine]:
        why = (r.case.get("why_off") or "").lower()
        if "no reading yet" in why:
            assert "settle" in why, r.case["id"]


def test_the_check_fails_on_a_miss_without_a_reason_and_not_on_one_scored_apart():
    """The guard bites: a headline case at +9 % with no why_off is named; +7 %, one with a paragraph, one scored apart
    (engine_anomaly) and a -9 % miss with a one-word tag are handled as the docstring says."""
    def row(cid: str, predicted: float, **case) -> harness.Row:
        return harness.Row(case={"id": cid, "flags": {}, **case}, printed=100.0, predicted=predicted,
                           low=predicted, high=predicted)

    rows = [row("a", 109.0), row("b", 107.0), row("c", 109.0, why_off="x " * MIN_REASON_CHARS),
            row("d", 109.0, engine_anomaly="a patched build"), row("e", 91.0, why_off="unknown")]
    assert [m.split()[0] for m in missing_reasons(rows, BAR["vllm"])] == ["a", "e"]
    assert [m.split()[0] for m in missing_reasons(rows, BAR["sglang"])] == ["a", "b", "e"]


def test_the_bars_are_the_validation_targets():
    """The bars here are scripts/validate.py's p90 targets, so a change of target reaches this check."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import validate

    assert {engine: target[1] for engine, target in validate.TARGET.items()} == BAR
