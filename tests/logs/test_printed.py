"""PrintedSize / PrintedCount: the number, its unit and the print rounding."""

from tpkit.logs.printed import count_from_text, size_from_text
from tpkit.units import GiB, MiB, Bytes


def test_sglang_gb_is_gib_with_two_decimal_rounding():
    size = size_from_text("21.63", "GB", meaning="m", divisor_bytes=2**30)
    assert size.value == GiB(21.63)
    assert size.unit_word == "GB" and size.divisor_bytes == 2**30
    assert size.rounding == Bytes(5_368_710)          # ceil(0.005 × 2**30)
    assert size.contains(GiB(21.6349)) and size.contains(GiB(21.625))
    assert not size.contains(GiB(21.636)) and not size.contains(GiB(21.62))


def test_format_gib_keeps_two_decimals_when_trailing_zero_dropped():
    # vLLM's format_gib prints round(x, 2): "52.3" means 52.30 ± 0.005, not ± 0.05
    loose = size_from_text("52.3", "GiB", meaning="m", divisor_bytes=2**30)
    tight = size_from_text("52.3", "GiB", meaning="m", divisor_bytes=2**30, min_decimals=2)
    assert loose.rounding == Bytes(53_687_092) and tight.rounding == Bytes(5_368_710)


def test_word_units_are_binary_for_torch_messages():
    size = size_from_text("672.00", "MiB", meaning="m")
    assert size.value == MiB(672) and size.divisor_bytes == 2**20
    assert size_from_text("11423138508", "bytes", meaning="m").value == Bytes(11_423_138_508)


def test_negative_sizes_and_bad_text():
    assert size_from_text("-2.14", "GiB", meaning="m", divisor_bytes=2**30).value == -GiB(2.14)
    assert size_from_text("1,2,3", "GB", meaning="m") is None
    assert size_from_text("nan", "GB", meaning="m") is None
    assert size_from_text("1e999", "GB", meaning="m") is None
    assert size_from_text("12", "parsecs", meaning="m") is None


def test_counts_with_thousands_separators_and_decimals():
    assert count_from_text("178,880", meaning="t").value == 178_880
    ratio = count_from_text("4.84", meaning="c")
    assert ratio.value == 4.84 and ratio.rounding == 0.005
    assert count_from_text("12,3456", meaning="t") is None
