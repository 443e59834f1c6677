"""scripts/mine_amd_ci_evidence.py: start-up rows from AMD's public SGLang CI history (helper amdev26, 2026-12-06,
docs/accuracy.md "AMD Instinct start-up evidence")."""

import json

import pytest
from tests.scripts_testlib import load_script

from tpkit.startup.table import table_path

GIB = 2**30


@pytest.fixture(scope="module")
def ci():
    return load_script("mine_amd_ci_evidence")


@pytest.fixture(scope="module")
def miner():
    return load_script("mine_startup_evidence")


def _log(gpu="MI300X", world=8, init=(2.95, 0.0), avail=(188.51, 0.0), image="rocm700", date="20251120",
         other_ar=None, grouped=False, path="x.log"):
    return {"path": path, "commit": "0" * 40, "gpu": gpu, "arch": "gfx942" if gpu == "MI300X" else "gfx950",
            "release": "0.5.5.post3", "image": image, "date": date, "world": world, "init": init, "avail": avail,
            "total": 191.98 if gpu == "MI300X" else 287.98, "other_ar": other_ar, "grouped": grouped, "pd": None}


def test_the_lines_read_by_rank_and_the_rules(ci):
    text = ("[2025-11-20 10:00:01 TP1] Init torch distributed ends. mem usage=2.71 GB\n"
            "[2025-11-20 10:00:01 TP0] Init torch distributed ends. mem usage=2.40 GB\n"
            "[2025-11-20 10:00:02 TP0] Load weight begin. avail mem=189.07 GB\n"
            "[2025-11-20 10:00:02 TP1] Load weight begin. avail mem=188.75 GB\n")
    assert ci._ranked(ci.INIT, text) == pytest.approx((2.40, 0.155))
    assert ci._ranked(ci.LOAD, text) == pytest.approx((189.07, 0.16))
    rows = ci.rows([_log(other_ar="AiterCustomAllreduce", path="a.log"), _log(path="b.log"),
                    _log(init=(3.65, 0.0), avail=(187.61, 0.0), path="c.log"),
                    _log(avail=(74.62, 0.0), path="d.log"), _log(grouped=True, path="e.log")])
    by = {r["source_url"].rsplit("/", 1)[1]: r for r in rows}
    # the same numbers on one GPU and world are one row; AITER's all-reduce in the line: no nccl sample
    assert set(by) == {"a.log", "c.log", "d.log", "e.log"} and by["a.log"]["n_observations"] == 2
    assert [d["term"] for d in by["a.log"]["derive"]] == ["cuda_context"] and by["a.log"]["use"]
    assert by["c.log"]["derive"][1] == {"term": "nccl", "key": "xgmi:8", "expr": "init"}
    assert "another process" in by["d.log"]["why_not"] and not by["d.log"]["use"]  # 115 GiB "context"
    assert "DP attention" in by["e.log"]["why_not"]
    assert ci.rows([_log(gpu="MI355X", avail=(284.21, 0.0))])[0]["derive"][0]["key"] == "unknown"  # no family


def test_the_rows_in_the_evidence_are_used_as_the_table_says_and_none_is_a_validation_log(miner):
    evidence = json.loads(miner.EVIDENCE.read_text())
    rows = [r for r in evidence["rows"] if r["id"].startswith("sgci-")]
    assert len(rows) == 63 and sum(r["use"] for r in rows) == 47  # helper gs30: gs_493-gs_512's own logs left out
    assert sum(r["n_observations"] for r in rows) == 985  # helper gs31b: gs_613-gs_640's 28 logs left out; gs31d: gs_661-gs_671's 11
    assert not set(miner.evidence_validation_hits(evidence)) & {r["id"] for r in rows}
    table = json.loads(table_path().read_text())["terms"]
    cdna3, xgmi8 = table["cuda_context"]["cdna3"], table["nccl"]["xgmi:8"]
    used = {r["id"] for r in rows if r["use"]}
    # xgmi:8 n 35 -> 36: helper xg27's sg_120 (0.5.11 image, its init less the release's HIP all-reduce buffers)
    # helper gs30 (session 30): the miner re-run with gs_493-gs_512 in the validation set leaves their 29 logs out
    # (the 20 and nine byte-identical copies): cdna3 n 30 -> 27 (0.53 -> 0.52), xgmi:8 n 36 -> 31 (3.20 -> 2.94)
    assert cdna3["n"] == 27 and used & set(cdna3["rows"]) and xgmi8["n"] == 31
    assert cdna3["bytes"] / GIB == pytest.approx(0.52, abs=0.005)
    assert xgmi8["bytes"] / GIB == pytest.approx(2.94, abs=0.005)
    for r in rows:  # a used row's context (total − avail − init) is a start-up cost, not another tenant's memory
        ctx = r["printed"]["total"] - r["printed"]["avail"] - r["printed"]["init"]
        assert (0.4 < ctx < 1.2 and r["printed"]["init"] < 4) if r["use"] else r["why_not"], r["id"]
