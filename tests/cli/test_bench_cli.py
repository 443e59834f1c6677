"""``tpkit bench allreduce`` flag checks: every bad value is a message before any rank starts."""

import pytest

from tpkit.cli import build_parser, main
from tpkit.cli.bench import options_from_args


def _opts(*argv):
    return options_from_args(build_parser().parse_args(["bench", "allreduce", "--device", "cpu", *argv]))


@pytest.mark.parametrize("argv, needle", [
    (["--iters", "0"], "--iters must be ≥ 1"),
    (["--repeats", "0"], "--repeats must be ≥ 1"),
    (["--graph-calls", "-1"], "--graph-calls must be ≥ 1"),
    (["--max-blocks", "0"], "--max-blocks must be ≥ 1"),
    (["--nproc", "0"], "--nproc must be ≥ 1"),
    (["--min-size", "3B", "--max-size", "96B"], "not a whole number of bf16 elements"),
    (["--dtype", "fp32", "--min-size", "6B", "--max-size", "96B"], "not a whole number of fp32 elements"),
    (["--json", "/nonexistent-dir/p.json"], "does not exist or is not writable"),
    (["--plot", "/nonexistent-dir/p.png"], "does not exist or is not writable"),
])
def test_bad_bench_flags_exit_2_with_a_message(capsys, argv, needle):
    """--iters/--repeats 0 used to die in the ranks (ZeroDivisionError, no median); --json into a missing
    folder after the whole run."""
    code = main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo", *argv])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err


def test_bad_env_value_is_refused_before_ranks_start(monkeypatch, capsys):
    monkeypatch.setenv("TPKIT_ALLREDUCE", "foo")
    assert main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo"]) == 2
    assert "TPKIT_ALLREDUCE='foo'" in capsys.readouterr().err


def test_sizes_double_from_min_to_max_and_explicit_max_blocks_is_kept():
    opts = _opts("--min-size", "4B", "--max-size", "40B", "--max-blocks", "64")
    assert opts["sizes"] == (4, 8, 16, 32)
    assert opts["backend_options"] == {"max_blocks": 64}
    assert _opts()["backend_options"] == {}
