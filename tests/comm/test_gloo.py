"""The CPU path end to end: AllReduce over gloo ranks and ``tpkit bench allreduce --backend gloo``."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _env(**extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **extra}
    env.pop("TPKIT_ALLREDUCE", None)
    return env


@pytest.mark.parametrize("world", [2, 3])
def test_allreduce_over_gloo(tmp_path, world):
    subprocess.run([sys.executable, str(HERE / "gloo_worker.py"), str(world), str(tmp_path)], check=True,
                   env=_env(), timeout=120)
    for rank in range(world):
        res = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert res["started"] == ["gloo"]
        assert res["topology"] == "CPU ranks, no GPU links"
        for name in ("nccl", "one_shot", "symm_mem_one_shot"):  # said P2P was missing, on a machine with no GPU
            assert res["skipped"][name] == "needs tensors on the GPU; this group's are on the CPU"
        assert res["ledger"] == 0
        for dtype, sums in res["sums"].items():
            assert sums == {"out_of_place": True, "in_place": True, "input_kept": True, "check_once_wrong": 0}, dtype
        assert res["decision"][0] == "gloo" and "first eligible in order" in res["decision"][1]


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tpkit", "bench", "allreduce", *args], capture_output=True,
                          text=True, env=env or _env(), timeout=120)


def test_bench_cli_gloo_writes_a_loadable_profile(tmp_path):
    from tpkit.comm.profile import load_profile

    prof = tmp_path / "p.json"
    r = _cli("--backend", "gloo", "--nproc", "2", "--max-size", "4KiB", "--repeats", "2", "--iters", "3",
             "--json", str(prof), "--explain")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "busbw GB/s" in r.stdout and "#wrong" in r.stdout and "→ eager gloo" in r.stdout
    assert "graph" not in r.stdout.split("# dispatch")[1]  # no CUDA graphs on CPU ranks
    loaded = load_profile(prof)
    assert [row.nbytes.bytes for row in loaded.rows(2)] == [1024, 2048, 4096]
    assert loaded.mode == "eager" and "bench allreduce" in loaded.source
    rows = json.loads((tmp_path / "p.rows.json").read_text())
    assert rows and all(r["wrong"] == 0 and r["time_us"] > 0 for r in rows)
    assert {r["backend"] for r in rows} == {"gloo", "auto"}


def test_bench_cli_on_cpu_says_only_what_applies():
    """On CPU ranks the report printed NVLink/PCIe, each skip line twice (stdout and a log warning) and an empty
    "auto vs best" header."""
    r = _cli("--nproc", "2", "--max-size", "2KiB", "--repeats", "2", "--iters", "3", "--explain")
    assert r.returncode == 0, r.stderr[-2000:]
    both = r.stdout + r.stderr
    assert both.count("needs tensors on the GPU") == 6  # one line per GPU backend, not repeated under --explain
    assert "graph" not in r.stdout.split("# dispatch")[1]
    assert "NVLink" not in both and "PCIe" not in both and "# topology: CPU ranks, no GPU links" in r.stdout
    assert both.count("backend one_shot skipped") + both.count("skipped one_shot:") == 1
    assert "auto vs best" not in r.stdout
    assert "# skipped nccl: needs tensors on the GPU" in r.stdout


@pytest.mark.parametrize("args,env,message", [
    (["--max-size", "10"], {}, "has no unit"),
    (["--backend", "fastest"], {}, "unknown --backend fastest"),
    (["--backend", "gloo"], {"TPKIT_ALLREDUCE": "quick"}, "TPKIT_ALLREDUCE='quick' is not a valid choice"),
    (["--backend", "gloo", "--min-size", "2KiB", "--max-size", "1KiB"], {}, "need 0 < --min-size"),
])
def test_bench_cli_user_errors(args, env, message):
    r = _cli(*args, env={**_env(), **env})
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_bench_without_torch_is_a_clear_error(tmp_path):
    """A machine without torch gets an install hint and exit code 2, not a traceback."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import sys, importlib.abc
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError("blocked")
        sys.meta_path.insert(0, Block())
        import importlib.util
        importlib.util.find_spec = (lambda f: (lambda name, *a: None if name == "torch" else f(name, *a)))(
            importlib.util.find_spec)
        from tpkit.cli import main
        sys.exit(main(["bench", "allreduce", "--device", "cpu", "--backend", "gloo"]))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "tpkit[runtime]" in out.stderr


def test_bench_honours_force_pcie_but_not_the_dispatch_cap():
    """The bench checked forced backends against an empty environment: with TPKIT_ALLREDUCE_FORCE_PCIE=1
    on a 4-GPU PCIe box it started the custom kernels, then skipped every one of their rows."""
    from types import SimpleNamespace

    from tpkit.comm.benchrun import bench_skip_reason
    from tpkit.comm.env import CommEnv
    from tpkit.hardware.topology import GroupTopology
    from tpkit.units import KiB, MiB

    def ar(env):
        return SimpleNamespace(world_size=4, topology=GroupTopology(full_nvlink=False, p2p=True,
                                                                    compute_capability=(9, 0)),
                               available={"two_shot": MiB(8)}, env=env)

    assert "PCIe rule" in bench_skip_reason(ar(CommEnv()), "two_shot", KiB(4), "bf16")
    forced = ar(CommEnv(force_pcie=True, max_bytes=KiB(1)))
    assert bench_skip_reason(forced, "two_shot", KiB(4), "bf16") is None  # above the cap: still measured
    assert "exceeds" in bench_skip_reason(forced, "two_shot", MiB(16), "bf16")
    assert bench_skip_reason(forced, "auto", KiB(4), "bf16") is None
