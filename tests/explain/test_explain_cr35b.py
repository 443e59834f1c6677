"""Helper cr35b (2026-12-07, issue 12): a vLLM tp / pp fix held against the GPUs the log shows its host has
(``explain.vhostgpus``, docs/accuracy.md §7.3 round cr35b), and the weight-phase logs given what their threads name.
Each rule on both sides: the host's count shown (nvidia-smi table, the environment report, a device-count print, a
unified-memory board) makes a fix beyond it a suggestion; what the run used (its ranks, CUDA_VISIBLE_DEVICES) or
nothing keeps the verdict with a note; a fix within the count, or setting no layout, is untouched."""

from types import SimpleNamespace

import pytest
from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR

from tpkit.explain import explain_log
from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.explain.vhostgpus import HostGpus, checked_fixes, gpus_needed, host_gpus_shown
from tpkit.hardware.catalog import lookup_gpu

NVSMI = (b"|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |\n"
         b"|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0B:00.0 Off |                    0 |\n")


def _ctx(tp=1, pp=1):
    values = {"tp": tp, "pp": pp}
    return SimpleNamespace(get=lambda k, d=None: values.get(k, d))


def _fit(flags, note="re-planned"):
    return Fix(flags=flags, kv_tokens=1000, fits=True, why="why", note=note)


# -- what the log shows of the host -----------------------------------------------------------------------------------

def test_an_nvidia_smi_table_counts_the_hosts_gpus():
    shown = host_gpus_shown(NVSMI, None, 1)
    assert shown.count == 2 and shown.exact and "nvidia-smi lists 2 GPUs" in shown.evidence
    assert host_gpus_shown(NVSMI[: NVSMI.index(b"\n") + 1], None, 1).count == 1
    # an older driver's table names the card without 'NVIDIA'
    old = b"|   0  GeForce RTX 2080 Ti     Off  | 00000000:01:00.0 Off |                  N/A |\n"
    assert host_gpus_shown(old, None, 1).count == 1


def test_the_environment_report_counts_one_gpu_on_its_line_and_several_below():
    one = b"GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3070 Laptop GPU\nNvidia driver version: 572\n"
    four = (b"GPU models and configuration: \nGPU 0: NVIDIA L20\nGPU 1: NVIDIA L20\nGPU 2: NVIDIA L20\n"
            b"GPU 3: NVIDIA L20\n\nNvidia driver version: 565.57.01\n")
    assert (host_gpus_shown(one, None, 1).count, host_gpus_shown(one, None, 1).exact) == (1, True)
    assert (host_gpus_shown(four, None, 1).count, host_gpus_shown(four, None, 1).exact) == (4, True)
    # ROCm's report prints device 0's name alone (torch.cuda.get_device_name), whatever the count: no count
    assert host_gpus_shown(b"GPU models and configuration: AMD Instinct MI300X (gfx942:sramecc+:xnack-)\n", None, 1) \
        is None
    # a report that could not list the GPUs shows nothing
    assert host_gpus_shown(b"GPU models and configuration: Could not collect\n", None, 1) is None


def test_a_device_count_print_and_none():
    assert host_gpus_shown(b"torch.cuda.device_count() = 1\n", None, 1).count == 1
    assert host_gpus_shown(b"torch.cuda.device_count(): 4\n", None, 1).exact
    assert host_gpus_shown(b"INFO nothing about GPUs\n", None, 1) is None


def test_a_unified_memory_board_has_one_gpu_unless_the_run_spanned_boards():
    gb10 = lookup_gpu("GB10")
    shown = host_gpus_shown(b"", gb10, 1)
    assert (shown.count, shown.exact) == (1, True) and "unified-memory" in shown.evidence
    spanned = host_gpus_shown(b"", gb10, 2)  # a run at tp 2 on GB10s spans two boards: no host count
    assert not spanned.exact and spanned.count == 2
    assert host_gpus_shown(b"", lookup_gpu("H100"), 1) is None


def test_what_the_run_used_is_a_lower_bound_only():
    visible = host_gpus_shown(b"CUDA_VISIBLE_DEVICES=0,1 vllm serve m --tensor-parallel-size 2\n", None, 2)
    assert (visible.count, visible.exact) == (2, False)
    index = host_gpus_shown(b"CUDA_VISIBLE_DEVICES=3 vllm serve m\n", None, 1)
    assert (index.count, index.exact) == (4, False)  # index 3: the host has at least four
    assert not host_gpus_shown(b"", None, 4).exact


def test_a_table_smaller_than_the_run_is_not_the_hosts_count():
    # a run at tp 4 next to a one-row table (another host's, or cut): the run's own ranks win, as a lower bound
    shown = host_gpus_shown(NVSMI[: NVSMI.index(b"\n") + 1], None, 4)
    assert (shown.count, shown.exact) == (4, False)


# -- the fixes ------------------------------------------------------------------------------------------------------

def test_gpus_needed_reads_tp_and_pp():
    assert gpus_needed("--tensor-parallel-size 4", 1, 1) == 4
    assert gpus_needed("--pipeline-parallel-size 2", 4, 1) == 8
    assert gpus_needed("--tensor-parallel-size 2 --pipeline-parallel-size 2", 1, 1) == 4
    assert gpus_needed("--quantization fp8", 1, 1) is None


def test_a_fix_beyond_the_hosts_count_is_a_suggestion_with_its_tokens():
    host = HostGpus(count=1, exact=True, evidence="nvidia-smi lists 1 GPU, line 3")
    out = checked_fixes([_fit("--tensor-parallel-size 2"), _fit("--quantization fp8")], _ctx(), host)
    assert not out[0].fits and out[0].kv_tokens == 1000
    assert out[0].note.startswith(f"{SUGGESTION}: needs 2 GPUs; this host shows 1 (nvidia-smi lists 1 GPU, line 3)")
    assert out[1] == _fit("--quantization fp8")


