"""Default mem_fraction_static and capacity defaults per SGLang release (spec §4)."""

import pytest

from tpkit.engines.sglang.defaults import (ReserveExtras, capacity_defaults, default_mem_fraction,
                                           prefill_capture_sizes, slack_estimate_mib)
from tpkit.engines.sglang.versions import parse_version, rule_era
from tpkit.errors import PlanInputError


def _latest(gpu_mem_mib, tp, era="0.5.20", is_mla=False):
    cap = capacity_defaults(gpu_mem_mib, tp, era, chunked_prefill_size=None, cuda_graph_max_bs=None,
                            max_running_requests=None)
    return default_mem_fraction(era, gpu_mem_mib=gpu_mem_mib, tp=tp, pp=1, cpp=cap.chunked_prefill_size,
                                max_bs=cap.cuda_graph_max_bs, is_mla=is_mla)


@pytest.mark.parametrize("mib, tp, fraction, reserved", [
    (81559, 1, 0.830, 13904), (81559, 8, 0.812, 15312), (143771, 1, 0.903, 13904), (143771, 8, 0.893, 15312),
])
def test_latest_default_matches_the_spec_examples(mib, tp, fraction, reserved):
    choice = _latest(mib, tp)
    assert choice.value == fraction and choice.reserved_mib == reserved


def test_prefill_capture_list_has_58_sizes_up_to_8192():
    sizes = prefill_capture_sizes(8192)
    assert len(sizes) == 58 and sizes[0] == 4 and sizes[-1] == 8192 and list(sizes) == sorted(set(sizes))
    assert prefill_capture_sizes(100)[-1] == 100


def test_ten_gib_floor_applies_above_60_gib_only():
    small_chunks = dict(tp=1, pp=1, cpp=2048, max_bs=8, is_mla=False)
    assert slack_estimate_mib("0.5.20", gpu_mem_mib=70 * 1024, **small_chunks) == 10240
    assert slack_estimate_mib("0.5.20", gpu_mem_mib=40 * 1024, **small_chunks) < 10240


def test_mla_uses_the_flat_prefill_graph_term():
    assert _latest(143771, 8, is_mla=True).reserved_mib == 512 + 1.5 * 8192 + 1024 + 2 * 512 + 1536


def test_capacity_defaults_by_size_class_and_user_values_win():
    assert capacity_defaults(23034, 1, "0.5.20", chunked_prefill_size=None, cuda_graph_max_bs=None,
                             max_running_requests=None).cuda_graph_max_bs == 48
    assert capacity_defaults(183359, 8, "0.5.20", chunked_prefill_size=None, cuda_graph_max_bs=None,
                             max_running_requests=None).chunked_prefill_size == 16384
    user = capacity_defaults(81559, 1, "0.5.20", chunked_prefill_size=1024, cuda_graph_max_bs=None,
                             max_running_requests=64)
    assert user.chunked_prefill_size == 1024 and user.cuda_graph_max_bs == 64


@pytest.mark.parametrize("era, tp, value", [("0.2.15", 8, 0.83), ("0.3.6", 8, 0.82), ("0.4.3", 8, 0.81),
                                            ("0.4.3", 2, 0.87), ("0.4.3", 1, 0.88), ("0.4.6", 1, 0.88)])
def test_old_tp_tables(era, tp, value):
    assert default_mem_fraction(era, gpu_mem_mib=81559, tp=tp, pp=1, cpp=8192, max_bs=160,
                                is_mla=False).value == value


def test_0_4_6_uses_13_gib_above_80_gib_and_0_4_10_uses_capacity_classes():
    big = default_mem_fraction("0.4.6", gpu_mem_mib=143771, tp=1, pp=1, cpp=8192, max_bs=160, is_mla=False)
    assert big.value == pytest.approx((143771 - 13 * 1024) / 143771)
    h100 = default_mem_fraction("0.4.10", gpu_mem_mib=81559, tp=8, pp=1, cpp=8192, max_bs=160, is_mla=False)
    assert h100.value == round((81559 - (9.5 + 4) * 1024) / 81559, 3)


def test_0_5_10_adds_the_graph_term_that_0_5_3_lacks():
    kw = dict(gpu_mem_mib=40 * 1024, tp=1, pp=1, cpp=4096, max_bs=32, is_mla=False)
    assert default_mem_fraction("0.5.10", **kw).reserved_mib > default_mem_fraction("0.5.3", **kw).reserved_mib


