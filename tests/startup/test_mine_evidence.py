"""scripts/mine_startup_evidence.py: start-up evidence rows proposed from the explain corpus (helper ev15, 2026-12-05,
docs/accuracy.md §5 "Start-up rows mined from the explain corpus")."""

import json
import re

import pytest
from tests.scripts_testlib import load_script

from tpkit.hardware.catalog import lookup_gpu
from tpkit.startup.table import table_path


@pytest.fixture(scope="module")
def miner():
    return load_script("mine_startup_evidence")


def _case(cid: str, engine: str, transport=None, how="test") -> dict:
    return {"id": cid, "engine": engine, "file": f"{engine}/{cid}.log", "source": "synthetic", "source_url": None,
            "status": "ok", "_transport": transport, "_transport_how": how, "reported": {"extra": {}}}


H100 = lookup_gpu("H100-SXM-80GB")

SG_TP8_BARE = """[2025-09-11 10:24:20 TP0] Init torch distributed begin.
[2025-09-11 10:24:23 TP1] Init torch distributed ends. mem usage=1.27 GB
[2025-09-11 10:24:23 TP0] Init torch distributed ends. mem usage=1.25 GB
[2025-09-11 10:24:23 TP0] Load weight begin. avail mem=77.43 GB
"""
SG_TP8 = ("[2025-09-11 10:24:19] server_args=ServerArgs(model_path='m', tp_size=8, enable_nccl_nvls=False, "
          "enable_symm_mem=False)\n" + SG_TP8_BARE)


def test_sglang_tp8_nvlink_gives_nccl_and_context_with_the_rank_spread(miner):
    got, why = miner._sglang(_case("x", "sglang", "nvlink"), SG_TP8, H100, "hopper", 8, (0, 5, 2))
    assert why is None
    assert got["printed"] == {"init": 1.25, "car": miner.CAR_LEGACY_GIB, "total": 79.19, "avail": 77.43}
    assert {(d["term"], d["key"], d["expr"]) for d in got["derive"]} == {
        ("nccl", "nvlink:8", "init - car"), ("cuda_context", "hopper", "total - avail - init")}
    assert got["resolution"] == pytest.approx(0.01 + 0.01)  # print rounding + half the TP0/TP1 spread


def test_sglang_from_058_subtracts_the_init_term_and_at_world_1_gives_it(miner):
    got, _ = miner._sglang(_case("x", "sglang", "nvlink"), SG_TP8, H100, "hopper", 8, (0, 5, 8))
    assert [d["expr"] for d in got["derive"] if d["term"] == "nccl"] == ["init - car - nom('sglang_tp1_init', '>=0.5.8')"]
    one = "[t TP0] Init torch distributed ends. elapsed=0.21 s, mem usage=0.09 GB\n[t TP0] Load weight begin. avail mem=78.48 GB\n"
    got, _ = miner._sglang(_case("x", "sglang"), one, H100, "hopper", 1, (0, 5, 9))
    assert {(d["term"], d["key"], d["expr"]) for d in got["derive"]} == {
        ("sglang_tp1_init", "all", "init"), ("sglang_tp1_init", ">=0.5.8", "init"),
        ("cuda_context", "hopper", "total - avail - init - 70 * 2**20 / GIB")}


def test_refusals(miner):
    # release unknown at world > 1: the custom all-reduce and the 0.5.8 term cannot be placed
    got, why = miner._sglang(_case("x", "sglang", "nvlink"), SG_TP8, H100, "hopper", 8, None)
    assert got is None and "release unknown" in why
    # an all-reduce implementation tpkit does not size sits in the init line: no NCCL sample
    aiter = SG_TP8 + "[t TP0] [AR] Using AiterCustomAllreduce (AMD default)\n"
    got, why = miner._sglang(_case("x", "sglang", "nvlink"), aiter, H100, "hopper", 8, (0, 5, 2))
    assert [d["term"] for d in got["derive"]] == ["cuda_context"] and "AiterCustomAllreduce" in got["note"]
    # vLLM ≥ 0.26 'consumed memory' − 'Model loading took' counts torch memory too: no non-torch sample
    consumed = ("(EngineCore pid=1) INFO [model_runner.py:407] Model loading took 2.98 GiB memory\n"
                "(EngineCore pid=1) INFO Actual usage is 3.31 GiB for consumed memory (weights + non-torch), 0.79 GiB\n")
    got, why = miner._vllm(_case("x", "vllm"), consumed, H100, "hopper", 1, (0, 31, 0))
    assert got is None and "torch memory kept after the load" in why
    # hosts: another process on the card, WSL2
    busy = "ValueError: Free memory on device (0.49/79.32 GiB) on startup is less than desired GPU memory utilization"
    assert "co-tenant" in miner._unusual(_case("x", "vllm"), busy)
    assert "WSL2" in miner._unusual(_case("x", "vllm"), "Linux 5.15.167.4-microsoft-standard-WSL2")


