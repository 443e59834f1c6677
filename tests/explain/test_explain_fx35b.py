"""Helper fx35b (2026-12-07, issue 12): SGLang's --tp / --pp-size fixes held against the GPUs the log shows its host
has (``explain.hostgpus``, the rule vLLM's fixes follow since round cr35b), and the free-text host count
(``logs.hostcount``) as one more way the host's count is shown; docs/accuracy.md §7.3 round fx35b."""

from tpkit.explain.diagnose import SUGGESTION
from tpkit.explain.hostgpus import HostGpus, checked_fixes, gpus_needed, host_gpus_shown
from tpkit.explain import vhostgpus

from test_explain_cr35b import _ctx, _fit  # the same context and fix builders


def test_one_home_for_the_rule():
    assert vhostgpus.checked_fixes is checked_fixes and vhostgpus.host_gpus_shown is host_gpus_shown


def test_sglang_layout_flags_are_counted():
    # SGLang 0.5.9 server_args.py: --tensor-parallel-size / --tp-size, --pipeline-parallel-size / --pp-size; explain's
    # SGLang fixes write '--tp N'
    assert gpus_needed("--tp 4", 2, 1) == 4
    assert gpus_needed("--tp-size 8", 1, 1) == 8
    assert gpus_needed("--tp-size 1 --pp-size 4", 4, 1) == 4          # sgbalance's pipeline alternative
    assert gpus_needed("--pp-size 2", 2, 1) == 4
    assert gpus_needed("--mem-fraction-static 0.80", 2, 1) is None
    assert gpus_needed("--dp-size 2", 1, 1) is None                    # dp is not counted (module doc)


def test_an_sglang_tp_fix_beyond_the_host_is_a_suggestion():
    host = HostGpus(count=2, exact=True, evidence="nvidia-smi lists 2 GPUs, line 3")
    out = checked_fixes([_fit("--tp 4"), _fit("--mem-fraction-static 0.80"), _fit("--tp-size 1 --pp-size 2")],
                        _ctx(tp=2), host)
    assert not out[0].fits and out[0].note.startswith(f"{SUGGESTION}: needs 4 GPUs; this host shows 2")
    assert out[0].kv_tokens == 1000                                    # the re-planned tokens kept
    assert out[1].fits and out[2].fits                                 # no layout / within the run's GPUs


def test_an_sglang_tp_fix_within_the_host_or_on_a_lower_bound_keeps_its_verdict():
    host8 = HostGpus(count=8, exact=True, evidence="the environment written in the log")
    assert checked_fixes([_fit("--tp 4")], _ctx(tp=2), host8)[0] == _fit("--tp 4")
    used = HostGpus(count=2, exact=False, evidence="the run's tp × pp = 2")
    kept = checked_fixes([_fit("--tp 4")], _ctx(tp=2), used)[0]
    assert kept.fits and "the log shows 2 in use" in kept.note
    none = checked_fixes([_fit("--tp 2")], _ctx(tp=1), None)[0]
    assert none.fits and "the log does not show how many GPUs the host has" in none.note


def test_a_written_field_is_the_hosts_count_and_prose_is_not():
    shown = host_gpus_shown(b"- version: vllm0.7.2\n- devices: 8\xc3\x97H800 80G\n", None, 1)
    assert (shown.count, shown.exact) == (8, True) and "devices: 8" in shown.evidence
    one = host_gpus_shown(b"GPU: 1x RTX 4090\n", None, 1)
    assert (one.count, one.exact) == (1, True)
    # prose: the GPUs the run used perhaps, not the host's; a model name is no count
    assert host_gpus_shown(b"I started a server on 8xH100 with Mixtral-8x22B\n", None, 1) is None
    # a written count below what the run used is not the host's: the run's own count stands (a lower bound)
    low = host_gpus_shown(b"GPU: 1x A100\n", None, 2)
    assert (low.count, low.exact) == (2, False)
    # an nvidia-smi table outranks the written field
    table = b"|   0  NVIDIA H800          On  |   00000000:07:00.0 Off |                    0 |\n"
    assert host_gpus_shown(b"GPU: 8 x H800\n" + table, None, 1).evidence.startswith("nvidia-smi lists 1 GPU")


# -- end to end on the corpus -------------------------------------------------------------------------------------------

def _e(case_id, prefix=b""):
    from explain_testlib import log_bytes
    from test_explain_corpus import FLAGS_FOR

    from tpkit.explain import explain_log

    return explain_log(prefix + log_bytes(case_id), flags=FLAGS_FOR.get(case_id))


def test_sg_511_tp_16_needs_16_and_its_setup_writes_8_l4():
    e = _e("sg_511")
    assert (e.context.host_shown.count, e.context.host_shown.exact) == (8, True)
    tp = next(f for f in e.diagnosis.fixes if f.flags == "--tp 16")
    assert not tp.fits and tp.note.startswith(f"{SUGGESTION}: needs 16 GPUs; this host shows 8 (the environment "
                                              "written in the log: 'GPUs 8 x NVIDIA L4', line 212)")


def _sg_045_tp2(prefix=b""):
    return next(f for f in _e("sg_045", prefix).diagnosis.fixes if f.flags == "--tp 2")


def test_sg_045_tp_2_re_planned_fits_on_two_shown_gpus_and_not_on_one():
    # sg_045 (tp 1, re-planned --tp 2 from the log's numbers) with an nvidia-smi table in front of it: both sides
    row = b"|   %d  NVIDIA GeForce RTX 5090        Off |   00000000:0%d:00.0 Off |                  N/A |\n"
    bare = _sg_045_tp2()
    assert bare.fits and "the log does not show how many GPUs the host has" in bare.note
    two = _sg_045_tp2(row % (0, 1) + row % (1, 2))
    assert two.fits and two.kv_tokens == bare.kv_tokens and "needs 2 GPUs" not in two.note
    one = _sg_045_tp2(row % (0, 1))
    assert not one.fits and one.kv_tokens == bare.kv_tokens
    assert one.note.startswith(f"{SUGGESTION}: needs 2 GPUs; this host shows 1 (nvidia-smi lists 1 GPU, line 1)")
    # a written field does the same; prose does not
    assert not _sg_045_tp2(b"- GPU: 1x RTX 5090\n").fits
    assert _sg_045_tp2(b"I ran it on 1x RTX 5090\n").fits
