"""One dtype vocabulary: spellings → canonical dtype and byte size."""

import pytest

from tpkit.dtypes import DTYPES, SPELLINGS, WEIGHT_DTYPES, lookup_dtype


@pytest.mark.parametrize("text, name, size", [
    ("bf16", "bfloat16", 2), ("torch.bfloat16", "bfloat16", 2), ("BF16", "bfloat16", 2), ("half", "float16", 2),
    ("fp32", "float32", 4), ("float", "float32", 4), ("fp8", "fp8_e4m3", 1), ("float8_e4m3fn", "fp8_e4m3", 1),
    ("fp8_inc", "fp8_e4m3", 1), ("fp8_e5m2", "fp8_e5m2", 1),
])
def test_spellings_resolve_to_a_canonical_dtype(text, name, size):
    d = lookup_dtype(text)
    assert (d.name, d.bytes) == (name, size)


@pytest.mark.parametrize("text", ["auto", "int3", "", None, 2])
def test_non_dtypes_are_none(text):
    assert lookup_dtype(text) is None


def test_tables_are_consistent():
    assert set(SPELLINGS.values()) == set(DTYPES) and set(WEIGHT_DTYPES) <= set(DTYPES)
    assert all(SPELLINGS[name] == name for name in DTYPES)
