"""``tpkit.logs.links``: the links a log prints (the engines' custom all-reduce 'disabled because …' lines, vLLM's
Ray placement), and ``tpkit explain`` carrying them to a re-plan (``Context.links``)."""

import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.logs.links import read_link_signs

DATA = Path(__file__).resolve().parent / "data"


def test_corpus_logs():
    p2p = read_link_signs((DATA / "vllm" / "vl_087.log").read_text())
    assert p2p.no_p2p[0] == 9 and p2p.nodes is None and p2p.num_nodes == 1
    two = read_link_signs((DATA / "vllm" / "vl_088.log").read_text())
    assert two.nodes[0] == 10 and two.num_nodes == 2 and two.no_p2p is None
    four = read_link_signs((DATA / "vllm" / "vl_089.log").read_text())
    assert four.num_nodes == 4 and "4 Ray worker hosts seen" in four.nodes_how
    pcie = read_link_signs((DATA / "sglang" / "sg_009.log").read_text())
    assert pcie.pcie and not pcie.no_p2p and not pcie.nodes
    assert read_link_signs((DATA / "vllm" / "vl_085.log").read_text()) is None


@pytest.mark.parametrize("line, fact", [
    # SGLang 0.5.23 custom_all_reduce_utils.py can_use_custom_all_reduce_with_nvlink (cls_name spellings)
    ("[TP0] CustomAllreduce is disabled because your platform lacks GPU P2P capability or P2P test failed.", "no_p2p"),
    ("[TP1] CustomAllReduceV2 is disabled because this process group spans across nodes.", "nodes"),
    # vLLM 0.29.0 custom_all_reduce.py: the multi-node path without MNNVL
    ("WARNING Custom collectives are disabled because this multi-node group does not have MNNVL-capable GPUs on "
     "every rank.", "nodes"),
    ("WARNING Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs.", "pcie"),
])
def test_engine_spellings(line, fact):
    signs = read_link_signs("x\n" + line + "\n")
    assert getattr(signs, fact)[0] == 2
    assert signs.num_nodes == (2 if fact == "nodes" else 1)


def test_host_count_is_bounded_by_tp():
    text = ("Custom allreduce is disabled because this process group spans across nodes.\n"
            + "".join(f"(RayWorkerWrapper pid=1, ip=10.0.0.{i}) x\n" for i in range(6)))
    assert read_link_signs(text).num_nodes == 6
    assert read_link_signs(text, tp=4).num_nodes == 4


def test_explain_notes_the_links_and_the_context_carries_them(capsys):
    assert main(["explain", str(DATA / "vllm" / "vl_089.log"), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any(n.startswith("links from the log: --nnodes 4 (log line 13:") for n in notes)
    from tpkit.cli.explain import read_log
    from tpkit.explain import explain_log

    ctx = explain_log(read_log(str(DATA / "vllm" / "vl_087.log"))).context
    assert ctx.links.p2p is False and ctx.links.nnodes == 1 and ctx.links.source.startswith("log line 9:")
    assert explain_log(read_log(str(DATA / "vllm" / "vl_085.log"))).context.links is None
