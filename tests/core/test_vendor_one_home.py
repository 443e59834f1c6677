"""Every vendor test of src/ goes through ``tpkit.hardware.gpu`` (helper tidy33, 2026-12-07, session 33).

Round rev32 counted 28 inline vendor tests in 22 src files (``gpu.vendor == "AMD"``, ``str(vendor).upper() ==
"NVIDIA"``, ``getattr(gpu, "vendor", "") …``), spelled four ways (exact, upper-cased, None-guarded or not);
``startup.rankspread.gpu_platform`` was the vendor → platform map of one caller.  They now all ask
``hardware.gpu`` (``is_amd`` / ``is_nvidia`` / ``gpu_platform``), the lowest layer every caller may import
(hardware, rank 3 of tests/core/test_layers.py).  Like tests/core/test_no_case_ids_in_src.py, a grep: a comparison
with a vendor literal written anywhere else in src/ fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tpkit.hardware.gpu import AMD, NVIDIA, gpu_platform, is_amd, is_nvidia
from tpkit.startup import rankspread

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
HOME = "hardware/gpu.py"

_LIT = r"""["'](?:AMD|NVIDIA|amd|nvidia|Amd|Nvidia)["']"""
INLINE = re.compile(rf"{_LIT}\s*(?:==|!=)|(?:==|!=)\s*{_LIT}|\bvendor\b\)*\s+(?:not\s+)?in\s*[(\[{{]\s*{_LIT}"
                    r"|\bvendor\b[^\n#]*\.(?:upper|lower|casefold)\(\)\s*(?:==|!=|(?:not\s+)?in\b)")
"""a vendor literal compared (``==`` / ``!=``), a vendor tested for membership in literals, or a vendor's case folded
to be compared: what the home decides once"""


def _inline_sites(root: Path = SRC) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == HOME:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if INLINE.search(line.split("#", 1)[0]):
                out.append(f"{rel}:{n}: {line.strip()}")
    return out


def test_no_inline_vendor_test_in_src():
    sites = _inline_sites()
    assert not sites, ("vendor tests written inline (use tpkit.hardware.gpu is_amd / is_nvidia / gpu_platform):\n"
                       + "\n".join(sites))


@pytest.mark.parametrize("line", [
    'if gpu.vendor == "AMD":',
    "cuda = gpu.vendor != 'NVIDIA'",
    'rocm = str(gpu.vendor).upper() == "AMD"',
    'amd = "AMD" == vendor',
    'if getattr(gpu, "vendor", "NVIDIA") != "NVIDIA":',
    'if gpu.vendor in ("AMD", "HYGON"):',
    'if str(vendor).upper() not in ("NVIDIA",):',
    'x = vendor.lower() == "amd"',
])
def test_the_grep_sees_each_spelling_that_was_in_src(tmp_path, line):
    (tmp_path / "m.py").write_text(f"def f(gpu, vendor):\n    {line}\n")
    assert len(_inline_sites(tmp_path)) == 1


@pytest.mark.parametrize("line", [
    'if is_amd(gpu.vendor):',
    'vendor: str = "NVIDIA"',
    'other = [h.name for h in hosts if h.vendor != gpu.vendor]',
    'GPU_NEEDLES = ("NVIDIA", "Tesla", "GeForce", "Instinct")',
    'kv_fp8 = str(qc.get("kv_cache_quant_algo") or "").upper() == "FP8"',
    'gpus = [replace(gpu, vendor=v) for v in ("NVIDIA", "AMD")]',
])
def test_the_grep_leaves_values_and_other_comparisons(tmp_path, line):
    (tmp_path / "m.py").write_text(f"def f(gpu, vendor, hosts, qc):\n    {line}\n")
    assert _inline_sites(tmp_path) == []


def test_the_tests_decide_case_none_and_other_vendors_once():
    assert (is_amd(AMD), is_amd("amd"), is_amd(NVIDIA), is_amd(None), is_amd(""), is_amd("Hygon")) == \
        (True, True, False, False, False, False)
    assert (is_nvidia(NVIDIA), is_nvidia("nvidia"), is_nvidia(AMD), is_nvidia(None), is_nvidia("Huawei")) == \
        (True, True, False, False, False)
    assert [gpu_platform(v) for v in (AMD, "amd", NVIDIA, None, "Huawei")] == ["rocm", "rocm", "cuda", None, None]


def test_rankspread_reexports_the_one_platform_map():
    assert rankspread.gpu_platform is gpu_platform
    assert set(rankspread.PLATFORM_STATS) == {gpu_platform(AMD), gpu_platform(NVIDIA)}


def test_no_inline_vendor_test_in_scripts_or_bench():
    """The same grep over scripts/ and bench/ (round rev33: build_startup_table.py's SM-count fit,
    mine_startup_evidence.py's XGMI transport and bench/plain_step_by_class.py's class still compared the literal)."""
    root = SRC.parents[1]
    sites = [f"{folder}/{site}" for folder in ("scripts", "bench") for site in _inline_sites(root / folder)]
    assert not sites, "vendor tests written inline (use tpkit.hardware.gpu is_amd / is_nvidia):\n" + "\n".join(sites)
