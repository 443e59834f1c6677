"""``tpkit.lazy.lazy_getattr``: the one module ``__getattr__`` of the packages that import their public names on
first use (``tpkit``, ``memory``, ``startup``, ``engines.sglang``, ``engines.vllm``)."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tpkit.lazy import lazy_getattr

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGES = ["tpkit", "tpkit.memory", "tpkit.startup", "tpkit.engines.sglang", "tpkit.engines.vllm"]


def test_a_name_is_read_from_its_module_relative_to_the_package():
    get = lazy_getattr("tpkit", {"Bytes": "units", "lookup_gpu": "hardware.catalog"})
    assert get("Bytes") is importlib.import_module("tpkit.units").Bytes
    assert get("lookup_gpu") is importlib.import_module("tpkit.hardware.catalog").lookup_gpu


def test_an_unknown_name_raises_attribute_error_in_pythons_words():
    get = lazy_getattr("tpkit.memory", {"Ledger": "ledger"})
    with pytest.raises(AttributeError, match=r"^module 'tpkit\.memory' has no attribute 'Nope'$"):
        get("Nope")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_lazy_name_of_each_package_resolves(package):
    mod = importlib.import_module(package)
    home = mod._HOME
    for name, module in home.items():
        assert getattr(mod, name) is getattr(importlib.import_module(f"{package}.{module}"), name)
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        getattr(mod, "no_such_name")  # noqa: B009 (the attribute access is the point)


def test_the_defining_module_is_imported_on_first_use_only():
    code = ("import sys, tpkit.memory as m\n"
            "assert 'tpkit.memory.result' not in sys.modules\n"
            "m.PlanResult\n"
            "assert 'tpkit.memory.result' in sys.modules\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=SRC,
                         env={"PYTHONPATH": str(SRC)})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
