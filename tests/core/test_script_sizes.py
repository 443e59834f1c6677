"""scripts/*.py stay within the package's module size limit too (helper tidy33, 2026-12-07, session 33).

tests/core/test_layers.py ``test_no_module_over_500_lines`` covers src/tpkit only; round rev32 found two scripts
past 500 lines (build_startup_table.py 532, mine_startup_evidence.py 513), split by tidy33 along their own
boundaries: the §5 rendering into scripts/startup_table_doc.py, the validation-log hold-out into
scripts/startup_validation_logs.py.  The scripts that were longer on 2026-12-07 are listed in ``EXCEPTIONS`` at
their length then: the validation cases (build_validation_set.py, one entry per public case), the fuzz case
generators and the added-GPU catalog data; none may grow, and an entry goes once its file is within the limit.
"""

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

MAX_SCRIPT_LINES = 500
"""the same limit as src/tpkit's modules (tests/core/test_layers.py ``MAX_MODULE_LINES``)"""

EXCEPTIONS: dict[str, int] = {
    "build_validation_set.py": 4190,
    "fuzz_cases.py": 645,
    "gpu_catalog_added.py": 530,
}
"""scripts longer than the limit on 2026-12-07 (file → lines then): data-bearing files that may not grow"""


def _sizes() -> dict[str, int]:
    return {p.relative_to(SCRIPTS).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
            for p in SCRIPTS.rglob("*.py")}


def test_no_script_over_500_lines():
    sizes = _sizes()
    assert len(sizes) > 40  # the walk sees the folder
    over = {name: n for name, n in sorted(sizes.items()) if n > EXCEPTIONS.get(name, MAX_SCRIPT_LINES)}
    assert not over, f"scripts over their limit (split them along a real boundary): {over}"


def test_the_exceptions_only_shrink():
    sizes = _sizes()
    gone = [name for name in EXCEPTIONS if name not in sizes]
    assert not gone, f"listed scripts that no longer exist (remove them from EXCEPTIONS): {gone}"
    done = [name for name in EXCEPTIONS if sizes[name] <= MAX_SCRIPT_LINES]
    assert not done, f"listed scripts now within {MAX_SCRIPT_LINES} lines (remove them from EXCEPTIONS): {done}"
