"""scripts/*.py stay within the package's module size limit too (helper tidy33, 2026-12-07, session 33).

tests/core/test_layers.py ``test_no_module_over_500_lines`` covers src/tpkit only; round rev32 found two scripts
past 500 lines (build_startup_table.py 532, mine_startup_evidence.py 513), split by tidy33 along their own
boundaries: the §5 rendering into scripts/startup_table_doc.py, the validation-log hold-out into
scripts/startup_validation_logs.py.  Two scripts are data written as Python and grow with every round that adds to
them (``DATA_FILES``, not counted); the one other script longer than the limit on 2026-12-07 is listed in
``EXCEPTIONS`` at its length then: it may not grow, and its entry goes once it is within the limit.
"""

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

MAX_SCRIPT_LINES = 500
"""the same limit as src/tpkit's modules (tests/core/test_layers.py ``MAX_MODULE_LINES``)"""

DATA_FILES: dict[str, str] = {
    "build_validation_set.py": "the public validation cases, one literal entry each: every validation round adds some",
    "gpu_catalog_added.py": "the added GPUs' catalog entries with their evidence: a new GPU adds one",
}
"""scripts that are data written as Python (file → why), outside the limit"""

EXCEPTIONS: dict[str, int] = {
    "fuzz_cases.py": 645,
}
"""scripts longer than the limit on 2026-12-07 (file → lines then): may not grow"""


def _sizes() -> dict[str, int]:
    return {p.relative_to(SCRIPTS).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
            for p in SCRIPTS.rglob("*.py") if p.relative_to(SCRIPTS).as_posix() not in DATA_FILES}


def test_no_script_over_500_lines():
    sizes = _sizes()
    assert len(sizes) > 40  # the walk sees the folder
    over = {name: n for name, n in sorted(sizes.items()) if n > EXCEPTIONS.get(name, MAX_SCRIPT_LINES)}
    assert not over, f"scripts over their limit (split them along a real boundary): {over}"


def test_the_exceptions_only_shrink():
    sizes = _sizes()
    assert all((SCRIPTS / name).is_file() for name in DATA_FILES)
    gone = [name for name in EXCEPTIONS if name not in sizes]
    assert not gone, f"listed scripts that no longer exist (remove them from EXCEPTIONS): {gone}"
    done = [name for name in EXCEPTIONS if sizes[name] <= MAX_SCRIPT_LINES]
    assert not done, f"listed scripts now within {MAX_SCRIPT_LINES} lines (remove them from EXCEPTIONS): {done}"