def test_vllm_v0_world_8_gives_nccl_and_v1_world_1_gives_cublas_and_context(miner):
    v0 = "INFO 07-23 worker.py:241] model weights take 21.67GiB; non_torch_memory takes 0.36GiB; PyTorch activation\n"
    got, why = miner._vllm(_case("x", "vllm", "pcie"), v0, lookup_gpu("L40S"), "ada", 8, (0, 6, 6))
    assert why is None and got["derive"] == [{"term": "nccl", "key": "pcie:8", "expr": "nontorch - nom('cublas', 'ada')"}]
    v1 = ("(EngineCore_DP0 pid=3021) INFO [gpu_worker.py:391] Free memory on device (78.66/79.19 GiB) on startup. "
          "Desired GPU memory utilization is (0.9, 71.27 GiB). Actual usage is 14.08 GiB for weight, 1.97 GiB for peak "
          "activation, 0.07 GiB for non-torch memory, and 0.67 GiB for CUDAGraph memory.\n")
    got, _ = miner._vllm(_case("x", "vllm"), v1, H100, "hopper", 1, (0, 10, 2))
    assert got["printed"] == {"total": 79.19, "free": 78.66, "nontorch": 0.07}
    assert {(d["term"], d["expr"]) for d in got["derive"]} == {("cuda_context", "total - free"), ("cublas", "nontorch")}


HELD_OUT_ROWS = {"sg_528", "vl_987"}
"""Helper ev24 (2026-12-06): the thirteen rows left pending in session 23 are decided.  ex22's sg_527 (a PD prefill
server alone on its H200: sglang_tp1_init[all] 0.00, cuda_context[hopper] 0.60) and sg_529 (bge-m3 alone on an RTX
5090, ``--gpus device=3``: sglang_tp1_init[all] 0.00) are used; sg_528 (4.17 GiB taken on its H100 before the load)
and vl_987 (the issue's second instance beside the first) are listed with the miner's ``HELD_OUT`` reason, another
process on the card; bl23b's nine (vl_1015-vl_1027) are public validation cases' own logs, listed with use false
like every such log.  sglang_tp1_init[all] 0.01 -> 0.00 GiB (16 -> 18 rows)."""


def test_corpus_rows_are_in_the_evidence_and_no_validation_log_is_used(miner):
    evidence = json.loads(miner.EVIDENCE.read_text())
    ours = {r["id"]: r for r in evidence["rows"] if "helper ev15" in (r.get("note") or "")}
    base = {"rows": [r for r in evidence["rows"] if r["id"] not in ours], "schema": evidence["schema"]}
    proposed = {r["id"]: r for r in miner.mine(base) if r["derive"]}
    assert proposed == ours  # evidence.json holds exactly what the miner proposes (rerun it with --add)
    used = sorted(r["id"] for r in ours.values() if r["use"])
    assert used == ["sg_080", "sg_102", "sg_103", "sg_120", "sg_527", "sg_529", "sg_720", "vl_250"]  # sg_720: 4x GB300 (pl37's entry; lead, session 37)  # vl_108 out since bl36 (vp_1151's own log); sg_634 (gs28c) out since bl36b (gs_703's own log, lead)
    assert all(not ours[i]["use"] and ours[i]["why_not"] == miner.HELD_OUT[i] for i in HELD_OUT_ROWS)
    assert {i for i in ours if re.fullmatch(r"vl_10\d\d", i)} == {f"vl_{n}" for n in (1015, 1016, 1017, 1018, 1019, 1022, 1024,
                                                                              1026, 1027, 1052, 1066)}  # 1052: bl24b; 1066: bl27 (vp_929, use false)
    corpus = json.loads((miner.DATA / "cases.json").read_text())
    texts = {c["id"]: (miner.DATA / c["file"]).read_text(errors="replace") for c in corpus}
    val = miner.validation_logs(corpus, texts)
    assert not set(used) & set(val) and {"vl_084", "vl_101", "vl_154"} <= set(val)  # vp_023, vp_041, vp_084
    assert all(r["why_not"].startswith("a public validation case's own log") for r in ours.values()
               if r["id"] in val)


