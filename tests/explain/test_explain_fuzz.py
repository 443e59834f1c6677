"""A fast seeded sample of scripts/fuzz_explain.py (the full 5,000-case run is in docs/accuracy.md §7.4; its
speed is a benchmark there, not a timed assertion here: on a shared CI core the wall time says nothing)."""

from explain_testlib import script


def test_fuzz_sample_no_traceback_exit_0_or_2():
    fuzz = script("fuzz_explain")
    report = fuzz.run(count=60, seed=20261201, huge_line=1 << 16)
    assert report["errors"] == [], report["errors"][:1]
    assert set(report["exit_codes"]) <= {0, 2}


def test_a_page_size_below_one_is_not_a_setting(capsys):
    """fuzz_explain seed 6, case 3683 (lead, session 16): ``page_size=-07`` and ``#tokens: 7`` made explain divide by
    tokens + page = 0.  A group or page size below 1 is a damaged line: dropped, so the default page applies."""
    from pathlib import Path

    from tpkit.cli import main
    from tpkit.logs.run import _normal

    for name in ("page_size", "tp", "pp", "dp", "ep"):
        for bad in ("-07", "0", -1):
            try:
                _normal(name, bad)
            except ValueError:
                continue
            raise AssertionError(f"{name}={bad!r} accepted")
    assert _normal("page_size", "16") == 16 and _normal("chunked_prefill_size", "-1") == -1
    log = Path(__file__).parent / "data" / "fuzz_seed6_case3683.log"
    assert main(["explain", str(log), "--engine", "sglang"]) == 0
    out = capsys.readouterr().out
    assert "rounded down to page 1" in out


def test_a_negative_printed_token_count_is_not_printed(capsys):
    """fuzz_explain seed 8, case 284 (lead, session 16): '#tokens: -1' with a page of 1 made explain divide by
    tokens + page = 0.  A negative count is a damaged line: explain treats the count as not printed."""
    from pathlib import Path

    from tpkit.cli import main

    log = Path(__file__).parent / "data" / "fuzz_seed8_case284.log"
    assert main(["explain", str(log), "--engine", "vllm"]) == 0
    assert "printed -1" not in capsys.readouterr().out
