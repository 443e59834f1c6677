"""The JSON layout the explain step and ``--json`` build on."""

import json

from logs_testlib import log_bytes

from tpkit.logs import MEANINGS, parse_log

TOP = {"schema", "status", "engine", "run", "selected_rank", "ranks", "anchors", "failures", "primary_failure",
       "settings", "missing", "notes", "line_count"}


def test_top_level_keys_and_types():
    out = json.loads(json.dumps(parse_log(log_bytes("sg_028")).to_dict()))
    assert set(out) == TOP
    assert out["status"] == "failed" and out["primary_failure"]["phase"] == "cuda_graph"
    assert set(out["engine"]) == {"engine", "version", "version_printed", "engine_generation", "evidence"}
    size = out["primary_failure"]["sizes"]["requested"]
    assert set(size) == {"bytes", "text", "unit_word", "divisor_bytes", "rounding_bytes", "meaning"}


def test_anchor_entries_carry_rank_line_and_meaning():
    out = parse_log(log_bytes("sg_009")).to_dict(rank="TP2")
    assert out["selected_rank"]["rank"]["label"] == "TP2"
    for anchor in out["anchors"]:
        assert anchor["name"] in MEANINGS and anchor["line_no"] >= 1 and anchor["rank"]
        assert ("size" in anchor) != ("count" in anchor)
        if "size" in anchor:
            assert anchor["size"]["meaning"] == MEANINGS[anchor["name"]][1]
