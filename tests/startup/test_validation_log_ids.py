"""scripts/startup_validation_logs.py reads case ids of three and four digits (round rev33, 2026-12-07, session 33).

The corpus is past sg_999 / vl_999 and the validation set past vp_999; the hold-out read ``_\\d{3}\\b`` until
rev33, which no four-digit id matches, so a validation case naming sg_1001 (or an evidence row naming vp_1010)
would not have held that log out of the start-up fit.  Both sides of the boundary: vp_999-like three digits and
vp_1010-like four digits."""

import re

import pytest
from tests.scripts_testlib import load_script


@pytest.fixture(scope="module")
def held_out():
    return load_script("startup_validation_logs")


@pytest.mark.parametrize("text, want", [("see sg_481 here", ["sg_481"]), ("see sg_1005 here", ["sg_1005"]),
                                        ("vl_1397.", ["vl_1397"]), ("case_012", ["case_012"]),
                                        ("sg_12", []), ("sg_12345", [])])
def test_corpus_ids_of_three_and_four_digits(held_out, text, want):
    assert re.findall(held_out.CORPUS_ID, text) == want


@pytest.mark.parametrize("cid", ["vp_901", "vp_1010"])
def test_an_evidence_row_naming_a_validation_case_is_held_out(held_out, cid):
    row = {"id": "x_row", "case_id": None, "source": f"synthetic row quoting {cid}'s log", "source_url": None}
    assert held_out.evidence_validation_hits({"rows": [row]}, corpus_val={}) == {"x_row": [cid]}
