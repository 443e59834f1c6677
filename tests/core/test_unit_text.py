"""Fixed-unit text (tpkit.units.gib_text / mib_text / unit_text): one home for 'N.NN GiB'."""

import pytest

from tpkit.units import Bytes, GiB, KiB, MiB, UnitError, format_bytes, gib_text, mib_text, unit_text


def test_gib_text_keeps_gib_where_format_bytes_switches_unit():
    half = MiB(512)
    assert format_bytes(half) == "512.00 MiB"
    assert gib_text(half) == "0.50 GiB"
    assert gib_text(GiB(79.19)) == "79.19 GiB"
    assert gib_text(Bytes(0)) == "0.00 GiB"
    assert gib_text(-GiB(1.5)) == "-1.50 GiB"


def test_digits_and_the_same_text_as_the_inline_formats_it_replaces():
    for n in (0, 1, 2**30 - 1, 2**30, 3 * 2**30 + 12345, 85_899_345_920, 10**15 + 7):
        assert gib_text(Bytes(n)) == f"{n / 2**30:.2f} GiB"
        assert gib_text(Bytes(n), 1) == f"{n / 2**30:.1f} GiB"
        assert gib_text(Bytes(n), 3, label="") == f"{n / 2**30:.3f}"
        assert mib_text(Bytes(n), 0) == f"{n / 2**20:.0f} MiB"
        assert mib_text(Bytes(n), None) == f"{n / 2**20:g} MiB"


def test_label_mirrors_an_engine_word_or_drops_the_unit():
    assert gib_text(GiB(2.25), label="GB") == "2.25 GB"  # SGLang's printed 'GB' that means GiB
    assert gib_text(GiB(2.25), label="") == "2.25"
    assert mib_text(MiB(8), None) == "8 MiB"
    assert mib_text(KiB(512), None) == "0.5 MiB"
    assert unit_text(Bytes(10**9), "GB") == "1.00 GB"
    assert unit_text(Bytes(3 * 2**40), "TiB", digits=1) == "3.0 TiB"


@pytest.mark.parametrize("fn", [gib_text, mib_text, lambda b: unit_text(b, "GiB")])
@pytest.mark.parametrize("bad", [2**30, 1.5, "1GiB", None, True])
def test_a_bare_number_raises(fn, bad):
    with pytest.raises(TypeError, match="Bytes"):
        fn(bad)


def test_bad_unit_or_digits_raise():
    with pytest.raises(UnitError, match="unknown unit"):
        unit_text(GiB(1), "gib")
    for digits in (-1, 1.5, True):
        with pytest.raises(TypeError, match="digits"):
            gib_text(GiB(1), digits)
