"""A vLLM log that prints a pre-release or development build of X.Y.Z (``0.20.1rc1.dev23+g…``): PEP 440 orders it
before X.Y.Z, so the build may lack some of X.Y.Z's changes, and the printed tokens are rebuilt by the rules of the
release before and of X.Y.Z (logs.engine.pre_release_ends, read by explain.vtokens.version_ends; helper gb10
2026-12-05).  vl_720 (a DGX Spark compose log, eugr/spark-vllm-docker pull request 200) prints the V1 'blocks // groups × block' count that 0.20.0
prints, not the 'int(concurrency × max_model_len)' of 0.20.1.

Helper cap10 (2026-12-05): a build numbered from a release-candidate tag (``X.Y.ZrcN.devM``) is a main-branch nightly,
which vLLM keeps numbering from that tag past X.Y.Z (its releases come from release branches main does not reach:
vllm issue #25476; docker/model-runner pull request #735 runs 'vllm 0.16.1rc1.dev268' for Qwen3.5 support "on the
main branch ahead of 0.17.0"), so its upper end is the next minor release X.(Y+1).0; the SSM state's dtype joins the
rule key (explain.vtokens._rule_key).  vl_457 (0.16.1rc1.dev265, Qwen3.5-9B with fp8 KV on an L40S) prints the
1,056-token block that the 0.17.0 rules give (the config's float32 SSM state) and is rebuilt exactly by them."""

from explain_testlib import log_bytes, script

from tpkit.explain import explain_log
from tpkit.explain.context import Context
from tpkit.explain.vtokens import version_ends
from tpkit.logs.engine import pre_release_ends

CHECK = script("explain_capacity_check")


def test_pre_release_ends_on_both_sides_of_a_release():
    assert pre_release_ends("0.20.1rc1.dev23+gde3da0b97.d20260428") == ("0.20.0", "0.21.0")  # main nightly
    assert pre_release_ends("0.10.1.dev101+gbda9d0535") == ("0.10.0", "0.10.1")
    assert pre_release_ends("0.11.0rc2") == ("0.10", "0.11.0")       # X.Y.0: the minor before
    assert pre_release_ends("0.19.2rc1.dev100") == ("0.19.1", "0.20.0")
    assert pre_release_ends("0.11.0rc2.dev98+g393de22d2") == ("0.10", "0.12.0")
    assert pre_release_ends("0.16.1rc1.dev265+gd106bf39f") == ("0.16.0", "0.17.0")
    # releases, post releases and NVIDIA's local labels are releases: no range
    for text in ("0.20.1", "0.20.1.post1", "0.13.0+faa43dbf.nv26.01", "0.4.0.post1"):
        assert pre_release_ends(text) is None, text
    # a source build with no release number (v0.1.dev15312) and releases before 0.2 are not modelled
    assert pre_release_ends("0.1.dev15312+g690e127b1") is None
    assert pre_release_ends("0.2.0rc1") is None


def _ctx(version: str) -> Context:
    return Context(engine="vllm", version=version, values={}, sources={}, model=None, model_source="", gpu=None,
                   gpu_source="", contradictions=(), notes=())


def test_a_printed_range_still_wins():
    assert version_ends(_ctx("0.18–0.27")) == ("0.18", "0.27")
    assert version_ends(_ctx("0.20.1")) is None
    assert version_ends(_ctx("0.20.1rc1.dev23")) == ("0.20.0", "0.21.0")
    assert version_ends(_ctx("0.20.1rc1")) == ("0.20.0", "0.20.1")        # a tagged release candidate


def _stripped(case_id: str, **extra):
    flags = {"model": CHECK.model_flag(CHECK.model_map()[case_id]), **extra}
    return explain_log(CHECK.strip_capacity(log_bytes(case_id)), flags=flags)


def test_vl_720_rebuilt_by_the_release_before():
    e = _stripped("vl_720")
    alts = sorted(e.kv_predicted_alternatives)
    assert len(alts) == 2
    assert alts[0] == (1_253_392, 1_253_392)             # 0.20.0: 2,359 blocks // 4 groups × 2,128
    assert alts[1][0] > 3_800_000                        # 0.20.1: int(concurrency × 65,536)
    assert CHECK._in_alternatives(1_253_392, e)
    assert "pre-release or development build" in e.to_dict()["kv_tokens"]["source"]


def test_vl_720_with_a_named_release_has_one_rule():
    e = _stripped("vl_720", engine_version="0.20.1")
    assert e.kv_predicted_alternatives == ()
    assert e.kv_predicted_range[0] > 3_800_000
    e = _stripped("vl_720", engine_version="0.20.0")
    assert e.kv_predicted_alternatives == () and e.kv_predicted_range == (1_253_392, 1_253_392)


def test_vl_457_main_nightly_rebuilt_by_the_next_minor_release():
    """0.16.1rc1.dev265: the 0.16 rules plan a 544-token block (SSM state in the KV dtype) and 39,712 tokens; the
    0.17.0 rules read the config's float32 SSM state (block 1,056, as the log prints) and give 39,072 exactly."""
    e = _stripped("vl_457", gpu="L40S")
    alts = sorted(e.kv_predicted_alternatives)
    assert alts == [(39_072, 39_072), (39_712, 39_712)]
    assert CHECK._in_alternatives(39_072, e)
    assert "SSM state 4 B per element" in e.to_dict()["kv_tokens"]["source"]
    e = _stripped("vl_457", gpu="L40S", engine_version="0.16.1")
    assert e.kv_predicted_range == (39_712, 39_712)


def test_edge_versions_of_the_review():
    """Helper rev10 (2026-12-05): the builds the session's logs print, and a major release's first candidate."""
    assert pre_release_ends("0.19.2rc1.dev8") == ("0.19.1", "0.20.0")            # a main nightly counted from an rc tag
    assert pre_release_ends("0.20.1.dev1") == ("0.20.0", "0.20.1")               # vl_842: one commit after v0.20.0
    assert pre_release_ends("0.31.1rc1.dev23+g43b4aaea3") == ("0.31.0", "0.32.0")  # vl_813 (ROCm, committed log)
    # a source build without tags (setuptools-scm's 0.1.devN) and a fork's own numbering: no vLLM release number,
    # the line formats decide (vl_669 prints v0.1.dev15312)
    assert pre_release_ends("0.1.dev15312") is None
    assert pre_release_ends("v0.1.1.dev0+g690e127b1") is None
    # X.0.0: no "X.(0-1)" minor to name; the release before is the newest of the major before, which the version
    # text does not give
    assert pre_release_ends("1.0.0rc1.dev3") is None
    assert pre_release_ends("1.0.0rc1") is None
    assert pre_release_ends("1.2.0rc1") == ("1.1", "1.2.0")