def test_the_table_follows_the_new_rows():
    terms = json.loads(table_path().read_text())["terms"]
    assert "vl_250" in terms["nccl"]["pcie:8"]["rows"] and terms["nccl"]["pcie:8"]["n"] == 2
    assert {"sg_080", "sg_102", "sg_527", "sg_529"} <= set(terms["sglang_tp1_init"]["all"]["rows"])
    assert terms["sglang_tp1_init"]["all"]["n"] == 18 and terms["sglang_tp1_init"]["all"]["bytes"] == 0
    assert "sg_527" in terms["cuda_context"]["hopper"]["rows"] and terms["cuda_context"]["hopper"]["n"] == 17
    assert not ({"sg_528", "vl_987"} & {r for t in terms.values() for c in t.values() for r in c.get("rows", ())})


def test_held_out_logs_are_refused_with_their_reason(miner):
    # the co-tenant shows only in the text the miner does not parse: the reason is the exclusion's, the row is listed
    rows = {r["id"]: r for r in miner.mine({"rows": [], "schema": 1})}
    for cid in HELD_OUT_ROWS:
        assert rows[cid]["use"] is False and "another process holds memory on the card" in rows[cid]["why_not"]
        assert rows[cid]["derive"]  # it would give a term: the exclusion, not a missing line, keeps it out


def test_sglang_nvlink_above_two_ranks_needs_the_flags_printed(miner):
    """Helper ev32: on an NVSwitch board at world > 2, NVLS / symmetric memory / extra groups change the init line and
    print only in the flags; a log without them gives no NCCL sample (sg_051, PR #11716's description)."""
    got, why = miner._sglang(_case("x", "sglang", "nvlink"), SG_TP8_BARE, H100, "hopper", 8, (0, 5, 3))
    assert "flags are not printed" in why and [d["term"] for d in got["derive"]] == ["cuda_context"]  # context kept
    dump = "[t] server_args=ServerArgs(model_path='m', tp_size=8, enable_nccl_nvls=False, enable_symm_mem=False)\n"
    got, why = miner._sglang(_case("x", "sglang", "nvlink"), dump + SG_TP8_BARE, H100, "hopper", 8, (0, 5, 3))
    assert why is None and any(d["term"] == "nccl" for d in got["derive"])
    cmd = "python3 -m sglang.launch_server --model-path m --tp 8 --port 30000\n"
    assert miner.sglang_flags_printed(cmd) and not miner.sglang_flags_printed(SG_TP8_BARE)
    # two ranks (no NVLink SHARP below three GPUs) and PCIe keep their samples without the flags
    two = SG_TP8_BARE
    got, why = miner._sglang(_case("x", "sglang", "nvlink"), two, H100, "hopper", 2, (0, 5, 3))
    assert why is None and [d["key"] for d in got["derive"] if d["term"] == "nccl"] == ["nvlink:2"]
    got, why = miner._sglang(_case("x", "sglang", "pcie"), SG_TP8_BARE, H100, "hopper", 4, (0, 5, 3))
    assert why is None and [d["key"] for d in got["derive"] if d["term"] == "nccl"] == ["pcie:4"]


def test_symmetric_memory_or_mscclpp_on_is_refused(miner):
    for flag in ("enable_symm_mem=True", "enable_torch_symm_mem=True", "enable_mscclpp=True"):
        assert "symmetric memory or MSCCL++" in miner._unusual(_case("x", "sglang"), f"ServerArgs(tp_size=8, {flag})")
    assert miner._unusual(_case("x", "sglang"), "ServerArgs(tp_size=8, enable_symm_mem=False)") is None