@pytest.mark.parametrize("version, era", [("0.5.23", "0.5.20"), ("0.5.0rc0", "0.4.10"), ("0.4.9.post2", "0.4.6"),
                                          ("0.5.8", "0.5.3"), ("0.5.15", "0.5.15"), ("v0.6.1", "0.5.20")])
def test_versions_map_to_rule_eras(version, era):
    assert rule_era(version) == era


@pytest.mark.parametrize("bad", ["latest", "0.1.18", ""])
def test_bad_or_unmodelled_versions_are_user_errors(bad):
    with pytest.raises(PlanInputError):
        rule_era(bad) if bad != "latest" else parse_version(bad)


# release boundaries inside the table eras (0.3.5 … 0.4.10 ``server_args.py __post_init__`` read) ----------------

@pytest.mark.parametrize("era, version, expected", [("0.2.15", "0.3.5", 0.83), ("0.3.6", "0.3.6", 0.82),
                                                    ("0.3.6", "0.4.0", 0.81), ("0.3.6", "0.4.2", 0.81),
                                                    ("0.4.3", "0.4.5", 0.81)])
def test_tp8_table_is_0_81_from_0_4_0(era, version, expected):
    extras = ReserveExtras(version=version)
    got = default_mem_fraction(era, gpu_mem_mib=81559, tp=8, pp=1, cpp=8192, max_bs=160, is_mla=False, extras=extras)
    assert got.value == expected


def _f(version, gpu_mem_mib, tp=1, pp=1, speculative=None):
    extras = ReserveExtras(version=version, speculative=speculative)
    return default_mem_fraction(rule_era(version), gpu_mem_mib=gpu_mem_mib, tp=tp, pp=pp, cpp=8192, max_bs=160,
                                is_mla=False, extras=extras).value


def test_0_4_7_has_its_own_default_between_0_4_6_and_0_4_8():
    h200 = 143_771
    assert _f("0.4.6", h200) == pytest.approx((h200 - 13 * 1024) / h200)
    assert _f("0.4.7", h200) == pytest.approx(min(0.88 + 48 * 1024 * 0.12 / h200, (h200 - 18 * 1024) / h200))
    assert _f("0.4.7", h200, speculative="EAGLE") == pytest.approx((h200 - 20 * 1024) / h200)
    assert _f("0.4.7", 183_359) == 0.79  # B200 class: above 180,000 MiB
    assert _f("0.4.7", 81_559, tp=1, pp=2) == 0.87 and _f("0.4.6", 81_559, tp=1, pp=2) == 0.88  # tp×pp from 0.4.7
    assert _f("0.4.7", 81_559, speculative="EAGLE") == pytest.approx(0.88 * 0.95)


@pytest.mark.parametrize("version", ["0.4.8", "0.4.9", "0.4.10"])
def test_capacity_class_reserve_starts_in_0_4_8(version):
    assert _f(version, 81_559) == round((81_559 - 10 * 1024) / 81_559, 3)  # 9.5 + tp×pp/2 GiB
    assert _f(version, 81_559, speculative="EAGLE") == round((81_559 - 12 * 1024) / 81_559, 3)


@pytest.mark.parametrize("version, bs", [("0.5.4", 16), ("0.5.5", 24), ("0.5.19", 24), ("0.5.20", 48)])
def test_small_gpu_decode_graph_batch_is_24_from_0_5_5(version, bs):
    """20–35 GiB GPUs, tp < 4 (0.5.4 / 0.5.5 ``server_args.py _handle_gpu_memory_settings``)."""
    cap = capacity_defaults(24_564, 1, version, chunked_prefill_size=None, cuda_graph_max_bs=None,
                            max_running_requests=None)
    assert cap.cuda_graph_max_bs == bs


@pytest.mark.parametrize("version, reserve_gib", [("0.5.1", 12), ("0.5.2", 16)])
def test_standalone_draft_reserves_6_gib_from_0_5_2(version, reserve_gib):
    assert _f(version, 81_559, speculative="STANDALONE") == round((81_559 - reserve_gib * 1024) / 81_559, 3)
    assert _f(version, 81_559, speculative="EAGLE") == round((81_559 - 12 * 1024) / 81_559, 3)
