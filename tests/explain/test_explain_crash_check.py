"""scripts/explain_crash_check.py: issue 12's crash figures (docs/accuracy.md §7.3) from the corpus test's own rules."""

from explain_testlib import script

check = script("explain_crash_check")


def test_every_memory_crash_gets_a_row_and_every_log_without_a_fit_its_reason():
    import test_explain_corpus as corpus

    rows = check.crash_rows()
    assert [r.case_id for r in rows] == corpus.MEMORY_CRASHES
    # a log without a fitting fix, or with the reader's phase off the label, is in one of the test's outcome sets
    assert all(r.outcome for r in rows if not r.fits or not r.phase_ok), [r for r in rows if not r.outcome and not r.fits]
    assert all(r.first_fix for r in rows if r.fits)
    line = check.summary(rows)
    n = len(rows)
    assert line.startswith(f"memory crash logs {n}: phase {sum(r.phase_ok for r in rows)}/{n}")
    assert f"a fix that fits {sum(r.fits for r in rows)}/{n}" in line


def test_the_cli_prints_the_summary_last(capsys):
    assert check.main(["--rows"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("memory crash logs ")
    assert all("\t" in line for line in out[:-1])
