"""One GPU: tpkit's Triton all-reduce kernels raise on a timed-out wait instead of returning a wrong sum.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 python scripts/gpu_timeout_check.py --out OUT

Two "ranks" live on one GPU: each rank's symmetric buffer (and signal pad) is a plain local tensor, and the
peer views are the other rank's tensors.  Launched on two streams at once, the two kernels complete a real
2-rank all-reduce (the happy path).  Launched alone, rank 0 waits for a peer that never comes: the kernel must
report the timeout (backend, peer rank) through the error word, the host must raise ``AllReduceTimeout``, the
push one-shot's output must be NaN (not a partial sum), and later calls must refuse to run.  The same check
runs on a CUDA-graph replay.  Then: ns per poll (to state the default limit in seconds), a 1-GPU
``tpkit bench allreduce`` (real symmetric memory, real start-up), ``tpkit probe``, and the GPU tests that run
on one GPU.  Prints one PASS/FAIL line per check and writes ``OUT/timeout_check.json``.

Both "ranks" run in one process, so every kernel variant is compiled and loaded before either rank launches
(``CUDA_MODULE_LOADING=EAGER`` plus an explicit load): with CUDA's lazy loading, launching rank 1's kernel
while rank 0's spins waits for a context synchronisation that rank 0 never allows (the deadlock the CUDA
programming guide describes under "Lazy Loading"; the first run of this script hit it).  Separate rank
processes, as in ``AllReduce``, do not share a context and are not affected.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")  # before CUDA starts: see the module docstring

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tpkit.comm.backends import error_flag as ef  # noqa: E402
from tpkit.comm.backends.one_shot import PushOneShotBackend  # noqa: E402
from tpkit.comm.backends.triton_base import TritonSymmBackend  # noqa: E402
from tpkit.comm.ledger import buffer_bytes, round_capacity  # noqa: E402
from tpkit.units import KiB  # noqa: E402

DEV = torch.device("cuda", 0)
RESULTS: dict[str, object] = {}


class LocalBuf:
    """Stands in for ``SymmBuffer``: rank ``rank`` of 2, buffers and signal pads are local tensors."""

    def __init__(self, name: str, rank: int, raws: list, pads: list) -> None:
        self.name, self.rank, self.world_size = name, rank, 2
        self.capacity = round_capacity(KiB(64))
        self.raw, self._raws = raws[rank], raws
        self.handle = type("Handle", (), {"signal_pad_ptrs": [p.data_ptr() for p in pads],
                                          "signal_pad_size": pads[0].numel() * 4})()

    def peer_views(self, dtype):
        return [r.view(dtype) for r in self._raws]

    def ledger_lines(self, **_kw):
        return ()


def pair(name: str, spin_limit: int):
    """Two backends (rank 0 and rank 1) whose 'peer memory' is each other's local tensors."""
    size = buffer_bytes(name, KiB(64), 2).bytes
    raws = [torch.zeros(size, dtype=torch.uint8, device=DEV) for _ in range(2)]
    pads = [torch.zeros(128 * 2 * 8, dtype=torch.int32, device=DEV) for _ in range(2)]
    out = []
    for rank in range(2):
        buf = LocalBuf(name, rank, raws, pads)
        if name == "one_shot":
            out.append(PushOneShotBackend(name, buf, max_blocks=128, num_warps=4, spin_limit=spin_limit))
        else:
            from tpkit.comm.backends import _triton_kernels as k

            kernel = k.one_shot_kernel if name == "one_shot_pull" else k.two_shot_kernel
            out.append(TritonSymmBackend(name, buf, kernel, regions=1 if name == "one_shot_pull" else 2,
                                         max_blocks=128, num_warps=16, spin_limit=spin_limit))
    return out


def check(label: str, ok: bool, detail: str = "") -> None:
    RESULTS[label] = {"ok": bool(ok), "detail": detail}
    print(f"{'PASS' if ok else 'FAIL'} {label}" + (f": {detail}" if detail else ""), flush=True)


def preload(backends, x) -> None:
    """Compile and load every rank's kernel variant (rank 1 is its own Triton specialisation)."""
    for b in backends:
        compiled = b.compile_for(x, torch.empty_like(x))
        init = getattr(compiled, "_init_handles", None)
        if init is not None:
            init()
    torch.cuda.synchronize()


def happy_path(name: str) -> None:
    b0, b1 = pair(name, spin_limit=1 << 22)
    x = [torch.randn(4096, device=DEV, dtype=torch.bfloat16) for _ in range(2)]
    outs = [torch.empty_like(t) for t in x]
    preload((b0, b1), x[0])
    streams = [torch.cuda.Stream() for _ in range(2)]
    torch.cuda.synchronize()
    for _ in range(3):  # several calls: the double-buffered slots alternate
        for b, s, xi, o in zip((b0, b1), streams, x, outs):
            with torch.cuda.stream(s):
                b.run(xi, o)
        torch.cuda.synchronize()
    want = (x[0].float() + x[1].float()).to(torch.bfloat16)
    b0.check_errors()
    b1.check_errors()
    check(f"{name}: two ranks on two streams sum correctly, no error word",
          torch.equal(outs[0], want) and torch.equal(outs[1], want))


