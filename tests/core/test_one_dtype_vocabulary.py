"""One dtype vocabulary (issue 9): only ``tpkit.dtypes`` maps spellings to dtypes; everyone else asks it."""

import re
from pathlib import Path

import pytest

from tpkit.dtypes import DTYPES, SPELLINGS, lookup_dtype

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
ALIAS = re.compile(r"""["'](bf16|bfloat16|fp16|float16|half|fp32|float32|float|fp8|fp8_e4m3|float8_e4m3fn)["']\s*:\s*"""
                   r"""["'](bf16|bfloat16|fp16|float16|fp32|float32|fp8_e4m3|float8_e4m3fn|fp8_e5m2)["']""")


def test_no_module_but_dtypes_keeps_an_alias_table():
    offenders = [f"{p.relative_to(SRC)}: {m.group(0)}" for p in SRC.rglob("*.py") if p.name != "dtypes.py"
                 for m in ALIAS.finditer(p.read_text())]
    assert not offenders, offenders


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_every_spelling_resolves_with_its_prefix_and_case(spelling):
    d = lookup_dtype(spelling)
    assert d is DTYPES[SPELLINGS[spelling]]
    assert lookup_dtype("torch." + spelling.upper()) is d


def test_short_spellings_are_spellings_of_their_own_dtype():
    assert all(lookup_dtype(d.short) is d for d in DTYPES.values())
    assert lookup_dtype("int4") is None and lookup_dtype(16) is None
