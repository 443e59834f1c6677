"""``tpkit bench allreduce`` flag checks: every bad value is a message before any rank starts."""

import subprocess
import sys
import textwrap

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
    assert [s.bytes for s in opts["sizes"]] == [4, 8, 16, 32]
    assert opts["backend_options"] == {"max_blocks": 64}
    assert _opts()["backend_options"] == {}


def _run_blocked(argv, block_torch: bool = True) -> subprocess.CompletedProcess:
    """``tpkit <argv>`` in a fresh interpreter, with torch made unimportable when asked."""
    code = textwrap.dedent(f"""
        import sys, importlib.abc
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if {block_torch!r} and (name == "torch" or name.startswith("torch.")):
                    raise ImportError("blocked")
        sys.meta_path.insert(0, Block())
        from tpkit.cli import main
        sys.exit(main({argv!r}))
        """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_flags_are_checked_before_torch_is_needed():
    """--iters 0 on a machine without torch said "install torch" first; the flag is the user's first mistake."""
    r = _run_blocked(["bench", "allreduce", "--iters", "0"])
    assert r.returncode == 2 and "--iters must be ≥ 1" in r.stderr and "Traceback" not in r.stderr


def test_the_bench_command_imports_neither_comm_nor_torch_until_it_runs():
    code = ("import sys; import tpkit.cli.bench, tpkit.cli; tpkit.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith(('tpkit.comm', 'torch'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.skipif(pytest.importorskip("torch").cuda.is_available(), reason="checks a machine without a GPU")
@pytest.mark.parametrize("argv, needles", [
    (["--device", "cuda", "--nproc", "1"], ["--device cuda: no CUDA GPU is visible", "--device cpu --backend gloo"]),
    (["--backend", "nccl", "--nproc", "2"], ["--backend nccl cannot run on the CPU", "it needs GPUs",
                                              "--backend gloo"]),
    (["--backend", "one_shot", "--backend", "nccl"], ["they need GPUs"]),
])
def test_gpu_requests_on_a_cpu_machine_are_user_errors(capsys, argv, needles):
    """Both used to die inside the spawned ranks as a ProcessRaisedException traceback; the nccl one advised
    "initialise the group with nccl or gloo", which a CLI user cannot do."""
    code = main(["bench", "allreduce", *argv])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    for needle in needles:
        assert needle in err


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_an_output_path_that_is_a_directory_is_refused_before_the_run(tmp_path, capsys, flag):
    """Used to run the whole bench, then raise IsADirectoryError."""
    code = main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo", flag, str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "is a directory" in err and "Traceback" not in err


def test_the_rows_file_next_to_the_profile_is_checked_too(tmp_path, capsys):
    (tmp_path / "p.rows.json").mkdir()
    assert main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo", "--json", str(tmp_path / "p.json")]) == 2
    assert "rows file" in capsys.readouterr().err


def test_plot_extension_must_be_an_image_format(tmp_path, capsys):
    code = main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo", "--plot", str(tmp_path / "p.txt")])
    assert code == 2 and "not an image format" in capsys.readouterr().err


def test_plot_without_matplotlib_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    """Helper rev11 (2026-12-05): in a venv without the plot extra the bench ran, wrote --json, then died with
    ModuleNotFoundError: matplotlib (exit 1, a traceback) when rank 0 drew the plot."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    out = tmp_path / "p.json"
    code = main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo", "--nproc", "2", "--max-size", "1KiB",
                 "--json", str(out), "--plot", str(tmp_path / "p.png")])
    err = capsys.readouterr().err
    assert code == 2 and "--plot needs matplotlib" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_user_error_raised_in_a_spawned_rank_is_rebuilt_without_its_traceback():
    from tpkit.comm.benchmain import user_error_from_rank
    from tpkit.errors import PlanInputError, RuntimeSetupError

    text = ("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last):\n"
            '  File "x.py", line 1, in f\ntpkit.errors.RuntimeSetupError: 2 ranks need 2 GPUs, found 1\n')
    err = user_error_from_rank(1, text)
    assert isinstance(err, RuntimeSetupError) and str(err) == "rank 1: 2 ranks need 2 GPUs, found 1"
    assert user_error_from_rank(0, "Traceback ...\nValueError: a bug\n") is None
    assert isinstance(user_error_from_rank(0, "tpkit.errors.PlanInputError: bad\n"), PlanInputError)
    assert user_error_from_rank(0, "tpkit.units.Bytes: not an error class\n") is None
