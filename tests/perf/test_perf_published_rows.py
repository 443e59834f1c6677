"""``bench/decode_published.py --rows``: the itemised view of chosen rows (helper spw6, 2026-12-05).

For each named row it prints the ``tpkit perf`` command that reproduces the row's prediction (``perf_argv``), the
measured plain step and cycle (batch / plain tok/s; batch × accept length / speculative tok/s) and the predicted
ones with the cycle's parts.  The command must give the very prediction the scorer makes, or the itemised view
would describe another deployment.
"""

import json
import sys
from pathlib import Path

import pytest

from tpkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((Path(__file__).parent / "data" / "published_spec.json").read_text())


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "bench"))
    import decode_published

    return decode_published


def _first_row_of_each_source() -> list[int]:
    seen, out = set(), []
    for i, row in enumerate(DATA["rows"], 1):
        if row["source"] not in seen:
            seen.add(row["source"])
            out.append(i)
    return out


# one row of every source, the rows carrying the rarer settings (attention backend, spec v2, running cap, a
# config file as the model, a draft head config: 357), and the held-out wrong-sign rows of 2026-12-05
ROWS = sorted(set(_first_row_of_each_source()) | {25, 26, 59, 67, 71, 74, 135, 136, 147, 148, 165, 166, 181, 186,
                                                  357})


@pytest.mark.parametrize("number", ROWS)
def test_the_printed_command_makes_the_scorers_prediction(number, bench, capsys, monkeypatch):
    row = DATA["rows"][number - 1]
    monkeypatch.chdir(ROOT)  # rows may name a config under bench/data by a relative path
    code = main(bench.perf_argv(row) + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out)
    want = bench.predict(row)
    assert got["speculative"]["speedup"] == pytest.approx(want.speculative.speedup, abs=5e-4)
    assert got["baseline"]["tok_s"] == pytest.approx(want.baseline.tok_s, abs=0.01)
    # the JSON rounds cycle_s to 7 decimals (perf.result: 0.05 µs, 1.1e-5 of row 216's 4.36 ms cycle: helper draft11)
    assert got["speculative"]["cycle_s"] == pytest.approx(want.speculative.cycle_us / 1e6, rel=1e-5, abs=5e-8)


def test_every_setting_a_row_carries_reaches_the_command(bench):
    rows = DATA["rows"]
    with_backend = next(r for r in rows if r.get("attention_backend"))
    with_v2 = next(r for r in rows if r.get("sglang_spec_v2") is not None)
    with_cap = next(r for r in rows if r.get("max_running_requests") is not None)
    without_tau = next(r for r in rows if not r["accept_length"])
    assert with_backend["attention_backend"] in bench.perf_argv(with_backend)
    assert "--sglang-spec-v2" in bench.perf_argv(with_v2)
    argv = bench.perf_argv(with_cap)
    assert argv[argv.index("--max-running-requests") + 1] == str(with_cap["max_running_requests"])
    assert "--accept-length" not in bench.perf_argv(without_tau)  # the family default, as the scorer uses
    # helper be11 (2026-12-05): the all-reduce backend a source's launch fixed (mb3090_coder: --disable-custom-all-reduce)
    with_ar = next(r for r in rows if r.get("allreduce_backend"))
    argv = bench.perf_argv(with_ar)
    assert (with_ar["source"], argv[argv.index("--allreduce-backend") + 1]) == ("mb3090_coder", "nccl")
    assert bench.predict(with_ar).allreduce["backend"] == "nccl"
    # helper s13 (2026-12-06): the draft head a source's logs size (p20_dcstang_h100: its full-vocabulary head)
    with_head = next(r for r in rows if r.get("draft_model"))
    argv = bench.perf_argv(with_head)
    assert argv[argv.index("--speculative-draft-model-path") + 1] == with_head["draft_model"]


def test_itemised_row_reads_the_measured_step_and_cycle_off_the_source(bench):
    row = DATA["rows"][166 - 1]  # glm47f_e3, B=1: 120.3 → 167.75 tok/s at accept length 2.4
    assert (row["source"], row["batch"], row["base_tok_s"], row["accept_length"]) == ("glm47f_e3", 1, 120.3, 2.4)
    text = "\n".join(bench.itemise(166, row))
    assert "plain step     8.31 ms" in text              # 1 / 120.3 tok/s
    assert "cycle    14.31 ms" in text                    # 2.4 / 167.75 tok/s
    assert "tpkit perf zai-org/GLM-4.7-Flash" in text and "--attention-backend flashinfer" in text
    assert "verify" in text and "draft steps" in text


def test_itemised_row_without_tok_s_gives_the_implied_ratio(bench):
    row = DATA["rows"][135 - 1]  # eagle3_t3: speed-up only
    assert row["base_tok_s"] is None and row["measured_speedup"] == 0.93
    text = "\n".join(bench.itemise(135, row))
    assert "speed-up only" in text and "implied cycle/step 2.34" in text  # 2.18 (family default) / 0.93


@pytest.mark.parametrize("arg", ["0", "575", "x", ","])
def test_rows_out_of_range_or_not_numbers_exit_2(arg):
    """Row numbers past the table exit 2.  Helper pub11 (2026-12-05): the table has 218 rows, so 219 is the first
    out of range.  Helper sp13 (2026-12-05): 286 rows after the Qwen3.5-397B sources, so 287.  Helper sp18
    (2026-12-05): 352 rows after the RTX 3090 sources, so 353.  Helper sp20 (2026-12-06): 363 rows, so 364.
    Helper sp21 (2026-12-06): 368 rows, so 369.  Helper sp22 (2026-12-06): 391 rows, so 392.
    Helper sp28 (2026-12-06): 408 rows, so 409.  Helper sp29 (2026-12-06): 419 rows, so 420.
    Helper sp31 (2026-12-07): 459 rows, so 460.  Helper sp33 (2026-12-07): 461 rows, so 462.
    Helper sp34 (2026-12-07): 470 rows, so 471.  Helper sp35 (2026-12-07): 478 rows, so 479.
    Helper sp36 (2026-12-07): 485 rows, so 486; second batch, 487 rows, so 488.  Helper sp36b (2026-12-07): 498 rows,
    so 499.  Helper sp37 (2026-12-07): 514 rows, so 515.  Helper sp37b (2026-12-07): 520 rows, so 521.
    Helper sp38 (2026-12-08): 562 rows, so 563;
    second batch, 565 rows, so 566.
    Helper sp38b (2026-12-08): 529 rows on its branch (its 9 appended blind; sp38 appends in parallel, the lead
    reconciles at merge), so 530; merged by the lead after sp38's 45, 574 rows, so 575."""
    import subprocess

    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "decode_published.py"), "--rows", arg],
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""})
    assert proc.returncode == 2 and "--rows" in proc.stderr and "Traceback" not in proc.stderr


def test_itemised_not_comparable_row_prints_the_source_reason():
    """Helper sp20b (2026-12-06): ``--rows 336`` prints the row (prediction kept) and the reason it is left out of
    the scores, quoted from the source; a comparable row prints no such line."""
    import subprocess

    out = subprocess.run([sys.executable, str(ROOT / "bench" / "decode_published.py"), "--rows", "336,335"],
                         capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""}).stdout
    assert out.count("not comparable, left out of the scores") == 1
    assert "row 336 (p18_q38_4x3090)" in out and "config warmup disabled for resume" in out