def test_every_used_sglang_nvlink_nccl_row_prints_its_flags(miner):
    """The flags rule holds for the hand-entered rows too: every used SGLang row giving nccl[nvlink:W > 2] from a
    corpus log prints its flags; sg_051 (no flags) is listed with the reason."""
    ev = json.loads((miner.EVIDENCE).read_text(encoding="utf-8"))
    corpus = {c["id"]: c for c in json.loads((miner.DATA / "cases.json").read_text(encoding="utf-8"))}
    checked = 0
    for r in ev["rows"]:
        keys = [d["key"] for d in r["derive"] if d["term"] == "nccl" and d["key"].startswith("nvlink:")]
        if r["engine"] != "sglang" or not keys or int(keys[0].split(":")[1]) <= 2 or r.get("case_id", r["id"]) not in corpus:
            continue
        text = (miner.DATA / corpus[r.get("case_id", r["id"])]["file"]).read_text(encoding="utf-8", errors="replace")
        if r["use"]:
            assert miner.sglang_flags_printed(text), r["id"]
            checked += 1
    assert checked >= 2  # sg_010 (nvlink:8), sg_105 (nvlink:4)
    sg051 = next(r for r in ev["rows"] if r["id"] == "sg_051")  # PR #11716: no flags, the context only
    assert [d["term"] for d in sg051["derive"]] == ["cuda_context"] and "flags are not printed" in sg051["note"]
    text = (miner.DATA / corpus["sg_051"]["file"]).read_text(encoding="utf-8", errors="replace")
    assert not miner.sglang_flags_printed(text)


def test_a_mined_vllm_nccl_sample_is_vllms_profile_window_and_none_comes_from_0_11(miner):
    """Helper ev33: the NCCL sample the miner reads off a vLLM non-torch line before 0.11 (snapshot before the
    distributed init, line after the profile run: V0 ``worker.py``, 0.6.6.post1 / 0.7.1 / 0.8.5) is what vLLM's own
    cells hold (``build_startup_table.nccl_window`` "profile"); from 0.11 (snapshot after the distributed init) the
    same line gives the growth row and no NCCL sample."""
    builder = load_script("build_startup_table")
    v0 = "INFO 07-23 worker.py:241] model weights take 21.67GiB; non_torch_memory takes 0.36GiB; PyTorch activation\n"
    l40s = lookup_gpu("L40S")
    old, why = miner._vllm(_case("x", "vllm", "pcie"), v0, l40s, "ada", 8, (0, 10, 2))
    assert why is None and [d["term"] for d in old["derive"]] == ["nccl"]
    assert builder.nccl_window({"engine": "vllm", "derive": old["derive"]}) == "profile"
    new, why = miner._vllm(_case("x", "vllm", "pcie"), v0, l40s, "ada", 8, (0, 11, 0))
    assert why is None and [(d["term"], d["key"]) for d in new["derive"]] == [("vllm_nontorch_growth", "tp>2")]
    # an SGLang init line's sample is the init window, whatever its world
    sg, _ = miner._sglang(_case("y", "sglang", "nvlink"), SG_TP8, H100, "hopper", 8, (0, 5, 2))
    assert builder.nccl_window({"engine": "sglang", "derive": sg["derive"]}) == "init"


def test_add_skips_a_log_already_merged_into_another_row(miner, monkeypatch, tmp_path):
    """``--add`` appends only logs the evidence does not hold: a log folded into another row ("also <id>" in its note,
    ``_merge``) is held (lead, session 37: the add had appended seven such logs as rows of their own)."""
    path = tmp_path / "evidence.json"
    held = {"id": "vl_1", "note": "GPU: named; also vl_2", "derive": [{"term": "x", "key": "hopper"}]}
    path.write_text(json.dumps({"schema": 1, "rows": [held]}))
    monkeypatch.setattr(miner, "EVIDENCE", path)
    proposals = [dict(held, id=i, engine="vllm", gpu="H100", world=1, transport=None, use=False, printed={},
                      why_not="") for i in ("vl_2", "vl_3")]
    monkeypatch.setattr(miner, "mine", lambda evidence: proposals)
    assert miner.main(["--add"]) == 0
    assert [r["id"] for r in json.loads(path.read_text())["rows"]] == ["vl_1", "vl_3"]