def test_a_fix_within_the_hosts_count_is_untouched():
    host = HostGpus(count=8, exact=True, evidence="nvidia-smi lists 8 GPUs")
    fixes = [_fit("--tensor-parallel-size 4"), _fit("--tensor-parallel-size 8")]
    assert checked_fixes(fixes, _ctx(tp=2), host) == fixes
    assert not checked_fixes([_fit("--tensor-parallel-size 16")], _ctx(tp=2), host)[0].fits


def test_without_the_hosts_count_the_verdict_stays_and_the_note_names_the_gpus():
    used = HostGpus(count=2, exact=False, evidence="CUDA_VISIBLE_DEVICES=0,1 (line 1)")
    out = checked_fixes([_fit("--tensor-parallel-size 4")], _ctx(tp=2), used)[0]
    assert out.fits and out.note.endswith("needs 4 GPUs; the log shows 2 in use (CUDA_VISIBLE_DEVICES=0,1 (line 1)), "
                                          "not how many the host has")
    none = checked_fixes([_fit("--tensor-parallel-size 2")], _ctx(), None)[0]
    assert none.fits and none.note.endswith("needs 2 GPUs; the log does not show how many GPUs the host has")
    # a fix on no more GPUs than the run used is not annotated
    assert checked_fixes([_fit("--tensor-parallel-size 2")], _ctx(tp=2), None) == [_fit("--tensor-parallel-size 2")]


def test_a_suggestion_beyond_the_host_says_the_suggestion_words_once():
    host = HostGpus(count=1, exact=True, evidence="e")
    fix = Fix(flags="--tensor-parallel-size 2", kv_tokens=None, fits=False, why="w",
              note=f"{SUGGESTION}: halving the measured weights is a rule of thumb")
    out = checked_fixes([fix], _ctx(), host)[0]
    assert out.note == f"{SUGGESTION}: needs 2 GPUs; this host shows 1 (e); halving the measured weights is a rule of thumb"


# -- the corpus ------------------------------------------------------------------------------------------------------

def _e(case_id, flags=None):
    return explain_log(log_bytes(case_id), flags=FLAGS_FOR.get(case_id) if flags is None else flags)


def test_vl_342_one_gb10_cannot_take_tp_2_while_another_card_can():
    gb10 = _e("vl_342")
    tp = next(f for f in gb10.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert not tp.fits and tp.kv_tokens == 184256  # the re-planned tokens kept (round cr34b)
    assert "needs 2 GPUs; this host shows 1 (a GB10: a unified-memory GPU" in tp.note


def test_vl_005_tp_2_fits_until_the_log_shows_a_one_gpu_host():
    e = _e("vl_005")
    tp = next(f for f in e.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert tp.fits and tp.note.endswith("needs 2 GPUs; the log does not show how many GPUs the host has")
    one = explain_log(log_bytes("vl_005") + b"\n" + NVSMI[: NVSMI.index(b"\n") + 1], flags=FLAGS_FOR["vl_005"])
    tp1 = next(f for f in one.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert not tp1.fits and tp1.kv_tokens == tp.kv_tokens and "this host shows 1 (nvidia-smi lists 1 GPU" in tp1.note
    two = explain_log(log_bytes("vl_005") + b"\n" + NVSMI, flags=FLAGS_FOR["vl_005"])
    tp2 = next(f for f in two.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert tp2.fits and "GPUs" not in tp2.note.rsplit(";", 1)[-1]


def test_vl_988_tp_re_planned_on_the_rtx_3070_laptop_but_the_report_lists_one_gpu():
    e = _e("vl_988")
    assert e.context.gpu.name == "RTX-3070-Laptop" and e.context.host_shown.count == 1
    tp = next(f for f in e.diagnosis.fixes if f.flags.startswith("--tensor-parallel-size"))
    assert not tp.fits and tp.kv_tokens and "this host shows 1 (the environment report's" in tp.note
    # helper cr37: the one fit is V0 with the run's own cpu_offload_gb=12, which V1 0.7.3 ignored (explain.voffv1)
    assert [f.flags for f in e.diagnosis.fixes if f.fits] == ["VLLM_USE_V1=0"]
    # without the catalog card the layout was the halving rule of thumb (round cr34b's state)
    assert lookup_gpu("NVIDIA GeForce RTX 3070 Laptop GPU").sm_count == 40


@pytest.mark.parametrize("case_id, flags, tokens", [("vl_995", "--tensor-parallel-size 4", 430032),
                                                    ("vl_1290", "--tensor-parallel-size 16", 83648)])
def test_weight_ooms_planned_from_the_catalog_with_what_their_threads_name(case_id, flags, tokens):
    e = _e(case_id)
    fix = next(f for f in e.diagnosis.fixes if f.fits)
    assert (fix.flags, fix.kv_tokens) == (flags, tokens)
    if case_id == "vl_995":  # helper fx35b: its issue text writes 'GPU:  8 * A800' (logs.hostcount): 8 hold tp 4
        assert (e.context.host_shown.count, e.context.host_shown.exact) == (8, True)
        assert "the band's pessimistic end holds" in fix.note and "needs 4 GPUs" not in fix.note
        return
    assert "the band's pessimistic end holds" in fix.note and "not how many the host has" in fix.note \
        or "the log does not show how many GPUs the host has" in fix.note
    # without the model the layout stays a suggestion (the log prints one allocation, not the weights)
    assert not any(f.fits for f in _e(case_id, {}).diagnosis.fixes)