def timeout_path(name: str, graph: bool = False) -> None:
    b0, b1 = pair(name, spin_limit=20000)
    x = torch.randn(4096, device=DEV, dtype=torch.bfloat16)
    out = torch.full_like(x, 7.0)
    preload((b0, b1), x)
    if graph:  # one complete call of both ranks first (loads the kernel), then rank 0 alone in a graph
        streams = [torch.cuda.Stream() for _ in range(2)]
        torch.cuda.synchronize()
        for b, s in zip((b0, b1), streams):
            with torch.cuda.stream(s):
                b.run(x, torch.empty_like(x))
        torch.cuda.synchronize()
        b0.check_errors()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            b0.run(x, out)
        out.fill_(7.0)
        g.replay()
    else:
        b0.run(x, out)
    torch.cuda.synchronize()
    code = b0.errors.code()
    try:
        b0.check_errors()
        raised = ""
    except ef.AllReduceTimeout as exc:
        raised = str(exc)
    backend, kind, peer = ef.decode(code) if code else ("", 0, 0)
    where = " (CUDA graph replay)" if graph else ""
    check(f"{name}: lone rank 0 times out and the host raises{where}",
          bool(raised) and backend == name and peer == 1 and "peer rank 1" in raised and name in raised,
          raised[:160])
    if name == "one_shot":
        check(f"one_shot: the timed-out output is NaN, not a partial sum{where}", bool(torch.isnan(out).all()))
    try:
        b0.run(x, out)
        refused = False
    except ef.AllReduceTimeout:
        refused = True
    check(f"{name}: later calls refuse to run{where}", refused)
    RESULTS.setdefault("codes", {})[f"{name}{where}"] = {"code": code, "kind": kind, "peer": peer}


def ns_per_poll() -> None:
    """Time a lone push one-shot (one block) at two limits; the slope is the cost of one poll."""
    times = {}
    for limit in (1 << 16, 1 << 20):
        b0, _ = pair("one_shot", spin_limit=limit)
        x = torch.randn(256, device=DEV, dtype=torch.bfloat16)
        out = torch.empty_like(x)
        preload((b0,), x)
        t0 = time.perf_counter()
        b0.run(x, out)
        torch.cuda.synchronize()
        times[limit] = time.perf_counter() - t0
    slope = (times[1 << 20] - times[1 << 16]) / ((1 << 20) - (1 << 16))
    RESULTS["push_ns_per_poll"] = slope * 1e9
    RESULTS["push_default_limit_s"] = slope * ef.DEFAULT_SPIN_LIMIT
    b0, _ = pair("one_shot_pull", spin_limit=1 << 16)
    x = torch.randn(256, device=DEV, dtype=torch.bfloat16)
    out = torch.empty_like(x)
    preload((b0,), x)
    t0 = time.perf_counter()
    b0.run(x, out)
    torch.cuda.synchronize()
    barrier = (time.perf_counter() - t0) / (1 << 16)
    RESULTS["barrier_ns_per_poll"] = barrier * 1e9
    RESULTS["barrier_default_limit_s"] = barrier * ef.DEFAULT_SPIN_LIMIT
    check("poll cost measured", slope > 0, f"push {slope * 1e9:.1f} ns/poll, barrier {barrier * 1e9:.1f} ns/poll; "
          f"default limit {ef.DEFAULT_SPIN_LIMIT:,} polls = {slope * ef.DEFAULT_SPIN_LIMIT:.1f} s (push), "
          f"{barrier * ef.DEFAULT_SPIN_LIMIT:.1f} s (barrier)")


def run(label: str, cmd: list[str], out: Path, timeout: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        text, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired as exc:
        text, rc = f"timed out after {timeout} s: {exc}", -1
    (out / f"{label}.log").write_text(text)
    check(f"{label} (rc {rc}, {time.time() - t0:.0f} s)", rc == 0, text.strip().splitlines()[-1][:200] if text.strip() else "")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="out")
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    RESULTS["device"] = torch.cuda.get_device_name(DEV)
    RESULTS["torch"] = torch.__version__
    import triton

    RESULTS["triton"] = triton.__version__
    steps = [lambda: happy_path("one_shot"), lambda: happy_path("one_shot_pull"), lambda: happy_path("two_shot"),
             lambda: timeout_path("one_shot"), lambda: timeout_path("one_shot_pull"),
             lambda: timeout_path("two_shot"), lambda: timeout_path("one_shot", graph=True), ns_per_poll]
    for i, step in enumerate(steps):
        t0 = time.time()
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - report and go on to the next check
            check(f"step {i} raised {type(exc).__name__}", False, str(exc)[:300])
        print(f"  (step {i}: {time.time() - t0:.1f} s)", flush=True)
    py = sys.executable
    run("bench_1gpu", [py, "-m", "tpkit", "bench", "allreduce", "--nproc", "1", "--max-size", "64KiB",
                       "--repeats", "2", "--iters", "3", "--explain"], out, 120)
    run("probe", [py, "-m", "tpkit", "probe", "--out", str(out / "machine.json")], out, 40)
    run("gpu_tests", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/runtime/test_gpu.py",
                      "tests/runtime/test_topology.py", "tests/runtime/test_kv_alloc.py",
                      "tests/comm/test_gpu_allreduce.py", "tests/engines/test_vllm_gpu.py",
                      "tests/comm/test_error_flag.py"], out, 150)
    (out / "timeout_check.json").write_text(json.dumps(RESULTS, indent=1))
    failed = [k for k, v in RESULTS.items() if isinstance(v, dict) and v.get("ok") is False]
    print(f"{'ALL PASSED' if not failed else 'FAILED: ' + '; '.join(failed)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
