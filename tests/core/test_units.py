"""Bytes algebra and parsing: the rules of tpkit.units."""

import math

import pytest
from hypothesis import given, strategies as st

from tpkit.units import (
    GB, GiB, KB, KiB, MB, MiB, TB, TiB, Bytes, UnitError, UNITS, format_bytes, parse_bytes,
)

ints = st.integers(min_value=-(2**62), max_value=2**62)
nonneg = st.integers(min_value=0, max_value=2**62)


@given(ints, ints)
def test_add_sub_stay_bytes(a, b):
    assert Bytes(a) + Bytes(b) == Bytes(a + b)
    assert Bytes(a) - Bytes(b) == Bytes(a - b)
    assert isinstance(Bytes(a) + Bytes(b), Bytes)


@given(ints, st.integers(min_value=-1000, max_value=1000))
def test_mul_by_int_is_exact(a, k):
    assert Bytes(a) * k == Bytes(a * k) == k * Bytes(a)


@given(nonneg, st.floats(min_value=0, max_value=4, allow_nan=False))
def test_mul_by_float_floors(a, k):
    out = Bytes(a) * k
    assert isinstance(out, Bytes)
    assert out.bytes == math.floor(a * k)


@given(nonneg, st.integers(min_value=1, max_value=10**6))
def test_div_by_number_gives_bytes(a, k):
    assert Bytes(a) / k == Bytes(a // k)


@given(nonneg, st.integers(min_value=1, max_value=2**40))
def test_div_by_bytes_gives_ratio(a, b):
    ratio = Bytes(a) / Bytes(b)
    assert isinstance(ratio, float)
    assert ratio == a / b
    assert Bytes(a) // Bytes(b) == a // b


@pytest.mark.parametrize("other", [1, 1.5, 0.0, True])
def test_adding_a_plain_number_is_a_type_error(other):
    with pytest.raises(TypeError, match="no unit"):
        GiB(1) + other
    with pytest.raises(TypeError):
        GiB(1) - other


def test_sum_of_bytes_starts_from_zero():
    assert sum([GiB(1), MiB(512)]) == MiB(1536)


@pytest.mark.parametrize("other", [1, 1.0, "1"])
def test_ordering_only_with_bytes(other):
    with pytest.raises(TypeError):
        GiB(1) < other
    assert (GiB(1) == other) is False


def test_bytes_times_bytes_refused():
    with pytest.raises(TypeError):
        GiB(1) * GiB(1)


def test_constructor_refuses_floats():
    with pytest.raises(TypeError, match="GiB"):
        Bytes(1.5)


def test_unit_table_binary_vs_decimal():
    assert GiB(1).bytes == 2**30 and GB(1).bytes == 10**9
    assert MiB(1).bytes == 2**20 and MB(1).bytes == 10**6
    assert KiB(1).bytes == 1024 and KB(1).bytes == 1000
    assert TiB(1).bytes == 2**40 and TB(1).bytes == 10**12


@pytest.mark.parametrize(
    "text, expected",
    [
        ("80GB", 80 * 10**9),
        ("79.19 GiB", round(79.19 * 2**30)),
        ("81559MiB", 81559 * 2**20),
        ("1.5TiB", round(1.5 * 2**40)),
        ("123B", 123),
        ("96gib", 96 * 2**30),
        ("  4 KiB ", 4096),
    ],
)
def test_parse_examples(text, expected):
    assert parse_bytes(text) == Bytes(expected)


@pytest.mark.parametrize("text", ["80", "12.5", " 7 "])
def test_bare_number_is_refused_with_advice(text):
    with pytest.raises(UnitError) as err:
        parse_bytes(text, what="--gpu-memory")
    msg = str(err.value)
    assert "no unit" in msg and "GiB" in msg and "GB" in msg and "--gpu-memory" in msg


@pytest.mark.parametrize("text", ["80 parsecs", "GiB", "", "-3GiB", "1e999GiB"])
def test_garbage_is_refused(text):
    with pytest.raises(UnitError):
        parse_bytes(text)


@given(nonneg, st.sampled_from(sorted(UNITS)))
def test_integer_round_trip_through_text(n, unit):
    from tpkit.units import MAX_SIZE_BYTES

    size = UNITS[unit]
    if n * size <= MAX_SIZE_BYTES:
        assert parse_bytes(f"{n}{unit}") == Bytes(n * size)
    else:  # beyond the 64-bit address space: refused with a message, never an overflow (1e300GiB)
        with pytest.raises(UnitError, match="no device or buffer is that large"):
            parse_bytes(f"{n}{unit}")


@pytest.mark.parametrize("text", ["1e300GiB", "2e19B", "16777217TiB", "9" * 400 + "GiB",
                                  "18014398509481985KiB"])  # 2^64 + 1024 B: a float product rounds it to 2^64
def test_sizes_beyond_64_bits_are_refused(text):
    with pytest.raises(UnitError, match="no device or buffer is that large|not a finite size"):
        parse_bytes(text)


@given(nonneg)
def test_format_always_names_unit_and_round_trips_within_rounding(n):
    text = format_bytes(Bytes(n))
    number, unit = text.split(" ")
    assert unit in UNITS
    back = parse_bytes(text)
    assert abs(back.bytes - n) <= 0.005 * UNITS[unit] + 1


@pytest.mark.parametrize(
    "n, binary, text",
    [
        (1023, True, "1023 B"),
        (1024, True, "1.00 KiB"),
        (999, False, "999 B"),
        (1000, False, "1.00 KB"),
        (999_999, False, "1000.00 KB"),
        (150_109_880_320, True, "139.80 GiB"),
        (150_109_880_320, False, "150.11 GB"),
    ],
)
def test_format_boundaries(n, binary, text):
    assert format_bytes(Bytes(n), binary=binary) == text


def test_format_binary_flag_is_keyword_only():
    with pytest.raises(TypeError):
        format_bytes(Bytes(1), False)  # type: ignore[misc]


@pytest.mark.parametrize("text, expect", [("1,024MiB", MiB(1024)), ("1,234,567B", Bytes(1_234_567)),
                                          ("1_000GB", GB(1000)), ("12,345.5KB", Bytes(12_345_500))])
def test_parse_accepts_thousands_separators(text, expect):
    assert parse_bytes(text) == expect


@pytest.mark.parametrize("text", ["1,5GiB", "1,0000GB", "1.5.3GiB", "80,GB"])
def test_parse_refuses_decimal_commas_and_stray_dots(text):
    """'1,5GiB' once read as 15 GiB and '1.5.3GiB' raised a bare ValueError (a traceback in the CLI)."""
    with pytest.raises(UnitError, match="cannot read"):
        parse_bytes(text, what="--gpu-memory")


def test_unit_errors_are_tpkit_errors():
    """The errors module draws UnitError under TpkitError; it was a bare ValueError that
    ``except TpkitError`` missed."""
    from tpkit.errors import TpkitError

    with pytest.raises(TpkitError):
        parse_bytes("80")
    assert issubclass(UnitError, ValueError)
